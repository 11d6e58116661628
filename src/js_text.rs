//! JavaScript's view of text, for host-contract §2's exactness rules.
//!
//! Every length the host contract speaks of is a JavaScript string length (UTF-16 code
//! units), and tool-call arguments are measured as `JSON.stringify(arguments).length`.
//! This module computes both without a JavaScript engine:
//! - [`utf16_len`]: code units of a Rust string;
//! - [`json_stringify_len`]: the length `JSON.stringify` would give for a JSON value,
//!   numbers printed as ECMAScript `Number.prototype.toString` does;
//! - [`js_number_to_string`]: that number formatting itself.
//!
//! Lone surrogates: a JavaScript string with an unpaired surrogate (`"\ud800"`) reaches
//! Rust with that unit replaced by U+FFFD (one code unit), so text lengths stay exact,
//! but inside tool-call arguments `JSON.stringify` would print it as a 6-character
//! escape where we count 1: the estimate is then 5 characters short per lone surrogate.
//! Such strings also come back from the library with U+FFFD in place of the surrogate.
//! This is the documented, accepted difference (it needs malformed UTF-16 to occur).

use serde_json::Value;

/// Parse JSON text the way JavaScript's `JSON.parse` reads numbers: every number is a
/// double. serde_json keeps integers as 64-bit integers, and one beyond 2^53 (which
/// `JSON.stringify` prints for a large integral double) could not travel back to
/// JavaScript; such integers become the double they denote (the same value JavaScript had).
pub fn parse_json(text: &str) -> serde_json::Result<Value> {
    let mut v: Value = serde_json::from_str(text)?;
    doubles_only(&mut v);
    Ok(v)
}

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

fn doubles_only(v: &mut Value) {
    match v {
        Value::Number(n) => {
            let unsafe_int = n.as_u64().is_some_and(|u| u > MAX_SAFE_INTEGER)
                || n.as_i64()
                    .is_some_and(|i| i.unsigned_abs() > MAX_SAFE_INTEGER);
            if unsafe_int {
                if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                    *n = f;
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(doubles_only),
        Value::Object(o) => o.values_mut().for_each(doubles_only),
        _ => {}
    }
}

/// Length of `s` in UTF-16 code units (JavaScript's `s.length`).
pub fn utf16_len(s: &str) -> usize {
    // ASCII fast path: one unit per byte.
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

/// Slice `s` to at most `max` UTF-16 code units, like JavaScript's `s.slice(0, max)`.
/// A surrogate pair cut in half is kept whole out (the cut moves one unit earlier), so the
/// result is valid UTF-8; the returned length in units is the second element.
pub fn utf16_prefix(s: &str, max: usize) -> (&str, usize) {
    if s.is_ascii() {
        let n = s.len().min(max);
        return (&s[..n], n);
    }
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let w = c.len_utf16();
        if units + w > max {
            return (&s[..i], units);
        }
        units += w;
    }
    (s, units)
}

/// `JSON.stringify(value).length` for a value that came from JavaScript.
pub fn json_stringify_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => json_string_len(s),
        Value::Array(items) => {
            // [a,b,c]
            2 + items.iter().map(json_stringify_len).sum::<usize>() + items.len().saturating_sub(1)
        }
        Value::Object(map) => {
            // {"k":v,...}
            2 + map
                .iter()
                .map(|(k, v)| json_string_len(k) + 1 + json_stringify_len(v))
                .sum::<usize>()
                + map.len().saturating_sub(1)
        }
    }
}

fn number_len(n: &serde_json::Number) -> usize {
    if let Some(u) = n.as_u64() {
        return decimal_digits(u);
    }
    if let Some(i) = n.as_i64() {
        return 1 + decimal_digits(i.unsigned_abs());
    }
    match n.as_f64() {
        Some(f) if f.is_finite() => js_number_to_string(f).len(),
        _ => 4, // NaN / Infinity stringify as null
    }
}

fn decimal_digits(mut u: u64) -> usize {
    let mut d = 1;
    while u >= 10 {
        u /= 10;
        d += 1;
    }
    d
}

/// Length of a JSON string literal as `JSON.stringify` writes it: quotes, `\"`, `\\`,
/// the short escapes `\b \f \n \r \t`, `\u00XX` for other controls; nothing else escaped.
pub fn json_string_len(s: &str) -> usize {
    let mut len = 2;
    for c in s.chars() {
        len += match c {
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf16(),
        };
    }
    len
}

