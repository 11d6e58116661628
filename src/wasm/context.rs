//! The `DelegateContext` class: one delegate's context in wasm memory (ADR 0299 clauses
//! 3–5), so that a turn boundary moves only the new messages across the boundary and
//! answers from running state. The host's own message objects are kept by reference and
//! handed back as they are: a rewritten context reuses them, never copies.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use super::convert::{
    from_js, js_error, number_arg, optional, range_args, settings_from_js, state_mut_of, state_of,
    throw, to_js,
};
use super::host_context::{HostContext, Synced};
use super::turn::{complete, prepare, read_config, End, TurnDriver};
use crate::ai_sdk::{ProjectOptions, StepInfo};
use crate::compaction::prepare::{self, CompactionSettings};
use crate::compaction::request::serialize_facts;
use crate::compaction::run::{Holder, Lock};
use crate::compaction::tally::RunTally;
use crate::compaction::turn::SummaryAnswer;
use crate::compaction::turn::TurnAction;
use crate::compaction::Next;

/// One delegate's context, kept in wasm memory between turns (ADR 0299 clauses 3–5).
///
/// `push` moves only the new messages across; the token estimate, the cut point, the
/// compaction plan and the boundary decision answer from running state, so a turn costs
/// what is new, not the whole history. A rewritten context (`completeTurn`, `runTurn`)
/// reuses your own message objects. Call `free()` when the delegate's run ends (or
/// declare it with `using`).
///
/// @example
/// ```js
/// const ctx = new DelegateContext([brief]);
/// ctx.push([assistantMessage, toolResult]);          // after each turn: the new messages
/// const out = await ctx.runTurn({ budget, modelId, summarize });
/// if (out.outcome !== "unchanged") messages = out.messages; // the next request's context
/// ctx.free();
/// ```
#[wasm_bindgen(js_name = DelegateContext)]
pub struct DelegateContextHandle {
    inner: Rc<RefCell<HostContext>>,
    /// Held while a `runTurn` awaits the host's summarizer: the context must not change.
    lock: Lock,
    /// The run's counts across this handle's `runTurn`s (`run`).
    tally: Rc<RefCell<RunTally>>,
}

impl DelegateContextHandle {
    #[inline(never)]
    fn state(&self) -> Result<Ref<'_, HostContext>, JsValue> {
        state_of(&self.inner, "DelegateContext")
    }

    #[inline(never)]
    fn state_mut(&self) -> Result<RefMut<'_, HostContext>, JsValue> {
        state_mut_of(&self.inner, "DelegateContext")
    }

    #[inline(never)]
    fn check_idle(&self) -> Result<(), JsValue> {
        throw(self.lock.check())
    }
}

