//! Host messages and content blocks read from a parsed JSON value (host-contract §1), by
//! one table-driven reader instead of serde's derived visitors (issue 17 §7: a copy of
//! those, flattened `extra` included, for every message type and every caller).
//!
//! It reads as the derived decoders read, in their words: an object's entries in their
//! order (the first bad value in the object is the one named), each known field checked
//! for its type, unknown fields kept in `extra` in their order, then the first missing
//! required field (in the struct's order) named. A field given `null` is absent unless it
//! keeps `null` (`details`, `fromId`, `arguments`).

use serde_json::Value;

use super::{
    AssistantMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
    Content, ContentBlock, CustomMessage, Extra, ImageBlock, TextBlock, ThinkingBlock,
    ToolCallBlock, ToolResultMessage, Usage, UserMessage,
};
use crate::role::Role;
use crate::text_build::Owned;

/// A bad value: its path inside the value read (`""`, `.content[0]`) and the message.
pub(super) type Bad = (String, String);

/// What a field holds.
#[derive(Clone, Copy, PartialEq)]
enum Ty {
    /// A string, required.
    Str,
    /// A string or absent.
    OptStr,
    /// A number or absent.
    OptNum,
    /// A boolean or absent.
    OptBool,
    /// Any value, required (`null` included).
    Json,
    /// Any value or absent (a `null` kept).
    OptJson,
    /// A string or an array of blocks, required.
    Content,
    /// An array of blocks, required.
    Blocks,
    /// pi-ai's `Usage` or absent.
    OptUsage,
}

/// A field's value as read.
enum Slot {
    Absent,
    Str(String),
    Num(f64),
    Bool(bool),
    Json(Value),
    Content(Content),
    Blocks(Vec<ContentBlock>),
    Usage(Usage),
}

/// The "expected ..., got ..." message for `v` where `expected` was wanted.
#[inline(never)]
fn invalid_type(v: &Value, expected: &str) -> String {
    crate::decode::invalid_type(v, expected).1
}

/// One field's value, checked against `ty`.
fn slot(v: Value, ty: Ty) -> Result<Slot, Bad> {
    // a value of the wrong kind first, `v` still whole (one exit that drops it, not one
    // per kind)
    let wrong = match (ty, &v) {
        (Ty::OptStr | Ty::OptNum | Ty::OptBool | Ty::OptUsage, Value::Null) => {
            return Ok(Slot::Absent)
        }
        (Ty::Str | Ty::OptStr, Value::String(_))
        | (Ty::OptNum, Value::Number(_))
        | (Ty::OptBool, Value::Bool(_))
        | (Ty::Blocks, Value::Array(_))
        | (Ty::Json | Ty::OptJson | Ty::Content | Ty::OptUsage, _) => None,
        (Ty::Str | Ty::OptStr, _) => Some("a string"),
        (Ty::OptNum, _) => Some("f64"),
        (Ty::OptBool, _) => Some("a boolean"),
        (Ty::Blocks, _) => Some("a sequence"),
    };
    if let Some(expected) = wrong {
        return Err((String::new(), invalid_type(&v, expected)));
    }
    Ok(match (ty, v) {
        (Ty::Str | Ty::OptStr, Value::String(s)) => Slot::Str(s),
        (Ty::OptNum, Value::Number(n)) => Slot::Num(n.as_f64().unwrap_or(f64::NAN)),
        (Ty::OptBool, Value::Bool(b)) => Slot::Bool(b),
        (Ty::Content, Value::String(s)) => Slot::Content(Content::Text(s)),
        // serde's untagged enum: any bad block makes the whole value unmatched
        (Ty::Content, Value::Array(items)) => match blocks(items) {
            Ok(blocks) => Slot::Content(Content::Blocks(blocks)),
            Err(_) => return untagged(),
        },
        (Ty::Content, _) => return untagged(),
        (Ty::Blocks, Value::Array(items)) => Slot::Blocks(blocks(items)?),
        (Ty::OptUsage, v) => Slot::Usage(crate::decode::Decode::decode(&v)?),
        // `Json` and `OptJson` (every other kind was checked above)
        (_, v) => Slot::Json(v),
    })
}

/// An array's blocks, or the first bad one (`[i]`).
fn blocks(items: Vec<Value>) -> Result<Vec<ContentBlock>, Bad> {
    let mut blocks = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        blocks.push(block(item).map_err(|message| (format!("[{i}]"), message))?);
    }
    Ok(blocks)
}

