//! ADR 0299 clauses 3–5 (host-contract §5): the decision a delegate makes at each turn
//! boundary — leave the context alone, compact it, degrade it, or fail with
//! `SUBAGENT_CONTEXT_OVERFLOW` — in two synchronous halves so the host can send the
//! summary request in between:
//!
//! 1. [`prepare_delegate_turn`]: re-estimate the context; below the threshold nothing
//!    happens (clause 3: `hardLimit`, no pre-computation, no second threshold; the
//!    budget's `compactionTrigger` is an opt-in earlier trigger). Otherwise plan a pi
//!    compaction with `reserveTokens = requestHeadroom` and the budget's
//!    `keepRecentTokens`, retaining the active turn (ADR 0136), and build the summary
//!    request(s).
//! 2. [`complete_delegate_turn`]: with the summary text(s) (or the failure), build the
//!    compacted context `[brief, compactionSummary, retained...]`, re-estimate it from
//!    per-message sizes (the recorded usage described the old context) and check it
//!    against `hardLimit`; else degrade (clause 4) to the brief plus the newest messages
//!    that fit, marked degraded; if even the brief does not fit, clause 5's error.
//!
//! Both halves are pure and deterministic: `complete` re-derives the plan from the same
//! input, so the host keeps no state between them.
//!
//! Stale usage (field notes, pi #1860): the `compactionSummary` this library writes
//! carries `details.retainedMessages`, the number of messages after it that were kept
//! from before the compaction. Provider usage of those messages describes the old
//! context and is not trusted when re-estimating; usage of later responses is.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tsify::Tsify;

use super::prepare::{
    last_summary_index, plan_compaction, plan_file_ops, plan_previous_summary, with_cut_at,
    CompactionPlan,
};
use super::summary::{
    build_summary_request, combine_summary, SummaryKind, SummaryRequest, SummaryRequestSpec,
};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::message::{AgentMessage, CompactionSummaryMessage, ContentBlock, Extra};
use crate::tokens::{calculate_context_tokens, estimate_tokens, trusted_usage};

/// Host options of a boundary step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnOptions {
    /// Compact from the budget's `compactionTrigger` (90% of hardLimit) instead of at
    /// hardLimit. Off by default (ADR 0299 clause 3).
    #[serde(default)]
    #[tsify(optional)]
    pub early_trigger: bool,
    /// Tokens of every request that are not messages (system prompt, tool schemas). Added
    /// to per-message estimates; provider usage already includes them.
    #[serde(default)]
    #[tsify(optional)]
    pub overhead_tokens: Option<f64>,
    /// The summarizing model's `maxTokens` (default: the budget's `maxOutputTokens`).
    #[serde(default)]
    #[tsify(optional)]
    pub summary_max_tokens: Option<f64>,
    /// pi's `customInstructions` ("Additional focus: ...") for the history summary.
    #[serde(default)]
    #[tsify(optional)]
    pub custom_instructions: Option<String>,
    /// Timestamp for messages this step creates (default: `Date.now()` in JavaScript).
    #[serde(default)]
    #[tsify(optional)]
    pub now: Option<f64>,
}

/// ADR 0136: is the delegate in the middle of a turn?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum TurnKind {
    /// The last assistant called tools (results pending or just answered): it and its
    /// results are always retained verbatim.
    Active,
    /// The last assistant finished its answer: pi's cut applies unchanged.
    Completed,
}

/// What the boundary step does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum TurnAction {
    /// Below the threshold: send the next request as is.
    Unchanged,
    /// Send `requests` to the summarizing model, then call `completeDelegateTurn`.
    Summarize,
    /// Compaction cannot help (see `reason`): call `completeDelegateTurn` without summaries.
    Degrade,
}

/// Why a step degraded (or planned to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum DegradeReason {
    /// The summary request failed, was rejected, or came back empty.
    SummaryFailed,
    /// The compacted context was still at or above hardLimit.
    StillOverLimit,
    /// Everything compactable is within keepRecentTokens: a summary would remove nothing.
    NothingToSummarize,
    /// The summary request itself cannot fit the model's window.
    SummaryRequestTooLarge,
}

