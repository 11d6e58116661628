//! ADR 0299 clause 3 (via host-contract §3): pi-agent-core 0.85.1's `prepareCompaction`
//! over a delegate's context: what is summarized, what is the split turn's prefix, what
//! is kept verbatim, and which files were read or modified. Every part is a range of the
//! context, so a caller maps it onto its own message objects (nothing is copied).
//!
//! Differences from pi, forced by working on messages instead of session entries:
//! - pi reads the previous summary from the last `compaction` *entry*; here the last
//!   `compactionSummary` *message* plays that role. `previousSummary` is its `summary`,
//!   and only the messages after it are compactable (what lies before it is already
//!   summarized, as in pi). `compactableStart` says where that region begins.
//! - pi seeds `fileOps` from the previous compaction entry's `details.readFiles` /
//!   `details.modifiedFiles`. A host's `compactionSummary` message has no `details`;
//!   when it does (the ones this library writes carry them), they seed `fileOps` exactly
//!   as pi's entry would; otherwise `fileOps` come from the messages alone.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::context::DelegateContext;
use super::cut::{cut_result, find_cut_point, CutPoint};
use crate::facts::{FileOpKind, MessageFacts};
use crate::message::Extra;
use crate::role::Role;
use crate::tokens::{usage_anchor, Anchor};

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

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings::new(DEFAULT_RESERVE_TOKENS, DEFAULT_KEEP_RECENT_TOKENS)
    }
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
    /// pi's `extractFileOpsFromMessage` for one message's facts.
    pub fn add_message(&mut self, facts: &MessageFacts) {
        for (kind, path) in &facts.file_ops {
            match kind {
                FileOpKind::Read => add_unique(&mut self.read, path),
                FileOpKind::Write => add_unique(&mut self.written, path),
                FileOpKind::Edit => add_unique(&mut self.edited, path),
            }
        }
    }

    /// Seed from a previous summary's marks (`readFiles` → read, `modifiedFiles` →
    /// edited), as pi does from its previous compaction entry.
    pub fn add_summary(&mut self, facts: &MessageFacts) {
        if let Some(s) = &facts.summary {
            for p in &s.read_files {
                add_unique(&mut self.read, p);
            }
            for p in &s.modified_files {
                add_unique(&mut self.edited, p);
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
        crate::order::sort_by(&mut read, |a, b| js_cmp(a, b));
        crate::order::sort_by(&mut modified, |a, b| js_cmp(a, b));
        (read, modified)
    }
}

/// JavaScript's default string order: UTF-16 code unit by code unit.
pub fn js_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// pi's `tokensBefore`: `estimateContextTokens` over the context messages of `0..end`
/// (errored, aborted and deferred assistants excluded).
pub fn tokens_before(ctx: &DelegateContext, end: usize) -> f64 {
    let facts = ctx.facts();
    let end = end.min(facts.len());
    let anchor = usage_anchor(end, 0, |i| {
        Ok::<_, std::convert::Infallible>(Some(&facts[i]).filter(|f| f.is_context_message()))
    });
    match anchor {
        Ok(Anchor::Found(e)) => e.tokens,
        Ok(Anchor::Missing { trailing }) => trailing as f64,
        Err(never) => match never {},
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

/// A compaction as ranges of the context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionPlan {
    /// First compactable message (after the previous summary, or `start`).
    pub compactable_start: usize,
    /// The previous `compactionSummary` message, if any.
    pub previous_summary_index: Option<usize>,
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
        if self.cut.is_split_turn && self.cut.turn_start_index >= 0 {
            self.cut.turn_start_index as usize..self.cut.first_kept_entry_index
        } else {
            0..0
        }
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
    /// The previous summary's text.
    pub fn previous_summary(&self, ctx: &DelegateContext) -> Option<String> {
        let i = self.previous_summary_index?;
        ctx.facts()[i].text().summary
    }
    /// pi's `extractFileOperations` (+ the split turn's prefix).
    pub fn file_ops(&self, ctx: &DelegateContext) -> FileOps {
        let facts = ctx.facts();
        let mut ops = FileOps::default();
        if let Some(i) = self.previous_summary_index {
            ops.add_summary(&facts[i]);
        }
        for range in [self.history_range(), self.prefix_range()] {
            for &i in ctx.file_op_indices(range) {
                ops.add_message(&facts[i]);
            }
        }
        ops
    }
    /// The plan with its cut moved to `index` (a valid cut point after the compactable
    /// start), the split turn recomputed as pi's `findCutPoint` would for that cut.
    pub fn with_cut_at(&self, ctx: &DelegateContext, index: usize) -> CompactionPlan {
        let cut = cut_result(ctx.facts(), self.turn_floor(), index);
        CompactionPlan {
            cut,
            history_end: history_end(&cut),
            ..*self
        }
    }
    /// Where the cut turn's start is searched down to: after the previous summary, else
    /// the first message (pi's `boundaryStart`).
    fn turn_floor(&self) -> usize {
        self.previous_summary_index.map_or(0, |i| i + 1)
    }
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
    if end == 0 || start >= end || facts[end - 1].role == Role::CompactionSummary {
        return None;
    }
    let previous = last_summary_before(ctx, end).filter(|&i| i >= start);
    let compactable_start = previous.map_or(start, |i| i + 1);
    let turn_floor = previous.map_or(0, |i| i + 1);
    let mut cut = find_cut_point(ctx, compactable_start, end, keep_recent_tokens, turn_floor);
    if let Some(limit) = max_cut {
        if limit >= compactable_start && cut.first_kept_entry_index > limit {
            cut = cut_result(facts, turn_floor, limit);
        }
    }
    Some(CompactionPlan {
        compactable_start,
        previous_summary_index: previous,
        cut,
        history_end: history_end(&cut),
        end,
    })
}

/// `plan` with its cut moved to `index` (see [`CompactionPlan::with_cut_at`]).
pub fn with_cut_at(ctx: &DelegateContext, plan: &CompactionPlan, index: usize) -> CompactionPlan {
    plan.with_cut_at(ctx, index)
}

/// pi's `prepareCompaction` result as ranges of the input (the binding maps each range
/// onto the caller's own message objects), plus where the compactable region starts.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreparation {
    /// `messages.slice(compactableStart, historyEnd)`.
    #[tsify(type = "AgentMessage[]")]
    pub messages_to_summarize: MessageRange,
    /// `messages.slice(turnStart, firstKeptIndex)` of a split turn, else empty.
    #[tsify(type = "AgentMessage[]")]
    pub turn_prefix_messages: MessageRange,
    /// `messages.slice(firstKeptIndex)`.
    #[tsify(type = "AgentMessage[]")]
    pub retained_tail: MessageRange,
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

/// A range of the input array, `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MessageRange {
    pub start: usize,
    pub end: usize,
}

impl From<std::ops::Range<usize>> for MessageRange {
    fn from(r: std::ops::Range<usize>) -> Self {
        MessageRange {
            start: r.start,
            end: r.end.max(r.start),
        }
    }
}

/// pi's `prepareCompaction(pathEntries, settings)` over a context. `None` where pi
/// returns `undefined` (empty input, or a summary as the newest message).
pub fn prepare_compaction(
    ctx: &DelegateContext,
    settings: &CompactionSettings,
) -> Option<CompactionPreparation> {
    let plan = plan_compaction(ctx, 0, ctx.len(), settings.keep_recent_tokens, None)?;
    Some(CompactionPreparation {
        messages_to_summarize: plan.history_range().into(),
        turn_prefix_messages: plan.prefix_range().into(),
        retained_tail: plan.retained_range().into(),
        is_split_turn: plan.cut.is_split_turn,
        tokens_before: tokens_before(ctx, plan.end),
        previous_summary: plan.previous_summary(ctx),
        file_ops: plan.file_ops(ctx),
        settings: settings.clone(),
        compactable_start: plan.compactable_start,
        first_kept_index: plan.cut.first_kept_entry_index,
    })
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

/// `prepareCompaction` of many prefixes of one context at once, as indices: row `k` is
/// the preparation of `ctx[..ends[k]]`. Built for differential tests and hosts that
/// evaluate many candidate cuts without moving messages across the boundary each time.
pub fn compaction_plans(
    ctx: &DelegateContext,
    ends: &[usize],
    settings: &CompactionSettings,
) -> Vec<CompactionPlanSummary> {
    ends.iter()
        .map(|&end| {
            let end = end.min(ctx.len());
            match plan_compaction(ctx, 0, end, settings.keep_recent_tokens, None) {
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
                    tokens_before: tokens_before(ctx, end),
                    previous_summary: plan.previous_summary(ctx),
                    file_ops: plan.file_ops(ctx),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::AgentMessage;
    use serde_json::json;

    fn ctx(vs: Vec<serde_json::Value>) -> DelegateContext {
        let ms: Vec<AgentMessage> = vs
            .into_iter()
            .map(|v| AgentMessage::from_value(v, "m").unwrap())
            .collect();
        DelegateContext::from_messages(&ms).unwrap()
    }

    #[test]
    fn previous_summary_bounds_the_compactable_region_and_seeds_file_ops() {
        let vs = vec![
            json!({"role": "user", "content": "brief"}),
            json!({"role": "compactionSummary", "summary": "old", "tokensBefore": 5,
                     "details": {"readFiles": ["z.rs", "a.rs"], "modifiedFiles": ["m.rs"]}}),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "b.rs"}},
                {"type": "toolCall", "id": "2", "name": "write", "arguments": {"path": "a.rs"}}]}),
            json!({"role": "toolResult", "toolCallId": "1", "toolName": "read", "content": "x".repeat(400)}),
            json!({"role": "toolResult", "toolCallId": "2", "toolName": "write", "content": "ok"}),
            json!({"role": "user", "content": "next".repeat(100)}),
        ];
        let c = ctx(vs.clone());
        let p = prepare_compaction(&c, &CompactionSettings::new(100.0, 50.0)).unwrap();
        assert_eq!(p.compactable_start, 2);
        assert_eq!(p.previous_summary.as_deref(), Some("old"));
        assert_eq!(p.first_kept_index, 5);
        let history = p.messages_to_summarize;
        assert_eq!(history.end - history.start, 3);
        assert!(!p.is_split_turn);
        assert_eq!(p.file_ops.read, vec!["z.rs", "a.rs", "b.rs"]);
        assert_eq!(p.file_ops.edited, vec!["m.rs"]);
        let (read, modified) = p.file_ops.file_lists();
        assert_eq!(read, vec!["b.rs", "z.rs"]);
        assert_eq!(modified, vec!["a.rs", "m.rs"]);
        let mut last = vs;
        last.push(json!({"role": "compactionSummary", "summary": "s"}));
        assert!(prepare_compaction(&ctx(last), &CompactionSettings::new(1.0, 1.0)).is_none());
        assert!(prepare_compaction(&ctx(vec![]), &CompactionSettings::new(1.0, 1.0)).is_none());
    }

    #[test]
    fn js_sort_order_is_utf16() {
        // U+FF5E (one unit, 0xFF5E) sorts after U+1F600 (surrogates 0xD83D...) in JS.
        assert_eq!(js_cmp("\u{1F600}", "\u{FF5E}"), std::cmp::Ordering::Less);
    }
}
