//! What the decisions need to know of one message (host-contract §1–3), read once from
//! the JSON text JavaScript's `JSON.stringify` wrote for it.
//!
//! Every decision of ADR 0299 clauses 3–6 (token accounting, cut points, turn kind,
//! tool-call pairing, file operations, the summary request's text, the library's own
//! marks on a `compactionSummary`) reads a message through [`MessageFacts`]; nothing
//! else reads host messages. Reading is one pass over the text with no copy of large
//! strings, at any nesting depth (tool arguments, `details` and unknown fields are
//! skipped, not built), and exact in JavaScript's terms:
//! - text lengths are UTF-16 code units, counted on the escaped text (a lone surrogate,
//!   which `JSON.stringify` writes as `\udXXX`, is one unit, as in JavaScript);
//! - `JSON.stringify(arguments).length` is the length of the arguments' own text, which
//!   `JSON.stringify` of the message wrote verbatim.
//!
//! Validation matches [`crate::message::AgentMessage`]: known roles and block types need
//! their fields with their types (the path of a bad value is reported); unknown roles and
//! block types are kept and count 0 tokens, like pi.
//!
//! Where each part lives: this file reads a message and holds its facts; `validate.rs`
//! checks the fields (the serde decoder's wording); `content.rs` reads `content`;
//! `marks.rs` reads the library's own marks on a summary ([`SummaryMarks`]); pi's wording
//! of the parts, for a summary request, is [`crate::llm_text`]'s.

mod content;
mod marks;
mod validate;

pub use marks::SummaryMarks;

use content::{read_content_of, AssistantContent, ContentOf};
use validate::{read_usage, Checked, Fields, Loc};

use crate::error::{Error, Result};
use crate::json_scan::{self, Halt, Kind};
use crate::llm_text;
use crate::message::AgentMessage;
use crate::role::Role;
use crate::stop_reason::StopReason;

/// Characters an image counts for (pi's `ESTIMATED_IMAGE_CHARS`, host-contract §2).
pub const ESTIMATED_IMAGE_CHARS: usize = 4800;

/// A file operation of a `read` / `write` / `edit` tool call (pi's `extractFileOpsFromMessage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOpKind {
    Read,
    Write,
    Edit,
}

/// What the decisions need of one message.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageFacts {
    pub role: Role,
    /// pi's `estimateTokens`.
    pub tokens: u64,
    /// `calculateContextTokens(usage)` of an assistant that has a `usage` object.
    pub usage_tokens: Option<f64>,
    /// An assistant's `stopReason`, when it has one.
    pub stop_reason: Option<StopReason>,
    /// Ids of an assistant's tool calls, in order.
    pub tool_call_ids: Vec<Box<str>>,
    /// A tool result's `toolCallId`.
    pub answers: Option<Box<str>>,
    /// An assistant with no tool call whose text and thinking are all blank.
    pub empty_assistant: bool,
    /// `read` / `write` / `edit` calls with a non-empty string `arguments.path`.
    pub file_ops: Vec<(FileOpKind, Box<str>)>,
    /// For a `compactionSummary`: the marks this library wrote into its `details`.
    pub summary: Option<Box<SummaryMarks>>,
    /// The message's JSON text: its characters (the summary request's text, the brief,
    /// a previous summary) are read from it only when they are needed.
    pub raw: RawText,
}

/// A message's JSON text: a range of the text it was read from (shared by the messages
/// read together, never copied).
#[derive(Clone, Debug, Default)]
pub struct RawText {
    text: std::rc::Rc<str>,
    start: u32,
    end: u32,
}

impl RawText {
    /// A message's own JSON text, whole (a message written apart from others).
    pub fn whole(text: String) -> RawText {
        let end = u32::try_from(text.len()).unwrap_or(u32::MAX);
        RawText {
            text: std::rc::Rc::from(text),
            start: 0,
            end,
        }
    }