/// The outcome recorded in the host's delegation summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum TurnOutcomeKind {
    Unchanged,
    Compacted,
    Degraded,
}

/// The synchronous first half: what to do, and the summary request(s) to send.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnPreparation {
    pub action: TurnAction,
    /// The context's size at the boundary (trusted provider usage + estimates after it).
    pub tokens: u64,
    /// What `tokens` was compared with (hardLimit, or compactionTrigger when early).
    pub threshold: u64,
    pub hard_limit: u64,
    pub turn: TurnKind,
    /// In order: the history summary (absent when a split turn has no earlier history),
    /// then the split turn's prefix summary.
    pub requests: Vec<SummaryRequest>,
    pub is_split_turn: bool,
    /// Messages the summary replaces (history + split-turn prefix).
    pub summarized_messages: usize,
    /// Messages kept verbatim after the summary.
    pub retained_messages: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reason: Option<DegradeReason>,
}

/// The host's answer to the summary request(s).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryAnswer {
    /// Text of the `history` request's response.
    #[serde(default)]
    #[tsify(optional)]
    pub history: Option<String>,
    /// Text of the `turnPrefix` request's response.
    #[serde(default)]
    #[tsify(optional)]
    pub turn_prefix: Option<String>,
    /// Set when a request failed (the message is reported back as `summaryError`).
    #[serde(default)]
    #[tsify(optional)]
    pub error: Option<String>,
}

/// The result of a boundary step.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnOutcome {
    pub outcome: TurnOutcomeKind,
    /// The context for the next request (the input, unchanged, for `unchanged`).
    pub messages: Vec<AgentMessage>,
    pub tokens_before: u64,
    /// Per-message estimate (+ overheadTokens) of `messages`; for `unchanged`, the boundary figure.
    pub tokens_after: u64,
    pub hard_limit: u64,
    pub turn: TurnKind,
    pub is_split_turn: bool,
    /// Messages replaced by the summary.
    pub summarized_messages: usize,
    /// Messages neither kept verbatim nor summarized (degraded only).
    pub dropped_messages: usize,
    pub dropped_tokens: u64,
    /// 1 when this step rewrote the context (compacted or degraded), else 0.
    pub context_compactions: u32,
    /// This step lost history without a complete summary.
    pub context_degraded: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reason: Option<DegradeReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub summary_error: Option<String>,
}

impl DelegateTurnOutcome {
    /// The outcome of a boundary that leaves `messages` as they are.
    pub fn unchanged(
        messages: Vec<AgentMessage>,
        tokens_before: u64,
        tokens_after: u64,
        hard_limit: u64,
        turn: TurnKind,
    ) -> Self {
        DelegateTurnOutcome {
            outcome: TurnOutcomeKind::Unchanged,
            messages,
            tokens_before,
            tokens_after,
            hard_limit,
            turn,
            is_split_turn: false,
            summarized_messages: 0,
            dropped_messages: 0,
            dropped_tokens: 0,
            context_compactions: 0,
            context_degraded: false,
            reason: None,
            summary_error: None,
        }
    }
}

/// Everything both halves derive from the input.
struct Analysis {
    tokens: u64,
    threshold: u64,
    turn: TurnKind,
    plan: Option<CompactionPlan>,
    requests: Vec<SummaryRequest>,
    action: TurnAction,
    reason: Option<DegradeReason>,
}

fn overhead(options: &DelegateTurnOptions) -> u64 {
    options.overhead_tokens.map_or(0, to_u64)
}

/// Token counts above this are treated as this (a host's absurd number must not
/// overflow a sum; no model window comes near it).
const MAX_TOKENS: f64 = 1e15;

fn to_u64(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        x.ceil().min(MAX_TOKENS) as u64
    } else {
        0
    }
}

/// Sum of per-message estimates plus the request overhead.
pub fn estimate_with_overhead(messages: &[AgentMessage], overhead_tokens: u64) -> u64 {
    messages.iter().map(estimate_tokens).sum::<u64>() + overhead_tokens
}

