//! One delegation, start to settle, as a sans-IO state machine (issue 34): ADR 0299
//! clauses 2 and 4–7 and ADR 0279 clauses 1–6 across a whole run. The adapter (pi's
//! `runDelegate`, the AI SDK's) constructs its framework's agent, feeds the machine what
//! happens ([`Event`]) and performs what it answers ([`RunStep`]): rows to persist, events
//! to report, and the [`RunNext`] thing to do. It decides nothing itself.
//!
//! ```text
//! DelegateRun::start(registry, setup, rows)      refused → Finish (a refused Task row)
//!   resolve the model (Task.model | definition | session; UNKNOWN_MODEL)
//!   registry.start → the Task row (running) → the brief's row → the seed (a resume)
//!   → Request { model, messages: seed + brief }
//! loop {
//!   Request  → the adapter runs the boundary (pre-flight) and the agent on that model,
//!              feeding Message (rows) and Boundary (the tally) as they happen,
//!              then RequestEnded { answer, thrown }
//!   RequestEnded → completed | aborted | a coded error | a provider failure:
//!                  retriable → Wait { ms } → Waited → Request (same model)
//!                  otherwise → the next model whose budget fits the carried context
//!                  (the larger of our estimate and the size the provider stated;
//!                  the ones that cannot fit recorded) → Request, or the end
//!   Abort | WriteFailed → Stop (the adapter stops the agent) → RequestEnded → Finish
//!   Crash → Finish
//! }
//! Finish: registry.settle + the Task row settled, exactly once, whatever happened.
//! ```
//!
//! Every way a run ends goes through one `finish`, which settles the registry's run and
//! rewrites the Task row: start and settle are paired by construction (the binding
//! settles a run that is dropped unfinished). The run keeps one tally across every model
//! it runs on, records every model that failed (`modelFailures`) and the model it ended
//! on (`finalModel`), and the parent never receives a provider's overflow text: an
//! overflow reaches it as `SUBAGENT_CONTEXT_OVERFLOW` with the clause-5 guidance.

pub mod models;
pub mod request;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

pub use models::{resolve_models, validate_models, ModelChoice, RunModel};
pub use request::{verdict, Answer, ProviderFailure, RequestEnd, RunAnswer, Thrown, Verdict};

use crate::budget::ContextBudget;
use crate::compaction::tally::{report_for_parent, ReportInput, RunTally};
use crate::decode::decode_struct;
use crate::delegation::binding::{ModelBinding, ResumeCandidates};
use crate::delegation::seed::{seed_delegate_messages, SeedInput, SeedResult};
use crate::delegation::task_row::{
    task_row_refused, task_row_settle, task_row_start, TaskArgs, TaskDetails, TaskRowRefused,
    TaskRowSettle, TaskRowStart,
};
use crate::delegation::types::{ChainSelector, SettleDelegation, SettleStatus, StartDelegation};
use crate::delegation::Registry;
use crate::error::{Error, Result};
use crate::facts::MessageFacts;
use crate::fallback::{ModelFailure, SKIPPED_FOR_WINDOW};
use crate::js_whitespace;
use crate::keyed::Table;
use crate::message::AgentMessage;
use crate::role::Role;
use crate::text_build::Owned;
use crate::transcript::from_messages::RowOwner;
use crate::transcript::order::next_key;
use crate::transcript::recorder::Recorder;
use crate::transcript::{ProviderBinding, UiMessage};

// ---------------------------------------------------------------- the input

/// The Task call a run answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunTask {
    /// The Task call's id (every row of the run carries it as `parentToolCallId`).
    pub tool_call_id: String,
    #[serde(flatten)]
    pub args: TaskArgs,
}

decode_struct!(RunTask "RunTask" {
    tool_call_id: "toolCallId" => req,
} flatten args);

/// How a run retries a retriable provider failure on the same model (ADR 0299 §6 keeps
/// the fallback ADR's retry budgets): up to `maxRetries` times, after the wait the
/// provider asked for, else `baseDelayMs` doubled at each retry; a provider that asks for
/// longer than `maxDelayMs` is not waited for (the run moves to its next model).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RetryPolicy {
    /// Default 2.
    #[serde(default = "RetryPolicy::default_max_retries")]
    #[tsify(optional)]
    pub max_retries: u32,
    /// Default 1,000.
    #[serde(default = "RetryPolicy::default_base_delay")]
    #[tsify(optional)]
    pub base_delay_ms: f64,
    /// Default 30,000.
    #[serde(default = "RetryPolicy::default_max_delay")]
    #[tsify(optional)]
    pub max_delay_ms: f64,
}

