//! Typed inputs decoded with the path of a bad value (host-contract §1: every
//! `INVALID_INPUT` names where the bad value is, `rows[12].toolArgs`).
//!
//! One deserializer over a parsed [`Value`] for every input type: it walks arrays and
//! objects itself (so it knows the index or key of each value it hands on) and lets
//! serde_json's own `&Value` deserializer answer for everything else, so scalars decode
//! (and fail) exactly as serde_json decodes them. The first value that fails, the
//! innermost, is the one named. This replaces `serde_path_to_error` over serde_json's
//! text parser: the same paths, without a copy of the parser and of a tracking wrapper
//! for every input type (issue 17 §7: most of the module's decoding bytes).

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected,
    Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

type DeError = serde_json::Error;

/// Deserialize `value` into `T`, reporting `path` + the inner path of the bad value.
pub fn decode_at<T: DeserializeOwned>(value: Value, path: &str) -> Result<T> {
    decode_value(&value, path)
}

/// [`decode_at`] for a borrowed value.
pub fn decode_value<T: DeserializeOwned>(value: &Value, path: &str) -> Result<T> {
    decode_inner(value)
        .map_err(|(inner, message)| Error::invalid(format!("{path}{inner}"), message))
}

/// Deserialize JSON text into `T`, reporting `path` + the inner path of the bad value.
/// The text is parsed once into a [`Value`] (numbers as serde_json reads them: an
/// integer stays an integer), then decoded as [`decode_value`] does.
pub fn decode_text<T: DeserializeOwned>(text: &str, path: &str) -> Result<T> {
    let value = parse_text(text, path)?;
    decode_value(&value, path)
}

/// Not generic: one parser for every input type.
#[inline(never)]
fn parse_text(text: &str, path: &str) -> Result<Value> {
    crate::js_text::parse_value(text).map_err(|e| Error::invalid(path, e.to_string()))
}

/// `T` from `value`, or the inner path of the bad value (`""` for the value itself,
/// else `.key` and `[index]` segments, `.a[0].b`) and serde's message.
pub fn decode_inner<T: DeserializeOwned>(
    value: &Value,
) -> std::result::Result<T, (String, String)> {
    let track = Track::default();
    T::deserialize(At {
        v: value,
        at: &Seg::Root,
        track: &track,
    })
    .map_err(|e| (track.take(), e.to_string()))
}

/// Where a value is, as a chain of borrowed segments up to the root (built on the stack
/// as the walk descends; written out only when a value fails).
enum Seg<'a> {
    Root,
    Key(&'a Seg<'a>, &'a str),
    Index(&'a Seg<'a>, usize),
}

impl Seg<'_> {
    fn write(&self, out: &mut String) {
        match self {
            Seg::Root => {}
            Seg::Key(parent, key) => {
                parent.write(out);
                out.push('.');
                out.push_str(key);
            }
            Seg::Index(parent, i) => {
                parent.write(out);
                let _ = write!(out, "[{i}]");
            }
        }
    }
}

/// The path of the first (innermost) value that failed.
#[derive(Default)]
struct Track(RefCell<Option<String>>);

impl Track {
    #[inline(never)]
    fn fail(&self, at: &Seg) {
        let mut first = self.0.borrow_mut();
        if first.is_none() {
            let mut s = String::new();
            at.write(&mut s);
            *first = Some(s);
        }
    }

    fn take(&self) -> String {
        self.0.borrow_mut().take().unwrap_or_default()
    }
}

/// What serde_json names a value of the wrong type (`null` for null, `integer \`5\``).
pub fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// A value and where it is.
struct At<'v, 'c> {
    v: &'v Value,
    at: &'c Seg<'c>,
    track: &'c Track,
}

impl<'v, 'c> At<'v, 'c> {
    /// `r`, noting this value as the bad one if it failed here first (a seed such as
    /// a hand-written `Deserialize` may fail after the value was read).
    fn seen<T>(&self, r: std::result::Result<T, DeError>) -> std::result::Result<T, DeError> {
        if r.is_err() {
            self.track.fail(self.at);
        }
        r
    }

