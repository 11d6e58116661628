//! The Vercel AI SDK's messages (`ModelMessage`, `ai` 7) read as the core reads a
//! conversation (issue 35): a sequence it can count and cut, each message a kind, its
//! characters, its tool calls and results, its usage and stop reason given as inputs,
//! never read from the framework's fields. The core then answers in positions into the
//! caller's own array (the kept messages are the caller's objects, byte-identical) plus
//! new records (a summary) that the adapter renders in the SDK's shape.
//!
//! Each `ModelMessage` becomes one or more of the core's messages (pi's shapes, the one
//! model the core knows), each remembering its source's index:
//! - `user`: its text parts; a file part as a short label (`[file image/png a.png]`);
//! - `assistant`: reasoning as thinking, text, a tool call as a tool call (its `input`),
//!   a provider-executed call and its result (both inside the message) as text, other
//!   parts (custom items, approval requests, files) as labels; `usage` and `stopReason`
//!   from the step that produced it ([`StepInfo`]);
//! - `tool`: one tool result per `tool-result` part (its output as text: `text`, the JSON
//!   of `json`, an error's text, a denial's reason, a content list's texts); approval
//!   responses alone become a `custom` record;
//! - `system` (allowed only with `allowSystemInMessages`): a `custom` record;
//! - a message this library rendered (a summary, tagged in its `providerOptions`): the
//!   summary record it was rendered from, so a later compaction finds its marks.
//!
//! What a message counts: pi's rules where pi has them (text lengths; a
//! tool call's name plus `JSON.stringify(input)`; 4,800 per image), and for the parts pi
//! does not know: a JSON output its `JSON.stringify` length, a text file its text, any
//! other file 4,800 or what the adapter declares for its media type
//! ([`ProjectOptions::file_chars`]), a `custom` part its `providerOptions`' JSON (an
//! OpenAI compaction item carries its encrypted content there), an approval its JSON.
//! Which tool calls are file reads, writes and edits is configuration
//! ([`FileTools`]; pi's `read`, `write`, `edit` with `path` by default).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::facts::{FileOpKind, MessageFacts};
use crate::js_text::{json_stringify, json_stringify_len, new_map, utf16_len};
use crate::role::Role;
use crate::text_build::Owned;

/// The `providerOptions` key under which a summary the adapter rendered carries the
/// record it was rendered from (`{delegateContext: {record}}`), so that reading the
/// message back gives the record, marks and all.
pub const TAG: &str = "delegateContext";

/// Characters pi counts for an image.
const IMAGE_CHARS: usize = 4800;

/// Which tool calls are file operations (ADR 0299 §3's file lists): tool names per
/// operation, and the input field that holds the path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FileTools {
    /// Default `["read"]`.
    #[serde(default = "FileTools::default_read")]
    #[tsify(optional)]
    pub read: Vec<String>,
    /// Default `["write"]`.
    #[serde(default = "FileTools::default_write")]
    #[tsify(optional)]
    pub write: Vec<String>,
    /// Default `["edit"]`.
    #[serde(default = "FileTools::default_edit")]
    #[tsify(optional)]
    pub edit: Vec<String>,
    /// The input fields that hold the path, the first present wins. Default `["path"]`.
    #[serde(default = "FileTools::default_path")]
    #[tsify(optional)]
    pub path_fields: Vec<String>,
}

decode_struct!(FileTools "FileTools" {
    read: "read" => or(FileTools::default_read()),
    write: "write" => or(FileTools::default_write()),
    edit: "edit" => or(FileTools::default_edit()),
    path_fields: "pathFields" => or(FileTools::default_path()),
});

impl Default for FileTools {
    fn default() -> Self {
        FileTools {
            read: Self::default_read(),
            write: Self::default_write(),
            edit: Self::default_edit(),
            path_fields: Self::default_path(),
        }
    }
}

impl FileTools {
    fn default_read() -> Vec<String> {
        vec!["read".owned()]
    }
    fn default_write() -> Vec<String> {
        vec!["write".owned()]
    }
    fn default_edit() -> Vec<String> {
        vec!["edit".owned()]
    }
    fn default_path() -> Vec<String> {
        vec!["path".owned()]
    }

