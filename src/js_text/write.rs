//! A result's JSON text (host-contract §2: numbers as JavaScript's `Number::toString`
//! prints them), written by one small serializer instead of serde_json's (issue 17 §7:
//! serde_json's writer, generic over its output and formatter, was compiled into every
//! result type's derived `Serialize`; here each derived field is a call to a few
//! non-generic writers).
//!
//! The text is serde_json's compact text, byte for byte: the same separators, the same
//! escapes (`\"`, `\\`, `\b \f \n \r \t`, `\u00XX` for other controls, nothing else), a
//! non-finite number as `null`, an enum as serde_json writes it (`"Unit"`,
//! `{"Newtype":v}`, `{"Tuple":[..]}`, `{"Struct":{..}}`), a map key that is a number or
//! a boolean quoted, any other key refused with serde_json's messages.

use crate::text_build::Append;
use serde::ser::{self, Serialize};

type Result<T = ()> = std::result::Result<T, Error>;

/// Why a value has no JSON text: a map key that is not a string, or a `Serialize` that
/// refused (serde_json's messages).
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// The text being written.
pub struct Writer {
    out: String,
}

/// `value` as a JSON value, read back from its text: one writer for everything the
/// library outputs (numbers as [`super::parse_json`] reads them); `None` when it cannot
/// be written.
pub fn to_json_value<T: Serialize + ?Sized>(value: &T) -> Option<serde_json::Value> {
    to_json(value)
        .ok()
        .and_then(|text| super::parse_json(&text).ok())
}

/// `value`'s JSON text.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut w = Writer {
        out: String::with_capacity(128),
    };
    value.serialize(&mut w)?;
    Ok(w.out)
}

impl Writer {
    #[inline(never)]
    fn raw(&mut self, s: &str) {
        self.out.append(s);
    }

    #[inline(never)]
    fn string(&mut self, s: &str) {
        super::push_json_string(&mut self.out, s);
    }

    #[inline(never)]
    fn uint(&mut self, mut u: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        // ASCII digits only
        self.out
            .extend(digits.iter().skip(at).map(|&d| char::from(d)));
    }

    #[inline(never)]
    fn int(&mut self, i: i64) {
        if i < 0 {
            self.out.append_char('-');
        }
        self.uint(i.unsigned_abs());
    }

    #[inline(never)]
    fn float(&mut self, f: f64) {
        if f.is_finite() {
            self.out.append(&super::js_number_to_string(f));
        } else {
            self.out.append("null");
        }
    }

    /// `{"variant":` and the rest of an enum's variant written as an object.
    #[inline(never)]
    fn variant_key(&mut self, variant: &str) {
        self.out.append_char('{');
        self.string(variant);
        self.out.append_char(':');
    }

    /// An array or object opened with `open`, to be closed with `close`.
    #[inline(never)]
    fn open(&mut self, open: &str, close: &'static str) -> Compound<'_> {
        self.out.append(open);
        Compound {
            w: self,
            first: true,
            close,
        }
    }
}

/// An array or object being written: its separator and its closing text.
pub struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    close: &'static str,
}

impl Compound<'_> {
    /// The `,` before every element but the first.
    #[inline(never)]
    fn next(&mut self) -> &mut Writer {
        if !self.first {
            self.w.out.append_char(',');
        }
        self.first = false;
        &mut *self.w
    }

    /// `"key":` (with its separator).
    #[inline(never)]
    fn key(&mut self, key: &str) -> &mut Writer {
        let w = self.next();
        w.string(key);
        w.out.append_char(':');
        w
    }

    #[inline(never)]
    fn close(self) -> Result {
        self.w.out.append(self.close);
        Ok(())
    }
}

