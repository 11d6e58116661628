//! Exports of delegate compaction (ADR 0299 clauses 3–5: pi's primitives, the boundary
//! decision, its async orchestration and the ready-made `prepareNextTurnWithContext`
//! hook) and of [`crate::fallback`] (clause 6, clause 8, provider overflow errors).
//! Each export decodes, calls the core, encodes; the async ones only add the awaiting of
//! the host's `summarize` callback and the AbortSignal checks around it.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use serde::{Deserialize, Serialize};
use tsify::Tsify;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::convert::{
    from_js, messages_from_js, number_arg, throw, to_js, to_js_error, LazyMessages,
};
use crate::budget::ContextBudget;
use crate::compaction::prepare::{compaction_plans as core_plans, CompactionSettings};
use crate::compaction::summary::SummaryKind;
use crate::compaction::turn::{
    complete_delegate_turn as core_complete, prepare_delegate_turn as core_prepare,
    quick_unchanged, DegradeReason, DelegateTurnOptions, DelegateTurnOutcome,
    DelegateTurnPreparation, SummaryAnswer, TurnAction, TurnOutcomeKind,
};
use crate::compaction::{self as core};
use crate::error::Error;
use crate::fallback::{self, FallbackCandidate, ProviderError};
use crate::message::AgentMessage;

#[wasm_bindgen(typescript_custom_section)]
const TS_FUNCTION_TYPES: &str = r#"
/** The host's summarizer: send `request` to a model, resolve with its text (or the assistant message; `stopReason` "error"/"aborted" counts as a failure). A rejection degrades the turn. */
export type SummarizeCallback = (request: SummaryRequest, signal?: AbortSignal) => Promise<string | { content: unknown; stopReason?: string; errorMessage?: string }> | string;
/** What pi-agent-core's Agent passes to `prepareNextTurnWithContext`. */
export interface PrepareNextTurnContext { context: { systemPrompt?: string; messages: AgentMessage[]; tools?: unknown[] }; [field: string]: unknown }
/** A ready `prepareNextTurnWithContext` for pi-agent-core's Agent: resolves `undefined` when nothing changes, else the next request's context. Rejects with `SUBAGENT_CONTEXT_OVERFLOW` or `ABORTED`. */
export type PrepareNextTurnHook = (ctx: PrepareNextTurnContext, signal?: AbortSignal) => Promise<{ context: PrepareNextTurnContext["context"] } | undefined>;
"#;

/// Input of `prepareDelegateTurn`.
#[allow(dead_code)]
#[derive(Tsify, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnInput {
    /// The delegate's context; `messages[0]` is the task brief (a user message).
    messages: Vec<AgentMessage>,
    /// `contextBudget(model)` of the model the delegate runs on.
    budget: ContextBudget,
    /// That model's id (named in `SUBAGENT_CONTEXT_OVERFLOW`).
    model_id: String,
    #[tsify(optional)]
    options: Option<DelegateTurnOptions>,
}

/// Input of `completeDelegateTurn`: the same input, and the summary text(s) or failure.
#[allow(dead_code)]
#[derive(Tsify, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnCompletion {
    messages: Vec<AgentMessage>,
    budget: ContextBudget,
    model_id: String,
    #[tsify(optional)]
    options: Option<DelegateTurnOptions>,
    /// The answers to `prepareDelegateTurn`'s requests (absent: none were needed, or failed).
    #[tsify(optional)]
    answer: Option<SummaryAnswer>,
}

/// Input of `runDelegateTurn`.
#[allow(dead_code)]
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunDelegateTurnInput {
    messages: Vec<AgentMessage>,
    budget: ContextBudget,
    model_id: String,
    #[tsify(optional)]
    options: Option<DelegateTurnOptions>,
    #[tsify(type = "SummarizeCallback")]
    summarize: (),
    #[tsify(optional, type = "AbortSignal")]
    signal: Option<()>,
}

