//! The async drivers of a delegate turn boundary (ADR 0299 clauses 3–5):
//! `runDelegateTurn`, `DelegateContext.runTurn` and the pi `Agent` hook
//! (`createPrepareNextTurn`). Each decodes, then loops over the core's
//! [`crate::compaction::Turn`]: send the request it asks for to the host's `summarize`,
//! hand back what came of it as a [`Reply`], until the turn is done. An abort of the
//! run's signal (or the Agent's) rejects `ABORTED` at once, whether or not the host's
//! summarizer honours its signal; every failure is a rejection with a code.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use serde::Deserialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::convert::{decode, from_js, state_mut_of, state_of, throw, to_js, to_js_error};
use super::host::{self, HostArray};
use super::host_context::HostContext;
use super::messages::{facts_at, last_index_of_role};
use crate::budget::ContextBudget;
use crate::compaction::tally::RunTally;
use crate::compaction::turn::{
    unchanged_below_threshold, DelegateTurnOptions, DelegateTurnOutcome, DelegateTurnPreparation,
    SummaryAnswer, TurnOutcomeKind,
};
use crate::compaction::{complete_turn, Next, Reply, Turn};
use crate::error::Error;
use crate::role::Role;
use crate::stop_reason::StopReason;

#[wasm_bindgen(typescript_custom_section)]
const TS_TURN_TYPES: &str = r#"
/** The host's summarizer: send `request` to a model, resolve with its text (or the assistant message; `stopReason` "error"/"aborted" counts as a failed summary). A rejection, an empty text or a failed message degrades the turn; only the run's own signal aborts it. */
export type SummarizeCallback = (request: SummaryRequest, signal?: AbortSignal) => Promise<string | { content: unknown; stopReason?: string; errorMessage?: string }> | string;
/** Input of `prepareDelegateTurn`: the delegate's context (`messages[0]` is the task brief) and the turn configuration. */
export type DelegateTurnInput = TurnConfig & { messages: AgentMessage[] };
/** Input of `completeDelegateTurn`: the same, and the summary text(s) or failure. */
export type DelegateTurnCompletion = DelegateTurnInput & { answer?: SummaryAnswer };
/** Input of `runDelegateTurn`. */
export type RunDelegateTurnInput = DelegateTurnInput & { summarize: SummarizeCallback; signal?: AbortSignal };
/** What pi-agent-core's Agent passes to `prepareNextTurnWithContext`. */
export interface PrepareNextTurnContext { context: { systemPrompt?: string; messages: AgentMessage[]; tools?: unknown[] } }
/** A ready `prepareNextTurnWithContext` for pi-agent-core's Agent: resolves `undefined` when nothing changes, else the next request's context. Rejects with `SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED` or `INVALID_INPUT`. */
export type PrepareNextTurnHook = <C extends PrepareNextTurnContext>(ctx: C, signal?: AbortSignal) => Promise<{ context: C["context"] } | undefined>;
/** Configuration of `createPrepareNextTurn`. */
export type PrepareNextTurnConfig = TurnConfig & {
  summarize: SummarizeCallback;
  /** The delegate run's signal (the Agent's own signal is honoured too). */
  signal?: AbortSignal;
  /** Called after every boundary with this step and the run's counts; a listener that throws or rejects is ignored (the step's result stands). */
  onOutcome?: (report: DelegateTurnReport) => void;
  /** The run's counts so far (`run` of the previous hook's last report): a hook for a fallback model continues the same run, so a degraded run stays degraded (ADR 0299 §4, §6). */
  run?: RunTally;
};
"#;

/// What every boundary step needs besides the messages: the budget of the model the
/// delegate runs on, that model's id, and the options.
#[derive(Clone, Debug, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TurnConfig {
    /// `contextBudget(model)` of the model the delegate runs on.
    pub budget: ContextBudget,
    /// That model's id (named in `SUBAGENT_CONTEXT_OVERFLOW`).
    pub model_id: String,
    #[serde(default)]
    #[tsify(optional)]
    pub options: DelegateTurnOptions,
}

impl TurnConfig {
    /// Decode a configuration object as a whole (one `JSON.stringify`; callbacks and
    /// signals on it are not read). `options.now` defaults to `Date.now()`.
    pub fn decode(config: &JsValue, path: &str) -> Result<TurnConfig, Error> {
        if !host::is_object(config) {
            return Err(Error::invalid(path, "expected an object"));
        }
        let mut config: TurnConfig = decode(config, path)?;
        if config.options.now.is_none() {
            config.options.now = Some(js_sys::Date::now());
        }
        Ok(config)
    }

