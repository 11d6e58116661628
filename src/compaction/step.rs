//! ADR 0299 clauses 3–5 as a state machine, in the seed's order: a turn boundary
//! assesses its context ([`super::assess`]), plans the cut ([`super::plan`]), requests
//! the summary ([`super::request`]; one request at a time, each reply interpreted here)
//! and composes the compacted context ([`super::compose`]); when no summary can be had
//! or the result does not fit, it degrades (clause 4, [`super::degrade`]), and when even
//! that does not fit it fails with clause 5's `SUBAGENT_CONTEXT_OVERFLOW`.
//!
//! ```text
//! let mut turn = Turn::begin(&ctx, &budget, model_id, &options)?;
//! loop {
//!     match turn.next(&ctx)? {
//!         Next::Summarize(request) => turn.reply(ask_the_host(request).await),
//!         Next::Done(outcome) => break outcome,
//!     }
//! }
//! ```
//!
//! The async drivers (`runDelegateTurn`, the pi `Agent` hook) only await the host's
//! `summarize` between [`Turn::next`] calls; every rule (what a failed summary is, when
//! to degrade, the counts) lives here and in the steps' modules.
//!
//! A reply is a failed summary (the turn degrades, clause 4) when it is blank, an
//! assistant message that stopped with `error` or `aborted`, or a rejection of any kind,
//! including an `AbortError` the host's own request raised: only the run's own signals
//! (or the Agent's) abort the run, and the driver reports those as [`Reply::RunAborted`].

use super::assess::{assess, Assessment};
use super::compose::{compose_compacted, summary_cannot_help};
use super::context::DelegateContext;
use super::degrade::{degrade, DegradeInput};
use super::plan::{plan_boundary, CompactionPlan};
use super::request::summary_requests;
use super::turn::{
    DegradeReason, DelegateTurnOptions, DelegateTurnOutcome, DelegateTurnPreparation,
    SummaryAnswer, SummaryKind, SummaryRequest, TurnAction,
};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::js_whitespace;
#[cfg(not(target_arch = "wasm32"))]
use crate::message::AgentMessage;
use crate::stop_reason::StopReason;
use crate::text_build::Owned;

/// Everything a host's summarizer can answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The summary text.
    Text(String),
    /// An assistant message (pi-ai's `complete()` result): its text blocks joined by
    /// newlines, its `stopReason` and `errorMessage`.
    Message {
        text: String,
        stop_reason: Option<StopReason>,
        error_message: Option<String>,
    },
    /// The summarizer threw or its promise rejected (an `AbortError` of its own included).
    Rejected(String),
    /// The summarizer resolved with something that is neither text nor a message.
    Unreadable,
    /// The run's signal (or the Agent's) fired while the request was pending.
    RunAborted,
}

/// Why a reply gave no summary text.
#[derive(Clone, Debug, PartialEq, Eq)]
enum NoSummary {
    /// Blank text (named by the request's kind, see [`missing`]).
    Missing,
    /// The request failed, with the reason the degraded turn reports.
    Failed(String),
    /// The run's signal fired: the run aborts, it does not degrade.
    RunAborted,
}

impl Reply {
    /// The summary text, or why there is none.
    fn into_summary(self) -> std::result::Result<String, NoSummary> {
        let text = match self {
            Reply::Text(t) => t,
            Reply::Message {
                text,
                stop_reason,
                error_message,
            } => match stop_reason {
                Some(stop) if stop.is_failed() => {
                    return Err(NoSummary::Failed(
                        error_message
                            .filter(|m| !js_whitespace::is_blank(m))
                            .unwrap_or_else(|| {
                                format!(
                                    "the summary request ended with {}",
                                    stop.as_str().unwrap_or_default()
                                )
                            }),
                    ))
                }
                _ => text,
            },
            // a rejection without a reason reads as no summary (`throw new Error("")`)
            Reply::Rejected(message) if message.is_empty() => return Err(NoSummary::Missing),
            Reply::Rejected(message) => return Err(NoSummary::Failed(message)),
            Reply::Unreadable => {
                return Err(NoSummary::Failed(
                    "summarize resolved with neither text nor an assistant message".owned(),
                ))
            }
            Reply::RunAborted => return Err(NoSummary::RunAborted),
        };
        if js_whitespace::is_blank(&text) {
            Err(NoSummary::Missing)
        } else {
            Ok(text)
        }
    }
}