/// First index whose provider usage can describe the current context: after the
/// messages a previous compaction retained (see the module docs).
pub fn fresh_usage_start(messages: &[AgentMessage]) -> usize {
    match last_summary_index(messages) {
        Some(k) => fresh_start_after(k, &messages[k]),
        None => 0,
    }
}

/// The first fresh index when the last `compactionSummary` is `summary`, at index `k`.
fn fresh_start_after(k: usize, summary: &AgentMessage) -> usize {
    let AgentMessage::CompactionSummary(s) = summary else {
        return 0;
    };
    let retained = s
        .extra
        .get("details")
        .and_then(|d| d.get("retainedMessages"))
        .and_then(Value::as_f64)
        .filter(|r| r.is_finite() && *r >= 0.0)
        .map_or(0, |r| r as usize);
    k.saturating_add(1).saturating_add(retained)
}

/// The boundary's re-estimate: the last *fresh* trusted usage plus the estimates after
/// it; with none, per-message estimates plus the overhead.
pub fn boundary_tokens(messages: &[AgentMessage], overhead_tokens: u64) -> u64 {
    let fresh = fresh_usage_start(messages);
    let anchor = messages
        .iter()
        .enumerate()
        .skip(fresh)
        .rev()
        .find_map(|(i, m)| trusted_usage(m).map(|u| (i, u)));
    match anchor {
        Some((i, u)) => {
            to_u64(calculate_context_tokens(u))
                + messages[i + 1..].iter().map(estimate_tokens).sum::<u64>()
        }
        None => estimate_with_overhead(messages, overhead_tokens),
    }
}

/// ADR 0136: active when the last assistant called tools or stopped with `toolUse`.
/// Returns the kind and that assistant's index.
pub fn turn_kind(messages: &[AgentMessage]) -> (TurnKind, Option<usize>) {
    let last = messages.iter().rposition(|m| m.as_assistant().is_some());
    let Some(i) = last else {
        return (TurnKind::Completed, None);
    };
    let a = messages[i].as_assistant();
    let active = a.is_some_and(|a| {
        a.tool_calls().next().is_some() || a.stop_reason.as_deref() == Some("toolUse")
    });
    if active {
        (TurnKind::Active, Some(i))
    } else {
        (TurnKind::Completed, Some(i))
    }
}

fn validate(messages: &[AgentMessage], budget: &ContextBudget) -> Result<()> {
    match messages.first() {
        None => Err(Error::invalid(
            "messages",
            "a delegate context needs at least its task brief (a user message)",
        )),
        Some(AgentMessage::User(_)) => {
            if budget.hard_limit == 0 {
                return Err(Error::invalid("budget.hardLimit", "expected a number >= 1"));
            }
            Ok(())
        }
        Some(other) => Err(Error::invalid(
            "messages[0]",
            format!(
                "the first message must be the delegate's task brief (a user message), got role \"{}\"",
                other.role()
            ),
        )),
    }
}

/// hardLimit (clause 3), or the opt-in earlier trigger.
fn threshold(budget: &ContextBudget, options: &DelegateTurnOptions) -> u64 {
    if options.early_trigger {
        budget.compaction_trigger.max(1)
    } else {
        budget.hard_limit
    }
}