    /// The text.
    #[inline(never)]
    pub fn as_str(&self) -> &str {
        self.text
            .get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

impl PartialEq for RawText {
    fn eq(&self, other: &RawText) -> bool {
        self.as_str() == other.as_str()
    }
}

/// The characters of a message, read from its text on request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageText {
    /// pi's `serializeConversation(convertToLlm([message]))` parts.
    pub parts: Vec<String>,
    /// A user message's text (`content` as text): the task brief.
    pub user_text: Option<String>,
    /// A `compactionSummary`'s `summary`.
    pub summary: Option<String>,
}

impl MessageFacts {
    /// The message's characters (parts, user text, summary), read again from its text.
    #[inline(never)]
    pub fn text(&self) -> MessageText {
        let mut text = MessageText::default();
        let mut reader = json_scan::Reader::new(self.raw.as_str());
        // the text was read once already: it cannot fail now
        let _ = read_message(&mut reader, "message", Some(&mut text), None);
        text
    }

    /// pi's `serializeConversation` parts of this message.
    #[inline(never)]
    pub fn parts(&self) -> Vec<String> {
        self.text().parts
    }

    /// The `role` string (`(unknown)` for a role this library does not know).
    pub fn role_name(&self) -> &'static str {
        self.role.as_str().unwrap_or("(unknown)")
    }

    /// pi's "valid cut point": never a tool result, never an unknown role.
    pub fn is_valid_cut_point(&self) -> bool {
        !matches!(self.role, Role::ToolResult | Role::Other)
    }

    /// pi's `findTurnStartIndex` stops at a user or bashExecution message.
    pub fn starts_turn(&self) -> bool {
        matches!(self.role, Role::User | Role::BashExecution)
    }

    /// A failed assistant ([`StopReason::is_failed`]): its usage is not trusted.
    pub fn is_failed(&self) -> bool {
        self.role == Role::Assistant && self.stop_reason.is_some_and(StopReason::is_failed)
    }

    /// pi's `isContextMessage`: not an assistant that [`StopReason::leaves_context`].
    pub fn is_context_message(&self) -> bool {
        !(self.role == Role::Assistant && self.stop_reason.is_some_and(StopReason::leaves_context))
    }

    /// The provider usage pi trusts: a non-failed assistant whose usage total is > 0.
    pub fn trusted_usage(&self) -> Option<f64> {
        if self.role != Role::Assistant || self.is_failed() {
            return None;
        }
        self.usage_tokens.filter(|t| *t > 0.0)
    }

    /// ADR 0136: an assistant that called tools or stopped with `toolUse`.
    pub fn opens_active_turn(&self) -> bool {
        self.role == Role::Assistant
            && (!self.tool_call_ids.is_empty() || self.stop_reason == Some(StopReason::ToolUse))
    }

    /// Read one message from its JSON text; `path` names it in errors (`messages[3]`).
    pub fn from_json(text: &str, path: &str) -> Result<MessageFacts> {
        let shared: std::rc::Rc<str> = std::rc::Rc::from(text);
        let mut reader = json_scan::Reader::new(&shared);
        let facts = read_message(&mut reader, path, None, Some(&shared))?;
        reader.finish().map_err(|e| validate::not_json(&path, e))?;
        Ok(facts)
    }

    /// Read the message at `reader` (consuming it); `text` is the whole text the reader
    /// reads (the message keeps a range of it).
    pub fn read(
        reader: &mut json_scan::Reader<'_>,
        text: &std::rc::Rc<str>,
        path: &str,
    ) -> Result<MessageFacts> {
        read_message(reader, path, None, Some(text))
    }
}

impl AgentMessage {
    /// This message's facts, read through its JSON text as a host message would be.
    pub fn facts(&self, path: &str) -> Result<MessageFacts> {
        let text =
            crate::js_text::to_json(self).map_err(|e| Error::invalid(path, e.to_string()))?;
        MessageFacts::from_json(&text, path)
    }
}

