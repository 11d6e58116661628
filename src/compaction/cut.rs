//! ADR 0299 clause 3 (via host-contract §3): where a compaction may cut a delegate's
//! context, with pi-agent-core 0.85.1's `findCutPoint` / `findTurnStartIndex` semantics
//! over `AgentMessage[]` instead of session entries.
//!
//! A message of our context plays the role of a pi `message` entry; pi's non-message
//! entries (`compaction`, `branch_summary`, `custom`) have no counterpart here (a
//! `branchSummary` *message* is a valid cut point but, as in pi, not a turn start).

use serde::Serialize;
use tsify::Tsify;

use crate::message::AgentMessage;
use crate::tokens::estimate_tokens;

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

/// Roles a compaction may cut at: never a `toolResult` (a call and its result stay on
/// the same side) and never a role pi does not know.
pub fn is_valid_cut_point(message: &AgentMessage) -> bool {
    matches!(
        message,
        AgentMessage::User(_)
            | AgentMessage::Assistant(_)
            | AgentMessage::BashExecution(_)
            | AgentMessage::Custom(_)
            | AgentMessage::BranchSummary(_)
            | AgentMessage::CompactionSummary(_)
    )
}

/// Indices in `start..end` that are valid cut points, ascending.
pub fn find_valid_cut_points(messages: &[AgentMessage], start: usize, end: usize) -> Vec<usize> {
    (start..end.min(messages.len()))
        .filter(|&i| is_valid_cut_point(&messages[i]))
        .collect()
}

/// pi's `findTurnStartIndex`: walking back from `index` to `start`, the first user or
/// bashExecution message.
pub fn find_turn_start_index(
    messages: &[AgentMessage],
    index: usize,
    start: usize,
) -> Option<usize> {
    if messages.is_empty() {
        return None;
    }
    let mut i = index.min(messages.len() - 1);
    loop {
        if i < start {
            return None;
        }
        if matches!(
            messages[i],
            AgentMessage::User(_) | AgentMessage::BashExecution(_)
        ) {
            return Some(i);
        }
        if i == 0 {
            return None;
        }
        i -= 1;
    }
}

/// pi's `findCutPoint(entries, startIndex, endIndex, keepRecentTokens)`: walk from the
/// newest message back, summing `estimateTokens`; at the first message where the sum
/// reaches `keep_recent_tokens`, cut at the first valid cut point at or after it (the
/// first valid cut point when there is none, or when the sum never gets there).
///
/// `end` is clamped to `messages.len()`; callers validate their indices.
pub fn find_cut_point(
    messages: &[AgentMessage],
    start: usize,
    end: usize,
    keep_recent_tokens: f64,
) -> CutPoint {
    let end = end.min(messages.len());
    let cut_points = find_valid_cut_points(messages, start, end);
    let Some(&first) = cut_points.first() else {
        return CutPoint {
            first_kept_entry_index: start,
            turn_start_index: -1,
            is_split_turn: false,
        };
    };
    let mut cut = first;
    let mut accumulated: u64 = 0;
    for i in (start..end).rev() {
        accumulated += estimate_tokens(&messages[i]);
        if accumulated as f64 >= keep_recent_tokens {
            if let Some(&c) = cut_points.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    cut_result(messages, start, cut)
}

/// The `CutPoint` for a cut at `cut`: a cut at a user message starts a turn; any other
/// cut splits the turn begun by the nearest earlier user or bashExecution message.
pub fn cut_result(messages: &[AgentMessage], start: usize, cut: usize) -> CutPoint {
    let is_user = matches!(messages.get(cut), Some(AgentMessage::User(_)));
    let turn_start = if is_user {
        None
    } else {
        find_turn_start_index(messages, cut, start)
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
    use serde_json::json;

    fn m(v: serde_json::Value) -> AgentMessage {
        AgentMessage::from_value(v, "m").unwrap()
    }
    fn user(n: usize) -> AgentMessage {
        m(json!({"role": "user", "content": "u".repeat(n * 4)}))
    }
    fn asst(n: usize) -> AgentMessage {
        m(json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(n * 4)}]}))
    }
    fn result(n: usize) -> AgentMessage {
        m(
            json!({"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": [{"type": "text", "text": "r".repeat(n * 4)}]}),
        )
    }

    #[test]
    fn cuts_at_the_first_valid_point_at_or_after_the_budget() {
        let ms = vec![user(10), asst(10), result(10), asst(10), user(10), asst(10)];
        // from the end: 10, 20 (user at 4) -> reaches 20 at index 4
        let c = find_cut_point(&ms, 0, ms.len(), 20.0);
        assert_eq!(
            c,
            CutPoint {
                first_kept_entry_index: 4,
                turn_start_index: -1,
                is_split_turn: false
            }
        );
        // 30 reached at index 3 (assistant): split turn started by user 0
        let c = find_cut_point(&ms, 0, ms.len(), 30.0);
        assert_eq!(c.first_kept_entry_index, 3);
        assert!(c.is_split_turn);
        assert_eq!(c.turn_start_index, 0);
        // 40 reached at the tool result (2): next valid point is 3
        assert_eq!(
            find_cut_point(&ms, 0, ms.len(), 40.0).first_kept_entry_index,
            3
        );
        // never reached: the first valid cut point
        assert_eq!(
            find_cut_point(&ms, 0, ms.len(), 1e9).first_kept_entry_index,
            0
        );
    }

    #[test]
    fn a_trailing_tool_result_over_budget_keeps_everything() {
        let ms = vec![user(1), asst(1), result(100)];
        assert_eq!(find_cut_point(&ms, 0, 3, 10.0).first_kept_entry_index, 0);
        assert_eq!(
            find_cut_point(&ms, 2, 3, 10.0),
            CutPoint {
                first_kept_entry_index: 2,
                turn_start_index: -1,
                is_split_turn: false
            }
        );
    }
}