    /// The file operation of a call of `tool` with `input`, if it is one.
    fn op(&self, tool: &str, input: &Value) -> Option<(FileOpKind, Box<str>)> {
        let kind = if self.read.iter().any(|t| t == tool) {
            FileOpKind::Read
        } else if self.write.iter().any(|t| t == tool) {
            FileOpKind::Write
        } else if self.edit.iter().any(|t| t == tool) {
            FileOpKind::Edit
        } else {
            return None;
        };
        let path = self
            .path_fields
            .iter()
            .find_map(|f| input.get(f).and_then(Value::as_str))
            .filter(|p| !p.is_empty())?;
        Some((kind, path.into()))
    }
}

/// How the SDK's messages are read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ProjectOptions {
    #[serde(default)]
    #[tsify(optional)]
    pub file_tools: FileTools,
    /// Characters a file part counts, by media type (`"application/pdf"`) or its top-level
    /// type (`"audio"`); otherwise an image counts pi's 4,800, a text file its text, any
    /// other file 4,800.
    #[serde(default)]
    #[tsify(optional, type = "Record<string, number>")]
    pub file_chars: Map<String, Value>,
}

decode_struct!(ProjectOptions "ProjectOptions" {
    file_tools: "fileTools" => default,
    file_chars: "fileChars" => default,
});

/// The step that produced an assistant message: its usage and stop reason, as the SDK's
/// `StepResult` gives them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StepInfo {
    /// `finishReason`: `stop`, `length`, `tool-calls`, `error`, `content-filter`,
    /// `interrupted`, `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub finish_reason: Option<String>,
    /// `rawFinishReason` (the provider's own word).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub raw_finish_reason: Option<String>,
    /// `usage` (`inputTokens` with cached tokens included, `inputTokenDetails`,
    /// `outputTokens`, `totalTokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub usage: Option<Value>,
}

decode_struct!(StepInfo "StepInfo" {
    finish_reason: "finishReason" => default,
    raw_finish_reason: "rawFinishReason" => default,
    usage: "usage" => default,
});

impl StepInfo {
    /// pi's `stopReason` for the SDK's `finishReason`.
    pub fn stop_reason(&self) -> &'static str {
        match self.finish_reason.as_deref() {
            Some("tool-calls") => "toolUse",
            Some("length") => "length",
            Some("error") => "error",
            Some("interrupted") => "aborted",
            _ => "stop",
        }
    }

    /// pi's `usage` for the SDK's: `input` without the cached tokens, which pi counts
    /// apart; `totalTokens` as the SDK sums it (cache included), so the context's size is
    /// the same either way.
    pub fn pi_usage(&self) -> Option<Value> {
        let u = self.usage.as_ref()?;
        let n = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|x| x.is_finite());
        let details = u.get("inputTokenDetails");
        let cache_read = n(details.and_then(|d| d.get("cacheReadTokens"))).unwrap_or(0.0);
        let cache_write = n(details.and_then(|d| d.get("cacheWriteTokens"))).unwrap_or(0.0);
        let input_all = n(u.get("inputTokens"))?;
        let input = n(details.and_then(|d| d.get("noCacheTokens")))
            .unwrap_or((input_all - cache_read - cache_write).max(0.0));
        let output = n(u.get("outputTokens")).unwrap_or(0.0);
        let total = n(u.get("totalTokens")).unwrap_or(input_all + output);
        let mut m = new_map();
        for (k, v) in [
            ("input", input),
            ("output", output),
            ("cacheRead", cache_read),
            ("cacheWrite", cache_write),
            ("totalTokens", total),
        ] {
            m.insert(k.owned(), num(v));
        }
        Some(Value::Object(m))
    }
}

fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// One of the core's messages read from the SDK's: its source's index, and its facts
/// (its pi-shaped JSON in `facts.raw`, counted by this module's rules).
#[derive(Clone, Debug)]
pub struct Projected {
    pub source: usize,
    pub facts: MessageFacts,
}

fn s(text: &str) -> Value {
    Value::String(text.owned())
}

fn text_block(text: &str) -> Value {
    let mut m = new_map();
    m.insert("type".owned(), s("text"));
    m.insert("text".owned(), s(text));
    Value::Object(m)
}

