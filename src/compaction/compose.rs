//! ADR 0299 clause 3 (host-contract §5), the fourth step of a boundary: compose. With the
//! summary text(s), the compacted context `[brief, compactionSummary, retained...]`: the
//! summary combined as pi-agent-core 0.85.1's `compact` does, character for character (a
//! split turn's prefix summary under the history, then `formatFileOperations`), re-estimated from per-message sizes (the
//! recorded usage described the old context) and checked against hardLimit; the caller
//! degrades (clause 4, [`super::degrade`]) when it does not fit.

use super::assess::Assessment;
use super::context::{DelegateContext, Item};
use super::file_ops::FileOps;
use super::plan::CompactionPlan;
use super::turn::{DelegateTurnOptions, DelegateTurnOutcome, TurnOutcomeKind};
use crate::budget::ContextBudget;
use crate::facts::SummaryMarks;
use crate::message::{AgentMessage, CompactionSummaryMessage};
use crate::text_build::Append;
use crate::text_build::{Joined, Owned};

/// What pi's history slot says when a split turn has no earlier history.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

/// Whether the compacted context cannot fit whatever the summary says: the brief and the
/// retained messages alone reach the limit.
pub fn summary_cannot_help(
    ctx: &DelegateContext,
    a: &Assessment,
    plan: Option<&CompactionPlan>,
) -> bool {
    plan.is_some_and(|p| {
        ctx.tokens(0..1)
            .saturating_add(ctx.tokens(p.retained_range()))
            .saturating_add(a.overhead)
            >= a.fit_limit
    })
}

/// A `compactionSummary` message this library writes.
pub fn summary_message(
    summary: String,
    tokens_before: u64,
    now: f64,
    marks: &SummaryMarks,
) -> AgentMessage {
    let mut extra = crate::js_text::new_map();
    extra.insert("details".owned(), marks.to_details());
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
    plan: Option<&CompactionPlan>,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
    texts: &[String],
) -> std::result::Result<DelegateTurnOutcome, String> {
    let Some(plan) = plan else {
        return Err(String::new());
    };
    let split = !plan.prefix_range().is_empty();
    let needs_history = !plan.history_range().is_empty();
    let mut texts = texts.iter().map(String::as_str);
    let history_text = if needs_history { texts.next() } else { None };
    let prefix_text = if split { texts.next() } else { None };
    let (read, modified) = FileOps::of_plan(plan, ctx).file_lists();
    // pi says "No prior history." when a split turn has nothing before it; a previous
    // summary is that history (pi #2608: never lose what was kept).
    let history = if needs_history {
        history_text
    } else {
        plan.previous_summary.as_deref()
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
    // (a message this library writes always reads; if it did not, it would not fit)
    let Ok(message_facts) = message.facts("(summary)") else {
        return Err(summary);
    };
    let message_tokens = message_facts.tokens;
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

/// pi's `formatFileOperations(readFiles, modifiedFiles)`.
pub fn format_file_operations(read: &[String], modified: &[String]) -> String {
    let mut sections = Vec::new();
    if !read.is_empty() {
        sections.push(format!(
            "<read-files>\n{}\n</read-files>",
            read.joined("\n")
        ));
    }
    if !modified.is_empty() {
        sections.push(format!(
            "<modified-files>\n{}\n</modified-files>",
            modified.joined("\n")
        ));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.joined("\n\n"))
    }
}

/// pi's `compact` text: for a split turn `history` (or "No prior history.") and the
/// prefix summary joined under "**Turn Context (split turn):**"; then the file tags.
pub fn combine_summary(
    split_prefix: Option<&str>,
    history: Option<&str>,
    read: &[String],
    modified: &[String],
) -> String {
    let mut summary = match split_prefix {
        Some(prefix) => format!(
            "{}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix}",
            history.unwrap_or(NO_PRIOR_HISTORY)
        ),
        None => history.unwrap_or("").owned(),
    };
    summary.append(&format_file_operations(read, modified));
    summary
}
