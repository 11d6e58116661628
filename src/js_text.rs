//! JavaScript's view of text, for host-contract §2's exactness rules.
//!
//! Every length the host contract speaks of is a JavaScript string length (UTF-16 code
//! units), and tool-call arguments are measured as `JSON.stringify(arguments).length`.
//! This module computes both without a JavaScript engine:
//! - [`utf16_len`]: code units of a Rust string;
//! - [`json_stringify_len`]: the length `JSON.stringify` would give for a JSON value,
//!   numbers printed as ECMAScript `Number.prototype.toString` does;
//! - [`js_number_to_string`]: that number formatting itself;
//! - [`to_json`]: a result's JSON text (serde_json's writer, those numbers).
//!
//! Lone surrogates: a host message's lengths are counted by [`crate::facts`] on the
//! JSON text `JSON.stringify` wrote, where an unpaired surrogate is the escape
//! `\udXXX`: one unit in text, six inside tool-call arguments, exactly as JavaScript
//! counts them. A value decoded into Rust (serde_json refuses the escape) has the
//! surrogate replaced by U+FFFD ([`replace_lone_surrogates`]): the functions here then
//! count that one unit, and a text the library writes from such a value (a summary
//! request's text) shows U+FFFD. Host messages come back as the host's own objects.

use serde_json::Value;

mod nearest;
mod parse;
pub use nearest::parse_decimal;
pub use parse::{parse_value, ParseError};

use crate::text_build::Append;
use crate::text_build::Owned;

/// Parse JSON text the way JavaScript's `JSON.parse` reads numbers: every number is a
/// double. [`parse_value`] keeps integers as 64-bit integers, and one beyond 2^53 (which
/// `JSON.stringify` prints for a large integral double) could not travel back to
/// JavaScript; such integers become the double they denote (the same value JavaScript had).
#[inline(never)]
pub fn parse_json(text: &str) -> Result<Value, ParseError> {
    let mut v = parse_value(text)?;
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
#[inline(never)]
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
        return (crate::text_at::upto(s, n), n);
    }
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let w = c.len_utf16();
        if units + w > max {
            return (crate::text_at::upto(s, i), units);
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

/// ECMAScript `Number::toString(x)` (radix 10): the shortest digits that read back as
/// `x`, the even one of two in a tie, `1e-7` and `1e+21` in exponent form, `-0` as `0`,
/// `NaN`, `Infinity`, `-Infinity`. The one number text of the library: a number in a
/// result, in `JSON.stringify` sizes and in every message (ryu-js, Boa's ECMAScript ryu).
#[inline(never)]
pub fn js_number_to_string(x: f64) -> String {
    ryu_js::Buffer::new().format(x).owned()
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
    crate::order::sort_by_key(&mut idx, |e| e.0);
    idx.into_iter()
        .map(|(_, k, v)| (k, v))
        .chain(rest)
        .collect()
}

/// Whether `needle` occurs in `hay`, by a plain byte scan (for short needles; `str::contains`
/// of a `&str` brings core's two-way searcher, 3 KB, into the module: issue 17 §7).
#[inline(never)]
pub fn has_text(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    // a tight scan for the first byte, the rest compared only where it occurs (a
    // comparison call at every position made this 15% of a resume seed's time)
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i] == first && hay[i + 1..i + needle.len()] == *rest {
            return true;
        }
        i += 1;
    }
    false
}

/// `JSON.stringify` of a string: how an error message quotes a value it names.
#[inline(never)]
pub fn json_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    out
}

fn push_json_string(out: &mut String, s: &str) {
    out.append_char('"');
    let b = s.as_bytes();
    let mut run = 0; // start of the characters not yet written
    for (i, &c) in b.iter().enumerate() {
        let esc: &str = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.append(crate::text_at::span(s, run, i));
        if esc.is_empty() {
            out.append(&format!("\\u{:04x}", c));
        } else {
            out.append(esc);
        }
        run = i + 1;
    }
    out.append(crate::text_at::from(s, run));
    out.append_char('"');
}

fn push_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.append("null"),
        Value::Bool(b) => out.append(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.append(&u.to_string());
            } else if let Some(i) = n.as_i64() {
                out.append(&i.to_string());
            } else {
                match n.as_f64() {
                    Some(f) if f.is_finite() => out.append(&js_number_to_string(f)),
                    _ => out.append("null"),
                }
            }
        }
        Value::String(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.append_char('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.append_char(',');
                }
                push_json(out, x);
            }
            out.append_char(']');
        }
        Value::Object(map) => {
            out.append_char('{');
            for (i, (k, x)) in js_entries(map).into_iter().enumerate() {
                if i > 0 {
                    out.append_char(',');
                }
                push_json_string(out, k);
                out.append_char(':');
                push_json(out, x);
            }
            out.append_char('}');
        }
    }
}

