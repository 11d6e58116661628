//! The boundary exports (ADR 0299 clauses 3–5): `prepareDelegateTurn`,
//! `completeDelegateTurn`, and the async ones, `runDelegateTurn`,
//! `DelegateContext.runTurn` and the pi `Agent` hook (`createPrepareNextTurn`). An async
//! one decodes, then hands a [`TurnStep`] (the core's [`crate::compaction::Turn`] beside
//! the host's objects) to `host.js`'s `dc_drive`, which loops: it asks the step for the
//! request to send to the host's `summarize`, awaits the call and hands back what came
//! of it (a [`Settled`], which the core reads as a [`Reply`]), until the turn is done.
//! So nothing here awaits (issue 17 §1, §7: no Rust futures in the module); the
//! JavaScript only calls and waits. An abort of the run's signal (or the Agent's) rejects
//! `ABORTED` at once, whether or not the host's summarizer honours its signal; every
//! failure is a rejection with a code. The hook's state (its counts, its lock, its
//! request overhead, its report) is the core's [`Run`]; what it keeps here besides is
//! the host's objects.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{
    decode, from_js, js_to_value, optional, state_mut_of, state_of, throw, to_js, to_js_error,
};
use super::host::{self, HostArray};
use super::host_context::HostContext;
use super::messages::{facts_at, last_index_of_role};
use crate::budget::ContextBudget;
use crate::compaction::assess::unchanged_below_threshold;
use crate::compaction::run::{Held, Run, Settled, TurnConfig};
use crate::compaction::step::Turn;
use crate::compaction::tally::RunTally;
use crate::compaction::turn::{
    DelegateTurnOptions, DelegateTurnOutcome, DelegateTurnPreparation, SummaryAnswer,
    SummaryRequest, TurnOutcomeKind,
};
use crate::compaction::{Next, Reply};
use crate::error::Error;
use crate::role::Role;
use crate::text_build::Owned;

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

/// Read `budget`, `modelId` and `options` of `input`, one by one (the rest of it,
/// messages or callbacks, is not touched): the one decoder of a [`TurnConfig`].
pub fn read_config(input: &JsValue, path: &str) -> Result<TurnConfig, Error> {
    if !host::is_object(input) {
        return Err(Error::invalid(path, "expected an object"));
    }
    if let Some(config) = host::turn_config_text(input).and_then(config_of_text) {
        return Ok(config);
    }
    let field = |key: &str| -> Result<JsValue, Error> { host::prop(input, key, path) };
    let budget: ContextBudget = decode(&field("budget")?, &host::join(path, "budget"))?;
    let model_id: String = decode(&field("modelId")?, &host::join(path, "modelId"))?;
    let options = field("options")?;
    let options: DelegateTurnOptions =
        optional(Some(options), |o| decode(&o, &host::join(path, "options")))?.unwrap_or_default();
    Ok(TurnConfig {
        budget,
        model_id,
        options,
    })
}

/// A summary request as a JavaScript object, its prompt crossing once, as a string: the
/// request is written as JSON with an empty prompt and the prompt set into the parsed
/// object (written into the JSON text, escaped and parsed back, the prompt of a
/// 730-message history was a third of a compaction's time in wasm).
fn request_to_js(request: &SummaryRequest) -> Result<JsValue, JsValue> {
    let mut shell = request.clone();
    let prompt = shell.take_prompt();
    let value = to_js(&shell)?;
    if let Some(prompt) = prompt {
        dc_set_prompt(&value, &prompt);
    }
    Ok(value)
}

/// The configuration in `text` (`{budget, modelId, options}` as `dc_turn_config_text`
/// wrote it), each field decoded from its part of the text exactly as [`read_config`]
/// decodes it alone; `None` when one of them is bad (`read_config` then reads them one
/// by one and names it).
///
/// A host passes the same configuration at every boundary: the last text and what it
/// decoded to are kept, and the same text again is not parsed again (parsing and decoding
/// it were a third of a `prepareTurn` that had nothing new).
fn config_of_text(text: String) -> Option<TurnConfig> {
    use crate::decode::Decode;
    thread_local! {
        static LAST: RefCell<Option<(String, TurnConfig)>> = const { RefCell::new(None) };
    }
    if let Some(config) = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(seen, _)| *seen == text)
            .map(|(_, config)| config.clone())
    }) {
        return Some(config);
    }
    let fields = crate::js_text::parse_from_js(&text, crate::js_text::parse_value).ok()?;
    let budget = ContextBudget::decode(&fields["budget"]).ok()?;
    let model_id = String::decode(&fields["modelId"]).ok()?;
    let options = match &fields["options"] {
        serde_json::Value::Null => DelegateTurnOptions::default(),
        options => DelegateTurnOptions::decode(options).ok()?,
    };
    let config = TurnConfig {
        budget,
        model_id,
        options,
    };
    LAST.set(Some((text, config.clone())));
    Some(config)
}