/// Configuration of `createPrepareNextTurn`.
#[allow(dead_code)]
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PrepareNextTurnConfig {
    budget: ContextBudget,
    model_id: String,
    #[tsify(type = "SummarizeCallback")]
    summarize: (),
    /// The delegate run's signal (the Agent's own signal is honoured too).
    #[tsify(optional, type = "AbortSignal")]
    signal: Option<()>,
    /// `overheadTokens` defaults to the system prompt and tool schemas of the Agent's context.
    #[tsify(optional)]
    options: Option<DelegateTurnOptions>,
    /// Called after every boundary with this step and the running counts.
    #[tsify(optional, type = "(report: DelegateTurnReport) => void")]
    on_outcome: Option<()>,
}

/// What `createPrepareNextTurn`'s `onOutcome` receives after each boundary.
#[derive(Clone, Debug, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnReport {
    pub outcome: TurnOutcomeKind,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub hard_limit: u64,
    pub summarized_messages: usize,
    pub dropped_messages: usize,
    pub dropped_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reason: Option<DegradeReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub summary_error: Option<String>,
    /// Boundaries seen so far by this hook.
    pub boundaries: u32,
    /// For the delegation summary: compactions (and degradations) so far.
    pub context_compactions: u32,
    /// For the delegation summary: whether the run has lost history.
    pub context_degraded: bool,
}

/// Input of `selectFallbackModel`.
#[allow(dead_code)]
#[derive(Tsify, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackInput {
    /// The context the run carries to the next model.
    messages: Vec<AgentMessage>,
    /// The remaining alternatives, in order.
    candidates: Vec<FallbackCandidate>,
    /// Request tokens that are not messages (system prompt, tools).
    #[tsify(optional)]
    overhead_tokens: Option<f64>,
}

fn field(obj: &JsValue, name: &str, path: &str) -> Result<JsValue, JsValue> {
    if !obj.is_object() {
        return Err(to_js_error(&Error::invalid(path, "expected an object")));
    }
    Reflect::get(obj, &JsValue::from_str(name))
        .map_err(|_| to_js_error(&Error::invalid(format!("{path}.{name}"), "unreadable")))
}

fn present(v: &JsValue) -> bool {
    !v.is_undefined() && !v.is_null()
}

struct TurnArgs {
    messages: Vec<AgentMessage>,
    /// The caller's own array, whose objects the result reuses (see [`outcome_to_js`]).
    messages_js: JsValue,
    budget: ContextBudget,
    model_id: String,
    options: DelegateTurnOptions,
}

fn turn_args(input: &JsValue) -> Result<TurnArgs, JsValue> {
    let messages_js = field(input, "messages", "input")?;
    turn_args_with(messages_js, turn_config(input, "input")?)
}

/// [`turn_args`] for a caller that already read the messages value and the config.
fn turn_args_with(
    messages_js: JsValue,
    (budget, model_id, options): (ContextBudget, String, DelegateTurnOptions),
) -> Result<TurnArgs, JsValue> {
    let messages = messages_from_js(messages_js.clone(), "messages")?;
    Ok(TurnArgs {
        messages,
        messages_js,
        budget,
        model_id,
        options,
    })
}

/// The next context for JavaScript. Every message of `out` that is an input message
/// (a rewrite keeps their order) is the caller's own object, as pi's `retainedTail`
/// holds the session's own messages: nothing the host put on it is lost or copied
/// (a `Map`, a `Date`, a class instance stay what they were). Only new messages (the
/// summary, a degraded note) are encoded.
fn messages_to_js(
    out: &[AgentMessage],
    input: &[AgentMessage],
    input_js: &JsValue,
) -> Result<JsValue, JsValue> {
    let array: &js_sys::Array = input_js.unchecked_ref();
    let result = js_sys::Array::new();
    let mut next = 0;
    for m in out {
        match (next..input.len()).find(|&k| &input[k] == m) {
            Some(k) => {
                result.push(&array.get(k as u32));
                next = k + 1;
            }
            None => {
                result.push(&to_js(m)?);
            }
        }
    }
    Ok(result.into())
}

/// An outcome for JavaScript, its `messages` built by [`messages_to_js`].
fn outcome_to_js(out: &DelegateTurnOutcome, args: &TurnArgs) -> Result<JsValue, JsValue> {
    let js = to_js(&DelegateTurnOutcome {
        messages: Vec::new(),
        ..out.clone()
    })?;
    Reflect::set(
        &js,
        &JsValue::from_str("messages"),
        &messages_to_js(&out.messages, &args.messages, &args.messages_js)?,
    )?;
    Ok(js)
}

