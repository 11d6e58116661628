//! ADR 0299 clause 7 (resume seeds within the budget) on top of ADR 0279 clause 3:
//! the brief first, the converted chain history after it, then truncation to the
//! delegate's `hardLimit` (host-contract §8).
//!
//! Sizes are per-message `estimateTokens` sums, never the usage anchor: the last
//! assistant's recorded usage still counts what truncation removes, so it could never
//! fall below the limit. Every request also carries what is not a message (the system
//! prompt, the tool schemas): the seed is sized with that overhead, given as
//! `overheadTokens` or derived from `systemPrompt` and `tools` exactly as the turn
//! boundary's pi hook derives it ([`request_overhead_tokens`]), so the first request of
//! a resumed run starts below `hardLimit`. "Fits" means messages + overhead is below
//! `hardLimit` (ADR 0299 clause 3 compacts at or above it). Truncation keeps the host
//! app's phases, each oldest first and each only while the seed does not fit:
//! 1. strip an assistant's tool calls together with their results (the assistant stays,
//!    as `stopReason:"stop"`, when text or thinking remain);
//! 2. drop whole messages (an assistant takes its results along);
//!
//! then, ADR 0299 clause 7's "the most recent turns are preserved" (host-contract §8's
//! last seeding rule): newest first, every pair phase 1 stripped that is newer than all
//! phase 2 dropped and fits again is put back where it was, so a seed ends with the most
//! recent material the limit allows (an old long text no longer costs a recent read its
//! place). The brief is never dropped, even when it alone is over. Linear time: a flag per
//! message, one index of results by call id, no removal from the middle of a vector. The seeded assistants'
//! `usage` is zeroed, truncated or not: it described an earlier request's context (another
//! system prompt, no brief in front, maybe another model), and a stale usage could make
//! the first turn boundary compact at once, against clause 7's "a resume starts below
//! hardLimit".

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use super::history::{is_echo_of_brief, select_chain_rows};
use super::types::ChainSelector;
use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::js_text::js_number_to_string;
use crate::js_whitespace;
use crate::keyed::Table;
use crate::message::{AgentMessage, ContentBlock};
use crate::text_build::Owned;
use crate::tokens::{estimate_tokens, request_overhead_tokens};
use crate::transcript::{iso_to_ms, rows_to_messages, zero_usage, ProviderBinding, UiMessage};

/// Input of `seedDelegateMessages`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SeedInput {
    /// The chain's original task (`brief` of `validateResume` / `start`).
    pub brief: String,
    /// The chain's rows (`selectChainRows`), or the whole transcript when
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
    /// Tokens of every request that are not messages (system prompt, tool schemas). Give
    /// this, or `systemPrompt` / `tools` to derive it; none of them: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub overhead_tokens: Option<f64>,
    /// The resumed run's system prompt: with `tools`, the overhead is
    /// `ceil((systemPrompt.length + JSON.stringify(tools).length) / 4)`, as the turn
    /// boundary hook counts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub system_prompt: Option<String>,
    /// The resumed run's tools (as the Agent's context holds them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown[]")]
    pub tools: Option<Value>,
}

decode_struct!(SeedInput "SeedInput" {
    brief: "brief" => req,
    rows: "rows" => req,
    chain: "chain" => default,
    binding: "binding" => req,
    hard_limit: "hardLimit" => req,
    overhead_tokens: "overheadTokens" => default,
    system_prompt: "systemPrompt" => default,
    tools: "tools" => default,
});

/// What truncation removed, for the host to record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SeedDropped {
    /// Tool calls stripped with their results (phase 1) and not put back, oldest first.
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
    /// Sum of per-message estimates of `messages` (without the overhead).
    pub tokens: u64,
    /// The limit the seed was truncated against.
    pub hard_limit: u64,
    /// The request overhead the seed was sized with: `tokens + overheadTokens` is below
    /// `hardLimit` unless `briefOverLimit`.
    pub overhead_tokens: u64,
    /// Whether anything was removed.
    pub truncated: bool,
    /// The brief alone (with the overhead) is at or above `hardLimit` (kept anyway).
    pub brief_over_limit: bool,
    pub dropped: SeedDropped,
}

