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

use serde_json::Value;

use crate::error::{Error, Result};
use crate::json_scan::{self, Halt, JsonStr, Kind, Span};
use crate::role::Role;
use crate::stop_reason::StopReason;

/// Characters an image counts for (pi's `ESTIMATED_IMAGE_CHARS`, host-contract §2).
pub const ESTIMATED_IMAGE_CHARS: usize = 4800;

/// Where a value is, written out only when an error names it (`messages[3].content[0]`).
#[derive(Clone, Copy)]
struct Loc<'p> {
    message: &'p str,
    field: Option<&'static str>,
    index: Option<usize>,
}

impl<'p> Loc<'p> {
    fn field(self, field: &'static str) -> Loc<'p> {
        Loc {
            field: Some(field),
            ..self
        }
    }
    fn index(self, index: usize) -> Loc<'p> {
        Loc {
            index: Some(index),
            ..self
        }
    }
}

impl From<&Loc<'_>> for String {
    fn from(loc: &Loc<'_>) -> String {
        loc.to_string()
    }
}

impl std::fmt::Display for Loc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message)?;
        if let Some(field) = self.field {
            write!(f, ".{field}")?;
        }
        if let Some(i) = self.index {
            write!(f, "[{i}]")?;
        }
        Ok(())
    }
}

/// A file operation of a `read` / `write` / `edit` tool call (pi's `extractFileOpsFromMessage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOpKind {
    Read,
    Write,
    Edit,
}

/// What this library writes into a `compactionSummary`'s `details`, read back typed
/// ([`SummaryMarks::to_details`] writes it, reading ignores what it does not understand).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryMarks {
    /// pi's `details.readFiles` (seeds the next compaction's file operations).
    pub read_files: Vec<String>,
    /// pi's `details.modifiedFiles`.
    pub modified_files: Vec<String>,
    /// Messages after the summary kept from before it: their usage is stale.
    pub retained_messages: usize,
    /// The summary is a degrade note (clause 4).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub degraded: bool,
    /// For a degrade note: how many messages it dropped.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_messages: usize,
    /// For a degrade note: where (in UTF-16 units of `summary`) the summary it carries
    /// starts; a second degrade carries that part instead of nesting the note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried_from: Option<usize>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// The text.
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
    pub fn text(&self) -> MessageText {
        let mut text = MessageText::default();
        let mut reader = json_scan::Reader::new(self.raw.as_str());
        // the text was read once already: it cannot fail now
        let _ = read_message(&mut reader, "message", Some(&mut text), None);
        text
    }

    /// pi's `serializeConversation` parts of this message.
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
        reader
            .finish()
            .map_err(|e| Error::invalid(path, format!("not JSON data ({e})")))?;
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

