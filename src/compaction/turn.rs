//! ADR 0299 clauses 3–5 (host-contract §5): what a delegate's turn boundary decides
//! before any summary, and the compacted context once the summaries are in.
//!
//! - [`assess`]: re-estimate the context; below the threshold nothing happens (clause 3:
//!   `hardLimit`, no pre-computation, no second threshold; the budget's
//!   `compactionTrigger` is an opt-in earlier trigger). Otherwise plan a pi compaction
//!   with `reserveTokens = requestHeadroom` and the budget's `keepRecentTokens`,
//!   retaining the active turn (ADR 0136), and build the summary request(s).
//! - [`compose_compacted`]: with the summary text(s), the context
//!   `[brief, compactionSummary, retained...]`, re-estimated from per-message sizes (the
//!   recorded usage described the old context) and checked against hardLimit; the
//!   caller degrades (clause 4, [`super::degrade`]) when it does not fit.
//!
//! The order of a boundary, and the one-shot calls over typed messages, live in
//! [`super::step`].
//!
//! Stale usage (field notes, pi #1860): the `compactionSummary` this library writes
//! carries `details.retainedMessages`, the number of messages after it that were kept
//! from before the rewrite. Provider usage of those messages describes the old context
//! and is not trusted when re-estimating; usage of later responses is.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::context::{DelegateContext, Item};
use super::prepare::{plan_compaction, with_cut_at, CompactionPlan};
use super::summary::{
    build_summary_request, combine_summary, request_parts, SummaryKind, SummaryRequest,
    SummaryRequestSpec,
};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, SummaryMarks};
use crate::message::{AgentMessage, CompactionSummaryMessage, Extra};
use crate::role::Role;
use crate::tokens::{fresh_usage_start, tokens_from_f64, usage_anchor, Anchor};

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
    /// to per-message estimates; provider usage already includes them. The hook derives
    /// it from the Agent's context when absent (`requestOverheadTokens`).
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

impl DelegateTurnOptions {
    /// The request overhead in tokens (absurd numbers saturate, see [`tokens_from_f64`]).
    pub fn overhead(&self) -> u64 {
        self.overhead_tokens.map_or(0, tokens_from_f64)
    }
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
    /// Everything compactable is the retained turn: a summary would remove nothing.
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

/// The host's answer to the summary request(s) (`completeDelegateTurn`).
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
    /// The context for the next request: every message kept from the input is the
    /// caller's own object (nothing copied), the summary or degrade note is new. Held as
    /// runs of kept messages (an unchanged context is one run, whatever its length); the
    /// binding hands back the messages themselves.
    #[tsify(type = "AgentMessage[]")]
    pub messages: Vec<Item>,
    pub tokens_before: u64,
    /// Per-message estimate (+ overheadTokens) of `messages`; for `unchanged`, the boundary figure.
    pub tokens_after: u64,
    pub hard_limit: u64,
    pub turn: TurnKind,
    pub is_split_turn: bool,
    /// Messages replaced by the summary.
    pub summarized_messages: usize,
    /// Messages neither kept verbatim nor carried by a summary (lost history).
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
    /// The outcome of a boundary that leaves a context of `len` messages as it is.
    pub fn unchanged(
        len: usize,
        tokens_before: u64,
        tokens_after: u64,
        hard_limit: u64,
        turn: TurnKind,
    ) -> Self {
        DelegateTurnOutcome {
            outcome: TurnOutcomeKind::Unchanged,
            messages: vec![Item::Kept(0..len)],
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

    /// The next context as messages, given the input the indices refer to.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn materialize(&self, input: &[AgentMessage]) -> Vec<AgentMessage> {
        let mut out = Vec::with_capacity(self.len());
        for item in &self.messages {
            match item {
                Item::Kept(run) => {
                    out.extend(input.get(run.clone()).into_iter().flatten().cloned())
                }
                Item::New(m) => out.push(m.as_ref().clone()),
            }
        }
        out
    }

    /// Number of messages of the next context.
    pub fn len(&self) -> usize {
        self.messages.iter().map(Item::len).sum()
    }

    /// Whether the next context has no message (never for a valid context: the brief stays).
    #[cfg(not(target_arch = "wasm32"))] // clippy's len_without_is_empty on the native API
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the next context differs from the `len` messages the step was decided over
    /// (a new message, or some dropped): a handle applies it with [`DelegateContext::rewrite`].
    pub fn rewrites(&self, len: usize) -> bool {
        self.messages.iter().any(|m| matches!(m, Item::New(_))) || self.len() != len
    }

    /// The new messages' facts, in order (to [`DelegateContext::rewrite`] a handle).
    pub fn new_facts(&self) -> Result<Vec<MessageFacts>> {
        self.messages
            .iter()
            .filter_map(|item| match item {
                Item::New(m) => Some(m.facts("(new message)")),
                Item::Kept(_) => None,
            })
            .collect()
    }
}

/// Everything a boundary derives from its context before any summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    pub tokens: u64,
    pub threshold: u64,
    pub turn: TurnKind,
    pub plan: Option<CompactionPlan>,
    pub requests: Vec<SummaryRequest>,
    pub action: TurnAction,
    pub reason: Option<DegradeReason>,
    /// The request overhead in tokens.
    pub overhead: u64,
    /// hardLimit in estimate units (see [`fit_limit`]).
    pub fit_limit: u64,
}

