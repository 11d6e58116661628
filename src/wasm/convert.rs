//! The one place values cross the boundary: one serializer configuration for every
//! export, input decoding that names the path of a bad value, and core errors turned
//! into JavaScript `Error` objects with a stable `code`.

use std::cell::{Ref, RefCell, RefMut};

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::compaction::prepare::CompactionSettings;
use crate::error::{Error, Field};
use crate::text_build::Owned;

// The error every export throws, declared for TypeScript: written from the table of codes
// and fields the thrower uses ([`crate::error::KINDS`]), so the two cannot drift.
#[allow(dead_code)]
pub const TS_ERROR: &str = crate::error::TS_DECLARATION;
#[wasm_bindgen(typescript_custom_section)]
const _: &str = crate::error::TS_DECLARATION;

// pi's message types, declared in the core next to the Rust types they describe. Named
// and allowed (like `TS_ERROR`): rustc does not count wasm-bindgen's section as a use, and
// on wasm32 an unused item fails the build (src/lib.rs); the allowed name keeps the
// core's constant in use.
#[allow(dead_code)]
pub const TS_MESSAGES: &str = crate::message::TS_DECLARATION;
#[wasm_bindgen(typescript_custom_section)]
const _: &str = TS_MESSAGES;

#[wasm_bindgen(typescript_custom_section)]
const TS_ERROR_GUARD: &str = r#"
/** Whether `value` is an error this library threw (or `errorForParent` made): an `Error` named "DelegateContextError" with one of the codes. Narrows `unknown` in a `catch`. */
export function isDelegateContextError(value: unknown): value is DelegateContextError;
"#;

/// The runtime guard declared above: an `Error` named `DelegateContextError` whose `code` is one of
/// [`crate::error::CODES`]. Never throws: a getter that throws answers `false`.
#[wasm_bindgen(js_name = isDelegateContextError, skip_typescript)]
pub fn is_delegate_context_error(value: JsValue) -> bool {
    let get = |k: &str| super::host::prop(&value, k, "value").ok();
    value.is_instance_of::<js_sys::Error>()
        && get("name").and_then(|n| n.as_string()).as_deref() == Some("DelegateContextError")
        && get("code")
            .and_then(|c| c.as_string())
            .is_some_and(|c| crate::error::CODES.contains(&c.as_str()))
}

/// Encode a core result for JavaScript: its JSON text (numbers printed as JavaScript
/// prints them), parsed by `JSON.parse`. One serializer for every export, and one
/// crossing per result instead of one per property.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    parse_result(crate::js_text::to_json(value))
}

/// A result's JSON text as a JavaScript value (not generic: one copy for every result
/// type, issue 17 §7).
#[inline(never)]
fn parse_result(
    text: std::result::Result<String, crate::js_text::WriteError>,
) -> Result<JsValue, JsValue> {
    let text = text.map_err(|e| to_js_error(&Error::invalid("(result)", e.to_string())))?;
    js_sys::JSON::parse(&text)
}

/// Any JS value as JSON data. `undefined` becomes `null`.
///
/// Objects and arrays cross as one `JSON.stringify` string parsed by serde_json: one
/// native call and one copy instead of a boundary call per property, and no way for a
/// malformed object to throw inside the decoder. What JSON cannot hold is an
/// `INVALID_INPUT` (a cycle, a BigInt, a getter that throws); `Date`s become their ISO
/// strings. A lone surrogate, which `JSON.stringify` writes as an escape serde_json
/// refuses, becomes U+FFFD; a value nested deeper than serde_json's 128 levels is an
/// `INVALID_INPUT` with the path (never a trap).
pub fn js_to_value(value: JsValue, path: &str) -> Result<Value, JsValue> {
    js_to_value_core(&value, path, false).map_err(js_error)
}

#[wasm_bindgen(module = "/src/wasm/host.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn dc_stringify_strict(v: &JsValue) -> Result<JsValue, JsValue>;
}

/// The JSON text `JSON.stringify` writes for `value` (`None` for `undefined` and values
/// JSON has no text for). With `strict_numbers`, `Infinity` and `NaN` are written as
/// strings, so that decoding them as numbers fails with the path of the bad value.
pub fn json_text(
    value: &JsValue,
    path: &str,
    strict_numbers: bool,
) -> Result<Option<String>, Error> {
    if value.is_undefined() {
        return Ok(None);
    }
    let text = if strict_numbers {
        dc_stringify_strict(value)
    } else {
        js_sys::JSON::stringify(value).map(JsValue::from)
    };
    let text = text.map_err(|e| super::host::not_json(path, &e))?;
    Ok(text.as_string())
}