/// The common case at every turn: below the threshold, read newest first up to the last
/// provider usage (see [`quick_unchanged`]); `None` when the full analysis is needed.
fn quick(
    messages: &JsValue,
    path: &str,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<Option<DelegateTurnPreparation>, JsValue> {
    let lazy = LazyMessages::new(messages.clone(), path)?;
    let Ok(last_summary) = lazy.last_index_of_role("compactionSummary") else {
        return Ok(None); // the array could not be read cheaply: take the full path
    };
    throw(quick_unchanged(
        lazy.len(),
        last_summary,
        budget,
        options,
        |i| lazy.get(i),
    ))
}

/// The `unchanged` outcome of a fast-path answer, with the caller's own array as
/// `messages` (nothing was copied).
fn unchanged_outcome(p: &DelegateTurnPreparation, messages: &JsValue) -> Result<JsValue, JsValue> {
    let out = DelegateTurnOutcome::unchanged(Vec::new(), p.tokens, p.tokens, p.hard_limit, p.turn);
    let js = to_js(&out)?;
    Reflect::set(&js, &JsValue::from_str("messages"), messages)?;
    Ok(js)
}

fn turn_config(
    input: &JsValue,
    path: &str,
) -> Result<(ContextBudget, String, DelegateTurnOptions), JsValue> {
    let budget: ContextBudget = from_js(field(input, "budget", path)?, "budget")?;
    let model_id: String = from_js(field(input, "modelId", path)?, "modelId")?;
    let opts = field(input, "options", path)?;
    let mut options: DelegateTurnOptions = if present(&opts) {
        from_js(opts, "options")?
    } else {
        DelegateTurnOptions::default()
    };
    if options.now.is_none() {
        options.now = Some(js_sys::Date::now());
    }
    Ok((budget, model_id, options))
}

fn settings_from_js(value: JsValue, path: &str) -> Result<CompactionSettings, JsValue> {
    if present(&value) {
        from_js(value, path)
    } else {
        Ok(CompactionSettings::new(
            core::prepare::DEFAULT_RESERVE_TOKENS,
            core::prepare::DEFAULT_KEEP_RECENT_TOKENS,
        ))
    }
}

fn index_arg(x: f64, path: &str, max: usize) -> Result<usize, JsValue> {
    if !x.is_finite() || x < 0.0 || x.fract() != 0.0 || x > max as f64 {
        return Err(to_js_error(&Error::invalid(
            path,
            format!("expected an integer index in 0..={max}, got {x}"),
        )));
    }
    Ok(x as usize)
}

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
    let ms = messages_from_js(messages, "messages")?;
    let end = index_arg(end_index, "endIndex", ms.len())?;
    let start = index_arg(start_index, "startIndex", end)?;
    to_js(&core::find_cut_point(&ms, start, end, keep_recent_tokens))
}

