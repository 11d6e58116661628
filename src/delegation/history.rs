//! ADR 0279 clause 3 (history reconstruction is a pure function) and clause 8 (read
//! counting), with host-contract §8's conversion rules.
//!
//! - [`select_chain_rows`]: the rows a chain's delegate wrote (`parentToolCallId` in the
//!   chain, same normalised agent name), in transcript order.
//! - [`chain_brief`] / [`objective_from_args`]: the original task and the one-line label.
//! - [`chain_rows_to_messages`]: rows → `AgentMessage[]` on the delegate's own binding.
//! - [`count_chain_reads`]: files and lines of the read-only tools.
//!
//! Duplicate rows: the host rewrites a row in place when it settles, so a transcript may
//! hold two copies with the same `id`; the later copy wins, at the first copy's place.
//! A second tool row with a `toolCallId` already seen (under another row id) is skipped,
//! so the converted history never holds two calls with one id (providers reject that).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::js_text::json_stringify;
use tsify::Tsify;

use crate::message::{
    AgentMessage, AssistantMessage, Content, ContentBlock, Extra, ImageBlock, ThinkingBlock,
    ToolCallBlock, ToolResultMessage, Usage,
};
use crate::transcript::{normalize_agent_name, normalize_tool_name, RowRole, UiMessage};

/// Tools whose rows count as reads (after [`normalize_tool_name`]).
pub const READ_ONLY_TOOLS: [&str; 4] = ["read", "glob", "grep", "browser_preview"];
/// The result of a tool row still `running` when the transcript was written.
pub const INTERRUPTED_TOOL_RESULT: &str =
    "[tool call was interrupted before a result was recorded]";
/// The result of a settled tool row that recorded nothing.
pub const MISSING_TOOL_RESULT: &str = "[no tool result recorded]";

/// Which chain to select: its Task call ids and its agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainSelector {
    /// Every Task `toolCallId` on the chain, oldest first.
    pub tool_call_ids: Vec<String>,
    /// The chain's agent (compared after [`normalize_agent_name`]).
    pub agent: String,
}

/// The delegate's own provider/model binding, stamped on every rebuilt assistant message
/// (a pinned delegation model is not the session model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ProviderBinding {
    /// `provider` of the assistant messages (the providerId).
    pub provider: String,
    /// `model` of the assistant messages (the modelId).
    pub model: String,
    /// `api` of the assistant messages, when the host knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub api: Option<String>,
    /// A `thinkingSignature` to put on every replayed thinking block (e.g.
    /// `"reasoning_content"` for providers that need it); none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub thinking_signature: Option<String>,
}

/// What a chain's read-only tools read (clause 8).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainReads {
    /// Targets (`path`, else `file_path`, else `pattern`), deduplicated, first-seen order.
    pub files: Vec<String>,
    /// Lines of the read-only tools' results.
    pub lines: u64,
}

impl ChainReads {
    /// Add another run's reads: files merged in first-seen order, lines summed.
    pub fn merge(&mut self, other: &ChainReads) {
        for f in &other.files {
            if !self.files.contains(f) {
                self.files.push(f.clone());
            }
        }
        self.lines = self.lines.saturating_add(other.lines);
    }
}

/// The rows in order with duplicate ids collapsed: the later copy wins, at the first
/// copy's place. Rows are borrowed.
pub fn dedupe_rows<'a>(rows: impl IntoIterator<Item = &'a UiMessage>) -> Vec<&'a UiMessage> {
    let mut out: Vec<&UiMessage> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for row in rows {
        match at.get(row.id.as_str()) {
            Some(&i) => out[i] = row,
            None => {
                at.insert(row.id.as_str(), out.len());
                out.push(row);
            }
        }
    }
    out
}

/// Clause 2/3: every row whose `parentToolCallId` is one of the chain's calls and whose
/// `agentName` (normalised) is the chain's agent, in transcript order, duplicates
/// collapsed. Task rows themselves carry no `parentToolCallId` and are never selected.
pub fn select_chain_rows(rows: &[UiMessage], chain: &ChainSelector) -> Vec<UiMessage> {
    let calls: HashSet<&str> = chain.tool_call_ids.iter().map(String::as_str).collect();
    let agent = normalize_agent_name(&chain.agent);
    let in_chain = rows.iter().filter(|r| {
        r.parent_tool_call_id
            .as_deref()
            .is_some_and(|p| calls.contains(p))
    });
    dedupe_rows(in_chain)
        .into_iter()
        .filter(|r| {
            r.agent_name
                .as_deref()
                .is_some_and(|a| normalize_agent_name(a) == agent)
        })
        .cloned()
        .collect()
}

/// The id a Task row is known by: its `toolCallId`, else its row `id`.
pub fn task_call_id(row: &UiMessage) -> &str {
    match row.tool_call_id.as_deref() {
        Some(id) if !id.trim().is_empty() => id,
        _ => &row.id,
    }
}