/// The failure of a summary that came back empty (or was not given).
#[inline(never)]
fn missing(kind: Option<SummaryKind>) -> String {
    match kind {
        Some(SummaryKind::TurnPrefix) => "the turn prefix summary is missing or empty".owned(),
        _ => "the history summary is missing or empty".owned(),
    }
}

/// Everything a boundary decides before any summary: the first three steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Step 1: the context's size, the threshold, the turn.
    pub assessment: Assessment,
    /// Step 2: the cut (absent below the threshold, or with nothing to compact).
    pub plan: Option<CompactionPlan>,
    /// Step 3: the summary request(s) to send, in order.
    pub requests: Vec<SummaryRequest>,
    pub action: TurnAction,
    pub reason: Option<DegradeReason>,
}

impl Decision {
    /// The preparation a host sees (`prepareDelegateTurn`).
    pub fn preparation(&self, budget: &ContextBudget) -> DelegateTurnPreparation {
        let (split, summarized, retained) = match &self.plan {
            Some(p) if self.action == TurnAction::Summarize => (
                !p.prefix_range().is_empty(),
                p.history_range().len() + p.compactable_prefix_range().len(),
                p.retained_range().len(),
            ),
            _ => (false, 0, 0),
        };
        let a = &self.assessment;
        DelegateTurnPreparation {
            action: self.action,
            tokens: a.tokens,
            threshold: a.threshold,
            hard_limit: budget.hard_limit,
            turn: a.turn,
            requests: self.requests.clone(),
            is_split_turn: split,
            summarized_messages: summarized,
            retained_messages: retained,
            reason: self.reason,
        }
    }
}

