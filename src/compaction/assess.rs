//! ADR 0299 clause 3 (host-contract §5), the first step of a boundary: assess. The run
//! re-estimates its own context (the last fresh provider usage plus the estimates after
//! it, see [`boundary_tokens`]); below the threshold nothing happens (clause 3:
//! `hardLimit`, no pre-computation, no second threshold; the budget's
//! `compactionTrigger` is an opt-in earlier trigger). The assessment also says whether
//! the delegate is in the middle of a turn (ADR 0136, which the plan retains) and the
//! limit a rewritten context must fit ([`fit_limit`]).
//!
//! Stale usage (field notes, pi #1860): the `compactionSummary` this library writes
//! carries `details.retainedMessages`, the number of messages after it that were kept
//! from before the rewrite. Provider usage of those messages describes the old context
//! and is not trusted when re-estimating; usage of later responses is.

use super::context::DelegateContext;
use super::turn::{DelegateTurnOptions, DelegateTurnPreparation, TurnAction, TurnKind};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::facts::MessageFacts;
use crate::role::Role;
use crate::tokens::{fresh_usage_start, usage_anchor, Anchor};

/// What a boundary measures of its context before it decides anything.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// The context's size at the boundary (see [`boundary_tokens`]).
    pub tokens: u64,
    /// What `tokens` is compared with (see [`threshold`]).
    pub threshold: u64,
    pub turn: TurnKind,
    /// The assistant that opened the active turn, when the turn is active (ADR 0136).
    pub active: Option<usize>,
    /// The request overhead in tokens.
    pub overhead: u64,
    /// hardLimit in estimate units (see [`fit_limit`]).
    pub fit_limit: u64,
}

impl Assessment {
    /// Whether the boundary compacts: its context is at or above the threshold.
    pub fn reached(&self) -> bool {
        reached(self.tokens, self.threshold)
    }
}

/// Clause 3: a boundary compacts when its context is at or above the threshold.
fn reached(tokens: u64, threshold: u64) -> bool {
    tokens >= threshold
}

/// Assess a boundary's context (see the module docs).
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
    let last_assistant = ctx.last_assistant();
    let turn = turn_kind(last_assistant.map(|i| &facts[i]));
    Ok(Assessment {
        tokens,
        threshold: threshold(budget, options),
        turn,
        active: match turn {
            TurnKind::Active => last_assistant,
            TurnKind::Completed => None,
        },
        overhead,
        fit_limit: fit_limit(ctx, budget, overhead, tokens),
    })
}

/// The first message must be the brief; a budget needs a positive hardLimit.
#[inline(never)]
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
#[inline(never)]
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
    if estimate == 0 {
        return budget.hard_limit;
    }
    // hardLimit × estimate / usage, never above hardLimit (usage at or below the estimate
    // leaves it), never below 1
    let scaled = ((budget.hard_limit as f64) * (estimate as f64) / (tokens as f64))
        .floor()
        .max(1.0) as u64;
    scaled.min(budget.hard_limit)
}

/// The turn-boundary check for the common case, without reading the whole context.
///
/// Reads facts through `get`, newest first, down to the last fresh trusted usage (the
/// caller gives the brief and the last `compactionSummary`, whose index it found by role
/// alone). When that figure is below the threshold the answer is the full decision's
/// `unchanged` preparation ([`super::step::decide`]), identical field for field;
/// otherwise (`None`) the caller runs the full decision.
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
    if reached(tokens, threshold) {
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