fn str_field<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn trimmed_nonempty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The brief: the Task row of `first_tool_call_id` (later copy wins), its
/// `toolArgs.task` trimmed. `None` when the row, its arguments or the task are missing.
pub fn chain_brief(rows: &[UiMessage], first_tool_call_id: &str) -> Option<String> {
    let row = rows
        .iter()
        .rev()
        .find(|r| r.is_task_row() && task_call_id(r) == first_tool_call_id)?;
    trimmed_nonempty(str_field(&row.tool_args_object()?, "task"))
}

/// The one-line objective of a Task call: `description` if non-blank, else `task`
/// (both trimmed); `""` when neither.
pub fn objective_from_args(args: &Map<String, Value>) -> String {
    trimmed_nonempty(str_field(args, "description"))
        .or_else(|| trimmed_nonempty(str_field(args, "task")))
        .unwrap_or_default()
}

pub use crate::transcript::iso_to_ms;

/// pi's zero usage (with a zero `cost`).
pub fn zero_usage() -> Usage {
    let mut extra = Extra::new();
    extra.insert(
        "cost".into(),
        serde_json::json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}),
    );
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
        api: binding.api.clone(),
        provider: Some(binding.provider.clone()),
        model: Some(binding.model.clone()),
        usage: Some(zero_usage()),
        stop_reason: Some("stop".into()),
        error_message: None,
        timestamp,
        extra: Extra::new(),
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
                .into_iter()
                .flatten()
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
                                extra: Extra::new(),
                            }));
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(Value::String(s)) => {
            if !s.trim().is_empty() {
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
        extra: Extra::new(),
    }
}

/// Clause 3: a chain's rows → provider messages on the delegate's own binding.
///
/// - user row: a new turn (blank ones skipped); system rows are not replayed;
/// - assistant row: dropped when failed (`status:"error"`, `isError`, `error`), else
///   thinking then text, `stopReason:"stop"`; it carries the tool calls that follow;
/// - tool row (needs `toolCallId` and `toolName`): adds a `toolCall` to its carrier
///   (an empty one with `stopReason:"toolUse"` is synthesised for an orphan, or after a
///   dropped failed assistant) and emits its `toolResult`;
/// - assistants left with no content are dropped at the end.
///
/// `timestamp` is `createdAt` parsed ([`iso_to_ms`]), omitted when unparseable.
pub fn chain_rows_to_messages(rows: &[UiMessage], binding: &ProviderBinding) -> Vec<AgentMessage> {
    let mut messages: Vec<AgentMessage> = Vec::new();
    let mut carrier: Option<usize> = None;
    let mut seen_calls: HashSet<&str> = HashSet::new();
    for row in dedupe_rows(rows) {
        let timestamp = row.created_at.as_deref().and_then(iso_to_ms);
        match row.role {
            RowRole::User => {
                carrier = None;
                if row.content.trim().is_empty() {
                    continue;
                }
                messages.push(AgentMessage::user_text(row.content.clone(), timestamp));
            }
            RowRole::Assistant => {
                carrier = None;
                if is_failed_assistant_row(row) {
                    continue;
                }
                let mut a = assistant(binding, timestamp);
                a.usage = Some(usage_from_row(row.usage.as_ref()));
                if let Some(t) = row.thinking.as_deref().filter(|t| !t.trim().is_empty()) {
                    a.content.push(ContentBlock::Thinking(ThinkingBlock {
                        thinking: t.to_string(),
                        thinking_signature: binding.thinking_signature.clone(),
                        redacted: None,
                        extra: Extra::new(),
                    }));
                }
                if !row.content.trim().is_empty() {
                    a.content.push(ContentBlock::text(row.content.clone()));
                }
                carrier = Some(messages.len());
                messages.push(AgentMessage::Assistant(a));
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
                let at = match carrier {
                    Some(i) => i,
                    None => {
                        let mut a = assistant(binding, timestamp);
                        a.stop_reason = Some("toolUse".into());
                        messages.push(AgentMessage::Assistant(a));
                        carrier = Some(messages.len() - 1);
                        messages.len() - 1
                    }
                };
                if let Some(AgentMessage::Assistant(a)) = messages.get_mut(at) {
                    a.content.push(ContentBlock::ToolCall(ToolCallBlock {
                        id: call_id.to_string(),
                        name: name.to_string(),
                        arguments: Value::Object(row.tool_args_object().unwrap_or_default()),
                        thought_signature: None,
                        extra: Extra::new(),
                    }));
                    a.stop_reason = Some("toolUse".into());
                }
                messages.push(AgentMessage::ToolResult(tool_result_message(
                    row, timestamp,
                )));
            }
            RowRole::System => {}
        }
    }
    messages.retain(|m| !matches!(m, AgentMessage::Assistant(a) if a.content.is_empty()));
    messages
}

/// The text a read-only tool row produced: a string result, or the text blocks of
/// `{content: [...]}` joined with `\n`, or `{text}`.
fn read_result_text(row: &UiMessage) -> Option<String> {
    match row.tool_result.as_ref()? {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => {
            if let Some(Value::Array(blocks)) = m.get("content") {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                Some(texts.join("\n"))
            } else {
                m.get("text").and_then(Value::as_str).map(str::to_string)
            }
        }
        _ => None,
    }
}

