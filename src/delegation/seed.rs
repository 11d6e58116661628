//! ADR 0299 clause 7 (resume seeds within the budget) on top of ADR 0279 clause 3:
//! the brief first, the converted chain history after it, then truncation to the
//! delegate's `hardLimit` (host-contract §8).
//!
//! Sizes are per-message `estimateTokens` sums, never the usage anchor: the last
//! assistant's recorded usage still counts what truncation removes, so it could never
//! fall below the limit. "Fits" means the sum is below `hardLimit` (ADR 0299 clause 3
//! compacts at or above it). Truncation, oldest first:
//! 1. strip an assistant's tool calls together with their results (the assistant stays,
//!    as `stopReason:"stop"`, when text or thinking remain);
//! 2. drop whole messages.
//!
//! The brief is never dropped, even when it alone is over. The seeded assistants'
//! `usage` is zeroed, truncated or not: it described an earlier request's context (another
//! system prompt, no brief in front, maybe another model), and a stale usage could make
//! the first turn boundary compact at once, against clause 7's "a resume starts below
//! hardLimit".

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::history::{
    chain_rows_to_messages, iso_to_ms, zero_usage, ChainSelector, ProviderBinding,
};
use crate::error::{Error, Result};
use crate::message::{AgentMessage, Content, ContentBlock};
use crate::tokens::estimate_tokens;
use crate::transcript::UiMessage;

/// Input of [`seed_delegate_messages`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SeedInput {
    /// The chain's original task (`brief` of `validateResume` / `start`).
    pub brief: String,
    /// The chain's rows ([`super::select_chain_rows`]), or the whole transcript when
    /// `chain` is given.
    pub rows: Vec<UiMessage>,
    /// When given, `rows` are first narrowed to this chain's rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub chain: Option<ChainSelector>,
    /// The binding the resumed run uses.
    pub binding: ProviderBinding,
    /// The delegate's `hardLimit` (contextBudget of its own model).
    pub hard_limit: f64,
}

/// What truncation removed, for the host to record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SeedDropped {
    /// Tool calls stripped with their results (phase 1), oldest first.
    pub tool_call_ids: Vec<String>,
    /// Whole messages dropped (phase 2).
    pub messages: u64,
    /// Estimated tokens removed in total.
    pub tokens: u64,
}

/// The seeded context of a resumed run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SeedResult {
    /// `initialMessages` of the resumed run: the brief first.
    pub messages: Vec<AgentMessage>,
    /// Sum of per-message estimates of `messages`.
    pub tokens: u64,
    /// The limit the seed was truncated against.
    pub hard_limit: u64,
    /// Whether anything was removed.
    pub truncated: bool,
    /// The brief alone is at or above `hardLimit` (kept anyway).
    pub brief_over_limit: bool,
    pub dropped: SeedDropped,
}

/// A user message whose only text is `text` (an echo of the brief).
pub(crate) fn is_only_text(m: &AgentMessage, text: &str) -> bool {
    let AgentMessage::User(u) = m else {
        return false;
    };
    match &u.content {
        Content::Text(s) => s.trim() == text,
        Content::Blocks(b) => {
            matches!(b.as_slice(), [ContentBlock::Text(t)] if t.text.trim() == text)
        }
    }
}

/// Seed a resumed delegate (clause 3 + ADR 0299 clause 7): a user message with the
/// brief, then the chain's converted history minus any user message whose only text is
/// the brief (compared trimmed), then truncation to `hardLimit`.
///
/// Errors: `INVALID_INPUT` for a blank brief or a `hardLimit` that is not a positive
/// finite number.
pub fn seed_delegate_messages(input: &SeedInput) -> Result<SeedResult> {
    let brief = input.brief.trim();
    if brief.is_empty() {
        return Err(Error::invalid("input.brief", "the brief must not be blank"));
    }
    if !(input.hard_limit.is_finite() && input.hard_limit >= 1.0) {
        return Err(Error::invalid(
            "input.hardLimit",
            format!("expected a positive number, got {}", input.hard_limit),
        ));
    }
    let hard_limit = input.hard_limit.floor() as u64;
    let selected;
    let rows: &[UiMessage] = match &input.chain {
        Some(chain) => {
            selected = super::select_chain_rows(&input.rows, chain);
            &selected
        }
        None => &input.rows,
    };
    let timestamp = rows
        .first()
        .and_then(|r| r.created_at.as_deref())
        .and_then(iso_to_ms);
    let mut messages = vec![AgentMessage::user_text(brief, timestamp)];
    messages.extend(
        chain_rows_to_messages(rows, &input.binding)
            .into_iter()
            .filter(|m| !is_only_text(m, brief)),
    );
    Ok(truncate_seed(messages, hard_limit))
}

