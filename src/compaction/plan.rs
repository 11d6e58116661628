//! ADR 0299 clause 3 (via host-contract §3), the second step of a boundary: plan the cut.
//! pi-agent-core 0.85.1's `findCutPoint` / `findTurnStartIndex` and the ranges of its
//! `prepareCompaction` (what is summarized, what is the split turn's prefix, what is kept
//! verbatim) over a context's messages instead of session entries, and the cut of a
//! delegate's boundary, which retains an active turn (ADR 0136). Every part is a range of
//! the context, so a caller maps it onto its own message objects (nothing is copied).
//!
//! A message of our context plays the role of a pi `message` entry; pi's non-message
//! entries (`compaction`, `branch_summary`, `custom`) have no counterpart here (a
//! `branchSummary` *message* is a valid cut point but, as in pi, not a turn start).
//!
//! A difference from pi, forced by working on messages instead of session entries: pi
//! reads the previous summary from the last `compaction` *entry*; here the last
//! `compactionSummary` *message* plays that role. `previousSummary` is its `summary`, and
//! only the messages after it are compactable (what lies before it is already summarized,
//! as in pi). `compactableStart` says where that region begins.

use serde::Serialize;
use tsify::Tsify;

use super::context::DelegateContext;
use crate::facts::MessageFacts;
use crate::role::Role;

/// pi's `findCutPoint` result, field for field. Indices are positions in the message
/// array given (not relative to `startIndex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CutPoint {
    /// The first message kept verbatim (the retained tail starts here).
    pub first_kept_entry_index: usize,
    /// The user (or bashExecution) message that starts the cut turn, or -1.
    pub turn_start_index: i64,
    /// The cut falls inside a turn: `turnStartIndex .. firstKeptEntryIndex` is its prefix.
    pub is_split_turn: bool,
}

/// pi's `findTurnStartIndex`: walking back from `index` (clamped to the last message) to
/// `floor`, the first user or bashExecution message; `None` when there is none, or when
/// `floor` is past `index`.
pub fn find_turn_start_index(facts: &[MessageFacts], index: usize, floor: usize) -> Option<usize> {
    let top = index.min(facts.len().checked_sub(1)?);
    (floor..=top).rev().find(|&i| facts[i].starts_turn())
}

/// pi's `findCutPoint(entries, startIndex, endIndex, keepRecentTokens)`: walk from the
/// newest message back, summing `estimateTokens`; at the first message where the sum
/// reaches `keep_recent_tokens`, cut at the first valid cut point at or after it (the
/// first valid cut point when there is none, or when the sum never gets there). The
/// cut turn's start is searched down to `turn_floor` (pi's `startIndex`; a delegate whose
/// brief is pinned searches down to the brief, which starts its first turn).
///
/// `end` is clamped to the context; callers validate their indices.
pub fn find_cut_point(
    ctx: &DelegateContext,
    start: usize,
    end: usize,
    keep_recent_tokens: f64,
    turn_floor: usize,
) -> CutPoint {
    let facts = ctx.facts();
    let end = end.min(facts.len());
    let first_valid = |from: usize| (from..end).find(|&i| facts[i].is_valid_cut_point());
    let Some(first) = first_valid(start) else {
        return CutPoint {
            first_kept_entry_index: start,
            turn_start_index: -1,
            is_split_turn: false,
        };
    };
    let cut = ctx
        .reach_index(start, end, keep_recent_tokens)
        .and_then(first_valid)
        .unwrap_or(first);
    cut_result(facts, turn_floor.min(start), cut)
}

/// The `CutPoint` for a cut at `cut`: a cut at a user message starts a turn; any other
/// cut splits the turn begun by the nearest earlier user or bashExecution message at or
/// after `turn_floor`.
#[inline(never)]
pub fn cut_result(facts: &[MessageFacts], turn_floor: usize, cut: usize) -> CutPoint {
    let is_user = facts.get(cut).is_some_and(|f| f.role == Role::User);
    let turn_start = if is_user {
        None
    } else {
        find_turn_start_index(facts, cut, turn_floor)
    };
    CutPoint {
        first_kept_entry_index: cut,
        turn_start_index: turn_start.map_or(-1, |t| t as i64),
        is_split_turn: !is_user && turn_start.is_some(),
    }
}

