//! A message's `content` read as pi reads it: its characters for pi's `estimateTokens`
//! (host-contract §2, 4,800 per image), an assistant's tool calls for the pairing and its
//! file operations (pi's `extractFileOpsFromMessage`, ADR 0299 §3), and, when a summary
//! request needs them, the texts of its parts.

use super::validate::{not_json, read_block, wrong_type, KnownBlock, Loc};
use super::{FileOpKind, ESTIMATED_IMAGE_CHARS};
use crate::error::{Error, Result};
use crate::json_scan::{self, Halt, Kind, Span};
use crate::llm_text;
use crate::role::Role;
use crate::text_build::Append;

/// A message's `content` read as pi reads it.
pub(super) struct ContentRead {
    /// Characters pi counts (text lengths, 4,800 per image).
    pub(super) chars: usize,
    /// The text blocks joined without a separator (pi's `contentText(content, "")`),
    /// decoded up to `keep_units` UTF-16 units.
    pub(super) text: String,
    /// The whole text's length in UTF-16 units.
    pub(super) text_units: usize,
}

/// An assistant's content blocks, read.
#[derive(Default)]
pub(super) struct AssistantContent {
    pub(super) chars: usize,
    /// No tool call and only blank text and thinking.
    pub(super) blank: bool,
    pub(super) has_text_block: bool,
    pub(super) texts: Vec<String>,
    pub(super) thinking: Vec<String>,
    pub(super) calls: Vec<String>,
    pub(super) ids: Vec<Box<str>>,
    pub(super) file_ops: Vec<(FileOpKind, Box<str>)>,
}

/// The content of a message, by role.
pub(super) enum ContentOf {
    Plain(ContentRead),
    Assistant(AssistantContent),
    Skipped,
}

/// The content at `reader` (consumed), read as `role` reads it.
pub(super) fn read_content_of(
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
                llm_text::TOOL_RESULT_MAX_CHARS
            } else {
                0
            },
        )?),
        Role::Assistant => ContentOf::Assistant(read_assistant_content(reader, at, wants_text)?),
        _ => {
            reader.skip().map_err(|e| not_json(&at, e))?;
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
    let not_json = |e: json_scan::ScanError| not_json(path, e);
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
                    "expected a string or an array of blocks, got {}",
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
    // a bad block: the whole content matches neither shape
    let untagged = |at: &Loc<'_>, i: usize, e: Error| match e {
        Error::InvalidInput { message, .. } => Error::invalid(
            at,
            format!("not a string or an array of blocks ([{i}]: {message})"),
        ),
        other => other,
    };
    read_blocks(reader, at, untagged, &mut |block| match block {
        KnownBlock::Text(t) => {
            let units = t.utf16_len();
            read.chars += units;
            if read.text_units < keep_units {
                read.text
                    .append(&t.decode_prefix(keep_units - read.text_units));
            }
            read.text_units += units;
        }
        KnownBlock::Image => read.chars += ESTIMATED_IMAGE_CHARS,
        _ => {}
    })?;
    Ok(read)
}

/// The blocks of the array at `reader` (consumed), each checked ([`read_block`]) and
/// handed to `each` in order; a bad block (the `i`-th) stops the walk with `bad`'s
/// wording of its error. One walk for both readers of blocks (issue 17 §7).
#[inline(never)]
fn read_blocks<'a>(
    reader: &mut json_scan::Reader<'a>,
    at: Loc<'_>,
    bad: fn(&Loc<'_>, usize, Error) -> Error,
    each: &mut dyn FnMut(KnownBlock<'a>),
) -> Result<()> {
    let walked: std::result::Result<(), Halt<Error>> = reader.array(|i, r| {
        let block = read_block(r, at.index(i)).map_err(|e| Halt::Stopped(bad(&at, i, e)))?;
        each(block);
        Ok(())
    });
    walked.map_err(|h| h.into_inner(|e| not_json(&at, e)))
}

/// An assistant's content blocks: characters, tool calls, file operations, and (when
/// asked) the texts of its parts.
fn read_assistant_content(
    reader: &mut json_scan::Reader<'_>,
    at: Loc<'_>,
    wants_text: bool,
) -> Result<AssistantContent> {
    let not_json = |e: json_scan::ScanError| not_json(&at, e);
    let kind = reader.peek().map_err(not_json)?;
    if kind != Kind::Array {
        return Err(wrong_type(&at, "", kind, "a sequence"));
    }
    let mut c = AssistantContent {
        blank: true,
        ..AssistantContent::default()
    };
    read_blocks(reader, at, |_, _, e| e, &mut |block| {
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
                    c.calls.push(llm_text::tool_call_text(&name, arguments));
                }
                if let Some(op) = file_op(&name, arguments) {
                    c.file_ops.push(op);
                }
            }
            KnownBlock::Image => {}
            KnownBlock::Other => c.blank = false,
        }
    })?;
    Ok(c)
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