decode_struct!(RetryPolicy "RetryPolicy" {
    max_retries: "maxRetries" => or(RetryPolicy::default_max_retries()),
    base_delay_ms: "baseDelayMs" => or(RetryPolicy::default_base_delay()),
    max_delay_ms: "maxDelayMs" => or(RetryPolicy::default_max_delay()),
});

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: Self::default_max_retries(),
            base_delay_ms: Self::default_base_delay(),
            max_delay_ms: Self::default_max_delay(),
        }
    }
}

impl RetryPolicy {
    fn default_max_retries() -> u32 {
        2
    }
    fn default_base_delay() -> f64 {
        1000.0
    }
    fn default_max_delay() -> f64 {
        30_000.0
    }

    /// The wait before retry number `retry` (0 for the first), given what the provider
    /// asked for; `None`: do not retry.
    pub fn delay(&self, retry: u32, asked_ms: Option<f64>) -> Option<f64> {
        if retry >= self.max_retries {
            return None;
        }
        let wait = match asked_ms {
            Some(ms) => ms,
            None => self.base_delay_ms * 2f64.powi(retry.min(30) as i32),
        };
        match asked_ms {
            Some(ms) if ms > self.max_delay_ms => None,
            _ => Some(wait.min(self.max_delay_ms).max(0.0)),
        }
    }

    fn validate(&self, path: &str) -> Result<()> {
        for (name, v) in [
            ("baseDelayMs", self.base_delay_ms),
            ("maxDelayMs", self.max_delay_ms),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(Error::invalid(
                    format!("{path}.{name}"),
                    "expected a finite number >= 0",
                ));
            }
        }
        Ok(())
    }
}

/// What a run is started with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunSetup {
    pub task: RunTask,
    /// The delegate's models: its own first (the definition's pin, or the model the host
    /// resolved for it), then its fallbacks in order.
    #[serde(default)]
    #[tsify(optional)]
    pub models: Vec<RunModel>,
    /// The session's model: the run's model when `models` is empty, and one `Task.model`
    /// may name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub session_model: Option<RunModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub thinking_level: Option<String>,
    /// Tokens of every request that are not messages (system prompt, tools:
    /// `requestOverheadTokens`).
    #[serde(default)]
    #[tsify(optional)]
    pub overhead_tokens: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub retry: Option<RetryPolicy>,
    /// A fingerprint of the agent definition (ADR 0279 clause 11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub definition: Option<String>,
}

decode_struct!(RunSetup "RunSetup" {
    task: "task" => req,
    models: "models" => default,
    session_model: "sessionModel" => default,
    thinking_level: "thinkingLevel" => default,
    overhead_tokens: "overheadTokens" => default,
    retry: "retry" => default,
    definition: "definition" => default,
});

// ---------------------------------------------------------------- what happens

/// A turn boundary's report, as the boundary hook gave it (`DelegateTurnReport`).
#[derive(Clone, Debug, PartialEq)]
pub struct BoundaryReport {
    /// The run's counts after it (the hook continues the run's tally).
    pub run: RunTally,
    /// The context's size after it: the request that follows sends this much.
    pub tokens_after: u64,
    /// The report itself, handed on in the `boundary` event.
    pub report: Value,
}

impl BoundaryReport {
    /// A `DelegateTurnReport` (JSON) read: its `run` and `tokensAfter`.
    pub fn from_value(report: Value) -> Result<BoundaryReport> {
        let run: RunTally = match report.get("run") {
            Some(run) => crate::decode::decode_value(run, "report.run")?,
            None => RunTally::default(),
        };
        let tokens_after = report
            .get("tokensAfter")
            .and_then(Value::as_f64)
            .map_or(0, crate::tokens::tokens_from_f64);
        Ok(BoundaryReport {
            run,
            tokens_after,
            report,
        })
    }
}

/// What the adapter tells the run.
// one at a time, moved into the run at once: the variants' sizes do not add up anywhere
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A message the delegate's loop ended (an answer, a tool result): its rows.
    Message(MessageFacts),
    /// A turn boundary's report.
    Boundary(BoundaryReport),
    /// The loop on the requested model stopped.
    RequestEnded(RequestEnd),
    /// The wait of [`RunNext::Wait`] is over.
    Waited,
    /// A batch of rows (one [`RunStep::rows`]) was written.
    Written,
    /// A batch of rows could not be written: the run ends.
    WriteFailed(String),
    /// The run's signal fired.
    Abort,
    /// The adapter failed (it threw, or a host callback did): the run ends now.
    Crash(Thrown),
}