/// Read the message at `reader`: its facts, and its characters into `text` when asked
/// (the decisions need only the facts; a summary request, the brief and a previous
/// summary need the characters, read again later from [`MessageFacts::raw`]).
///
/// One pass over the text when `role` comes before `content` (as pi writes messages):
/// the content is read where it stands; otherwise it is read after the walk.
fn read_message(
    reader: &mut json_scan::Reader<'_>,
    path: &str,
    mut text: Option<&mut MessageText>,
    shared: Option<&std::rc::Rc<str>>,
) -> Result<MessageFacts> {
    let not_json = |e: json_scan::ScanError| Error::invalid(path, format!("not JSON data ({e})"));
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
            if let Some(role) = fields.role.and_then(|s| s.as_str()) {
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
    let role = match fields.role {
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
    // the content, when it came before the role (or was absent)
    let mut content = |role| -> Result<ContentOf> {
        match content.take() {
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
            if !s.is_empty() {
                t.parts.push(format!("[User]: {s}"));
            }
        }
    };
    let chars = match role {
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
                if content.text_units > 0 {
                    t.parts.push(format!(
                        "[Tool result]: {}",
                        truncate_for_summary(&content.text, content.text_units)
                    ));
                }
            }
            facts.answers = Some(id.into_boxed_str());
            content.chars
        }
        Role::Assistant => {
            let ContentOf::Assistant(content) = content(role)? else {
                return Err(Error::invalid(at("content"), "unreadable content"));
            };
            read_assistant(&fields, &mut facts, content, text.as_deref_mut())?
        }
        Role::CompactionSummary => {
            let summary = fields.required_raw_string("summary")?;
            fields.optional_number("tokensBefore")?;
            if let Some(t) = text.as_deref_mut() {
                let s = summary.decode();
                t.parts.push(format!(
                    "[User]: {}{s}{}",
                    crate::llm_text::COMPACTION_SUMMARY_PREFIX,
                    crate::llm_text::COMPACTION_SUMMARY_SUFFIX
                ));
                t.summary = Some(s);
            }
            let marks = fields.f.details.map(SummaryMarks::read).unwrap_or_default();
            facts.summary = Some(Box::new(marks));
            summary.utf16_len()
        }
        Role::BranchSummary => {
            let summary = fields.required_raw_string("summary")?;
            if let Some(t) = text.as_deref_mut() {
                t.parts.push(format!(
                    "[User]: {}{}{}",
                    crate::llm_text::BRANCH_SUMMARY_PREFIX,
                    summary.decode(),
                    crate::llm_text::BRANCH_SUMMARY_SUFFIX
                ));
            }
            summary.utf16_len()
        }
        Role::BashExecution => {
            let command = fields.required_raw_string("command")?;
            let output = fields.required_raw_string("output")?;
            let exclude = fields.optional_bool("excludeFromContext")?;
            if exclude != Some(true) && wants_text {
                let part = bash_execution_text(&command.decode(), &output.decode(), fields.f);
                user_part(&mut text, &part);
            }
            command.utf16_len() + output.utf16_len()
        }
        Role::Other => 0,
    };
    facts.tokens = chars.div_ceil(4) as u64;
    Ok(facts)
}

/// Every field any known role has, as written (types are checked per role).
#[derive(Default)]
struct Fields<'a> {
    role: Option<Span<'a>>,
    content: Option<Span<'a>>,
    timestamp: Option<Span<'a>>,
    api: Option<Span<'a>>,
    provider: Option<Span<'a>>,
    model: Option<Span<'a>>,
    usage: Option<Span<'a>>,
    stop_reason: Option<Span<'a>>,
    error_message: Option<Span<'a>>,
    tool_call_id: Option<Span<'a>>,
    tool_name: Option<Span<'a>>,
    details: Option<Span<'a>>,
    is_error: Option<Span<'a>>,
    summary: Option<Span<'a>>,
    tokens_before: Option<Span<'a>>,
    custom_type: Option<Span<'a>>,
    display: Option<Span<'a>>,
    command: Option<Span<'a>>,
    output: Option<Span<'a>>,
    exclude_from_context: Option<Span<'a>>,
    exit_code: Option<Span<'a>>,
    cancelled: Option<Span<'a>>,
    truncated: Option<Span<'a>>,
    full_output_path: Option<Span<'a>>,
}

impl<'a> Fields<'a> {
    /// The known fields of a message object (the last copy of a repeated key wins, as in
    /// JavaScript); `null` counts as absent, as for an optional field.
    fn set(&mut self, key: &str, value: Span<'a>) {
        let f = self;
        {
            let slot = match key {
                "role" => &mut f.role,
                "content" => &mut f.content,
                "timestamp" => &mut f.timestamp,
                "api" => &mut f.api,
                "provider" => &mut f.provider,
                "model" => &mut f.model,
                "usage" => &mut f.usage,
                "stopReason" => &mut f.stop_reason,
                "errorMessage" => &mut f.error_message,
                "toolCallId" => &mut f.tool_call_id,
                "toolName" => &mut f.tool_name,
                "details" => &mut f.details,
                "isError" => &mut f.is_error,
                "summary" => &mut f.summary,
                "tokensBefore" => &mut f.tokens_before,
                "customType" => &mut f.custom_type,
                "display" => &mut f.display,
                "command" => &mut f.command,
                "output" => &mut f.output,
                "excludeFromContext" => &mut f.exclude_from_context,
                "exitCode" => &mut f.exit_code,
                "cancelled" => &mut f.cancelled,
                "truncated" => &mut f.truncated,
                "fullOutputPath" => &mut f.full_output_path,
                _ => return,
            };
            *slot = (!value.is_null()).then_some(value);
        }
    }

