//! JavaScript values for the generators: strings as UTF-16 code units (lone surrogates
//! allowed, as a JavaScript string may hold them) and JSON values written the way
//! `JSON.stringify` writes them. The reference figures of the checks are computed on
//! these units, never through the library's own text code.

use arbitrary::{Arbitrary, Result, Unstructured};

/// A JavaScript string: UTF-16 code units, any of them (a lone surrogate included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsStr(pub Vec<u16>);

/// Interesting single units: controls, quotes, non-ASCII BMP, JS-vs-Rust whitespace.
const ODD_UNITS: [u16; 24] = [
    0x0a, 0x09, 0x0d, 0x08, 0x0c, 0x00, 0x01, 0x1f, 0x0b, 0x22, 0x5c, 0x2f, 0xe9, 0x65e5, 0x2028,
    0x2029, 0xfeff, 0x85, 0xa0, 0x3000, 0xfffd, 0x7f, 0x7ff, 0xffff,
];

impl JsStr {
    pub fn ascii(s: &str) -> JsStr {
        JsStr(s.encode_utf16().collect())
    }

    /// JavaScript's `.length`.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What Rust receives: every unpaired surrogate becomes U+FFFD.
    pub fn lossy(&self) -> String {
        String::from_utf16_lossy(&self.0)
    }

    /// A string of the generator's: mostly text with a few odd units, bounded length.
    pub fn gen(u: &mut Unstructured<'_>, max_segments: u32) -> Result<JsStr> {
        let n = u.int_in_range(0..=max_segments)?;
        let mut units: Vec<u16> = Vec::new();
        for _ in 0..n {
            match u.int_in_range(0..=11u8)? {
                0..=3 => {
                    let len = u.int_in_range(1..=12u16)?;
                    for _ in 0..len {
                        units.push(u.int_in_range(0x20..=0x7eu16)?);
                    }
                }
                4 | 5 => units.push(*u.choose(&ODD_UNITS)?),
                6 => {
                    // an astral character: a surrogate pair
                    let c: u32 = u.int_in_range(0x10000..=0x10ffffu32)?;
                    let mut buf = [0u16; 2];
                    if let Some(ch) = char::from_u32(c) {
                        units.extend_from_slice(ch.encode_utf16(&mut buf));
                    }
                }
                7 => units.push(u.int_in_range(0xd800..=0xdfffu16)?),
                8 => units.push(u16::arbitrary(u)?),
                9 => {
                    let len = u.int_in_range(1..=6u8)?;
                    for _ in 0..len {
                        units.push(*u.choose(&[0x20u16, 0x0a, 0x09, 0x0d])?);
                    }
                }
                10 => {
                    // a long run (sizes that matter to token budgets)
                    let len = u.int_in_range(1..=4000u16)?;
                    let c = u.int_in_range(0x61..=0x7au16)?;
                    units.extend(std::iter::repeat_n(c, len as usize));
                }
                _ => units.extend("read".encode_utf16()),
            }
        }
        Ok(JsStr(units))
    }
}

impl<'a> Arbitrary<'a> for JsStr {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        JsStr::gen(u, 6)
    }
}

/// A JavaScript number (NaN and ±Infinity are written as `null`, as `JSON.stringify` does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsNum(pub f64);

const ODD_NUMBERS: [f64; 22] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    1.5,
    0.1,
    1e308,
    -1e308,
    1.7976931348623157e308,
    5e-324,
    1e21,
    1e-7,
    123456789012345680000.0,
    9007199254740993.0,
    4294967295.0,
    1e15,
    2e15,
    100000.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    12345.678,
];

impl<'a> Arbitrary<'a> for JsNum {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(JsNum(match u.int_in_range(0..=3u8)? {
            0 => *u.choose(&ODD_NUMBERS)?,
            1 => u.int_in_range(0..=300_000u32)? as f64,
            2 => f64::from_bits(u64::arbitrary(u)?),
            _ => u.int_in_range(0..=2_000u32)? as f64 * 100.0,
        }))
    }
}

impl JsNum {
    /// The value JavaScript reads back from the written text (`null` → NaN, the library's
    /// documented reading of a usage number written as `null`).
    pub fn read_back(self) -> f64 {
        if self.0.is_finite() {
            self.0
        } else {
            f64::NAN
        }
    }
}

/// A JSON value of a host object.
#[derive(Clone, Debug, PartialEq)]
pub enum JVal {
    Null,
    Bool(bool),
    Num(JsNum),
    Str(JsStr),
    Arr(Vec<JVal>),
    /// Keys are distinct (a JavaScript object has no duplicate keys).
    Obj(Vec<(JsStr, JVal)>),
}