    /// Read `budget`, `modelId` and `options` of `input` (the rest of it, messages or
    /// callbacks, is not touched). `options.now` defaults to `Date.now()`.
    pub fn read(input: &JsValue, path: &str) -> Result<TurnConfig, Error> {
        if !host::is_object(input) {
            return Err(Error::invalid(path, "expected an object"));
        }
        let field = |key: &str| -> Result<JsValue, Error> { host::prop(input, key, path) };
        let budget: ContextBudget = decode(&field("budget")?, "budget")?;
        let model_id: String = decode(&field("modelId")?, "modelId")?;
        let options = field("options")?;
        let mut options: DelegateTurnOptions = if options.is_undefined() || options.is_null() {
            DelegateTurnOptions::default()
        } else {
            decode(&options, "options")?
        };
        if options.now.is_none() {
            options.now = Some(js_sys::Date::now());
        }
        Ok(TurnConfig {
            budget,
            model_id,
            options,
        })
    }

    /// Begin a boundary over `ctx` with this configuration.
    pub fn begin(&self, ctx: &HostContext) -> Result<Turn, JsValue> {
        throw(Turn::begin(
            ctx.core(),
            &self.budget,
            &self.model_id,
            &self.options,
        ))
    }

    /// The boundary decision over `ctx` (`prepareDelegateTurn`, `DelegateContext.prepareTurn`).
    pub fn prepare(&self, ctx: &HostContext) -> Result<JsValue, JsValue> {
        to_js(&self.begin(ctx)?.assessment().preparation(&self.budget))
    }

    /// The second half over `ctx` with `answer` (`completeDelegateTurn`,
    /// `DelegateContext.completeTurn`): the outcome, and `ctx` rewritten to it.
    pub fn complete(
        &self,
        ctx: &mut HostContext,
        answer: &SummaryAnswer,
    ) -> Result<JsValue, JsValue> {
        let out = throw(complete_turn(
            ctx.core(),
            &self.budget,
            &self.model_id,
            &self.options,
            answer,
        ))?;
        ctx.apply(&out)
    }
}

/// `answer` of a completion input.
pub fn answer_of(input: &JsValue) -> Result<SummaryAnswer, JsValue> {
    let answer = throw(host::prop(input, "answer", "input"))?;
    if answer.is_undefined() || answer.is_null() {
        return Ok(SummaryAnswer::default());
    }
    from_js(answer, "answer")
}

/// A boundary step's configuration plus the host's summarizer and signal.
pub struct TurnDriver {
    pub config: TurnConfig,
    summarize: Function,
    signal: JsValue,
}

impl TurnDriver {
    /// Read `summarize`, `signal` and the [`TurnConfig`] of `input` (which may hold the
    /// messages too: its fields are read one by one).
    pub fn read(input: &JsValue, path: &str) -> Result<TurnDriver, Error> {
        Self::with_config(input, path, TurnConfig::read(input, path)?)
    }

    /// [`TurnDriver::read`] for a configuration that holds no messages (decoded whole).
    pub fn decode(config: &JsValue, path: &str) -> Result<TurnDriver, Error> {
        Self::with_config(config, path, TurnConfig::decode(config, path)?)
    }

    fn with_config(input: &JsValue, path: &str, config: TurnConfig) -> Result<TurnDriver, Error> {
        let summarize = function_arg(host::prop(input, "summarize", path)?, "summarize")?;
        let signal = host::prop(input, "signal", path)?;
        Ok(TurnDriver {
            config,
            summarize,
            signal,
        })
    }
}

fn function_arg(v: JsValue, path: &str) -> Result<Function, Error> {
    v.dyn_into::<Function>()
        .map_err(|_| Error::invalid(path, "expected a function"))
}

