//! Token accounting (host-contract §2), identical to pi-agent-core 0.85.1:
//! `estimateTokens`, `estimateContextTokens` (`calculateContextTokens` is
//! [`crate::message::Usage::context_tokens`]).
//!
//! ADR 0299 clause 3 re-estimates a delegate's context at every turn boundary with these.
//! Provider usage is what really counts; the chars/4 figure is a conservative guess for
//! what came after the last trusted usage. All lengths are UTF-16 code units. The
//! characters a message counts are read by [`crate::facts`]; this module holds the rules
//! that turn them into figures, each once.

use serde::Serialize;
use tsify::Tsify;

use crate::facts::MessageFacts;
use crate::message::AgentMessage;

/// Token counts above this are treated as this: a host's absurd number (`1e308`) must
/// not overflow a sum, and no model window comes near it.
pub const MAX_TOKENS: f64 = 1e15;

/// A host's token count as an integer: rounded up, clamped to `0..=MAX_TOKENS`
/// (negative, NaN and infinite counts are 0 and `MAX_TOKENS`).
pub fn tokens_from_f64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        x.ceil().min(MAX_TOKENS) as u64
    }
}

/// pi's `estimateTokens(message)`: `ceil(chars / 4)`, counted on a typed message (a
/// resume's seed sizes every message it builds with this). The same count as
/// [`MessageFacts::tokens`] makes on a message's JSON text, without writing that text
/// (which was three quarters of a seed's sizing): `tests/estimate_typed.rs` compares the
/// two on the real sessions and on generated messages of every role and block.
#[inline(never)]
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    use crate::facts::ESTIMATED_IMAGE_CHARS;
    use crate::js_text::utf16_len;
    use crate::message::{Content, ContentBlock};
    let content = |content: &Content| match content {
        Content::Text(text) => utf16_len(text),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => utf16_len(&t.text),
                ContentBlock::Image(_) => ESTIMATED_IMAGE_CHARS,
                _ => 0,
            })
            .sum(),
    };
    let chars = match message {
        AgentMessage::User(m) => content(&m.content),
        AgentMessage::Custom(m) => content(&m.content),
        AgentMessage::ToolResult(m) => content(&m.content),
        AgentMessage::Assistant(m) => m
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => utf16_len(&t.text),
                ContentBlock::Thinking(t) => utf16_len(&t.thinking),
                // JSON.stringify(arguments).length
                ContentBlock::ToolCall(call) => {
                    utf16_len(&call.name)
                        + crate::js_text::to_json(&call.arguments)
                            .map_or(0, |text| utf16_len(&text))
                }
                _ => 0,
            })
            .sum(),
        AgentMessage::CompactionSummary(m) => utf16_len(&m.summary),
        AgentMessage::BranchSummary(m) => utf16_len(&m.summary),
        AgentMessage::BashExecution(m) => utf16_len(&m.command) + utf16_len(&m.output),
        AgentMessage::Other(_) => 0,
    };
    chars.div_ceil(4) as u64
}

/// The result of `estimateContextTokens`, field for field pi's.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ContextTokenEstimate {
    /// `usageTokens + trailingTokens`.
    pub tokens: f64,
    /// The last trusted provider usage total (0 when there is none).
    pub usage_tokens: f64,
    /// Estimates of every message after that usage (all messages when there is none).
    pub trailing_tokens: f64,
    /// Index of the assistant message whose usage anchors the figure, or `null`.
    pub last_usage_index: Option<usize>,
}

impl ContextTokenEstimate {
    /// The figure a turn boundary compares with its threshold (ADR 0299 clause 3): the
    /// usage as a whole token count, plus the trailing estimates.
    pub fn boundary_tokens(&self) -> u64 {
        tokens_from_f64(self.usage_tokens).saturating_add(self.trailing_tokens as u64)
    }
}

/// What [`usage_anchor`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Anchor {
    /// A trusted usage: the estimate anchored on it.
    Found(ContextTokenEstimate),
    /// None at or after the floor; the estimates of the messages read (`floor..end`).
    Missing { trailing: u64 },
}