    fn get(&self, name: &str) -> Option<Span<'a>> {
        match name {
            "content" => self.content,
            "timestamp" => self.timestamp,
            "api" => self.api,
            "provider" => self.provider,
            "model" => self.model,
            "usage" => self.usage,
            "stopReason" => self.stop_reason,
            "errorMessage" => self.error_message,
            "toolCallId" => self.tool_call_id,
            "toolName" => self.tool_name,
            "details" => self.details,
            "isError" => self.is_error,
            "summary" => self.summary,
            "tokensBefore" => self.tokens_before,
            "customType" => self.custom_type,
            "display" => self.display,
            "command" => self.command,
            "output" => self.output,
            "excludeFromContext" => self.exclude_from_context,
            _ => None,
        }
    }
}

/// The fields of one message with its path, checked by type on request.
struct Checked<'f, 'a> {
    f: &'f Fields<'a>,
    path: &'f str,
}

impl<'a> Checked<'_, 'a> {
    fn at(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }
    fn required(&self, field: &str) -> Result<Span<'a>> {
        self.f
            .get(field)
            .ok_or_else(|| Error::invalid(self.path, format!("missing field `{field}`")))
    }
    fn string_of(&self, field: &str, v: Span<'a>) -> Result<JsonStr<'a>> {
        v.as_str().ok_or_else(|| {
            Error::invalid(
                self.at(field),
                format!("invalid type: {}, expected a string", v.kind.describe()),
            )
        })
    }
    fn required_raw_string(&self, field: &str) -> Result<JsonStr<'a>> {
        let v = self.required(field)?;
        self.string_of(field, v)
    }
    fn required_string(&self, field: &str) -> Result<String> {
        Ok(self.required_raw_string(field)?.decode())
    }
    fn optional_string(&self, field: &str) -> Result<Option<JsonStr<'a>>> {
        self.f
            .get(field)
            .map(|v| self.string_of(field, v))
            .transpose()
    }
    fn optional_number(&self, field: &str) -> Result<Option<f64>> {
        match self.f.get(field) {
            None => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or_else(|| {
                Error::invalid(
                    self.at(field),
                    format!("invalid type: {}, expected f64", v.kind.describe()),
                )
            }),
        }
    }
    fn optional_bool(&self, field: &str) -> Result<Option<bool>> {
        match self.f.get(field) {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                Error::invalid(
                    self.at(field),
                    format!("invalid type: {}, expected a boolean", v.kind.describe()),
                )
            }),
        }
    }
}

