//! Persisted rows → provider messages (ADR 0279 clause 3: "the session runtime already
//! contains a UiMessage[] → AgentMessage[] converter"; host-contract §8 "Converting rows
//! to messages"). One converter serves both readers of the transcript: a resumed
//! delegate's seed (its chain's rows) and the parent's replayed context (seed 001, the
//! parent's own rows with reports in place of delegate results).

use crate::keyed::KeySet;
use crate::text_build::Owned;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use super::rows::{dedupe_rows, RowRole, UiMessage};
use super::time::iso_to_ms;
use crate::decode::decode_struct;
use crate::js_text::json_stringify;
use crate::js_whitespace;
use crate::message::{
    AgentMessage, AssistantMessage, Content, ContentBlock, ImageBlock, ThinkingBlock,
    ToolCallBlock, ToolResultMessage, Usage,
};

/// The result of a tool row still `running` when the transcript was written.
pub const INTERRUPTED_TOOL_RESULT: &str =
    "[tool call was interrupted before a result was recorded]";
/// The result of a settled tool row that recorded nothing.
pub const MISSING_TOOL_RESULT: &str = "[no tool result recorded]";

/// `api` of a rebuilt assistant message when the binding does not name one.
pub const UNKNOWN_API: &str = "unknown";

/// The delegate's own provider/model binding, stamped on every rebuilt assistant message
/// (a pinned delegation model is not the session model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ProviderBinding {
    /// `provider` of the assistant messages (the providerId).
    pub provider: String,
    /// `model` of the assistant messages (the modelId).
    pub model: String,
    /// `api` of the assistant messages, when the host knows it (`"unknown"` otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub api: Option<String>,
    /// A `thinkingSignature` to put on every replayed thinking block (e.g.
    /// `"reasoning_content"` for providers that need it); none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub thinking_signature: Option<String>,
}

decode_struct!(ProviderBinding "ProviderBinding" {
    provider: "provider" => req,
    model: "model" => req,
    api: "api" => default,
    thinking_signature: "thinkingSignature" => default,
});

/// pi's zero usage (with a zero `cost`).
pub fn zero_usage() -> Usage {
    let mut cost = crate::js_text::new_map();
    for key in ["input", "output", "cacheRead", "cacheWrite", "total"] {
        cost.insert(key.owned(), Value::from(0));
    }
    let mut extra = crate::js_text::new_map();
    extra.insert("cost".owned(), Value::Object(cost));
    Usage {
        input: Some(0.0),
        output: Some(0.0),
        cache_read: Some(0.0),
        cache_write: Some(0.0),
        total_tokens: Some(0.0),
        extra,
    }
}

/// A row's `usage` (`{inputTokens, outputTokens, cacheReadTokens?, cacheWriteTokens?,
/// totalTokens}`) as pi's `Usage`; missing numbers are 0.
fn usage_from_row(usage: Option<&Value>) -> Usage {
    let mut u = zero_usage();
    if let Some(Value::Object(m)) = usage {
        let n = |k: &str| m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        u.input = Some(n("inputTokens"));
        u.output = Some(n("outputTokens"));
        u.cache_read = Some(n("cacheReadTokens"));
        u.cache_write = Some(n("cacheWriteTokens"));
        u.total_tokens = Some(n("totalTokens"));
    }
    u
}

fn assistant(binding: &ProviderBinding, timestamp: Option<f64>) -> AssistantMessage {
    AssistantMessage {
        content: Vec::new(),
        // pi requires an `api`; an unknown one compares unequal to every model's, as an
        // absent one did
        api: Some(binding.api.clone().unwrap_or_else(|| UNKNOWN_API.owned())),
        provider: Some(binding.provider.clone()),
        model: Some(binding.model.clone()),
        usage: Some(zero_usage()),
        stop_reason: Some("stop".owned()),
        error_message: None,
        timestamp,
        extra: crate::js_text::new_map(),
    }
}

/// Whether an assistant row records a failed provider response (dropped on replay).
pub fn is_failed_assistant_row(row: &UiMessage) -> bool {
    row.status.as_deref() == Some("error")
        || row.is_error == Some(true)
        || row.error.as_ref().is_some_and(|e| !e.is_null())
}