fn get_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A file part's label and the characters it counts.
fn file_of(part: &Value, options: &ProjectOptions) -> (String, usize) {
    let media = get_str(part, "mediaType").unwrap_or("");
    let name = get_str(part, "filename").unwrap_or("");
    let label = if name.is_empty() {
        format!("[file {media}]")
    } else {
        format!("[file {media} {name}]")
    };
    let declared = options
        .file_chars
        .get(media)
        .or_else(|| {
            options
                .file_chars
                .get(media.split('/').next().unwrap_or(""))
        })
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite() && *x >= 0.0);
    let chars = match declared {
        Some(x) => x as usize,
        None => match part.get("data") {
            _ if media.starts_with("image") => IMAGE_CHARS,
            Some(d) if get_str(d, "type") == Some("text") => {
                get_str(d, "text").map_or(0, utf16_len)
            }
            _ => IMAGE_CHARS,
        },
    };
    (label, chars)
}

/// A tool output's text (what a summary shows of it) and its characters.
fn output_of(output: &Value, options: &ProjectOptions) -> (String, usize, bool) {
    let value = output.get("value");
    match get_str(output, "type") {
        Some(kind @ ("text" | "error-text")) => {
            let text = value.and_then(Value::as_str).unwrap_or("").owned();
            let n = utf16_len(&text);
            (text, n, kind == "error-text")
        }
        Some(kind @ ("json" | "error-json")) => {
            let text = value.map(json_stringify).unwrap_or_default();
            let n = utf16_len(&text);
            (text, n, kind == "error-json")
        }
        Some("execution-denied") => {
            let text = get_str(output, "reason")
                .unwrap_or("execution denied")
                .owned();
            let n = utf16_len(&text);
            (text, n, true)
        }
        Some("content") => {
            let mut texts = Vec::new();
            let mut chars = 0;
            for item in value
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
            {
                match get_str(item, "type") {
                    Some("text") => {
                        let t = get_str(item, "text").unwrap_or("");
                        chars += utf16_len(t);
                        texts.push(t.owned());
                    }
                    Some("custom") => chars += custom_chars(item),
                    _ => {
                        let (label, n) = file_of(item, options);
                        chars += n;
                        texts.push(label);
                    }
                }
            }
            (
                crate::text_build::Joined::joined(&texts[..], "\n"),
                chars,
                false,
            )
        }
        _ => {
            let n = json_stringify_len(output);
            (json_stringify(output), n, false)
        }
    }
}

/// A `custom` part counts its `providerOptions`' JSON (what the provider is sent).
fn custom_chars(part: &Value) -> usize {
    part.get("providerOptions").map_or(0, json_stringify_len)
}

