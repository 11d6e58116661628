//! The delegate run machine ([`crate::run`]) for an adapter to drive (`delegate-context/pi`'s
//! `runDelegate`), and the row recorder ([`crate::transcript::recorder`]) of pi's
//! `recordRows`: decode what happened, call the core, encode the step. The run shares
//! the registry it was started on; a run freed before it ended is settled then (start
//! and settle are paired even when a driver forgets).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::convert::{
    from_js, js_to_value, optional, state_mut_of, state_of, throw, to_js, to_js_error,
};
use super::delegation::DelegationRegistry;
use super::host;
use super::messages::facts_of_value;
use crate::ai_sdk::{ProjectOptions, StepInfo};
use crate::delegation::Registry;
use crate::error::Error;
use crate::run::{
    Answer, BoundaryReport, DelegateRun, Event, ModelChoice, RequestEnd, RunAnswer, RunSetup,
    Thrown,
};
use crate::text_build::Owned;
use crate::transcript::from_messages::RowOwner;
use crate::transcript::recorder::{recording_prefix, Recorder};
use crate::transcript::rows_from_value;

#[wasm_bindgen(typescript_custom_section)]
const TS_RUN_TYPES: &str = r#"
/** What a request came to, as `DelegateRun.requestEnded` reads it: the loop's last message (pi's), or the last answer of another framework (`answer`: the AI SDK's last step), and what the loop threw. */
export interface RequestEndedInput { last?: AgentMessage | null; answer?: RunAnswer | null; thrown?: unknown }
/** `DelegateRun.start`'s answer: the run, and its first step. */
export interface StartedRun { run: DelegateRun; step: RunStep }
/** Options of a `RowRecorder`. */
export interface RowRecorderOptions { idPrefix: string; skipTools?: string[]; firstIndex?: number }
"#;

/// One delegation's run, start to settle (ADR 0299 §2, §4–7; ADR 0279 §1–6), driven by
/// an adapter: tell it what happened, do what each step says (`rows` to persist, `events`
/// to report, `next`). Every decision is the core's. `now` (milliseconds) defaults to
/// `Date.now()`. Free it when done; a run freed before it ended settles as failed.
#[wasm_bindgen(js_name = DelegateRun)]
pub struct DelegateRunJs {
    registry: Rc<RefCell<Registry>>,
    run: RefCell<DelegateRun>,
}

fn clock(now: Option<f64>) -> f64 {
    now.unwrap_or_else(js_sys::Date::now)
}

/// What a thrown value is to the run: its `code` (one of this library's), its message,
/// its HTTP status, and an overflow's `modelId`, `tokens` and `hardLimit`.
fn thrown_of(value: &JsValue) -> Thrown {
    if !host::is_object(value) {
        return Thrown::new(None, host::describe_thrown(value), None);
    }
    let string = |key: &str| {
        host::prop(value, key, "thrown")
            .ok()
            .and_then(|v| v.as_string())
    };
    let number = |key: &str| {
        host::prop(value, key, "thrown")
            .ok()
            .and_then(|v| v.as_f64())
    };
    let whole = |key: &str| {
        number(key)
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(crate::tokens::tokens_from_f64)
    };
    Thrown {
        model_id: string("modelId"),
        tokens: whole("tokens"),
        hard_limit: whole("hardLimit"),
        ..Thrown::new(
            string("code"),
            host::describe_thrown(value),
            number("status").or_else(|| number("statusCode")),
        )
    }
}

impl DelegateRunJs {
    fn on(&self, event: Event, now: Option<f64>) -> Result<JsValue, JsValue> {
        let mut registry = state_mut_of(&self.registry, "DelegationRegistry")?;
        let step = state_mut_of(&self.run, "DelegateRun")?.on(&mut registry, event, clock(now));
        to_js(&step)
    }
}

#[wasm_bindgen(js_class = DelegateRun)]
impl DelegateRunJs {
    /// Start a run on `registry`: the model it resolves, the registry's start (a resume
    /// validated), the Task row, the brief, the seed of a resume. A Task call refused
    /// (a clause-4 code, `UNKNOWN_MODEL`) is a run already finished, its step the refused
    /// Task row. `rows`: the session's rows (needed on a resume).
    ///
    /// @throws DelegateContextError `INVALID_INPUT` (with `path`) for a bad setup, or a resume without `rows`
    #[wasm_bindgen(unchecked_return_type = "StartedRun")]
    pub fn start(
        registry: &DelegationRegistry,
        #[wasm_bindgen(unchecked_param_type = "RunSetup")] setup: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "UiMessage[] | null")] rows: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let setup: RunSetup = from_js(setup, "options")?;
        let rows = match rows.filter(|r| !r.is_undefined() && !r.is_null()) {
            Some(rows) => Some(throw(rows_from_value(js_to_value(rows, "rows")?, "rows"))?),
            None => None,
        };
        let shared = registry.shared();
        let (run, step) = {
            let mut reg = state_mut_of(&shared, "DelegationRegistry")?;
            throw(DelegateRun::start(
                &mut reg,
                &setup,
                rows.as_deref(),
                clock(now),
            ))?
        };
        let out = js_sys::Object::new();
        let run = DelegateRunJs {
            registry: shared,
            run: RefCell::new(run),
        };
        js_sys::Reflect::set(&out, &"run".into(), &JsValue::from(run))?;
        js_sys::Reflect::set(&out, &"step".into(), &to_js(&step)?)?;
        Ok(out.into())
    }