/// What the adapter does next.
// one per step, encoded at once (see [`Event`])
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum RunNext {
    /// Nothing new: go on with what runs.
    Continue,
    /// Run the agent on `model` (after one boundary over the context, the pre-flight):
    /// with `messages` (the seed and the brief) on the first request, else with the
    /// context of the last request (a retry, a fallback). The boundary hook continues
    /// `run` on `budget`.
    Request {
        model: RunModel,
        model_id: String,
        budget: ContextBudget,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[tsify(optional)]
        messages: Option<Vec<AgentMessage>>,
        run: RunTally,
        /// Retries of this model so far.
        attempt: u32,
    },
    /// Wait `ms` (a retry's delay), then tell [`Event::Waited`].
    Wait { ms: f64 },
    /// Stop the agent now (an abort, a failed write), then tell [`Event::RequestEnded`].
    Stop,
    /// The run is over: take its result (after the writes still pending, unless
    /// `awaitWrites` is false: an abort returns at once).
    Finish { await_writes: bool },
}

/// What a run reports for a host's log or UI.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum RunEvent {
    Started {
        delegation_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[tsify(optional)]
        resumed_from: Option<String>,
        model_id: String,
    },
    Seed {
        seed: SeedResult,
    },
    Boundary {
        model_id: String,
        /// The boundary run once before a request on a context the agent did not build.
        preflight: bool,
        #[tsify(type = "DelegateTurnReport")]
        report: Value,
    },
    /// A request failed (the provider's words: for the host's log, never the parent's).
    ProviderError {
        model_id: String,
        message: String,
        context_too_large: bool,
        retriable: bool,
    },
    Retry {
        model_id: String,
        /// 1 for the first retry.
        attempt: u32,
        delay_ms: f64,
    },
    Fallback {
        from: String,
        to: Option<String>,
        /// The carried context's size the alternatives were checked against.
        tokens: u64,
        /// The alternatives skipped because they cannot hold it.
        model_failures: Vec<ModelFailure>,
    },
    WriteFailed {
        message: String,
    },
    Ended {
        status: ResultStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[tsify(optional)]
        code: Option<String>,
    },
}

/// What one call of the run answers: rows to persist (one batch, in order; store them
/// by `id`, a later copy replacing the earlier), events, and what to do next.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunStep {
    pub rows: Vec<UiMessage>,
    pub events: Vec<RunEvent>,
    pub next: RunNext,
}

impl RunStep {
    fn next(next: RunNext) -> RunStep {
        RunStep {
            rows: Vec::new(),
            events: Vec::new(),
            next,
        }
    }
}

/// How a run ended, as the parent's Task call returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum ResultStatus {
    Completed,
    Failed,
    Aborted,
    /// The Task call was refused before a run started (a bad `resume`, an unknown model).
    Refused,
}

/// What the parent's Task tool returns, and what the run left.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    pub status: ResultStatus,
    /// What the parent's tool result holds: the report (the degraded notice first when
    /// the run lost history), or the error's message; never a provider's overflow text.
    pub content: String,
    /// Whether the parent receives it as a tool error.
    pub is_error: bool,
    /// The Task row's details as written.
    pub details: TaskDetails,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub delegation_id: Option<String>,
    /// The error's code (`SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED`, a clause-4 code,
    /// `UNKNOWN_MODEL`, `PROVIDER_ERROR`, `WRITE_FAILED`, `INTERNAL`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub code: Option<String>,
    /// `providerId/modelId` the run ended on.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_id: Option<String>,
    /// The run's counts across every model it ran on.
    pub run: RunTally,
    /// Every row the run wrote (latest copies), its Task row last.
    pub rows: Vec<UiMessage>,
    /// What ended a run that did not complete: its code and message (the parent's
    /// text), and for `SUBAGENT_CONTEXT_OVERFLOW` the model, the context's size and the
    /// limit when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<RunError>,
    /// Batches of rows not known to be written when the result was taken: still pending,
    /// or failed.
    pub unsaved_batches: u32,
    /// The first write failure, when one failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub write_error: Option<String>,
}

/// What ended a run that did not complete.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub hard_limit: Option<u64>,
}

impl RunError {
    /// One of this library's errors, with an overflow's fields.
    fn of(e: &Error) -> RunError {
        let t = thrown_of_error(e);
        RunError {
            code: e.code().owned(),
            message: t.message,
            model_id: t.model_id,
            tokens: t.tokens,
            hard_limit: t.hard_limit,
        }
    }
}

/// One of this library's errors as a thrown value reads.
fn thrown_of_error(e: &Error) -> Thrown {
    let (model_id, tokens, hard_limit) = match e {
        Error::SubagentContextOverflow {
            model_id,
            tokens,
            hard_limit,
        } => (Some(model_id.clone()), *tokens, *hard_limit),
        _ => (None, None, None),
    };
    Thrown {
        code: Some(e.code().owned()),
        message: e.to_string(),
        status: None,
        model_id,
        tokens,
        hard_limit,
    }
}

// ---------------------------------------------------------------- codes of a result