#[wasm_bindgen(inline_js = r#"
// {...context, messages}, or the exception a getter of `context` threw.
export function dc_with_messages(context, messages) {
  return { ...context, messages };
}
// Tell a listener; what it throws or rejects with is dropped (it must not break the loop,
// and a rejection nobody handles would end a Node process).
export function dc_notify(listener, value) {
  try {
    const p = listener(value);
    if (p !== null && typeof p === "object" && typeof p.then === "function") p.then(undefined, () => {});
  } catch (e) { }
}
export function dc_aborted(signals) {
  for (const s of signals) { try { if (s && s.aborted === true) return true; } catch (e) { } }
  return false;
}
export function dc_any_signal(signals) {
  const live = signals.filter((s) => s != null);
  if (live.length === 0) return undefined;
  if (live.length === 1) return live[0];
  try { if (typeof AbortSignal !== "undefined" && typeof AbortSignal.any === "function") return AbortSignal.any(live); } catch (e) { }
  return live[0];
}
// Calls summarize(request, signal) and settles with {value}, {error} or {aborted}: an
// abort of any of `signals` wins at once, whatever the summarizer does; the listeners
// are removed when it settles.
export function dc_summarize(summarize, request, signal, signals) {
  return new Promise((resolve) => {
    let done = false;
    const live = [];
    const finish = (r) => {
      if (done) return;
      done = true;
      for (const s of live) { try { s.removeEventListener("abort", onAbort); } catch (e) { } }
      resolve(r);
    };
    const onAbort = () => finish({ aborted: true });
    for (const s of signals) {
      try {
        if (!s) continue;
        if (s.aborted === true) { finish({ aborted: true }); return; }
        if (typeof s.addEventListener === "function") { s.addEventListener("abort", onAbort); live.push(s); }
      } catch (e) { }
    }
    let p;
    try { p = summarize(request, signal); } catch (error) { finish({ error }); return; }
    Promise.resolve(p).then((value) => finish({ value }), (error) => finish({ error }));
  });
}
// What a summarizer resolved with, read without throwing.
export function dc_reply(v) {
  try {
    if (typeof v === "string") return { kind: "text", text: v };
    if (v === null || typeof v !== "object") return { kind: "unreadable" };
    const stopReason = typeof v.stopReason === "string" ? v.stopReason : undefined;
    const errorMessage = typeof v.errorMessage === "string" ? v.errorMessage : undefined;
    const c = v.content;
    let text;
    if (typeof c === "string") text = c;
    else if (Array.isArray(c)) text = c.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text).join("\n");
    else if (typeof v.text === "string") text = v.text;
    else if (stopReason === undefined) return { kind: "unreadable" };
    return { kind: "message", text: text ?? "", stopReason, errorMessage };
  } catch (error) {
    return { kind: "rejected", error };
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    fn dc_with_messages(context: &JsValue, messages: &Array) -> Result<JsValue, JsValue>;
    fn dc_notify(listener: &Function, value: &JsValue);
    fn dc_aborted(signals: &Array) -> bool;
    fn dc_any_signal(signals: &Array) -> JsValue;
    fn dc_summarize(
        summarize: &Function,
        request: &JsValue,
        signal: &JsValue,
        signals: &Array,
    ) -> Promise;
    fn dc_reply(v: &JsValue) -> JsValue;
}

fn str_field(v: &JsValue, key: &str) -> Option<String> {
    Reflect::get(v, &JsValue::from_str(key))
        .ok()
        .and_then(|s| s.as_string())
}

/// The `error` a settled or read result carries.
fn thrown_in(v: &JsValue) -> JsValue {
    Reflect::get(v, &JsValue::from_str("error")).unwrap_or(JsValue::UNDEFINED)
}