/// The turn-boundary check for the common case, without reading the whole context.
///
/// Reads the messages through `get`, newest first, until the last fresh trusted usage
/// (plus the brief and the last `compactionSummary`, whose index the caller found by
/// role alone). When that figure is below the threshold the answer is
/// [`prepare_delegate_turn`]'s `unchanged` preparation, identical field for field;
/// otherwise (`None`) the caller runs the full analysis. At every turn of a long
/// delegate this keeps the cost proportional to what came after the last provider
/// response, not to the whole history.
pub fn quick_unchanged(
    len: usize,
    last_summary: Option<usize>,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
    mut get: impl FnMut(usize) -> Result<AgentMessage>,
) -> Result<Option<DelegateTurnPreparation>> {
    if len == 0 {
        return Ok(None);
    }
    let brief = get(0)?;
    validate(std::slice::from_ref(&brief), budget)?;
    let fresh = match last_summary {
        Some(k) if k < len => fresh_start_after(k, &get(k)?),
        _ => 0,
    };
    let threshold = threshold(budget, options);
    let mut tail: Vec<AgentMessage> = Vec::new();
    let mut trailing = 0u64;
    for i in (fresh.max(1)..len).rev() {
        let m = get(i)?;
        if let Some(u) = trusted_usage(&m) {
            let tokens = to_u64(calculate_context_tokens(u)) + trailing;
            if tokens >= threshold {
                return Ok(None);
            }
            tail.push(m);
            tail.reverse();
            let (turn, _) = turn_kind(&tail);
            return Ok(Some(DelegateTurnPreparation {
                action: TurnAction::Unchanged,
                tokens,
                threshold,
                hard_limit: budget.hard_limit,
                turn,
                requests: Vec::new(),
                is_split_turn: false,
                summarized_messages: 0,
                retained_messages: 0,
                reason: None,
            }));
        }
        trailing += estimate_tokens(&m);
        tail.push(m);
    }
    Ok(None)
}

