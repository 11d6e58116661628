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

/// Any JS value as JSON data. `undefined` becomes `null`; functions and symbols fail.
pub fn js_to_value(value: JsValue, path: &str) -> Result<Value, JsValue> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| to_js_error(&Error::invalid(path, e.to_string())))
}

/// Decode a typed input straight from the JS value (numbers keep `Infinity`/`NaN`, so
/// validation can reject them), naming `path` and the inner path of a bad value.
pub fn from_js<T: DeserializeOwned>(value: JsValue, path: &str) -> Result<T, JsValue> {
    let de = serde_wasm_bindgen::Deserializer::from(value);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.path().to_string();
        let full = match inner.as_str() {
            "." | "" => path.to_string(),
            i if i.starts_with('[') => format!("{path}{i}"),
            i => format!("{path}.{i}"),
        };
        to_js_error(&Error::invalid(full, e.into_inner().to_string()))
    })
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
            Field::Bool(b) => JsValue::from_bool(b),
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

    /// Index of the last message whose `role` is `role`, read without decoding anything.
    pub fn last_index_of_role(&self, role: &str) -> Option<usize> {
        let key = JsValue::from_str("role");
        (0..self.len()).rev().find(|&i| {
            js_sys::Reflect::get(&self.array.get(i as u32), &key)
                .ok()
                .and_then(|r| r.as_string())
                .as_deref()
                == Some(role)
        })
    }

    /// Decode message `i`.
    pub fn get(&self, i: usize) -> Result<AgentMessage, Error> {
        let path = format!("{}[{i}]", self.path);
        let v: Value = serde_wasm_bindgen::from_value(self.array.get(i as u32))
            .map_err(|e| Error::invalid(&path, e.to_string()))?;
        AgentMessage::from_value(v, &path)
    }
}