/// Send `request` to `summarize` and read what came of it.
async fn ask(summarize: &Function, request: &JsValue, signals: &Array) -> Reply {
    let signal = dc_any_signal(signals);
    let settled = JsFuture::from(dc_summarize(summarize, request, &signal, signals)).await;
    let Ok(settled) = settled else {
        return Reply::Rejected("the summary request failed".into());
    };
    if dc_aborted(signals) || Reflect::has(&settled, &JsValue::from_str("aborted")).unwrap_or(false)
    {
        return Reply::RunAborted;
    }
    if Reflect::has(&settled, &JsValue::from_str("error")).unwrap_or(false) {
        return Reply::Rejected(host::describe_thrown(&thrown_in(&settled)));
    }
    let value = Reflect::get(&settled, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
    let reply = dc_reply(&value);
    match str_field(&reply, "kind").as_deref() {
        Some("text") => Reply::Text(str_field(&reply, "text").unwrap_or_default()),
        Some("message") => Reply::Message {
            text: str_field(&reply, "text").unwrap_or_default(),
            stop_reason: str_field(&reply, "stopReason")
                .as_deref()
                .map(StopReason::parse),
            error_message: str_field(&reply, "errorMessage"),
        },
        Some("rejected") => Reply::Rejected(format!(
            "reading the summary threw: {}",
            host::describe_thrown(&thrown_in(&reply))
        )),
        _ => Reply::Unreadable,
    }
}

/// Drive one boundary over `context` to its outcome (the context itself is not changed:
/// the caller applies the outcome). `more_signals` are aborts besides the driver's own
/// (the Agent's signal).
pub async fn drive_turn(
    context: &Rc<RefCell<HostContext>>,
    driver: &TurnDriver,
    more_signals: &[JsValue],
) -> Result<DelegateTurnOutcome, JsValue> {
    let signals: Array = std::iter::once(driver.signal.clone())
        .chain(more_signals.iter().cloned())
        .collect();
    if dc_aborted(&signals) {
        return Err(to_js_error(&Error::Aborted));
    }
    let config = &driver.config;
    let mut turn = config.begin(&*state_of(context, "delegate context")?)?;
    loop {
        let request = {
            let ctx = state_of(context, "delegate context")?;
            match throw(turn.next(ctx.core()))? {
                Next::Done(out) => return Ok(out),
                Next::Summarize(request) => to_js(request)?,
            }
        };
        let reply = ask(&driver.summarize, &request, &signals).await;
        turn.reply(reply);
    }
}

/// The below-threshold answer without reading the whole context: newest first, down to
/// the last fresh provider usage. `None` when the full path is needed.
fn below_threshold_check(
    array: &HostArray,
    config: &TurnConfig,
) -> Result<Option<DelegateTurnPreparation>, Error> {
    if array.is_empty() {
        return Ok(None);
    }
    let Some(last_summary) = last_index_of_role(array, Role::CompactionSummary, array.len()) else {
        return Ok(None);
    };
    let brief = facts_at(array, 0)?;
    let summary = match last_summary {
        Some(k) => Some((k, facts_at(array, k)?)),
        None => None,
    };
    unchanged_below_threshold(
        array.len(),
        &brief,
        summary.as_ref().map(|(k, f)| (*k, f)),
        &config.budget,
        &config.options,
        |i| facts_at(array, i),
    )
}

/// The synchronous decision at a delegate turn boundary (ADR 0299 clause 3):
/// `action` `"unchanged"` (below hardLimit), `"summarize"` (send `requests`, in order,
/// then call `completeDelegateTurn` with the texts) or `"degrade"` (call
/// `completeDelegateTurn` without texts). Below the threshold it reads the messages
/// newest first only down to the last provider usage.
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
    let config = throw(TurnConfig::read(&input, "input"))?;
    let messages = throw(host::prop(&input, "messages", "input"))?;
    let array = throw(HostArray::new(&messages, "messages", "messages"))?;
    if let Some(p) = throw(below_threshold_check(&array, &config))? {
        return to_js(&p);
    }
    config.prepare(&throw(HostContext::of(&messages, "messages"))?)
}

/// The second half of a boundary step: the next context for the summary text(s) in
/// `answer` (or `answer.error`): `outcome` `"compacted"`, `"degraded"` (history lost,
/// brief + newest messages, a note saying so) or `"unchanged"`, with
/// `contextCompactions` and `contextDegraded` for the delegation summary. Every kept
/// message is your own object.
///
/// @throws DelegateContextError `SUBAGENT_CONTEXT_OVERFLOW` (not retriable; `modelId`, `tokens`, `hardLimit`) when even the brief and the newest messages do not fit
#[wasm_bindgen(js_name = completeDelegateTurn, unchecked_return_type = "DelegateTurnOutcome")]
pub fn complete_delegate_turn(
    #[wasm_bindgen(unchecked_param_type = "DelegateTurnCompletion")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let config = throw(TurnConfig::read(&input, "input"))?;
    let answer = answer_of(&input)?;
    let messages = throw(host::prop(&input, "messages", "input"))?;
    config.complete(&mut throw(HostContext::of(&messages, "messages"))?, &answer)
}

/// The whole boundary step, asynchronously: decide, call `summarize(request, signal)`
/// for each summary request, and resolve with the outcome and the next context (your own
/// message objects for every message kept). A rejected, failed or empty summary
/// degrades (clause 4); an abort of `signal` rejects with code `ABORTED` at once and
/// changes nothing.
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
    // everything synchronous happens now (the input is read as it is at the call)
    let start = start_run_turn(&input);
    future_to_promise(async move {
        let (context, driver) = match start.map_err(|e| to_js_error(&e))? {
            RunStart::Decided(unchanged) => return Ok(unchanged),
            RunStart::Drive(context, driver) => (context, driver),
        };
        let out = drive_turn(&context, &driver, &[]).await?;
        let js = state_mut_of(&context, "delegate context")?.apply(&out)?;
        Ok(js)
    })
}