fn analyze(
    messages: &[AgentMessage],
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<Analysis> {
    validate(messages, budget)?;
    let ov = overhead(options);
    let tokens = boundary_tokens(messages, ov);
    let threshold = threshold(budget, options);
    let (turn, last_assistant) = turn_kind(messages);
    let mut a = Analysis {
        tokens,
        threshold,
        turn,
        plan: None,
        requests: Vec::new(),
        action: TurnAction::Unchanged,
        reason: None,
    };
    if tokens < threshold {
        return Ok(a);
    }
    let max_cut = match turn {
        TurnKind::Active => last_assistant,
        TurnKind::Completed => None,
    };
    let plan = plan_compaction(
        messages,
        1,
        messages.len(),
        budget.keep_recent_tokens as f64,
        max_cut,
    );
    a.action = TurnAction::Degrade;
    let Some(plan) = plan else {
        a.reason = Some(DegradeReason::NothingToSummarize);
        return Ok(a);
    };
    // An active turn whose own tool results reach keepRecentTokens leaves pi's cut at the
    // first cut point, so nothing would be summarized and the run would degrade. Cut at
    // the active assistant instead: what came before it is summarized, and the turn (the
    // assistant with its results) stays verbatim, as ADR 0136 retains an active turn.
    let plan = match last_assistant {
        Some(la)
            if turn == TurnKind::Active
                && plan.history_range().is_empty()
                && plan.prefix_range().is_empty()
                && la > plan.compactable_start =>
        {
            with_cut_at(messages, &plan, la)
        }
        _ => plan,
    };
    a.plan = Some(plan);
    let history = plan.history_range();
    let prefix = plan.prefix_range();
    if history.is_empty() && prefix.is_empty() {
        a.reason = Some(DegradeReason::NothingToSummarize);
        return Ok(a);
    }
    let split = !prefix.is_empty();
    let previous = plan_previous_summary(messages, &plan);
    let spec = |kind, range: std::ops::Range<usize>| SummaryRequestSpec {
        kind,
        messages: &messages[range],
        previous_summary: previous,
        custom_instructions: options.custom_instructions.as_deref(),
        reserve_tokens: budget.request_headroom as f64,
        model_max_tokens: options
            .summary_max_tokens
            .unwrap_or(budget.max_output_tokens as f64),
        context_window: budget.context_window,
        now: options.now.unwrap_or(0.0),
    };
    let mut wanted = Vec::new();
    if !history.is_empty() {
        wanted.push(spec(SummaryKind::History, history));
    }
    if split {
        wanted.push(spec(SummaryKind::TurnPrefix, prefix));
    }
    for s in &wanted {
        match build_summary_request(s) {
            Some(r) => a.requests.push(r),
            None => {
                a.requests.clear();
                a.reason = Some(DegradeReason::SummaryRequestTooLarge);
                return Ok(a);
            }
        }
    }
    a.action = TurnAction::Summarize;
    Ok(a)
}

/// The synchronous decision at a delegate turn boundary (see the module docs).
///
/// Errors: `INVALID_INPUT` when `messages` is empty or does not start with the brief.
pub fn prepare_delegate_turn(
    messages: &[AgentMessage],
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<DelegateTurnPreparation> {
    let a = analyze(messages, budget, options)?;
    let (split, summarized, retained) = match &a.plan {
        Some(p) if a.action == TurnAction::Summarize => (
            !p.prefix_range().is_empty(),
            p.history_range().len() + p.prefix_range().len(),
            p.retained_range().len(),
        ),
        _ => (false, 0, 0),
    };
    Ok(DelegateTurnPreparation {
        action: a.action,
        tokens: a.tokens,
        threshold: a.threshold,
        hard_limit: budget.hard_limit,
        turn: a.turn,
        requests: a.requests,
        is_split_turn: split,
        summarized_messages: summarized,
        retained_messages: retained,
        reason: a.reason,
    })
}

fn blank(s: &Option<String>) -> bool {
    s.as_deref().is_none_or(|t| t.trim().is_empty())
}

fn summary_message(summary: String, tokens_before: u64, now: f64, details: Value) -> AgentMessage {
    let mut extra = Extra::new();
    extra.insert("details".into(), details);
    AgentMessage::CompactionSummary(CompactionSummaryMessage {
        summary,
        tokens_before: Some(tokens_before as f64),
        timestamp: Some(now),
        extra,
    })
}

/// The second half: the final context for the summary text(s) given (or the failure).
///
/// Errors: `SUBAGENT_CONTEXT_OVERFLOW` (clause 5) when even the brief alone does not fit
/// hardLimit; `INVALID_INPUT` as [`prepare_delegate_turn`].
pub fn complete_delegate_turn(
    messages: &[AgentMessage],
    budget: &ContextBudget,
    model_id: &str,
    options: &DelegateTurnOptions,
    answer: &SummaryAnswer,
) -> Result<DelegateTurnOutcome> {
    let a = analyze(messages, budget, options)?;
    let ov = overhead(options);
    let now = options.now.unwrap_or(0.0);
    let ctx = Ctx {
        messages,
        budget,
        model_id,
        overhead: ov,
        now,
        tokens_before: a.tokens,
        turn: a.turn,
        fit_limit: fit_limit(messages, budget, ov, a.tokens),
    };
    match a.action {
        TurnAction::Unchanged => Ok(ctx.unchanged(a.tokens)),
        TurnAction::Degrade => ctx.degrade(
            a.plan.as_ref(),
            None,
            a.reason.unwrap_or(DegradeReason::NothingToSummarize),
            None,
        ),
        TurnAction::Summarize => {
            let Some(plan) = a.plan else {
                return ctx.degrade(None, None, DegradeReason::NothingToSummarize, None);
            };
            let split = !plan.prefix_range().is_empty();
            let needs_history = !plan.history_range().is_empty();
            let failure = if answer.error.is_some() {
                answer.error.clone()
            } else if needs_history && blank(&answer.history) {
                Some("the history summary is missing or empty".to_string())
            } else if split && blank(&answer.turn_prefix) {
                Some("the turn prefix summary is missing or empty".to_string())
            } else {
                None
            };
            if let Some(err) = failure {
                return ctx.degrade(Some(&plan), None, DegradeReason::SummaryFailed, Some(err));
            }
            let (read, modified) = plan_file_ops(messages, &plan).file_lists();
            let previous = plan_previous_summary(messages, &plan);
            // pi says "No prior history." when a split turn has nothing before it; a
            // previous summary is that history (pi #2608: never lose what was kept).
            let history = if needs_history {
                answer.history.as_deref()
            } else {
                previous
            };
            let summary = combine_summary(
                if split {
                    answer.turn_prefix.as_deref()
                } else {
                    None
                },
                history,
                &read,
                &modified,
            );
            let retained = &messages[plan.retained_range()];
            let details = json!({
                "readFiles": read,
                "modifiedFiles": modified,
                "retainedMessages": retained.len(),
            });
            let mut out = Vec::with_capacity(retained.len() + 2);
            out.push(messages[0].clone());
            out.push(summary_message(summary.clone(), a.tokens, now, details));
            out.extend_from_slice(retained);
            let after = estimate_with_overhead(&out, ov);
            if after < ctx.fit_limit {
                let summarized = plan.history_range().len() + plan.prefix_range().len();
                // messages between the brief and a previous summary were already summarized
                let skipped = plan
                    .previous_summary_index
                    .map_or(0, |i| i.saturating_sub(1));
                return Ok(DelegateTurnOutcome {
                    outcome: TurnOutcomeKind::Compacted,
                    messages: out,
                    tokens_before: a.tokens,
                    tokens_after: after,
                    hard_limit: budget.hard_limit,
                    turn: a.turn,
                    is_split_turn: split,
                    summarized_messages: summarized,
                    dropped_messages: skipped,
                    dropped_tokens: messages[1..1 + skipped].iter().map(estimate_tokens).sum(),
                    context_compactions: 1,
                    context_degraded: false,
                    reason: None,
                    summary_error: None,
                });
            }
            ctx.degrade(
                Some(&plan),
                Some(summary),
                DegradeReason::StillOverLimit,
                None,
            )
        }
    }
}

struct Ctx<'a> {
    messages: &'a [AgentMessage],
    budget: &'a ContextBudget,
    model_id: &'a str,
    overhead: u64,
    now: f64,
    tokens_before: u64,
    turn: TurnKind,
    /// hardLimit in estimate units (see [`fit_limit`]).
    fit_limit: u64,
}

/// The limit a rewritten context is checked against, in chars/4 estimate units.
///
/// When provider usage put the context at `tokens` while the per-message estimate of the
/// same context is lower, the estimate undercounts this content (dense text, a
/// tokenizer that splits more finely, a system prompt the host did not declare as
/// overhead). The limit then shrinks by the same ratio, so a rewrite judged to fit is
/// below hardLimit in the provider's own terms too: no context the provider would count
/// over hardLimit is returned as fitting, and the next boundary does not compact again.
fn fit_limit(messages: &[AgentMessage], budget: &ContextBudget, overhead: u64, tokens: u64) -> u64 {
    let estimate = estimate_with_overhead(messages, overhead);
    if tokens > estimate && estimate > 0 {
        ((budget.hard_limit as f64) * (estimate as f64) / (tokens as f64))
            .floor()
            .max(1.0) as u64
    } else {
        budget.hard_limit
    }
}

/// A run of messages degrade keeps or drops together.
struct Unit {
    range: std::ops::Range<usize>,
    tokens: u64,
    keep: bool,
}

fn is_empty_assistant(a: &crate::message::AssistantMessage) -> bool {
    a.content.iter().all(|b| match b {
        ContentBlock::Text(t) => t.text.trim().is_empty(),
        ContentBlock::Thinking(t) => t.thinking.trim().is_empty() && t.thinking_signature.is_none(),
        _ => false,
    })
}

/// Group `messages[from..]` into units: an assistant with its answering results; a
/// failed or empty assistant (and its results) and orphan results are not keepable; an
/// assistant whose calls are not all answered is keepable only as the newest unit.
fn units(messages: &[AgentMessage], from: usize) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut i = from;
    while i < messages.len() {
        let start = i;
        let keep = match &messages[i] {
            AgentMessage::Assistant(a) => {
                let ids: Vec<&str> = a.tool_calls().map(|c| c.id.as_str()).collect();
                let mut answered: Vec<&str> = Vec::new();
                while let Some(AgentMessage::ToolResult(r)) = messages.get(i + 1) {
                    if !ids.contains(&r.tool_call_id.as_str()) {
                        break;
                    }
                    answered.push(&r.tool_call_id);
                    i += 1;
                }
                let complete = ids.iter().all(|id| answered.contains(id));
                let last = i + 1 == messages.len();
                !a.is_failed() && !is_empty_assistant(a) && (complete || last)
            }
            AgentMessage::ToolResult(_) => false,
            _ => true,
        };
        i += 1;
        out.push(Unit {
            range: start..i,
            tokens: messages[start..i].iter().map(estimate_tokens).sum(),
            keep,
        });
    }
    out
}

