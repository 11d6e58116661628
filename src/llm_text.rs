//! How pi-agent-core 0.85.1 writes a message as text for a summary request
//! (`convertToLlm` + `serializeConversation`, host-contract §3, used by ADR 0299 clause
//! 3's compaction): each role's parts (`[User]: `, `[Assistant thinking]: `, ...), the
//! wrappers a summary is shown in, a tool call's line, a bash execution's text, and tool
//! results cut to 2,000 characters with pi's marker. [`crate::facts`] reads the values
//! and words each message's parts with these; [`crate::compaction::request`] builds the
//! request from the parts.

use serde_json::Value;

use crate::js_text::{self, utf16_prefix};
use crate::json_scan::{Kind, Span};
use crate::text_build::Append;
use crate::text_build::Joined;
use crate::text_build::Owned;

/// pi's `COMPACTION_SUMMARY_PREFIX` / `_SUFFIX` (how a summary is shown to the model).
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// pi's `BRANCH_SUMMARY_PREFIX` / `_SUFFIX`.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// pi's `TOOL_RESULT_MAX_CHARS` for serialized tool results.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// pi's `truncateForSummary` at [`TOOL_RESULT_MAX_CHARS`] (or any `max`, see
/// [`Truncation::replace_max`]) for a text whose length in UTF-16 units is already known:
/// the first `max` characters and a count of the rest. (JavaScript's `slice` may split a
/// surrogate pair; a Rust string cannot hold half of one, so the cut moves one unit
/// earlier there. The count is JavaScript's.)
pub fn truncate_for_summary_units(text: &str, units: usize) -> Truncation<'_> {
    Truncation { text, units }
}

/// A text and its length, to be cut as pi's `truncateForSummary` cuts.
pub struct Truncation<'a> {
    text: &'a str,
    units: usize,
}

impl Truncation<'_> {
    /// The text cut to `max` units with pi's marker.
    pub fn replace_max(&self, max: usize) -> String {
        if self.units <= max {
            return self.text.owned();
        }
        let (head, _) = utf16_prefix(self.text, max);
        format!(
            "{head}\n\n[... {} more characters truncated]",
            self.units - max
        )
    }
}

impl std::fmt::Display for Truncation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.replace_max(TOOL_RESULT_MAX_CHARS))
    }
}

// ---------------------------------------------------------------- a message's parts

/// A user-side part (`[User]: text`); none for an empty text, as pi skips it.
pub fn user_part(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| format!("[User]: {text}"))
}

/// A tool result's part, its text cut to [`TOOL_RESULT_MAX_CHARS`]; none when the text is
/// empty. `units` is the whole text's length in UTF-16 units (`text` may hold only the
/// prefix that the cut keeps).
pub fn tool_result_part(text: &str, units: usize) -> Option<String> {
    (units > 0).then(|| format!("[Tool result]: {}", truncate_for_summary_units(text, units)))
}

/// A `compactionSummary`'s part: the summary in pi's wrappers, shown as the user's.
pub fn compaction_summary_part(summary: &str) -> String {
    format!("[User]: {COMPACTION_SUMMARY_PREFIX}{summary}{COMPACTION_SUMMARY_SUFFIX}")
}

/// A `branchSummary`'s part: the summary in pi's wrappers, shown as the user's.
pub fn branch_summary_part(summary: &str) -> String {
    format!("[User]: {BRANCH_SUMMARY_PREFIX}{summary}{BRANCH_SUMMARY_SUFFIX}")
}

/// An assistant's parts, in pi's order: its thinking (if any), its text blocks' texts
/// (`texts`: `None` when it has no text block), its tool calls' lines (if any).
pub fn assistant_parts(
    thinking: &[String],
    texts: Option<&[String]>,
    calls: &[String],
) -> Vec<String> {
    let mut parts = Vec::new();
    if !thinking.is_empty() {
        parts.push(format!("[Assistant thinking]: {}", thinking.joined("\n")));
    }
    if let Some(texts) = texts {
        parts.push(format!("[Assistant]: {}", texts.joined("\n")));
    }
    if !calls.is_empty() {
        parts.push(format!("[Assistant tool calls]: {}", calls.joined("; ")));
    }
    parts
}

/// pi's tool call line: `name(k=JSON.stringify(v), ...)` over `Object.entries(arguments)`.
/// The arguments' text was written by `JSON.stringify`, so every value's own text is
/// already `JSON.stringify(v)` and the keys are in JavaScript's property order.
pub fn tool_call_text(name: &str, arguments: Span<'_>) -> String {
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
                    js_text::json_stringify(&Value::String(c.to_string()))
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    format!("{name}({})", args.joined(", "))
}

/// The fields of a `bashExecution` besides `command` and `output` that its text shows,
/// each as the JSON text of its value (`None` when absent or `null`).
pub struct BashStatus<'a> {
    pub cancelled: Option<&'a str>,
    pub exit_code: Option<&'a str>,
    pub truncated: Option<&'a str>,
    pub full_output_path: Option<&'a str>,
}

/// pi's `bashExecutionToText`.
pub fn bash_execution_text(command: &str, output: &str, f: &BashStatus<'_>) -> String {
    let mut text = format!("Ran `{command}`\n");
    if !output.is_empty() {
        text.append(&format!("```\n{output}\n```"));
    } else {
        text.append("(no output)");
    }
    let value = |v: Option<&str>| v.and_then(|text| js_text::parse_json(text).ok());
    let truthy = |v: Option<&str>| value(v).is_some_and(|v| js_text::js_truthy(&v));
    if truthy(f.cancelled) {
        text.append("\n\n(command cancelled)");
    } else if let Some(code) = f.exit_code {
        let shown = match value(Some(code)) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_f64() == Some(0.0) => None,
            Some(Value::Number(n)) => {
                Some(js_text::js_number_to_string(n.as_f64().unwrap_or(f64::NAN)))
            }
            Some(Value::String(s)) => Some(s),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(_) => Some("[object Object]".owned()),
        };
        if let Some(c) = shown {
            text.append(&format!("\n\nCommand exited with code {c}"));
        }
    }
    if truthy(f.truncated) {
        if let Some(p) = value(f.full_output_path).filter(js_text::js_truthy) {
            let p = match p {
                Value::String(s) => s,
                other => js_text::json_stringify(&other),
            };
            text.append(&format!("\n\n[Output truncated. Full output: {p}]"));
        }
    }
    text
}