/// pi-agent-core's `prepareCompaction` over messages: `messagesToSummarize`,
/// `turnPrefixMessages`, `retainedTail`, `isSplitTurn`, `tokensBefore`,
/// `previousSummary` (from the last `compactionSummary` message; only what follows it
/// is compactable), `fileOps` (plain arrays), `settings`, plus `compactableStart` and
/// `firstKeptIndex`.
///
/// @param settings - `{reserveTokens?, keepRecentTokens?}` (pi's defaults 16,384 / 20,000)
/// @returns the preparation, or `undefined` where pi returns `undefined` (no messages, or a summary last)
#[wasm_bindgen(js_name = prepareCompaction, unchecked_return_type = "CompactionPreparation | undefined")]
pub fn prepare_compaction(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<CompactionSettings>")] settings: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let ms = messages_from_js(messages, "messages")?;
    let s = settings_from_js(settings.unwrap_or(JsValue::UNDEFINED), "settings")?;
    match core::prepare_compaction(&ms, &s) {
        Some(p) => to_js(&p),
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
    #[wasm_bindgen(unchecked_param_type = "Partial<CompactionSettings>")] settings: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let settings = settings.unwrap_or(JsValue::UNDEFINED);
    let ms = messages_from_js(messages, "messages")?;
    let ends: Vec<f64> = from_js(ends, "ends")?;
    let ends = ends
        .iter()
        .enumerate()
        .map(|(i, &e)| index_arg(e, &format!("ends[{i}]"), ms.len()))
        .collect::<Result<Vec<_>, _>>()?;
    let s = settings_from_js(settings, "settings")?;
    to_js(&core_plans(&ms, &ends, &s))
}

/// pi-agent-core's `serializeConversation(convertToLlm(messages))`: the text a summary
/// request shows the model (tool results cut to 2,000 characters).
#[wasm_bindgen(js_name = serializeConversation)]
pub fn serialize_conversation(
    #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
) -> Result<String, JsValue> {
    let ms = messages_from_js(messages, "messages")?;
    Ok(core::serialize_conversation(&ms))
}

/// The synchronous decision at a delegate turn boundary (ADR 0299 clause 3):
/// `action` `"unchanged"` (below hardLimit), `"summarize"` (send `requests`, in order,
/// then call `completeDelegateTurn` with the texts) or `"degrade"` (call
/// `completeDelegateTurn` without texts).
///
/// @example
/// ```js
/// const input = { messages, budget: contextBudget(model), modelId: model.id };
/// const plan = prepareDelegateTurn(input);
/// if (plan.action !== "unchanged") {
///   const answer = {};
///   for (const r of plan.requests) answer[r.kind] = await callModel(r);
///   const { messages: next } = completeDelegateTurn({ ...input, answer });
/// }
/// ```
/// @throws DelegateContextError `INVALID_INPUT` (with `path`) for malformed input or a context not starting with the brief
#[wasm_bindgen(js_name = prepareDelegateTurn, unchecked_return_type = "DelegateTurnPreparation")]
pub fn prepare_delegate_turn(
    #[wasm_bindgen(unchecked_param_type = "DelegateTurnInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let config = turn_config(&input, "input")?;
    let messages = field(&input, "messages", "input")?;
    if let Some(p) = quick(&messages, "messages", &config.0, &config.2)? {
        return to_js(&p);
    }
    let a = turn_args_with(messages, config)?;
    to_js(&throw(core_prepare(&a.messages, &a.budget, &a.options))?)
}

/// The second half of a boundary step: the next context for the summary text(s) in
/// `answer` (or `answer.error`): `outcome` `"compacted"`, `"degraded"` (history lost,
/// brief + newest messages) or `"unchanged"`, with `contextCompactions` and
/// `contextDegraded` for the delegation summary.
///
/// @throws DelegateContextError `SUBAGENT_CONTEXT_OVERFLOW` (not retriable; `modelId`, `tokens`, `hardLimit`) when even the brief does not fit
#[wasm_bindgen(js_name = completeDelegateTurn, unchecked_return_type = "DelegateTurnOutcome")]
pub fn complete_delegate_turn(
    #[wasm_bindgen(unchecked_param_type = "DelegateTurnCompletion")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let a = turn_args(&input)?;
    let ans = field(&input, "answer", "input")?;
    let answer: SummaryAnswer = if present(&ans) {
        from_js(ans, "answer")?
    } else {
        SummaryAnswer::default()
    };
    let out = throw(core_complete(
        &a.messages,
        &a.budget,
        &a.model_id,
        &a.options,
        &answer,
    ))?;
    outcome_to_js(&out, &a)
}

fn aborted(signals: &[JsValue]) -> bool {
    signals.iter().any(|s| {
        present(s)
            && Reflect::get(s, &JsValue::from_str("aborted"))
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(false)
    })
}

fn describe(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| {
        js_sys::JSON::stringify(e)
            .map(String::from)
            .unwrap_or_else(|_| "unknown error".into())
    })
}

/// Why `summarize` gave no summary.
enum SummaryFailure {
    /// An abort (a resolved `stopReason: "aborted"`, or a rejection named `AbortError`):
    /// not a degradation; the step rejects with `ABORTED` and changes nothing.
    Aborted,
    /// Anything else: the step degrades.
    Failed(String),
}

impl From<String> for SummaryFailure {
    fn from(s: String) -> Self {
        SummaryFailure::Failed(s)
    }
}