/// The content blocks of a row's `toolResult`: text and image blocks of
/// `{content: [...]}`, a non-blank string, or the JSON of anything else; empty when
/// nothing was recorded.
pub fn tool_result_blocks(raw: Option<&Value>) -> Vec<ContentBlock> {
    let mut blocks = Vec::new();
    match raw {
        Some(Value::Object(m)) if m.get("content").is_some_and(Value::is_array) => {
            for b in m
                .get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
            {
                let Value::Object(b) = b else { continue };
                match (b.get("type").and_then(Value::as_str), b) {
                    (Some("text"), b) => {
                        // an empty text block is no result (providers reject empty text)
                        if let Some(t) = b
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            blocks.push(ContentBlock::text(t));
                        }
                    }
                    (Some("image"), b) => {
                        if let (Some(d), Some(mt)) = (
                            b.get("data").and_then(Value::as_str),
                            b.get("mimeType").and_then(Value::as_str),
                        ) {
                            blocks.push(ContentBlock::Image(ImageBlock {
                                data: d.into(),
                                mime_type: mt.into(),
                                extra: crate::js_text::new_map(),
                            }));
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(Value::String(s)) => {
            if !js_whitespace::is_blank(s) {
                blocks.push(ContentBlock::text(s.clone()));
            }
        }
        None | Some(Value::Null) => {}
        Some(other) => blocks.push(ContentBlock::text(json_stringify(other))),
    }
    blocks
}

fn tool_result_message(row: &UiMessage, timestamp: Option<f64>) -> ToolResultMessage {
    let raw = row.tool_result.as_ref();
    let mut content = tool_result_blocks(raw);
    let status = row.tool_status.as_deref();
    if content.is_empty() {
        content.push(ContentBlock::text(if status == Some("running") {
            INTERRUPTED_TOOL_RESULT
        } else {
            MISSING_TOOL_RESULT
        }));
    }
    let details = match raw {
        Some(Value::Object(m)) => m.get("details").cloned(),
        _ => None,
    };
    ToolResultMessage {
        tool_call_id: row.tool_call_id.clone().unwrap_or_default(),
        tool_name: row.tool_name.clone().unwrap_or_default(),
        content: Content::Blocks(content),
        details,
        is_error: Some(
            matches!(status, Some("running" | "error" | "denied")) || row.is_error == Some(true),
        ),
        timestamp,
        extra: crate::js_text::new_map(),
    }
}

/// Rows → provider messages, every assistant stamped with `binding`.
///
/// - user row: a new turn (blank ones skipped); system rows are not replayed;
/// - assistant row: dropped when failed (`status:"error"`, `isError`, `error`), else
///   thinking then text, `stopReason:"stop"`; it carries the tool calls that follow;
/// - tool row (needs `toolCallId` and `toolName`): adds a `toolCall` to its carrier
///   (an empty one with `stopReason:"toolUse"` is synthesised for an orphan, or after a
///   dropped failed assistant) and emits its `toolResult`;
/// - assistants left with no content are dropped at the end.
///
/// Duplicate rows collapse ([`dedupe_rows`]); a second tool row with a `toolCallId`
/// already seen (under another row id) is skipped, so the messages never hold two calls
/// with one id (providers reject that). `timestamp` is `createdAt` parsed ([`iso_to_ms`]), omitted when unparseable.
pub fn rows_to_messages(rows: &[&UiMessage], binding: &ProviderBinding) -> Vec<AgentMessage> {
    let mut messages: Vec<AgentMessage> = Vec::new();
    let mut carrier: Option<usize> = None;
    let mut seen_calls = KeySet::default();
    // pi requires a `timestamp` on every message: a row without one takes the last known
    // time (0 before any)
    let mut last_time = 0.0;
    for row in dedupe_rows(&mut rows.iter().copied()) {
        let time = row
            .created_at
            .as_deref()
            .and_then(iso_to_ms)
            .unwrap_or(last_time);
        last_time = time;
        let timestamp = Some(time);
        match row.role {
            RowRole::User => {
                carrier = None;
                if js_whitespace::is_blank(&row.content) {
                    continue;
                }
                messages.push(AgentMessage::user_text(row.content.clone(), timestamp));
            }
            RowRole::Assistant => {
                carrier = None;
                if is_failed_assistant_row(row) {
                    continue;
                }
                let mut reply = assistant(binding, timestamp);
                reply.usage = Some(usage_from_row(row.usage.as_ref()));
                if let Some(thinking) = row
                    .thinking
                    .as_deref()
                    .filter(|t| !js_whitespace::is_blank(t))
                {
                    reply.content.push(ContentBlock::Thinking(ThinkingBlock {
                        thinking: thinking.owned(),
                        thinking_signature: binding.thinking_signature.clone(),
                        redacted: None,
                        extra: crate::js_text::new_map(),
                    }));
                }
                if !js_whitespace::is_blank(&row.content) {
                    reply.content.push(ContentBlock::text(row.content.clone()));
                }
                carrier = Some(messages.len());
                messages.push(AgentMessage::Assistant(reply));
            }
            RowRole::Tool => {
                let (Some(call_id), Some(name)) =
                    (row.tool_call_id.as_deref(), row.tool_name.as_deref())
                else {
                    continue;
                };
                if call_id.is_empty() || name.is_empty() || !seen_calls.insert(call_id) {
                    continue;
                }
                let carrier_at = match carrier {
                    Some(i) => i,
                    None => {
                        let mut synthesised = assistant(binding, timestamp);
                        synthesised.stop_reason = Some("toolUse".owned());
                        carrier = Some(messages.len());
                        messages.push(AgentMessage::Assistant(synthesised));
                        messages.len() - 1
                    }
                };
                if let Some(AgentMessage::Assistant(carrier)) = messages.get_mut(carrier_at) {
                    carrier.content.push(ContentBlock::ToolCall(ToolCallBlock {
                        id: call_id.owned(),
                        name: name.owned(),
                        arguments: Value::Object(
                            row.tool_args_object()
                                .unwrap_or_else(crate::js_text::new_map),
                        ),
                        thought_signature: None,
                        extra: crate::js_text::new_map(),
                    }));
                    carrier.stop_reason = Some("toolUse".owned());
                }
                messages.push(AgentMessage::ToolResult(tool_result_message(
                    row, timestamp,
                )));
            }
            RowRole::System => {}
        }
    }
    messages.retain(|m| !matches!(m, AgentMessage::Assistant(reply) if reply.content.is_empty()));
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::rows_from_value;
    use serde_json::json;

    fn binding() -> ProviderBinding {
        ProviderBinding {
            provider: "anthropic".into(),
            model: "claude-x".into(),
            api: Some("anthropic-messages".into()),
            thinking_signature: None,
        }
    }

    #[test]
    fn conversion_follows_the_host_rules() {
        let rows = rows_from_value(
            json!([
                {"id": "u1", "role": "user", "content": "do it", "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "a1", "role": "assistant", "content": "", "thinking": "hmm", "parentToolCallId": "t1", "agentName": "explorer", "usage": {"inputTokens": 10, "outputTokens": 2, "totalTokens": 12}},
                {"id": "c1", "role": "tool", "toolName": "Read", "toolCallId": "c1", "toolArgs": {"path": "a.rs"}, "toolResult": {"content": [{"type": "text", "text": "x\ny"}], "details": {"n": 1}}, "toolStatus": "success"},
                {"id": "c2", "role": "tool", "toolName": "grep", "toolCallId": "c2", "toolArgs": "{\"pattern\": \"fn\"}", "toolStatus": "running"},
                {"id": "a2", "role": "assistant", "content": "boom", "status": "error"},
                {"id": "c3", "role": "tool", "toolName": "bash", "toolCallId": "c3", "toolResult": 42, "toolStatus": "denied"},
                {"id": "u2", "role": "user", "content": "   "},
                {"id": "a3", "role": "assistant", "content": ""},
                {"id": "a4", "role": "assistant", "content": "done"},
                {"id": "c4", "role": "tool", "toolName": "read", "toolCallId": "c1", "toolResult": "dup"},
            ]),
            "rows",
        )
        .unwrap();
        let ms = rows_to_messages(&rows.iter().collect::<Vec<_>>(), &binding());
        let v = serde_json::to_value(&ms).unwrap();
        let roles: Vec<&str> = ms.iter().map(|m| m.role()).collect();
        assert_eq!(
            roles,
            [
                "user",
                "assistant",
                "toolResult",
                "toolResult",
                "assistant",
                "toolResult",
                "assistant"
            ]
        );
        assert_eq!(v[1]["stopReason"], "toolUse");
        assert_eq!(v[1]["content"][0]["type"], "thinking");
        assert_eq!(v[1]["content"][1]["name"], "Read");
        assert_eq!(v[1]["content"][2]["arguments"], json!({"pattern": "fn"}));
        assert_eq!(v[1]["usage"]["totalTokens"], 12.0);
        assert_eq!(v[1]["provider"], "anthropic");
        assert_eq!(v[2]["details"], json!({"n": 1}));
        assert_eq!(v[2]["isError"], false);
        assert_eq!(v[3]["content"][0]["text"], INTERRUPTED_TOOL_RESULT);
        assert_eq!(v[3]["isError"], true);
        // carrier synthesised after the failed assistant
        assert_eq!(v[4]["stopReason"], "toolUse");
        assert_eq!(v[4]["content"].as_array().unwrap().len(), 1);
        assert_eq!(v[5]["content"][0]["text"], "42");
        assert_eq!(v[6]["content"][0]["text"], "done");
        assert_eq!(v[6]["stopReason"], "stop");
    }
}
