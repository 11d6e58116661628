//! ADR 0299 clause 3 (via host-contract §3): pi-agent-core 0.85.1's `prepareCompaction`
//! over a delegate's `AgentMessage[]`: what is summarized, what is the split turn's
//! prefix, what is kept verbatim, and which files were read or modified.
//!
//! Differences from pi, forced by working on messages instead of session entries:
//! - pi reads the previous summary from the last `compaction` *entry*; here the last
//!   `compactionSummary` *message* plays that role. `previousSummary` is its `summary`,
//!   and only the messages after it are compactable (what lies before it is already
//!   summarized, as in pi). `compactableStart` says where that region begins.
//! - pi seeds `fileOps` from the previous compaction entry's `details.readFiles` /
//!   `details.modifiedFiles`. A host's `compactionSummary` message has no `details`;
//!   when it does (the ones this library writes carry `details.readFiles` and
//!   `details.modifiedFiles`), they seed `fileOps` exactly as pi's entry would;
//!   otherwise `fileOps` come from the messages alone.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use super::cut::{cut_result, find_cut_point, CutPoint};
use crate::message::{AgentMessage, ContentBlock, Extra};
use crate::tokens::estimate_context_tokens;

/// pi's `DEFAULT_COMPACTION_SETTINGS.reserveTokens`.
pub const DEFAULT_RESERVE_TOKENS: f64 = 16384.0;
/// pi's `DEFAULT_COMPACTION_SETTINGS.keepRecentTokens`.
pub const DEFAULT_KEEP_RECENT_TOKENS: f64 = 20000.0;

fn default_reserve() -> f64 {
    DEFAULT_RESERVE_TOKENS
}
fn default_keep() -> f64 {
    DEFAULT_KEEP_RECENT_TOKENS
}

/// pi's `CompactionSettings` (`enabled` and other fields are kept and echoed back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSettings {
    /// Tokens reserved for the summary request's output (default 16,384).
    #[serde(default = "default_reserve")]
    #[tsify(optional)]
    pub reserve_tokens: f64,
    /// Recent tokens kept verbatim (default 20,000).
    #[serde(default = "default_keep")]
    #[tsify(optional)]
    pub keep_recent_tokens: f64,
    #[serde(flatten)]
    #[tsify(type = "{}")]
    pub extra: Extra,
}

impl CompactionSettings {
    /// Settings with the given numbers and nothing else.
    pub fn new(reserve_tokens: f64, keep_recent_tokens: f64) -> Self {
        CompactionSettings {
            reserve_tokens,
            keep_recent_tokens,
            extra: Extra::new(),
        }
    }
}

/// pi's `FileOperations` with its `Set`s as arrays in insertion order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Tsify)]
pub struct FileOps {
    pub read: Vec<String>,
    pub written: Vec<String>,
    pub edited: Vec<String>,
}

fn add_unique(set: &mut Vec<String>, v: &str) {
    if !set.iter().any(|x| x == v) {
        set.push(v.to_string());
    }
}

impl FileOps {
    /// pi's `extractFileOpsFromMessage`: `read` / `write` / `edit` tool calls with a
    /// non-empty string `arguments.path` (names compared exactly, as pi does).
    pub fn add_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Assistant(a) = message else {
            return;
        };
        for block in &a.content {
            let ContentBlock::ToolCall(call) = block else {
                continue;
            };
            let Some(path) = call.arguments.get("path").and_then(Value::as_str) else {
                continue;
            };
            if path.is_empty() {
                continue;
            }
            match call.name.as_str() {
                "read" => add_unique(&mut self.read, path),
                "write" => add_unique(&mut self.written, path),
                "edit" => add_unique(&mut self.edited, path),
                _ => {}
            }
        }
    }

    /// Seed from a previous summary's `details` (`readFiles` → read,
    /// `modifiedFiles` → edited), as pi does from its previous compaction entry.
    pub fn add_details(&mut self, details: Option<&Value>) {
        let Some(Value::Object(d)) = details else {
            return;
        };
        for (key, is_read) in [("readFiles", true), ("modifiedFiles", false)] {
            if let Some(Value::Array(items)) = d.get(key) {
                for p in items.iter().filter_map(Value::as_str) {
                    if is_read {
                        add_unique(&mut self.read, p);
                    } else {
                        add_unique(&mut self.edited, p);
                    }
                }
            }
        }
    }

    /// pi's `computeFileLists`: `(readFiles, modifiedFiles)`, read-only files are those
    /// read and never modified; both sorted as JavaScript's default `sort()` does
    /// (by UTF-16 code units).
    pub fn file_lists(&self) -> (Vec<String>, Vec<String>) {
        let mut modified: Vec<String> = Vec::new();
        for p in self.edited.iter().chain(self.written.iter()) {
            add_unique(&mut modified, p);
        }
        let mut read: Vec<String> = self
            .read
            .iter()
            .filter(|p| !modified.contains(p))
            .cloned()
            .collect();
        read.sort_by(|a, b| js_cmp(a, b));
        modified.sort_by(|a, b| js_cmp(a, b));
        (read, modified)
    }
}

