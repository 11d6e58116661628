//! ADR 0299 clauses 3–5 across a delegate's run, and clause 4's consequence "a degraded
//! run must say so, or the parent would read a partial answer as a complete one": what
//! the async drivers (`runDelegateTurn`, `DelegateContext.runTurn`, the pi `Agent` hook)
//! keep between the host's answers and between boundaries.
//!
//! - [`TurnConfig`]: a step's budget, model and options, and the rule that fills in what
//!   the host left out (its own `now` wins over the clock; see [`TurnConfig::options_at`]).
//! - [`Settled`]: what the host's summarizer came to, as the binding reads it, and the
//!   rule that makes it a [`Reply`] (what text a resolved value carries).
//! - [`Lock`]: one delegate context is driven by one boundary at a time; the one rule
//!   for the hook and for `DelegateContext.runTurn`.
//! - [`Run`]: the hook's state (its configuration, the run's [`RunTally`], the request
//!   overhead computed for the Agent's system prompt and tools, its lock) and the
//!   [`DelegateTurnReport`] of each boundary.
//!
//! The binding only awaits the host's summarizer, decodes what it settled with into a
//! [`Settled`], and hands it on; everything here is tested natively.

use std::cell::Cell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use super::context::DelegateContext;
use super::step::{complete_turn, Reply, Turn};
use super::tally::RunTally;
use super::turn::{
    DegradeReason, DelegateTurnOptions, DelegateTurnOutcome, SummaryAnswer, TurnOutcomeKind,
};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::stop_reason::StopReason;
use crate::text_build::{Joined, Owned};

// ---------------------------------------------------------------- configuration

/// What every boundary step needs besides the messages: the budget of the model the
/// delegate runs on, that model's id, and the options.
#[derive(Clone, Debug, PartialEq, Deserialize, Tsify)]
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
    /// The options of a step taken at `clock` (milliseconds since the epoch): the host's
    /// `now` wins; without one, the messages this step creates carry `clock`.
    #[inline(never)]
    pub fn options_at(&self, clock: f64) -> DelegateTurnOptions {
        DelegateTurnOptions {
            now: Some(self.options.now.unwrap_or(clock)),
            ..self.options.clone()
        }
    }

    /// Begin a boundary over `ctx` at `clock`.
    #[inline(never)]
    pub fn begin(&self, ctx: &DelegateContext, clock: f64) -> Result<Turn> {
        Turn::begin(ctx, &self.budget, &self.model_id, &self.options_at(clock))
    }

    /// The second half over `ctx` with the host's `answer`, at `clock`.
    pub fn complete(
        &self,
        ctx: &DelegateContext,
        clock: f64,
        answer: &SummaryAnswer,
    ) -> Result<DelegateTurnOutcome> {
        complete_turn(
            ctx,
            &self.budget,
            &self.model_id,
            &self.options_at(clock),
            answer,
        )
    }
}

// ---------------------------------------------------------------- the summarizer's reply

/// What a call of the host's summarizer came to, as the binding hands it over: one JSON
/// object tagged by `kind` (`src/wasm/host.js`'s `dc_summarize`), read by
/// [`Settled::from_value`].
#[derive(Clone, Debug, PartialEq)]
pub enum Settled {
    /// It resolved with `value`: a string, or the fields `content`, `text`, `stopReason`
    /// and `errorMessage` of an object (`null` when it resolved with nothing JSON holds).
    Resolved { value: Value },
    /// It threw or its promise rejected; `reason` describes what was thrown.
    Rejected { reason: String },
    /// Reading what it resolved with threw (a getter, a revoked `Proxy`).
    Unreadable { reason: String },
    /// The run's signal (or the Agent's) fired first.
    Aborted,
}