/// Parse JSON text JavaScript wrote, lone-surrogate escapes replaced by U+FFFD.
pub fn parse_js_json(text: &str, path: &str) -> Result<Value, Error> {
    let parsed = crate::js_text::parse_from_js(text, crate::js_text::parse_json);
    parsed.map_err(|e| Error::invalid(path, format!("not usable JSON data ({e})")))
}

/// `INVALID_INPUT` for `Infinity` or `NaN` given where a JSON value is expected (they have
/// no JSON form and no meaning as sizes or indices).
fn refuse_non_finite(value: &JsValue, path: &str) -> Result<(), Error> {
    match value.as_f64() {
        Some(x) if !x.is_finite() => Err(Error::invalid(
            path,
            format!(
                "expected a finite number, got {}",
                crate::js_text::js_number_to_string(x)
            ),
        )),
        _ => Ok(()),
    }
}

fn js_to_value_core(value: &JsValue, path: &str, strict_numbers: bool) -> Result<Value, Error> {
    if strict_numbers {
        refuse_non_finite(value, path)?;
    }
    match json_text(value, path, strict_numbers)? {
        None => Ok(Value::Null), // undefined, a function, a toJSON() that returns undefined
        Some(text) => parse_js_json(&text, path),
    }
}

/// Decode a typed input, naming `path` and the inner path of a bad value. Non-finite
/// numbers are rejected (they have no JSON form and no meaning as sizes or indices).
pub fn from_js<T: crate::decode::Decode>(value: JsValue, path: &str) -> Result<T, JsValue> {
    decode(&value, path).map_err(js_error)
}

/// [`from_js`] with the core's error: the value's `JSON.stringify` text parsed and
/// decoded into `T`, naming the path of a bad value.
pub fn decode<T: crate::decode::Decode>(value: &JsValue, path: &str) -> Result<T, Error> {
    let v = input_value(value, path)?;
    T::decode(&v).map_err(|bad| bad_input(path, bad))
}

/// A decoder's bad value at `path`, non-finite numbers named (not generic: one copy for
/// every input type).
#[inline(never)]
fn bad_input(path: &str, bad: crate::decode::Bad) -> Error {
    non_finite_wording(crate::decode::located(path, bad))
}

/// The parsed value of a typed input (not generic: one copy for every input type, issue
/// 17 §7). Non-finite numbers are refused; they reach the parser as strings.
#[inline(never)]
fn input_value(value: &JsValue, path: &str) -> Result<Value, Error> {
    refuse_non_finite(value, path)?;
    let text = json_text(value, path, true)?.unwrap_or_else(|| "null".owned());
    let parsed = crate::js_text::parse_from_js(&text, crate::js_text::parse_value);
    parsed.map_err(|e| non_finite_wording(Error::invalid(path, e.to_string())))
}

/// A non-finite number reaches the decoder as its text (`"NaN"`): say what it was.
#[inline(never)]
fn non_finite_wording(e: Error) -> Error {
    match e {
        Error::InvalidInput { path, message } => {
            let bad = ["\"NaN\"", "\"Infinity\"", "\"-Infinity\""]
                .into_iter()
                .find(|t| crate::js_text::has_text(&message, &format!("string {t}")));
            match bad {
                Some(t) => Error::invalid(
                    path,
                    format!("expected a finite number, got {}", t.trim_matches('"')),
                ),
                None => Error::InvalidInput { path, message },
            }
        }
        other => other,
    }
}

/// A core error as a JavaScript `Error`: `name` `DelegateContextError`, `code`,
/// `retriable`, and the variant's fields (`path`, `modelId`, ...).
pub fn to_js_error(err: &Error) -> JsValue {
    let e = js_sys::Error::new(&err.to_string());
    e.set_name("DelegateContextError");
    let obj: &JsValue = e.as_ref();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(obj, &JsValue::from_str(k), &v);
    };
    set("code", JsValue::from_str(err.code()));
    set("retriable", JsValue::from_bool(err.retriable()));
    for (k, f) in err.fields() {
        let v = match f {
            Field::Str(s) => JsValue::from_str(&s),
            Field::Num(n) => JsValue::from_f64(n),
            Field::List(l) => l
                .iter()
                .map(|s| JsValue::from_str(s))
                .collect::<js_sys::Array>()
                .into(),
        };
        set(k, v);
    }
    e.into()
}