/// JavaScript's default string order: UTF-16 code unit by code unit.
pub fn js_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// pi's `isContextMessage`: an assistant that errored, aborted or was deferred is not
/// part of the model context.
pub fn is_context_message(message: &AgentMessage) -> bool {
    match message {
        AgentMessage::Assistant(a) => !matches!(
            a.stop_reason.as_deref(),
            Some("error") | Some("aborted") | Some("deferred")
        ),
        _ => true,
    }
}

/// pi's `tokensBefore`: `estimateContextTokens` over the context messages.
pub fn tokens_before(messages: &[AgentMessage]) -> f64 {
    let ctx: Vec<AgentMessage> = messages
        .iter()
        .filter(|m| is_context_message(m))
        .cloned()
        .collect();
    estimate_context_tokens(&ctx).tokens
}

/// Index of the last `compactionSummary` message, if any.
pub fn last_summary_index(messages: &[AgentMessage]) -> Option<usize> {
    messages
        .iter()
        .rposition(|m| matches!(m, AgentMessage::CompactionSummary(_)))
}

/// The index-level form of a preparation: every part is a slice of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionPlan {
    /// First compactable message (after the previous summary, or `start`).
    pub compactable_start: usize,
    /// The previous `compactionSummary` message, if any.
    pub previous_summary_index: Option<usize>,
    /// The cut, with indices into the whole array.
    pub cut: CutPoint,
    /// `messagesToSummarize` is `compactable_start..history_end`.
    pub history_end: usize,
    /// Exclusive end of the array considered.
    pub end: usize,
}

impl CompactionPlan {
    /// `turnPrefixMessages`: `turnStart..firstKept` of a split turn (else empty).
    pub fn prefix_range(&self) -> std::ops::Range<usize> {
        if self.cut.is_split_turn && self.cut.turn_start_index >= 0 {
            self.cut.turn_start_index as usize..self.cut.first_kept_entry_index
        } else {
            0..0
        }
    }
    /// `messagesToSummarize`.
    pub fn history_range(&self) -> std::ops::Range<usize> {
        self.compactable_start..self.history_end
    }
    /// `retainedTail`.
    pub fn retained_range(&self) -> std::ops::Range<usize> {
        self.cut.first_kept_entry_index..self.end
    }
}

/// Plan a compaction of `messages[..end]` whose compactable region starts after the
/// last `compactionSummary` at or after `start` (or at `start`). `max_cut` moves the cut
/// back to at most that index (ADR 0136 retention of an active turn); `None` keeps
/// pi's cut. Returns `None` where pi returns `undefined`: nothing to compact, or the
/// newest message is itself a summary.
pub fn plan_compaction(
    messages: &[AgentMessage],
    start: usize,
    end: usize,
    keep_recent_tokens: f64,
    max_cut: Option<usize>,
) -> Option<CompactionPlan> {
    let end = end.min(messages.len());
    if end == 0 || start >= end {
        return None;
    }
    if matches!(messages[end - 1], AgentMessage::CompactionSummary(_)) {
        return None;
    }
    let previous = last_summary_index(&messages[..end]).filter(|&i| i >= start);
    let compactable_start = previous.map_or(start, |i| i + 1);
    let mut cut = find_cut_point(messages, compactable_start, end, keep_recent_tokens);
    if let Some(limit) = max_cut {
        if limit >= compactable_start && cut.first_kept_entry_index > limit {
            cut = cut_result(messages, compactable_start, limit);
        }
    }
    let history_end = if cut.is_split_turn {
        cut.turn_start_index as usize
    } else {
        cut.first_kept_entry_index
    };
    Some(CompactionPlan {
        compactable_start,
        previous_summary_index: previous,
        cut,
        history_end,
        end,
    })
}

