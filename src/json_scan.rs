//! Reading the JSON text JavaScript's `JSON.stringify` wrote, without building values.
//!
//! A [`Reader`] walks the text once, front to back: a caller descends into the objects
//! and arrays it knows (a message, its content blocks) and skips everything else; a
//! skipped value is a [`Span`] of the text (its kind and exact characters); a string is
//! measured in UTF-16 units while it is read and decoded only on request.
//!
//! This is what makes reading a host message cost about one pass over its text: large
//! strings are never copied unless their characters are needed, and values nested at any
//! depth (tool arguments, `details`, unknown host fields) are skipped with a depth count,
//! not recursion. Malformed text is an error, never a panic.

use crate::js_whitespace;
use crate::text_build::Append;
use crate::text_build::Owned;

/// The kind of a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Number,
    Object,
    Array,
    Bool,
    Null,
}

impl Kind {
    /// "a string", "an array", ... for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::Bool => "a boolean",
            Kind::Null => "null",
        }
    }
}

/// Why text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanError {
    pub offset: usize,
    pub what: &'static str,
}

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at character {}", self.what, self.offset)
    }
}

type Result<T> = std::result::Result<T, ScanError>;

fn err<T>(offset: usize, what: &'static str) -> Result<T> {
    Err(ScanError { offset, what })
}

/// One JSON value as written: its kind and its text (for a string, its length in UTF-16
/// units, measured while it was read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span<'a> {
    pub kind: Kind,
    pub text: &'a str,
    units: usize,
    escaped: bool,
}