/// Index of the last `compactionSummary` before `end`.
pub fn last_summary_before(ctx: &DelegateContext, end: usize) -> Option<usize> {
    match ctx.last_summary() {
        Some(k) if k < end => Some(k),
        Some(_) => ctx.facts()[..end.min(ctx.len())]
            .iter()
            .rposition(|f| f.role == Role::CompactionSummary),
        None => None,
    }
}

/// A compaction as ranges of the context, and the previous summary's text (read once
/// here, handed on to the request and the composed summary).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactionPlan {
    /// First compactable message (after the previous summary, or `start`).
    pub compactable_start: usize,
    /// The previous `compactionSummary` message, if any.
    pub previous_summary_index: Option<usize>,
    /// pi's `previousSummary`: the `summary` of that message.
    pub previous_summary: Option<String>,
    /// The cut, with indices into the whole context.
    pub cut: CutPoint,
    /// `messagesToSummarize` is `compactable_start..history_end`.
    pub history_end: usize,
    /// Exclusive end of the context considered.
    pub end: usize,
}

impl CompactionPlan {
    /// `turnPrefixMessages`: `turnStart..firstKept` of a split turn (else empty).
    pub fn prefix_range(&self) -> std::ops::Range<usize> {
        // a cut has a turn start exactly when it splits that turn ([`cut_result`])
        usize::try_from(self.cut.turn_start_index)
            .map_or(0..0, |start| start..self.cut.first_kept_entry_index)
    }
    /// The split turn's prefix without what lies before the compactable region (a
    /// delegate's pinned brief starts its first turn but is never summarized away).
    pub fn compactable_prefix_range(&self) -> std::ops::Range<usize> {
        let p = self.prefix_range();
        p.start.max(self.compactable_start).min(p.end)..p.end
    }
    /// Whether a summary would replace anything.
    pub fn summarizes_anything(&self) -> bool {
        !self.history_range().is_empty() || !self.compactable_prefix_range().is_empty()
    }
    /// `messagesToSummarize`.
    pub fn history_range(&self) -> std::ops::Range<usize> {
        self.compactable_start..self.history_end.max(self.compactable_start)
    }
    /// `retainedTail`.
    pub fn retained_range(&self) -> std::ops::Range<usize> {
        self.cut.first_kept_entry_index..self.end
    }
    /// The plan with its cut moved to `index` (a valid cut point after the compactable
    /// start), the split turn recomputed as pi's `findCutPoint` would for that cut.
    pub fn with_cut_at(self, ctx: &DelegateContext, index: usize) -> CompactionPlan {
        let cut = cut_result(ctx.facts(), self.turn_floor(), index);
        CompactionPlan {
            cut,
            history_end: history_end(&cut),
            ..self
        }
    }
    fn turn_floor(&self) -> usize {
        turn_floor(self.previous_summary_index)
    }
}

/// Where a cut turn's start is searched down to: after the previous summary, else the
/// first message (pi's `boundaryStart`; a delegate's brief starts its first turn).
fn turn_floor(previous_summary: Option<usize>) -> usize {
    previous_summary.map_or(0, |i| i + 1)
}

fn history_end(cut: &CutPoint) -> usize {
    if cut.is_split_turn {
        cut.turn_start_index as usize
    } else {
        cut.first_kept_entry_index
    }
}