fn is_abort_error(e: &JsValue) -> bool {
    Reflect::get(e, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string())
        .is_some_and(|n| n == "AbortError")
}

/// A summary from what `summarize` resolved with.
fn summary_text(v: &JsValue) -> Result<String, SummaryFailure> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    if !v.is_object() {
        return Err(SummaryFailure::Failed(
            "summarize resolved with neither text nor an assistant message".into(),
        ));
    }
    let get = |k: &str| Reflect::get(v, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    if let Some(stop) = get("stopReason").as_string() {
        if stop == "aborted" {
            return Err(SummaryFailure::Aborted);
        }
        if stop == "error" {
            let msg = get("errorMessage")
                .as_string()
                .unwrap_or_else(|| format!("summary request ended with {stop}"));
            return Err(msg.into());
        }
    }
    let content = get("content");
    if let Some(s) = content.as_string() {
        return Ok(s);
    }
    if js_sys::Array::is_array(&content) {
        let parts: Vec<String> = js_sys::Array::from(&content)
            .iter()
            .filter(|b| {
                Reflect::get(b, &JsValue::from_str("type"))
                    .ok()
                    .and_then(|t| t.as_string())
                    .as_deref()
                    == Some("text")
            })
            .filter_map(|b| {
                Reflect::get(&b, &JsValue::from_str("text"))
                    .ok()
                    .and_then(|t| t.as_string())
            })
            .collect();
        return Ok(parts.join("\n"));
    }
    if let Some(s) = get("text").as_string() {
        return Ok(s);
    }
    Err(SummaryFailure::Failed(
        "summarize resolved with neither text nor an assistant message".into(),
    ))
}

async fn call_summarize(
    summarize: &Function,
    request: &JsValue,
    signal: &JsValue,
) -> Result<String, SummaryFailure> {
    let failure = |e: JsValue| {
        if is_abort_error(&e) {
            SummaryFailure::Aborted
        } else {
            SummaryFailure::Failed(describe(&e))
        }
    };
    let returned = summarize
        .call2(&JsValue::UNDEFINED, request, signal)
        .map_err(failure)?;
    let resolved = JsFuture::from(Promise::resolve(&returned))
        .await
        .map_err(failure)?;
    summary_text(&resolved)
}

/// One signal for the summary request that fires when any of `signals` does
/// (`AbortSignal.any`, where the runtime has it; else the first present signal).
fn combined_signal(signals: &[JsValue]) -> JsValue {
    let present_signals: Vec<&JsValue> = signals.iter().filter(|s| present(s)).collect();
    match present_signals.as_slice() {
        [] => JsValue::UNDEFINED,
        [one] => (*one).clone(),
        many => {
            let any = Reflect::get(&js_sys::global(), &JsValue::from_str("AbortSignal"))
                .ok()
                .filter(present)
                .and_then(|c| {
                    let f = Reflect::get(&c, &JsValue::from_str("any")).ok()?;
                    let f = f.dyn_into::<Function>().ok()?;
                    let list: js_sys::Array = many.iter().map(|s| (*s).clone()).collect();
                    f.call1(&c, &list).ok()
                });
            any.unwrap_or_else(|| many[0].clone())
        }
    }
}

/// The whole boundary step: prepare, await the host's summaries, complete.
async fn run_turn(
    args: &TurnArgs,
    summarize: Function,
    signals: Vec<JsValue>,
) -> Result<DelegateTurnOutcome, JsValue> {
    if aborted(&signals) {
        return Err(to_js_error(&Error::Aborted));
    }
    let prep = throw(core_prepare(&args.messages, &args.budget, &args.options))?;
    let mut answer = SummaryAnswer::default();
    if prep.action == TurnAction::Summarize {
        let signal = combined_signal(&signals);
        for request in &prep.requests {
            let req = to_js(request)?;
            let got = call_summarize(&summarize, &req, &signal).await;
            if aborted(&signals) {
                return Err(to_js_error(&Error::Aborted));
            }
            match (got, request.kind) {
                (Ok(t), SummaryKind::History) => answer.history = Some(t),
                (Ok(t), SummaryKind::TurnPrefix) => answer.turn_prefix = Some(t),
                (Err(SummaryFailure::Aborted), _) => return Err(to_js_error(&Error::Aborted)),
                (Err(SummaryFailure::Failed(e)), _) => {
                    answer.error = Some(e);
                    break;
                }
            }
        }
    }
    throw(core_complete(
        &args.messages,
        &args.budget,
        &args.model_id,
        &args.options,
        &answer,
    ))
}