/// The boundary decision over `ctx` (`prepareDelegateTurn`, `DelegateContext.prepareTurn`).
pub fn prepare(config: &TurnConfig, ctx: &HostContext) -> Result<JsValue, JsValue> {
    let turn = throw(config.begin(ctx.core(), js_sys::Date::now()))?;
    to_js(&turn.decision().preparation(&config.budget))
}

/// The second half over `ctx` with `answer` (`completeDelegateTurn`,
/// `DelegateContext.completeTurn`): the outcome, and `ctx` rewritten to it.
pub fn complete(
    config: &TurnConfig,
    ctx: &mut HostContext,
    answer: &SummaryAnswer,
) -> Result<JsValue, JsValue> {
    let out = throw(config.complete(ctx.core(), js_sys::Date::now(), answer))?;
    ctx.apply(&out)
}

/// `answer` of a completion input.
pub fn answer_of(input: &JsValue) -> Result<SummaryAnswer, JsValue> {
    let answer = throw(host::prop(input, "answer", "input"))?;
    Ok(optional(Some(answer), |a| from_js(a, "answer"))?.unwrap_or_default())
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
        let config = read_config(input, path)?;
        let summarize = function_arg(host::prop(input, "summarize", path)?, "summarize")?;
        let signal = host::prop(input, "signal", path)?;
        Ok(TurnDriver {
            config,
            summarize,
            signal,
        })
    }
}

#[inline(never)]
fn function_arg(v: JsValue, path: &str) -> Result<Function, Error> {
    v.dyn_into::<Function>()
        .map_err(|_| Error::invalid(path, "expected a function"))
}

// src/wasm/host.js says what each does.
#[wasm_bindgen(module = "/src/wasm/host.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn dc_with_messages(context: &JsValue, messages: &Array) -> Result<JsValue, JsValue>;
    fn dc_notify(listener: &Function, value: &JsValue);
    fn dc_aborted(signals: &Array) -> bool;
    fn dc_drive(step: TurnStep) -> Promise;
    fn dc_hook(run: HookRun) -> Function;
    fn dc_set_prompt(request: &JsValue, text: &str);
}

impl TurnDriver {
    /// Drive one boundary over `context` (`held`: the lock of its run, released when the
    /// step ends, whichever way): `host.js`'s `dc_drive` awaits the summarizer between
    /// the step's calls; `end` says what the outcome becomes.
    pub(super) fn drive(
        self,
        context: Rc<RefCell<HostContext>>,
        held: Option<Held>,
        end: End,
    ) -> Promise {
        let signals = std::iter::once(self.signal).collect();
        match TurnStep::start(context, &self.config, self.summarize, signals, held, end) {
            Ok(step) => dc_drive(step),
            Err(e) => Promise::reject(&e),
        }
    }
}

/// What a driven boundary's outcome becomes.
pub(super) enum End {
    /// `runDelegateTurn`, `DelegateContext.runTurn`: the outcome applied to the context,
    /// and counted in the handle's run when there is one.
    Apply(Option<Rc<RefCell<RunTally>>>),
    /// The hook's boundary: recorded in its run, the next context (or `undefined`) for
    /// the Agent's `ctx.context`, the listener told.
    Hook {
        state: Rc<RefCell<HookState>>,
        agent_context: JsValue,
    },
}

/// One boundary being driven, for `host.js`'s `dc_drive` (not part of the API): it asks
/// [`TurnStep::next_request`] for a request, awaits the host's summarizer and hands what came
/// of it to [`TurnStep::reply`], until `next` answers `undefined`; then
/// [`TurnStep::finish`]. The decisions are the core's [`Turn`]; this
/// holds the host's objects beside it.
#[wasm_bindgen(skip_typescript)]
pub struct TurnStep {
    context: Rc<RefCell<HostContext>>,
    turn: Turn,
    summarize: Function,
    /// The run's signal and the Agent's: an abort of any ends the boundary `ABORTED`.
    signals: Array,
    outcome: Option<DelegateTurnOutcome>,
    held: Option<Held>,
    end: End,
}