impl SummaryMarks {
    /// The marks of a `details` value; anything not understood is ignored (pi ignores it too).
    ///
    /// Read with the scanner, only the six fields: host-written details may hold lone
    /// surrogates or nest deeper than a parser's recursion limit anywhere else, and that
    /// must not lose the marks (the `message_facts` fuzz target found both). A repeated key
    /// counts once, its last value (as `JSON.parse`); a lone surrogate in a file name
    /// becomes U+FFFD.
    fn read(details: Span<'_>) -> SummaryMarks {
        let mut fields: [Option<Span<'_>>; 6] = [None; 6];
        const KEYS: [&str; 6] = [
            "readFiles",
            "modifiedFiles",
            "retainedMessages",
            "degraded",
            "droppedMessages",
            "carriedFrom",
        ];
        if details.kind != Kind::Object {
            return SummaryMarks::default();
        }
        let read: std::result::Result<(), json_scan::ScanError> =
            details.reader().object(|key, r| {
                let value = r.skip()?;
                if let Some(k) = KEYS.iter().position(|k| key.decode() == *k) {
                    fields[k] = Some(value);
                }
                Ok(())
            });
        if read.is_err() {
            return SummaryMarks::default();
        }
        let [read_files, modified_files, retained, degraded, dropped, carried] = fields;
        let list = |v: Option<Span<'_>>| -> Vec<String> {
            v.filter(|v| v.kind == Kind::Array)
                .and_then(|v| v.elements().ok())
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Span::as_str)
                        .map(|s| s.decode())
                        .collect()
                })
                .unwrap_or_default()
        };
        let count = |v: Option<Span<'_>>| -> Option<usize> {
            v.filter(|v| v.kind == Kind::Number)
                .and_then(|v| v.as_f64())
                .filter(|r| r.is_finite() && *r >= 0.0)
                .map(|r| r as usize)
        };
        SummaryMarks {
            read_files: list(read_files),
            modified_files: list(modified_files),
            retained_messages: count(retained).unwrap_or(0),
            degraded: degraded.and_then(|v| v.as_bool()).unwrap_or(false),
            dropped_messages: count(dropped).unwrap_or(0),
            carried_from: count(carried),
        }
    }

    /// The marks as a `details` value.
    pub fn to_details(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A block of a known type, its fields checked.
enum KnownBlock<'a> {
    Text(JsonStr<'a>),
    Thinking {
        thinking: JsonStr<'a>,
        signed: bool,
    },
    Image,
    ToolCall {
        id: JsonStr<'a>,
        name: JsonStr<'a>,
        arguments: Span<'a>,
    },
    Other,
}

/// Check a block; errors are reported at the block's path, naming the field in the
/// message (as `AgentMessage`'s decoder does).
fn read_block<'a>(reader: &mut json_scan::Reader<'a>, at: Loc<'_>) -> Result<KnownBlock<'a>> {
    let path = &at;
    let kind_of_block = reader
        .peek()
        .map_err(|e| Error::invalid(path, format!("not JSON data ({e})")))?;
    if kind_of_block != Kind::Object {
        return Err(Error::invalid(
            path,
            format!(
                "invalid type: {}, expected a block",
                kind_of_block.describe()
            ),
        ));
    }
    let mut kind = None;
    let mut field: [Option<Span<'a>>; 11] = [None; 11];
    const NAMES: [&str; 11] = [
        "text",
        "textSignature",
        "thinking",
        "thinkingSignature",
        "redacted",
        "data",
        "mimeType",
        "id",
        "name",
        "arguments",
        "thoughtSignature",
    ];
    reader
        .object(|key, r| -> std::result::Result<(), json_scan::ScanError> {
            let value = r.skip()?;
            if key.raw() == "type" {
                kind = Some(value);
            } else if let Some(k) = NAMES.iter().position(|n| *n == key.raw()) {
                field[k] = Some(value);
            }
            Ok(())
        })
        .map_err(|e| Error::invalid(path, format!("not JSON data ({e})")))?;
    let get = |name: &str| NAMES.iter().position(|n| *n == name).and_then(|k| field[k]);
    let kind = match kind {
        None => return Err(Error::invalid(path, "missing field `type`")),
        Some(k) => k
            .as_str()
            .ok_or_else(|| {
                Error::invalid(
                    path,
                    format!("type: expected a string, got {}", k.kind.describe()),
                )
            })?
            .decode(),
    };
    let string = |name: &str| -> Result<JsonStr<'a>> {
        let v = get(name)
            .filter(|v| !v.is_null())
            .ok_or_else(|| Error::invalid(path, format!("missing field `{name}`")))?;
        v.as_str().ok_or_else(|| {
            Error::invalid(
                path,
                format!(
                    "{name}: invalid type: {}, expected a string",
                    v.kind.describe()
                ),
            )
        })
    };
    let opt_string = |name: &str| -> Result<bool> {
        match get(name).filter(|v| !v.is_null()) {
            None => Ok(false),
            Some(v) if v.kind == Kind::String => Ok(true),
            Some(v) => Err(Error::invalid(
                path,
                format!(
                    "{name}: invalid type: {}, expected a string",
                    v.kind.describe()
                ),
            )),
        }
    };
    Ok(match kind.as_str() {
        "text" => {
            opt_string("textSignature")?;
            KnownBlock::Text(string("text")?)
        }
        "thinking" => {
            let thinking = string("thinking")?;
            let signed = opt_string("thinkingSignature")?;
            if let Some(r) = get("redacted").filter(|v| !v.is_null()) {
                if r.kind != Kind::Bool {
                    return Err(Error::invalid(
                        path,
                        format!(
                            "redacted: invalid type: {}, expected a boolean",
                            r.kind.describe()
                        ),
                    ));
                }
            }
            KnownBlock::Thinking { thinking, signed }
        }
        "image" => {
            string("data")?;
            string("mimeType")?;
            KnownBlock::Image
        }
        "toolCall" => {
            let id = string("id")?;
            let name = string("name")?;
            opt_string("thoughtSignature")?;
            let arguments = get("arguments")
                .ok_or_else(|| Error::invalid(path, "missing field `arguments`"))?;
            KnownBlock::ToolCall {
                id,
                name,
                arguments,
            }
        }
        _ => KnownBlock::Other,
    })
}

/// A message's `content` read as pi reads it.
struct ContentRead {
    /// Characters pi counts (text lengths, 4,800 per image).
    chars: usize,
    /// The text blocks joined without a separator (pi's `contentText(content, "")`),
    /// decoded up to `keep_units` UTF-16 units.
    text: String,
    /// The whole text's length in UTF-16 units.
    text_units: usize,
}

/// An assistant's content blocks, read.
#[derive(Default)]
struct AssistantContent {
    chars: usize,
    /// No tool call and only blank text and thinking.
    blank: bool,
    has_text_block: bool,
    texts: Vec<String>,
    thinking: Vec<String>,
    calls: Vec<String>,
    ids: Vec<Box<str>>,
    file_ops: Vec<(FileOpKind, Box<str>)>,
}

/// The content of a message, by role.
enum ContentOf {
    Plain(ContentRead),
    Assistant(AssistantContent),
    Skipped,
}

/// The content at `reader` (consumed), read as `role` reads it.
fn read_content_of(
    reader: &mut json_scan::Reader<'_>,
    role: Role,
    at: Loc<'_>,
    wants_text: bool,
) -> Result<ContentOf> {
    Ok(match role {
        Role::User | Role::Custom => ContentOf::Plain(read_content(
            reader,
            at,
            if wants_text { usize::MAX } else { 0 },
        )?),
        Role::ToolResult => ContentOf::Plain(read_content(
            reader,
            at,
            if wants_text {
                crate::llm_text::TOOL_RESULT_MAX_CHARS
            } else {
                0
            },
        )?),
        Role::Assistant => ContentOf::Assistant(read_assistant_content(reader, at, wants_text)?),
        _ => {
            reader
                .skip()
                .map_err(|e| Error::invalid(&at, format!("not JSON data ({e})")))?;
            ContentOf::Skipped
        }
    })
}

/// `string | (TextContent | ImageContent | ...)[]`: errors inside are reported at the
/// content's path (it is one of two shapes, as `AgentMessage`'s untagged decoder says).
/// Only the first `keep_units` characters of the text are decoded (a tool result shows
/// 2,000 in a summary request; its length is counted whole).
fn read_content(
    reader: &mut json_scan::Reader<'_>,
    at: Loc<'_>,
    keep_units: usize,
) -> Result<ContentRead> {
    let path = &at;
    let not_json = |e: json_scan::ScanError| Error::invalid(path, format!("not JSON data ({e})"));
    match reader.peek().map_err(not_json)? {
        Kind::String => {
            let s = reader.string().map_err(not_json)?;
            let units = s.utf16_len();
            return Ok(ContentRead {
                chars: units,
                text: s.decode_prefix(keep_units),
                text_units: units,
            });
        }
        Kind::Array => {}
        other => {
            return Err(Error::invalid(
                path,
                format!(
                    "data did not match any variant of untagged enum Content (expected a string or an array of blocks, got {})",
                    other.describe()
                ),
            ))
        }
    }
    let mut read = ContentRead {
        chars: 0,
        text: String::new(),
        text_units: 0,
    };
    let walked: std::result::Result<(), Halt<Error>> = reader.array(|i, r| {
        match read_block(r, at.index(i)) {
            Ok(KnownBlock::Text(t)) => {
                let units = t.utf16_len();
                read.chars += units;
                if read.text_units < keep_units {
                    read.text.push_str(&t.decode_prefix(keep_units - read.text_units));
                }
                read.text_units += units;
            }
            Ok(KnownBlock::Image) => read.chars += ESTIMATED_IMAGE_CHARS,
            Ok(_) => {}
            Err(Error::InvalidInput { message, .. }) => {
                return Err(Halt::Stopped(Error::invalid(
                    path,
                    format!("data did not match any variant of untagged enum Content ([{i}]: {message})"),
                )));
            }
            Err(other) => return Err(Halt::Stopped(other)),
        }
        Ok(())
    });
    walked.map_err(|h| h.into_inner(not_json))?;
    Ok(read)
}

/// An assistant's content blocks: characters, tool calls, file operations, and (when
/// asked) the texts of its parts.
fn read_assistant_content(
    reader: &mut json_scan::Reader<'_>,
    at: Loc<'_>,
    wants_text: bool,
) -> Result<AssistantContent> {
    let not_json = |e: json_scan::ScanError| Error::invalid(&at, format!("not JSON data ({e})"));
    let kind = reader.peek().map_err(not_json)?;
    if kind != Kind::Array {
        return Err(Error::invalid(
            &at,
            format!("invalid type: {}, expected a sequence", kind.describe()),
        ));
    }
    let mut c = AssistantContent {
        blank: true,
        ..AssistantContent::default()
    };
    let walked: std::result::Result<(), Halt<Error>> = reader.array(|i, r| {
        let block = read_block(r, at.index(i)).map_err(Halt::Stopped)?;
        match block {
            KnownBlock::Text(t) => {
                c.chars += t.utf16_len();
                c.blank &= t.is_blank();
                c.has_text_block = true;
                if wants_text {
                    c.texts.push(t.decode());
                }
            }
            KnownBlock::Thinking {
                thinking: t,
                signed,
            } => {
                c.chars += t.utf16_len();
                c.blank &= t.is_blank() && !signed;
                if wants_text {
                    c.thinking.push(t.decode());
                }
            }
            KnownBlock::ToolCall {
                id,
                name,
                arguments,
            } => {
                c.blank = false;
                // JSON.stringify(arguments).length: the arguments' own text
                c.chars += name.utf16_len() + crate::js_text::utf16_len(arguments.text);
                let name = name.decode();
                c.ids.push(id.decode().into_boxed_str());
                if wants_text {
                    c.calls.push(tool_call_text(&name, arguments));
                }
                if let Some(op) = file_op(&name, arguments) {
                    c.file_ops.push(op);
                }
            }
            KnownBlock::Image => {}
            KnownBlock::Other => c.blank = false,
        }
        Ok(())
    });
    walked.map_err(|h| h.into_inner(not_json))?;
    Ok(c)
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
    if let Some(u) = fields.f.usage {
        facts.usage_tokens = Some(read_usage(u, &fields.at("usage"))?);
    }
    facts.empty_assistant = content.blank;
    facts.tool_call_ids = content.ids;
    facts.file_ops = content.file_ops;
    if let Some(t) = text {
        if !content.thinking.is_empty() {
            t.parts.push(format!(
                "[Assistant thinking]: {}",
                content.thinking.join("\n")
            ));
        }
        if content.has_text_block {
            t.parts
                .push(format!("[Assistant]: {}", content.texts.join("\n")));
        }
        if !content.calls.is_empty() {
            t.parts.push(format!(
                "[Assistant tool calls]: {}",
                content.calls.join("; ")
            ));
        }
    }
    Ok(content.chars)
}

/// `calculateContextTokens(usage)`, the usage's number fields checked.
fn read_usage(usage: Span<'_>, path: &str) -> Result<f64> {
    if usage.kind != Kind::Object {
        return Err(Error::invalid(
            path,
            format!(
                "invalid type: {}, expected struct Usage",
                usage.kind.describe()
            ),
        ));
    }
    let mut numbers: [Option<f64>; 5] = [None; 5];
    const NAMES: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];
    let entries = usage
        .entries()
        .map_err(|e| Error::invalid(path, format!("not JSON data ({e})")))?;
    for (key, value) in entries {
        if let Some(k) = NAMES.iter().position(|n| *n == key.raw()) {
            if value.is_null() {
                numbers[k] = None;
                continue;
            }
            numbers[k] = Some(value.as_f64().ok_or_else(|| {
                Error::invalid(
                    format!("{path}.{}", NAMES[k]),
                    format!("invalid type: {}, expected f64", value.kind.describe()),
                )
            })?);
        }
    }
    let usage = crate::message::Usage {
        input: numbers[0],
        output: numbers[1],
        cache_read: numbers[2],
        cache_write: numbers[3],
        total_tokens: numbers[4],
        extra: Default::default(),
    };
    Ok(usage.context_tokens())
}

