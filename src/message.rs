//! `AgentMessage` and its content blocks (host-contract §1), as pi-agent-core 0.85.1
//! and the harness shape them.
//!
//! Every struct keeps the fields we do not model in `extra` and writes them back
//! unchanged, so a message that passes through the library comes back with every field
//! it had. A message with a role we do not know is kept whole as [`AgentMessage::Other`]
//! (it counts 0 tokens, like pi's `estimateTokens`). [`AgentMessage::from_value`] reads
//! one from a JSON value, naming the path of a bad value: the native tests, the fuzz
//! checks and serde's `Deserialize` use it. The package itself reads host messages once,
//! from their JSON text, as [`crate::facts::MessageFacts`] (the same rules, the same
//! words): no export reaches this reader, and the module has no copy of it.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::decode::decode_struct;
#[cfg(not(target_arch = "wasm32"))]
use crate::decode::{Bad, Decode};
use crate::error::{Error, Result};
use crate::role::Role;
#[cfg(not(target_arch = "wasm32"))]
use crate::stop_reason::StopReason;
use crate::text_build::Append;

mod read;
mod write;

/// The TypeScript declaration of these types (the binding puts it in the `.d.ts`): pi's own shapes (pi-ai 0.85.1's messages and
/// blocks, pi-agent-core's harness messages; host-contract §1), field for field, so that what
/// the library returns is assignable to pi-agent-core's `AgentMessage[]` and what pi holds is
/// accepted as it is. Written here rather than derived: decoding stays lenient (a field pi
/// requires may be absent on input and is then written back absent), which tsify can only
/// declare as optional, and an optional `timestamp` is not assignable to pi's. The messages
/// the library creates carry every field pi requires (tests/js/pi-types.test.mjs checks it at
/// run time, `tsc -p tests/ts/tsconfig.pi.json` against pi-agent-core's declarations).
pub const TS_DECLARATION: &str = r#"
/** pi-ai's `TextContent`. */
export interface TextContent { type: "text"; text: string; textSignature?: string }
/** pi-ai's `ThinkingContent`. */
export interface ThinkingContent { type: "thinking"; thinking: string; thinkingSignature?: string; redacted?: boolean }
/** pi-ai's `ImageContent`. */
export interface ImageContent { type: "image"; data: string; mimeType: string }
/** pi-ai's `ToolCall`. */
export interface ToolCall { type: "toolCall"; id: string; name: string; arguments: Record<string, any>; thoughtSignature?: string }
/** One content block (a block of a type the library does not know is kept whole). */
export type ContentBlock = TextContent | ThinkingContent | ImageContent | ToolCall;
/** A user or custom message's content: a string or text and image blocks. */
export type Content = string | (TextContent | ImageContent)[];
/** pi-ai's `Usage` of one assistant response. */
export interface Usage { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number; cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number } }
/** pi-ai's `StopReason`. */
export type StopReason = "pending" | "stop" | "length" | "toolUse" | "error" | "aborted" | "deferred";
/** pi-ai's `UserMessage`. */
export interface UserMessage { role: "user"; content: Content; timestamp: number }
/** pi-ai's `AssistantMessage` (`errorMessage` on a failed request, `stopReason: "error"`). */
export interface AssistantMessage { role: "assistant"; content: (TextContent | ThinkingContent | ToolCall)[]; api: string; provider: string; model: string; usage: Usage; stopReason: StopReason; errorMessage?: string; timestamp: number }
/** pi-ai's `ToolResultMessage`. */
export interface ToolResultMessage { role: "toolResult"; toolCallId: string; toolName: string; content: (TextContent | ImageContent)[]; details?: any; isError: boolean; timestamp: number }
/** pi-agent-core's `CompactionSummaryMessage` (the library's summaries also carry `details`). */
export interface CompactionSummaryMessage { role: "compactionSummary"; summary: string; tokensBefore: number; timestamp: number }
/** pi-agent-core's `BranchSummaryMessage`. */
export interface BranchSummaryMessage { role: "branchSummary"; summary: string; fromId: string | null; timestamp: number }
/** pi-agent-core's `CustomMessage`. */
export interface CustomMessage { role: "custom"; customType: string; content: Content; display: boolean; details?: any; timestamp: number }
/** pi-agent-core's `BashExecutionMessage`. */
export interface BashExecutionMessage { role: "bashExecution"; command: string; output: string; exitCode: number | undefined; cancelled: boolean; truncated: boolean; fullOutputPath?: string; excludeFromContext?: boolean; timestamp: number }
/** A message of a delegate's (or any pi agent's) context: pi-agent-core's `AgentMessage` with its harness messages. Messages of other roles pass through unchanged at run time. */
export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | CompactionSummaryMessage | BranchSummaryMessage | CustomMessage | BashExecutionMessage;
"#;