impl Ctx<'_> {
    fn unchanged(&self, tokens: u64) -> DelegateTurnOutcome {
        DelegateTurnOutcome::unchanged(
            self.messages.to_vec(),
            self.tokens_before,
            tokens,
            self.budget.hard_limit,
            self.turn,
        )
    }

    fn note(
        &self,
        dropped: usize,
        tokens: u64,
        reason: DegradeReason,
        summary: Option<&str>,
    ) -> String {
        let why = match reason {
            DegradeReason::SummaryFailed => ": no summary of it could be generated",
            DegradeReason::StillOverLimit => ": even the compacted context did not fit",
            DegradeReason::NothingToSummarize => "",
            DegradeReason::SummaryRequestTooLarge => ": the summary request itself did not fit",
        };
        let mut s = format!(
            "[Context degraded] {dropped} earlier messages of this delegated task (about {tokens} tokens) were dropped to fit the context window of model \"{}\"{why}. The task brief above is kept verbatim and the most recent messages follow; re-read anything you still need.",
            self.model_id
        );
        if let Some(sm) = summary {
            s.push_str("\n\n");
            s.push_str(sm);
        }
        s
    }

    /// Clause 4, then clause 5.
    fn degrade(
        &self,
        plan: Option<&CompactionPlan>,
        summary: Option<String>,
        reason: DegradeReason,
        summary_error: Option<String>,
    ) -> Result<DelegateTurnOutcome> {
        let ms = self.messages;
        let limit = self.fit_limit;
        let brief_tokens = estimate_tokens(&ms[0]) + self.overhead;
        if brief_tokens >= limit {
            // in the provider's terms when usage calibrated the limit
            let scale = self.budget.hard_limit as f64 / limit as f64;
            return Err(Error::SubagentContextOverflow {
                model_id: self.model_id.to_string(),
                tokens: ((brief_tokens as f64) * scale).ceil() as u64,
                hard_limit: self.budget.hard_limit,
            });
        }
        // What lies before the last summary is already summarized; its text travels in the note.
        let prev = last_summary_index(ms).filter(|&i| i >= 1);
        let previous_text = match prev.map(|i| &ms[i]) {
            Some(AgentMessage::CompactionSummary(s)) => Some(s.summary.clone()),
            _ => None,
        };
        let from = prev.map_or(1, |i| i + 1);
        let all_units = units(ms, from);
        let carried = summary.or(previous_text);
        let (read, modified) = match plan {
            Some(p) => plan_file_ops(ms, p).file_lists(),
            None => (Vec::new(), Vec::new()),
        };
        let max_note = |s: Option<&str>| {
            let text = self.note(ms.len(), u64::MAX / 2, reason, s);
            estimate_tokens(&AgentMessage::user_text(text, None))
        };
        // Try: summary + note, note alone, nothing but the brief.
        let mut attempts: Vec<Option<Option<&str>>> = Vec::new();
        if carried.is_some() {
            attempts.push(Some(carried.as_deref()));
        }
        attempts.push(Some(None));
        attempts.push(None);
        for attempt in attempts {
            let head = brief_tokens + attempt.map_or(0, max_note);
            if head >= limit {
                continue;
            }
            // Newest keepable units that fit; unkeepable ones (failed or empty assistants,
            // orphan results, unanswered calls) are skipped. Without a note nothing but the
            // brief is kept: a kept assistant's usage would be stale with no marker.
            let mut used = head;
            let mut kept: Vec<&Unit> = Vec::new();
            if attempt.is_some() {
                for u in all_units.iter().rev() {
                    if !u.keep {
                        continue;
                    }
                    if used + u.tokens >= limit {
                        break;
                    }
                    used += u.tokens;
                    kept.push(u);
                }
                kept.reverse();
            }
            let kept_count: usize = kept.iter().map(|u| u.range.len()).sum();
            let after_prev = ms.len() - from;
            let lost = after_prev - kept_count;
            let whole = estimate_with_overhead(ms, self.overhead);
            if lost == 0 && from <= 2 && whole < limit {
                // nothing would be lost: the context already fits as it is
                return Ok(self.unchanged(whole));
            }
            let dropped = ms.len() - 1 - kept_count;
            let dropped_tokens: u64 = ms[1..].iter().map(estimate_tokens).sum::<u64>()
                - kept.iter().map(|u| u.tokens).sum::<u64>();
            let mut out = vec![ms[0].clone()];
            if let Some(s) = attempt {
                let details = json!({
                    "readFiles": read,
                    "modifiedFiles": modified,
                    "retainedMessages": kept_count,
                    "degraded": true,
                    "droppedMessages": dropped,
                });
                out.push(summary_message(
                    self.note(lost, dropped_tokens, reason, s),
                    self.tokens_before,
                    self.now,
                    details,
                ));
            }
            for u in kept {
                out.extend_from_slice(&ms[u.range.clone()]);
            }
            let after = estimate_with_overhead(&out, self.overhead);
            return Ok(DelegateTurnOutcome {
                outcome: TurnOutcomeKind::Degraded,
                messages: out,
                tokens_before: self.tokens_before,
                tokens_after: after,
                hard_limit: self.budget.hard_limit,
                turn: self.turn,
                is_split_turn: plan.is_some_and(|p| !p.prefix_range().is_empty()),
                summarized_messages: 0,
                dropped_messages: dropped,
                dropped_tokens,
                context_compactions: 1,
                context_degraded: true,
                reason: Some(reason),
                summary_error,
            });
        }
        Err(Error::SubagentContextOverflow {
            model_id: self.model_id.to_string(),
            tokens: brief_tokens,
            hard_limit: self.budget.hard_limit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{context_budget, BudgetModel};

    fn m(v: Value) -> AgentMessage {
        AgentMessage::from_value(v, "m").unwrap()
    }

    #[test]
    fn usage_kept_from_before_a_compaction_is_stale() {
        let ms = vec![
            m(json!({"role": "user", "content": "brief"})),
            m(
                json!({"role": "compactionSummary", "summary": "s", "details": {"retainedMessages": 1}}),
            ),
            m(
                json!({"role": "assistant", "content": [], "usage": {"totalTokens": 90000}, "stopReason": "stop"}),
            ),
            m(json!({"role": "user", "content": "abcd"})),
        ];
        assert_eq!(fresh_usage_start(&ms), 3);
        assert_eq!(boundary_tokens(&ms, 0), 2 + 1 + 1);
        let mut fresh = ms.clone();
        fresh.push(m(json!({"role": "assistant", "content": [], "usage": {"totalTokens": 500}, "stopReason": "stop"})));
        assert_eq!(boundary_tokens(&fresh, 0), 500);
    }

    #[test]
    fn an_active_turn_is_retained_even_behind_a_steering_message() {
        let budget = context_budget(&BudgetModel {
            context_window: Some(32_000.0),
            max_tokens: Some(8_000.0),
            definition_max_tokens: None,
        }); // hardLimit 16,000, keepRecent 8,000
        let ms = vec![
            m(json!({"role": "user", "content": "brief"})),
            m(
                json!({"role": "assistant", "content": [{"type": "text", "text": "x".repeat(40_000)}], "stopReason": "stop"}),
            ),
            m(
                json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "read", "arguments": {}}], "stopReason": "toolUse"}),
            ),
            m(
                json!({"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": "r".repeat(20_000)}),
            ),
            m(json!({"role": "user", "content": "u".repeat(40_000)})),
        ];
        let opts = DelegateTurnOptions::default();
        let p = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
        assert_eq!(p.turn, TurnKind::Active);
        assert_eq!(p.action, TurnAction::Summarize);
        // pi would cut at the steering message (4); the active turn (2, 3) stays verbatim
        assert_eq!(p.retained_messages, 3);
        let answer = SummaryAnswer {
            history: Some("h".into()),
            turn_prefix: Some("p".into()),
            error: None,
        };
        let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
        assert_eq!(out.outcome, TurnOutcomeKind::Compacted);
        assert_eq!(&out.messages[2..], &ms[2..]);
    }
}