/// Truncate `messages` (the brief at index 0) below `hard_limit`.
pub fn truncate_seed(mut messages: Vec<AgentMessage>, hard_limit: u64) -> SeedResult {
    let mut sizes: Vec<u64> = messages.iter().map(estimate_tokens).collect();
    let before: u64 = sizes.iter().sum();
    let mut total = before;
    let mut dropped = SeedDropped::default();

    // Phase 1: strip tool call/result pairs, oldest first.
    let mut i = 1;
    while total >= hard_limit && i < messages.len() {
        let ids: Vec<String> = match &messages[i] {
            AgentMessage::Assistant(a) => a.tool_calls().map(|c| c.id.clone()).collect(),
            _ => Vec::new(),
        };
        if ids.is_empty() {
            i += 1;
            continue;
        }
        let idset: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut keep_carrier = false;
        if let AgentMessage::Assistant(a) = &mut messages[i] {
            a.content
                .retain(|b| !matches!(b, ContentBlock::ToolCall(_)));
            a.stop_reason = Some("stop".into());
            keep_carrier = !a.content.is_empty();
        }
        // Remove the results of those calls wherever they are (they follow the carrier).
        let mut j = messages.len();
        while j > i + 1 {
            j -= 1;
            if messages[j]
                .as_tool_result()
                .is_some_and(|r| idset.contains(r.tool_call_id.as_str()))
            {
                total -= sizes[j];
                messages.remove(j);
                sizes.remove(j);
            }
        }
        total -= sizes[i];
        if keep_carrier {
            sizes[i] = estimate_tokens(&messages[i]);
            total += sizes[i];
            i += 1;
        } else {
            messages.remove(i);
            sizes.remove(i);
        }
        dropped.tool_call_ids.extend(ids);
    }

    // Phase 2: drop whole messages oldest first, down to the brief. A dropped assistant
    // takes its results along, so no result is ever left without its call.
    while total >= hard_limit && messages.len() > 1 {
        let ids: HashSet<String> = match &messages[1] {
            AgentMessage::Assistant(a) => a.tool_calls().map(|c| c.id.clone()).collect(),
            _ => HashSet::new(),
        };
        total -= sizes[1];
        messages.remove(1);
        sizes.remove(1);
        dropped.messages += 1;
        if !ids.is_empty() {
            let mut j = messages.len();
            while j > 1 {
                j -= 1;
                if messages[j]
                    .as_tool_result()
                    .is_some_and(|r| ids.contains(&r.tool_call_id))
                {
                    total -= sizes[j];
                    messages.remove(j);
                    sizes.remove(j);
                    dropped.messages += 1;
                }
            }
        }
    }

    let truncated = total != before || !dropped.tool_call_ids.is_empty();
    // A seed is a new context (the brief first, rows re-derived), truncated or not: the
    // recorded usage of an earlier request does not describe it.
    for m in messages.iter_mut() {
        if let AgentMessage::Assistant(a) = m {
            if a.usage.is_some() {
                a.usage = Some(zero_usage());
            }
        }
    }
    dropped.tokens = before - total;
    let brief_over_limit = sizes.first().is_some_and(|&b| b >= hard_limit);
    SeedResult {
        messages,
        tokens: total,
        hard_limit,
        truncated,
        brief_over_limit,
        dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::rows_from_value;
    use serde_json::json;

    fn input(rows: serde_json::Value, hard_limit: f64) -> SeedInput {
        SeedInput {
            brief: "find the bug".into(),
            rows: rows_from_value(rows, "rows").unwrap(),
            chain: None,
            binding: ProviderBinding {
                provider: "p".into(),
                model: "m".into(),
                api: None,
                thinking_signature: None,
            },
            hard_limit,
        }
    }

    fn rows() -> serde_json::Value {
        json!([
            {"id": "u", "role": "user", "content": "find the bug"},
            {"id": "a1", "role": "assistant", "content": "reading", "usage": {"totalTokens": 900}},
            {"id": "c1", "role": "tool", "toolName": "read", "toolCallId": "c1", "toolArgs": {"path": "a"}, "toolResult": "x".repeat(400)},
            {"id": "a2", "role": "assistant", "content": ""},
            {"id": "c2", "role": "tool", "toolName": "read", "toolCallId": "c2", "toolArgs": {"path": "b"}, "toolResult": "y".repeat(400)},
            {"id": "a3", "role": "assistant", "content": "found it in b"},
        ])
    }

    #[test]
    fn untouched_when_under() {
        let r = seed_delegate_messages(&input(rows(), 10_000.0)).unwrap();
        assert!(!r.truncated);
        assert_eq!(r.messages.len(), 6); // brief, a1, r1, carrier a2, r2, a3 (dup brief gone)
        assert_eq!(r.messages[0].role(), "user");
        assert_eq!(r.dropped, SeedDropped::default());
    }

    #[test]
    fn strips_oldest_pairs_first_then_messages() {
        let full = seed_delegate_messages(&input(rows(), 10_000.0)).unwrap();
        // Just under enough to need one pair stripped.
        let r = seed_delegate_messages(&input(rows(), (full.tokens - 50) as f64)).unwrap();
        assert!(r.truncated);
        assert_eq!(r.dropped.tool_call_ids, ["c1"]);
        assert_eq!(r.dropped.messages, 0);
        assert!(r.tokens < r.hard_limit);
        let v = serde_json::to_value(&r.messages).unwrap();
        assert_eq!(v[1]["content"][0]["text"], "reading");
        assert_eq!(v[1]["stopReason"], "stop");
        assert_eq!(v[1]["usage"]["totalTokens"], 0.0);
        // A limit the brief alone exceeds keeps only the brief.
        let r = seed_delegate_messages(&input(rows(), 2.0)).unwrap();
        assert_eq!(r.messages.len(), 1);
        assert!(r.brief_over_limit);
        assert_eq!(r.dropped.tool_call_ids, ["c1", "c2"]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let mut i = input(rows(), 10.0);
        i.brief = "  ".into();
        assert_eq!(
            seed_delegate_messages(&i).unwrap_err().code(),
            "INVALID_INPUT"
        );
        let i = input(rows(), f64::NAN);
        assert_eq!(
            seed_delegate_messages(&i).unwrap_err().code(),
            "INVALID_INPUT"
        );
    }
}