impl JVal {
    pub fn gen(u: &mut Unstructured<'_>, depth: u32) -> Result<JVal> {
        let pick = u.int_in_range(0..=9u8)?;
        Ok(match pick {
            0 => JVal::Null,
            1 => JVal::Bool(bool::arbitrary(u)?),
            2 | 3 => JVal::Num(JsNum::arbitrary(u)?),
            4 | 5 => JVal::Str(JsStr::gen(u, 4)?),
            6 if depth > 0 => {
                let n = u.int_in_range(0..=4u8)?;
                let mut v = Vec::new();
                for _ in 0..n {
                    v.push(JVal::gen(u, depth - 1)?);
                }
                JVal::Arr(v)
            }
            7 if depth > 0 => {
                let n = u.int_in_range(0..=4u8)?;
                let mut entries = Vec::new();
                for _ in 0..n {
                    let k = JsStr::gen(u, 2)?;
                    let v = JVal::gen(u, depth - 1)?;
                    entries.push((k, v));
                }
                JVal::obj(entries)
            }
            8 if depth > 0 => {
                // nesting beyond serde_json's recursion limit (128); deeper nesting is
                // written as text (message_facts' `deep` field), not built as values
                let levels = u.int_in_range(1..=200u16)?;
                let leaf = JVal::gen(u, 0)?;
                let mut v = leaf;
                for k in 0..levels {
                    v = if k % 3 == 0 {
                        JVal::Obj(vec![(JsStr::ascii("d"), v)])
                    } else {
                        JVal::Arr(vec![v])
                    };
                }
                v
            }
            _ => JVal::Str(JsStr::ascii("x")),
        })
    }

    /// An object with distinct keys: a repeated key keeps its first place, its last value.
    pub fn obj(entries: Vec<(JsStr, JVal)>) -> JVal {
        let mut out: Vec<(JsStr, JVal)> = Vec::new();
        for (k, v) in entries {
            match out.iter_mut().find(|(x, _)| *x == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        JVal::Obj(out)
    }

    /// `JSON.stringify(this)`.
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        write_json(self, &mut s);
        s
    }
}

/// An object of string keys (ASCII) and values, in order.
pub fn obj(entries: Vec<(&str, JVal)>) -> JVal {
    JVal::obj(
        entries
            .into_iter()
            .map(|(k, v)| (JsStr::ascii(k), v))
            .collect(),
    )
}

/// `JSON.stringify` of a number: ECMAScript `Number::toString`, `null` when not finite.
pub fn write_number(x: f64, out: &mut String) {
    if x.is_finite() {
        out.push_str(&delegate_context::js_text::js_number_to_string(x));
    } else {
        out.push_str("null");
    }
}

/// `JSON.stringify` of a string (ES2019 well-formed: a lone surrogate as `\udXXX`).
pub fn write_str(s: &JsStr, out: &mut String) {
    out.push('"');
    let u = &s.0;
    let mut i = 0;
    while i < u.len() {
        let c = u[i];
        match c {
            0x22 => out.push_str("\\\""),
            0x5c => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0..=0x1f => out.push_str(&format!("\\u{c:04x}")),
            0xd800..=0xdbff if i + 1 < u.len() && (0xdc00..=0xdfff).contains(&u[i + 1]) => {
                let cp = 0x10000 + (((c as u32) - 0xd800) << 10) + (u[i + 1] as u32 - 0xdc00);
                out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                i += 1;
            }
            0xd800..=0xdfff => out.push_str(&format!("\\u{c:04x}")),
            _ => out.push(char::from_u32(c as u32).unwrap_or('\u{fffd}')),
        }
        i += 1;
    }
    out.push('"');
}

/// The same string in valid but non-canonical JSON: every non-ASCII unit, `/` and some
/// ASCII letters as `\uXXXX` (upper-case hex), `/` as `\/`.
pub fn write_str_escaped(s: &JsStr, out: &mut String) {
    out.push('"');
    for &c in &s.0 {
        match c {
            0x22 => out.push_str("\\\""),
            0x5c => out.push_str("\\\\"),
            0x2f => out.push_str("\\/"),
            0x20..=0x7e if c % 3 != 0 => out.push(c as u8 as char),
            _ => out.push_str(&format!("\\u{c:04X}")),
        }
    }
    out.push('"');
}

pub fn write_json(v: &JVal, out: &mut String) {
    match v {
        JVal::Null => out.push_str("null"),
        JVal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JVal::Num(n) => write_number(n.0, out),
        JVal::Str(s) => write_str(s, out),
        JVal::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(x, out);
            }
            out.push(']');
        }
        JVal::Obj(entries) => {
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(k, out);
                out.push(':');
                write_json(x, out);
            }
            out.push('}');
        }
    }
}

/// UTF-16 length of text (JavaScript `.length` of what JSON.stringify returned).
pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}