/// Plan a compaction of `ctx[..end]` whose compactable region starts after the last
/// `compactionSummary` at or after `start` (or at `start`). `max_cut` moves the cut back
/// to at most that index (ADR 0136 retention of an active turn); `None` keeps pi's cut.
/// Returns `None` where pi returns `undefined`: nothing to compact, or the newest message
/// is itself a summary.
pub fn plan_compaction(
    ctx: &DelegateContext,
    start: usize,
    end: usize,
    keep_recent_tokens: f64,
    max_cut: Option<usize>,
) -> Option<CompactionPlan> {
    let facts = ctx.facts();
    let end = end.min(facts.len());
    // (`start >= end` holds for an empty context too)
    if start >= end || facts[end - 1].role == Role::CompactionSummary {
        return None;
    }
    let previous = last_summary_before(ctx, end).filter(|&i| i >= start);
    let compactable_start = previous.map_or(start, |i| i + 1);
    let turn_floor = turn_floor(previous);
    let mut cut = find_cut_point(ctx, compactable_start, end, keep_recent_tokens, turn_floor);
    if let Some(limit) = max_cut {
        if limit >= compactable_start && cut.first_kept_entry_index > limit {
            cut = cut_result(facts, turn_floor, limit);
        }
    }
    Some(CompactionPlan {
        compactable_start,
        previous_summary_index: previous,
        previous_summary: previous.and_then(|i| facts[i].text().summary),
        cut,
        history_end: history_end(&cut),
        end,
    })
}

/// The plan of a delegate's boundary that compacts: pi's compaction of everything after
/// the brief with `keep_recent_tokens`, retaining an active turn (ADR 0136; `active` is
/// the assistant that opened it). `None`: nothing to compact.
pub fn plan_boundary(
    ctx: &DelegateContext,
    keep_recent_tokens: f64,
    active: Option<usize>,
) -> Option<CompactionPlan> {
    let plan = plan_compaction(ctx, 1, ctx.len(), keep_recent_tokens, active)?;
    // An active turn whose own tool results reach keepRecentTokens leaves pi's cut at the
    // first cut point, so nothing would be summarized and the run would degrade. Cut at
    // the active assistant instead: what came before it is summarized, and the turn (the
    // assistant with its results) stays verbatim, as ADR 0136 retains an active turn.
    Some(match active {
        Some(la) if !plan.summarizes_anything() && la > plan.compactable_start => {
            plan.with_cut_at(ctx, la)
        }
        _ => plan,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::AgentMessage;
    use serde_json::json;

    fn ctx(ms: &[serde_json::Value]) -> DelegateContext {
        let ms: Vec<AgentMessage> = ms
            .iter()
            .map(|v| AgentMessage::from_value(v.clone(), "m").unwrap())
            .collect();
        DelegateContext::from_messages(&ms).unwrap()
    }
    fn user(n: usize) -> serde_json::Value {
        json!({"role": "user", "content": "u".repeat(n * 4)})
    }
    fn asst(n: usize) -> serde_json::Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(n * 4)}]})
    }
    fn result(n: usize) -> serde_json::Value {
        json!({"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": [{"type": "text", "text": "r".repeat(n * 4)}]})
    }

    #[test]
    fn cuts_at_the_first_valid_point_at_or_after_the_budget() {
        let c = ctx(&[user(10), asst(10), result(10), asst(10), user(10), asst(10)]);
        let n = c.len();
        // from the end: 10, 20 (user at 4) -> reaches 20 at index 4
        assert_eq!(
            find_cut_point(&c, 0, n, 20.0, 0),
            CutPoint {
                first_kept_entry_index: 4,
                turn_start_index: -1,
                is_split_turn: false
            }
        );
        // 30 reached at index 3 (assistant): split turn started by user 0
        let cut = find_cut_point(&c, 0, n, 30.0, 0);
        assert_eq!(cut.first_kept_entry_index, 3);
        assert!(cut.is_split_turn);
        assert_eq!(cut.turn_start_index, 0);
        // 40 reached at the tool result (2): next valid point is 3
        assert_eq!(find_cut_point(&c, 0, n, 40.0, 0).first_kept_entry_index, 3);
        // never reached: the first valid cut point
        assert_eq!(find_cut_point(&c, 0, n, 1e9, 0).first_kept_entry_index, 0);
    }

    #[test]
    fn a_trailing_tool_result_over_budget_keeps_everything() {
        let c = ctx(&[user(1), asst(1), result(100)]);
        assert_eq!(find_cut_point(&c, 0, 3, 10.0, 0).first_kept_entry_index, 0);
        assert_eq!(
            find_cut_point(&c, 2, 3, 10.0, 2),
            CutPoint {
                first_kept_entry_index: 2,
                turn_start_index: -1,
                is_split_turn: false
            }
        );
    }
}
