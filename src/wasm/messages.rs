//! Host messages (`AgentMessage[]`) read as [`MessageFacts`]: one `JSON.stringify` for a
//! range of an array (only what is new crosses), one pass over its text in wasm. The
//! host's objects are never copied back: results refer to them by index.

use wasm_bindgen::prelude::*;

use super::convert::json_text;
use super::host::HostArray;
use crate::error::Error;
use crate::facts::MessageFacts;
use crate::json_scan::{self, Halt};
use crate::role::Role;

#[wasm_bindgen(module = "/src/wasm/host.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn dc_stringify_range(a: &JsValue, from: u32, to: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn dc_last_index_of_role(a: &JsValue, role: &str, to: u32) -> Result<i32, JsValue>;
}

/// The facts of `array[from..to]`, read through one `JSON.stringify` of that range.
pub fn facts_of_range(
    array: &HostArray,
    from: usize,
    to: usize,
) -> Result<Vec<MessageFacts>, Error> {
    let to = to.min(array.len());
    if from >= to {
        return Ok(Vec::new());
    }
    let text = dc_stringify_range(array.value(), from as u32, to as u32)
        .map_err(|e| super::host::not_json(array.path(), &e))?;
    let Some(text) = text.as_string() else {
        return Err(Error::invalid(array.path_of(from), "not JSON data"));
    };
    let text: std::rc::Rc<str> = std::rc::Rc::from(text);
    // Each message's path (`messages[3]`) is written only for an error: the walk is done
    // again with the paths when it failed (the same text, so the same first bad message).
    read_all(&text, to - from, None).or_else(|_| read_all(&text, to - from, Some((array, from))))
}

/// The messages of the array `text`; `paths`: the array and the index of its first
/// message, to name a bad one (without: its error has no path).
fn read_all(
    text: &std::rc::Rc<str>,
    count: usize,
    paths: Option<(&HostArray, usize)>,
) -> Result<Vec<MessageFacts>, Error> {
    let mut reader = json_scan::Reader::new(text);
    let mut facts = Vec::with_capacity(count);
    let walked: Result<(), Halt<Error>> = reader.array(|k, r| {
        let path = paths.map(|(array, from)| array.path_of(from + k));
        // the first bad message is the error: it stops the walk
        let f =
            MessageFacts::read(r, text, path.as_deref().unwrap_or("")).map_err(Halt::Stopped)?;
        facts.push(f);
        Ok(())
    });
    walked.map_err(|h| {
        let path = paths.map_or("", |(array, _)| array.path());
        h.into_inner(|e| Error::invalid(path, format!("not JSON data ({e})")))
    })?;
    Ok(facts)
}

/// The facts of one message value.
pub fn facts_of_value(value: &JsValue, path: &str) -> Result<MessageFacts, Error> {
    match json_text(value, path, false)? {
        Some(text) => MessageFacts::from_json(&text, path),
        None => Err(Error::invalid(
            path,
            "expected a message object, got nothing",
        )),
    }
}

/// Message `i` of `array`, read alone (the newest-first checks read a few this way).
pub fn facts_at(array: &HostArray, i: usize) -> Result<MessageFacts, Error> {
    facts_of_value(&array.get(i)?, &array.path_of(i))
}

/// Index of the last message whose `role` is `role` before `to`, read without decoding
/// anything, in one call into JavaScript. `None` when there is none or reading threw
/// (the caller then reads the whole context), or for [`Role::Other`].
pub fn last_index_of_role(array: &HostArray, role: Role, to: usize) -> Option<Option<usize>> {
    let role = role.as_str()?;
    let i = dc_last_index_of_role(array.value(), role, to.min(array.len()) as u32).ok()?;
    Some(usize::try_from(i).ok())
}