/// ECMAScript `Number::toString(x)` for a finite `x` (radix 10).
pub fn js_number_to_string(x: f64) -> String {
    if x == 0.0 {
        return "0".into(); // also -0
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // Rust's `{:e}` prints the shortest round-tripping digits: "d.ddde±x".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = match sci.split_once('e') {
        Some(parts) => parts,
        None => return sci,
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let e: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n = e + 1; // position of the decimal point relative to the digits
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n >= 1 { '+' } else { '-' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

/// A key JavaScript orders first (an array index: canonical integer below 2^32 − 1).
fn array_index(k: &str) -> Option<u64> {
    if k.is_empty() || k.len() > 10 || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if k.len() > 1 && k.starts_with('0') {
        return None;
    }
    k.parse::<u64>().ok().filter(|&n| n < 4_294_967_295)
}

/// An object's entries in JavaScript property order (`Object.entries`): array-index
/// keys ascending, then the other keys in insertion order.
pub fn js_entries(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut idx: Vec<(u64, &String, &Value)> = Vec::new();
    let mut rest: Vec<(&String, &Value)> = Vec::new();
    for (k, v) in map {
        match array_index(k) {
            Some(n) => idx.push((n, k, v)),
            None => rest.push((k, v)),
        }
    }
    idx.sort_by_key(|e| e.0);
    idx.into_iter()
        .map(|(_, k, v)| (k, v))
        .chain(rest)
        .collect()
}

fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else {
                match n.as_f64() {
                    Some(f) if f.is_finite() => out.push_str(&js_number_to_string(f)),
                    _ => out.push_str("null"),
                }
            }
        }
        Value::String(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json(out, x);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, x)) in js_entries(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(out, k);
                out.push(':');
                push_json(out, x);
            }
            out.push('}');
        }
    }
}

/// `JSON.stringify(value)` for a value that came from JavaScript.
pub fn json_stringify(v: &Value) -> String {
    let mut out = String::new();
    push_json(&mut out, v);
    out
}

/// JavaScript truthiness of a JSON value.
pub fn js_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

// ---------------------------------------------------------------- JSON text as JavaScript wrote it

/// "a string", "an array", ... of a raw JSON value (by its first character).
pub fn raw_kind(raw: &serde_json::value::RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// A JSON string literal as written (`"..."`, escapes included), read without copying:
/// its length in UTF-16 code units is counted on the escaped text, and it is decoded
/// only when its characters are needed.
#[derive(Clone, Copy, Debug)]
pub struct RawStr<'a>(&'a str);

impl<'a> RawStr<'a> {
    /// `raw` if it is a string literal; else `Err` with what it is ("a number").
    pub fn new(raw: &'a serde_json::value::RawValue) -> Result<Self, &'static str> {
        let t = raw.get();
        if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
            Ok(RawStr(&t[1..t.len() - 1]))
        } else {
            Err(raw_kind(raw))
        }
    }

    /// The string's length in UTF-16 code units (JavaScript's `.length`). A `\uXXXX`
    /// escape is one unit, so a lone surrogate counts 1, as in JavaScript.
    pub fn utf16_len(&self) -> usize {
        Self::escaped_utf16_len(self.0)
    }

    /// The UTF-16 length of JSON text itself (e.g. `JSON.stringify(arguments).length` of
    /// the arguments' own text, which JavaScript wrote).
    pub fn text_utf16_len(text: &str) -> usize {
        utf16_len(text)
    }