    /// serde_json's answer for a value of the wrong type (its wording: `null` for null),
    /// without a copy of its own array and object walk for every visitor.
    fn wrong_type<T>(&self, expected: &dyn de::Expected) -> std::result::Result<T, DeError> {
        self.seen(Err(de::Error::invalid_type(unexpected(self.v), expected)))
    }

    fn array<V: Visitor<'v>>(
        self,
        a: &'v [Value],
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        let mut seq = Items {
            items: a.iter(),
            index: 0,
            at: self.at,
            track: self.track,
        };
        let r = visitor
            .visit_seq(&mut seq)
            .and_then(|out| match seq.items.len() {
                0 => Ok(out),
                _ => Err(de::Error::invalid_length(
                    a.len(),
                    &"fewer elements in array",
                )),
            });
        self.seen(r)
    }

    fn object<V: Visitor<'v>>(
        self,
        m: &'v Map<String, Value>,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        let mut map = Entries {
            entries: m.iter(),
            value: None,
            at: self.at,
            track: self.track,
        };
        let r = visitor
            .visit_map(&mut map)
            .and_then(|out| match map.entries.len() {
                0 => Ok(out),
                _ => Err(de::Error::invalid_length(m.len(), &"fewer elements in map")),
            });
        self.seen(r)
    }
}

/// A number as serde_json reads one from a `&Value` (its own integer and float visits);
/// anything else the wrong type, through [`At::wrong_type`] (no array or object walk is
/// written out for a number's visitor).
macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'v>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
            match self.v {
                Value::Number(n) => self.seen(n.deserialize_any(visitor)),
                _ => self.wrong_type(&visitor),
            }
        }
    )*};
}

impl<'v, 'c> Deserializer<'v> for At<'v, 'c> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'v>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Array(a) => self.array(a, visitor),
            Value::Object(m) => self.object(m, visitor),
            Value::Null => self.seen(visitor.visit_unit()),
            Value::Bool(b) => self.seen(visitor.visit_bool(*b)),
            Value::Number(n) => self.seen(n.deserialize_any(visitor)),
            Value::String(s) => self.seen(visitor.visit_borrowed_str(s)),
        }
    }

    fn deserialize_option<V: Visitor<'v>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'v>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'v>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        self.seen(self.v.deserialize_enum(name, variants, visitor))
    }

    fn deserialize_ignored_any<V: Visitor<'v>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    fn deserialize_seq<V: Visitor<'v>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Array(a) => self.array(a, visitor),
            _ => self.wrong_type(&visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'v>>(
        self,
        _len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'v>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'v>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Object(m) => self.object(m, visitor),
            _ => self.wrong_type(&visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'v>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Object(m) => self.object(m, visitor),
            Value::Array(a) => self.array(a, visitor),
            _ => self.wrong_type(&visitor),
        }
    }

    // Scalars: serde_json's answers for a `&Value` (the same visits, the same messages),
    // a wrong type through the one non-generic `wrong_type`.
    fn deserialize_bool<V: Visitor<'v>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Bool(b) => self.seen(visitor.visit_bool(*b)),
            _ => self.wrong_type(&visitor),
        }
    }
    fn deserialize_str<V: Visitor<'v>>(self, visitor: V) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::String(s) => self.seen(visitor.visit_borrowed_str(s)),
            _ => self.wrong_type(&visitor),
        }
    }
    fn deserialize_string<V: Visitor<'v>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }
    fn deserialize_unit<V: Visitor<'v>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        match self.v {
            Value::Null => self.seen(visitor.visit_unit()),
            _ => self.wrong_type(&visitor),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_char<V: Visitor<'v>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    forward_to_deserialize_any! {
        <W: Visitor<'v>>
        bytes byte_buf unit_struct identifier
    }
}