/// The messages of `messages` (the SDK's `ModelMessage[]`, `messages[0]` the task)
/// projected (see the module docs); `steps[i]` is the step of the `i`-th assistant
/// message (absent: estimates only); `now` stamps them.
///
/// Errors: `INVALID_INPUT` at `path[i]` for a message that is not an object with one of
/// the SDK's roles.
pub fn project(
    messages: &[Value],
    steps: &[Option<StepInfo>],
    options: &ProjectOptions,
    now: f64,
    path: &str,
    first_index: usize,
) -> Result<Vec<Projected>> {
    let mut out = Vec::new();
    let mut assistants = 0;
    for (i, m) in messages.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let source = first_index + i;
        if let Some(record) = m
            .get("providerOptions")
            .and_then(|p| p.get(TAG))
            .and_then(|t| t.get("record"))
        {
            out.push(finish(record.clone(), source, None, Vec::new(), &at)?);
            continue;
        }
        let role = get_str(m, "role").ok_or_else(|| {
            Error::invalid(
                format!("{at}.role"),
                "expected one of \"system\", \"user\", \"assistant\", \"tool\"",
            )
        })?;
        match role {
            "user" | "system" => {
                let (blocks, chars) = plain_content(m.get("content"), options);
                let mut msg = new_map();
                if role == "user" {
                    msg.insert("role".owned(), s("user"));
                    msg.insert("content".owned(), Value::Array(blocks));
                } else {
                    msg.insert("role".owned(), s("custom"));
                    msg.insert("customType".owned(), s("system"));
                    msg.insert("content".owned(), Value::Array(blocks));
                    msg.insert("display".owned(), Value::Bool(false));
                }
                msg.insert("timestamp".owned(), num(now));
                out.push(finish(
                    Value::Object(msg),
                    source,
                    Some(chars),
                    Vec::new(),
                    &at,
                )?);
            }
            "assistant" => {
                let step = steps.get(assistants).cloned().flatten();
                assistants += 1;
                let (msg, chars, ops) = assistant(m.get("content"), step.as_ref(), options, now);
                out.push(finish(msg, source, Some(chars), ops, &at)?);
            }
            "tool" => {
                let parts = m.get("content").and_then(Value::as_array);
                let mut extra = 0;
                let mut extra_text = Vec::new();
                let mut results = Vec::new();
                for part in parts.map_or(&[][..], Vec::as_slice) {
                    if get_str(part, "type") != Some("tool-result") {
                        extra += json_stringify_len(part);
                        extra_text.push(json_stringify(part));
                        continue;
                    }
                    let (text, chars, is_error) =
                        output_of(part.get("output").unwrap_or(&Value::Null), options);
                    let mut r = new_map();
                    r.insert("role".owned(), s("toolResult"));
                    r.insert(
                        "toolCallId".owned(),
                        s(get_str(part, "toolCallId").unwrap_or("")),
                    );
                    r.insert(
                        "toolName".owned(),
                        s(get_str(part, "toolName").unwrap_or("")),
                    );
                    r.insert("content".owned(), Value::Array(vec![text_block(&text)]));
                    r.insert("isError".owned(), Value::Bool(is_error));
                    r.insert("timestamp".owned(), num(now));
                    results.push((Value::Object(r), chars));
                }
                if results.is_empty() {
                    let mut msg = new_map();
                    msg.insert("role".owned(), s("custom"));
                    msg.insert("customType".owned(), s("tool"));
                    msg.insert(
                        "content".owned(),
                        s(&crate::text_build::Joined::joined(&extra_text[..], "\n")),
                    );
                    msg.insert("display".owned(), Value::Bool(false));
                    msg.insert("timestamp".owned(), num(now));
                    out.push(finish(
                        Value::Object(msg),
                        source,
                        Some(extra),
                        Vec::new(),
                        &at,
                    )?);
                    continue;
                }
                let last = results.len() - 1;
                for (k, (r, chars)) in results.into_iter().enumerate() {
                    // approval responses count with the message's last result
                    let chars = if k == last { chars + extra } else { chars };
                    out.push(finish(r, source, Some(chars), Vec::new(), &at)?);
                }
            }
            _ => {
                return Err(Error::invalid(
                    format!("{at}.role"),
                    "expected one of \"system\", \"user\", \"assistant\", \"tool\"",
                ))
            }
        }
    }
    Ok(out)
}

/// A user's (or system's) content: its blocks and characters.
fn plain_content(content: Option<&Value>, options: &ProjectOptions) -> (Vec<Value>, usize) {
    match content {
        Some(Value::String(text)) => (vec![text_block(text)], utf16_len(text)),
        Some(Value::Array(parts)) => {
            let mut blocks = Vec::new();
            let mut chars = 0;
            for part in parts {
                match get_str(part, "type") {
                    Some("text") => {
                        let t = get_str(part, "text").unwrap_or("");
                        chars += utf16_len(t);
                        blocks.push(text_block(t));
                    }
                    _ => {
                        let (label, n) = file_of(part, options);
                        chars += n;
                        blocks.push(text_block(&label));
                    }
                }
            }
            (blocks, chars)
        }
        _ => (Vec::new(), 0),
    }
}