/// pi's `extractFileOpsFromMessage` for one call: `read` / `write` / `edit` (names
/// compared exactly) with a non-empty string `arguments.path`.
fn file_op(name: &str, arguments: Span<'_>) -> Option<(FileOpKind, Box<str>)> {
    let kind = match name {
        "read" => FileOpKind::Read,
        "write" => FileOpKind::Write,
        "edit" => FileOpKind::Edit,
        _ => return None,
    };
    let path = arguments.get("path").ok()??.as_str()?.decode();
    (!path.is_empty()).then(|| (kind, path.into_boxed_str()))
}

/// pi's tool call line: `name(k=JSON.stringify(v), ...)` over `Object.entries(arguments)`.
/// The arguments' text was written by `JSON.stringify`, so every value's own text is
/// already `JSON.stringify(v)` and the keys are in JavaScript's property order.
fn tool_call_text(name: &str, arguments: Span<'_>) -> String {
    let args: Vec<String> = match arguments.kind {
        Kind::Object => arguments
            .entries()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| format!("{}={}", k.decode(), v.text))
            .collect(),
        Kind::Array => arguments
            .elements()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, v)| format!("{i}={}", v.text))
            .collect(),
        Kind::String => arguments
            .as_str()
            .map(|s| s.decode())
            .unwrap_or_default()
            .chars()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "{i}={}",
                    crate::js_text::json_stringify(&Value::String(c.to_string()))
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    format!("{name}({})", args.join(", "))
}