/// The decision before any summary: assess; at the threshold, plan the cut (with
/// `reserveTokens = requestHeadroom` and the budget's `keepRecentTokens`, retaining an
/// active turn) and build the summary request(s); the boundary degrades when there is
/// nothing to summarize or the request cannot fit.
///
/// Errors: `INVALID_INPUT` when the context is empty or does not start with the brief.
pub fn decide(
    ctx: &DelegateContext,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<Decision> {
    let assessment = assess(ctx, budget, options)?;
    let mut d = Decision {
        plan: None,
        requests: Vec::new(),
        action: TurnAction::Unchanged,
        reason: None,
        assessment,
    };
    if !d.assessment.reached() {
        return Ok(d);
    }
    d.action = TurnAction::Degrade;
    d.plan = plan_boundary(ctx, budget.keep_recent_tokens as f64, d.assessment.active);
    let Some(plan) = &d.plan else {
        d.reason = Some(DegradeReason::NothingToSummarize);
        return Ok(d);
    };
    match summary_requests(ctx, plan, budget, options) {
        Ok(requests) => {
            d.requests = requests;
            d.action = TurnAction::Summarize;
        }
        Err(reason) => d.reason = Some(reason),
    }
    Ok(d)
}

/// What the driver does next.
#[derive(Debug)]
pub enum Next<'t> {
    /// Send this request to the summarizing model, then call [`Turn::reply`].
    Summarize(&'t SummaryRequest),
    /// The boundary is decided.
    Done(DelegateTurnOutcome),
}

/// One turn boundary in progress.
#[derive(Debug)]
pub struct Turn {
    decision: Decision,
    budget: ContextBudget,
    model_id: String,
    options: DelegateTurnOptions,
    /// Summary texts received, in request order.
    texts: Vec<String>,
    failure: Option<String>,
    aborted: bool,
}

impl Turn {
    /// Begin a boundary: re-estimate the context and decide what it needs.
    ///
    /// Errors: `INVALID_INPUT` when the context is empty or does not start with the brief.
    pub fn begin(
        ctx: &DelegateContext,
        budget: &ContextBudget,
        model_id: &str,
        options: &DelegateTurnOptions,
    ) -> Result<Turn> {
        Ok(Turn {
            decision: decide(ctx, budget, options)?,
            budget: *budget,
            model_id: model_id.owned(),
            options: options.clone(),
            texts: Vec::new(),
            failure: None,
            aborted: false,
        })
    }

    /// The decision before any summary (`prepareDelegateTurn`).
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// Record the reply to the request [`Turn::next`] asked for last.
    pub fn reply(&mut self, reply: Reply) {
        let kind = self.decision.requests.get(self.texts.len()).map(|r| r.kind);
        match reply.into_summary() {
            Ok(text) => self.texts.push(text),
            Err(NoSummary::Missing) => self.failure = Some(missing(kind)),
            Err(NoSummary::Failed(why)) => self.failure = Some(why),
            Err(NoSummary::RunAborted) => self.aborted = true,
        }
    }

    /// Record the answers of a host that sent every request itself
    /// (`completeDelegateTurn`): texts by kind, or the error it met.
    pub fn answer_all(
        &mut self,
        history: Option<String>,
        turn_prefix: Option<String>,
        error: Option<String>,
    ) {
        if let Some(e) = error {
            self.failure = Some(e);
            return;
        }
        let kinds: Vec<SummaryKind> = self.decision.requests.iter().map(|r| r.kind).collect();
        for kind in kinds {
            let text = match kind {
                SummaryKind::History => history.clone(),
                SummaryKind::TurnPrefix => turn_prefix.clone(),
            };
            match text.filter(|t| !js_whitespace::is_blank(t)) {
                Some(t) => self.texts.push(t),
                None => {
                    self.failure = Some(missing(Some(kind)));
                    return;
                }
            }
        }
    }

    /// The next request to send, or the outcome.
    ///
    /// Errors: `ABORTED` after [`Reply::RunAborted`]; `SUBAGENT_CONTEXT_OVERFLOW` when
    /// even the degraded context does not fit (clause 5).
    pub fn next(&self, ctx: &DelegateContext) -> Result<Next<'_>> {
        if self.aborted {
            return Err(Error::Aborted);
        }
        let decision = &self.decision;
        let assessment = &decision.assessment;
        let plan = decision.plan.as_ref();
        let degrade_input = |summary: Option<String>, reason, summary_error| DegradeInput {
            ctx,
            assessment,
            plan,
            budget: &self.budget,
            model_id: &self.model_id,
            now: self.options.now.unwrap_or(0.0),
            summary,
            reason,
            summary_error,
        };
        match decision.action {
            TurnAction::Unchanged => Ok(Next::Done(DelegateTurnOutcome::unchanged(
                ctx.len(),
                assessment.tokens,
                assessment.tokens,
                self.budget.hard_limit,
                assessment.turn,
            ))),
            TurnAction::Degrade => Ok(Next::Done(degrade(degrade_input(
                None,
                decision.reason.unwrap_or(DegradeReason::NothingToSummarize),
                None,
            ))?)),
            TurnAction::Summarize => {
                if self.texts.is_empty() && summary_cannot_help(ctx, assessment, plan) {
                    // the brief and the retained turn alone are over the limit, and even the
                    // degraded context would not fit: fail now, without a summary request
                    degrade(degrade_input(None, DegradeReason::StillOverLimit, None))?;
                }
                if let Some(why) = &self.failure {
                    return Ok(Next::Done(degrade(degrade_input(
                        None,
                        DegradeReason::SummaryFailed,
                        Some(why.clone()),
                    ))?));
                }
                if let Some(request) = decision.requests.get(self.texts.len()) {
                    return Ok(Next::Summarize(request));
                }
                match compose_compacted(
                    ctx,
                    assessment,
                    plan,
                    &self.budget,
                    &self.options,
                    &self.texts,
                ) {
                    Ok(outcome) => Ok(Next::Done(outcome)),
                    Err(summary) => Ok(Next::Done(degrade(degrade_input(
                        Some(summary),
                        DegradeReason::StillOverLimit,
                        None,
                    ))?)),
                }
            }
        }
    }
}