/// A provider failure with no fallback left that is not an overflow.
pub const PROVIDER_ERROR: &str = "PROVIDER_ERROR";
/// A `modelFailures` entry for a provider's overflow.
pub const CONTEXT_TOO_LARGE: &str = crate::fallback::provider_error::CONTEXT_TOO_LARGE;
/// A row write failed: the run ended.
pub const WRITE_FAILED: &str = "WRITE_FAILED";
/// The adapter, or something the run called, threw something uncoded.
pub const INTERNAL: &str = "INTERNAL";

/// What the parent receives for an abort.
pub const ABORTED_TEXT: &str = "The delegation was aborted before it finished.";

// ---------------------------------------------------------------- the machine

/// Why a run ends.
#[derive(Clone, Debug, PartialEq)]
enum Ending {
    Completed {
        report: String,
    },
    Aborted,
    /// A coded error (its code: one of this library's; none: `INTERNAL`).
    Coded(Thrown),
    Provider(ProviderFailure),
    Threw {
        message: String,
        overflow: bool,
    },
    WriteFailed(String),
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    /// The agent runs on the current model.
    Requesting,
    /// A retry's wait.
    Waiting,
    /// The adapter was told to stop; the run ends as `Ending` says when the loop has.
    Stopping(Ending),
    Finished,
}

/// One delegation's run (see the module docs).
#[derive(Debug)]
pub struct DelegateRun {
    tool_call_id: String,
    args: TaskArgs,
    delegation_id: Option<String>,
    models: Vec<RunModel>,
    /// The current model, in `models`.
    at: usize,
    /// Retries of the current model so far.
    retries: u32,
    retry: RetryPolicy,
    task_row: Option<UiMessage>,
    recorder: Option<Recorder>,
    /// The run's rows, latest copies, in the order first written.
    rows: Vec<UiMessage>,
    row_at: Table<String, usize>,
    tally: RunTally,
    /// The size of the last request's context (the last boundary's `tokensAfter`).
    carried_tokens: u64,
    preflight: bool,
    model_failures: Vec<ModelFailure>,
    phase: Phase,
    /// Batches of rows handed out and not yet answered.
    outstanding: u32,
    /// Batches whose write failed.
    failed_batches: u32,
    write_error: Option<String>,
    result: Option<RunResult>,
}