/// pi's `estimateContextTokens` rule, read newest first: the last trusted provider usage
/// at index `floor` or later, plus the estimates of every message after it. `get(i)`
/// gives message `i`'s facts, or `None` for a message that is not part of the context
/// (it is skipped, as pi's `isContextMessage` filter does). Messages before the anchor
/// are never read, which keeps a turn-boundary check proportional to what came after
/// the last provider response.
pub fn usage_anchor<F, E>(
    end: usize,
    floor: usize,
    mut get: impl FnMut(usize) -> Result<Option<F>, E>,
) -> Result<Anchor, E>
where
    F: std::borrow::Borrow<MessageFacts>,
{
    let mut trailing: u64 = 0;
    for i in (floor..end).rev() {
        let Some(f) = get(i)? else { continue };
        let f = f.borrow();
        if let Some(usage_tokens) = f.trusted_usage() {
            return Ok(Anchor::Found(ContextTokenEstimate {
                tokens: usage_tokens + trailing as f64,
                usage_tokens,
                trailing_tokens: trailing as f64,
                last_usage_index: Some(i),
            }));
        }
        trailing = trailing.saturating_add(f.tokens);
    }
    Ok(Anchor::Missing { trailing })
}

/// First index whose provider usage can describe the current context, given the last
/// `compactionSummary` (its index and facts): after it and the messages the rewrite kept
/// from before it, whose usage is stale (pi #1860); 0 when there is none.
pub fn fresh_usage_start(last_summary: Option<(usize, &MessageFacts)>) -> usize {
    last_summary.map_or(0, |(k, f)| {
        let retained = f.summary.as_ref().map_or(0, |s| s.retained_messages);
        k.saturating_add(1).saturating_add(retained)
    })
}

/// pi's `estimateContextTokens(messages)` over facts read newest first through `get`.
pub fn estimate_context_tokens_newest_first<F, E>(
    len: usize,
    mut get: impl FnMut(usize) -> Result<F, E>,
) -> Result<ContextTokenEstimate, E>
where
    F: std::borrow::Borrow<MessageFacts>,
{
    Ok(match usage_anchor(len, 0, |i| get(i).map(Some))? {
        Anchor::Found(e) => e,
        Anchor::Missing { trailing } => ContextTokenEstimate {
            tokens: trailing as f64,
            usage_tokens: 0.0,
            trailing_tokens: trailing as f64,
            last_usage_index: None,
        },
    })
}

/// pi's `estimateContextTokens(messages)`.
#[cfg(not(target_arch = "wasm32"))] // for the native tests
pub fn estimate_context_tokens(messages: &[AgentMessage]) -> crate::Result<ContextTokenEstimate> {
    let facts = messages
        .iter()
        .enumerate()
        .map(|(i, m)| m.facts(&format!("messages[{i}]")))
        .collect::<crate::Result<Vec<_>>>()?;
    estimate_context_tokens_newest_first(facts.len(), |i| Ok(&facts[i]))
}

/// Sum of per-message estimates, ignoring provider usage. After a compaction or a
/// truncation the recorded usage no longer describes the context, so decisions about a
/// rewritten context use this figure.
#[cfg(not(target_arch = "wasm32"))] // for the native tests
pub fn sum_estimates(messages: &[AgentMessage]) -> u64 {
    messages.iter().map(estimate_tokens).sum()
}

