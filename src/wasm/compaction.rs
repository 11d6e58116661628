//! One-shot exports of delegate compaction (ADR 0299 clauses 3–5): pi's primitives over
//! a message array (`findCutPoint`, `prepareCompaction`, `serializeConversation`), and
//! what a run hands its parent (`reportForParent`, clause 4's notice; clause 5's
//! `errorForParent` is in [`super::fallback`]). Each reads the array once and answers with ranges mapped onto the
//! caller's own message objects. The boundary step lives in [`super::turn`], the handle in
//! [`super::context`].

use wasm_bindgen::prelude::*;

use super::convert::{from_js, index_arg, number_arg, settings_from_js, throw, to_js};
use super::host_context::HostContext;
use crate::compaction::prepare;
use crate::compaction::request::serialize_facts;
use crate::compaction::tally::{report_for_parent as core_report, ReportInput};

/// pi-agent-core's `findCutPoint(entries, startIndex, endIndex, keepRecentTokens)` over
/// messages: walking back from `endIndex - 1`, the first valid cut point (never a
/// toolResult) at or after the message where the estimates reach `keepRecentTokens`.
///
/// @param messages - the context
/// @param startIndex - first message that may be cut (0)
/// @param endIndex - exclusive end (`messages.length`)
/// @param keepRecentTokens - recent tokens to keep verbatim
/// @returns `{firstKeptEntryIndex, turnStartIndex, isSplitTurn}` (turnStartIndex -1 when none)
/// @throws DelegateContextError `INVALID_INPUT` for bad messages or indices out of range
#[wasm_bindgen(js_name = findCutPoint, unchecked_return_type = "CutPoint")]
pub fn find_cut_point(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
    #[wasm_bindgen(js_name = "startIndex", unchecked_param_type = "number")] start_index: JsValue,
    #[wasm_bindgen(js_name = "endIndex", unchecked_param_type = "number")] end_index: JsValue,
    #[wasm_bindgen(js_name = "keepRecentTokens", unchecked_param_type = "number")]
    keep_recent_tokens: JsValue,
) -> Result<JsValue, JsValue> {
    let start_index = number_arg(start_index, "startIndex")?;
    let end_index = number_arg(end_index, "endIndex")?;
    let keep_recent_tokens = number_arg(keep_recent_tokens, "keepRecentTokens")?;
    let ctx = throw(HostContext::of(&messages, "messages"))?;
    let end = index_arg(end_index, "endIndex", ctx.len())?;
    let start = index_arg(start_index, "startIndex", end)?;
    to_js(&crate::compaction::plan::find_cut_point(
        ctx.core(),
        start,
        end,
        keep_recent_tokens,
        start,
    ))
}

/// pi-agent-core's `prepareCompaction` over messages: `messagesToSummarize`,
/// `turnPrefixMessages`, `retainedTail` (your own message objects), `isSplitTurn`,
/// `tokensBefore`, `previousSummary` (from the last `compactionSummary` message; only
/// what follows it is compactable), `fileOps` (plain arrays), `settings`, plus
/// `compactableStart` and `firstKeptIndex`.
///
/// @param settings - `{reserveTokens?, keepRecentTokens?}` (pi's defaults 16,384 / 20,000)
/// @returns the preparation, or `undefined` where pi returns `undefined` (no messages, or a summary last)
#[wasm_bindgen(js_name = prepareCompaction, unchecked_return_type = "CompactionPreparation | undefined")]
pub fn prepare_compaction(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Partial<CompactionSettings>")] settings: Option<
        JsValue,
    >,
) -> Result<JsValue, JsValue> {
    let settings = settings_from_js(settings.unwrap_or(JsValue::UNDEFINED))?;
    let ctx = throw(HostContext::of(&messages, "messages"))?;
    match prepare::prepare_compaction(ctx.core(), &settings) {
        Some(p) => ctx.preparation_to_js(&p),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// `prepareCompaction` of many prefixes of one array in one call, as indices: row `k`
/// describes `messages.slice(0, ends[k])`; `messagesToSummarize` is
/// `compactableStart..historyEnd`, the split prefix `turnStartIndex..firstKeptEntryIndex`,
/// the retained tail `firstKeptEntryIndex..end`.
#[wasm_bindgen(js_name = compactionPlans, unchecked_return_type = "CompactionPlanSummary[]")]
pub fn compaction_plans(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number[]")] ends: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Partial<CompactionSettings>")] settings: Option<
        JsValue,
    >,
) -> Result<JsValue, JsValue> {
    let settings = settings_from_js(settings.unwrap_or(JsValue::UNDEFINED))?;
    let ctx = throw(HostContext::of(&messages, "messages"))?;
    let ends: Vec<f64> = from_js(ends, "ends")?;
    let ends = ends
        .iter()
        .enumerate()
        .map(|(i, &e)| index_arg(e, &format!("ends[{i}]"), ctx.len()))
        .collect::<Result<Vec<_>, _>>()?;
    to_js(&prepare::compaction_plans(ctx.core(), &ends, &settings))
}

/// pi-agent-core's `serializeConversation(convertToLlm(messages))`: the text a summary
/// request shows the model (tool results cut to 2,000 characters).
#[wasm_bindgen(js_name = serializeConversation)]
pub fn serialize_conversation(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
) -> Result<String, JsValue> {
    let ctx = throw(HostContext::of(&messages, "messages"))?;
    Ok(serialize_facts(ctx.core().facts()))
}

/// ADR 0299 clause 4: the report the parent receives for a delegate's final report and
/// its run's counts (`run` of the hook's reports): unchanged when the run lost nothing,
/// with a notice in front when it degraded ("a degraded run must say so, or the parent
/// would read a partial answer as a complete one").
///
/// @example
/// ```js
/// const { text } = reportForParent({ report: finalAnswer, run: lastReport.run, modelId });
/// ```
#[wasm_bindgen(js_name = reportForParent, unchecked_return_type = "ParentBoundReport")]
pub fn report_for_parent(
    #[wasm_bindgen(unchecked_param_type = "ReportInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let input: ReportInput = from_js(input, "input")?;
    to_js(&core_report(&input))
}