    fn escaped_utf16_len(inner: &str) -> usize {
        let b = inner.as_bytes();
        let mut units = 0;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c == b'\\' {
                // \uXXXX is one unit; \n, \", ... are one unit
                i += if b.get(i + 1) == Some(&b'u') { 6 } else { 2 };
                units += 1;
            } else if c < 0x80 {
                i += 1;
                units += 1;
            } else if c >= 0xF0 {
                i += 4;
                units += 2;
            } else if c >= 0xE0 {
                i += 3;
                units += 1;
            } else {
                i += 2;
                units += 1;
            }
        }
        units
    }

    /// The decoded string. A lone surrogate escape becomes U+FFFD (a Rust string cannot
    /// hold it); lengths are taken from [`RawStr::utf16_len`], which counts it as
    /// JavaScript does.
    pub fn decode(&self) -> String {
        if !self.0.contains('\\') {
            return self.0.to_string();
        }
        let mut out = String::with_capacity(self.0.len());
        let mut rest = self.0;
        while let Some(pos) = rest.find('\\') {
            out.push_str(&rest[..pos]);
            let esc = &rest[pos + 1..];
            let Some(kind) = esc.chars().next() else { break };
            match kind {
                'u' => {
                    let hex = |s: &str| s.get(..4).and_then(|h| u32::from_str_radix(h, 16).ok());
                    let Some(u) = hex(&esc[1..]) else {
                        out.push('\u{FFFD}');
                        rest = &esc[1..];
                        continue;
                    };
                    let mut consumed = 5;
                    let c = if (0xD800..0xDC00).contains(&u) {
                        match esc.get(5..7).filter(|s| *s == "\\u").and_then(|_| hex(&esc[7..])) {
                            Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                consumed = 11;
                                char::from_u32(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00))
                            }
                            _ => None,
                        }
                    } else {
                        char::from_u32(u)
                    };
                    out.push(c.unwrap_or('\u{FFFD}'));
                    rest = esc.get(consumed..).unwrap_or("");
                }
                other => {
                    out.push(match other {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        c => c, // \" \\ \/
                    });
                    rest = &esc[other.len_utf8()..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// A JSON object's entries as written: decoded keys with their values' own text, in
/// order (`JSON.stringify` wrote them in JavaScript's property order).
pub struct RawEntries<'a>(pub Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for RawEntries<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = RawEntries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, &'de serde_json::value::RawValue>()? {
                    out.push((k, v));
                }
                Ok(RawEntries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// JSON text with every lone-surrogate escape (`\ud800` not part of a pair) replaced by
/// `\ufffd`: `JSON.stringify` writes them, and serde_json refuses them. `None` when the
/// text has none.
pub fn replace_lone_surrogates(text: &str) -> Option<String> {
    if !text.contains("\\u") {
        return None;
    }
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u32> {
        let h = text.get(i..i + 4)?;
        u32::from_str_radix(h, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if b[i + 1] == b'u' {
                if let Some(u) = hex(i + 2) {
                    if (0xD800..0xDC00).contains(&u) {
                        let paired = b.get(i + 6) == Some(&b'\\')
                            && b.get(i + 7) == Some(&b'u')
                            && hex(i + 8).is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                        if paired {
                            i += 12;
                            continue;
                        }
                    }
                    if (0xD800..0xE000).contains(&u) {
                        out.push_str(&text[last..i]);
                        out.push_str("\\ufffd");
                        last = i + 6;
                        changed = true;
                    }
                    i += 6;
                    continue;
                }
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_like_ecmascript() {
        // Values from host-contract §2 and ECMAScript's own examples.
        let cases: &[(f64, &str)] = &[
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (123456789012345680000.0, "123456789012345680000"),
            (-0.0, "0"),
            (1.5e300, "1.5e+300"),
            (0.1, "0.1"),
            (-1.25, "-1.25"),
            (100.0, "100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (123.456, "123.456"),
            (1e20, "100000000000000000000"),
            (0.3333333333333333, "0.3333333333333333"),
        ];
        for (x, want) in cases {
            assert_eq!(js_number_to_string(*x), *want, "{x}");
        }
    }

    #[test]
    fn stringify_lengths() {
        assert_eq!(
            json_stringify_len(&json!({"a": 1, "b": [true, null, "x\n"]})),
            r#"{"a":1,"b":[true,null,"x\n"]}"#.len()
        );
        assert_eq!(json_stringify_len(&json!("\u{1}")), 8); // "\u0001"
        assert_eq!(json_stringify_len(&json!("é😀")), 2 + 1 + 2);
        assert_eq!(json_stringify_len(&json!("\u{2028}")), 3);
        assert_eq!(json_stringify_len(&json!({})), 2);
        assert_eq!(json_stringify_len(&json!([])), 2);
        assert_eq!(json_stringify_len(&json!(-5)), 2);
        assert_eq!(json_stringify_len(&json!(1.5e300)), 8);
    }

    #[test]
    fn large_integers_become_doubles() {
        let v = parse_json(
            r#"{"a": 984346044394296800, "b": [-9007199254740993, 7], "c": 9007199254740991}"#,
        )
        .unwrap();
        assert_eq!(v["a"].as_f64(), Some(984346044394296800.0));
        assert!(v["a"].is_f64());
        assert!(v["b"][0].is_f64());
        assert!(v["b"][1].is_u64());
        assert!(v["c"].is_u64());
    }

    #[test]
    fn utf16_lengths_and_prefixes() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é😀"), 3);
        assert_eq!(utf16_prefix("a😀b", 2), ("a", 1));
        assert_eq!(utf16_prefix("a😀b", 3), ("a😀", 3));
        assert_eq!(utf16_prefix("abc", 10), ("abc", 3));
    }

    fn raw(text: &str) -> Box<serde_json::value::RawValue> {
        serde_json::value::RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn raw_strings_count_and_decode_like_javascript() {
        let cases: &[(&str, &str, usize)] = &[
            (r#""abc""#, "abc", 3),
            (r#""a\nb\"c""#, "a\nb\"c", 5),
            (r#""é😀""#, "é😀", 3),
            (r#""\u00e9\ud83d\ude00""#, "é😀", 3),
            (r#""x\ud800y""#, "x\u{FFFD}y", 3),
            (r#""\\\/""#, "\\/", 2),
        ];
        for (text, decoded, units) in cases {
            let r = raw(text);
            let s = RawStr::new(&r).unwrap();
            assert_eq!(s.utf16_len(), *units, "{text}");
            assert_eq!(s.decode(), *decoded, "{text}");
        }
        assert_eq!(RawStr::new(&raw("5")).unwrap_err(), "a number");
    }

    #[test]
    fn lone_surrogates_are_replaced_pairs_kept() {
        assert_eq!(replace_lone_surrogates(r#""a\ud800b""#).as_deref(), Some(r#""a\ufffdb""#));
        assert_eq!(replace_lone_surrogates(r#""\udc00""#).as_deref(), Some(r#""\ufffd""#));
        assert_eq!(replace_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(replace_lone_surrogates(r#""\\ud800""#), None, "an escaped backslash");
        assert!(parse_json(&replace_lone_surrogates(r#"["\ud800"]"#).unwrap()).is_ok());
    }
}