fn untagged<T>() -> Result<T, Bad> {
    Err((String::new(), "not a string or an array of blocks".owned()))
}

/// An object's fields, read in the object's order (see the module's documentation).
struct Fields {
    slots: Vec<Slot>,
    extra: Extra,
}

impl Fields {
    /// The fields of `map` by `table`, the rest in `extra` in their order; `tag` (the
    /// `role` or `type` already read) is neither. (Not removed from `map` first: with
    /// serde_json's `preserve_order`, `Map::remove` is a swap removal, which moved the
    /// last unknown field into the tag's place.)
    fn read(map: Extra, tag: &str, table: &[(&'static str, Ty)]) -> Result<Fields, Bad> {
        let mut slots: Vec<Slot> = table.iter().map(|_| Slot::Absent).collect();
        let mut extra = crate::js_text::new_map();
        for (key, v) in map {
            if key == tag {
                continue;
            }
            match table.iter().position(|(name, _)| *name == key) {
                Some(i) => {
                    slots[i] = slot(v, table[i].1)
                        .map_err(|(at, message)| (format!(".{key}{at}"), message))?;
                }
                None => {
                    extra.insert(key, v);
                }
            }
        }
        // a required field given any value holds it (a required type never reads as
        // absent: `Json` keeps a `null`), so an absent slot is a missing field
        let required = [Ty::Str, Ty::Json, Ty::Content, Ty::Blocks];
        for (i, (name, ty)) in table.iter().enumerate() {
            if matches!(slots[i], Slot::Absent) && required.contains(ty) {
                return Err((String::new(), format!("missing field `{name}`")));
            }
        }
        Ok(Fields { slots, extra })
    }

    fn take(&mut self, i: usize) -> Slot {
        std::mem::replace(&mut self.slots[i], Slot::Absent)
    }
    fn str(&mut self, i: usize) -> String {
        self.opt_str(i).unwrap_or_default()
    }
    fn opt_str(&mut self, i: usize) -> Option<String> {
        match self.take(i) {
            Slot::Str(s) => Some(s),
            _ => None,
        }
    }
    #[inline(never)]
    fn num(&mut self, i: usize) -> Option<f64> {
        match self.take(i) {
            Slot::Num(x) => Some(x),
            _ => None,
        }
    }
    #[inline(never)]
    fn bool(&mut self, i: usize) -> Option<bool> {
        match self.take(i) {
            Slot::Bool(b) => Some(b),
            _ => None,
        }
    }
    #[inline(never)]
    fn json(&mut self, i: usize) -> Option<Value> {
        match self.take(i) {
            Slot::Json(v) => Some(v),
            _ => None,
        }
    }
    #[inline(never)]
    fn content(&mut self, i: usize) -> Content {
        match self.take(i) {
            Slot::Content(c) => c,
            _ => Content::default(),
        }
    }
    fn blocks(&mut self, i: usize) -> Vec<ContentBlock> {
        match self.take(i) {
            Slot::Blocks(b) => b,
            _ => Vec::new(),
        }
    }
    fn usage(&mut self, i: usize) -> Option<Usage> {
        match self.take(i) {
            Slot::Usage(u) => Some(u),
            _ => None,
        }
    }
}

/// One content block: an object tagged by `type` (a type this library does not know is
/// kept whole); the message says which field was bad (`text: invalid type: ...`).
pub(super) fn block(v: Value) -> Result<ContentBlock, String> {
    let Value::Object(map) = v else {
        return Err(invalid_type(&v, "a map"));
    };
    let kind = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(format!(
                "type: expected a string, got {}",
                super::kind_of(other)
            ))
        }
        None => return Err("missing field `type`".owned()),
    };
    let table: &[(&str, Ty)] = match kind.as_str() {
        "text" => &[("text", Ty::Str), ("textSignature", Ty::OptStr)],
        "thinking" => &[
            ("thinking", Ty::Str),
            ("thinkingSignature", Ty::OptStr),
            ("redacted", Ty::OptBool),
        ],
        "image" => &[("data", Ty::Str), ("mimeType", Ty::Str)],
        "toolCall" => &[
            ("id", Ty::Str),
            ("name", Ty::Str),
            ("arguments", Ty::Json),
            ("thoughtSignature", Ty::OptStr),
        ],
        _ => return Ok(ContentBlock::Other(map)),
    };
    let mut f = Fields::read(map, "type", table).map_err(|(at, message)| {
        match at.strip_prefix('.').unwrap_or(&at) {
            "" => message,
            at => format!("{at}: {message}"),
        }
    })?;
    Ok(match kind.as_str() {
        "text" => ContentBlock::Text(TextBlock {
            text: f.str(0),
            text_signature: f.opt_str(1),
            extra: f.extra,
        }),
        "thinking" => ContentBlock::Thinking(ThinkingBlock {
            thinking: f.str(0),
            thinking_signature: f.opt_str(1),
            redacted: f.bool(2),
            extra: f.extra,
        }),
        "image" => ContentBlock::Image(ImageBlock {
            data: f.str(0),
            mime_type: f.str(1),
            extra: f.extra,
        }),
        _ => ContentBlock::ToolCall(ToolCallBlock {
            id: f.str(0),
            name: f.str(1),
            arguments: f.json(2).unwrap_or_default(),
            thought_signature: f.opt_str(3),
            extra: f.extra,
        }),
    })
}