impl DelegateRun {
    /// Start a run (see the module docs): a refused Task call is a finished run whose
    /// step writes the refused Task row. `rows`: the session's rows, needed on a resume.
    ///
    /// Errors (nothing started): `INVALID_INPUT` for bad models, overhead or retry
    /// numbers, and a resume without `rows`.
    pub fn start(
        registry: &mut Registry,
        setup: &RunSetup,
        rows: Option<&[UiMessage]>,
        now: f64,
    ) -> Result<(DelegateRun, RunStep)> {
        validate_models(&setup.models, "options.models")?;
        if let Some(session) = &setup.session_model {
            validate_models(std::slice::from_ref(session), "options.sessionModel")?;
        }
        if !setup.overhead_tokens.is_finite() || setup.overhead_tokens < 0.0 {
            return Err(Error::invalid(
                "options.overheadTokens",
                "expected a finite number >= 0",
            ));
        }
        let retry = setup.retry.clone().unwrap_or_default();
        retry.validate("options.retry")?;
        let args = &setup.task.args;
        let resume = args
            .resume
            .as_deref()
            .filter(|r| !js_whitespace::is_blank(r));
        if resume.is_some() && rows.is_none() {
            return Err(Error::invalid(
                "options.rows",
                "a resume needs the session's rows: its history is read from them",
            ));
        }
        let mut run = DelegateRun {
            tool_call_id: setup.task.tool_call_id.clone(),
            args: args.clone(),
            delegation_id: None,
            models: Vec::new(),
            at: 0,
            retries: 0,
            retry,
            task_row: None,
            recorder: None,
            rows: Vec::new(),
            row_at: Table::default(),
            tally: RunTally::default(),
            carried_tokens: 0,
            preflight: false,
            model_failures: Vec::new(),
            phase: Phase::Finished,
            outstanding: 0,
            failed_batches: 0,
            write_error: None,
            result: None,
        };
        // clause 2: the model of a new run (Task.model on a resume is clause 4's refusal)
        let task_model = if resume.is_some() {
            None
        } else {
            args.model.as_deref()
        };
        let models = match resolve_models(task_model, &setup.models, setup.session_model.as_ref()) {
            Ok(models) => models,
            Err(e @ Error::UnknownModel { .. }) => return run.refuse(&e, now),
            Err(e) => return Err(e),
        };
        let primary = models.first().cloned().unwrap_or_default();
        let start = StartDelegation {
            tool_call_id: setup.task.tool_call_id.clone(),
            agent: args.agent.clone(),
            task: args.task.clone(),
            description: args.description.clone(),
            model: args.model.clone(),
            resume: args.resume.clone(),
            binding: Some(ModelBinding {
                key: Some(primary.key()),
                model_id: Some(primary.id.clone()),
            }),
            candidates: resume.map(|_| ResumeCandidates {
                allowed: models.iter().map(RunModel::key).collect(),
                definition_binding: primary.key(),
            }),
            definition: setup.definition.clone(),
        };
        let started = match registry.start(&start, rows) {
            Ok(started) => started,
            Err(e) => return run.refuse(&e, now),
        };
        // a resume continues on the chain's own model (clause 4); the others stay fallbacks
        let bound = started.model_binding.key.as_deref();
        let mut order = models;
        if let Some(i) = order.iter().position(|m| Some(m.key().as_str()) == bound) {
            let m = order.remove(i);
            order.insert(0, m);
        }
        run.models = order;
        run.delegation_id = Some(started.delegation_id.clone());
        run.phase = Phase::Requesting;
        run.preflight = true;

        let mut step = RunStep::next(RunNext::Continue);
        // from here on the registry holds a running run: every failure settles it
        let begun = (|| -> Result<(Vec<AgentMessage>, Option<SeedResult>)> {
            let mut task_row = task_row_start(&TaskRowStart {
                tool_call_id: run.tool_call_id.clone(),
                args: run.args.clone(),
                started: started.clone(),
                thinking_level: setup.thinking_level.clone(),
                now: Some(now),
            })?;
            task_row.order = Some(next_key(now));
            step.rows.push(task_row.clone());
            run.task_row = Some(task_row);
            let brief = AgentMessage::user_text(run.args.task.clone(), Some(now));
            let mut recorder = Recorder::new(
                RowOwner {
                    parent_tool_call_id: Some(run.tool_call_id.clone()),
                    agent_name: Some(started.agent.clone()),
                    ..RowOwner::default()
                },
                0,
            )?;
            let brief_rows = recorder.push(brief.facts("brief")?, now)?;
            run.recorder = Some(recorder);
            step.rows.extend(run.keep_rows(brief_rows));
            let seed = match (started.resumed_from.as_ref(), rows) {
                (Some(_), Some(rows)) => {
                    let model = run.model();
                    Some(seed_delegate_messages(&SeedInput {
                        brief: started.brief.clone(),
                        rows: rows.to_vec(),
                        chain: Some(ChainSelector {
                            tool_call_ids: started.tool_call_ids.clone(),
                            agent: started.agent.clone(),
                        }),
                        binding: ProviderBinding {
                            provider: model.provider.clone().unwrap_or_else(|| "unknown".owned()),
                            model: model.id.clone(),
                            api: model.api.clone(),
                            thinking_signature: None,
                        },
                        hard_limit: model.budget().hard_limit as f64,
                        // the seed is sent with the system prompt, the tools and the new
                        // task: all of it fits (ADR 0299 §7)
                        overhead_tokens: Some(
                            setup.overhead_tokens.ceil()
                                + crate::tokens::estimate_tokens(&brief) as f64,
                        ),
                        system_prompt: None,
                        tools: None,
                    })?)
                }
                _ => None,
            };
            let mut messages = seed.as_ref().map_or_else(Vec::new, |s| s.messages.clone());
            messages.push(brief);
            Ok((messages, seed))
        })();
        step.events.push(RunEvent::Started {
            delegation_id: started.delegation_id.clone(),
            resumed_from: started.resumed_from.clone(),
            model_id: run.model_key(),
        });
        match begun {
            Ok((messages, seed)) => {
                if let Some(seed) = seed {
                    step.events.push(RunEvent::Seed { seed });
                }
                step.next = run.request(Some(messages));
                run.issued(&step);
                Ok((run, step))
            }
            Err(e) => {
                let end = run.finish(registry, Ending::Coded(thrown_of_error(&e)), now);
                let step = merge(step, end);
                run.issued(&step);
                Ok((run, step))
            }
        }
    }

    /// A Task call refused before a run started.
    fn refuse(mut self, e: &Error, now: f64) -> Result<(DelegateRun, RunStep)> {
        let code = e.code().owned();
        let content = e.to_string();
        let mut row = task_row_refused(&TaskRowRefused {
            tool_call_id: self.tool_call_id.clone(),
            args: self.args.clone(),
            code: code.clone(),
            message: content.clone(),
            now: Some(now),
        })?;
        row.order = Some(next_key(now));
        self.phase = Phase::Finished;
        self.result = Some(RunResult {
            status: ResultStatus::Refused,
            content,
            is_error: true,
            details: crate::delegation::task_row::task_details(&row).unwrap_or_default(),
            delegation_id: None,
            code: Some(code.clone()),
            model_id: None,
            run: RunTally::default(),
            rows: vec![row.clone()],
            error: Some(RunError::of(e)),
            unsaved_batches: 0,
            write_error: None,
        });
        let step = RunStep {
            rows: vec![row],
            events: vec![RunEvent::Ended {
                status: ResultStatus::Refused,
                code: Some(code),
            }],
            next: RunNext::Finish { await_writes: true },
        };
        self.issued(&step);
        Ok((self, step))
    }