/// Map a core result's error to a JS `Error` (one copy per result type, not one per call).
#[inline(never)]
pub fn throw<T>(r: crate::Result<T>) -> Result<T, JsValue> {
    r.map_err(js_error)
}

/// [`to_js_error`] of an error given away: one copy of the call and of the error's drop
/// for every export and result type (issue 17 §7: inlined, they were one per caller).
#[inline(never)]
pub fn js_error(error: Error) -> JsValue {
    to_js_error(&error)
}

/// Decode `UiMessage[]` rows.
pub fn rows_from_js(
    value: JsValue,
    path: &str,
) -> Result<Vec<crate::transcript::UiMessage>, JsValue> {
    let v = js_to_value(value, path)?;
    crate::transcript::rows_from_value(v, path).map_err(js_error)
}

/// A string argument, or `INVALID_INPUT` at `path` (instead of wasm-bindgen's code-less error).
#[inline(never)]
pub fn string_arg(value: JsValue, path: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| to_js_error(&Error::invalid(path, "expected a string")))
}

/// A number argument, or `INVALID_INPUT` at `path`.
#[inline(never)]
pub fn number_arg(value: JsValue, path: &str) -> Result<f64, JsValue> {
    value
        .as_f64()
        .ok_or_else(|| to_js_error(&Error::invalid(path, "expected a number")))
}

/// An integer index in `0..=max`, or `INVALID_INPUT` at `path`.
pub fn index_arg(x: f64, path: &str, max: usize) -> Result<usize, JsValue> {
    if !x.is_finite() || x < 0.0 || x.fract() != 0.0 || x > max as f64 {
        return Err(to_js_error(&Error::invalid(
            path,
            format!(
                "expected an integer index in 0..={max}, got {}",
                crate::js_text::js_number_to_string(x)
            ),
        )));
    }
    Ok(x as usize)
}

/// An optional argument or field: `undefined` and `null` are absent (`None`), anything
/// else is read by `read`.
pub fn optional<T, E>(
    value: Option<JsValue>,
    read: impl FnOnce(JsValue) -> Result<T, E>,
) -> Result<Option<T>, E> {
    value
        .filter(|v| !v.is_null_or_undefined())
        .map(read)
        .transpose()
}

/// The range `startIndex..endIndex` of a context of `len` messages: `endIndex` defaults
/// to `len`, `startIndex` to 0 and is at most `endIndex`.
pub fn range_args(
    start_index: Option<JsValue>,
    end_index: Option<JsValue>,
    len: usize,
) -> Result<std::ops::Range<usize>, JsValue> {
    let index =
        |value, path: &str, max| optional(value, |v| index_arg(number_arg(v, path)?, path, max));
    let end = index(end_index, "endIndex", len)?.unwrap_or(len);
    let start = index(start_index, "startIndex", end)?.unwrap_or(0);
    Ok(start..end)
}

/// pi's settings, its defaults where absent.
pub fn settings_from_js(value: Option<JsValue>) -> Result<CompactionSettings, JsValue> {
    Ok(optional(value, |v| from_js(v, "settings"))?.unwrap_or_default())
}

/// The state behind a handle (`what` names it), or `INVALID_STATE` while one of its own
/// calls is still running: a getter, `toJSON` or callback that calls the handle again.
/// (A plain `borrow` would panic there, and a panic kills the instance.)
pub fn state_of<'a, T>(cell: &'a RefCell<T>, what: &str) -> Result<Ref<'a, T>, JsValue> {
    cell.try_borrow().map_err(|_| busy(what))
}

/// [`state_of`] for a change.
pub fn state_mut_of<'a, T>(cell: &'a RefCell<T>, what: &str) -> Result<RefMut<'a, T>, JsValue> {
    cell.try_borrow_mut().map_err(|_| busy(what))
}

#[inline(never)]
fn busy(what: &str) -> JsValue {
    to_js_error(&Error::InvalidState {
        message: format!(
            "the {what} was called from inside one of its own calls (a getter, toJSON or callback)"
        ),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_declared_codes_are_the_codes() {
        let declared = super::TS_ERROR
            .lines()
            .find(|l| l.starts_with("export type DelegateContextErrorCode"))
            .unwrap_or_default();
        let declared: Vec<&str> = declared
            .split('"')
            .enumerate()
            .filter(|(i, _)| i % 2 == 1)
            .map(|(_, c)| c)
            .collect();
        assert_eq!(declared, crate::error::CODES);
    }
}