/// `JSON.stringify(value)` for a value that came from JavaScript.
pub fn json_stringify(v: &Value) -> String {
    let mut out = String::new();
    push_json(&mut out, v);
    out
}

/// An empty JSON object's map, out of line: `Map::new()` seeds the map's hasher from a
/// thread-local, inlined at each call site (issue 17 §7).
#[inline(never)]
pub fn new_map() -> serde_json::Map<String, Value> {
    serde_json::Map::new()
}

/// Why a value has no JSON text: a map key that is not a string, the one thing
/// serde_json's writer refuses in the library's types (none of its results has such a
/// key). Worded here: serde_json's error `Display` would bring every one of its error
/// codes' texts into the module (issue 17 §7).
#[derive(Debug)]
pub struct WriteError;

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not JSON data: a map key that is not a string")
    }
}

/// serde_json's compact text with JavaScript's numbers: a float as [`js_number_to_string`]
/// writes it (serde_json itself writes a non-finite one as `null`, as `JSON.stringify`
/// does).
struct JsNumbers;

impl serde_json::ser::Formatter for JsNumbers {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, x: f64) -> std::io::Result<()> {
        w.write_all(ryu_js::Buffer::new().format(x).as_bytes())
    }
    fn write_f32<W: ?Sized + std::io::Write>(&mut self, w: &mut W, x: f32) -> std::io::Result<()> {
        self.write_f64(w, x.into())
    }
}

/// `value`'s JSON text: serde_json's compact text (its separators and escapes: `\"`,
/// `\\`, `\b \f \n \r \t`, `\u00XX` for other controls, nothing else), numbers as
/// JavaScript writes them. One writer for everything the library outputs.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, WriteError> {
    let mut out = Vec::with_capacity(128);
    value
        .serialize(&mut serde_json::Serializer::with_formatter(
            &mut out, JsNumbers,
        ))
        .map_err(|_| WriteError)?;
    // (serde_json writes UTF-8: the check never fails)
    String::from_utf8(out).map_err(|_| WriteError)
}

/// `value` as a JSON value, read back from its text (numbers as [`parse_json`] reads
/// them); `None` when it cannot be written.
pub fn to_json_value<T: serde::Serialize + ?Sized>(value: &T) -> Option<Value> {
    to_json(value).ok().and_then(|text| parse_json(&text).ok())
}

/// JavaScript truthiness of a JSON value.
#[inline(never)]
pub fn js_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// `parse` of JSON text `JSON.stringify` wrote: a lone surrogate, which it writes as an
/// escape the parser refuses, read as U+FFFD. The text is searched for such escapes only
/// when the parser refused it (the search before every parse was 15% of a resume seed).
#[inline(never)]
pub fn parse_from_js(
    text: &str,
    parse: fn(&str) -> Result<Value, ParseError>,
) -> Result<Value, ParseError> {
    let parsed = parse(text);
    match parsed {
        Err(_) => match replace_lone_surrogates(text) {
            Some(clean) => parse(&clean),
            None => parsed,
        },
        ok => ok,
    }
}

