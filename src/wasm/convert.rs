//! The one place values cross the boundary: one serializer configuration for every
//! export, input decoding that names the path of a bad value, and core errors turned
//! into JavaScript `Error` objects with a stable `code`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{Error, Field};
use crate::message::AgentMessage;

/// The serializer every export uses: plain objects for maps, `null` for missing values
/// inside JSON data, numbers (not BigInt) for integers.
pub fn serializer() -> serde_wasm_bindgen::Serializer {
    serde_wasm_bindgen::Serializer::json_compatible()
}

/// Encode a core result for JavaScript.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serializer())
        .map_err(|e| to_js_error(&Error::invalid("(result)", e.to_string())))
}

/// Any JS value as JSON data. `undefined` becomes `null`.
///
/// Objects and arrays cross as one `JSON.stringify` string parsed by serde_json: one
/// native call and one copy instead of a boundary call per property, and no way for a
/// malformed object to throw inside the decoder. What JSON cannot hold is an
/// `INVALID_INPUT` (a cycle, a BigInt); `Date`s become their ISO strings. Text with a
/// lone surrogate, which serde_json rejects, takes the property-by-property path, where
/// the surrogate becomes U+FFFD.
pub fn js_to_value(value: JsValue, path: &str) -> Result<Value, JsValue> {
    js_to_value_core(&value, path, false).map_err(|e| to_js_error(&e))
}

fn js_to_value_core(value: &JsValue, path: &str, strict_numbers: bool) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    if !value.is_object() {
        if let Some(x) = value.as_f64() {
            if !x.is_finite() && strict_numbers {
                return Err(Error::invalid(
                    path,
                    format!("expected a finite number, got {x}"),
                ));
            }
        }
        return serde_wasm_bindgen::from_value(value.clone())
            .map_err(|e| Error::invalid(path, e.to_string()));
    }
    let text = if strict_numbers {
        // Infinity and NaN would print as null: make them strings, which then fail to
        // decode as numbers with the path of the bad value.
        let replacer =
            Closure::<dyn Fn(JsValue, JsValue) -> JsValue>::new(|_k: JsValue, v: JsValue| match v
                .as_f64()
            {
                Some(x) if !x.is_finite() => JsValue::from_str(&x.to_string()),
                _ => v,
            });
        let f: &js_sys::Function = replacer.as_ref().unchecked_ref();
        js_sys::JSON::stringify_with_replacer(value, f)
    } else {
        js_sys::JSON::stringify(value)
    };
    let text = text
        .map_err(|e| Error::invalid(path, format!("not JSON data ({})", describe_js_error(&e))))?;
    let Some(text) = text.as_string() else {
        return Ok(Value::Null); // e.g. a toJSON() that returns undefined
    };
    match crate::js_text::parse_json(&text) {
        Ok(v) => Ok(v),
        // JSON.stringify wrote a lone surrogate as \udXXX, which serde_json rejects; the
        // value is acyclic (stringify succeeded), so the per-property path is safe.
        Err(_) => serde_wasm_bindgen::from_value(value.clone())
            .map_err(|e| Error::invalid(path, e.to_string())),
    }
}

fn describe_js_error(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// Decode a typed input, naming `path` and the inner path of a bad value. Non-finite
/// numbers are rejected (they have no JSON form and no meaning as sizes or indices).
pub fn from_js<T: DeserializeOwned>(value: JsValue, path: &str) -> Result<T, JsValue> {
    let v = js_to_value_core(&value, path, true).map_err(|e| to_js_error(&e))?;
    crate::message::decode_at(v, path).map_err(|e| to_js_error(&e))
}

/// Decode an `AgentMessage[]`.
pub fn messages_from_js(value: JsValue, path: &str) -> Result<Vec<AgentMessage>, JsValue> {
    let v = js_to_value(value, path)?;
    AgentMessage::list_from_value(v, path).map_err(|e| to_js_error(&e))
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

/// Map a core result's error to a JS `Error`.
pub fn throw<T>(r: crate::Result<T>) -> Result<T, JsValue> {
    r.map_err(|e| to_js_error(&e))
}

/// Decode `UiMessage[]` rows.
pub fn rows_from_js(
    value: JsValue,
    path: &str,
) -> Result<Vec<crate::transcript::UiMessage>, JsValue> {
    let v = js_to_value(value, path)?;
    crate::transcript::rows_from_value(v, path).map_err(|e| to_js_error(&e))
}

#[wasm_bindgen(
    inline_js = "export function last_index_of_role(a, role) { for (let i = a.length - 1; i >= 0; i--) { const m = a[i]; if (m !== null && typeof m === 'object' && m.role === role) return i; } return -1; }"
)]
extern "C" {
    #[wasm_bindgen(catch)]
    fn last_index_of_role(array: &js_sys::Array, role: &str) -> Result<i32, JsValue>;
}

/// A JS `AgentMessage[]` read one message at a time, decoded only when asked for: the
/// turn-boundary check reads newest first and stops at the last provider usage.
pub struct LazyMessages {
    array: js_sys::Array,
    path: String,
}

impl LazyMessages {
    /// Wrap `value`, which must be an array.
    pub fn new(value: JsValue, path: &str) -> Result<Self, JsValue> {
        if !js_sys::Array::is_array(&value) {
            let got = if value.is_null() || value.is_undefined() {
                "nothing"
            } else {
                "a non-array value"
            };
            return Err(to_js_error(&Error::invalid(
                path,
                format!("expected an array of messages, got {got}"),
            )));
        }
        Ok(LazyMessages {
            array: value.into(),
            path: path.to_string(),
        })
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.array.length() as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of the last message whose `role` is `role`, read without decoding anything,
    /// in one call into JavaScript (a boundary crossing per message would cost more than
    /// the rest of a turn-boundary check). `Err` when reading the array threw.
    pub fn last_index_of_role(&self, role: &str) -> Result<Option<usize>, JsValue> {
        let i = last_index_of_role(&self.array, role)?;
        Ok(usize::try_from(i).ok())
    }

    /// Decode message `i`.
    pub fn get(&self, i: usize) -> Result<AgentMessage, Error> {
        let path = format!("{}[{i}]", self.path);
        let v = js_to_value_core(&self.array.get(i as u32), &path, false)?;
        AgentMessage::from_value(v, &path)
    }
}

/// A string argument, or `INVALID_INPUT` at `path` (instead of wasm-bindgen's code-less error).
pub fn string_arg(value: JsValue, path: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| to_js_error(&Error::invalid(path, "expected a string")))
}

/// A number argument, or `INVALID_INPUT` at `path`.
pub fn number_arg(value: JsValue, path: &str) -> Result<f64, JsValue> {
    value
        .as_f64()
        .ok_or_else(|| to_js_error(&Error::invalid(path, "expected a number")))
}