/// Read the message at `reader`: its facts, and its characters into `text` when asked
/// (the decisions need only the facts; a summary request, the brief and a previous
/// summary need the characters, read again later from [`MessageFacts::raw`]).
///
/// One pass over the text when `role` comes before `content` (as pi writes messages):
/// the content is read where it stands; otherwise it is read after the walk.
fn read_message(
    reader: &mut json_scan::Reader<'_>,
    path: &str,
    text: Option<&mut MessageText>,
    shared: Option<&std::rc::Rc<str>>,
) -> Result<MessageFacts> {
    let not_json = |e: json_scan::ScanError| validate::not_json(&path, e);
    let kind = reader.peek().map_err(not_json)?;
    if kind != Kind::Object {
        return Err(Error::invalid(
            path,
            format!("expected a message object, got {}", kind.describe()),
        ));
    }
    let loc = Loc {
        message: path,
        field: None,
        index: None,
    };
    let wants_text = text.is_some();
    let start = reader.position();
    let mut fields = Fields::default();
    let mut content: Option<ContentOf> = None;
    let walked: std::result::Result<(), Halt<Error>> = reader.object(|key, r| {
        if key.raw() == "content" {
            if let Some(role) = fields.get("role").and_then(|s| s.as_str()) {
                match read_content_of(
                    r,
                    Role::parse(&role.decode()),
                    loc.field("content"),
                    wants_text,
                ) {
                    Ok(c) => {
                        content = Some(c);
                        return Ok(());
                    }
                    Err(e) => return Err(Halt::Stopped(e)),
                }
            }
        }
        let value = r.skip()?;
        fields.set(key.raw(), value);
        Ok(())
    });
    walked.map_err(|h| h.into_inner(not_json))?;
    let end = reader.position_after();
    let at = |field: &str| format!("{path}.{field}");
    let role = match fields.get("role") {
        None => return Err(Error::invalid(at("role"), "missing field `role`")),
        Some(r) => r.as_str().ok_or_else(|| {
            Error::invalid(
                at("role"),
                format!("expected a string, got {}", r.kind.describe()),
            )
        })?,
    };
    let role = Role::parse(&role.decode());
    let mut facts = MessageFacts {
        role,
        tokens: 0,
        usage_tokens: None,
        stop_reason: None,
        tool_call_ids: Vec::new(),
        answers: None,
        empty_assistant: false,
        file_ops: Vec::new(),
        summary: None,
        raw: match shared {
            Some(text) => RawText {
                text: text.clone(),
                start: start as u32,
                end: end as u32,
            },
            None => RawText::default(),
        },
    };
    if role == Role::Other {
        return Ok(facts);
    }
    let fields = Checked { f: &fields, path };
    let chars = read_body(&fields, role, content, loc, &mut facts, text)?;
    facts.tokens = chars.div_ceil(4) as u64;
    Ok(facts)
}

