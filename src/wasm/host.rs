//! Reading host values without letting a host exception escape into wasm.
//!
//! A JavaScript exception thrown by an import that is not marked `catch` unwinds through
//! the wasm frames: a `RefCell` borrow or a half-done mutation stays behind, and the
//! exception reaches the host raw. Host values can throw from anywhere (a getter, a
//! revoked `Proxy`, an `Array.isArray` on a revoked proxy), so every read of a host value
//! goes through the functions here, which catch and turn the exception into
//! `INVALID_INPUT` with the path of the value. Array lengths are checked before any work
//! (a sparse array of length 2^32 − 1 is refused at once instead of being walked).
//!
//! The readers every export calls are `#[inline(never)]`: one copy in the module, not
//! one per export (issue 17 §7; a call per host read costs nothing next to the read).

use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::text_build::Owned;

/// The most elements an input array may have (a delegate context, a transcript).
pub const MAX_ARRAY_LENGTH: u32 = 1 << 24;

#[wasm_bindgen(module = "/src/wasm/host.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn dc_is_array(v: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_length(a: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_get(a: &JsValue, i: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_prop(o: &JsValue, k: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_is_object(v: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_describe_thrown(e: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_turn_config_text(o: &JsValue) -> Result<Option<String>, JsValue>;
    /// A plain copy of `o`'s own enumerable properties except `k`.
    #[wasm_bindgen(catch)]
    fn dc_without(o: &JsValue, k: &str) -> Result<JsValue, JsValue>;
}

/// The message of a thrown JS value, for an error text. Reading it cannot throw (an
/// `Error` whose `message` is a throwing getter, a revoked `Proxy`, a `Symbol`).
#[inline(never)]
pub fn describe_thrown(e: &JsValue) -> String {
    dc_describe_thrown(e).unwrap_or_else(|_| "an unreadable value was thrown".owned())
}

/// `INVALID_INPUT` at `path` for the exception `e` that `JSON.stringify` of it threw (a
/// cycle, a `BigInt`, a getter that throws).
#[inline(never)]
pub fn not_json(path: &str, e: &JsValue) -> Error {
    Error::invalid(path, format!("not JSON data ({})", describe_thrown(e)))
}

/// `INVALID_INPUT` at `path` for the exception `e` that reading it threw.
#[inline(never)]
pub fn threw(path: &str, e: &JsValue) -> Error {
    Error::invalid(path, format!("reading it threw: {}", describe_thrown(e)))
}

/// Whether `v` is an object (or function) whose properties can be read.
#[inline(never)]
pub fn is_object(v: &JsValue) -> bool {
    dc_is_object(v).unwrap_or(false)
}

/// Property `key` of `obj` (`undefined` when `obj` is not an object), or the exception
/// its getter threw as `INVALID_INPUT` at `path.key`.
#[inline(never)]
pub fn prop(obj: &JsValue, key: &str, path: &str) -> Result<JsValue, Error> {
    if !is_object(obj) {
        return Ok(JsValue::UNDEFINED);
    }
    dc_prop(obj, key).map_err(|e| threw(&join(path, key), &e))
}

/// The JSON text of `{budget, modelId, options}` of the object `o` (a turn boundary's
/// configuration, one crossing); `None` when reading or writing them threw or one of them
/// is a non-finite number (read them one by one then, to name the bad one).
#[inline(never)]
pub fn turn_config_text(o: &JsValue) -> Option<String> {
    dc_turn_config_text(o).ok().flatten()
}

/// `path.key`, or `key` for an empty path.
#[inline(never)]
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.owned()
    } else {
        format!("{path}.{key}")
    }
}

/// `input` (at `path`) without its `key`, which the caller reads separately, and the
/// value of `key` (`undefined` when absent). An input that is not an object (or is an
/// array) is returned as it is, for its decoder to refuse.
pub fn split_field(input: &JsValue, key: &str, path: &str) -> Result<(JsValue, JsValue), Error> {
    if !is_object(input) || is_array(input) {
        return Ok((input.clone(), JsValue::UNDEFINED));
    }
    let value = prop(input, key, path)?;
    let rest = dc_without(input, key).map_err(|thrown| threw(path, &thrown))?;
    Ok((rest, value))
}

/// [`split_field`] for a list the input's decoder requires: the copy holds `key: []`
/// in its place, and the caller reads the list itself (row by row, or as one text).
pub fn split_list(input: &JsValue, key: &str, path: &str) -> Result<(JsValue, JsValue), Error> {
    let (rest, value) = split_field(input, key, path)?;
    if is_object(&rest) && !is_array(&rest) {
        // `rest` is our plain copy (an input that is not an object came back as it is)
        js_sys::Reflect::set(&rest, &JsValue::from_str(key), &js_sys::Array::new())
            .map_err(|thrown| threw(path, &thrown))?;
    }
    Ok((rest, value))
}

/// Whether `v` is a JS array (`false` when asking throws, e.g. a revoked proxy).
#[inline(never)]
pub fn is_array(v: &JsValue) -> bool {
    dc_is_array(v).unwrap_or(false)
}

/// A host array whose length was read once and checked.
pub struct HostArray {
    array: JsValue,
    len: u32,
    path: String,
}

impl HostArray {
    /// `value` as an array of at most [`MAX_ARRAY_LENGTH`] elements; `what` names the
    /// elements in the error ("messages", "rows").
    pub fn new(value: &JsValue, path: &str, what: &str) -> Result<Self, Error> {
        match dc_is_array(value) {
            Ok(true) => {}
            Ok(false) => {
                let got = if value.is_null() || value.is_undefined() {
                    "nothing".owned()
                } else {
                    format!("a {}", value.js_typeof().as_string().unwrap_or_default())
                };
                return Err(Error::invalid(
                    path,
                    format!("expected an array of {what}, got {got}"),
                ));
            }
            Err(e) => return Err(threw(path, &e)),
        }
        let len = dc_length(value).map_err(|e| threw(&join(path, "length"), &e))?;
        let len = len.as_f64().unwrap_or(f64::NAN);
        if !(len >= 0.0 && len <= MAX_ARRAY_LENGTH as f64) {
            return Err(Error::invalid(
                join(path, "length"),
                format!(
                    "{} {what} are more than this library accepts ({MAX_ARRAY_LENGTH})",
                    crate::js_text::js_number_to_string(len)
                ),
            ));
        }
        Ok(HostArray {
            array: value.clone(),
            len: len as u32,
            path: path.owned(),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The array itself.
    pub fn value(&self) -> &JsValue {
        &self.array
    }

    /// The array's path (`messages`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `path[i]`.
    #[inline(never)]
    pub fn path_of(&self, i: usize) -> String {
        format!("{}[{i}]", self.path)
    }

    /// Element `i`, or the exception reading it threw as `INVALID_INPUT` at `path[i]`.
    pub fn get(&self, i: usize) -> Result<JsValue, Error> {
        dc_get(&self.array, i as u32).map_err(|e| threw(&self.path_of(i), &e))
    }
}
