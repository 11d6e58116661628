//! ADR 0299 clauses 4–5: degradation before failure, then the terminal code.
//!
//! When a summary cannot be generated, or the compacted context still exceeds
//! hardLimit, the run keeps the original task brief plus the most recent message(s) and
//! discards the rest of its history (host-contract §5):
//! - the newest unit is always kept: the newest keepable message with the tool call it
//!   answers or the results that answer it, so the context stays provider-valid; then as
//!   many older units as fit, newest first (failed or empty assistants and orphan results
//!   are never kept);
//! - a degrade note (a `compactionSummary` marked `degraded`) says so, exactly: how many
//!   messages were dropped (the outcome's `droppedMessages`), which files they read,
//!   whether recent messages follow; it carries the summary there is (a fresh one that
//!   did not fit, or the previous one; a previous degrade note's own summary, never the
//!   note itself, so a second degrade replaces the first note instead of wrapping it);
//! - if the brief, the note and that newest unit still do not fit hardLimit (request
//!   overhead included), clause 5: `SUBAGENT_CONTEXT_OVERFLOW`, with the model id and
//!   guidance (narrow the task, a larger model, read less at once). A single read larger
//!   than the window therefore ends the run at that boundary instead of looping.

use std::ops::Range;

use super::assess::Assessment;
use super::compose::summary_message;
use super::context::{DelegateContext, Item};
use super::file_ops::FileOps;
use super::plan::CompactionPlan;
use super::turn::{DegradeReason, DelegateTurnOutcome, TurnOutcomeKind};
use crate::budget::ContextBudget;
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, SummaryMarks};
use crate::js_text::{utf16_len, utf16_prefix};
use crate::role::Role;
use crate::text_build::Append;
use crate::text_build::{Joined, Owned};

/// Files named in a degrade note, at most.
pub const NOTE_MAX_FILES: usize = 20;

/// What a degrade needs.
pub struct DegradeInput<'a> {
    pub ctx: &'a DelegateContext,
    pub assessment: &'a Assessment,
    /// The boundary's plan, if it had one (what a fresh summary covers).
    pub plan: Option<&'a CompactionPlan>,
    pub budget: &'a ContextBudget,
    pub model_id: &'a str,
    pub now: f64,
    /// A fresh summary that did not fit (clause 4's "still exceeds").
    pub summary: Option<String>,
    pub reason: DegradeReason,
    pub summary_error: Option<String>,
}

/// A run of messages degrade keeps or drops together.
struct Unit {
    range: Range<usize>,
    tokens: u64,
    keep: bool,
}

/// The first message a degrade may keep: the one after the last summary (what lies before
/// it is already summarized, its text travels in the note), else the one after the brief.
fn history_start(ctx: &DelegateContext) -> usize {
    ctx.last_summary().filter(|&i| i >= 1).map_or(1, |i| i + 1)
}

/// The newest unit (host-contract §5, "at least the newest message, with the tool call or
/// results it is paired with ... failed or empty assistants skipped"): the messages a
/// degrade always keeps, or `None` when nothing after the brief (and the last summary) is
/// keepable. Clause 5's `SUBAGENT_CONTEXT_OVERFLOW` means the brief, the degrade note and
/// these messages do not fit. The one definition: [`degrade`] keeps it, and the property
/// tests judge an overflow by it.
#[cfg(not(target_arch = "wasm32"))] // for the native tests
pub fn newest_unit(ctx: &DelegateContext) -> Option<Range<usize>> {
    let all = units(ctx, history_start(ctx));
    newest_of(&all).map(|n| all[n].range.clone())
}

/// The newest keepable unit of `units`, by position.
fn newest_of(units: &[Unit]) -> Option<usize> {
    units.iter().rposition(|u| u.keep)
}

/// Group `facts[from..]` into units: an assistant with its answering results; a failed or
/// empty assistant (and its results) and orphan results are not keepable; an assistant
/// whose calls are not all answered is keepable only as the newest unit.
fn units(ctx: &DelegateContext, from: usize) -> Vec<Unit> {
    let facts = ctx.facts();
    let mut out = Vec::new();
    let mut i = from;
    while i < facts.len() {
        let start = i;
        let keep = match facts[i].role {
            Role::Assistant => {
                let ids = &facts[i].tool_call_ids;
                let mut answered: Vec<&str> = Vec::new();
                while let Some(id) = facts.get(i + 1).and_then(|f| f.answers.as_deref()) {
                    if !ids.iter().any(|c| &**c == id) {
                        break;
                    }
                    answered.push(id);
                    i += 1;
                }
                let complete = ids.iter().all(|c| answered.contains(&&**c));
                let last = i + 1 == facts.len();
                !facts[start].is_failed() && !facts[start].empty_assistant && (complete || last)
            }
            Role::ToolResult => false,
            _ => true,
        };
        i += 1;
        out.push(Unit {
            range: start..i,
            tokens: ctx.tokens(start..i),
            keep,
        });
    }
    out
}