fn summarize_fn(v: JsValue, path: &str) -> Result<Function, JsValue> {
    v.dyn_into::<Function>()
        .map_err(|_| to_js_error(&Error::invalid(path, "expected a function")))
}

/// The whole boundary step, asynchronously: decide, call `summarize(request, signal)`
/// for each summary request, and resolve with the outcome and the next context. A
/// rejected (or failed, or empty) summary degrades; an abort rejects with code
/// `ABORTED` and changes nothing.
///
/// @example
/// ```js
/// const out = await runDelegateTurn({ messages, budget, modelId, signal,
///   summarize: async (req) => (await complete(model, req, { maxTokens: req.maxTokens })).content });
/// if (out.outcome !== "unchanged") messages = out.messages;
/// ```
/// @throws (rejects) `SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED`, `INVALID_INPUT`
#[wasm_bindgen(js_name = runDelegateTurn, unchecked_return_type = "Promise<DelegateTurnOutcome>")]
pub fn run_delegate_turn(
    #[wasm_bindgen(unchecked_param_type = "RunDelegateTurnInput")] input: JsValue,
) -> Promise {
    let prepared = (|| -> Result<Result<(TurnArgs, Function, JsValue), JsValue>, JsValue> {
        let summarize = summarize_fn(field(&input, "summarize", "input")?, "summarize")?;
        let signal = field(&input, "signal", "input")?;
        let config = turn_config(&input, "input")?;
        let messages = field(&input, "messages", "input")?;
        if !aborted(std::slice::from_ref(&signal)) {
            if let Some(p) = quick(&messages, "messages", &config.0, &config.2)? {
                return Ok(Err(unchanged_outcome(&p, &messages)?));
            }
        }
        Ok(Ok((turn_args_with(messages, config)?, summarize, signal)))
    })();
    future_to_promise(async move {
        let (args, summarize, signal) = match prepared? {
            Ok(parts) => parts,
            Err(unchanged) => return Ok(unchanged),
        };
        let out = run_turn(&args, summarize, vec![signal]).await?;
        outcome_to_js(&out, &args)
    })
}