    /// A message the delegate's loop ended (pi's `message_end`): the rows to write.
    ///
    /// @throws DelegateContextError `INVALID_INPUT` for a malformed message
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn message(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AgentMessage")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let facts = throw(facts_of_value(&message, "message"))?;
        self.on(Event::Message(facts), now)
    }

    /// A step's messages of the Vercel AI SDK (its `response.messages`: the answer and its
    /// tool results), the step itself (`StepInfo`: its usage and finish reason): the rows
    /// to write. `options`: how the messages are read (`ProjectOptions`).
    ///
    /// @throws DelegateContextError `INVALID_INPUT` for a message that is not one of the SDK's
    #[wasm_bindgen(js_name = modelMessages, unchecked_return_type = "RunStep")]
    pub fn model_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "StepInfo | null")] step: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "ProjectOptions | null")] options: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let projected = project_js(&messages, step, options, clock(now))?;
        let mut registry = state_mut_of(&self.registry, "DelegationRegistry")?;
        let mut run = state_mut_of(&self.run, "DelegateRun")?;
        let mut all = crate::run::RunStep {
            rows: Vec::new(),
            events: Vec::new(),
            next: crate::run::RunNext::Continue,
        };
        for p in projected {
            let step = run.on(&mut registry, Event::Message(p.facts), clock(now));
            all.rows.extend(step.rows);
            all.events.extend(step.events);
            if step.next != crate::run::RunNext::Continue {
                all.next = step.next;
            }
        }
        to_js(&all)
    }

    /// A turn boundary's report (`createPrepareNextTurn`'s `onOutcome`): the run's tally.
    ///
    /// @throws DelegateContextError `INVALID_INPUT` for a malformed report
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn boundary(
        &self,
        #[wasm_bindgen(unchecked_param_type = "DelegateTurnReport")] report: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let report = throw(BoundaryReport::from_value(js_to_value(report, "report")?))?;
        self.on(Event::Boundary(report), now)
    }

    /// The loop on the requested model stopped: its last message and what it threw.
    #[wasm_bindgen(js_name = requestEnded, unchecked_return_type = "RunStep")]
    pub fn request_ended(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestEndedInput")] input: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let last = throw_free_prop(&input, "last");
        let neutral = throw_free_prop(&input, "answer");
        let thrown = throw_free_prop(&input, "thrown");
        let answer = if !neutral.is_null_or_undefined() {
            let neutral: RunAnswer = from_js(neutral, "input.answer")?;
            Some(neutral.answer())
        } else if last.is_null_or_undefined() {
            None
        } else {
            js_to_value(last, "input.last")
                .ok()
                .and_then(|m| Answer::from_pi_message(&m))
        };
        let end = RequestEnd {
            answer,
            thrown: (!thrown.is_undefined()).then(|| thrown_of(&thrown)),
        };
        self.on(Event::RequestEnded(end), now)
    }

    /// The wait of a `wait` step is over.
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn waited(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.on(Event::Waited, now)
    }

    /// A step's rows were written.
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn written(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.on(Event::Written, now)
    }

    /// A step's rows could not be written (what the store threw): the run ends.
    #[wasm_bindgen(js_name = writeFailed, unchecked_return_type = "RunStep")]
    pub fn write_failed(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.on(Event::WriteFailed(host::describe_thrown(&error)), now)
    }

    /// The run's signal fired.
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn abort(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.on(Event::Abort, now)
    }

    /// The adapter failed (what it, or a host callback, threw): the run ends now.
    #[wasm_bindgen(unchecked_return_type = "RunStep")]
    pub fn crash(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.on(Event::Crash(thrown_of(&error)), now)
    }

    /// Whether the run has ended.
    #[wasm_bindgen(getter, js_name = isFinished)]
    pub fn is_finished(&self) -> Result<bool, JsValue> {
        Ok(state_of(&self.run, "DelegateRun")?.is_finished())
    }

    /// The run's result once it has ended (`undefined` before).
    #[wasm_bindgen(unchecked_return_type = "RunResult | undefined")]
    pub fn result(&self) -> Result<JsValue, JsValue> {
        match state_of(&self.run, "DelegateRun")?.result() {
            Some(result) => to_js(&result),
            None => Ok(JsValue::UNDEFINED),
        }
    }
}