/// An assistant message: pi's shape, its characters, its file operations.
fn assistant(
    content: Option<&Value>,
    step: Option<&StepInfo>,
    options: &ProjectOptions,
    now: f64,
) -> (Value, usize, Vec<(FileOpKind, Box<str>)>) {
    let mut blocks = Vec::new();
    let mut chars = 0;
    let mut ops = Vec::new();
    // the parts read where they are (a string content is one text part)
    let one;
    let parts: &[Value] = match content {
        Some(Value::String(text)) => {
            let mut m = new_map();
            m.insert("type".owned(), s("text"));
            m.insert("text".owned(), s(text));
            one = [Value::Object(m)];
            &one
        }
        Some(Value::Array(parts)) => parts,
        _ => &[],
    };
    for part in parts {
        match get_str(part, "type") {
            Some("text") => {
                let t = get_str(part, "text").unwrap_or("");
                chars += utf16_len(t);
                blocks.push(text_block(t));
            }
            Some("reasoning") => {
                let t = get_str(part, "text").unwrap_or("");
                chars += utf16_len(t);
                let mut m = new_map();
                m.insert("type".owned(), s("thinking"));
                m.insert("thinking".owned(), s(t));
                blocks.push(Value::Object(m));
            }
            Some("tool-call") if part.get("providerExecuted") != Some(&Value::Bool(true)) => {
                let name = get_str(part, "toolName").unwrap_or("");
                let input = match part.get("input") {
                    Some(v @ Value::Object(_)) => v.clone(),
                    Some(Value::String(text)) => crate::js_text::parse_json(text)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| {
                            let mut m = new_map();
                            m.insert("input".owned(), s(text));
                            Value::Object(m)
                        }),
                    Some(other) => {
                        let mut m = new_map();
                        m.insert("input".owned(), other.clone());
                        Value::Object(m)
                    }
                    None => Value::Object(new_map()),
                };
                chars += utf16_len(name) + json_stringify_len(&input);
                ops.extend(options.file_tools.op(name, &input));
                let mut m = new_map();
                m.insert("type".owned(), s("toolCall"));
                m.insert("id".owned(), s(get_str(part, "toolCallId").unwrap_or("")));
                m.insert("name".owned(), s(name));
                m.insert("arguments".owned(), input);
                blocks.push(Value::Object(m));
            }
            Some("tool-call") => {
                // a provider-executed call: its result is in this message too
                let name = get_str(part, "toolName").unwrap_or("");
                let input = part.get("input").map(json_stringify).unwrap_or_default();
                chars += utf16_len(name) + utf16_len(&input);
                blocks.push(text_block(&format!("[{name} {input}]")));
            }
            Some("tool-result") => {
                let (text, n, _) = output_of(part.get("output").unwrap_or(&Value::Null), options);
                chars += n;
                blocks.push(text_block(&text));
            }
            Some("custom") => chars += custom_chars(part),
            Some("file" | "reasoning-file") => {
                let (label, n) = file_of(part, options);
                chars += n;
                blocks.push(text_block(&label));
            }
            _ => chars += json_stringify_len(part),
        }
    }
    let mut msg = new_map();
    msg.insert("role".owned(), s("assistant"));
    msg.insert("content".owned(), Value::Array(blocks));
    msg.insert("api".owned(), s("ai-sdk"));
    msg.insert("provider".owned(), s(""));
    msg.insert("model".owned(), s(""));
    let stop = step.map_or("stop", StepInfo::stop_reason);
    msg.insert("stopReason".owned(), s(stop));
    if let Some(usage) = step.and_then(StepInfo::pi_usage) {
        msg.insert("usage".owned(), usage);
    }
    msg.insert("timestamp".owned(), num(now));
    (Value::Object(msg), chars, ops)
}