impl TurnStep {
    fn start(
        context: Rc<RefCell<HostContext>>,
        config: &TurnConfig,
        summarize: Function,
        signals: Array,
        held: Option<Held>,
        end: End,
    ) -> Result<TurnStep, JsValue> {
        if dc_aborted(&signals) {
            return Err(to_js_error(&Error::Aborted));
        }
        let turn = {
            let ctx = state_of(&context, "delegate context")?;
            throw(config.begin(ctx.core(), js_sys::Date::now()))?
        };
        Ok(TurnStep {
            context,
            turn,
            summarize,
            signals,
            outcome: None,
            held,
            end,
        })
    }
}

#[wasm_bindgen]
impl TurnStep {
    /// The host's summarizer.
    #[wasm_bindgen(getter, skip_typescript)]
    pub fn summarize(&self) -> Function {
        self.summarize.clone()
    }

    /// The signals whose abort ends the boundary.
    #[wasm_bindgen(getter, skip_typescript)]
    pub fn signals(&self) -> Array {
        self.signals.clone()
    }

    /// The next summary request, or `undefined` once the boundary is decided.
    #[wasm_bindgen(js_name = next, skip_typescript)]
    pub fn next_request(&mut self) -> Result<JsValue, JsValue> {
        let ctx = state_of(&self.context, "delegate context")?;
        match throw(self.turn.next(ctx.core()))? {
            Next::Done(out) => {
                self.outcome = Some(out);
                Ok(JsValue::UNDEFINED)
            }
            Next::Summarize(request) => request_to_js(request),
        }
    }

    /// What the summarizer's call came to (`dc_summarize`'s [`Settled`] object); an
    /// abort of the signals by now wins.
    #[wasm_bindgen(skip_typescript)]
    pub fn reply(&mut self, settled: JsValue) {
        let reply = if dc_aborted(&self.signals) {
            Reply::RunAborted
        } else {
            // dc_summarize never rejects; what it settled with crosses as JSON
            match js_to_value(settled, "summary") {
                Ok(settled) => Settled::from_value(settled),
                Err(e) => Settled::Unreadable {
                    reason: host::describe_thrown(&e),
                },
            }
            .into_reply()
        };
        self.turn.reply(reply);
    }

    /// The outcome, once [`TurnStep::next_request`] answered `undefined`: applied to the context
    /// (the outcome with the next messages), or the hook's answer.
    #[wasm_bindgen(skip_typescript)]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        self.held = None;
        let out = self.outcome.take().ok_or_else(|| {
            to_js_error(&Error::InvalidState {
                message: "the boundary is not decided yet".owned(),
            })
        })?;
        match &self.end {
            End::Apply(tally) => {
                if let Some(tally) = tally {
                    state_mut_of(tally, "delegate context")?.record(&out);
                }
                state_mut_of(&self.context, "delegate context")?.apply(&out)
            }
            End::Hook {
                state,
                agent_context,
            } => hook_end(state, &self.context, agent_context, &out),
        }
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
    let config = throw(read_config(&input, "input"))?;
    let messages = throw(host::prop(&input, "messages", "input"))?;
    let array = throw(HostArray::new(&messages, "messages", "messages"))?;
    if let Some(p) = throw(below_threshold_check(&array, &config))? {
        return to_js(&p);
    }
    prepare(&config, &throw(HostContext::of(&messages, "messages"))?)
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
    let config = throw(read_config(&input, "input"))?;
    let answer = answer_of(&input)?;
    let messages = throw(host::prop(&input, "messages", "input"))?;
    complete(
        &config,
        &mut throw(HostContext::of(&messages, "messages"))?,
        &answer,
    )
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
    match start_run_turn(&input) {
        Ok(RunStart::Decided(unchanged)) => Promise::resolve(&unchanged),
        Ok(RunStart::Drive(context, driver)) => driver.drive(context, None, End::Apply(None)),
        Err(e) => Promise::reject(&to_js_error(&e)),
    }
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

/// The Agent context's system prompt and tools, compared by identity (`Object.is`): the
/// key of the run's request overhead.
struct Overhead {
    system: JsValue,
    tools: JsValue,
}

impl PartialEq for Overhead {
    fn eq(&self, other: &Self) -> bool {
        Object::is(&self.system, &other.system) && Object::is(&self.tools, &other.tools)
    }
}

impl Overhead {
    fn of(context: &JsValue) -> Result<Overhead, Error> {
        Ok(Overhead {
            system: host::prop(context, "systemPrompt", "ctx.context")?,
            tools: host::prop(context, "tools", "ctx.context")?,
        })
    }