/// How a `runDelegateTurn` call starts.
enum RunStart {
    /// Below the threshold (read newest first only): the outcome.
    Decided(JsValue),
    /// The whole context, to drive through the boundary.
    Drive(Rc<RefCell<HostContext>>, TurnDriver),
}

fn start_run_turn(input: &JsValue) -> Result<RunStart, Error> {
    let driver = TurnDriver::read(input, "input")?;
    let messages = host::prop(input, "messages", "input")?;
    let array = HostArray::new(&messages, "messages", "messages")?;
    let aborted = dc_aborted(&std::iter::once(driver.signal.clone()).collect());
    if !aborted {
        if let Some(p) = below_threshold_check(&array, &driver.config)? {
            let out = DelegateTurnOutcome::unchanged(
                array.len(),
                p.tokens,
                p.tokens,
                p.hard_limit,
                p.turn,
            );
            let js = to_js(&out).map_err(|_| Error::invalid("(result)", "not encodable"))?;
            // nothing changes: the caller's own array
            let _ = Reflect::set(&js, &JsValue::from_str("messages"), array.value());
            return Ok(RunStart::Decided(js));
        }
    }
    let ctx = HostContext::of(&messages, "messages")?;
    Ok(RunStart::Drive(Rc::new(RefCell::new(ctx)), driver))
}

/// What `createPrepareNextTurn`'s `onOutcome` receives after each boundary.
#[derive(Clone, Debug, serde::Serialize, Tsify)]
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
    pub reason: Option<crate::compaction::DegradeReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub summary_error: Option<String>,
    /// Boundaries seen so far by this hook.
    pub boundaries: u32,
    /// For the delegation summary: compactions (and degradations) so far.
    pub context_compactions: u32,
    /// For the delegation summary: whether the run has lost history.
    pub context_degraded: bool,
    /// The run's counts so far (give them to `reportForParent` with the final report).
    pub run: RunTally,
}

impl DelegateTurnReport {
    fn new(out: &DelegateTurnOutcome, run: &RunTally) -> Self {
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
            boundaries: run.boundaries,
            context_compactions: run.context_compactions,
            context_degraded: run.context_degraded,
            run: run.clone(),
        }
    }
}

/// The state one hook keeps across the Agent's turns.
struct HookState {
    context: Rc<RefCell<HostContext>>,
    run: RunTally,
    /// The system prompt and tools the overhead was computed for, and the result.
    overhead: Option<(JsValue, JsValue, f64)>,
    busy: bool,
}

/// Tokens of the Agent context that are not messages: system prompt and tool schemas
/// (`requestOverheadTokens`), recomputed only when they change.
fn context_overhead(state: &mut HookState, context: &JsValue) -> Result<f64, Error> {
    let system = host::prop(context, "systemPrompt", "ctx.context")?;
    let tools = host::prop(context, "tools", "ctx.context")?;
    if let Some((s, t, v)) = &state.overhead {
        if Object::is(s, &system) && Object::is(t, &tools) {
            return Ok(*v);
        }
    }
    let tools_value = if tools.is_undefined() || tools.is_null() {
        None
    } else {
        Some(
            super::convert::js_to_value(tools.clone(), "ctx.context.tools")
                .map_err(|_| Error::invalid("ctx.context.tools", "not JSON data"))?,
        )
    };
    let v =
        crate::tokens::request_overhead_tokens(system.as_string().as_deref(), tools_value.as_ref())
            as f64;
    state.overhead = Some((system, tools, v));
    Ok(v)
}