/// The facts of one projected message, counted by this module (`chars`; `None`: as the
/// core reads it, for a record this library wrote) with its file operations. A message
/// this module wrote is well formed by construction: its facts are read from the value
/// itself, not from its text again.
fn finish(
    message: Value,
    source: usize,
    chars: Option<usize>,
    ops: Vec<(FileOpKind, Box<str>)>,
    at: &str,
) -> Result<Projected> {
    let text = json_stringify(&message);
    let Some(chars) = chars else {
        let facts = MessageFacts::from_json(&text, at)?;
        return Ok(Projected { source, facts });
    };
    let role = match get_str(&message, "role") {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("toolResult") => Role::ToolResult,
        _ => Role::Custom,
    };
    let blocks = message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let tool_call_ids: Vec<Box<str>> = blocks
        .iter()
        .filter(|b| get_str(b, "type") == Some("toolCall"))
        .map(|b| get_str(b, "id").unwrap_or("").into())
        .collect();
    let blank = |b: &Value, key: &str| get_str(b, key).is_none_or(crate::js_whitespace::is_blank);
    let empty_assistant = role == Role::Assistant
        && tool_call_ids.is_empty()
        && blocks.iter().all(|b| match get_str(b, "type") {
            Some("text") => blank(b, "text"),
            Some("thinking") => blank(b, "thinking"),
            _ => true,
        });
    let usage_tokens = message.get("usage").map(|u| {
        let n = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let total = n("totalTokens");
        if total != 0.0 {
            total
        } else {
            n("input") + n("output") + n("cacheRead") + n("cacheWrite")
        }
    });
    let facts = MessageFacts {
        role,
        tokens: chars.div_ceil(4) as u64,
        usage_tokens,
        stop_reason: get_str(&message, "stopReason").map(crate::stop_reason::StopReason::parse),
        tool_call_ids,
        answers: get_str(&message, "toolCallId")
            .filter(|_| role == Role::ToolResult)
            .map(Into::into),
        empty_assistant,
        file_ops: ops,
        summary: None,
        raw: crate::facts::RawText::whole(text),
    };
    Ok(Projected { source, facts })
}
#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    fn one(m: Value, options: &ProjectOptions) -> Vec<Projected> {
        project(&[m], &[None], options, 5.0, "messages", 0).unwrap()
    }

    #[test]
    fn what_each_part_counts() {
        let o = ProjectOptions::default();
        let user = one(
            json!({ "role": "user", "content": [
            { "type": "text", "text": "look at these" },
            { "type": "file", "mediaType": "image/png", "data": { "type": "data", "data": "iVBOR" } },
            { "type": "file", "mediaType": "text/plain", "data": { "type": "text", "text": "twelve chars" } },
            { "type": "file", "mediaType": "application/pdf", "data": { "type": "url", "url": "https://x/a.pdf" }, "filename": "a.pdf" }
        ] }),
            &o,
        );
        assert_eq!(user.len(), 1);
        assert_eq!(user[0].facts.role, Role::User);
        assert_eq!(
            user[0].facts.tokens,
            (13 + 4800 + 12 + 4800usize).div_ceil(4) as u64
        );
        assert!(user[0]
            .facts
            .raw
            .as_str()
            .contains("[file application/pdf a.pdf]"));
        // a declared size by media type, or by its top-level type
        let declared = ProjectOptions {
            file_chars: json!({ "application/pdf": 40_000, "audio": 100 })
                .as_object()
                .unwrap()
                .clone(),
            ..o.clone()
        };
        let pdf = one(
            json!({ "role": "user", "content": [{ "type": "file", "mediaType": "application/pdf", "data": { "type": "url", "url": "u" } }] }),
            &declared,
        );
        assert_eq!(pdf[0].facts.tokens, 10_000);
        let audio = one(
            json!({ "role": "user", "content": [{ "type": "file", "mediaType": "audio/mpeg", "data": { "type": "data", "data": "x" } }] }),
            &declared,
        );
        assert_eq!(audio[0].facts.tokens, 25);

        let assistant = one(
            json!({ "role": "assistant", "content": [
            { "type": "reasoning", "text": "think" },
            { "type": "text", "text": "Reading." },
            { "type": "tool-call", "toolCallId": "c1", "toolName": "read", "input": { "path": "a.ts" } },
            { "type": "custom", "kind": "openai.compaction", "providerOptions": { "openai": { "encryptedContent": "xyz" } } },
            { "type": "tool-call", "toolCallId": "c2", "toolName": "web_search", "input": { "q": 1 }, "providerExecuted": true },
            { "type": "tool-result", "toolCallId": "c2", "toolName": "web_search", "output": { "type": "json", "value": { "hits": 1 } } }
        ] }),
            &o,
        );
        let f = &assistant[0].facts;
        let custom = json_stringify_len(&json!({ "openai": { "encryptedContent": "xyz" } }));
        let want = 5 + 8 + (4 + 13) + custom + (10 + 7) + 10;
        assert_eq!(f.tokens, want.div_ceil(4) as u64);
        // only the call a tool result will answer is a tool call; the provider's ran inside
        assert_eq!(f.tool_call_ids, vec!["c1".into()]);
        assert_eq!(f.file_ops, vec![(FileOpKind::Read, "a.ts".into())]);
    }

    #[test]
    fn a_tool_message_is_one_result_per_part() {
        let o = ProjectOptions::default();
        let tool = one(
            json!({ "role": "tool", "content": [
            { "type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": { "type": "text", "value": "file text" } },
            { "type": "tool-result", "toolCallId": "c2", "toolName": "grep", "output": { "type": "error-json", "value": { "code": "E" } } },
            { "type": "tool-approval-response", "approvalId": "a1", "approved": false }
        ] }),
            &o,
        );
        assert_eq!(tool.len(), 2);
        assert!(tool
            .iter()
            .all(|p| p.source == 0 && p.facts.role == Role::ToolResult));
        assert_eq!(tool[0].facts.answers.as_deref(), Some("c1"));
        assert_eq!(tool[0].facts.tokens, 3);
        let approval = json_stringify_len(
            &json!({ "type": "tool-approval-response", "approvalId": "a1", "approved": false }),
        );
        assert_eq!(tool[1].facts.tokens, (12 + approval).div_ceil(4) as u64);
        assert!(tool[1].facts.raw.as_str().contains("\"isError\":true"));
        // approvals alone
        let alone = one(
            json!({ "role": "tool", "content": [{ "type": "tool-approval-response", "approvalId": "a1", "approved": true }] }),
            &o,
        );
        assert_eq!(alone[0].facts.role, Role::Custom);
    }

    #[test]
    fn file_tools_are_configuration() {
        let o = ProjectOptions {
            file_tools: FileTools {
                read: vec!["readFile".into()],
                write: vec!["save".into()],
                edit: vec![],
                path_fields: vec!["file_path".into(), "path".into()],
            },
            ..ProjectOptions::default()
        };
        let a = one(
            json!({ "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "c1", "toolName": "readFile", "input": { "file_path": "a.ts" } },
            { "type": "tool-call", "toolCallId": "c2", "toolName": "save", "input": { "path": "b.ts" } },
            { "type": "tool-call", "toolCallId": "c3", "toolName": "read", "input": { "path": "c.ts" } }
        ] }),
            &o,
        );
        assert_eq!(
            a[0].facts.file_ops,
            vec![
                (FileOpKind::Read, "a.ts".into()),
                (FileOpKind::Write, "b.ts".into())
            ]
        );
    }

    #[test]
    fn steps_give_usage_and_stop_reason_and_a_rendered_summary_reads_back_as_its_record() {
        let step: StepInfo = crate::decode::decode_at(json!({ "finishReason": "tool-calls",
            "usage": { "inputTokens": 1000, "inputTokenDetails": { "noCacheTokens": 200, "cacheReadTokens": 700, "cacheWriteTokens": 100 }, "outputTokens": 50, "totalTokens": 1050 } }), "step").unwrap();
        let msgs = [
            json!({ "role": "user", "content": "brief" }),
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "a" }] }),
            json!({ "role": "user", "content": [{ "type": "text", "text": "rendered" }],
                "providerOptions": { "delegateContext": { "record": { "role": "compactionSummary", "summary": "## Goal", "tokensBefore": 9000, "timestamp": 1 } } } }),
        ];
        let p = project(
            &msgs,
            &[Some(step)],
            &ProjectOptions::default(),
            0.0,
            "messages",
            7,
        )
        .unwrap();
        assert_eq!(p.iter().map(|p| p.source).collect::<Vec<_>>(), [7, 8, 9]);
        assert_eq!(p[1].facts.usage_tokens, Some(1050.0));
        assert_eq!(
            p[1].facts.stop_reason,
            Some(crate::stop_reason::StopReason::ToolUse)
        );
        assert_eq!(p[2].facts.role, Role::CompactionSummary);
        let bad = project(
            &[json!({ "role": "robot" })],
            &[],
            &ProjectOptions::default(),
            0.0,
            "messages",
            0,
        )
        .unwrap_err();
        assert!(
            matches!(bad, Error::InvalidInput { ref path, .. } if path == "messages[0].role"),
            "{bad:?}"
        );
    }
}