/// `plan` with its cut moved to `index` (a valid cut point after the compactable start),
/// the split turn recomputed as pi's `findCutPoint` would for that cut.
pub fn with_cut_at(
    messages: &[AgentMessage],
    plan: &CompactionPlan,
    index: usize,
) -> CompactionPlan {
    let cut = cut_result(messages, plan.compactable_start, index);
    let history_end = if cut.is_split_turn {
        cut.turn_start_index as usize
    } else {
        cut.first_kept_entry_index
    };
    CompactionPlan {
        cut,
        history_end,
        ..*plan
    }
}

/// The previous summary's text and `details`.
fn previous_summary<'a>(
    messages: &'a [AgentMessage],
    plan: &CompactionPlan,
) -> (Option<&'a str>, Option<&'a Value>) {
    match plan.previous_summary_index.map(|i| &messages[i]) {
        Some(AgentMessage::CompactionSummary(s)) => {
            (Some(s.summary.as_str()), s.extra.get("details"))
        }
        _ => (None, None),
    }
}

/// pi's `extractFileOperations` (+ the split turn's prefix) for a plan.
pub fn plan_file_ops(messages: &[AgentMessage], plan: &CompactionPlan) -> FileOps {
    let mut ops = FileOps::default();
    ops.add_details(previous_summary(messages, plan).1);
    for m in &messages[plan.history_range()] {
        ops.add_message(m);
    }
    for m in &messages[plan.prefix_range()] {
        ops.add_message(m);
    }
    ops
}

/// The previous summary text of a plan.
pub fn plan_previous_summary<'a>(
    messages: &'a [AgentMessage],
    plan: &CompactionPlan,
) -> Option<&'a str> {
    previous_summary(messages, plan).0
}

/// pi's `prepareCompaction` result, plus where the compactable region starts.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreparation {
    pub messages_to_summarize: Vec<AgentMessage>,
    pub turn_prefix_messages: Vec<AgentMessage>,
    pub retained_tail: Vec<AgentMessage>,
    pub is_split_turn: bool,
    /// `estimateContextTokens` over the context (failed, aborted, deferred assistants excluded).
    pub tokens_before: f64,
    /// The `summary` of the last `compactionSummary` message, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub previous_summary: Option<String>,
    pub file_ops: FileOps,
    pub settings: CompactionSettings,
    /// Index of the first compactable message (after the previous summary, else 0).
    pub compactable_start: usize,
    /// Index of the first retained message (pi's `firstKeptEntryIndex`).
    pub first_kept_index: usize,
}

/// pi's `prepareCompaction(pathEntries, settings)` over messages. `None` where pi
/// returns `undefined` (empty input, or a summary as the newest message).
pub fn prepare_compaction(
    messages: &[AgentMessage],
    settings: &CompactionSettings,
) -> Option<CompactionPreparation> {
    let plan = plan_compaction(
        messages,
        0,
        messages.len(),
        settings.keep_recent_tokens,
        None,
    )?;
    Some(preparation_from_plan(messages, &plan, settings))
}

/// Materialize a plan as pi's result shape.
pub fn preparation_from_plan(
    messages: &[AgentMessage],
    plan: &CompactionPlan,
    settings: &CompactionSettings,
) -> CompactionPreparation {
    CompactionPreparation {
        messages_to_summarize: messages[plan.history_range()].to_vec(),
        turn_prefix_messages: messages[plan.prefix_range()].to_vec(),
        retained_tail: messages[plan.retained_range()].to_vec(),
        is_split_turn: plan.cut.is_split_turn,
        tokens_before: tokens_before(&messages[..plan.end]),
        previous_summary: plan_previous_summary(messages, plan).map(str::to_string),
        file_ops: plan_file_ops(messages, plan),
        settings: settings.clone(),
        compactable_start: plan.compactable_start,
        first_kept_index: plan.cut.first_kept_entry_index,
    }
}

