//! Exports of [`crate::fallback`]: ADR 0299 clause 6 (fallback models re-checked against
//! their own window), clause 8 (tools a delegate never inherits) and the provider
//! overflow classification of host-contract §5 in pi's shapes, and clause 5's `errorForParent`.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::{from_js, number_arg, optional, throw, to_js, to_js_error};
use super::host::{self, HostArray};
use super::host_context::HostContext;
use crate::error::Error;
use crate::fallback::{self, FallbackCandidate, OverflowModel, ProviderError, ToolEntry};
use crate::message::Usage;
use crate::tokens::tokens_from_f64;

#[wasm_bindgen(typescript_custom_section)]
const TS_FALLBACK: &str = r#"
/** Input of `selectFallbackModel`: the context the run carries to the next model, the remaining alternatives in order (your own model objects, e.g. pi `Model`s), and the request tokens that are not messages (system prompt, tools). */
export interface FallbackInput<M extends FallbackCandidate = FallbackCandidate> { messages: AgentMessage[]; candidates: M[]; overheadTokens?: number }
/** `FallbackSelection` whose `model` is the caller's own candidate object (the same object), or null. */
export type FallbackSelectionOf<M> = Omit<FallbackSelection, "model"> & { model: M | null };
/**
 * ADR 0299 clause 6: the first alternative whose own budget fits the carried context, and a
 * `modelFailures` entry `{model: "providerId/modelId", code: "SUBAGENT_CONTEXT_OVERFLOW", message}`
 * for each one skipped before it. `model` is your own candidate object (same object, same type),
 * or null when none fits.
 */
export function selectFallbackModel<M extends FallbackCandidate>(input: FallbackInput<M>): FallbackSelectionOf<M>;
"#;

/// ADR 0299 clause 6: the first alternative whose own budget fits the carried context,
/// and a `modelFailures` entry `{model: "providerId/modelId", code:
/// "SUBAGENT_CONTEXT_OVERFLOW", message}` for each one skipped before it. `model` is the
/// caller's own candidate object (null when none fits). An absurd `overheadTokens`
/// (`1e308`) counts as more than any window.
#[wasm_bindgen(js_name = selectFallbackModel, skip_typescript)]
pub fn select_fallback_model(input: JsValue) -> Result<JsValue, JsValue> {
    let messages = throw(host::prop(&input, "messages", "input"))?;
    let context = throw(HostContext::of(&messages, "messages"))?;
    let given = throw(host::prop(&input, "candidates", "input"))?;
    let candidates: Vec<FallbackCandidate> = from_js(given.clone(), "candidates")?;
    let overhead: Option<f64> = from_js(
        throw(host::prop(&input, "overheadTokens", "input"))?,
        "overheadTokens",
    )?;
    let selection = throw(fallback::select_fallback_model(
        context.core(),
        &candidates,
        overhead.map_or(0, tokens_from_f64),
    ))?;
    let out = to_js(&selection)?;
    if let Some(i) = selection.index {
        // the caller's own object, not its JSON copy
        let own = throw(throw(HostArray::new(&given, "candidates", "candidates"))?.get(i))?;
        Reflect::set(&out, &JsValue::from_str("model"), &own)?;
    }
    Ok(out)
}

/// host-contract §5: whether a provider error is `CONTEXT_TOO_LARGE` (not retriable), in
/// every shape a host on pi meets it: pi's failed `AssistantMessage` (decided as pi-ai's
/// `isContextOverflow(message, contextWindow)` decides, silent overflows included when
/// `contextWindow` is given), an `Error` with only a message (pi-ai's patterns), or an
/// error with `status`/`statusCode` (413 always; 400/422 whose text names an overflow).
/// Throttling and rate limits are never an overflow.
#[wasm_bindgen(js_name = classifyProviderError, unchecked_return_type = "ProviderErrorClass")]
pub fn classify_provider_error(
    #[wasm_bindgen(unchecked_param_type = "ProviderError | Error | string")] error: JsValue,
    #[wasm_bindgen(js_name = "contextWindow", unchecked_optional_param_type = "number")]
    context_window: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let window = optional(context_window, |v| number_arg(v, "contextWindow"))?;
    to_js(&fallback::classify_provider_error(
        &provider_error(&error)?,
        window,
    ))
}