/// Fields of a host object that the library does not model, kept verbatim.
pub type Extra = Map<String, Value>;

/// `string | (TextContent | ImageContent | ...)[]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Blocks(Vec::new())
    }
}

impl Content {
    /// pi-ai's `contentText(content, sep)`: the text blocks joined by `sep`.
    #[inline(never)]
    pub fn text(&self, sep: &str) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Blocks(blocks) => {
                let mut out = String::new();
                let mut first = true;
                for b in blocks {
                    if let ContentBlock::Text(t) = b {
                        if !first {
                            out.append(sep);
                        }
                        out.append(&t.text);
                        first = false;
                    }
                }
                out
            }
        }
    }
}

/// `{type: "text", text, textSignature?}`
#[derive(Clone, Debug, PartialEq)]
pub struct TextBlock {
    pub text: String,
    pub text_signature: Option<String>,
    pub extra: Extra,
}

/// `{type: "thinking", thinking, thinkingSignature?, redacted?}`
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkingBlock {
    pub thinking: String,
    pub thinking_signature: Option<String>,
    pub redacted: Option<bool>,
    pub extra: Extra,
}

/// `{type: "image", data, mimeType}`
#[derive(Clone, Debug, PartialEq)]
pub struct ImageBlock {
    pub data: String,
    pub mime_type: String,
    pub extra: Extra,
}

/// `{type: "toolCall", id, name, arguments, thoughtSignature?}`
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallBlock {
    pub id: String,
    pub name: String,
    pub arguments: Value,
    pub thought_signature: Option<String>,
    pub extra: Extra,
}

/// One content block, tagged by `type`. A block of an unknown type is kept whole.
#[derive(Clone, Debug, PartialEq)]
pub enum ContentBlock {
    Text(TextBlock),
    Thinking(ThinkingBlock),
    Image(ImageBlock),
    ToolCall(ToolCallBlock),
    /// A block type this library does not know, kept whole (with its `type`).
    Other(Extra),
}

impl ContentBlock {
    /// A plain text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextBlock {
            text: text.into(),
            text_signature: None,
            extra: crate::js_text::new_map(),
        })
    }
}

/// Provider usage of one assistant response.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<f64>,
    #[serde(flatten)]
    pub extra: Extra,
}

decode_struct!(Usage "Usage" {
    input: "input" => default,
    output: "output" => default,
    cache_read: "cacheRead" => default,
    cache_write: "cacheWrite" => default,
    total_tokens: "totalTokens" => default,
} extra extra);

impl Usage {
    /// pi's `calculateContextTokens(usage)` ([`context_tokens`]).
    pub fn context_tokens(&self) -> f64 {
        context_tokens([
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total_tokens,
        ])
    }
}

/// pi's `calculateContextTokens(usage)` of a usage's `[input, output, cacheRead,
/// cacheWrite, totalTokens]`: `totalTokens || input + output + cacheRead + cacheWrite`
/// (host-contract §2; a missing field makes the sum NaN, as in pi).
#[inline(never)]
pub fn context_tokens([input, output, cache_read, cache_write, total]: [Option<f64>; 5]) -> f64 {
    match total {
        Some(t) if t != 0.0 && !t.is_nan() => t,
        _ => {
            input.unwrap_or(f64::NAN)
                + output.unwrap_or(f64::NAN)
                + cache_read.unwrap_or(f64::NAN)
                + cache_write.unwrap_or(f64::NAN)
        }
    }
}

/// `{role: "user", content, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct UserMessage {
    pub content: Content,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

/// `{role: "assistant", content, api, provider, model, usage, stopReason, errorMessage?, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct AssistantMessage {
    pub content: Vec<ContentBlock>,
    pub api: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub usage: Option<Usage>,
    /// The text as given (a text pi does not write survives); read it with [`Self::stop`].
    pub stop_reason: Option<String>,
    pub error_message: Option<String>,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