/// Seed a resumed delegate (clause 3 + ADR 0299 clause 7): a user message with the
/// brief, then the chain's converted history minus any user message whose only text is
/// the brief (compared trimmed), then truncation to `hardLimit`.
///
/// Errors: `INVALID_INPUT` for a blank brief, a `hardLimit` that is not a positive
/// finite number, an `overheadTokens` that is not a finite number `>= 0`, or an
/// `overheadTokens` given together with `systemPrompt` / `tools`.
pub fn seed_delegate_messages(input: &SeedInput) -> Result<SeedResult> {
    let brief = js_whitespace::trim(&input.brief);
    if brief.is_empty() {
        return Err(Error::invalid("input.brief", "the brief must not be blank"));
    }
    if !(input.hard_limit.is_finite() && input.hard_limit >= 1.0) {
        return Err(Error::invalid(
            "input.hardLimit",
            format!(
                "expected a positive number, got {}",
                js_number_to_string(input.hard_limit)
            ),
        ));
    }
    let hard_limit = input.hard_limit.floor() as u64;
    let overhead = overhead_of(input)?;
    let rows: Vec<&UiMessage> = match &input.chain {
        Some(chain) => select_chain_rows(&input.rows, chain),
        None => input.rows.iter().collect(),
    };
    let timestamp = rows
        .first()
        .and_then(|row| row.created_at.as_deref())
        .and_then(iso_to_ms);
    let mut messages = vec![AgentMessage::user_text(brief, timestamp)];
    messages.extend(
        rows_to_messages(&rows, &input.binding)
            .into_iter()
            .filter(|m| !is_echo_of_brief(m, brief)),
    );
    Ok(truncate_seed(messages, hard_limit, overhead))
}

/// The request overhead of `input`: `overheadTokens`, else derived from `systemPrompt`
/// and `tools`, else 0.
fn overhead_of(input: &SeedInput) -> Result<u64> {
    match input.overhead_tokens {
        Some(_) if input.system_prompt.is_some() || input.tools.is_some() => Err(Error::invalid(
            "input.overheadTokens",
            "give overheadTokens, or systemPrompt and tools to derive it, not both",
        )),
        Some(tokens) if tokens.is_finite() && tokens >= 0.0 => Ok(tokens.ceil() as u64),
        Some(tokens) => Err(Error::invalid(
            "input.overheadTokens",
            format!(
                "expected a number >= 0, got {}",
                js_number_to_string(tokens)
            ),
        )),
        None => Ok(request_overhead_tokens(
            input.system_prompt.as_deref(),
            input.tools.as_ref(),
        )),
    }
}

/// A pair phase 1 stripped: the carrier as it was, and its results.
struct Stripped {
    carrier: usize,
    original: Option<AgentMessage>,
    original_size: u64,
    results: Vec<usize>,
    ids: Vec<String>,
    restored: bool,
}

/// Truncate `messages` (the brief at index 0) so that their estimates plus `overhead`
/// are below `hard_limit`: phase 1, phase 2, then the put-back (module docs). Linear in
/// the messages (each one is stripped, dropped or put back at most once; the results of
/// a call are found through one index built up front).
pub fn truncate_seed(
    mut messages: Vec<AgentMessage>,
    hard_limit: u64,
    overhead: u64,
) -> SeedResult {
    let sizes: Vec<u64> = messages.iter().map(estimate_tokens).collect();
    let before: u64 = sizes.iter().sum();
    let mut t = Trim {
        alive: vec![true; messages.len()],
        sizes,
        total: before,
        limit: hard_limit.saturating_sub(overhead),
    };
    let mut dropped = SeedDropped::default();
    let mut stripped = t.strip_pairs(&mut messages);
    let cut = t.drop_oldest(&mut dropped);
    t.put_back(&mut messages, &mut stripped, cut);
    let mut still_dropped = Vec::new();
    for pair in stripped.into_iter().filter(|pair| !pair.restored) {
        still_dropped.extend(pair.ids);
    }
    dropped.tool_call_ids = still_dropped;

    // (a pair put back restores the total exactly: only what stays removed counts)
    let truncated = dropped.messages > 0 || !dropped.tool_call_ids.is_empty();
    let Trim {
        sizes,
        alive,
        total,
        limit,
    } = t;
    let all = messages;
    let mut kept_sizes = Vec::with_capacity(all.len());
    let mut messages: Vec<AgentMessage> = Vec::with_capacity(all.len());
    for ((message, size), alive) in all.into_iter().zip(sizes).zip(alive) {
        if alive {
            kept_sizes.push(size);
            messages.push(message);
        }
    }
    // A seed is a new context (the brief first, rows re-derived), truncated or not: the
    // recorded usage of an earlier request does not describe it.
    for message in messages.iter_mut() {
        if let AgentMessage::Assistant(assistant) = message {
            if assistant.usage.is_some() {
                assistant.usage = Some(zero_usage());
            }
        }
    }
    dropped.tokens = before - total;
    let brief_over_limit = kept_sizes.first().is_some_and(|&brief| brief >= limit);
    SeedResult {
        messages,
        tokens: total,
        hard_limit,
        overhead_tokens: overhead,
        truncated,
        brief_over_limit,
        dropped,
    }
}