#[wasm_bindgen(typescript_custom_section)]
const TS_ERROR_FOR_PARENT: &str = r#"
/** The failed delegate's model for `errorForParent`: its id, its window (for pi's silent-overflow rules), and the context's size and hardLimit when known. */
export interface OverflowModel { modelId: string; contextWindow?: number; tokens?: number; hardLimit?: number }
"#;

/// ADR 0299 clause 5: "the provider's raw overflow text is no longer what the parent
/// receives". Once the fallbacks are exhausted, give the run's provider error here, in
/// any of pi's shapes (its failed `AssistantMessage`, an `Error`, an error with a
/// status): an overflow (as [`classify_provider_error`] decides) becomes the
/// `SUBAGENT_CONTEXT_OVERFLOW` `DelegateContextError` with `modelId` and the guidance
/// (narrow the task, a larger model, read less at once); any other error is returned
/// unchanged (the same value).
///
/// @param error - the provider error: pi's failed `AssistantMessage`, an `Error`, `{status, message}`
/// @param model - `{modelId, contextWindow?, tokens?, hardLimit?}` of the delegate's model
#[wasm_bindgen(js_name = errorForParent, skip_typescript)]
pub fn error_for_parent(error: JsValue, model: JsValue) -> Result<JsValue, JsValue> {
    let model_id = throw(host::prop(&model, "modelId", "model"))?;
    let model_id = model_id
        .as_string()
        .ok_or_else(|| to_js_error(&Error::invalid("model.modelId", "expected a string")))?;
    let number = |key: &str| -> Result<Option<f64>, JsValue> {
        let value = throw(host::prop(&model, key, "model"))?;
        optional(Some(value), |v| number_arg(v, &format!("model.{key}")))
    };
    let count = |key: &str| Ok::<_, JsValue>(number(key)?.map(tokens_from_f64));
    let model = OverflowModel {
        model_id,
        context_window: number("contextWindow")?,
        tokens: count("tokens")?,
        hard_limit: count("hardLimit")?,
    };
    let provider = provider_error(&error)?;
    Ok(
        match fallback::overflow_for_provider_error(&provider, &model) {
            Some(e) => to_js_error(&e),
            None => error,
        },
    )
}

#[wasm_bindgen(typescript_custom_section)]
const TS_ERROR_FOR_PARENT_FN: &str = r#"
/**
 * ADR 0299 clause 5: "the provider's raw overflow text is no longer what the parent receives".
 * Once the fallbacks are exhausted, give the run's provider error here, in any of pi's shapes
 * (its failed `AssistantMessage`, an `Error`, an error with a status): an overflow becomes the
 * `SUBAGENT_CONTEXT_OVERFLOW` `DelegateContextError` with `modelId` and the guidance; any other
 * error is returned unchanged (the same value).
 */
export function errorForParent<E>(error: E, model: OverflowModel): DelegateContextError | E;
"#;

/// A provider error's fields, read safely (a throwing getter is an `INVALID_INPUT`): pi's
/// `stopReason`, `errorMessage` and `usage`, and `status` (or `statusCode`) and `message`.
/// A string is the message itself.
pub fn provider_error(error: &JsValue) -> Result<ProviderError, JsValue> {
    if let Some(text) = error.as_string() {
        return Ok(ProviderError {
            message: Some(text),
            ..Default::default()
        });
    }
    if !host::is_object(error) {
        return Err(to_js_error(&Error::invalid(
            "error",
            "expected an Error, pi's failed AssistantMessage, or an object with status and message",
        )));
    }
    let get = |k: &str| throw(host::prop(error, k, "error"));
    let status = get("status")?.as_f64();
    let status_code = get("statusCode")?.as_f64();
    let usage = get("usage")?;
    let usage_number = |k: &str| -> Result<Option<f64>, JsValue> {
        Ok(throw(host::prop(&usage, k, "error.usage"))?.as_f64())
    };
    let usage = if host::is_object(&usage) {
        Some(Usage {
            input: usage_number("input")?,
            output: usage_number("output")?,
            cache_read: usage_number("cacheRead")?,
            cache_write: None,
            total_tokens: None,
            extra: crate::js_text::new_map(),
        })
    } else {
        None
    };
    Ok(ProviderError {
        status,
        status_code,
        message: get("message")?.as_string(),
        stop_reason: get("stopReason")?.as_string(),
        error_message: get("errorMessage")?.as_string(),
        usage,
    })
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