    /// What happened; what to do next (see [`Event`]). `now`: the host's clock
    /// (milliseconds), for rows and the Task row.
    pub fn on(&mut self, registry: &mut Registry, event: Event, now: f64) -> RunStep {
        let step = self.step(registry, event, now);
        self.issued(&step);
        step
    }

    fn step(&mut self, registry: &mut Registry, event: Event, now: f64) -> RunStep {
        let finished = self.phase == Phase::Finished;
        match event {
            Event::Written => {
                self.outstanding = self.outstanding.saturating_sub(1);
                RunStep::next(RunNext::Continue)
            }
            Event::WriteFailed(message) => {
                self.outstanding = self.outstanding.saturating_sub(1);
                self.failed_batches = self.failed_batches.saturating_add(1);
                if self.write_error.is_none() {
                    self.write_error = Some(message.clone());
                }
                if let Some(result) = &mut self.result {
                    result.write_error = self.write_error.clone();
                }
                let mut step = self.stop_for(registry, Ending::WriteFailed(message.clone()), now);
                if !finished {
                    step.events.insert(0, RunEvent::WriteFailed { message });
                }
                step
            }
            _ if finished => RunStep::next(RunNext::Continue),
            Event::Message(facts) => self.message(facts, now),
            Event::Boundary(report) => {
                self.tally = report.run;
                self.carried_tokens = report.tokens_after;
                let preflight = std::mem::take(&mut self.preflight);
                RunStep {
                    rows: Vec::new(),
                    events: vec![RunEvent::Boundary {
                        model_id: self.model_key(),
                        preflight,
                        report: report.report,
                    }],
                    next: RunNext::Continue,
                }
            }
            Event::RequestEnded(end) => match &self.phase {
                Phase::Stopping(ending) => {
                    let ending = ending.clone();
                    self.finish(registry, ending, now)
                }
                Phase::Requesting => self.request_ended(registry, &end, now),
                _ => RunStep::next(RunNext::Continue),
            },
            Event::Waited => match self.phase {
                Phase::Waiting => {
                    self.phase = Phase::Requesting;
                    self.preflight = true;
                    RunStep::next(self.request(None))
                }
                _ => RunStep::next(RunNext::Continue),
            },
            Event::Abort => self.stop_for(registry, Ending::Aborted, now),
            Event::Crash(thrown) => {
                // an uncoded throw ends as INTERNAL: `finish` names a code-less `Coded` so
                let ending = match thrown.code.as_deref() {
                    Some(request::ABORTED) => Ending::Aborted,
                    _ => Ending::Coded(thrown),
                };
                self.finish(registry, ending, now)
            }
        }
    }

    /// An abort or a failed write: a running request is stopped first; a wait ends now.
    fn stop_for(&mut self, registry: &mut Registry, ending: Ending, now: f64) -> RunStep {
        match self.phase {
            Phase::Requesting => {
                self.phase = Phase::Stopping(ending);
                RunStep::next(RunNext::Stop)
            }
            Phase::Waiting => self.finish(registry, ending, now),
            Phase::Stopping(_) | Phase::Finished => RunStep::next(RunNext::Continue),
        }
    }

    /// A message the loop ended: its rows (user messages are the brief's, written at the
    /// start, or a seed's).
    fn message(&mut self, facts: MessageFacts, now: f64) -> RunStep {
        if facts.role == Role::User {
            return RunStep::next(RunNext::Continue);
        }
        let rows = match self.recorder.as_mut().map(|r| r.push(facts, now)) {
            Some(Ok(rows)) => rows,
            _ => Vec::new(),
        };
        RunStep {
            rows: self.keep_rows(rows),
            events: Vec::new(),
            next: RunNext::Continue,
        }
    }

    /// Keep the latest copy of each row; the rows handed back to write.
    fn keep_rows(&mut self, rows: Vec<UiMessage>) -> Vec<UiMessage> {
        for row in &rows {
            match self.row_at.get(&row.id).copied() {
                Some(i) => {
                    if let Some(slot) = self.rows.get_mut(i) {
                        *slot = row.clone();
                    }
                }
                None => {
                    self.row_at.put(row.id.clone(), self.rows.len());
                    self.rows.push(row.clone());
                }
            }
        }
        rows
    }

    /// The current model (`models` is never empty once a run has started).
    fn model(&self) -> RunModel {
        self.models.get(self.at).cloned().unwrap_or_default()
    }

    fn model_key(&self) -> String {
        self.model().key()
    }

    fn request(&self, messages: Option<Vec<AgentMessage>>) -> RunNext {
        let model = self.model();
        RunNext::Request {
            model_id: model.key(),
            budget: model.budget(),
            model,
            messages,
            run: self.tally.clone(),
            attempt: self.retries,
        }
    }