/// A message from its fields and its `role`, read (a role this library does not know is
/// kept whole).
pub(super) fn message(role: Role, map: Extra) -> Result<super::AgentMessage, Bad> {
    use super::AgentMessage as M;
    let table: &[(&str, Ty)] = match role {
        Role::User => &[("content", Ty::Content), ("timestamp", Ty::OptNum)],
        Role::Assistant => &[
            ("content", Ty::Blocks),
            ("api", Ty::OptStr),
            ("provider", Ty::OptStr),
            ("model", Ty::OptStr),
            ("usage", Ty::OptUsage),
            ("stopReason", Ty::OptStr),
            ("errorMessage", Ty::OptStr),
            ("timestamp", Ty::OptNum),
        ],
        Role::ToolResult => &[
            ("toolCallId", Ty::Str),
            ("toolName", Ty::Str),
            ("content", Ty::Content),
            ("details", Ty::OptJson),
            ("isError", Ty::OptBool),
            ("timestamp", Ty::OptNum),
        ],
        Role::CompactionSummary => &[
            ("summary", Ty::Str),
            ("tokensBefore", Ty::OptNum),
            ("timestamp", Ty::OptNum),
        ],
        Role::BranchSummary => &[
            ("summary", Ty::Str),
            ("fromId", Ty::OptJson),
            ("timestamp", Ty::OptNum),
        ],
        Role::Custom => &[
            ("content", Ty::Content),
            ("customType", Ty::OptStr),
            ("display", Ty::OptBool),
            ("timestamp", Ty::OptNum),
        ],
        Role::BashExecution => &[
            ("command", Ty::Str),
            ("output", Ty::Str),
            ("excludeFromContext", Ty::OptBool),
            ("timestamp", Ty::OptNum),
        ],
        Role::Other => return Ok(M::Other(map)),
    };
    let mut f = Fields::read(map, "role", table)?;
    Ok(match role {
        Role::User => M::User(UserMessage {
            content: f.content(0),
            timestamp: f.num(1),
            extra: f.extra,
        }),
        Role::Assistant => M::Assistant(AssistantMessage {
            content: f.blocks(0),
            api: f.opt_str(1),
            provider: f.opt_str(2),
            model: f.opt_str(3),
            usage: f.usage(4),
            stop_reason: f.opt_str(5),
            error_message: f.opt_str(6),
            timestamp: f.num(7),
            extra: f.extra,
        }),
        Role::ToolResult => M::ToolResult(ToolResultMessage {
            tool_call_id: f.str(0),
            tool_name: f.str(1),
            content: f.content(2),
            details: f.json(3),
            is_error: f.bool(4),
            timestamp: f.num(5),
            extra: f.extra,
        }),
        Role::CompactionSummary => M::CompactionSummary(CompactionSummaryMessage {
            summary: f.str(0),
            tokens_before: f.num(1),
            timestamp: f.num(2),
            extra: f.extra,
        }),
        Role::BranchSummary => M::BranchSummary(BranchSummaryMessage {
            summary: f.str(0),
            from_id: f.json(1),
            timestamp: f.num(2),
            extra: f.extra,
        }),
        Role::Custom => M::Custom(CustomMessage {
            content: f.content(0),
            custom_type: f.opt_str(1),
            display: f.bool(2),
            timestamp: f.num(3),
            extra: f.extra,
        }),
        _ => M::BashExecution(BashExecutionMessage {
            command: f.str(0),
            output: f.str(1),
            exclude_from_context: f.bool(2),
            timestamp: f.num(3),
            extra: f.extra,
        }),
    })
}