/// Tokens of the Agent context that are not messages: system prompt and tool schemas.
fn context_overhead(context: &JsValue) -> f64 {
    let get = |k: &str| Reflect::get(context, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    let system = get("systemPrompt")
        .as_string()
        .map_or(0, |s| s.encode_utf16().count());
    let tools = get("tools");
    let tools_len = if present(&tools) {
        js_sys::JSON::stringify(&tools)
            .map(|s| s.length() as usize)
            .unwrap_or(0)
    } else {
        0
    };
    (system + tools_len).div_ceil(4) as f64
}

/// Count one boundary step in the hook's state and tell `onOutcome` (a throwing
/// listener must not break the delegate's loop).
fn report(
    state: &RefCell<HookState>,
    on_outcome: &Option<Function>,
    out: &DelegateTurnOutcome,
) -> Result<(), JsValue> {
    let report = {
        let mut s = state.borrow_mut();
        s.boundaries += 1;
        s.compactions += out.context_compactions;
        s.degraded |= out.context_degraded;
        DelegateTurnReport {
            outcome: out.outcome,
            tokens_before: out.tokens_before,
            tokens_after: out.tokens_after,
            hard_limit: out.hard_limit,
            summarized_messages: out.summarized_messages,
            dropped_messages: out.dropped_messages,
            dropped_tokens: out.dropped_tokens,
            reason: out.reason,
            summary_error: out.summary_error.clone(),
            boundaries: s.boundaries,
            context_compactions: s.compactions,
            context_degraded: s.degraded,
        }
    };
    if let Some(f) = on_outcome {
        let _ = f.call1(&JsValue::UNDEFINED, &to_js(&report)?);
    }
    Ok(())
}

#[derive(Default)]
struct HookState {
    boundaries: u32,
    compactions: u32,
    degraded: bool,
}

/// A ready `prepareNextTurnWithContext` for pi-agent-core's `Agent` (ADR 0299 clause 3:
/// SubagentRun wires it). After each turn it runs the boundary step on
/// `ctx.context.messages`; it resolves `undefined` when nothing changes, else
/// `{context: {...ctx.context, messages}}`. Between calls it keeps the counts the host
/// records (`contextCompactions`, `contextDegraded`) and reports every boundary to
/// `onOutcome`. `overheadTokens` defaults to the context's system prompt and tools.
/// Call it once yourself before the first request (with `{context}`) as a pre-flight.
///
/// @example
/// ```js
/// const agent = new Agent({ streamFn, initialState,
///   prepareNextTurnWithContext: createPrepareNextTurn({ budget, modelId, summarize,
///     onOutcome: (r) => { details.contextCompactions = r.contextCompactions; details.contextDegraded = r.contextDegraded; } }) });
/// ```
/// @throws DelegateContextError `INVALID_INPUT` for a bad configuration (the hook's
/// promise rejects with `SUBAGENT_CONTEXT_OVERFLOW` or `ABORTED`)
#[wasm_bindgen(js_name = createPrepareNextTurn, unchecked_return_type = "PrepareNextTurnHook")]
pub fn create_prepare_next_turn(
    #[wasm_bindgen(unchecked_param_type = "PrepareNextTurnConfig")] config: JsValue,
) -> Result<JsValue, JsValue> {
    let (budget, model_id, options) = turn_config(&config, "config")?;
    let summarize = summarize_fn(field(&config, "summarize", "config")?, "summarize")?;
    let signal = field(&config, "signal", "config")?;
    let on_outcome = field(&config, "onOutcome", "config")?;
    let on_outcome = if present(&on_outcome) {
        Some(summarize_fn(on_outcome, "onOutcome")?)
    } else {
        None
    };
    let state = Rc::new(RefCell::new(HookState::default()));
    let hook = move |ctx: JsValue, loop_signal: JsValue| -> Promise {
        let (budget, model_id, mut options) = (budget, model_id.clone(), options.clone());
        let (summarize, signal, on_outcome, state) = (
            summarize.clone(),
            signal.clone(),
            on_outcome.clone(),
            state.clone(),
        );
        future_to_promise(async move {
            let context = field(&ctx, "context", "ctx")?;
            let messages_js = field(&context, "messages", "ctx.context")?;
            if options.overhead_tokens.is_none() {
                options.overhead_tokens = Some(context_overhead(&context));
            }
            options.now = Some(js_sys::Date::now());
            if aborted(&[signal.clone(), loop_signal.clone()]) {
                return Err(to_js_error(&Error::Aborted));
            }
            if let Some(p) = quick(&messages_js, "ctx.context.messages", &budget, &options)? {
                let out = DelegateTurnOutcome::unchanged(
                    Vec::new(),
                    p.tokens,
                    p.tokens,
                    p.hard_limit,
                    p.turn,
                );
                report(&state, &on_outcome, &out)?;
                return Ok(JsValue::UNDEFINED);
            }
            let messages = messages_from_js(messages_js.clone(), "ctx.context.messages")?;
            let args = TurnArgs {
                messages,
                messages_js,
                budget,
                model_id,
                options,
            };
            let out = run_turn(&args, summarize, vec![signal, loop_signal]).await?;
            report(&state, &on_outcome, &out)?;
            if out.outcome == TurnOutcomeKind::Unchanged {
                return Ok(JsValue::UNDEFINED);
            }
            let next: Object = Object::assign(&Object::new(), context.unchecked_ref());
            Reflect::set(
                &next,
                &JsValue::from_str("messages"),
                &messages_to_js(&out.messages, &args.messages, &args.messages_js)?,
            )?;
            let result = Object::new();
            Reflect::set(&result, &JsValue::from_str("context"), &next)?;
            Ok(result.into())
        })
    };
    let closure = Closure::<dyn FnMut(JsValue, JsValue) -> Promise>::new(hook);
    Ok(closure.into_js_value())
}

/// ADR 0299 clause 6: the first alternative whose own budget fits the carried context,
/// and a `modelFailures` entry `{model: "providerId/modelId", code: "CONTEXT_TOO_LARGE",
/// message}` for each one skipped before it. `model` is null when none fits.
#[wasm_bindgen(js_name = selectFallbackModel, unchecked_return_type = "FallbackSelection")]
pub fn select_fallback_model(
    #[wasm_bindgen(unchecked_param_type = "FallbackInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(field(&input, "messages", "input")?, "messages")?;
    let candidates: Vec<FallbackCandidate> =
        from_js(field(&input, "candidates", "input")?, "candidates")?;
    let ov: Option<f64> = from_js(field(&input, "overheadTokens", "input")?, "overheadTokens")?;
    let ov = ov
        .filter(|x| x.is_finite() && *x > 0.0)
        .map_or(0, |x| x.ceil() as u64);
    to_js(&throw(fallback::select_fallback_model(
        &messages,
        &candidates,
        ov,
    ))?)
}

/// host-contract §5: a provider error is `CONTEXT_TOO_LARGE` (not retriable) for HTTP
/// 413, or 400/422 whose message names a context overflow. Accepts `{status, message}`
/// or an `Error` with `status` (or `statusCode`).
#[wasm_bindgen(js_name = classifyProviderError, unchecked_return_type = "ProviderErrorClass")]
pub fn classify_provider_error(
    #[wasm_bindgen(unchecked_param_type = "ProviderError | Error")] error: JsValue,
) -> Result<JsValue, JsValue> {
    if !error.is_object() {
        return Err(to_js_error(&Error::invalid(
            "error",
            "expected an object with status and message",
        )));
    }
    let get = |k: &str| Reflect::get(&error, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    let status = get("status")
        .as_f64()
        .or_else(|| get("statusCode").as_f64());
    let message = get("message").as_string();
    to_js(&fallback::classify_provider_error(&ProviderError {
        status,
        message,
    }))
}

/// ADR 0299 clause 8: the tools a delegate inherits, minus `SUBAGENT_INHERIT_DENY_TOOLS`
/// (names compared after normalising). Tools are names or tool objects; the ones kept
/// are returned as given (same objects). `new_context` never passes.
#[wasm_bindgen(js_name = filterInheritedTools, unchecked_return_type = "InheritedTools")]
pub fn filter_inherited_tools(
    #[wasm_bindgen(unchecked_param_type = "(string | { name: string })[]")] tools: JsValue,
) -> Result<JsValue, JsValue> {
    if !js_sys::Array::is_array(&tools) {
        return Err(to_js_error(&Error::invalid("tools", "expected an array")));
    }
    let kept = js_sys::Array::new();
    let denied = js_sys::Array::new();
    for (i, t) in js_sys::Array::from(&tools).iter().enumerate() {
        let name = match t.as_string() {
            Some(s) => s,
            None if t.is_object() => Reflect::get(&t, &JsValue::from_str("name"))
                .ok()
                .and_then(|n| n.as_string())
                .ok_or_else(|| {
                    to_js_error(&Error::invalid(
                        format!("tools[{i}].name"),
                        "expected a tool name (string)",
                    ))
                })?,
            None => {
                return Err(to_js_error(&Error::invalid(
                    format!("tools[{i}]"),
                    "expected a tool name or a tool object with a name",
                )))
            }
        };
        if fallback::is_denied_tool(&name) {
            denied.push(&JsValue::from_str(&name));
        } else {
            kept.push(&t);
        }
    }
    let out = Object::new();
    Reflect::set(&out, &JsValue::from_str("tools"), &kept)?;
    Reflect::set(&out, &JsValue::from_str("denied"), &denied)?;
    Ok(out.into())
}

/// `SUBAGENT_INHERIT_DENY_TOOLS`: the tools a delegate never inherits.
#[wasm_bindgen(js_name = subagentInheritDenyTools, unchecked_return_type = "string[]")]
pub fn subagent_inherit_deny_tools() -> JsValue {
    fallback::SUBAGENT_INHERIT_DENY_TOOLS
        .iter()
        .map(|s| JsValue::from_str(s))
        .collect::<js_sys::Array>()
        .into()
}