    fn request_ended(&mut self, registry: &mut Registry, end: &RequestEnd, now: f64) -> RunStep {
        let window = self.model().context_window;
        match verdict(end, window) {
            Verdict::Completed { report } => {
                self.finish(registry, Ending::Completed { report }, now)
            }
            Verdict::Aborted => self.finish(registry, Ending::Aborted, now),
            Verdict::Coded(thrown) => self.finish(registry, Ending::Coded(thrown), now),
            Verdict::Threw { message, overflow } => {
                self.finish(registry, Ending::Threw { message, overflow }, now)
            }
            Verdict::Provider(failure) => self.provider_failed(registry, failure, now),
        }
    }

    /// ADR 0299 §5–6: retry the same model, or the next model that can hold the context,
    /// or the end.
    fn provider_failed(
        &mut self,
        registry: &mut Registry,
        failure: ProviderFailure,
        now: f64,
    ) -> RunStep {
        let from = self.model_key();
        let mut events = vec![RunEvent::ProviderError {
            model_id: from.clone(),
            message: failure.text.clone(),
            context_too_large: failure.overflow,
            retriable: failure.retriable,
        }];
        if failure.retriable && !failure.overflow {
            if let Some(ms) = self.retry.delay(self.retries, failure.retry_after_ms) {
                self.retries += 1;
                self.phase = Phase::Waiting;
                events.push(RunEvent::Retry {
                    model_id: from,
                    attempt: self.retries,
                    delay_ms: ms,
                });
                return RunStep {
                    rows: Vec::new(),
                    events,
                    next: RunNext::Wait { ms },
                };
            }
        }
        self.model_failures.push(self.failure_entry(&failure));
        // the carried context: our estimate, or the size the provider stated when larger
        let tokens = self.carried_tokens.max(failure.stated_tokens.unwrap_or(0));
        let mut skipped = Vec::new();
        let mut next = None;
        for (i, m) in self.models.iter().enumerate().skip(self.at + 1) {
            let budget = m.budget();
            if tokens < budget.hard_limit {
                next = Some(i);
                break;
            }
            skipped.push(ModelFailure {
                model: m.key(),
                code: SKIPPED_FOR_WINDOW.owned(),
                message: format!(
                    "Skipped fallback model \"{}\": the carried context (about {tokens} tokens) does not fit its context budget (hardLimit {} of a {}-token window).",
                    m.key(),
                    budget.hard_limit,
                    budget.context_window
                ),
            });
        }
        self.model_failures.extend(skipped.iter().cloned());
        events.push(RunEvent::Fallback {
            from,
            to: next.and_then(|i| self.models.get(i)).map(RunModel::key),
            tokens,
            model_failures: skipped,
        });
        match next {
            Some(i) => {
                self.at = i;
                self.retries = 0;
                self.preflight = true;
                self.carried_tokens = tokens;
                RunStep {
                    rows: Vec::new(),
                    events,
                    next: self.request(None),
                }
            }
            None => {
                let end = self.finish(registry, Ending::Provider(failure), now);
                let mut step = end;
                events.append(&mut step.events);
                step.events = events;
                step
            }
        }
    }

    /// The `modelFailures` entry of the current model's own failure: an overflow in our
    /// words (the provider's never reach the parent), another failure in the provider's.
    fn failure_entry(&self, failure: &ProviderFailure) -> ModelFailure {
        let model = self.model_key();
        if failure.overflow {
            let size = failure
                .stated_tokens
                .map_or_else(String::new, |t| format!(" (about {t} tokens)"));
            return ModelFailure {
                message: format!(
                    "The provider refused the request as too large for the context window of model \"{model}\"{size}."
                ),
                model,
                code: CONTEXT_TOO_LARGE.owned(),
            };
        }
        let message = if js_whitespace::is_blank(&failure.text) {
            "The provider request failed.".owned()
        } else {
            failure.text.clone()
        };
        ModelFailure {
            model,
            code: PROVIDER_ERROR.owned(),
            message,
        }
    }

