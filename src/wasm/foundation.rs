//! Exports of the foundation: version, token accounting (host-contract §2), the budget
//! (ADR 0299 §1–2) and the parent context (seed 001).

use wasm_bindgen::prelude::*;

use super::convert::{from_js, optional, throw, to_js};
use super::host::{self, HostArray};
use super::messages::{facts_at, facts_of_value};
use crate::budget::{context_budget, BudgetModel};
use crate::text_build::Owned;
use crate::tokens;

/// The version of this package (the crate version).
#[wasm_bindgen]
pub fn version() -> String {
    crate::version().owned()
}

/// pi-agent-core's `estimateTokens(message)`: `ceil(chars / 4)` with chars counted in
/// UTF-16 code units, images as 4,800 chars, tool calls as name + `JSON.stringify(arguments)`.
///
/// @param message - one `AgentMessage`
/// @returns the estimated token count
/// @throws DelegateContextError with code `INVALID_INPUT` and `path` for a malformed message
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage")] message: JsValue,
) -> Result<f64, JsValue> {
    Ok(throw(facts_of_value(&message, "message"))?.tokens as f64)
}

/// pi-agent-core's `calculateContextTokens(usage)`:
/// `usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite`.
#[wasm_bindgen(js_name = calculateContextTokens)]
pub fn calculate_context_tokens(
    #[wasm_bindgen(unchecked_param_type = "Partial<Usage>")] usage: JsValue,
) -> Result<f64, JsValue> {
    let u: crate::message::Usage = from_js(usage, "usage")?;
    Ok(u.context_tokens())
}

/// pi-agent-core's `estimateContextTokens(messages)`: the last trusted provider usage
/// plus the estimates of every message after it. Like pi, it reads the messages newest
/// first and stops at that usage: messages before it are not read (nor validated).
///
/// @example
/// ```js
/// const { tokens, lastUsageIndex } = estimateContextTokens(agent.state.messages);
/// ```
#[wasm_bindgen(js_name = estimateContextTokens, unchecked_return_type = "ContextTokenEstimate")]
pub fn estimate_context_tokens(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
) -> Result<JsValue, JsValue> {
    let array = throw(HostArray::new(&messages, "messages", "messages"))?;
    let estimate = throw(tokens::estimate_context_tokens_newest_first(
        array.len(),
        |i| facts_at(&array, i),
    ))?;
    to_js(&estimate)
}

/// The tokens of every request that are not messages: the system prompt and the tool
/// schemas, `ceil((systemPrompt.length + JSON.stringify(tools).length) / 4)`. The pi hook
/// derives a delegate's `overheadTokens` this way; give the same number to
/// `seedDelegateMessages` and `selectFallbackModel`.
///
/// @example
/// ```js
/// const overheadTokens = requestOverheadTokens({ systemPrompt, tools });
/// ```
#[wasm_bindgen(js_name = requestOverheadTokens)]
pub fn request_overhead_tokens(
    #[wasm_bindgen(unchecked_param_type = "{ systemPrompt?: string; tools?: unknown[] }")]
    request: JsValue,
) -> Result<f64, JsValue> {
    let system = throw(host::prop(&request, "systemPrompt", "request"))?;
    let tools = throw(host::prop(&request, "tools", "request"))?;
    let tools = optional(Some(tools), |t| {
        super::convert::js_to_value(t, "request.tools")
    })?;
    Ok(tokens::request_overhead_tokens(system.as_string().as_deref(), tools.as_ref()) as f64)
}

/// The context budget of the model a delegate actually runs on (ADR 0299 clauses 1–2).
///
/// @param model - `{contextWindow, maxTokens, definitionMaxTokens?}` of the resolved model
/// @returns `{contextWindow, maxOutputTokens, requestHeadroom, hardLimit, keepRecentTokens, compactionTrigger, retainedUserBudget}`
/// @example
/// ```js
/// contextBudget({ contextWindow: 256000, maxTokens: 32000 }).hardLimit; // 224000
/// ```
#[wasm_bindgen(js_name = contextBudget, unchecked_return_type = "ContextBudget")]
pub fn budget(
    #[wasm_bindgen(unchecked_param_type = "BudgetModel")] model: JsValue,
) -> Result<JsValue, JsValue> {
    let m: BudgetModel = from_js(model, "model")?;
    crate::budget::validate_model(&m).map_err(super::convert::js_error)?;
    to_js(&context_budget(&m))
}

/// The parent's model context from persisted transcript rows (seed 001): rows a
/// delegate wrote (`parentToolCallId`) never enter it, and a subagent/Task result
/// contributes only the delegate's report (stored parsed report first, raw response
/// for old rows). Unparseable subagent JSON falls back to the raw text and adds a
/// warning; it never throws.
///
/// @param rows - the session's `UiMessage` rows, in order
/// @returns `{messages, warnings}`: `AgentMessage[]` user → assistant (tool calls) → tool results
/// @throws DelegateContextError `INVALID_INPUT` with `path` (e.g. `rows[12].toolName`) for a malformed row
#[wasm_bindgen(js_name = buildParentContext, unchecked_return_type = "ParentContext")]
pub fn build_parent_context(
    #[wasm_bindgen(unchecked_param_type = "UiMessage[]")] rows: JsValue,
) -> Result<JsValue, JsValue> {
    let rows = super::convert::rows_from_js(rows, "rows")?;
    to_js(&crate::parent::build_parent_context(&rows))
}

/// Live path (seed 001): the text one raw subagent tool result contributes to the
/// parent's context. `{success: true, data: {response}}` gives `response`; anything
/// else gives the raw text, with a warning when it is not JSON at all.
///
/// @example
/// ```js
/// subagentResultForParent('{"success":true,"data":{"response":"done"}}').text; // "done"
/// ```
#[wasm_bindgen(js_name = subagentResultForParent, unchecked_return_type = "ParentReport")]
pub fn subagent_result_for_parent(
    #[wasm_bindgen(unchecked_param_type = "string")] raw: JsValue,
) -> Result<JsValue, JsValue> {
    let raw = super::convert::string_arg(raw, "raw")?;
    to_js(&crate::parent::subagent_result_for_parent(&raw))
}