impl Settled {
    /// `{kind: "resolved", value?}`, `{kind: "rejected" | "unreadable", reason}` or
    /// `{kind: "aborted"}`. Read by hand, not by a derived decoder: serde's tagged enums
    /// buffer their content through generic code the module would carry for this one
    /// value. Anything else is [`Settled::Unreadable`].
    pub fn from_value(value: Value) -> Settled {
        let Value::Object(mut fields) = value else {
            return Settled::Unreadable {
                reason: "the summary request settled with no object".owned(),
            };
        };
        let reason = match fields.get("reason") {
            Some(Value::String(reason)) => reason.clone(),
            _ => String::new(),
        };
        match fields.get("kind").and_then(Value::as_str) {
            Some("resolved") => Settled::Resolved {
                value: fields.get_mut("value").map_or(Value::Null, Value::take),
            },
            Some("rejected") => Settled::Rejected { reason },
            Some("unreadable") => Settled::Unreadable { reason },
            Some("aborted") => Settled::Aborted,
            _ => Settled::Unreadable {
                reason: "the summary request settled with no kind".owned(),
            },
        }
    }

    /// The reply the step machine takes.
    pub fn into_reply(self) -> Reply {
        match self {
            Settled::Resolved { value } => reply_of_value(&value),
            Settled::Rejected { reason } => Reply::Rejected(reason),
            Settled::Unreadable { reason } => {
                Reply::Rejected(format!("reading the summary threw: {reason}"))
            }
            Settled::Aborted => Reply::RunAborted,
        }
    }
}

/// The reply a resolved value gives: a string is the summary text; an object is an
/// assistant message whose text is its `content` (a string, or its text blocks joined
/// by newlines), else its `text`; an object with none of them and no `stopReason`, or
/// anything else, is unreadable.
fn reply_of_value(value: &Value) -> Reply {
    let object = match value {
        Value::String(text) => return Reply::Text(text.clone()),
        Value::Object(object) => object,
        _ => return Reply::Unreadable,
    };
    let string = |key: &str| object.get(key).and_then(Value::as_str).map(Owned::owned);
    let stop_reason = string("stopReason");
    let text = match object.get("content") {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Array(blocks)) => Some(
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .joined("\n"),
        ),
        _ => string("text"),
    };
    if text.is_none() && stop_reason.is_none() {
        return Reply::Unreadable;
    }
    Reply::Message {
        text: text.unwrap_or_default(),
        stop_reason: stop_reason.as_deref().map(StopReason::parse),
        error_message: string("errorMessage"),
    }
}

// ---------------------------------------------------------------- the lock

/// Who holds a [`Lock`]: names the call that found it held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The pi `Agent` hook of `createPrepareNextTurn`.
    Hook,
    /// `DelegateContext.runTurn`.
    RunTurn,
}

/// One boundary at a time over a delegate's context: while a driver awaits the host's
/// summarizer, the context must not change and no second boundary may start (the
/// outcome is applied to the context the step began from). Clones share the lock.
#[derive(Clone, Debug)]
pub struct Lock {
    held: Rc<Cell<bool>>,
    holder: Holder,
}

/// A held [`Lock`]; dropping it releases the lock (whatever way the step ended).
#[derive(Debug)]
pub struct Held(Rc<Cell<bool>>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl Lock {
    pub fn new(holder: Holder) -> Lock {
        Lock {
            held: Rc::new(Cell::new(false)),
            holder,
        }
    }

    /// `INVALID_STATE` while the lock is held.
    #[inline(never)]
    pub fn check(&self) -> Result<()> {
        if !self.held.get() {
            return Ok(());
        }
        Err(Error::InvalidState {
            message: match self.holder {
                Holder::Hook => "the hook was called again before its previous call settled",
                Holder::RunTurn => "a runTurn of this context is still waiting for its summary",
            }
            .into(),
        })
    }

    /// Take the lock until the [`Held`] is dropped; `INVALID_STATE` while it is held.
    #[inline(never)]
    pub fn acquire(&self) -> Result<Held> {
        self.check()?;
        self.held.set(true);
        Ok(Held(self.held.clone()))
    }
}

// ---------------------------------------------------------------- the run

/// What `createPrepareNextTurn`'s `onOutcome` receives after each boundary: this step's
/// outcome and the run's counts so far. Written for JavaScript as the outcome's figures
/// (not its messages, its turn or its own counts) with the run's `boundaries`,
/// `contextCompactions` and `contextDegraded` at the top level, read from
/// [`DelegateTurnReport::run`], and the run's counts again under `run`.
#[derive(Clone, Debug, PartialEq)]
pub struct DelegateTurnReport<'o> {
    /// This step's outcome.
    pub outcome: &'o DelegateTurnOutcome,
    /// The run's counts so far, this step included.
    pub run: RunTally,
}