/// The AI SDK's `messages` (with the step of their assistant message) as the core's.
fn project_js(
    messages: &JsValue,
    step: Option<JsValue>,
    options: Option<JsValue>,
    now: f64,
) -> Result<Vec<crate::ai_sdk::Projected>, JsValue> {
    let step: Option<StepInfo> = optional(step, |s| from_js(s, "step"))?;
    let options: ProjectOptions = optional(options, |o| from_js(o, "options"))?.unwrap_or_default();
    let values = js_to_value(messages.clone(), "messages")?;
    let serde_json::Value::Array(values) = values else {
        return Err(to_js_error(&Error::invalid(
            "messages",
            "expected an array",
        )));
    };
    // the step is the one of the (only) assistant message
    let steps = vec![step];
    throw(crate::ai_sdk::project(
        &values, &steps, &options, now, "messages", 0,
    ))
}

/// A property read that never throws (`undefined` when the getter throws).
fn throw_free_prop(obj: &JsValue, key: &str) -> JsValue {
    host::prop(obj, key, "input").unwrap_or(JsValue::UNDEFINED)
}

impl Drop for DelegateRunJs {
    fn drop(&mut self) {
        let Ok(mut run) = self.run.try_borrow_mut() else {
            return;
        };
        if run.is_finished() {
            return;
        }
        if let Ok(mut registry) = self.registry.try_borrow_mut() {
            let thrown = Thrown::new(None, "the run was freed before it ended".into(), None);
            run.on(&mut registry, Event::Crash(thrown), js_sys::Date::now());
        }
    }
}

/// ADR 0299 §2: the models a new run uses, in order: `model` (`Task.model`, by
/// `providerId/modelId` or id) among `models` and the session's model, else the
/// delegate's own (`models[0]`), else the session's; then the fallbacks, each once.
/// (`DelegateRun.start` does this itself; for a host with its own loop.)
///
/// @throws DelegateContextError `UNKNOWN_MODEL` when `model` names no configured model; `INVALID_INPUT` when there is no model
#[wasm_bindgen(js_name = resolveDelegateModels, unchecked_return_type = "RunModel[]")]
pub fn resolve_delegate_models(
    #[wasm_bindgen(unchecked_param_type = "ModelChoice")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let choice: ModelChoice = from_js(input, "input")?;
    to_js(&throw(choice.resolve())?)
}

/// The rows of a conversation written message by message as each ends (pi's
/// `recordRows` for the parent's own messages): every row with its order key, ids
/// `<idPrefix>:<token>:u<i>` / `:a<i>` / `:<toolCallId>` with a token new for each
/// recorder, so a conversation recorded again after a restart under the same prefix never
/// writes over the rows of an earlier recording.
#[wasm_bindgen(js_name = RowRecorder)]
pub struct RowRecorderJs {
    inner: RefCell<Recorder>,
}

#[wasm_bindgen(js_class = RowRecorder)]
impl RowRecorderJs {
    /// @throws DelegateContextError `INVALID_INPUT` without an `idPrefix`
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "RowRecorderOptions")] options: JsValue,
    ) -> Result<RowRecorderJs, JsValue> {
        let first = throw_free_prop(&options, "firstIndex");
        let mut owner: RowOwner = from_js(options, "options")?;
        let prefix = throw(owner.prefix())?.owned();
        let token = throw(crate::delegation::random_uuid_v4())?;
        owner.id_prefix = Some(recording_prefix(&prefix, token.get(..8).unwrap_or(&token)));
        let first = match first.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 => x as usize,
            Some(_) => {
                return Err(super::convert::to_js_error(&Error::invalid(
                    "options.firstIndex",
                    "expected a whole number >= 0",
                )))
            }
            None => 0,
        };
        Ok(RowRecorderJs {
            inner: RefCell::new(throw(Recorder::new(owner, first))?),
        })
    }

    /// The rows the AI SDK's `messages` (a step's `response.messages`, or the caller's
    /// prompt) write or rewrite, `step` the step of their assistant message.
    ///
    /// @throws DelegateContextError `INVALID_INPUT` for a message that is not one of the SDK's
    #[wasm_bindgen(js_name = pushModelMessages, unchecked_return_type = "UiMessage[]")]
    pub fn push_model_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "StepInfo | null")] step: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "ProjectOptions | null")] options: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let projected = project_js(&messages, step, options, clock(now))?;
        let mut recorder = state_mut_of(&self.inner, "RowRecorder")?;
        let mut rows = Vec::new();
        for p in projected {
            rows.extend(throw(recorder.push(p.facts, clock(now)))?);
        }
        to_js(&rows)
    }

    /// The rows `message` writes or rewrites (store them by `id`: a later copy replaces
    /// the earlier one).
    ///
    /// @throws DelegateContextError `INVALID_INPUT` for a malformed message
    #[wasm_bindgen(unchecked_return_type = "UiMessage[]")]
    pub fn push(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AgentMessage")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let facts = throw(facts_of_value(&message, "message"))?;
        let rows = throw(state_mut_of(&self.inner, "RowRecorder")?.push(facts, clock(now)))?;
        to_js(&rows)
    }
}