// ---------------------------------------------------------------- one-shot calls

/// The synchronous decision at a delegate turn boundary over typed messages.
///
/// Errors: `INVALID_INPUT` when `messages` is empty or does not start with the brief.
#[cfg(not(target_arch = "wasm32"))] // for the native tests (the binding reads host messages)
pub fn prepare_delegate_turn(
    messages: &[AgentMessage],
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<DelegateTurnPreparation> {
    let ctx = DelegateContext::from_messages(messages)?;
    Ok(decide(&ctx, budget, options)?.preparation(budget))
}

/// The second half over typed messages: the final context for the summary text(s) given
/// (or the failure), through the same [`Turn`] the async drivers use.
///
/// Errors: `SUBAGENT_CONTEXT_OVERFLOW` (clause 5) when even the degraded context does not
/// fit hardLimit; `INVALID_INPUT` as [`prepare_delegate_turn`].
#[cfg(not(target_arch = "wasm32"))] // for the native tests (the binding reads host messages)
pub fn complete_delegate_turn(
    messages: &[AgentMessage],
    budget: &ContextBudget,
    model_id: &str,
    options: &DelegateTurnOptions,
    answer: &SummaryAnswer,
) -> Result<DelegateTurnOutcome> {
    let ctx = DelegateContext::from_messages(messages)?;
    complete_turn(&ctx, budget, model_id, options, answer)
}

/// [`complete_delegate_turn`] over a context.
pub fn complete_turn(
    ctx: &DelegateContext,
    budget: &ContextBudget,
    model_id: &str,
    options: &DelegateTurnOptions,
    answer: &SummaryAnswer,
) -> Result<DelegateTurnOutcome> {
    let mut turn = Turn::begin(ctx, budget, model_id, options)?;
    turn.answer_all(
        answer.history.clone(),
        answer.turn_prefix.clone(),
        answer.error.clone(),
    );
    match turn.next(ctx)? {
        Next::Done(out) => Ok(out),
        // every request was answered (or the answer failed): `next` cannot ask again
        Next::Summarize(_) => Err(Error::InvalidState {
            message: "a summary answer is missing".owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reply_gives_its_summary_or_why_not() {
        let message = |text: &str, stop: Option<StopReason>, error: Option<&str>| Reply::Message {
            text: text.into(),
            stop_reason: stop,
            error_message: error.map(Into::into),
        };
        let failed = |why: &str| Err(NoSummary::Failed(why.into()));
        let cases = [
            (Reply::Text("## Goal".into()), Ok("## Goal".to_string())),
            (Reply::Text(" \n\t".into()), Err(NoSummary::Missing)),
            (message("s", Some(StopReason::Stop), None), Ok("s".into())),
            (message("s", None, Some("x")), Ok("s".into())),
            (message("s", Some(StopReason::Other), None), Ok("s".into())),
            (
                message("", Some(StopReason::Stop), None),
                Err(NoSummary::Missing),
            ),
            (
                message("s", Some(StopReason::Error), Some("overloaded")),
                failed("overloaded"),
            ),
            (
                message("s", Some(StopReason::Error), Some("  ")),
                failed("the summary request ended with error"),
            ),
            (
                message("s", Some(StopReason::Aborted), None),
                failed("the summary request ended with aborted"),
            ),
            (Reply::Rejected("503".into()), failed("503")),
            (Reply::Rejected(String::new()), Err(NoSummary::Missing)),
            (
                Reply::Unreadable,
                failed("summarize resolved with neither text nor an assistant message"),
            ),
            (Reply::RunAborted, Err(NoSummary::RunAborted)),
        ];
        for (reply, want) in cases {
            assert_eq!(reply.clone().into_summary(), want, "{reply:?}");
        }
    }
}