    /// The one end of every run: what the parent receives, the registry's run settled,
    /// the Task row settled.
    fn finish(&mut self, registry: &mut Registry, ending: Ending, now: f64) -> RunStep {
        if self.phase == Phase::Finished {
            return RunStep::next(RunNext::Continue);
        }
        self.phase = Phase::Finished;
        let model = self.model_key();
        let error = |code: &str, message: String| RunError {
            code: code.owned(),
            message,
            ..RunError::default()
        };
        let overflow = |tokens: Option<u64>| {
            RunError::of(&Error::SubagentContextOverflow {
                model_id: model.clone(),
                tokens,
                hard_limit: None,
            })
        };
        let (status, content, error) = match &ending {
            Ending::Completed { report } => {
                let text = report_for_parent(&ReportInput {
                    report: report.clone(),
                    run: self.tally.clone(),
                    model_id: Some(model.clone()),
                })
                .text;
                (ResultStatus::Completed, text, None)
            }
            Ending::Aborted => (
                ResultStatus::Aborted,
                ABORTED_TEXT.owned(),
                Some(error(request::ABORTED, ABORTED_TEXT.owned())),
            ),
            Ending::Coded(thrown) => (
                ResultStatus::Failed,
                thrown.message.clone(),
                Some(RunError {
                    code: thrown.code.clone().unwrap_or_else(|| INTERNAL.owned()),
                    message: thrown.message.clone(),
                    model_id: thrown.model_id.clone(),
                    tokens: thrown.tokens,
                    hard_limit: thrown.hard_limit,
                }),
            ),
            Ending::Provider(f) if f.overflow => {
                let e = overflow(f.stated_tokens);
                (ResultStatus::Failed, e.message.clone(), Some(e))
            }
            Ending::Provider(f) => {
                let text = if js_whitespace::is_blank(&f.text) {
                    "The delegate's provider request failed.".owned()
                } else {
                    f.text.clone()
                };
                (
                    ResultStatus::Failed,
                    text.clone(),
                    Some(error(PROVIDER_ERROR, text)),
                )
            }
            Ending::Threw { overflow: true, .. } => {
                let e = overflow(None);
                (ResultStatus::Failed, e.message.clone(), Some(e))
            }
            Ending::Threw { message, .. } => (
                ResultStatus::Failed,
                message.clone(),
                Some(error(INTERNAL, message.clone())),
            ),
            Ending::WriteFailed(message) => {
                let text = format!(
                    "The delegation stopped: its transcript could not be saved ({message})."
                );
                (
                    ResultStatus::Failed,
                    text.clone(),
                    Some(error(WRITE_FAILED, text)),
                )
            }
        };
        let code = error.as_ref().map(|e| e.code.clone());
        let is_error = status != ResultStatus::Completed;
        let settle_status = match status {
            ResultStatus::Completed => SettleStatus::Completed,
            ResultStatus::Aborted => SettleStatus::Aborted,
            _ => SettleStatus::Failed,
        };
        if let Some(id) = &self.delegation_id {
            // an error here means the host settled it already: nothing is left running
            let _ = registry.settle(&SettleDelegation {
                delegation_id: id.clone(),
                status: settle_status,
                reads: None,
                rows: Some(self.rows.clone()),
            });
        }
        let mut rows = Vec::new();
        let mut details = TaskDetails::default();
        if let Some(task_row) = &self.task_row {
            let settled = task_row_settle(&TaskRowSettle {
                row: task_row.clone(),
                status: settle_status,
                content: content.clone(),
                is_error,
                run_rows: self.rows.clone(),
                run: self.tally.clone(),
                model_failures: self.model_failures.clone(),
                error: code.clone(),
                final_model: Some(model.clone()),
                now: Some(now),
            });
            if let Ok(row) = settled {
                details = crate::delegation::task_row::task_details(&row).unwrap_or_default();
                self.task_row = Some(row.clone());
                rows.push(row);
            }
        }
        let mut all = self.rows.clone();
        all.extend(self.task_row.clone());
        self.result = Some(RunResult {
            status,
            content,
            is_error,
            details,
            delegation_id: self.delegation_id.clone(),
            code: code.clone(),
            model_id: Some(model).filter(|m| !m.is_empty()),
            run: self.tally.clone(),
            rows: all,
            error,
            unsaved_batches: 0,
            write_error: self.write_error.clone(),
        });
        let await_writes = !matches!(ending, Ending::Aborted | Ending::WriteFailed(_));
        RunStep {
            rows,
            events: vec![RunEvent::Ended { status, code }],
            next: RunNext::Finish { await_writes },
        }
    }

    /// Count a step's batch of rows as issued.
    fn issued(&mut self, step: &RunStep) {
        if !step.rows.is_empty() {
            self.outstanding = self.outstanding.saturating_add(1);
        }
    }

    /// Whether the run has ended.
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// The run's result once it has ended (`unsavedBatches`: the batches not known to be
    /// written now).
    pub fn result(&self) -> Option<RunResult> {
        let mut result = self.result.clone()?;
        result.unsaved_batches = self.outstanding.saturating_add(self.failed_batches);
        result.write_error = self.write_error.clone();
        Some(result)
    }

    /// The run's counts so far.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn tally(&self) -> &RunTally {
        &self.tally
    }
}

/// Two steps as one: `first`'s rows and events, then `then`'s, and `then`'s next.
fn merge(mut first: RunStep, then: RunStep) -> RunStep {
    first.rows.extend(then.rows);
    first.events.extend(then.events);
    first.next = then.next;
    first
}