/// What `createPrepareNextTurn`'s `onOutcome` receives after each boundary.
// (the JSON form of [`DelegateTurnReport`]: the run's counts at the top level too)
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(rename = "DelegateTurnReport")]
struct DelegateTurnReportJs {
    outcome: TurnOutcomeKind,
    tokens_before: u64,
    tokens_after: u64,
    hard_limit: u64,
    summarized_messages: usize,
    dropped_messages: usize,
    dropped_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    reason: Option<DegradeReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    summary_error: Option<String>,
    /// Boundaries seen so far by this hook.
    boundaries: u32,
    /// For the delegation summary: compactions (and degradations) so far.
    context_compactions: u32,
    /// For the delegation summary: whether the run has lost history.
    context_degraded: bool,
    /// The run's counts so far (give them to `reportForParent` with the final report).
    run: RunTally,
}

impl Serialize for DelegateTurnReport<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let out = self.outcome;
        DelegateTurnReportJs {
            outcome: out.outcome,
            tokens_before: out.tokens_before,
            tokens_after: out.tokens_after,
            hard_limit: out.hard_limit,
            summarized_messages: out.summarized_messages,
            dropped_messages: out.dropped_messages,
            dropped_tokens: out.dropped_tokens,
            reason: out.reason,
            summary_error: out.summary_error.clone(),
            boundaries: self.run.boundaries,
            context_compactions: self.run.context_compactions,
            context_degraded: self.run.context_degraded,
            run: self.run.clone(),
        }
        .serialize(s)
    }
}

/// A delegate run as the pi `Agent` hook drives it, one boundary per Agent turn: its
/// configuration, its counts, its lock, and the request overhead last computed, keyed
/// by what it was computed from (`K`: the binding's identity of the Agent's system
/// prompt and tools).
#[derive(Debug)]
pub struct Run<K> {
    config: TurnConfig,
    tally: RunTally,
    lock: Lock,
    overhead: Option<(K, f64)>,
}

impl<K: PartialEq> Run<K> {
    /// A run with `config`, continuing the counts of `previous` (the last `run` of the
    /// hook before it, on another model: see [`RunTally::continued`]), or from zero.
    pub fn new(config: TurnConfig, previous: Option<&RunTally>) -> Run<K> {
        Run {
            config,
            tally: RunTally::continued(previous),
            lock: Lock::new(Holder::Hook),
            overhead: None,
        }
    }

    /// The run's lock (held while a boundary awaits the host).
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// The run's counts so far.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests (tests/hook_cost.rs)
    pub fn tally(&self) -> &RunTally {
        &self.tally
    }

    /// The configuration of a step taken at `clock`: the host's options, with `now` as
    /// [`TurnConfig::options_at`] says, and the host's `overheadTokens` or else the
    /// overhead of the request's system prompt and tools: `key()` names them, `compute`
    /// counts them, only when the key differs from the last one's.
    pub fn step_config(
        &mut self,
        clock: f64,
        key: impl FnOnce() -> Result<K>,
        compute: impl FnOnce(&K) -> Result<f64>,
    ) -> Result<TurnConfig> {
        let mut options = self.config.options_at(clock);
        if options.overhead_tokens.is_none() {
            let key = key()?;
            let tokens = match &self.overhead {
                Some((known, tokens)) if *known == key => *tokens,
                _ => {
                    let tokens = compute(&key)?;
                    self.overhead = Some((key, tokens));
                    tokens
                }
            };
            options.overhead_tokens = Some(tokens);
        }
        Ok(TurnConfig {
            options,
            ..self.config.clone()
        })
    }