/// The target a read-only tool row read: `toolArgs.path`, else `file_path`, else
/// `pattern` (the first that is a string), trimmed; `None` when blank.
pub fn read_target(row: &UiMessage) -> Option<String> {
    let args = row.tool_args_object()?;
    // `path || file_path || pattern`: a blank field falls through to the next
    ["path", "file_path", "pattern"]
        .iter()
        .find_map(|k| trimmed_nonempty(str_field(&args, k)))
}

/// Whether a row is a read-only tool row (clause 8).
pub fn is_read_row(row: &UiMessage) -> bool {
    row.role == RowRole::Tool
        && row
            .tool_name
            .as_deref()
            .is_some_and(|n| READ_ONLY_TOOLS.contains(&normalize_tool_name(n).as_str()))
}

/// Clause 8: files and lines of the read-only tool rows among `rows` (pass a chain's or
/// a run's rows, e.g. [`select_chain_rows`]'s output). Write-tool targets are not
/// counted. Every read row counts its lines (result text split on `\n`; empty: 0).
pub fn count_chain_reads(rows: &[UiMessage]) -> ChainReads {
    let mut reads = ChainReads::default();
    for row in dedupe_rows(rows) {
        if !is_read_row(row) {
            continue;
        }
        if let Some(t) = read_target(row) {
            if !reads.files.contains(&t) {
                reads.files.push(t);
            }
        }
        let lines = match read_result_text(row) {
            Some(t) if !t.is_empty() => t.split('\n').count() as u64,
            _ => 0,
        };
        reads.lines = reads.lines.saturating_add(lines);
    }
    reads
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
    fn iso_dates_parse_like_date_parse() {
        assert_eq!(iso_to_ms("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(iso_to_ms("2024-03-01T12:30:15.250Z"), Some(1709296215250.0));
        assert_eq!(
            iso_to_ms("2024-03-01T14:30:15.250+02:00"),
            Some(1709296215250.0)
        );
        assert_eq!(iso_to_ms("2024-03-01"), Some(1709251200000.0));
        assert_eq!(iso_to_ms("yesterday"), None);
        assert_eq!(iso_to_ms("2024-13-01T00:00Z"), None);
        assert_eq!(iso_to_ms("2024-1"), None);
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
        let ms = chain_rows_to_messages(&rows, &binding());
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

    #[test]
    fn selection_and_reads() {
        let rows = rows_from_value(
            json!([
                {"id": "t1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolArgs": {"agent": "Explorer", "task": "  look  "}},
                {"id": "r1", "role": "tool", "toolName": "Read", "toolCallId": "r1", "toolArgs": {"path": " a.rs "}, "toolResult": "1\n2\n3", "parentToolCallId": "t1", "agentName": "explorer.md"},
                {"id": "r2", "role": "tool", "toolName": "glob", "toolCallId": "r2", "toolArgs": {"pattern": "*.rs"}, "toolResult": {"text": ""}, "parentToolCallId": "t1", "agentName": "Explorer"},
                {"id": "r3", "role": "tool", "toolName": "write", "toolCallId": "r3", "toolArgs": {"path": "b.rs"}, "toolResult": "ok", "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "r4", "role": "tool", "toolName": "read", "toolCallId": "r4", "toolArgs": {"file_path": "a.rs"}, "toolResult": {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "", "mimeType": "x"}, {"type": "text", "text": "b"}]}, "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "x1", "role": "tool", "toolName": "read", "toolCallId": "x1", "toolArgs": {"path": "other.rs"}, "toolResult": "1", "parentToolCallId": "t1", "agentName": "coder"},
                {"id": "x2", "role": "tool", "toolName": "read", "toolCallId": "x2", "toolArgs": {"path": "other.rs"}, "toolResult": "1", "parentToolCallId": "t9", "agentName": "explorer"},
                {"id": "r1", "role": "tool", "toolName": "Read", "toolCallId": "r1", "toolArgs": {"path": " a.rs "}, "toolResult": "1\n2\n3\n4", "parentToolCallId": "t1", "agentName": "explorer.md"},
            ]),
            "rows",
        )
        .unwrap();
        let sel = select_chain_rows(
            &rows,
            &ChainSelector {
                tool_call_ids: vec!["t1".into()],
                agent: "explorer".into(),
            },
        );
        let ids: Vec<&str> = sel.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["r1", "r2", "r3", "r4"]);
        assert_eq!(sel[0].tool_result, Some(json!("1\n2\n3\n4")));
        let reads = count_chain_reads(&sel);
        assert_eq!(reads.files, ["a.rs", "*.rs"]);
        assert_eq!(reads.lines, 6); // 4 (later copy of r1) + 0 (empty) + 2
        assert_eq!(chain_brief(&rows, "t1").as_deref(), Some("look"));
        assert_eq!(chain_brief(&rows, "t2"), None);
    }

    #[test]
    fn stringify_prints_numbers_like_javascript() {
        assert_eq!(
            json_stringify(&json!({"a": 1.5, "b": [1, "x\n"], "c": null})),
            r#"{"a":1.5,"b":[1,"x\n"],"c":null}"#
        );
        assert_eq!(json_stringify(&json!(1e21)), "1e+21");
    }
}