/// One boundary of the hook: sync the context with the Agent's messages, decide, and
/// return the next context (or `undefined`).
async fn hook_step(
    state: Rc<RefCell<HookState>>,
    driver: Rc<TurnDriver>,
    on_outcome: Option<Function>,
    ctx: JsValue,
    loop_signal: JsValue,
) -> Result<JsValue, JsValue> {
    let (context, config, holder) = {
        let mut s = state_mut_of(&state, "hook")?;
        if s.busy {
            return Err(to_js_error(&Error::InvalidState {
                message: "the hook was called again before its previous call settled".into(),
            }));
        }
        let context = throw(host::prop(&ctx, "context", "ctx"))?;
        if !host::is_object(&context) {
            return Err(to_js_error(&Error::invalid(
                "ctx.context",
                "expected an object",
            )));
        }
        let messages = throw(host::prop(&context, "messages", "ctx.context"))?;
        let mut config = driver.config.clone();
        if config.options.overhead_tokens.is_none() {
            config.options.overhead_tokens = Some(throw(context_overhead(&mut s, &context))?);
        }
        config.options.now = Some(js_sys::Date::now());
        throw(state_mut_of(&s.context, "hook")?.sync(&messages, "ctx.context.messages"))?;
        s.busy = true;
        (context, config, s.context.clone())
    };
    let step = TurnDriver {
        config,
        summarize: driver.summarize.clone(),
        signal: driver.signal.clone(),
    };
    let result = drive_turn(&holder, &step, &[loop_signal]).await;
    state_mut_of(&state, "hook")?.busy = false;
    let out = result?;
    let report = {
        let mut s = state_mut_of(&state, "hook")?;
        s.run.record(&out);
        DelegateTurnReport::new(&out, &s.run)
    };
    let next = if out.outcome == TurnOutcomeKind::Unchanged {
        JsValue::UNDEFINED
    } else {
        let encoded = state_mut_of(&holder, "hook")?.apply(&out)?;
        let messages = Reflect::get(&encoded, &JsValue::from_str("messages"))?;
        // the Agent pushes its next messages into the array it is given: give it a copy,
        // so the context's own array stays the known prefix
        let messages: Array = messages.unchecked_into();
        let given = messages.slice(0, messages.length());
        let next = dc_with_messages(&context, &given)
            .map_err(|e| to_js_error(&host::threw("ctx.context", &e)))?;
        let result = Object::new();
        Reflect::set(&result, &JsValue::from_str("context"), &next)?;
        result.into()
    };
    if let Some(f) = on_outcome {
        if let Ok(r) = to_js(&report) {
            dc_notify(&f, &r);
        }
    }
    Ok(next)
}

/// A ready `prepareNextTurnWithContext` for pi-agent-core's `Agent` (ADR 0299 clause 3:
/// SubagentRun wires it). It keeps the delegate's context in wasm memory: after each
/// turn it reads only the messages the Agent appended (it recognises the array it handed
/// back, and reloads when the array was replaced), so its cost per turn is flat in the
/// history's length. It resolves `undefined` when nothing changes, else
/// `{context: {...ctx.context, messages}}`; between calls it keeps the run's counts
/// (`contextCompactions`, `contextDegraded`, what was dropped) and reports every
/// boundary to `onOutcome`. `overheadTokens` defaults to the context's system prompt and
/// tools. Call it once yourself before the first request (with `{context}`) as a
/// pre-flight. `run` (the previous hook's last `run`) continues a run's counts on a
/// fallback model.
///
/// @example
/// ```js
/// const agent = new Agent({ streamFn, initialState,
///   prepareNextTurnWithContext: createPrepareNextTurn({ budget, modelId, summarize,
///     onOutcome: (r) => { details.contextCompactions = r.contextCompactions; details.contextDegraded = r.contextDegraded; } }) });
/// ```
/// @throws DelegateContextError `INVALID_INPUT` for a bad configuration (the hook's
/// promise rejects with `SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED` or `INVALID_INPUT`)
#[wasm_bindgen(js_name = createPrepareNextTurn, unchecked_return_type = "PrepareNextTurnHook")]
pub fn create_prepare_next_turn(
    #[wasm_bindgen(unchecked_param_type = "PrepareNextTurnConfig")] config: JsValue,
) -> Result<JsValue, JsValue> {
    let driver = Rc::new(throw(TurnDriver::read(&config, "config"))?);
    let on_outcome = throw(host::prop(&config, "onOutcome", "config"))?;
    let on_outcome = if on_outcome.is_undefined() || on_outcome.is_null() {
        None
    } else {
        Some(throw(function_arg(on_outcome, "onOutcome"))?)
    };
    let run = throw(host::prop(&config, "run", "config"))?;
    let previous: Option<RunTally> = if run.is_undefined() || run.is_null() {
        None
    } else {
        Some(throw(decode(&run, "config.run"))?)
    };
    let state = Rc::new(RefCell::new(HookState {
        context: Rc::new(RefCell::new(HostContext::new())),
        run: RunTally::continued(previous.as_ref()),
        overhead: None,
        busy: false,
    }));
    let hook = move |ctx: JsValue, loop_signal: JsValue| -> Promise {
        future_to_promise(hook_step(
            state.clone(),
            driver.clone(),
            on_outcome.clone(),
            ctx,
            loop_signal,
        ))
    };
    let closure = Closure::<dyn FnMut(JsValue, JsValue) -> Promise>::new(hook);
    Ok(closure.into_js_value())
}