/// The text a degrade note carries: a fresh summary, else the previous summary's (a
/// previous note's carried part only).
fn carried_summary(prev: Option<&MessageFacts>, fresh: Option<String>) -> Option<String> {
    if fresh.is_some() {
        return fresh;
    }
    let prev = prev?;
    let marks = prev.summary.as_ref()?;
    let text = prev.text().summary?;
    if !marks.degraded {
        return Some(text);
    }
    let from = marks.carried_from?;
    let (head, _) = utf16_prefix(&text, from);
    text.get(head.len()..)
        .map(Owned::owned)
        .filter(|t| !t.is_empty())
}

struct Note {
    text: String,
    carried_from: Option<usize>,
}

/// The degrade note (clause 4: "a degraded run must say so").
fn note_text(
    model_id: &str,
    reason: DegradeReason,
    dropped: usize,
    dropped_tokens: u64,
    files: &[String],
    recent_follow: bool,
    carried: Option<&str>,
) -> Note {
    let why = match reason {
        DegradeReason::SummaryFailed => ": no summary of it could be generated",
        DegradeReason::StillOverLimit => ": even the compacted context did not fit",
        DegradeReason::NothingToSummarize => "",
        DegradeReason::SummaryRequestTooLarge => ": the summary request itself did not fit",
    };
    let plural = if dropped == 1 { "message" } else { "messages" };
    let mut text = format!(
        "[Context degraded] {dropped} earlier {plural} of this delegated task (about {dropped_tokens} tokens) were dropped to fit the context window of model \"{model_id}\"{why}."
    );
    if !files.is_empty() {
        let shown: Vec<&str> = files
            .iter()
            .take(NOTE_MAX_FILES)
            .map(String::as_str)
            .collect();
        text.append(&format!(
            " Files read or changed in the dropped history: {}",
            shown.joined(", ")
        ));
        if files.len() > NOTE_MAX_FILES {
            text.append(&format!(" (+{} more)", files.len() - NOTE_MAX_FILES));
        }
        text.append_char('.');
    }
    if recent_follow {
        text.append(" The task brief above is kept verbatim and the most recent messages follow; re-read anything you still need.");
    } else {
        text.append(" The task brief above is kept verbatim; no earlier messages follow. Re-read anything you still need.");
    }
    let mut carried_from = None;
    if let Some(s) = carried {
        text.append("\n\nSummary of the earlier work:\n\n");
        carried_from = Some(utf16_len(&text));
        text.append(s);
    }
    Note { text, carried_from }
}

/// The files `facts` read, wrote or edited, and those their summaries name.
fn file_ops<'f>(facts: impl Iterator<Item = &'f MessageFacts>) -> FileOps {
    let mut ops = FileOps::default();
    for f in facts {
        ops.add_message(f);
        ops.add_summary(f);
    }
    ops
}

/// Every file of `ops`, read ones first (as the note names them).
fn file_names(ops: FileOps) -> Vec<String> {
    let (mut files, modified) = ops.file_lists();
    files.extend(modified);
    files
}

/// The units a degrade keeps, in order: the newest unit (`newest`, an index into `units`),
/// then older keepable units, newest first, while `head` (brief, note, overhead) and
/// they stay below `limit`.
fn kept_units(units: &[Unit], newest: Option<usize>, head: u64, limit: u64) -> Vec<&Unit> {
    let mut kept: Vec<&Unit> = Vec::new();
    if let Some(n) = newest {
        let mut used = head.saturating_add(units[n].tokens);
        kept.push(&units[n]);
        for u in units[..n].iter().rev() {
            if !u.keep {
                continue;
            }
            if used.saturating_add(u.tokens) >= limit {
                break;
            }
            used = used.saturating_add(u.tokens);
            kept.push(u);
        }
    }
    kept.reverse();
    kept
}