impl AssistantMessage {
    /// The tool calls this assistant message makes, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallBlock> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolCall(c) => Some(c),
            _ => None,
        })
    }

    /// Its `stopReason`, read.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn stop(&self) -> Option<StopReason> {
        self.stop_reason.as_deref().map(StopReason::parse)
    }

    /// A failed response ([`StopReason::is_failed`]) whose usage is not trusted.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn is_failed(&self) -> bool {
        self.stop().is_some_and(StopReason::is_failed)
    }
}

/// `{role: "toolResult", toolCallId, toolName, content, details?, isError, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    pub tool_name: String,
    pub content: Content,
    /// Any JSON, kept as given (a `null` survives).
    pub details: Option<Value>,
    pub is_error: Option<bool>,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

/// `{role: "compactionSummary", summary, tokensBefore, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionSummaryMessage {
    pub summary: String,
    pub tokens_before: Option<f64>,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

/// `{role: "branchSummary", summary, fromId, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct BranchSummaryMessage {
    pub summary: String,
    /// `string | null` in pi; kept as given (a `null` survives).
    pub from_id: Option<Value>,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

/// `{role: "custom", customType, content, display, details?, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct CustomMessage {
    pub content: Content,
    pub custom_type: Option<String>,
    pub display: Option<bool>,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

/// `{role: "bashExecution", command, output, exitCode?, cancelled?, truncated?, excludeFromContext?, timestamp}`
#[derive(Clone, Debug, PartialEq)]
pub struct BashExecutionMessage {
    pub command: String,
    pub output: String,
    pub exclude_from_context: Option<bool>,
    pub timestamp: Option<f64>,
    pub extra: Extra,
}

/// A message of a delegate's (or any pi agent's) context, tagged by `role`.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentMessage {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
    CompactionSummary(CompactionSummaryMessage),
    BranchSummary(BranchSummaryMessage),
    Custom(CustomMessage),
    BashExecution(BashExecutionMessage),
    /// A role this library does not know, kept whole (with its `role`).
    Other(Extra),
}

/// A message, read by [`AgentMessage::from_value`] (its errors in its words, as its
/// `Deserialize` reports them). Native only: the package reads host messages as
/// [`crate::facts::MessageFacts`] (one reader), and the module has no copy of this one.
#[cfg(not(target_arch = "wasm32"))]
impl Decode for AgentMessage {
    fn decode(v: &Value) -> Result<Self, Bad> {
        AgentMessage::from_value(v.clone(), "message").map_err(|e| (String::new(), e.to_string()))
    }
}

impl AgentMessage {
    /// A user message with one text block. pi requires a `timestamp`: 0 when unknown.
    pub fn user_text(text: impl Into<String>, timestamp: Option<f64>) -> Self {
        AgentMessage::User(UserMessage {
            content: Content::Blocks(vec![ContentBlock::text(text)]),
            timestamp: Some(timestamp.unwrap_or(0.0)),
            extra: crate::js_text::new_map(),
        })
    }

    /// Its role.
    pub fn kind(&self) -> Role {
        match self {
            AgentMessage::User(_) => Role::User,
            AgentMessage::Assistant(_) => Role::Assistant,
            AgentMessage::ToolResult(_) => Role::ToolResult,
            AgentMessage::CompactionSummary(_) => Role::CompactionSummary,
            AgentMessage::BranchSummary(_) => Role::BranchSummary,
            AgentMessage::Custom(_) => Role::Custom,
            AgentMessage::BashExecution(_) => Role::BashExecution,
            AgentMessage::Other(_) => Role::Other,
        }
    }

    /// The `role` string (a role this library does not know, as given).
    #[cfg(not(target_arch = "wasm32"))] // for the fuzz checks
    pub fn role(&self) -> &str {
        match (self.kind().as_str(), self) {
            (Some(name), _) => name,
            (None, AgentMessage::Other(m)) => m.get("role").and_then(Value::as_str).unwrap_or(""),
            (None, _) => "",
        }
    }

