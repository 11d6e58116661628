//! Exports of [`crate::fallback`]: ADR 0299 clause 6 (fallback models re-checked against
//! their own window), clause 8 (tools a delegate never inherits) and the provider
//! overflow classification of host-contract §5.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::compaction::provider_error;
use super::convert::{from_js, throw, to_js};
use super::host::{self, HostArray};
use super::host_context::HostContext;
use crate::fallback::{self, FallbackCandidate, ToolEntry};
use crate::tokens::tokens_from_f64;

#[wasm_bindgen(typescript_custom_section)]
const TS_FALLBACK_INPUT: &str = r#"
/** Input of `selectFallbackModel`: the context the run carries to the next model, the remaining alternatives in order, and the request tokens that are not messages (system prompt, tools). */
export interface FallbackInput { messages: AgentMessage[]; candidates: FallbackCandidate[]; overheadTokens?: number }
"#;

/// ADR 0299 clause 6: the first alternative whose own budget fits the carried context,
/// and a `modelFailures` entry `{model: "providerId/modelId", code:
/// "SUBAGENT_CONTEXT_OVERFLOW", message}` for each one skipped before it. `model` is null
/// when none fits. An absurd `overheadTokens` (`1e308`) counts as more than any window.
#[wasm_bindgen(js_name = selectFallbackModel, unchecked_return_type = "FallbackSelection")]
pub fn select_fallback_model(
    #[wasm_bindgen(unchecked_param_type = "FallbackInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let messages = throw(host::prop(&input, "messages", "input"))?;
    let context = throw(HostContext::of(&messages, "messages"))?;
    let candidates: Vec<FallbackCandidate> = from_js(
        throw(host::prop(&input, "candidates", "input"))?,
        "candidates",
    )?;
    let overhead: Option<f64> = from_js(
        throw(host::prop(&input, "overheadTokens", "input"))?,
        "overheadTokens",
    )?;
    to_js(&throw(fallback::select_fallback_model(
        context.core(),
        &candidates,
        overhead.map_or(0, tokens_from_f64),
    ))?)
}

/// host-contract §5: a provider error is `CONTEXT_TOO_LARGE` (not retriable) for HTTP
/// 413, or 400/422 whose message names a context overflow. Accepts `{status, message}`
/// or an `Error` with `status` (or `statusCode`).
#[wasm_bindgen(js_name = classifyProviderError, unchecked_return_type = "ProviderErrorClass")]
pub fn classify_provider_error(
    #[wasm_bindgen(unchecked_param_type = "ProviderError | Error")] error: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&fallback::classify_provider_error(&provider_error(&error)?))
}

/// ADR 0299 clause 8: the tools a delegate inherits, minus `SUBAGENT_INHERIT_DENY_TOOLS`
/// (names compared after normalising). Tools are names or tool objects; the ones kept
/// are returned as given (same objects). `new_context` never passes.
#[wasm_bindgen(js_name = filterInheritedTools, unchecked_return_type = "InheritedTools")]
pub fn filter_inherited_tools(
    #[wasm_bindgen(unchecked_param_type = "(string | { name: string })[]")] tools: JsValue,
) -> Result<JsValue, JsValue> {
    let array = throw(HostArray::new(&tools, "tools", "tools"))?;
    let mut values = Vec::with_capacity(array.len());
    let mut entries = Vec::with_capacity(array.len());
    for i in 0..array.len() {
        let t = throw(array.get(i))?;
        let entry = match t.as_string() {
            Some(name) => ToolEntry::Named(name),
            None if host::is_object(&t) => {
                match throw(host::prop(&t, "name", &array.path_of(i)))?.as_string() {
                    Some(name) => ToolEntry::Named(name),
                    None => ToolEntry::Unnamed,
                }
            }
            None => ToolEntry::NotATool,
        };
        entries.push(entry);
        values.push(t);
    }
    let kept = throw(fallback::filter_inherited_tools(&entries))?;
    let tools: Array = kept.tools.iter().map(|&i| values[i].clone()).collect();
    let out = Object::new();
    Reflect::set(&out, &JsValue::from_str("tools"), &tools)?;
    Reflect::set(&out, &JsValue::from_str("denied"), &to_js(&kept.denied)?)?;
    Ok(out.into())
}

/// `SUBAGENT_INHERIT_DENY_TOOLS`: the tools a delegate never inherits.
#[wasm_bindgen(js_name = subagentInheritDenyTools, unchecked_return_type = "string[]")]
pub fn subagent_inherit_deny_tools() -> JsValue {
    fallback::SUBAGENT_INHERIT_DENY_TOOLS
        .iter()
        .map(|s| JsValue::from_str(s))
        .collect::<Array>()
        .into()
}