    /// Count the boundary `out` and report it.
    pub fn record<'o>(&mut self, out: &'o DelegateTurnOutcome) -> DelegateTurnReport<'o> {
        self.tally.record(out);
        DelegateTurnReport {
            outcome: out,
            run: self.tally.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::turn::TurnKind;
    use serde_json::json;

    fn config(now: Option<f64>, overhead: Option<f64>) -> TurnConfig {
        TurnConfig {
            budget: crate::budget::context_budget(&crate::budget::BudgetModel::default()),
            model_id: "m".into(),
            options: DelegateTurnOptions {
                now,
                overhead_tokens: overhead,
                ..DelegateTurnOptions::default()
            },
        }
    }

    #[test]
    fn the_hosts_now_wins_over_the_clock() {
        assert_eq!(config(Some(5.0), None).options_at(99.0).now, Some(5.0));
        assert_eq!(config(None, None).options_at(99.0).now, Some(99.0));
        let mut run: Run<u8> = Run::new(config(Some(5.0), Some(1.0)), None);
        let step = run.step_config(99.0, || Ok(0), |_| Ok(0.0)).unwrap();
        assert_eq!(step.options.now, Some(5.0));
    }

    #[test]
    fn the_overhead_is_counted_once_per_system_prompt_and_tools() {
        let mut run: Run<&str> = Run::new(config(None, None), None);
        let computed = Cell::new(0);
        let mut step = |key: &'static str| {
            run.step_config(
                0.0,
                || Ok(key),
                |k| {
                    computed.set(computed.get() + 1);
                    Ok(k.len() as f64)
                },
            )
            .unwrap()
            .options
            .overhead_tokens
        };
        assert_eq!(step("abc"), Some(3.0));
        assert_eq!(step("abc"), Some(3.0));
        assert_eq!(computed.get(), 1);
        assert_eq!(step("abcdef"), Some(6.0));
        assert_eq!(computed.get(), 2);
        // the host's own overhead: nothing read, nothing computed
        let mut given: Run<&str> = Run::new(config(None, Some(7.0)), None);
        let step = given
            .step_config(
                0.0,
                || Err(Error::invalid("ctx.context.tools", "unread")),
                |_| unreachable!(),
            )
            .unwrap();
        assert_eq!(step.options.overhead_tokens, Some(7.0));
    }

    #[test]
    fn one_boundary_at_a_time() {
        for (holder, says) in [
            (Holder::Hook, "called again"),
            (Holder::RunTurn, "still waiting"),
        ] {
            let lock = Lock::new(holder);
            let shared = lock.clone();
            let held = lock.acquire().unwrap();
            for e in [shared.check().unwrap_err(), shared.acquire().unwrap_err()] {
                assert_eq!(e.code(), "INVALID_STATE");
                assert!(e.to_string().contains(says), "{e}");
            }
            drop(held);
            assert!(shared.check().is_ok());
            let again = shared.acquire().unwrap();
            assert!(lock.check().is_err());
            drop(again);
        }
    }

    fn outcome(kind: TurnOutcomeKind, degraded: bool, dropped: usize) -> DelegateTurnOutcome {
        let mut out = DelegateTurnOutcome::unchanged(3, 100, 40, 1000, TurnKind::Completed);
        out.outcome = kind;
        out.context_compactions = u32::from(kind != TurnOutcomeKind::Unchanged);
        out.context_degraded = degraded;
        out.dropped_messages = dropped;
        out.dropped_tokens = 10 * dropped as u64;
        out
    }

    #[test]
    fn the_run_counts_across_boundaries_and_a_continued_run_goes_on() {
        let mut run: Run<()> = Run::new(config(None, None), None);
        run.record(&outcome(TurnOutcomeKind::Unchanged, false, 0));
        run.record(&outcome(TurnOutcomeKind::Compacted, false, 0));
        let degraded = outcome(TurnOutcomeKind::Degraded, true, 4);
        let report = run.record(&degraded);
        let want = RunTally {
            boundaries: 3,
            context_compactions: 2,
            context_degraded: true,
            dropped_messages: 4,
            dropped_tokens: 40,
        };
        assert_eq!((run.tally(), &report.run), (&want, &want));
        // a hook on the fallback model continues the run: still degraded
        let mut next: Run<()> = Run::new(config(None, None), Some(&report.run));
        let unchanged = outcome(TurnOutcomeKind::Unchanged, false, 0);
        let report = next.record(&unchanged);
        assert_eq!(report.run.boundaries, 4);
        assert_eq!(report.run.context_compactions, 2);
        assert!(report.run.context_degraded);
        assert_eq!(report.outcome.outcome, TurnOutcomeKind::Unchanged);
    }

    #[test]
    fn the_report_writes_the_runs_counts_at_the_top_level_too() {
        let mut run: Run<()> = Run::new(config(None, None), None);
        let mut out = outcome(TurnOutcomeKind::Degraded, true, 2);
        out.reason = Some(DegradeReason::SummaryFailed);
        out.summary_error = Some("503".into());
        let report = run.record(&out);
        let run_json = json!({
            "boundaries": 1, "contextCompactions": 1, "contextDegraded": true,
            "droppedMessages": 2, "droppedTokens": 20
        });
        assert_eq!(
            serde_json::to_value(&report).unwrap(),
            json!({
                "outcome": "degraded", "tokensBefore": 100, "tokensAfter": 40, "hardLimit": 1000,
                "summarizedMessages": 0, "droppedMessages": 2, "droppedTokens": 20,
                "reason": "summaryFailed", "summaryError": "503",
                "boundaries": 1, "contextCompactions": 1, "contextDegraded": true,
                "run": run_json
            })
        );
        let unchanged = outcome(TurnOutcomeKind::Unchanged, false, 0);
        let quiet = serde_json::to_value(run.record(&unchanged)).unwrap();
        assert!(quiet.get("reason").is_none() && quiet.get("summaryError").is_none());
        assert_eq!(quiet["boundaries"], 2);
        assert_eq!(quiet["run"]["boundaries"], 2);
    }

    fn settled(v: Value) -> Reply {
        Settled::from_value(v).into_reply()
    }

    #[test]
    fn what_a_summarizer_settled_with_is_read_as_a_reply() {
        let message = |text: &str, stop: Option<StopReason>, error: Option<&str>| Reply::Message {
            text: text.into(),
            stop_reason: stop,
            error_message: error.map(Into::into),
        };
        let resolved = |value: Value| json!({ "kind": "resolved", "value": value });
        let cases = [
            (resolved(json!("## Goal")), Reply::Text("## Goal".into())),
            (resolved(json!("")), Reply::Text(String::new())),
            (json!({ "kind": "resolved" }), Reply::Unreadable),
            (resolved(json!(null)), Reply::Unreadable),
            (resolved(json!(42)), Reply::Unreadable),
            (resolved(json!({})), Reply::Unreadable),
            (
                resolved(json!({ "content": [
                    { "type": "thinking", "thinking": "t" },
                    { "type": "text", "text": "a" },
                    { "type": "text", "text": 5 },
                    null,
                    { "type": "text", "text": "b" }
                ], "stopReason": "stop" })),
                message("a\nb", Some(StopReason::Stop), None),
            ),
            (
                resolved(json!({ "content": "s" })),
                message("s", None, None),
            ),
            (resolved(json!({ "text": "s" })), message("s", None, None)),
            (
                resolved(json!({ "content": 5, "text": "s" })),
                message("s", None, None),
            ),
            (
                resolved(json!({ "content": [], "stopReason": "error", "errorMessage": "503" })),
                message("", Some(StopReason::Error), Some("503")),
            ),
            (
                resolved(json!({ "stopReason": "aborted", "errorMessage": 3 })),
                message("", Some(StopReason::Aborted), None),
            ),
            (
                resolved(json!({ "stopReason": 3, "content": 4 })),
                Reply::Unreadable,
            ),
            (
                json!({ "kind": "rejected", "reason": "503" }),
                Reply::Rejected("503".into()),
            ),
            (
                json!({ "kind": "unreadable", "reason": "getter" }),
                Reply::Rejected("reading the summary threw: getter".into()),
            ),
            (json!({ "kind": "aborted" }), Reply::RunAborted),
        ];
        for (value, want) in cases {
            assert_eq!(settled(value.clone()), want, "{value}");
        }
        for bad in [json!({ "kind": "maybe" }), json!("resolved"), json!(null)] {
            assert!(
                matches!(settled(bad.clone()), Reply::Rejected(r) if r.starts_with("reading the summary threw: the summary request settled with no")),
                "{bad}"
            );
        }
    }
}
