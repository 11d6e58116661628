//! ADR 0299 clause 3 (via host-contract §3): where a compaction may cut a delegate's
//! context, with pi-agent-core 0.85.1's `findCutPoint` / `findTurnStartIndex` semantics
//! over a context's messages instead of session entries.
//!
//! A message of our context plays the role of a pi `message` entry; pi's non-message
//! entries (`compaction`, `branch_summary`, `custom`) have no counterpart here (a
//! `branchSummary` *message* is a valid cut point but, as in pi, not a turn start).

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
