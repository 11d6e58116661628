//! JSON text → [`Value`], as serde_json's `from_str::<Value>` reads it (issue 17 §7: one
//! small parser instead of serde_json's, which brought its own float parser and tables).
//!
//! The same grammar (RFC 8259: no leading zeros, no control characters in strings, paired
//! surrogates only, whitespace ` \t\n\r`), the same nesting limit (127 levels), the same
//! numbers: an integer that fits a `u64` (or, negative, an `i64`) stays an integer,
//! everything else is the nearest double (`nearest.rs`, as exact as Rust's `f64::from_str`
//! and serde_json's `float_roundtrip`), `-0` is `-0.0`, a number too large for a double is
//! an error; a repeated key keeps its first place and its last value. Errors say what
//! and where, in serde_json's words (`expected value at line 1 column 1`).

use crate::text_build::Append;
use serde_json::{Number, Value};

/// serde_json's limit: the 128th nested array or object is refused.
const MAX_DEPTH: usize = 127;

/// Why text is not JSON, and where (1-based line and column of the offending byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

/// The one value `text` holds (whitespace around it allowed).
pub fn parse_value(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser {
        text,
        b: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i < p.b.len() {
        return p.fail("trailing characters");
    }
    Ok(v)
}

struct Parser<'a> {
    /// The text, and its bytes (`b`): slices are taken of the text, at positions the
    /// parser found on ASCII bytes, so no UTF-8 check is needed.
    text: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    #[inline(never)]
    fn fail<T>(&self, what: &'static str) -> Result<T, ParseError> {
        let upto = &self.b[..self.i.min(self.b.len())];
        let line = 1 + upto.iter().filter(|&&c| c == b'\n').count();
        let column = upto.len() - upto.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
        Err(ParseError {
            what,
            line,
            column: if self.i < self.b.len() {
                column + 1
            } else {
                column
            },
        })
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        self.ws();
        let Some(c) = self.peek() else {
            return self.fail("EOF while parsing a value");
        };
        match c {
            b'"' => self.string().map(Value::String),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'n' => self.word(b"null", Value::Null),
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return self.fail("recursion limit exceeded");
                }
                self.i += 1;
                let v = if c == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth -= 1;
                v
            }
            _ => self.fail("expected value"),
        }
    }

    #[inline(never)]
    fn word(&mut self, w: &'static [u8], v: Value) -> Result<Value, ParseError> {
        for &c in w {
            match self.peek() {
                Some(x) if x == c => self.i += 1,
                Some(_) => return self.fail("expected ident"),
                None => return self.fail("EOF while parsing a value"),
            }
        }
        Ok(v)
    }

    /// After `[`.
    fn array(&mut self) -> Result<Value, ParseError> {
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                Some(_) => return self.fail("expected `,` or `]`"),
                None => return self.fail("EOF while parsing a list"),
            }
        }
    }

    /// After `{`.
    fn object(&mut self) -> Result<Value, ParseError> {
        let mut map = crate::js_text::new_map();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(map));
        }
        loop {
            self.ws();
            match self.peek() {
                Some(b'"') => {}
                Some(_) => return self.fail("key must be a string"),
                None => return self.fail("EOF while parsing an object"),
            }
            let key = self.string()?;
            self.ws();
            match self.peek() {
                Some(b':') => self.i += 1,
                Some(_) => return self.fail("expected `:`"),
                None => return self.fail("EOF while parsing an object"),
            }
            let v = self.value()?;
            map.insert(key, v);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(map));
                }
                Some(_) => return self.fail("expected `,` or `}`"),
                None => return self.fail("EOF while parsing an object"),
            }
        }
    }

    /// At `"`.
    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let mut out = String::new();
        let mut start = self.i;
        loop {
            let Some(c) = self.peek() else {
                return self.fail("EOF while parsing a string");
            };
            match c {
                b'"' | b'\\' => {
                    // the bytes before are whole UTF-8 characters (the text is a `str`)
                    out.append(crate::text_at::span(self.text, start, self.i));
                    self.i += 1;
                    if c == b'"' {
                        return Ok(out);
                    }
                    self.escape(&mut out)?;
                    start = self.i;
                }
                0..=0x1f => {
                    self.i += 1;
                    return self
                        .fail("control character (\\u0000-\\u001F) found while parsing a string");
                }
                _ => self.i += 1,
            }
        }
    }

    /// After a backslash.
    // (`push`, not `append_char`: a character at a time in a loop, kept inline)
    #[allow(clippy::disallowed_methods)]
    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let Some(c) = self.peek() else {
            return self.fail("EOF while parsing a string");
        };
        self.i += 1;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                let code = match hi {
                    0xDC00..=0xDFFF => return self.fail("lone leading surrogate in hex escape"),
                    0xD800..=0xDBFF => {
                        if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                            self.i = (self.i + 1).min(self.b.len());
                            return self.fail("unexpected end of hex escape");
                        }
                        self.i += 2;
                        let lo = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return self.fail("lone leading surrogate in hex escape");
                        }
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    _ => hi,
                };
                char::from_u32(code).unwrap_or('\u{FFFD}')
            }
            _ => return self.fail("invalid escape"),
        };
        out.push(ch);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let mut n = 0;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                Some(_) => {
                    self.i += 1;
                    return self.fail("invalid escape");
                }
                None => return self.fail("EOF while parsing a string"),
            };
            self.i += 1;
            n = n * 16 + d as u32;
        }
        Ok(n)
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - from
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let int_start = self.i;
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return self.fail("invalid number");
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(_) => {
                self.i += 1;
                return self.fail("invalid number");
            }
            None => return self.fail("EOF while parsing a value"),
        }
        let int_end = self.i;
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.i += 1;
            float = true;
            if self.digits() == 0 {
                return self.number_error();
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            float = true;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return self.number_error();
            }
        }
        let text = crate::text_at::span(self.text, start, self.i);
        if !float {
            let digits = crate::text_at::span(self.text, int_start, int_end);
            if let Ok(u) = digits.parse::<u64>() {
                if !negative {
                    return Ok(Value::Number(u.into()));
                }
                // serde_json: `-0` and integers below i64::MIN are doubles
                if u != 0 && u <= 1 << 63 {
                    return Ok(Value::Number((u.wrapping_neg() as i64).into()));
                }
            }
        }
        match super::parse_decimal(text).and_then(Number::from_f64) {
            Some(n) => Ok(Value::Number(n)),
            None => self.fail("number out of range"),
        }
    }

    /// A `.` or exponent without digits: serde_json names the byte after it.
    #[inline(never)]
    fn number_error(&mut self) -> Result<Value, ParseError> {
        if self.i < self.b.len() {
            self.i += 1;
            self.fail("invalid number")
        } else {
            self.fail("EOF while parsing a value")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same value as serde_json (with `float_roundtrip`), or both refuse the text.
    fn same(text: &str) {
        let ours = parse_value(text);
        let theirs = serde_json::from_str::<Value>(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{text:?}");
                // -0.0 == 0.0: compare the signs too
                assert_eq!(a.to_string(), b.to_string(), "{text:?}");
            }
            (Err(_), Err(_)) => {}
            _ => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them() {
        for t in [
            "0",
            "-0",
            "-0.0",
            "1",
            "-1",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "9223372036854775808",
            "1e400",
            "-1e400",
            "1e-400",
            "0e999999999999999999",
            "1.5",
            "1E5",
            "1e+5",
            "2.2250738585072011e-308",
            "0.1",
            "123456789012345678901234567890",
            "01",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            "-",
            "--1",
            "+1",
            ".5",
            "-.5",
            "1.5e3x",
            "0x10",
            "-01",
            "9007199254740993",
            "4.9e-324",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
        ] {
            same(t);
        }
    }

    #[test]
    fn strings_literals_and_structure() {
        for t in [
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\ud83d\ude00""#,
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800x""#,
            r#""\ud800\u0041""#,
            r#""\ud800\n""#,
            r#""\x""#,
            r#""\u12""#,
            r#""\u12g4""#,
            "\"a\u{1}\"",
            "\"é😀\"",
            "\"unterminated",
            "true",
            "false",
            "null",
            "tru",
            "nul",
            "truex",
            "[1,2]",
            "[1,]",
            "[,1]",
            "[",
            "[1 2]",
            r#"{"a":1,"b":[{}],"a":2}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{"a":1,}"#,
            "{",
            "",
            "   ",
            " 1 ",
            "1 2",
            "[1] x",
            "\u{feff}1",
            "[\u{c}]",
            "{\"\":null}",
        ] {
            same(t);
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for n in [126, 127, 128, 129, 3000] {
            same(&deep(n));
        }
        let v = parse_value(r#"{"b":1,"a":2,"b":3}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"b":3,"a":2}"#, "first place, last value");
    }

    #[test]
    fn errors_name_the_place() {
        let e = parse_value("[1,\n  x]").unwrap_err();
        assert_eq!(e.to_string(), "expected value at line 2 column 3");
        assert_eq!(
            parse_value("").unwrap_err().to_string(),
            "EOF while parsing a value at line 1 column 0"
        );
        assert_eq!(
            parse_value("1 2").unwrap_err().to_string(),
            "trailing characters at line 1 column 3"
        );
    }

    fn json_text() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            any::<f64>().prop_map(|x| format!("{x:e}")),
            any::<f64>().prop_map(|x| x.to_string()),
            any::<i64>().prop_map(|x| x.to_string()),
            any::<u64>().prop_map(|x| x.to_string()),
            "[0-9eE.+-]{1,12}",
            "\"([a-z\\\\\"/é😀]|\\\\u[0-9a-fA-F]{4}|\\\\[bfnrtx])*\"",
        ];
        atom.prop_recursive(4, 30, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec(("\"[a-c]{0,2}\"", inner), 0..5).prop_map(|v| {
                    let e: Vec<String> = v.into_iter().map(|(k, v)| format!("{k} : {v}")).collect();
                    format!("{{ {} }}", e.join(" ,"))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Any text, valid or not: the same value as serde_json, or both refuse it.
        #[test]
        fn the_same_values_as_serde_json(t in json_text(), cut in 0usize..64) {
            same(&t);
            // and every prefix (text cut short is refused by both, or is a shorter value)
            let cut = t.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(t.len());
            same(&t[..cut]);
        }
    }
}
