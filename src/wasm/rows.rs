//! Exports of the rows the package writes (host-contract §6): a delegate's pi messages
//! → rows ([`crate::transcript::from_messages`]) and the Task row at start, at settle,
//! or refused ([`crate::delegation::task_row`]). Decode, call the core, encode; `now`
//! defaults to `Date.now()`.

use wasm_bindgen::prelude::*;

use super::convert::{from_js, throw, to_js};
use super::host::{split_list, HostArray};
use super::messages::facts_of_range;
use crate::delegation::{
    task_row_refused, task_row_settle, task_row_start, TaskRowRefused, TaskRowSettle, TaskRowStart,
};
use crate::transcript::{rows_of_facts, MessagesToRowsInput};

/// The rows to persist for pi messages (host-contract §6): a `user` row per user
/// message, one `assistant` row per turn (text, thinking, model, usage; a failed one as an
/// error row), one `tool` row per tool call (`running` until its result arrives, then
/// rewritten with the same id). A delegate's rows carry `parentToolCallId` and
/// `agentName`; the parent's give `idPrefix` (and `skipTools: ["task"]`: the runner
/// writes the Task rows). Ids are stable: store rows by `id`, a later copy replacing the
/// earlier one. `start`: rows of `messages[start..]` only (results pair with calls among
/// all `messages`).
///
/// @example
/// ```js
/// const rows = messagesToRows({ messages: runMessages, parentToolCallId: toolCallId, agentName: "explorer" });
/// for (const row of rows) store.upsert(row);
/// ```
/// @throws DelegateContextError `INVALID_INPUT` (with `path`) for malformed messages or no id prefix
#[wasm_bindgen(js_name = messagesToRows, unchecked_return_type = "UiMessage[]")]
pub fn messages_to_rows_js(
    #[wasm_bindgen(unchecked_param_type = "MessagesToRowsInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    // the messages cross as one `JSON.stringify` and are read by the message reader (the
    // handle's); the rest of the input is decoded without them
    let (rest, messages) = throw(split_list(&input, "messages", "input"))?;
    let input: MessagesToRowsInput = from_js(rest, "input")?;
    let messages = throw(HostArray::new(&messages, "input.messages", "messages"))?;
    let facts = throw(facts_of_range(&messages, 0, messages.len()))?;
    to_js(&throw(rows_of_facts(
        &facts,
        &input.owner,
        input.start,
        input.first_index,
    ))?)
}

/// The Task row when a run starts (`id == toolCallId`, `details.status: "running"`,
/// `delegationId`, `agent`, `modelId`, `startedAt`, `resumedFrom` / `modelChangedFrom`).
///
/// @throws DelegateContextError `INVALID_INPUT` (with `path`)
#[wasm_bindgen(js_name = taskRowStart, unchecked_return_type = "UiMessage")]
pub fn task_row_start_js(
    #[wasm_bindgen(unchecked_param_type = "TaskRowStart")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let mut input: TaskRowStart = from_js(input, "input")?;
    input.now = input.now.or_else(|| Some(js_sys::Date::now()));
    to_js(&throw(task_row_start(&input))?)
}

/// The same Task row when the run settles: `status`, `completedAt`, `turns`,
/// `toolCalls`, `lastToolName`, `contextCompactions`, `contextDegraded`,
/// `modelFailures`, `error`, `report`, and the parent's text as its result.
///
/// @throws DelegateContextError `INVALID_INPUT` (with `path`)
#[wasm_bindgen(js_name = taskRowSettle, unchecked_return_type = "UiMessage")]
pub fn task_row_settle_js(
    #[wasm_bindgen(unchecked_param_type = "TaskRowSettle")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let mut input: TaskRowSettle = from_js(input, "input")?;
    input.now = input.now.or_else(|| Some(js_sys::Date::now()));
    to_js(&throw(task_row_settle(&input))?)
}

/// The row of a Task call refused before it started: `details.error` holds the code,
/// the result the refusal's message, and there is no `delegationId`.
///
/// @throws DelegateContextError `INVALID_INPUT` (with `path`)
#[wasm_bindgen(js_name = taskRowRefused, unchecked_return_type = "UiMessage")]
pub fn task_row_refused_js(
    #[wasm_bindgen(unchecked_param_type = "TaskRowRefused")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let mut input: TaskRowRefused = from_js(input, "input")?;
    input.now = input.now.or_else(|| Some(js_sys::Date::now()));
    to_js(&throw(task_row_refused(&input))?)
}