impl Assessment {
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
        DelegateTurnPreparation {
            action: self.action,
            tokens: self.tokens,
            threshold: self.threshold,
            hard_limit: budget.hard_limit,
            turn: self.turn,
            requests: self.requests.clone(),
            is_split_turn: split,
            summarized_messages: summarized,
            retained_messages: retained,
            reason: self.reason,
        }
    }
}

/// The first message must be the brief; a budget needs a positive hardLimit.
fn validate_brief(brief: Option<&MessageFacts>, budget: &ContextBudget) -> Result<()> {
    match brief {
        None => Err(Error::invalid(
            "messages",
            "a delegate context needs at least its task brief (a user message)",
        )),
        Some(f) if f.role == Role::User => {
            if budget.hard_limit == 0 {
                return Err(Error::invalid("budget.hardLimit", "expected a number >= 1"));
            }
            Ok(())
        }
        Some(f) => Err(Error::invalid(
            "messages[0]",
            format!(
                "the first message must be the delegate's task brief (a user message), got role \"{}\"",
                f.role_name()
            ),
        )),
    }
}

/// hardLimit (clause 3), or the opt-in earlier trigger.
pub fn threshold(budget: &ContextBudget, options: &DelegateTurnOptions) -> u64 {
    if options.early_trigger {
        budget.compaction_trigger.max(1)
    } else {
        budget.hard_limit
    }
}

/// The boundary's size: the last *fresh* trusted usage plus the estimates after it
/// (provider usage already counts the overhead); with none, every estimate plus the
/// overhead.
pub fn boundary_tokens(ctx: &DelegateContext, overhead: u64) -> u64 {
    let e = ctx.estimate(ctx.len(), ctx.fresh_usage_start());
    match e.last_usage_index {
        Some(_) => e.boundary_tokens(),
        None => ctx.total_tokens().saturating_add(overhead),
    }
}

/// ADR 0136: active when the last assistant called tools or stopped with `toolUse`.
pub fn turn_kind(last_assistant: Option<&MessageFacts>) -> TurnKind {
    if last_assistant.is_some_and(MessageFacts::opens_active_turn) {
        TurnKind::Active
    } else {
        TurnKind::Completed
    }
}

/// The limit a rewritten context is checked against, in chars/4 estimate units.
///
/// When provider usage put the context at `tokens` while the per-message estimate of the
/// same context is lower, the estimate undercounts this content (dense text, a
/// tokenizer that splits more finely, a system prompt the host did not declare as
/// overhead). The limit then shrinks by the same ratio, so a rewrite judged to fit is
/// below hardLimit in the provider's own terms too: no context the provider would count
/// over hardLimit is returned as fitting, and the next boundary does not compact again.
pub fn fit_limit(ctx: &DelegateContext, budget: &ContextBudget, overhead: u64, tokens: u64) -> u64 {
    let estimate = ctx.total_tokens().saturating_add(overhead);
    if tokens > estimate && estimate > 0 {
        ((budget.hard_limit as f64) * (estimate as f64) / (tokens as f64))
            .floor()
            .max(1.0) as u64
    } else {
        budget.hard_limit
    }
}