/// A seed being trimmed: each message's size and whether it stays, their total, and the
/// limit the total must get below.
struct Trim {
    sizes: Vec<u64>,
    alive: Vec<bool>,
    total: u64,
    limit: u64,
}

impl Trim {
    /// Phase 1: strip tool call/result pairs, oldest first; the results of those calls go
    /// wherever they are, so none is left without its call.
    fn strip_pairs(&mut self, messages: &mut [AgentMessage]) -> Vec<Stripped> {
        // every tool result's position, by its call id
        let mut results_of: Table<String, Vec<usize>> = Table::default();
        if self.total >= self.limit {
            for (at, message) in messages.iter().enumerate() {
                if let Some(result) = message.as_tool_result() {
                    results_of
                        .entry(result.tool_call_id.clone(), Vec::new)
                        .push(at);
                }
            }
        }
        let mut stripped: Vec<Stripped> = Vec::new();
        for at in 1..messages.len() {
            if self.total < self.limit {
                break;
            }
            let Some(message) = messages.get_mut(at) else {
                break;
            };
            let ids: Vec<String> = match message {
                AgentMessage::Assistant(assistant) => {
                    assistant.tool_calls().map(|call| call.id.clone()).collect()
                }
                _ => Vec::new(),
            };
            if ids.is_empty() {
                continue;
            }
            let original = message.clone();
            let mut keep_carrier = false;
            if let AgentMessage::Assistant(carrier) = message {
                carrier
                    .content
                    .retain(|block| !matches!(block, ContentBlock::ToolCall(_)));
                carrier.stop_reason = Some("stop".owned());
                keep_carrier = !carrier.content.is_empty();
            }
            let original_size = self.sizes[at];
            self.total -= original_size;
            if keep_carrier {
                self.sizes[at] = estimate_tokens(message);
                self.total += self.sizes[at];
            } else {
                self.alive[at] = false;
            }
            let mut results = Vec::new();
            for id in &ids {
                for &j in results_of.get(id).map_or(&[][..], Vec::as_slice) {
                    if self.alive[j] {
                        self.alive[j] = false;
                        self.total -= self.sizes[j];
                        results.push(j);
                    }
                }
            }
            stripped.push(Stripped {
                carrier: at,
                original: Some(original),
                original_size,
                results,
                ids,
                restored: false,
            });
        }
        stripped
    }

    /// Phase 2: drop whole messages oldest first, down to the brief; the last one dropped
    /// (0: none). It runs only when phase 1 went through every message, so no assistant
    /// left carries a tool call: no result is ever left without its call.
    fn drop_oldest(&mut self, dropped: &mut SeedDropped) -> usize {
        let mut cut = 0;
        for at in 1..self.alive.len() {
            if self.total < self.limit {
                break;
            }
            if !self.alive[at] {
                continue;
            }
            self.alive[at] = false;
            self.total -= self.sizes[at];
            dropped.messages += 1;
            cut = at;
        }
        cut
    }

    /// Put back, newest first, every stripped pair newer than all that phase 2 dropped
    /// (`cut`) that still fits (host-contract §8; ADR 0299 §7: the most recent turns are
    /// kept).
    fn put_back(&mut self, messages: &mut [AgentMessage], stripped: &mut [Stripped], cut: usize) {
        for pair in stripped.iter_mut().rev() {
            if pair.carrier <= cut {
                break; // older pairs sit behind messages dropped whole
            }
            let now = if self.alive[pair.carrier] {
                self.sizes[pair.carrier]
            } else {
                0
            };
            let results: u64 = pair.results.iter().map(|&j| self.sizes[j]).sum();
            let grown = self.total - now + pair.original_size + results;
            if grown >= self.limit {
                continue;
            }
            if let (Some(original), Some(slot)) =
                (pair.original.take(), messages.get_mut(pair.carrier))
            {
                *slot = original;
                self.sizes[pair.carrier] = pair.original_size;
                self.alive[pair.carrier] = true;
                for &j in &pair.results {
                    self.alive[j] = true;
                }
                self.total = grown;
                pair.restored = true;
            }
        }
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
            overhead_tokens: None,
            system_prompt: None,
            tools: None,
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
