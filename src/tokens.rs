//! Token accounting (host-contract §2), identical to pi-agent-core 0.85.1:
//! `estimateTokens`, `calculateContextTokens`, `estimateContextTokens`.
//!
//! ADR 0299 clause 3 re-estimates a delegate's context at every turn boundary with these.
//! Provider usage is what really counts; the chars/4 figure is a conservative guess for
//! what came after the last trusted usage. All lengths are UTF-16 code units.

use serde::Serialize;
use tsify::Tsify;

use crate::js_text::{json_stringify_len, utf16_len};
use crate::message::{AgentMessage, Content, ContentBlock, Usage};

/// Characters an image counts for (pi's `ESTIMATED_IMAGE_CHARS`).
pub const ESTIMATED_IMAGE_CHARS: usize = 4800;

fn content_chars(content: &Content) -> usize {
    match content {
        Content::Text(s) => utf16_len(s),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => utf16_len(&t.text),
                ContentBlock::Image(_) => ESTIMATED_IMAGE_CHARS,
                _ => 0,
            })
            .sum(),
    }
}

/// The character count behind [`estimate_tokens`].
pub fn message_chars(message: &AgentMessage) -> usize {
    match message {
        AgentMessage::User(m) => content_chars(&m.content),
        AgentMessage::Assistant(m) => m
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => utf16_len(&t.text),
                ContentBlock::Thinking(t) => utf16_len(&t.thinking),
                ContentBlock::ToolCall(c) => utf16_len(&c.name) + json_stringify_len(&c.arguments),
                _ => 0,
            })
            .sum(),
        AgentMessage::ToolResult(m) => content_chars(&m.content),
        AgentMessage::Custom(m) => content_chars(&m.content),
        AgentMessage::BashExecution(m) => utf16_len(&m.command) + utf16_len(&m.output),
        AgentMessage::CompactionSummary(m) => utf16_len(&m.summary),
        AgentMessage::BranchSummary(m) => utf16_len(&m.summary),
        AgentMessage::Other(_) => 0,
    }
}

/// pi's `estimateTokens(message)`: `ceil(chars / 4)`.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    message_chars(message).div_ceil(4) as u64
}

/// Tokens of a request that are not messages, as the pi hook derives them from the
/// Agent's context: `ceil((systemPrompt.length + JSON.stringify(tools).length) / 4)`
/// (UTF-16 lengths; a missing or `null` `tools` counts 0).
pub fn request_overhead_tokens(
    system_prompt: Option<&str>,
    tools: Option<&serde_json::Value>,
) -> u64 {
    let prompt_chars = system_prompt.map_or(0, utf16_len);
    let tools_chars = match tools {
        None | Some(serde_json::Value::Null) => 0,
        Some(tools) => json_stringify_len(tools),
    };
    (prompt_chars + tools_chars).div_ceil(4) as u64
}

/// pi's `calculateContextTokens(usage)`: `totalTokens || input + output + cacheRead + cacheWrite`.
pub fn calculate_context_tokens(usage: &Usage) -> f64 {
    match usage.total_tokens {
        Some(t) if t != 0.0 && !t.is_nan() => t,
        _ => {
            usage.input.unwrap_or(f64::NAN)
                + usage.output.unwrap_or(f64::NAN)
                + usage.cache_read.unwrap_or(f64::NAN)
                + usage.cache_write.unwrap_or(f64::NAN)
        }
    }
}

/// The result of [`estimate_context_tokens`], field for field pi's.
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

/// The usage of `message` if pi trusts it: an assistant that did not fail, with a total > 0.
pub fn trusted_usage(message: &AgentMessage) -> Option<&Usage> {
    let a = message.as_assistant()?;
    if a.is_failed() {
        return None;
    }
    let u = a.usage.as_ref()?;
    (calculate_context_tokens(u) > 0.0).then_some(u)
}

/// pi's `estimateContextTokens(messages)`.
pub fn estimate_context_tokens(messages: &[AgentMessage]) -> ContextTokenEstimate {
    let r: Result<_, std::convert::Infallible> =
        estimate_context_tokens_newest_first(messages.len(), |i| Ok(&messages[i]));
    match r {
        Ok(e) => e,
        Err(never) => match never {},
    }
}

/// [`estimate_context_tokens`] reading the messages newest first through `get`, and
/// stopping at the last trusted usage: the messages before it are never read. This is
/// pi's algorithm, and what keeps a turn-boundary check proportional to what came after
/// the last provider response rather than to the whole history (the binding decodes
/// only the messages it asks for).
pub fn estimate_context_tokens_newest_first<M, E>(
    len: usize,
    mut get: impl FnMut(usize) -> Result<M, E>,
) -> Result<ContextTokenEstimate, E>
where
    M: std::borrow::Borrow<AgentMessage>,
{
    let mut trailing: u64 = 0;
    for i in (0..len).rev() {
        let m = get(i)?;
        let m = m.borrow();
        if let Some(u) = trusted_usage(m) {
            let usage_tokens = calculate_context_tokens(u);
            return Ok(ContextTokenEstimate {
                tokens: usage_tokens + trailing as f64,
                usage_tokens,
                trailing_tokens: trailing as f64,
                last_usage_index: Some(i),
            });
        }
        trailing += estimate_tokens(m);
    }
    Ok(ContextTokenEstimate {
        tokens: trailing as f64,
        usage_tokens: 0.0,
        trailing_tokens: trailing as f64,
        last_usage_index: None,
    })
}

/// Sum of per-message estimates, ignoring provider usage. After a compaction or a
/// truncation the recorded usage no longer describes the context, so decisions about a
/// rewritten context use this figure.
pub fn sum_estimates(messages: &[AgentMessage]) -> u64 {
    messages.iter().map(estimate_tokens).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let e = estimate_context_tokens(&ms);
        assert_eq!(
            e,
            ContextTokenEstimate {
                tokens: 17.0,
                usage_tokens: 15.0,
                trailing_tokens: 2.0,
                last_usage_index: Some(1)
            }
        );
        let none = estimate_context_tokens(&ms[..1]);
        assert_eq!(none.last_usage_index, None);
        assert_eq!(none.tokens, 1.0);
    }
}
