//! Typed inputs decoded with the path of a bad value (host-contract §1: every
//! `INVALID_INPUT` names where the bad value is, `rows[12].toolArgs`).
//!
//! One parser for every input (`crate::js_text`), then each input type's [`Decode`]
//! over the parsed [`Value`]: hand-written readers that read as serde's derive reads
//! (the same accepted values, the same messages), naming the first bad value, the
//! innermost, by its path. This replaced serde's derived visitors driven by a
//! path-tracking deserializer, one monomorphised copy per input type (issue 17 §7: most
//! of the module's decoding bytes); `tests/decode_paths.rs` and `tests/decode_inputs.rs`
//! keep the derive (and `serde_path_to_error`) as the reference.
//!
//! This module is the machinery only (issue 17): it names none of the core's types. Each
//! input type's `decode_struct!` / `decode_enum!` (or hand-written [`Decode`]) sits
//! beside the type, as its `#[serde(...)]` attributes do: the fields as those attributes
//! name them (camelCase, defaults, aliases, flattened fields).

use serde::de::Unexpected;
use serde_json::Value;

use crate::error::{Error, Result};

mod typed;

pub(crate) use typed::{decode_enum, decode_struct};
pub use typed::{flattened, read_struct, variant, Bad, Decode, Spec};
pub(crate) use typed::{invalid_type, js_expected};

/// Decode `value` into `T`, reporting `path` + the inner path of the bad value.
pub fn decode_at<T: Decode>(value: Value, path: &str) -> Result<T> {
    decode_value(&value, path)
}

/// [`decode_at`] for a borrowed value.
pub fn decode_value<T: Decode>(value: &Value, path: &str) -> Result<T> {
    T::decode(value).map_err(|bad| located(path, bad))
}

/// `bad` (its inner path and message) as an `INVALID_INPUT` at `path` + its inner path.
/// Not generic: one copy for every input type.
#[inline(never)]
pub(crate) fn located(path: &str, (inner, message): Bad) -> Error {
    Error::invalid(format!("{path}{inner}"), message)
}

/// Decode JSON text into `T`, reporting `path` + the inner path of the bad value.
/// The text is parsed once into a [`Value`] (numbers as serde_json reads them: an
/// integer stays an integer), then decoded as [`decode_value`] does. (The binding parses
/// a host value's text itself: `wasm::convert::decode`.)
#[cfg(not(target_arch = "wasm32"))] // for the native tests
pub fn decode_text<T: Decode>(text: &str, path: &str) -> Result<T> {
    let value = parse_text(text, path)?;
    decode_value(&value, path)
}

/// Not generic: one parser for every input type.
#[cfg(not(target_arch = "wasm32"))]
#[inline(never)]
fn parse_text(text: &str, path: &str) -> Result<Value> {
    crate::js_text::parse_value(text).map_err(|e| Error::invalid(path, e.to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug)]
    #[allow(dead_code)]
    struct Row {
        id: String,
        tool_args: Option<Vec<u32>>,
        nested: Option<Box<Row>>,
    }

    impl Decode for Box<Row> {
        fn decode(v: &Value) -> std::result::Result<Self, Bad> {
            Row::decode(v).map(Box::new)
        }
    }

    typed::decode_struct!(Row "Row" {
        id: "id" => req,
        tool_args: "toolArgs" => or(None),
        nested: "nested" => default,
    });

    fn err_of<T: Decode + std::fmt::Debug>(v: Value) -> (String, String) {
        match decode_value::<T>(&v, "rows") {
            Err(Error::InvalidInput { path, message }) => (path, message),
            other => panic!("{other:?}"),
        }
    }

    /// The paths serde_path_to_error named (the crate this module replaces), the messages
    /// in JavaScript's words.
    #[test]
    fn the_innermost_bad_value_is_named() {
        let rows = json!([{"id": "a"}, {"id": "b", "toolArgs": [1, "x"]}]);
        assert_eq!(err_of::<Vec<Row>>(rows).0, "rows[1].toolArgs[1]");
        let nested = json!({"id": "a", "nested": {"id": 5}});
        assert_eq!(
            err_of::<Row>(nested),
            ("rows.nested.id".into(), "expected a string, got 5".into())
        );
        // a missing field: the object that lacks it
        assert_eq!(
            err_of::<Vec<Row>>(json!([{"id": "a"}, {"nested": null}])),
            ("rows[1]".into(), "missing field `id`".into())
        );
        // the value itself
        assert_eq!(err_of::<Row>(json!(3)).0, "rows");
        assert_eq!(
            err_of::<u32>(json!(1.5)).1,
            "expected an integer from 0 to 4294967295, got 1.5"
        );
        // a string is quoted as JSON.stringify quotes it (not Rust's `{:?}`)
        assert_eq!(
            err_of::<u32>(json!("a\"b\n\u{1}\u{200b}")).1,
            "expected an integer from 0 to 4294967295, got \"a\\\"b\\n\\u0001\u{200b}\""
        );
        // a struct read from an array: a field without a default is missing
        assert_eq!(
            err_of::<Row>(json!(["a"])),
            (
                "rows".into(),
                "expected an array of 3 items, got 1 item".into()
            )
        );
    }

    #[test]
    fn text_keeps_integers_and_refuses_trailing_text() {
        assert_eq!(
            decode_text::<u64>("9007199254740993", "n").ok(),
            Some(9007199254740993)
        );
        assert!(decode_text::<u64>("1 2", "n").is_err());
        assert_eq!(
            decode_text::<Option<Vec<u32>>>("null", "n").ok(),
            Some(None)
        );
    }
}