/// pi's `truncateForSummary`: the first 2,000 characters and a count of the rest.
fn truncate_for_summary(text: &str, units: usize) -> String {
    crate::llm_text::truncate_for_summary_units(text, units).to_string()
}

/// pi's `bashExecutionToText`.
fn bash_execution_text(command: &str, output: &str, f: &Fields<'_>) -> String {
    let mut text = format!("Ran `{command}`\n");
    if !output.is_empty() {
        text.push_str(&format!("```\n{output}\n```"));
    } else {
        text.push_str("(no output)");
    }
    let value = |v: Option<Span<'_>>| v.and_then(|r| crate::js_text::parse_json(r.text).ok());
    let truthy = |v: Option<Span<'_>>| value(v).is_some_and(|v| crate::js_text::js_truthy(&v));
    if truthy(f.cancelled) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = f.exit_code {
        let shown = match value(Some(code)) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_f64() == Some(0.0) => None,
            Some(Value::Number(n)) => Some(crate::js_text::js_number_to_string(
                n.as_f64().unwrap_or(f64::NAN),
            )),
            Some(Value::String(s)) => Some(s),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(_) => Some("[object Object]".to_string()),
        };
        if let Some(c) = shown {
            text.push_str(&format!("\n\nCommand exited with code {c}"));
        }
    }
    if truthy(f.truncated) {
        if let Some(p) = value(f.full_output_path).filter(crate::js_text::js_truthy) {
            let p = match p {
                Value::String(s) => s,
                other => crate::js_text::json_stringify(&other),
            };
            text.push_str(&format!("\n\n[Output truncated. Full output: {p}]"));
        }
    }
    text
}