/// A message's fields after its role, checked as its role has them, its text parts
/// written to `text` when asked; the characters it counts. `early` is its content when it
/// came before the role.
fn read_body(
    fields: &Checked<'_, '_>,
    role: Role,
    mut early: Option<ContentOf>,
    loc: Loc<'_>,
    facts: &mut MessageFacts,
    mut text: Option<&mut MessageText>,
) -> Result<usize> {
    let wants_text = text.is_some();
    let path = fields.path;
    let at = |field: &str| format!("{path}.{field}");
    // the content, when it came before the role (or was absent)
    let mut content = |role| -> Result<ContentOf> {
        match early.take() {
            Some(c) => Ok(c),
            None => {
                let span = fields.required("content")?;
                read_content_of(&mut span.reader(), role, loc.field("content"), wants_text)
            }
        }
    };
    fields.optional_number("timestamp")?;
    let user_part = |text: &mut Option<&mut MessageText>, s: &str| {
        if let Some(t) = text.as_deref_mut() {
            t.parts.extend(llm_text::user_part(s));
        }
    };
    Ok(match role {
        Role::User | Role::Custom => {
            let ContentOf::Plain(content) = content(role)? else {
                return Err(Error::invalid(at("content"), "unreadable content"));
            };
            if role == Role::Custom {
                fields.optional_string("customType")?;
                fields.optional_bool("display")?;
            }
            user_part(&mut text, &content.text);
            if let (Some(t), Role::User) = (text.as_deref_mut(), role) {
                t.user_text = Some(content.text);
            }
            content.chars
        }
        Role::ToolResult => {
            let id = fields.required_string("toolCallId")?;
            fields.required_string("toolName")?;
            fields.optional_bool("isError")?;
            let ContentOf::Plain(content) = content(role)? else {
                return Err(Error::invalid(at("content"), "unreadable content"));
            };
            if let Some(t) = text.as_deref_mut() {
                t.parts.extend(llm_text::tool_result_part(
                    &content.text,
                    content.text_units,
                ));
            }
            facts.answers = Some(id.into_boxed_str());
            content.chars
        }
        Role::Assistant => {
            let ContentOf::Assistant(content) = content(role)? else {
                return Err(Error::invalid(at("content"), "unreadable content"));
            };
            read_assistant(fields, facts, content, text.as_deref_mut())?
        }
        Role::CompactionSummary => {
            let summary = fields.required_raw_string("summary")?;
            fields.optional_number("tokensBefore")?;
            if let Some(t) = text.as_deref_mut() {
                let s = summary.decode();
                t.parts.push(llm_text::compaction_summary_part(&s));
                t.summary = Some(s);
            }
            let marks = fields
                .f
                .get("details")
                .map(SummaryMarks::read)
                .unwrap_or_default();
            facts.summary = Some(Box::new(marks));
            summary.utf16_len()
        }
        Role::BranchSummary => {
            let summary = fields.required_raw_string("summary")?;
            if let Some(t) = text.as_deref_mut() {
                t.parts
                    .push(llm_text::branch_summary_part(&summary.decode()));
            }
            summary.utf16_len()
        }
        Role::BashExecution => {
            let command = fields.required_raw_string("command")?;
            let output = fields.required_raw_string("output")?;
            let exclude = fields.optional_bool("excludeFromContext")?;
            if exclude != Some(true) && wants_text {
                let f = fields.f;
                let status = llm_text::BashStatus {
                    cancelled: f.get("cancelled").map(|v| v.text),
                    exit_code: f.get("exitCode").map(|v| v.text),
                    truncated: f.get("truncated").map(|v| v.text),
                    full_output_path: f.get("fullOutputPath").map(|v| v.text),
                };
                let part =
                    llm_text::bash_execution_text(&command.decode(), &output.decode(), &status);
                user_part(&mut text, &part);
            }
            command.utf16_len() + output.utf16_len()
        }
        Role::Other => 0,
    })
}

/// An assistant message's other fields, and its facts and parts from its content.
fn read_assistant(
    fields: &Checked<'_, '_>,
    facts: &mut MessageFacts,
    content: AssistantContent,
    text: Option<&mut MessageText>,
) -> Result<usize> {
    for name in ["api", "provider", "model", "errorMessage"] {
        fields.optional_string(name)?;
    }
    if let Some(stop) = fields.optional_string("stopReason")? {
        facts.stop_reason = Some(StopReason::parse(&stop.decode()));
    }
    if let Some(u) = fields.f.get("usage") {
        facts.usage_tokens = Some(read_usage(u, &fields.at("usage"))?);
    }
    facts.empty_assistant = content.blank;
    facts.tool_call_ids = content.ids;
    facts.file_ops = content.file_ops;
    if let Some(t) = text {
        let texts = content.has_text_block.then_some(&content.texts[..]);
        t.parts.extend(llm_text::assistant_parts(
            &content.thinking,
            texts,
            &content.calls,
        ));
    }
    Ok(content.chars)
}