/// JSON text with every lone-surrogate escape (`\ud800` not part of a pair) replaced by
/// `\ufffd`: `JSON.stringify` writes them, and serde_json refuses them. `None` when the
/// text has none.
pub fn replace_lone_surrogates(text: &str) -> Option<String> {
    if !has_text(text, "\\u") {
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
                        out.append(crate::text_at::span(text, last, i));
                        out.append("\\ufffd");
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
    out.append(crate::text_at::from(text, last));
    Some(out)
}

// The ties below are written as their exact binary values (e.g. ...490.375), which is what
// they test, not as the shortest literal that reads back to the same number.
#[allow(clippy::excessive_precision)]
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
            // Ties between two shortest candidates: the even one (Node 20's String(x) for
            // 16 random multiples of 1/8 near 2^50 that are ties, and the review's three).
            (236829340023490.375, "236829340023490.38"),
            (935981452700407.250, "935981452700407.2"),
            (175352674383704.625, "175352674383704.62"),
            (128059736141153.625, "128059736141153.62"),
            (1756239591029454.250, "1756239591029454.2"),
            (1528291009955499.250, "1528291009955499.2"),
            (987776824669992.250, "987776824669992.2"),
            (1849276574127618.250, "1849276574127618.2"),
            (1898611446377567.250, "1898611446377567.2"),
            (1856939441698652.250, "1856939441698652.2"),
            (691520079719161.250, "691520079719161.2"),
            (1454969430539062.250, "1454969430539062.2"),
            (232922012562702.375, "232922012562702.38"),
            (1243446056442899.250, "1243446056442899.2"),
            (1812398301757840.250, "1812398301757840.2"),
            (271117697541804.875, "271117697541804.88"),
            (1658206780088562.250, "1658206780088562.2"),
            (959058246061883.250, "959058246061883.2"),
            (959058246061883.750, "959058246061883.8"),
        ];
        for (x, want) in cases {
            assert_eq!(js_number_to_string(*x), *want, "{x}");
        }
    }

    /// `has_text` answers as `str::contains` does: needles of one to three bytes at the
    /// start, middle and end, overlapping prefixes, multi-byte text, empty needle and hay.
    #[test]
    fn has_text_answers_as_contains() {
        let hays = [
            "",
            "\\",
            "a\\u",
            "\\udead",
            "xx\\\\u00e9yy",
            "aaab",
            "ééu\\",
            "string number",
        ];
        let needles = [
            "", "\\u", "\\", "u", "aab", "ab", "éu", "b", "string n", "\\u\\",
        ];
        for hay in hays {
            for needle in needles {
                assert_eq!(
                    has_text(hay, needle),
                    hay.contains(needle),
                    "{hay:?} {needle:?}"
                );
            }
        }
    }

    /// A result's text: serde_json's compact text, numbers as JavaScript writes them
    /// (the writer is serde_json's; these pin what the formatter adds).
    #[test]
    fn results_are_written_with_javascript_numbers() {
        #[derive(serde::Serialize)]
        struct Row {
            ratio: f32,
            values: Vec<f64>,
            text: &'static str,
            extra: Value,
        }
        let row = Row {
            ratio: 0.1,
            values: vec![
                1.5e300,
                1e21,
                0.1,
                -0.0,
                f64::NAN,
                f64::INFINITY,
                100.0,
                -1e-7,
            ],
            text: "q\"\\\n\u{1}é😀",
            extra: json!({"b": 1, "a": [true, null]}),
        };
        assert_eq!(
            to_json(&row).unwrap(),
            r#"{"ratio":0.10000000149011612,"values":[1.5e+300,1e+21,0.1,0,null,null,100,-1e-7],"text":"q\"\\\n\u0001é😀","extra":{"b":1,"a":[true,null]}}"#
        );
        let keys: std::collections::BTreeMap<i32, u8> = [(-1, 1), (20, 2)].into_iter().collect();
        assert_eq!(to_json(&keys).unwrap(), r#"{"-1":1,"20":2}"#);
        let bad: std::collections::BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
        assert!(to_json(&bad).is_err());
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

    /// Text JavaScript wrote: a lone surrogate reads as U+FFFD (first, last, beside a
    /// pair, in a key), a pair as its character; text that is not JSON keeps the
    /// parser's own error, with or without a lone surrogate in it.
    #[test]
    fn text_from_javascript_reads_lone_surrogates_as_replacement() {
        let read = |t: &str| parse_from_js(t, parse_json);
        assert_eq!(read(r#""\ud800x""#), Ok(json!("\u{fffd}x")));
        assert_eq!(read(r#"["x\udfff"]"#), Ok(json!(["x\u{fffd}"])));
        assert_eq!(read(r#""\ud83d\ude00\ud800""#), Ok(json!("😀\u{fffd}")));
        assert_eq!(read(r#"{"\udc00":1}"#), Ok(json!({"\u{fffd}": 1})));
        assert_eq!(read(r#"{"a":[1,"b"]}"#), parse_json(r#"{"a":[1,"b"]}"#));
        assert_eq!(read("[1,]"), parse_json("[1,]"));
        assert!(read("[1,]").is_err());
        assert_eq!(read(r#"["\ud800",]"#), parse_json(r#"["\ufffd",]"#));
        assert!(read(r#"["\ud800",]"#).is_err());
    }

    #[test]
    fn lone_surrogates_are_replaced_pairs_kept() {
        assert_eq!(
            replace_lone_surrogates(r#""a\ud800b""#).as_deref(),
            Some(r#""a\ufffdb""#)
        );
        assert_eq!(
            replace_lone_surrogates(r#""\udc00""#).as_deref(),
            Some(r#""\ufffd""#)
        );
        assert_eq!(replace_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(
            replace_lone_surrogates(r#""\\ud800""#),
            None,
            "an escaped backslash"
        );
        assert!(parse_json(&replace_lone_surrogates(r#"["\ud800"]"#).unwrap()).is_ok());
    }
}