/// The boundary decision over a context (see the module docs).
///
/// Errors: `INVALID_INPUT` when the context is empty or does not start with the brief.
pub fn assess(
    ctx: &DelegateContext,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<Assessment> {
    let facts = ctx.facts();
    validate_brief(facts.first(), budget)?;
    let overhead = options.overhead();
    let tokens = boundary_tokens(ctx, overhead);
    let threshold = threshold(budget, options);
    let last_assistant = ctx.last_assistant();
    let turn = turn_kind(last_assistant.map(|i| &facts[i]));
    let mut a = Assessment {
        tokens,
        threshold,
        turn,
        plan: None,
        requests: Vec::new(),
        action: TurnAction::Unchanged,
        reason: None,
        overhead,
        fit_limit: fit_limit(ctx, budget, overhead, tokens),
    };
    if tokens < threshold {
        return Ok(a);
    }
    let max_cut = match turn {
        TurnKind::Active => last_assistant,
        TurnKind::Completed => None,
    };
    a.action = TurnAction::Degrade;
    let Some(plan) = plan_compaction(ctx, 1, ctx.len(), budget.keep_recent_tokens as f64, max_cut)
    else {
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
                && !plan.summarizes_anything()
                && la > plan.compactable_start =>
        {
            with_cut_at(ctx, &plan, la)
        }
        _ => plan,
    };
    a.plan = Some(plan);
    let history = plan.history_range();
    let prefix = plan.prefix_range();
    // The brief plus one active tool round: the cut splits the brief's own turn, whose
    // prefix is the brief alone. pi (and the host app) send that split turn's prefix
    // summary; the brief itself stays verbatim in front of it.
    if history.is_empty() && prefix.is_empty() {
        a.reason = Some(DegradeReason::NothingToSummarize);
        return Ok(a);
    }
    let previous = plan.previous_summary(ctx);
    let brief = facts[0].text().user_text;
    let spec = |kind, range: std::ops::Range<usize>| {
        let mut spec = SummaryRequestSpec {
            kind,
            // the brief as context, unless the messages start with it (a split first turn)
            brief: if range.start == 0 {
                None
            } else {
                brief.as_deref()
            },
            parts: Vec::new(),
            previous_summary: previous.as_deref(),
            custom_instructions: options.custom_instructions.as_deref(),
            reserve_tokens: budget.request_headroom as f64,
            model_max_tokens: options
                .summary_max_tokens
                .unwrap_or(budget.max_output_tokens as f64),
            context_window: budget.context_window,
            now: options.now.unwrap_or(0.0),
        };
        spec.parts = request_parts(&facts[range], &spec);
        spec
    };
    let mut wanted = Vec::new();
    if !history.is_empty() {
        wanted.push(spec(SummaryKind::History, history));
    }
    if !prefix.is_empty() {
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

/// A `compactionSummary` message this library writes.
pub fn summary_message(
    summary: String,
    tokens_before: u64,
    now: f64,
    marks: &SummaryMarks,
) -> AgentMessage {
    let mut extra = Extra::new();
    extra.insert("details".into(), marks.to_details());
    AgentMessage::CompactionSummary(CompactionSummaryMessage {
        summary,
        tokens_before: Some(tokens_before as f64),
        timestamp: Some(now),
        extra,
    })
}

/// The compacted context for the summary texts (in request order): `Ok` when it fits
/// hardLimit, else `Err` with the combined summary (to carry into the degrade note).
pub fn compose_compacted(
    ctx: &DelegateContext,
    a: &Assessment,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
    texts: &[String],
) -> std::result::Result<DelegateTurnOutcome, String> {
    let Some(plan) = a.plan.as_ref() else {
        return Err(String::new());
    };
    let split = !plan.prefix_range().is_empty();
    let needs_history = !plan.history_range().is_empty();
    let mut texts = texts.iter().map(String::as_str);
    let history_text = if needs_history { texts.next() } else { None };
    let prefix_text = if split { texts.next() } else { None };
    let (read, modified) = plan.file_ops(ctx).file_lists();
    // pi says "No prior history." when a split turn has nothing before it; a previous
    // summary is that history (pi #2608: never lose what was kept).
    let previous = plan.previous_summary(ctx);
    let history = if needs_history {
        history_text
    } else {
        previous.as_deref()
    };
    let summary = combine_summary(prefix_text, history, &read, &modified);
    let retained = plan.retained_range();
    let marks = SummaryMarks {
        read_files: read,
        modified_files: modified,
        retained_messages: retained.len(),
        ..SummaryMarks::default()
    };
    let message = summary_message(
        summary.clone(),
        a.tokens,
        options.now.unwrap_or(0.0),
        &marks,
    );
    let message_tokens = message
        .facts("(summary)")
        .map_or(u64::MAX / 4, |f| f.tokens);
    let after = ctx
        .tokens(0..1)
        .saturating_add(message_tokens)
        .saturating_add(ctx.tokens(retained.clone()))
        .saturating_add(a.overhead);
    if after >= a.fit_limit {
        return Err(summary);
    }
    let summarized = plan.history_range().len() + plan.compactable_prefix_range().len();
    // messages between the brief and a previous summary were already summarized
    let skipped = plan
        .previous_summary_index
        .map_or(0, |i| i.saturating_sub(1));
    let messages = vec![
        Item::Kept(0..1),
        Item::New(Box::new(message)),
        Item::Kept(retained),
    ];
    Ok(DelegateTurnOutcome {
        outcome: TurnOutcomeKind::Compacted,
        messages,
        tokens_before: a.tokens,
        tokens_after: after,
        hard_limit: budget.hard_limit,
        turn: a.turn,
        is_split_turn: split,
        summarized_messages: summarized,
        dropped_messages: skipped,
        dropped_tokens: ctx.tokens(1..1 + skipped),
        context_compactions: 1,
        context_degraded: false,
        reason: None,
        summary_error: None,
    })
}

/// The turn-boundary check for the common case, without reading the whole context.
///
/// Reads facts through `get`, newest first, down to the last fresh trusted usage (the
/// caller gives the brief and the last `compactionSummary`, whose index it found by role
/// alone). When that figure is below the threshold the answer is [`assess`]'s
/// `unchanged` preparation, identical field for field; otherwise (`None`) the caller
/// runs the full assessment.
pub fn unchanged_below_threshold(
    len: usize,
    brief: &MessageFacts,
    last_summary: Option<(usize, &MessageFacts)>,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
    mut get: impl FnMut(usize) -> Result<MessageFacts>,
) -> Result<Option<DelegateTurnPreparation>> {
    validate_brief(Some(brief), budget)?;
    let fresh = fresh_usage_start(last_summary.filter(|(k, _)| *k < len));
    let threshold = threshold(budget, options);
    let mut newest_assistant: Option<MessageFacts> = None;
    let anchor = usage_anchor(len, fresh.max(1), |i| {
        let f = get(i)?;
        if newest_assistant.is_none() && f.role == Role::Assistant {
            newest_assistant = Some(f.clone());
        }
        Ok(Some(f))
    })?;
    let Anchor::Found(e) = anchor else {
        return Ok(None);
    };
    let tokens = e.boundary_tokens();
    if tokens >= threshold {
        return Ok(None);
    }
    Ok(Some(DelegateTurnPreparation {
        action: TurnAction::Unchanged,
        tokens,
        threshold,
        hard_limit: budget.hard_limit,
        turn: turn_kind(newest_assistant.as_ref()),
        requests: Vec::new(),
        is_split_turn: false,
        summarized_messages: 0,
        retained_messages: 0,
        reason: None,
    }))
}