/// Tokens of every request that are not messages: the system prompt and the tool
/// schemas, as the request carries them (`ceil((systemPrompt.length +
/// JSON.stringify(tools).length) / 4)`). The hook derives a delegate's overhead this way,
/// and so does a resume's seed (ADR 0299 clause 7), so a seeded context plus its
/// overhead starts below hardLimit.
#[inline(never)]
pub fn request_overhead_tokens(
    system_prompt: Option<&str>,
    tools: Option<&serde_json::Value>,
) -> u64 {
    let system = system_prompt.map_or(0, crate::js_text::utf16_len);
    let tools = tools
        .filter(|t| !t.is_null())
        .map_or(0, crate::js_text::json_stringify_len);
    (system + tools).div_ceil(4) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_boundary_figure_rounds_usage_up_and_adds_the_trailing_estimates() {
        let e = |usage_tokens: f64, trailing_tokens: f64| ContextTokenEstimate {
            tokens: usage_tokens + trailing_tokens,
            usage_tokens,
            trailing_tokens,
            last_usage_index: None,
        };
        assert_eq!(e(100.2, 7.0).boundary_tokens(), 108);
        assert_eq!(e(0.0, 12.0).boundary_tokens(), 12);
        assert_eq!(e(f64::NAN, 3.0).boundary_tokens(), 3);
        assert_eq!(
            e(f64::INFINITY, 3.0).boundary_tokens(),
            MAX_TOKENS as u64 + 3
        );
    }

    #[test]
    fn fresh_usage_starts_after_the_summary_and_what_it_retained() {
        let summary = |details: serde_json::Value| {
            let m = json!({"role": "compactionSummary", "summary": "s", "tokensBefore": 9,
                "details": details, "timestamp": 1});
            MessageFacts::from_json(&m.to_string(), "m").unwrap()
        };
        assert_eq!(fresh_usage_start(None), 0);
        let pi_s = summary(json!({"readFiles": [], "modifiedFiles": []}));
        assert_eq!(fresh_usage_start(Some((1, &pi_s))), 2);
        let ours = summary(json!({"readFiles": [], "modifiedFiles": [], "retainedMessages": 3}));
        assert_eq!(fresh_usage_start(Some((1, &ours))), 5);
        assert_eq!(fresh_usage_start(Some((usize::MAX, &ours))), usize::MAX);
    }

    fn msg(v: serde_json::Value) -> AgentMessage {
        AgentMessage::from_value(v, "m").unwrap()
    }

    #[test]
    fn estimates_follow_pi() {
        assert_eq!(
            estimate_tokens(&msg(json!({"role": "user", "content": "abcde"}))),
            2
        );
        assert_eq!(
            estimate_tokens(&msg(
                json!({"role": "user", "content": [{"type": "image", "data": "", "mimeType": "x"}]})
            )),
            1200
        );
        // "😀" is 2 UTF-16 units, "é" 1: 3 units → 1 token
        assert_eq!(
            estimate_tokens(&msg(json!({"role": "user", "content": "😀é"}))),
            1
        );
        let a = msg(
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "a.rs"}}]}),
        );
        // "read" (4) + {"path":"a.rs"} (15) = 19 → 5
        assert_eq!(estimate_tokens(&a), 5);
        assert_eq!(
            estimate_tokens(&msg(
                json!({"role": "bashExecution", "command": "ls", "output": "abc"})
            )),
            2
        );
        assert_eq!(
            estimate_tokens(&msg(json!({"role": "mystery", "content": "long text"}))),
            0
        );
    }

    #[test]
    fn request_overhead_is_the_pi_hooks() {
        assert_eq!(request_overhead_tokens(None, None), 0);
        assert_eq!(request_overhead_tokens(Some("abcd"), None), 1);
        assert_eq!(
            request_overhead_tokens(Some("abcde"), Some(&json!(null))),
            2
        );
        // JSON.stringify([{"name":"read"}]).length = 17; "é" and "😀" are 1 and 2 units
        assert_eq!(
            request_overhead_tokens(Some("é😀"), Some(&json!([{"name": "read"}]))),
            5
        );
    }

    #[test]
    fn context_estimate_anchors_on_last_trusted_usage() {
        let ms = vec![
            msg(json!({"role": "user", "content": "aaaa"})),
            msg(
                json!({"role": "assistant", "content": [], "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}, "stopReason": "stop"}),
            ),
            msg(json!({"role": "user", "content": "bbbbbbbb"})),
            msg(
                json!({"role": "assistant", "content": [], "usage": {"totalTokens": 999}, "stopReason": "error"}),
            ),
        ];
        let e = estimate_context_tokens(&ms).unwrap();
        assert_eq!(
            e,
            ContextTokenEstimate {
                tokens: 17.0,
                usage_tokens: 15.0,
                trailing_tokens: 2.0,
                last_usage_index: Some(1)
            }
        );
        let none = estimate_context_tokens(&ms[..1]).unwrap();
        assert_eq!(none.last_usage_index, None);
        assert_eq!(none.tokens, 1.0);
    }

    #[test]
    fn absurd_host_numbers_saturate() {
        assert_eq!(tokens_from_f64(1e308), MAX_TOKENS as u64);
        assert_eq!(tokens_from_f64(f64::INFINITY), MAX_TOKENS as u64);
        assert_eq!(tokens_from_f64(f64::NAN), 0);
        assert_eq!(tokens_from_f64(-3.0), 0);
        assert_eq!(tokens_from_f64(2.1), 3);
    }

    #[test]
    fn request_overhead_counts_the_prompt_and_the_tool_schemas() {
        let tools = json!([{"name": "read", "parameters": {"type": "object"}}]);
        let expected = ("You are a delegate.".len() + tools.to_string().len()).div_ceil(4) as u64;
        assert_eq!(
            request_overhead_tokens(Some("You are a delegate."), Some(&tools)),
            expected
        );
        assert_eq!(request_overhead_tokens(None, None), 0);
    }
}