/// serde's number methods, each widened to what the writer prints (`i64`, `u64`, `f64`).
macro_rules! numbers {
    ($($method:ident($ty:ty) => $write:ident),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result {
            self.$write(v.into());
            Ok(())
        })*
    };
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result {
        self.raw(if v { "true" } else { "false" });
        Ok(())
    }
    numbers! {
        serialize_i8(i8) => int,
        serialize_i16(i16) => int,
        serialize_i32(i32) => int,
        serialize_i64(i64) => int,
        serialize_u8(u8) => uint,
        serialize_u16(u16) => uint,
        serialize_u32(u32) => uint,
        serialize_u64(u64) => uint,
        serialize_f32(f32) => float,
        serialize_f64(f64) => float,
    }
    fn serialize_char(self, v: char) -> Result {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        let mut seq = self.open("[", "]");
        for b in v {
            seq.next().uint((*b).into());
        }
        seq.close()
    }
    fn serialize_none(self) -> Result {
        self.raw("null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.raw("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.raw("null");
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.variant_key(variant);
        value.serialize(&mut *self)?;
        self.raw("}");
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_struct(self, _: &'static str, _len: usize) -> Result<Compound<'a>> {
        Ok(self.open("[", "]"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>> {
        self.variant_key(variant);
        Ok(self.open("[", "]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>> {
        Ok(self.open("{", "}"))
    }
    fn serialize_struct(self, _: &'static str, _len: usize) -> Result<Compound<'a>> {
        Ok(self.open("{", "}"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>> {
        self.variant_key(variant);
        Ok(self.open("{", "}}"))
    }
}

/// serde's four sequence-like traits: each element written after a separator, then the
/// closing bracket.
macro_rules! sequence_like {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                value.serialize(self.next())
            }
            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

sequence_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        key.serialize(KeyWriter(self.next()))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.w.out.append_char(':');
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        value.serialize(self.key(key))
    }
    fn end(self) -> Result {
        self.close()
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        value.serialize(self.key(key))
    }
    fn end(self) -> Result {
        self.close()
    }
}

/// A map key: a string, or a number or boolean written as a string (as serde_json does).
struct KeyWriter<'a>(&'a mut Writer);

#[inline(never)]
fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

impl KeyWriter<'_> {
    /// A key written by the value writer `write`, inside quotes.
    #[inline(never)]
    fn quoted(self, write: impl FnOnce(&mut Writer)) -> Result {
        self.0.out.append_char('"');
        write(self.0);
        self.0.out.append_char('"');
        Ok(())
    }
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        self.0.string(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result {
        self.0.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result {
        self.0.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result {
        v.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(|w| w.raw(if v { "true" } else { "false" }))
    }
    fn serialize_i8(self, v: i8) -> Result {
        self.quoted(|w| w.int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result {
        self.quoted(|w| w.int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result {
        self.quoted(|w| w.int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result {
        self.quoted(|w| w.int(v))
    }
    fn serialize_u8(self, v: u8) -> Result {
        self.quoted(|w| w.uint(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result {
        self.quoted(|w| w.uint(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result {
        self.quoted(|w| w.uint(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result {
        self.quoted(|w| w.uint(v))
    }
    fn serialize_f32(self, v: f32) -> Result {
        self.serialize_f64(v.into())
    }
    #[inline(never)]
    fn serialize_f64(self, v: f64) -> Result {
        if !v.is_finite() {
            return Err(ser::Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        self.quoted(|w| w.float(v))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::json;

    /// serde_json's writer with JavaScript's numbers: the text this module must write.
    fn reference<T: Serialize>(value: &T) -> String {
        struct Js;
        impl serde_json::ser::Formatter for Js {
            fn write_f64<W: ?Sized + std::io::Write>(
                &mut self,
                w: &mut W,
                x: f64,
            ) -> std::io::Result<()> {
                w.write_all(crate::js_text::js_number_to_string(x).as_bytes())
            }
            fn write_f32<W: ?Sized + std::io::Write>(
                &mut self,
                w: &mut W,
                x: f32,
            ) -> std::io::Result<()> {
                self.write_f64(w, x.into())
            }
        }
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, Js);
        value.serialize(&mut ser).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        id: String,
        tool_args: Option<Vec<u32>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<bool>,
        small: i8,
        big: u64,
        negative: i64,
        ratio: f32,
        c: char,
        bytes: serde_bytes_like::Bytes,
        unit: (),
        pair: (u8, String),
        kinds: Vec<Kind>,
        #[serde(flatten)]
        extra: BTreeMap<String, serde_json::Value>,
    }

    mod serde_bytes_like {
        pub struct Bytes(pub Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Wrapped(String);

    #[derive(Serialize)]
    struct Pair(u8, u8);

    #[derive(Serialize)]
    enum Kind {
        Plain,
        Newtype(f64),
        Tuple(u8, bool),
        Struct { a: Wrapped, b: Unit, c: Pair },
    }

    #[test]
    fn writes_serde_json_text_with_javascript_numbers() {
        let mut extra = BTreeMap::new();
        extra.insert(
            "value".to_string(),
            json!({"b": [1, -2, 1.5e300, 1e21, 0.1, null, "q\"\\\n\u{1}\u{7f}é😀"], "a": {}, "7": []}),
        );
        extra.insert("nothing".to_string(), json!(null));
        let row = Row {
            id: "a\tb\u{8}\u{c}\r".into(),
            tool_args: None,
            skipped: None,
            small: -128,
            big: u64::MAX,
            negative: i64::MIN,
            ratio: 0.1,
            c: '"',
            bytes: serde_bytes_like::Bytes(vec![0, 255]),
            unit: (),
            pair: (0, String::new()),
            kinds: vec![
                Kind::Plain,
                Kind::Newtype(f64::NAN),
                Kind::Newtype(-0.0),
                Kind::Newtype(f64::INFINITY),
                Kind::Tuple(3, false),
                Kind::Struct {
                    a: Wrapped("w".into()),
                    b: Unit,
                    c: Pair(1, 2),
                },
            ],
            extra,
        };
        let text = super::to_json(&row).unwrap();
        assert_eq!(text, reference(&row));
        assert!(text.contains(r#""ratio":0.10000000149011612"#), "{text}");
        assert!(text.contains("1.5e+300,1e+21,0.1"), "{text}");
    }

    #[test]
    fn map_keys_as_serde_json_writes_them() {
        let ints: BTreeMap<i32, u8> = [(-1, 1), (20, 2)].into_iter().collect();
        assert_eq!(super::to_json(&ints).unwrap(), reference(&ints));
        assert_eq!(super::to_json(&ints).unwrap(), r#"{"-1":1,"20":2}"#);
        let flags: BTreeMap<bool, char> = [(true, 'x')].into_iter().collect();
        assert_eq!(super::to_json(&flags).unwrap(), reference(&flags));
        let units: BTreeMap<Kind2, ()> = [(Kind2::A, ())].into_iter().collect();
        assert_eq!(super::to_json(&units).unwrap(), r#"{"A":null}"#);
        let bad: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
        let e = super::to_json(&bad).unwrap_err().to_string();
        assert_eq!(e, serde_json::to_string(&bad).unwrap_err().to_string());
    }

    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Kind2 {
        A,
    }
}