impl<'a> Span<'a> {
    /// A string's characters as written (without the quotes).
    #[inline(never)]
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        (self.kind == Kind::String).then(|| JsonStr {
            raw: crate::text_at::span(self.text, 1, self.text.len() - 1),
            units: self.units,
            escaped: self.escaped,
        })
    }

    /// A number's value; `null` (what `JSON.stringify` writes for NaN and ±Infinity) is NaN.
    #[inline(never)]
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind {
            Kind::Number => crate::js_text::parse_decimal(self.text),
            Kind::Null => Some(f64::NAN),
            _ => None,
        }
    }

    /// A boolean's value.
    pub fn as_bool(&self) -> Option<bool> {
        match self.text {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        self.kind == Kind::Null
    }

    /// A reader positioned at this value.
    pub fn reader(&self) -> Reader<'a> {
        Reader {
            text: self.text,
            i: 0,
        }
    }

    /// The entries of an object, in order (keys as written).
    #[inline(never)]
    pub fn entries(&self) -> Result<Vec<(JsonStr<'a>, Span<'a>)>> {
        let mut out = Vec::new();
        self.reader().object(|k, r| {
            out.push((k, r.skip()?));
            Ok(())
        })?;
        Ok(out)
    }

    /// The elements of an array, in order.
    #[inline(never)]
    pub fn elements(&self) -> Result<Vec<Span<'a>>> {
        let mut out = Vec::new();
        self.reader().array(|_, r| {
            out.push(r.skip()?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The value of `key` in an object (the last one when repeated), or `None`.
    pub fn get(&self, key: &str) -> Result<Option<Span<'a>>> {
        let mut found = None;
        if self.kind == Kind::Object {
            self.reader().object(|k, r| {
                let v = r.skip()?;
                if k.decode() == key {
                    found = Some(v);
                }
                Ok(())
            })?;
        }
        Ok(found)
    }
}

/// A position in JSON text, consuming one value at a time.
pub struct Reader<'a> {
    text: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Reader { text, i: 0 }
    }

    /// Where the next value starts (after any whitespace).
    pub fn position(&mut self) -> usize {
        self.skip_ws();
        self.i
    }

    /// Where the reader stands (after the last value consumed).
    pub fn position_after(&self) -> usize {
        self.i
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn skip_ws(&mut self) {
        let b = self.bytes();
        while self.i < b.len() && matches!(b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }

    /// The kind of the next value.
    #[inline(never)]
    pub fn peek(&mut self) -> Result<Kind> {
        self.skip_ws();
        Ok(match self.bytes().get(self.i) {
            Some(b'"') => Kind::String,
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            Some(b'-' | b'0'..=b'9') => Kind::Number,
            _ => return err(self.i, "expected a value"),
        })
    }

    /// After the last value: only whitespace may follow.
    pub fn finish(&mut self) -> Result<()> {
        self.skip_ws();
        if self.i != self.text.len() {
            return err(self.i, "trailing characters");
        }
        Ok(())
    }

    /// The end of the string starting at `i`, counting its UTF-16 units. Eight bytes at
    /// a time: the first quote or backslash of a word is found with bit tricks, the units
    /// of the bytes before it are counted together.
    fn string_at(&self, i: usize) -> Result<(usize, usize, bool)> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        // the high bit of each byte equal to `byte` (exact for the lowest such byte)
        let flag = |w: u64, byte: u8| {
            let x = w ^ (ONES * byte as u64);
            x.wrapping_sub(ONES) & !x & HIGHS
        };
        // UTF-16 units of the bytes whose high bits are in `keep`: every byte but UTF-8
        // continuation bytes (10xxxxxx) counts one, a 4-byte lead (11110xxx) one more
        let units_of = |w: u64, keep: u64| {
            let n = (keep & HIGHS).count_ones() as usize;
            if w & keep == 0 {
                return n;
            }
            let continuation = w & HIGHS & !((w << 1) & HIGHS) & keep;
            let four = w & (w << 1) & (w << 2) & (w << 3) & HIGHS & keep;
            n - continuation.count_ones() as usize + four.count_ones() as usize
        };
        let b = self.bytes();
        let mut j = i + 1;
        let mut units = 0usize;
        let mut escaped = false;
        loop {
            let c = if let Some(chunk) = b.get(j..j + 8) {
                let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                let special = flag(w, b'"') | flag(w, b'\\');
                if special == 0 {
                    units += units_of(w, HIGHS);
                    j += 8;
                    continue;
                }
                let k = special.trailing_zeros() as usize / 8;
                // the bytes before the first quote or backslash (mask of their high bits)
                units += units_of(w, HIGHS & ((1u64 << (8 * k)) - 1).wrapping_add(0));
                j += k;
                b[j]
            } else {
                match b.get(j) {
                    Some(&c) => {
                        if c != b'"' && c != b'\\' {
                            j += 1;
                            units += match c {
                                0x80..=0xBF => 0,
                                0xF0..=0xFF => 2,
                                _ => 1,
                            };
                            continue;
                        }
                        c
                    }
                    None => return err(i, "unterminated string"),
                }
            };
            if c == b'"' {
                return Ok((j + 1, units, escaped));
            }
            // a backslash: \uXXXX or a two-character escape, one unit either way
            escaped = true;
            j += if b.get(j + 1) == Some(&b'u') { 6 } else { 2 };
            units += 1;
            if j > b.len() {
                return err(i, "unterminated string");
            }
        }
    }

    /// Consume a string.
    pub fn string(&mut self) -> Result<JsonStr<'a>> {
        if self.peek()? != Kind::String {
            return err(self.i, "expected a string");
        }
        let start = self.i;
        let (end, units, escaped) = self.string_at(start)?;
        self.i = end;
        Ok(JsonStr {
            raw: crate::text_at::span(self.text, start + 1, end - 1),
            units,
            escaped,
        })
    }

    /// Consume the next value without looking inside it.
    pub fn skip(&mut self) -> Result<Span<'a>> {
        let kind = self.peek()?;
        let b = self.bytes();
        let start = self.i;
        let (mut units, mut escaped) = (0, false);
        let end = match kind {
            Kind::String => {
                let (end, u, e) = self.string_at(start)?;
                (units, escaped) = (u, e);
                end
            }
            Kind::Object | Kind::Array => {
                let mut depth = 0usize;
                let mut j = start;
                loop {
                    let Some(&c) = b.get(j) else {
                        return err(start, "unterminated object or array");
                    };
                    match c {
                        b'"' => {
                            j = self.string_at(j)?.0;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                break j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            Kind::Bool | Kind::Null => {
                let word: &[u8] = match b[start] {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !b[start..].starts_with(word) {
                    return err(start, "expected a value");
                }
                start + word.len()
            }
            Kind::Number => {
                let mut j = start + 1;
                while j < b.len() && matches!(b[j], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    j += 1;
                }
                j
            }
        };
        self.i = end;
        Ok(Span {
            kind,
            text: crate::text_at::span(self.text, start, end),
            units,
            escaped,
        })
    }

    /// Walk an object: `each(key, reader)` is called with the reader at the entry's value,
    /// which it must consume (with [`Reader::skip`], or by descending into it). `each` may
    /// stop the walk with a value of its own (`E` is [`ScanError`], or [`Halt`] to tell
    /// the caller's value apart from text that is not JSON).
    pub fn object<E: From<ScanError>>(
        &mut self,
        mut each: impl FnMut(JsonStr<'a>, &mut Reader<'a>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.object_dyn(&mut each)
    }

    /// [`Reader::object`]'s walk, one copy per error type (not one per caller's `each`:
    /// issue 17 §7).
    #[inline(never)]
    fn object_dyn<E: From<ScanError>>(
        &mut self,
        each: &mut dyn FnMut(JsonStr<'a>, &mut Reader<'a>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        if self.peek()? != Kind::Object {
            return err(self.i, "expected an object").map_err(E::from);
        }
        self.i += 1;
        self.skip_ws();
        if self.bytes().get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.skip_ws();
            if self.bytes().get(self.i) != Some(&b':') {
                return err(self.i, "expected ':'").map_err(E::from);
            }
            self.i += 1;
            each(key, self)?;
            self.skip_ws();
            match self.bytes().get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return err(self.i, "expected ',' or '}'").map_err(E::from),
            }
        }
    }

    /// Walk an array: `each(index, reader)` is called with the reader at each element,
    /// which it must consume; it may stop the walk as [`Reader::object`]'s `each` does.
    pub fn array<E: From<ScanError>>(
        &mut self,
        mut each: impl FnMut(usize, &mut Reader<'a>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.array_dyn(&mut each)
    }

    /// [`Reader::array`]'s walk, one copy per error type.
    #[inline(never)]
    fn array_dyn<E: From<ScanError>>(
        &mut self,
        each: &mut dyn FnMut(usize, &mut Reader<'a>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        if self.peek()? != Kind::Array {
            return err(self.i, "expected an array").map_err(E::from);
        }
        self.i += 1;
        self.skip_ws();
        if self.bytes().get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(());
        }
        let mut k = 0;
        loop {
            each(k, self)?;
            k += 1;
            self.skip_ws();
            match self.bytes().get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return err(self.i, "expected ',' or ']'").map_err(E::from),
            }
        }
    }
}

/// Why a walk ([`Reader::object`], [`Reader::array`]) ended early.
#[derive(Debug, PartialEq)]
pub enum Halt<E> {
    /// The text is not JSON.
    NotJson(ScanError),
    /// The caller's `each` stopped the walk (a bad value it found).
    Stopped(E),
}

impl<E> From<ScanError> for Halt<E> {
    fn from(e: ScanError) -> Self {
        Halt::NotJson(e)
    }
}

impl<E> Halt<E> {
    /// The caller's value, or `not_json` of the scan error.
    pub fn into_inner(self, not_json: impl FnOnce(ScanError) -> E) -> E {
        match self {
            Halt::NotJson(e) => not_json(e),
            Halt::Stopped(e) => e,
        }
    }
}

/// The one value `text` holds, skipped whole (whitespace around it allowed).
#[cfg(not(target_arch = "wasm32"))] // for the fuzz checks
pub fn parse(text: &str) -> Result<Span<'_>> {
    let mut r = Reader::new(text);
    let span = r.skip()?;
    r.finish()?;
    Ok(span)
}

/// A JSON string's characters as written (escapes included), read without copying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonStr<'a> {
    raw: &'a str,
    units: usize,
    escaped: bool,
}