    /// `requestOverheadTokens` of the system prompt and tools.
    fn tokens(&self) -> Result<f64, Error> {
        let tools = optional(Some(self.tools.clone()), |t| {
            super::convert::js_to_value(t, "ctx.context.tools")
                .map_err(|_| Error::invalid("ctx.context.tools", "not JSON data"))
        })?;
        let system = self.system.as_string();
        Ok(crate::tokens::request_overhead_tokens(system.as_deref(), tools.as_ref()) as f64)
    }
}

/// What one hook holds across the Agent's turns: the delegate's context (the host's
/// objects beside the core's facts), the core's [`Run`], the host's summarizer, signal
/// and listener.
pub(super) struct HookState {
    context: Rc<RefCell<HostContext>>,
    run: Run<Overhead>,
    summarize: Function,
    signal: JsValue,
    on_outcome: Option<Function>,
}

/// The run behind one `createPrepareNextTurn` hook, for `host.js`'s `dc_hook` (not part
/// of the API): each call of the hook is [`HookRun::begin`], driven by `dc_drive`.
#[wasm_bindgen(skip_typescript)]
pub struct HookRun {
    state: Rc<RefCell<HookState>>,
}

#[wasm_bindgen]
impl HookRun {
    /// One boundary of the hook: take the run's lock, sync the context with the Agent's
    /// messages, and begin the step (`loop_signal`: the Agent's signal).
    #[wasm_bindgen(skip_typescript)]
    pub fn begin(&self, ctx: JsValue, loop_signal: JsValue) -> Result<TurnStep, JsValue> {
        let mut s = state_mut_of(&self.state, "hook")?;
        let held = throw(s.run.lock().acquire())?;
        let context = throw(host::prop(&ctx, "context", "ctx"))?;
        if !host::is_object(&context) {
            return Err(to_js_error(&Error::invalid(
                "ctx.context",
                "expected an object",
            )));
        }
        let messages = throw(host::prop(&context, "messages", "ctx.context"))?;
        let config = throw(s.run.step_config(
            js_sys::Date::now(),
            || Overhead::of(&context),
            Overhead::tokens,
        ))?;
        throw(state_mut_of(&s.context, "hook")?.sync(&messages, "ctx.context.messages"))?;
        let signals = [s.signal.clone(), loop_signal].into_iter().collect();
        let (holder, summarize) = (s.context.clone(), s.summarize.clone());
        drop(s);
        let end = End::Hook {
            state: self.state.clone(),
            agent_context: context,
        };
        TurnStep::start(holder, &config, summarize, signals, Some(held), end)
    }
}

/// The end of one boundary of the hook: the outcome recorded in the run, the next
/// context (or `undefined` when nothing changes), the listener told.
fn hook_end(
    state: &Rc<RefCell<HookState>>,
    holder: &Rc<RefCell<HostContext>>,
    agent_context: &JsValue,
    out: &DelegateTurnOutcome,
) -> Result<JsValue, JsValue> {
    let (report, on_outcome) = {
        let mut s = state_mut_of(state, "hook")?;
        (s.run.record(out), s.on_outcome.clone())
    };
    let next = if out.outcome == TurnOutcomeKind::Unchanged {
        JsValue::UNDEFINED
    } else {
        let encoded = state_mut_of(holder, "hook")?.apply(out)?;
        let messages = Reflect::get(&encoded, &JsValue::from_str("messages"))?;
        // the Agent pushes its next messages into the array it is given: give it a copy,
        // so the context's own array stays the known prefix
        let messages: Array = messages.unchecked_into();
        let given = messages.slice(0, messages.length());
        let next = dc_with_messages(agent_context, &given)
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
    let driver = throw(TurnDriver::read(&config, "config"))?;
    let on_outcome = throw(host::prop(&config, "onOutcome", "config"))?;
    let on_outcome = optional(Some(on_outcome), |f| throw(function_arg(f, "onOutcome")))?;
    let run = throw(host::prop(&config, "run", "config"))?;
    let previous: Option<RunTally> = optional(Some(run), |r| throw(decode(&r, "config.run")))?;
    let state = HookState {
        context: Rc::new(RefCell::new(HostContext::new())),
        run: Run::new(driver.config, previous.as_ref()),
        summarize: driver.summarize,
        signal: driver.signal,
        on_outcome,
    };
    Ok(dc_hook(HookRun {
        state: Rc::new(RefCell::new(state)),
    })
    .into())
}