    /// The assistant message, if this is one.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            AgentMessage::Assistant(a) => Some(a),
            _ => None,
        }
    }

    /// The tool result, if this is one.
    pub fn as_tool_result(&self) -> Option<&ToolResultMessage> {
        match self {
            AgentMessage::ToolResult(t) => Some(t),
            _ => None,
        }
    }

    /// Decode one message from a JSON value, naming `path` (e.g. `messages[3]`) in errors.
    #[inline(never)] // one copy for its callers (issue 17 §7)
    pub fn from_value(value: Value, path: &str) -> Result<Self> {
        let Value::Object(map) = value else {
            return Err(Error::invalid(
                path,
                format!("expected a message object, got {}", kind_of(&value)),
            ));
        };
        let role = match map.get("role") {
            Some(Value::String(r)) => r.clone(),
            Some(other) => {
                return Err(Error::invalid(
                    format!("{path}.role"),
                    format!("expected a string, got {}", kind_of(other)),
                ))
            }
            None => {
                return Err(Error::invalid(
                    format!("{path}.role"),
                    "missing field `role`",
                ))
            }
        };
        read::message(Role::parse(&role), map)
            .map_err(|(at, message)| Error::invalid(format!("{path}{at}"), message))
    }

    /// Decode a whole array, naming `path[i]` in errors.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn list_from_value(value: Value, path: &str) -> Result<Vec<Self>> {
        let Value::Array(items) = value else {
            return Err(Error::invalid(
                path,
                format!("expected an array of messages, got {}", kind_of(&value)),
            ));
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| AgentMessage::from_value(v, &format!("{path}[{i}]")))
            .collect()
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        AgentMessage::from_value(value, "message").map_err(|e| D::Error::custom(e.to_string()))
    }
}

pub use crate::decode::decode_at;

