//! ADR 0299 clause 3 (via host-contract §3): pi-agent-core 0.85.1's `prepareCompaction`
//! over a delegate's context, as the package exports it: the plan's ranges
//! ([`super::plan`]), `tokensBefore`, the previous summary and the file operations
//! ([`super::file_ops`]), with pi's `CompactionSettings`; and many prefixes of one context
//! planned at once ([`compaction_plans`]). Where messages force a difference from pi's
//! session entries, those two modules say so.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::context::DelegateContext;
use super::file_ops::FileOps;
use super::plan::plan_compaction;
use crate::decode::decode_struct;
use crate::message::Extra;
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

decode_struct!(CompactionSettings "CompactionSettings" {
    reserve_tokens: "reserveTokens" => default(DEFAULT_RESERVE_TOKENS),
    keep_recent_tokens: "keepRecentTokens" => default(DEFAULT_KEEP_RECENT_TOKENS),
} extra extra);

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
            extra: crate::js_text::new_map(),
        }
    }
}

/// pi's `tokensBefore`: `estimateContextTokens` over the context messages of `0..end`
/// (errored, aborted and deferred assistants excluded).
#[inline(never)]
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
        previous_summary: plan.previous_summary.clone(),
        file_ops: FileOps::of_plan(&plan, ctx),
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
                    previous_summary: plan.previous_summary.clone(),
                    file_ops: FileOps::of_plan(&plan, ctx),
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
}