/// One row of [`compaction_plans`]: a preparation as indices (parts are slices of the input).
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPlanSummary {
    /// Exclusive end of the prefix this row describes.
    pub end: usize,
    /// `false` where pi's `prepareCompaction` returns `undefined`.
    pub applicable: bool,
    pub compactable_start: usize,
    pub first_kept_entry_index: usize,
    pub turn_start_index: i64,
    pub is_split_turn: bool,
    /// `messagesToSummarize` is `compactableStart .. historyEnd`.
    pub history_end: usize,
    pub tokens_before: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub previous_summary: Option<String>,
    pub file_ops: FileOps,
}

/// `prepareCompaction` of many prefixes of one array at once, as indices: row `k` is the
/// preparation of `messages[..ends[k]]`. Built for differential tests and hosts that
/// evaluate many candidate cuts without moving messages across the boundary each time.
pub fn compaction_plans(
    messages: &[AgentMessage],
    ends: &[usize],
    settings: &CompactionSettings,
) -> Vec<CompactionPlanSummary> {
    ends.iter()
        .map(|&end| {
            let end = end.min(messages.len());
            match plan_compaction(messages, 0, end, settings.keep_recent_tokens, None) {
                None => CompactionPlanSummary {
                    end,
                    applicable: false,
                    compactable_start: 0,
                    first_kept_entry_index: 0,
                    turn_start_index: -1,
                    is_split_turn: false,
                    history_end: 0,
                    tokens_before: 0.0,
                    previous_summary: None,
                    file_ops: FileOps::default(),
                },
                Some(plan) => CompactionPlanSummary {
                    end,
                    applicable: true,
                    compactable_start: plan.compactable_start,
                    first_kept_entry_index: plan.cut.first_kept_entry_index,
                    turn_start_index: plan.cut.turn_start_index,
                    is_split_turn: plan.cut.is_split_turn,
                    history_end: plan.history_end,
                    tokens_before: tokens_before(&messages[..end]),
                    previous_summary: plan_previous_summary(messages, &plan).map(str::to_string),
                    file_ops: plan_file_ops(messages, &plan),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(v: serde_json::Value) -> AgentMessage {
        AgentMessage::from_value(v, "m").unwrap()
    }

    #[test]
    fn previous_summary_bounds_the_compactable_region_and_seeds_file_ops() {
        let ms = vec![
            m(json!({"role": "user", "content": "brief"})),
            m(
                json!({"role": "compactionSummary", "summary": "old", "tokensBefore": 5,
                     "details": {"readFiles": ["z.rs", "a.rs"], "modifiedFiles": ["m.rs"]}}),
            ),
            m(json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "b.rs"}},
                {"type": "toolCall", "id": "2", "name": "write", "arguments": {"path": "a.rs"}}]})),
            m(
                json!({"role": "toolResult", "toolCallId": "1", "toolName": "read", "content": "x".repeat(400)}),
            ),
            m(
                json!({"role": "toolResult", "toolCallId": "2", "toolName": "write", "content": "ok"}),
            ),
            m(json!({"role": "user", "content": "next".repeat(100)})),
        ];
        let p = prepare_compaction(&ms, &CompactionSettings::new(100.0, 50.0)).unwrap();
        assert_eq!(p.compactable_start, 2);
        assert_eq!(p.previous_summary.as_deref(), Some("old"));
        assert_eq!(p.first_kept_index, 5);
        assert_eq!(p.messages_to_summarize.len(), 3);
        assert!(!p.is_split_turn);
        assert_eq!(p.file_ops.read, vec!["z.rs", "a.rs", "b.rs"]);
        assert_eq!(p.file_ops.edited, vec!["m.rs"]);
        let (read, modified) = p.file_ops.file_lists();
        assert_eq!(read, vec!["b.rs", "z.rs"]);
        assert_eq!(modified, vec!["a.rs", "m.rs"]);
        let mut last = ms.clone();
        last.push(m(json!({"role": "compactionSummary", "summary": "s"})));
        assert!(prepare_compaction(&last, &CompactionSettings::new(1.0, 1.0)).is_none());
        assert!(prepare_compaction(&[], &CompactionSettings::new(1.0, 1.0)).is_none());
    }

    #[test]
    fn js_sort_order_is_utf16() {
        // U+FF5E (one unit, 0xFF5E) sorts after U+1F600 (surrogates 0xD83D...) in JS.
        assert_eq!(js_cmp("\u{1F600}", "\u{FF5E}"), std::cmp::Ordering::Less);
    }
}