/// "a string", "an array", ... for error messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// JavaScript has one number type: 1 and 1.0 are the same value.
    fn numbers_as_f64(v: Value) -> Value {
        match v {
            Value::Number(n) => json!(n.as_f64().unwrap()),
            Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_f64).collect()),
            Value::Object(o) => {
                Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect())
            }
            other => other,
        }
    }

    fn round_trip(v: Value) -> Value {
        let m = AgentMessage::from_value(v, "m").unwrap();
        serde_json::to_value(&m).unwrap()
    }

    /// The host's own fields keep their order whatever the tag's place: the tag is not
    /// removed from the map first (serde_json's `preserve_order` removal swaps the last
    /// entry into its place, which wrote `{"c":3,"a":1,"b":2}` for this user message).
    #[test]
    fn host_fields_keep_their_order_when_the_tag_comes_first() {
        let cases = [
            (
                json!({"role": "user", "a": 1, "content": "hi", "b": 2, "c": 3}),
                r#"{"role":"user","content":"hi","a":1,"b":2,"c":3}"#,
            ),
            (
                json!({"role": "assistant", "content": [{"type": "text", "p": 1, "text": "x", "q": 2, "r": 3}], "a": 1, "b": 2}),
                r#"{"role":"assistant","content":[{"type":"text","text":"x","p":1,"q":2,"r":3}],"a":1,"b":2}"#,
            ),
        ];
        for (given, written) in cases {
            let m = AgentMessage::from_value(given, "m").unwrap();
            assert_eq!(serde_json::to_string(&m).unwrap(), written);
        }
    }

    /// The text written back: the tag, the known fields in pi's order (each message
    /// given here in another order), then the host's own fields in their order.
    #[test]
    fn messages_are_written_tag_first_fields_in_order_then_host_fields() {
        let cases = [
            (
                json!({"z": 1, "timestamp": 2, "content": [{"mine": 1, "textSignature": "s", "text": "a", "type": "text"}, {"mimeType": "m", "data": "d", "type": "image"}], "role": "user"}),
                r#"{"role":"user","content":[{"type":"text","text":"a","textSignature":"s","mine":1},{"type":"image","data":"d","mimeType":"m"}],"timestamp":2.0,"z":1}"#,
            ),
            (
                json!({"timestamp": 1, "errorMessage": "e", "stopReason": "error", "usage": {"input": 1}, "model": "m", "provider": "p", "api": "a", "h": null, "role": "assistant",
                       "content": [{"redacted": true, "thinkingSignature": "g", "thinking": "t", "type": "thinking"}, {"thoughtSignature": "o", "arguments": {"b": 1, "a": 2}, "name": "n", "id": "i", "type": "toolCall", "x": 0}, {"k": 1, "type": "future"}]}),
                r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"g","redacted":true},{"type":"toolCall","id":"i","name":"n","arguments":{"b":1,"a":2},"thoughtSignature":"o","x":0},{"k":1,"type":"future"}],"api":"a","provider":"p","model":"m","usage":{"input":1.0},"stopReason":"error","errorMessage":"e","timestamp":1.0,"h":null}"#,
            ),
            (
                json!({"timestamp": 1, "isError": true, "details": null, "content": "c", "toolName": "n", "toolCallId": "i", "role": "toolResult"}),
                r#"{"role":"toolResult","toolCallId":"i","toolName":"n","content":"c","details":null,"isError":true,"timestamp":1.0}"#,
            ),
            (
                json!({"timestamp": 1, "tokensBefore": 2, "summary": "s", "role": "compactionSummary"}),
                r#"{"role":"compactionSummary","summary":"s","tokensBefore":2.0,"timestamp":1.0}"#,
            ),
            (
                json!({"timestamp": 1, "fromId": null, "summary": "s", "role": "branchSummary"}),
                r#"{"role":"branchSummary","summary":"s","fromId":null,"timestamp":1.0}"#,
            ),
            (
                json!({"timestamp": 1, "display": false, "customType": "k", "content": "c", "role": "custom"}),
                r#"{"role":"custom","content":"c","customType":"k","display":false,"timestamp":1.0}"#,
            ),
            (
                json!({"timestamp": 1, "excludeFromContext": true, "output": "o", "command": "c", "role": "bashExecution", "exitCode": 0}),
                r#"{"role":"bashExecution","command":"c","output":"o","excludeFromContext":true,"timestamp":1.0,"exitCode":0}"#,
            ),
            (
                json!({"b": 1, "role": "hostOnly", "a": 2}),
                r#"{"b":1,"role":"hostOnly","a":2}"#,
            ),
        ];
        for (given, written) in cases {
            let m = AgentMessage::from_value(given, "m").unwrap();
            assert_eq!(serde_json::to_string(&m).unwrap(), written);
            let v = serde_json::to_value(&m).unwrap();
            assert_eq!(v.to_string(), written, "the same through a Value");
        }
    }

    #[test]
    fn every_role_round_trips_with_unknown_fields() {
        let samples = vec![
            json!({"role": "user", "content": "hi", "timestamp": 1, "hostField": {"x": [1, 2]}}),
            json!({"role": "user", "content": [{"type": "text", "text": "a", "mine": true}, {"type": "image", "data": "AA", "mimeType": "image/png"}], "timestamp": 2}),
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "thinkingSignature": "sig"}, {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}, "z": 1}, {"type": "future", "payload": 3}],
                   "api": "x", "provider": "p", "model": "m", "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"total": 0.1}},
                   "stopReason": "toolUse", "timestamp": 3, "responseId": "r"}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "x"}], "details": {"d": 1}, "isError": false, "timestamp": 4}),
            json!({"role": "compactionSummary", "summary": "s", "tokensBefore": 10, "timestamp": 5}),
            json!({"role": "branchSummary", "summary": "s", "fromId": "e1", "timestamp": 6}),
            json!({"role": "branchSummary", "summary": "s", "fromId": null, "timestamp": 6}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [], "details": null, "isError": true, "timestamp": 4}),
            json!({"role": "custom", "customType": "note", "content": "c", "display": true, "details": null, "timestamp": 7}),
            json!({"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 8}),
            json!({"role": "hostOnly", "anything": [1, {"a": "b"}]}),
        ];
        for s in samples {
            assert_eq!(numbers_as_f64(round_trip(s.clone())), numbers_as_f64(s));
        }
    }

    #[test]
    fn bad_values_name_their_path() {
        let e = AgentMessage::from_value(
            json!({"role": "assistant", "content": [{"type": "text", "text": 5}]}),
            "messages[3]",
        )
        .unwrap_err();
        match e {
            Error::InvalidInput { path, .. } => assert_eq!(path, "messages[3].content[0]"),
            other => panic!("{other:?}"),
        }
        let e = AgentMessage::from_value(
            json!({"role": "toolResult", "toolName": "x", "content": []}),
            "messages[0]",
        )
        .unwrap_err();
        assert!(e.to_string().contains("toolCallId"), "{e}");
        let e = AgentMessage::from_value(json!(7), "messages[1]").unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT");
        let e = AgentMessage::list_from_value(
            json!([{"role": "user", "content": "a"}, {"role": 3}]),
            "messages",
        )
        .unwrap_err();
        assert!(e.to_string().contains("messages[1].role"), "{e}");
    }
}