/// Clause 4, then clause 5 (see the module docs).
pub fn degrade(d: DegradeInput<'_>) -> Result<DelegateTurnOutcome> {
    let ctx = d.ctx;
    let assessment = d.assessment;
    let facts = ctx.facts();
    let limit = assessment.fit_limit;
    let overflow = |tokens: u64| {
        // in the provider's terms when usage calibrated the limit
        let scale = d.budget.hard_limit as f64 / limit.max(1) as f64;
        Error::SubagentContextOverflow {
            model_id: d.model_id.owned(),
            tokens: Some(((tokens as f64) * scale).ceil() as u64),
            hard_limit: Some(d.budget.hard_limit),
        }
    };
    let brief_tokens = ctx.tokens(0..1).saturating_add(assessment.overhead);
    if brief_tokens >= limit {
        return Err(overflow(brief_tokens));
    }
    // What lies before the last summary is already summarized; its text travels in the note.
    let prev = ctx.last_summary().filter(|&i| i >= 1);
    let from = history_start(ctx);
    let fresh_summary = d.summary.is_some();
    let carried = carried_summary(prev.map(|i| &facts[i]), d.summary);
    let all_units = units(ctx, from);
    // the newest unit (`newest_unit`), as an index into `all_units`
    let newest = newest_of(&all_units);
    // Messages a carried summary covers: the summarized ranges of a fresh summary, the
    // previous summary and what it summarized. (Asked only about messages after the
    // brief, which is always kept.)
    let covered = |i: usize, with_carried: bool| -> bool {
        if !with_carried {
            return false;
        }
        if prev.is_some_and(|p| i <= p) {
            return true;
        }
        fresh_summary
            && d.plan
                .is_some_and(|p| p.history_range().contains(&i) || p.prefix_range().contains(&i))
    };
    let all_files = file_names(file_ops(facts.iter().skip(1)));
    // Nothing would be lost: without a fresh summary to place, a context that fits as it
    // is (request overhead included) and holds only messages a degrade could keep is left
    // unchanged, its previous summary included. (Whether a degrade would also fit with its
    // note does not matter: no note is written.)
    let whole = ctx.total_tokens().saturating_add(assessment.overhead);
    if !fresh_summary && whole < limit && all_units.iter().all(|u| u.keep) {
        return Ok(DelegateTurnOutcome::unchanged(
            facts.len(),
            assessment.tokens,
            whole,
            d.budget.hard_limit,
            assessment.turn,
        ));
    }
    let attempts: Vec<bool> = if carried.is_some() {
        vec![true, false]
    } else {
        vec![false]
    };
    let mut smallest_need = u64::MAX;
    for with_carried in attempts {
        let carried_text = if with_carried {
            carried.as_deref()
        } else {
            None
        };
        // an upper bound of the note: the largest numbers it can print and every file of
        // the context
        let longest = note_text(
            d.model_id,
            d.reason,
            facts.len(),
            u64::MAX,
            &all_files,
            true,
            carried_text,
        );
        let note_tokens = utf16_len(&longest.text).div_ceil(4) as u64 + 8;
        let head = brief_tokens.saturating_add(note_tokens);
        let newest_tokens = newest.map_or(0, |n| all_units[n].tokens);
        smallest_need = smallest_need.min(head.saturating_add(newest_tokens));
        if head.saturating_add(newest_tokens) >= limit {
            continue;
        }
        let kept = kept_units(&all_units, newest, head, limit);
        let mut kept_mask = vec![false; facts.len()];
        for u in &kept {
            for i in u.range.clone() {
                if let Some(slot) = kept_mask.get_mut(i) {
                    *slot = true;
                }
            }
        }
        let is_kept = |i: usize| kept_mask.get(i).copied().unwrap_or(false);
        let kept_count: usize = kept.iter().map(|u| u.range.len()).sum();
        let dropped_indices: Vec<usize> = (1..facts.len())
            .filter(|&i| !is_kept(i) && !covered(i, with_carried))
            .collect();
        let dropped = dropped_indices.len();
        let dropped_tokens: u64 = dropped_indices.iter().map(|&i| facts[i].tokens).sum();
        let dropped_files = file_names(file_ops(dropped_indices.iter().map(|&i| &facts[i])));
        let note = note_text(
            d.model_id,
            d.reason,
            dropped,
            dropped_tokens,
            &dropped_files,
            kept_count > 0,
            carried_text,
        );
        // pi's file lists for the next compaction: everything summarized or dropped
        let history = facts.iter().enumerate().skip(1);
        let history = history.filter(|&(i, _)| !is_kept(i)).map(|(_, f)| f);
        let (read_files, modified_files) = file_ops(history).file_lists();
        let marks = SummaryMarks {
            read_files,
            modified_files,
            retained_messages: kept_count,
            degraded: true,
            carried_from: note.carried_from,
            dropped_messages: dropped,
        };
        let message = summary_message(note.text, assessment.tokens, d.now, &marks);
        let message_tokens = message
            .facts("(degrade note)")
            .map_or(note_tokens, |f| f.tokens);
        let mut messages = vec![Item::Kept(0..1), Item::New(Box::new(message))];
        messages.extend(kept.iter().map(|u| Item::Kept(u.range.clone())));
        let after = brief_tokens
            .saturating_add(message_tokens)
            .saturating_add(kept.iter().map(|u| u.tokens).sum::<u64>());
        let summarized = (1..facts.len())
            .filter(|&i| !is_kept(i) && covered(i, with_carried))
            .count();
        return Ok(DelegateTurnOutcome {
            outcome: TurnOutcomeKind::Degraded,
            messages,
            tokens_before: assessment.tokens,
            tokens_after: after,
            hard_limit: d.budget.hard_limit,
            turn: assessment.turn,
            is_split_turn: d.plan.is_some_and(|p| !p.prefix_range().is_empty()),
            summarized_messages: summarized,
            dropped_messages: dropped,
            dropped_tokens,
            context_compactions: 1,
            context_degraded: true,
            reason: Some(d.reason),
            summary_error: d.summary_error,
        });
    }
    Err(overflow(smallest_need))
}