impl<'a> JsonStr<'a> {
    /// The characters as written.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The string's length in UTF-16 code units (JavaScript's `.length`): a `\uXXXX`
    /// escape is one unit, so a lone surrogate counts 1, as in JavaScript.
    pub fn utf16_len(&self) -> usize {
        self.units
    }

    /// Whether the string is empty or only white space (JavaScript's `trim`,
    /// [`js_whitespace`]), decided mostly from its first characters.
    pub fn is_blank(&self) -> bool {
        let b = self.raw.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'\\' => match b.get(i + 1) {
                    Some(b'n' | b't' | b'r' | b'f') => i += 2,
                    Some(b'u') => {
                        let c = self
                            .raw
                            .get(i + 2..i + 6)
                            .and_then(|h| u32::from_str_radix(h, 16).ok());
                        match c.and_then(char::from_u32) {
                            Some(c) if js_whitespace::is_js_space(c) => i += 6,
                            _ => return false,
                        }
                    }
                    _ => return false,
                },
                c if c < 0x80 => return false,
                _ => {
                    let c = crate::text_at::from(self.raw, i).chars().next();
                    match c {
                        Some(c) if js_whitespace::is_js_space(c) => i += c.len_utf8(),
                        _ => return false,
                    }
                }
            }
        }
        true
    }

    /// The decoded string (a lone surrogate becomes U+FFFD: a Rust string cannot hold it).
    pub fn decode(&self) -> String {
        self.decode_prefix(usize::MAX)
    }

    /// The first `max` UTF-16 units decoded (a surrogate pair is not split: the cut moves
    /// one unit earlier there).
    // (`push`, not `append_char`: a character at a time in a loop, kept inline)
    #[allow(clippy::disallowed_methods)]
    pub fn decode_prefix(&self, max: usize) -> String {
        let raw = self.raw;
        if !self.escaped {
            if self.units <= max {
                return raw.owned();
            }
            return crate::js_text::utf16_prefix(raw, max).0.owned();
        }
        let mut out = String::with_capacity(raw.len().min(max.saturating_mul(3)));
        let mut units = 0usize;
        let mut rest = raw;
        while !rest.is_empty() {
            let plain_len = crate::text_at::find_byte(rest, b'\\').unwrap_or(rest.len());
            let plain = crate::text_at::upto(rest, plain_len);
            let (head, taken) = crate::js_text::utf16_prefix(plain, max - units);
            out.append(head);
            units += taken;
            if head.len() < plain.len() {
                return out;
            }
            rest = crate::text_at::from(rest, plain_len);
            if rest.is_empty() {
                break;
            }
            let esc = crate::text_at::from(rest, 1);
            let hex = |s: &str| s.get(..4).and_then(|h| u32::from_str_radix(h, 16).ok());
            let (c, consumed) = match esc.as_bytes().first() {
                Some(b'u') => match hex(crate::text_at::from(esc, 1)) {
                    Some(hi) if (0xD800..0xDC00).contains(&hi) => {
                        let lo = esc
                            .get(5..7)
                            .filter(|s| *s == "\\u")
                            .and_then(|_| hex(crate::text_at::from(esc, 7)))
                            .filter(|lo| (0xDC00..0xE000).contains(lo));
                        match lo {
                            Some(lo) => (
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)),
                                11,
                            ),
                            None => (None, 5),
                        }
                    }
                    Some(u) => (char::from_u32(u), 5),
                    None => (None, 1),
                },
                Some(b'n') => (Some('\n'), 1),
                Some(b't') => (Some('\t'), 1),
                Some(b'r') => (Some('\r'), 1),
                Some(b'b') => (Some('\u{8}'), 1),
                Some(b'f') => (Some('\u{c}'), 1),
                Some(_) => (
                    esc.chars().next(),
                    esc.chars().next().map_or(1, char::len_utf8),
                ),
                None => (None, 0),
            };
            let c = c.unwrap_or('\u{FFFD}');
            if units + c.len_utf16() > max {
                return out;
            }
            units += c.len_utf16();
            out.push(c);
            rest = esc.get(consumed..).unwrap_or("");
        }
        out
    }
}

#[cfg(test)]
mod tests;