#[wasm_bindgen(js_class = DelegateContext)]
impl DelegateContextHandle {
    /// A context holding `messages` (the brief first), or empty.
    ///
    /// @throws DelegateContextError `INVALID_INPUT` with the `path` of a bad message
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "AgentMessage[]")] messages: Option<JsValue>,
    ) -> Result<DelegateContextHandle, JsValue> {
        let mut ctx = HostContext::new();
        if let Some(messages) = messages.filter(|m| !m.is_null()) {
            throw(ctx.push(&messages, "messages").map(|_| ()))?;
        }
        Ok(DelegateContextHandle {
            inner: Rc::new(RefCell::new(ctx)),
            lock: Lock::new(Holder::RunTurn),
            tally: Rc::new(RefCell::new(RunTally::default())),
        })
    }

    /// Append new messages (only these cross into wasm). An error leaves the context as
    /// it was.
    ///
    /// @returns the number of messages held
    #[wasm_bindgen(unchecked_return_type = "number")]
    pub fn push(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
    ) -> Result<u32, JsValue> {
        self.check_idle()?;
        let mut ctx = self.state_mut()?;
        throw(ctx.push(&messages, "messages"))?;
        Ok(ctx.len() as u32)
    }

    /// Append messages of the Vercel AI SDK (`ModelMessage[]`, `ai` 7): each is read as
    /// the core reads a conversation (its kind, what it counts, its tool calls and
    /// results), the assistant messages' usage and stop reason from `steps` (their
    /// `StepResult`s, in order; absent ones are estimated), files and tool calls as
    /// `options` says. Answers hand back your own `ModelMessage` objects; a summary comes
    /// back as a `compactionSummary` record (render it, `delegate-context/ai` does).
    ///
    /// @returns the number of messages appended
    /// @throws DelegateContextError `INVALID_INPUT` (with `path`) for a message that is not one of the SDK's
    #[wasm_bindgen(js_name = pushModelMessages, unchecked_return_type = "number")]
    pub fn push_model_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "(StepInfo | null | undefined)[]")]
        steps: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "ProjectOptions")] options: Option<JsValue>,
    ) -> Result<u32, JsValue> {
        self.check_idle()?;
        let steps: Vec<Option<StepInfo>> =
            optional(steps, |s| from_js(s, "steps"))?.unwrap_or_default();
        let options: ProjectOptions =
            optional(options, |o| from_js(o, "options"))?.unwrap_or_default();
        let mut ctx = self.state_mut()?;
        let n = throw(ctx.push_model_messages(&messages, &steps, &options, js_sys::Date::now()))?;
        Ok(n as u32)
    }

    /// Bring the context in line with the array the agent loop holds: when it is the
    /// known messages followed by new ones, only the new ones are read; otherwise it is
    /// read whole.
    ///
    /// @returns `"appended"` or `"reloaded"`
    #[wasm_bindgen(unchecked_return_type = "\"appended\" | \"reloaded\"")]
    pub fn sync(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AgentMessage[]")] messages: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.check_idle()?;
        let synced = throw(self.state_mut()?.sync(&messages, "messages"))?;
        Ok(JsValue::from_str(match synced {
            Synced::Appended(_) => "appended",
            Synced::Reloaded => "reloaded",
        }))
    }

    /// The run's counts across this context's `runTurn`s (boundaries, compactions, whether
    /// it lost history): give them to `reportForParent`, or to the hook of a fallback
    /// model (`createPrepareNextTurn`'s `run`).
    #[wasm_bindgen(getter, unchecked_return_type = "RunTally")]
    pub fn run(&self) -> Result<JsValue, JsValue> {
        to_js(&*state_of(&self.tally, "DelegateContext")?)
    }

    /// Continue the counts of an earlier run (a fallback model's context goes on with
    /// the run's tally: a run that degraded stays degraded).
    #[wasm_bindgen(setter, js_name = run)]
    pub fn set_run(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RunTally")] run: JsValue,
    ) -> Result<(), JsValue> {
        let run: RunTally = from_js(run, "run")?;
        *state_mut_of(&self.tally, "DelegateContext")? = run;
        Ok(())
    }

    /// Number of messages held.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> Result<u32, JsValue> {
        Ok(self.state()?.len() as u32)
    }

    /// The messages held, your own objects, in order (a new array).
    #[wasm_bindgen(unchecked_return_type = "AgentMessage[]")]
    pub fn messages(&self) -> Result<JsValue, JsValue> {
        Ok(self.state()?.messages().into())
    }

    /// pi-agent-core's `estimateContextTokens` of the context.
    #[wasm_bindgen(js_name = estimateContextTokens, unchecked_return_type = "ContextTokenEstimate")]
    pub fn estimate_context_tokens(&self) -> Result<JsValue, JsValue> {
        let ctx = self.state()?;
        to_js(&ctx.core().estimate(ctx.len(), 0))
    }

    /// pi-agent-core's `findCutPoint` over the context.
    ///
    /// @param keepRecentTokens - recent tokens to keep verbatim
    /// @param startIndex - first message that may be cut (default 0)
    /// @param endIndex - exclusive end (default: the length)
    #[wasm_bindgen(js_name = findCutPoint, unchecked_return_type = "CutPoint")]
    pub fn find_cut_point(
        &self,
        #[wasm_bindgen(js_name = "keepRecentTokens", unchecked_param_type = "number")]
        keep_recent_tokens: JsValue,
        #[wasm_bindgen(js_name = "startIndex", unchecked_optional_param_type = "number")]
        start_index: Option<JsValue>,
        #[wasm_bindgen(js_name = "endIndex", unchecked_optional_param_type = "number")]
        end_index: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let ctx = self.state()?;
        let keep = number_arg(keep_recent_tokens, "keepRecentTokens")?;
        let range = range_args(start_index, end_index, ctx.len())?;
        to_js(&crate::compaction::plan::find_cut_point(
            ctx.core(),
            range.start,
            range.end,
            keep,
            range.start,
        ))
    }

    /// pi-agent-core's `prepareCompaction` over the context: the parts are your own
    /// message objects.
    ///
    /// @returns the preparation, or `undefined` where pi returns `undefined`
    #[wasm_bindgen(js_name = prepareCompaction, unchecked_return_type = "CompactionPreparation | undefined")]
    pub fn prepare_compaction(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Partial<CompactionSettings>")]
        settings: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let ctx = self.state()?;
        let settings: CompactionSettings = settings_from_js(settings)?;
        ctx.preparation_to_js(prepare::prepare_compaction(ctx.core(), &settings).as_ref())
    }

    /// pi-agent-core's `serializeConversation` of messages `startIndex..endIndex`.
    #[wasm_bindgen(js_name = serializeConversation)]
    pub fn serialize_conversation(
        &self,
        #[wasm_bindgen(js_name = "startIndex", unchecked_optional_param_type = "number")]
        start_index: Option<JsValue>,
        #[wasm_bindgen(js_name = "endIndex", unchecked_optional_param_type = "number")]
        end_index: Option<JsValue>,
    ) -> Result<String, JsValue> {
        let ctx = self.state()?;
        let range = range_args(start_index, end_index, ctx.len())?;
        Ok(serialize_facts(&ctx.core().facts()[range]))
    }

    /// The boundary decision (as `prepareDelegateTurn`), from running state.
    #[wasm_bindgen(js_name = prepareTurn, unchecked_return_type = "DelegateTurnPreparation")]
    pub fn prepare_turn(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TurnConfig")] config: JsValue,
    ) -> Result<JsValue, JsValue> {
        let config = throw(read_config(&config, "config"))?;
        prepare(&config, &*self.state()?)
    }

    /// The boundary when nothing needs to change, decided at once from running state: below
    /// the threshold it is counted in `run` and its outcome returned without `messages`
    /// (the context is your messages as they are); otherwise `undefined` (call `runTurn`).
    /// A per-step check that costs what is new, never the history.
    #[wasm_bindgen(
        js_name = checkTurn,
        unchecked_return_type = "Omit<DelegateTurnOutcome, \"messages\"> | undefined"
    )]
    pub fn check_turn(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TurnConfig")] config: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.check_idle()?;
        let config = throw(read_config(&config, "config"))?;
        let ctx = self.state()?;
        let turn = throw(config.begin(ctx.core(), js_sys::Date::now()))?;
        if turn.decision().action != TurnAction::Unchanged {
            return Ok(JsValue::UNDEFINED);
        }
        match throw(turn.next(ctx.core()))? {
            Next::Done(out) => {
                state_mut_of(&self.tally, "DelegateContext")?.record(&out);
                let js = to_js(&out)?;
                // the context's own range (a run over every message): the caller holds them
                Reflect::delete_property(
                    js.unchecked_ref::<js_sys::Object>(),
                    &JsValue::from_str("messages"),
                )?;
                Ok(js)
            }
            Next::Summarize(_) => Ok(JsValue::UNDEFINED),
        }
    }

    /// The second half (as `completeDelegateTurn`) with the summary texts you obtained;
    /// the context becomes the outcome's `messages`.
    ///
    /// @throws DelegateContextError `SUBAGENT_CONTEXT_OVERFLOW` when even the degraded context does not fit
    #[wasm_bindgen(js_name = completeTurn, unchecked_return_type = "DelegateTurnOutcome")]
    pub fn complete_turn(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TurnConfig & { answer?: SummaryAnswer }")]
        config: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.check_idle()?;
        let answer: SummaryAnswer = super::turn::answer_of(&config)?;
        let config = throw(read_config(&config, "config"))?;
        complete(&config, &mut *self.state_mut()?, &answer)
    }

    /// The whole boundary step (as `runDelegateTurn`): decide, await `summarize` for each
    /// request (an abort of `signal` rejects `ABORTED` at once), and apply the outcome to
    /// the context.
    #[wasm_bindgen(js_name = runTurn, unchecked_return_type = "Promise<DelegateTurnOutcome>")]
    pub fn run_turn(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "TurnConfig & { summarize: SummarizeCallback; signal?: AbortSignal }"
        )]
        config: JsValue,
    ) -> js_sys::Promise {
        // the lock is taken now: a `push` right after this call must not change the
        // context the boundary began from
        let start = self
            .lock
            .acquire()
            .and_then(|held| Ok((held, TurnDriver::read(&config, "config")?)));
        match start {
            Ok((held, driver)) => driver.drive(
                self.inner.clone(),
                Some(held),
                End::Apply(Some(self.tally.clone())),
            ),
            Err(e) => js_sys::Promise::reject(&js_error(e)),
        }
    }
}
