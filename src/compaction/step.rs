//! ADR 0299 clauses 3–5 as a state machine: a turn boundary begins, asks for the summary
//! request(s) it needs one at a time, interprets each reply, and ends with an outcome
//! (unchanged, compacted, degraded) or clause 5's `SUBAGENT_CONTEXT_OVERFLOW`.
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
//! to degrade, the counts) lives here and in [`super::turn`] / [`super::degrade`].
//!
//! A reply is a failed summary (the turn degrades, clause 4) when it is blank, an
//! assistant message that stopped with `error` or `aborted`, or a rejection of any kind,
//! including an `AbortError` the host's own request raised: only the run's own signals
//! (or the Agent's) abort the run, and the driver reports those as [`Reply::RunAborted`].

use super::context::DelegateContext;
use super::degrade::{degrade, DegradeInput};
use super::summary::{SummaryKind, SummaryRequest};
use super::turn::{
    assess, compose_compacted, Assessment, DegradeReason, DelegateTurnOptions, DelegateTurnOutcome,
    SummaryAnswer, TurnAction,
};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::stop_reason::StopReason;
#[cfg(not(target_arch = "wasm32"))]
use {super::turn::DelegateTurnPreparation, crate::message::AgentMessage};

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
                            .filter(|m| !m.trim().is_empty())
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
                    "summarize resolved with neither text nor an assistant message".into(),
                ))
            }
            Reply::RunAborted => return Err(NoSummary::RunAborted),
        };
        if text.trim().is_empty() {
            Err(NoSummary::Missing)
        } else {
            Ok(text)
        }
    }
}

/// Whether the compacted context cannot fit whatever the summary says: the brief and the
/// retained messages alone reach the limit.
fn summary_cannot_help(ctx: &DelegateContext, a: &Assessment) -> bool {
    a.plan.as_ref().is_some_and(|p| {
        ctx.tokens(0..1)
            .saturating_add(ctx.tokens(p.retained_range()))
            .saturating_add(a.overhead)
            >= a.fit_limit
    })
}

/// The failure of a summary that came back empty (or was not given).
fn missing(kind: Option<SummaryKind>) -> String {
    match kind {
        Some(SummaryKind::TurnPrefix) => "the turn prefix summary is missing or empty".into(),
        _ => "the history summary is missing or empty".into(),
    }
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
    assessment: Assessment,
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
            assessment: assess(ctx, budget, options)?,
            budget: *budget,
            model_id: model_id.to_string(),
            options: options.clone(),
            texts: Vec::new(),
            failure: None,
            aborted: false,
        })
    }

    /// The decision before any summary (`prepareDelegateTurn`).
    pub fn assessment(&self) -> &Assessment {
        &self.assessment
    }

    /// Record the reply to the request [`Turn::next`] asked for last.
    pub fn reply(&mut self, reply: Reply) {
        let kind = self
            .assessment
            .requests
            .get(self.texts.len())
            .map(|r| r.kind);
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
        let kinds: Vec<SummaryKind> = self.assessment.requests.iter().map(|r| r.kind).collect();
        for kind in kinds {
            let text = match kind {
                SummaryKind::History => history.clone(),
                SummaryKind::TurnPrefix => turn_prefix.clone(),
            };
            match text.filter(|t| !t.trim().is_empty()) {
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
        let assessment = &self.assessment;
        let degrade_input = |summary: Option<String>, reason, summary_error| DegradeInput {
            ctx,
            assessment,
            budget: &self.budget,
            model_id: &self.model_id,
            now: self.options.now.unwrap_or(0.0),
            summary,
            reason,
            summary_error,
        };
        match assessment.action {
            TurnAction::Unchanged => Ok(Next::Done(DelegateTurnOutcome::unchanged(
                ctx.len(),
                assessment.tokens,
                assessment.tokens,
                self.budget.hard_limit,
                assessment.turn,
            ))),
            TurnAction::Degrade => Ok(Next::Done(degrade(degrade_input(
                None,
                assessment
                    .reason
                    .unwrap_or(DegradeReason::NothingToSummarize),
                None,
            ))?)),
            TurnAction::Summarize => {
                if self.texts.is_empty() && summary_cannot_help(ctx, assessment) {
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
                if let Some(request) = assessment.requests.get(self.texts.len()) {
                    return Ok(Next::Summarize(request));
                }
                match compose_compacted(ctx, assessment, &self.budget, &self.options, &self.texts) {
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
    Ok(assess(&ctx, budget, options)?.preparation(budget))
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
            message: "a summary answer is missing".into(),
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