/// An array's elements, each with its index.
struct Items<'v, 'c> {
    items: std::slice::Iter<'v, Value>,
    index: usize,
    at: &'c Seg<'c>,
    track: &'c Track,
}

impl<'v, 'c> SeqAccess<'v> for &mut Items<'v, 'c> {
    type Error = DeError;

    fn next_element_seed<S: DeserializeSeed<'v>>(
        &mut self,
        seed: S,
    ) -> std::result::Result<Option<S::Value>, DeError> {
        let Some(v) = self.items.next() else {
            return Ok(None);
        };
        let at = Seg::Index(self.at, self.index);
        self.index += 1;
        let track = self.track;
        let r = seed.deserialize(At { v, at: &at, track });
        At { v, at: &at, track }.seen(r).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's entries, each value with its key.
struct Entries<'v, 'c> {
    entries: serde_json::map::Iter<'v>,
    value: Option<(&'v str, &'v Value)>,
    at: &'c Seg<'c>,
    track: &'c Track,
}

impl<'v, 'c> MapAccess<'v> for &mut Entries<'v, 'c> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'v>>(
        &mut self,
        seed: K,
    ) -> std::result::Result<Option<K::Value>, DeError> {
        let Some((k, v)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some((k.as_str(), v));
        let key = de::value::BorrowedStrDeserializer::<DeError>::new(k.as_str());
        match seed.deserialize(key) {
            Ok(key) => Ok(Some(key)),
            Err(e) => {
                self.track.fail(&Seg::Key(self.at, k));
                Err(e)
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'v>>(
        &mut self,
        seed: S,
    ) -> std::result::Result<S::Value, DeError> {
        let Some((k, v)) = self.value.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        let at = Seg::Key(self.at, k);
        let track = self.track;
        let r = seed.deserialize(At { v, at: &at, track });
        At { v, at: &at, track }.seen(r)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Row {
        id: String,
        tool_args: Option<Vec<u32>>,
        #[serde(default)]
        nested: Option<Box<Row>>,
    }

    fn err_of<T: DeserializeOwned + std::fmt::Debug>(v: Value) -> (String, String) {
        match decode_value::<T>(&v, "rows") {
            Err(Error::InvalidInput { path, message }) => (path, message),
            other => panic!("{other:?}"),
        }
    }

    /// The paths serde_path_to_error named (the crate this module replaces).
    #[test]
    fn the_innermost_bad_value_is_named() {
        let rows = json!([{"id": "a"}, {"id": "b", "toolArgs": [1, "x"]}]);
        assert_eq!(err_of::<Vec<Row>>(rows).0, "rows[1].toolArgs[1]");
        let nested = json!({"id": "a", "nested": {"id": 5}});
        assert_eq!(
            err_of::<Row>(nested),
            (
                "rows.nested.id".into(),
                "invalid type: integer `5`, expected a string".into()
            )
        );
        // a missing field: the object that lacks it
        assert_eq!(
            err_of::<Vec<Row>>(json!([{"id": "a"}, {"nested": null}])),
            ("rows[1]".into(), "missing field `id`".into())
        );
        // an unknown field: the field itself
        assert_eq!(err_of::<Row>(json!({"id": "a", "zz": 1})).0, "rows.zz");
        // the value itself
        assert_eq!(err_of::<Row>(json!(3)).0, "rows");
        assert_eq!(
            err_of::<u32>(json!(1.5)).1,
            "invalid type: floating point `1.5`, expected u32"
        );
    }

    #[test]
    fn text_keeps_integers_and_refuses_trailing_text() {
        assert_eq!(
            decode_text::<u64>("9007199254740993", "n").ok(),
            Some(9007199254740993)
        );
        assert!(decode_text::<u64>("1 2", "n").is_err());
        assert_eq!(decode_text::<Option<Vec<u8>>>("null", "n").ok(), Some(None));
    }
}
