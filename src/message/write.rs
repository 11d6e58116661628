//! Host messages and content blocks written back (host-contract §1): the tag first
//! (`role`, `type`), then each field the message has in pi's order (an absent optional
//! field is not written; a kept `null` is), then the host's own fields in their order.
//! Written by hand, once per serializer, instead of serde's internally tagged derives
//! (issue 17 §7: a tagged wrapper and a copy of every struct's writer per serializer).

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{AgentMessage, ContentBlock, Extra};

/// `key: value` when the field is present.
fn opt<M: SerializeMap, T: Serialize>(m: &mut M, key: &str, v: &Option<T>) -> Result<(), M::Error> {
    match v {
        Some(v) => m.serialize_entry(key, v),
        None => Ok(()),
    }
}

/// The host's own fields, after the known ones.
fn extra<M: SerializeMap>(m: &mut M, extra: &Extra) -> Result<(), M::Error> {
    extra.iter().try_for_each(|(k, v)| m.serialize_entry(k, v))
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = match self {
            ContentBlock::Other(map) => return map.serialize(s),
            _ => s.serialize_map(None)?,
        };
        match self {
            ContentBlock::Text(b) => {
                m.serialize_entry("type", "text")?;
                m.serialize_entry("text", &b.text)?;
                opt(&mut m, "textSignature", &b.text_signature)?;
                extra(&mut m, &b.extra)?;
            }
            ContentBlock::Thinking(b) => {
                m.serialize_entry("type", "thinking")?;
                m.serialize_entry("thinking", &b.thinking)?;
                opt(&mut m, "thinkingSignature", &b.thinking_signature)?;
                opt(&mut m, "redacted", &b.redacted)?;
                extra(&mut m, &b.extra)?;
            }
            ContentBlock::Image(b) => {
                m.serialize_entry("type", "image")?;
                m.serialize_entry("data", &b.data)?;
                m.serialize_entry("mimeType", &b.mime_type)?;
                extra(&mut m, &b.extra)?;
            }
            ContentBlock::ToolCall(b) => {
                m.serialize_entry("type", "toolCall")?;
                m.serialize_entry("id", &b.id)?;
                m.serialize_entry("name", &b.name)?;
                m.serialize_entry("arguments", &b.arguments)?;
                opt(&mut m, "thoughtSignature", &b.thought_signature)?;
                extra(&mut m, &b.extra)?;
            }
            ContentBlock::Other(_) => {}
        }
        m.end()
    }
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = match self {
            AgentMessage::Other(map) => return map.serialize(s),
            _ => s.serialize_map(None)?,
        };
        // pi's role text, from the one table (role.rs); every role but `Other` has one
        if let Some(role) = self.kind().as_str() {
            m.serialize_entry("role", role)?;
        }
        match self {
            AgentMessage::User(u) => {
                m.serialize_entry("content", &u.content)?;
                opt(&mut m, "timestamp", &u.timestamp)?;
                extra(&mut m, &u.extra)?;
            }
            AgentMessage::Assistant(a) => {
                m.serialize_entry("content", &a.content)?;
                opt(&mut m, "api", &a.api)?;
                opt(&mut m, "provider", &a.provider)?;
                opt(&mut m, "model", &a.model)?;
                opt(&mut m, "usage", &a.usage)?;
                opt(&mut m, "stopReason", &a.stop_reason)?;
                opt(&mut m, "errorMessage", &a.error_message)?;
                opt(&mut m, "timestamp", &a.timestamp)?;
                extra(&mut m, &a.extra)?;
            }
            AgentMessage::ToolResult(t) => {
                m.serialize_entry("toolCallId", &t.tool_call_id)?;
                m.serialize_entry("toolName", &t.tool_name)?;
                m.serialize_entry("content", &t.content)?;
                opt(&mut m, "details", &t.details)?;
                opt(&mut m, "isError", &t.is_error)?;
                opt(&mut m, "timestamp", &t.timestamp)?;
                extra(&mut m, &t.extra)?;
            }
            AgentMessage::CompactionSummary(c) => {
                m.serialize_entry("summary", &c.summary)?;
                opt(&mut m, "tokensBefore", &c.tokens_before)?;
                opt(&mut m, "timestamp", &c.timestamp)?;
                extra(&mut m, &c.extra)?;
            }
            AgentMessage::BranchSummary(b) => {
                m.serialize_entry("summary", &b.summary)?;
                opt(&mut m, "fromId", &b.from_id)?;
                opt(&mut m, "timestamp", &b.timestamp)?;
                extra(&mut m, &b.extra)?;
            }
            AgentMessage::Custom(c) => {
                m.serialize_entry("content", &c.content)?;
                opt(&mut m, "customType", &c.custom_type)?;
                opt(&mut m, "display", &c.display)?;
                opt(&mut m, "timestamp", &c.timestamp)?;
                extra(&mut m, &c.extra)?;
            }
            AgentMessage::BashExecution(b) => {
                m.serialize_entry("command", &b.command)?;
                m.serialize_entry("output", &b.output)?;
                opt(&mut m, "excludeFromContext", &b.exclude_from_context)?;
                opt(&mut m, "timestamp", &b.timestamp)?;
                extra(&mut m, &b.extra)?;
            }
            AgentMessage::Other(_) => {}
        }
        m.end()
    }
}
