//! Only a delegate's final report ever enters the parent's context (seed 001, the
//! subagent-context document; host-contract §6–7; ADR 0279's boundary).
//!
//! - Live path, [`subagent_result_for_parent`]: one raw subagent tool result (JSON
//!   `{success, data: {response, ...}}`) becomes `data.response`; text that does not parse
//!   falls back to the raw text with a warning, never an error.
//! - Replay path, [`build_parent_context`]: persisted rows become the parent's model
//!   context. Rows with `parentToolCallId` (written by a delegate) never enter it. A
//!   subagent/Task row contributes only the report: the stored parsed report first, the
//!   raw response for old rows. Order stays user → assistant (with tool calls) → tool
//!   results with matching ids.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

use crate::message::{
    AgentMessage, AssistantMessage, Content, ContentBlock, Extra, ToolCallBlock, ToolResultMessage,
};
use crate::transcript::{RowRole, UiMessage};

/// Something the library noticed but did not fail on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ContextWarning {
    /// Stable code, e.g. `UNPARSEABLE_SUBAGENT_RESULT`.
    pub code: String,
    /// What happened, for logs.
    pub message: String,
    /// The row it concerns, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub row_id: Option<String>,
    /// The row's index in the input, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub index: Option<usize>,
}

/// The text a subagent result contributes to the parent, with a warning when the raw
/// result could not be parsed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ParentReport {
    /// `data.response` of a `{success: true, data: {response}}` result, else the raw text.
    pub text: String,
    /// Whether `text` is the extracted report (true) or the raw result (false).
    pub extracted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub warning: Option<ContextWarning>,
}

/// The parent's model context rebuilt from persisted rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ParentContext {
    pub messages: Vec<AgentMessage>,
    pub warnings: Vec<ContextWarning>,
}

/// Code of the warning for a subagent result that is not valid JSON.
pub const UNPARSEABLE_SUBAGENT_RESULT: &str = "UNPARSEABLE_SUBAGENT_RESULT";

/// Live path (seed 001, "Live Context"): the text one raw subagent tool result
/// contributes to the parent's context.
pub fn subagent_result_for_parent(raw: &str) -> ParentReport {
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => match report_of_result_json(&v) {
            Some(text) => ParentReport { text, extracted: true, warning: None },
            None => ParentReport { text: raw.to_string(), extracted: false, warning: None },
        },
        Err(e) => ParentReport {
            text: raw.to_string(),
            extracted: false,
            warning: Some(ContextWarning {
                code: UNPARSEABLE_SUBAGENT_RESULT.into(),
                message: format!("failed to parse subagent result for context ({e}); used the raw result ({} chars)", crate::js_text::utf16_len(raw)),
                row_id: None,
                index: None,
            }),
        },
    }
}

/// `data.response` of `{success: truthy, data: {response: non-empty string}}`.
fn report_of_result_json(v: &Value) -> Option<String> {
    let success = match v.get("success")? {
        Value::Bool(b) => *b,
        Value::Null => false,
        _ => true,
    };
    if !success {
        return None;
    }
    match v.get("data")?.get("response")? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// Tool names whose results are delegate reports.
pub fn is_subagent_tool(normalized_name: &str) -> bool {
    matches!(normalized_name, "task" | "subagent")
}

fn non_empty_str(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// The stored parsed report of a subagent row, if the host stored one: `subagent.response`
/// on the row (the seed's `toolCall.subagent.response`), on its `toolResult`, or
/// `toolResult.details.report` / `.response`.
pub fn stored_report(row: &UiMessage) -> Option<String> {
    let tr = row.tool_result.as_ref();
    non_empty_str(row.extra.get("subagent").and_then(|s| s.get("response")))
        .or_else(|| {
            non_empty_str(
                tr.and_then(|t| t.get("subagent"))
                    .and_then(|s| s.get("response")),
            )
        })
        .or_else(|| {
            non_empty_str(
                tr.and_then(|t| t.get("details"))
                    .and_then(|d| d.get("report")),
            )
        })
        .or_else(|| {
            non_empty_str(
                tr.and_then(|t| t.get("details"))
                    .and_then(|d| d.get("response")),
            )
        })
}

/// The tool result of a row as content blocks: `toolResult.content` (text and image
/// blocks), else a string result, else `toolResult.text`, else the JSON of the result,
/// else the row's own `content`. `None` when nothing was recorded.
pub fn tool_result_blocks(row: &UiMessage) -> Option<Vec<ContentBlock>> {
    match row.tool_result.as_ref() {
        Some(Value::String(s)) => Some(vec![ContentBlock::text(s.clone())]),
        Some(Value::Object(o)) => {
            if let Some(Value::Array(items)) = o.get("content") {
                let blocks: Vec<ContentBlock> = items
                    .iter()
                    .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => b
                            .get("text")
                            .and_then(Value::as_str)
                            .map(ContentBlock::text),
                        Some("image") => serde_json::from_value::<ContentBlock>(b.clone()).ok(),
                        _ => None,
                    })
                    .collect();
                if !blocks.is_empty() {
                    return Some(blocks);
                }
            }
            if let Some(Value::String(t)) = o.get("text") {
                return Some(vec![ContentBlock::text(t.clone())]);
            }
            Some(vec![ContentBlock::text(
                Value::Object(o.clone()).to_string(),
            )])
        }
        Some(Value::Null) | None => {
            (!row.content.is_empty()).then(|| vec![ContentBlock::text(row.content.clone())])
        }
        Some(other) => Some(vec![ContentBlock::text(other.to_string())]),
    }
}

/// Text of content blocks joined with `\n` (pi-ai's `contentText`).
fn blocks_text(blocks: &[ContentBlock]) -> String {
    Content::Blocks(blocks.to_vec()).text("\n")
}

/// Milliseconds since the epoch of an ISO-8601 timestamp (`2026-05-17T10:00:00.000Z`,
/// offsets allowed); `None` when it does not parse.
pub fn iso_to_millis(s: &str) -> Option<f64> {
    let b = s.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = b.get(r)?;
        if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(t).ok()?.parse().ok()
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms, mut i) = (0, 0, 0, 0f64, 10);
    if matches!(b.get(10), Some(b'T') | Some(b't') | Some(b' ')) {
        h = num(11..13)?;
        mi = num(14..16)?;
        sec = num(17..19)?;
        i = 19;
        if b.get(19) == Some(&b'.') {
            let start = 20;
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            let frac = std::str::from_utf8(&b[start..end]).ok()?;
            ms = format!("0.{frac}").parse::<f64>().ok()? * 1000.0;
            i = end;
        }
    }
    let offset_min = match b.get(i) {
        None | Some(b'Z') | Some(b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let oh = num(i + 1..i + 3)?;
            let om = if b.get(i + 3) == Some(&b':') {
                num(i + 4..i + 6)?
            } else {
                num(i + 3..i + 5).unwrap_or(0)
            };
            let m = oh * 60 + om;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    // days from civil (Howard Hinnant)
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    let secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    Some(secs as f64 * 1000.0 + ms.round())
}

fn row_timestamp(row: &UiMessage) -> Option<f64> {
    row.created_at.as_deref().and_then(iso_to_millis)
}

fn tool_args_value(row: &UiMessage) -> Value {
    row.tool_args_object()
        .map(Value::Object)
        .unwrap_or_else(|| Value::Object(Map::new()))
}

/// A failed assistant row (`status: "error"`, `isError`, or an `error`): dropped on replay.
pub fn is_failed_assistant_row(row: &UiMessage) -> bool {
    row.status.as_deref() == Some("error")
        || row.is_error == Some(true)
        || row.error.as_ref().is_some_and(|e| !e.is_null())
}

/// Replay path (seed 001, "Historical Context"): the parent's model context from the
/// persisted rows of a session.
pub fn build_parent_context(rows: &[UiMessage]) -> ParentContext {
    let mut messages: Vec<AgentMessage> = Vec::new();
    let mut warnings = Vec::new();
    // index in `messages` of the assistant that carries the tool calls now arriving
    let mut carrier: Option<usize> = None;
    for (index, row) in rows.iter().enumerate() {
        if row
            .parent_tool_call_id
            .as_deref()
            .is_some_and(|p| !p.is_empty())
        {
            continue; // a delegate's own row: never in the parent's context
        }
        let ts = row_timestamp(row);
        match row.role {
            RowRole::System => {}
            RowRole::User => {
                carrier = None;
                if row.content.trim().is_empty() {
                    continue;
                }
                messages.push(AgentMessage::user_text(row.content.clone(), ts));
            }
            RowRole::Assistant => {
                if is_failed_assistant_row(row) {
                    carrier = None;
                    continue;
                }
                let mut content = Vec::new();
                if let Some(t) = row.thinking.as_deref().filter(|t| !t.is_empty()) {
                    content.push(ContentBlock::Thinking(crate::message::ThinkingBlock {
                        thinking: t.to_string(),
                        thinking_signature: None,
                        redacted: None,
                        extra: Extra::new(),
                    }));
                }
                if !row.content.is_empty() {
                    content.push(ContentBlock::text(row.content.clone()));
                }
                messages.push(assistant(
                    content,
                    "stop",
                    row.provider_id.clone(),
                    row.model_id.clone(),
                    ts,
                ));
                carrier = Some(messages.len() - 1);
            }
            RowRole::Tool => {
                let (Some(call_id), Some(name)) = (row.tool_call_id.clone(), row.tool_name.clone())
                else {
                    warnings.push(ContextWarning {
                        code: "TOOL_ROW_SKIPPED".into(),
                        message: "a tool row without toolCallId or toolName was skipped".into(),
                        row_id: Some(row.id.clone()),
                        index: Some(index),
                    });
                    continue;
                };
                let at = match carrier {
                    Some(i) => i,
                    None => {
                        messages.push(assistant(
                            Vec::new(),
                            "toolUse",
                            row.provider_id.clone(),
                            row.model_id.clone(),
                            ts,
                        ));
                        messages.len() - 1
                    }
                };
                carrier = Some(at);
                if let Some(AgentMessage::Assistant(a)) = messages.get_mut(at) {
                    a.content.push(ContentBlock::ToolCall(ToolCallBlock {
                        id: call_id.clone(),
                        name: name.clone(),
                        arguments: tool_args_value(row),
                        thought_signature: None,
                        extra: Extra::new(),
                    }));
                    a.stop_reason = Some("toolUse".into());
                }
                let normalized = crate::transcript::normalize_tool_name(&name);
                let blocks = if is_subagent_tool(&normalized) {
                    let report = stored_report(row).or_else(|| {
                        let raw = tool_result_blocks(row).map(|b| blocks_text(&b))?;
                        if !raw.trim_start().starts_with(['{', '[']) {
                            return Some(raw); // an old row that stored the report text itself
                        }
                        let r = subagent_result_for_parent(&raw);
                        if let Some(mut w) = r.warning {
                            w.row_id = Some(row.id.clone());
                            w.index = Some(index);
                            warnings.push(w);
                        }
                        Some(r.text)
                    });
                    report.map(|t| vec![ContentBlock::text(t)])
                } else {
                    tool_result_blocks(row)
                };
                let running = row.tool_status.as_deref() == Some("running");
                let blocks = blocks.unwrap_or_else(|| {
                    vec![ContentBlock::text(if running {
                        "[tool call was interrupted before a result was recorded]"
                    } else {
                        "[no tool result recorded]"
                    })]
                });
                let is_error = matches!(
                    row.tool_status.as_deref(),
                    Some("running" | "error" | "denied")
                ) || row.is_error == Some(true);
                messages.push(AgentMessage::ToolResult(ToolResultMessage {
                    tool_call_id: call_id,
                    tool_name: name,
                    content: Content::Blocks(blocks),
                    details: None,
                    is_error: Some(is_error),
                    timestamp: ts,
                    extra: Extra::new(),
                }));
            }
        }
    }
    messages.retain(|m| !matches!(m, AgentMessage::Assistant(a) if a.content.is_empty()));
    ParentContext { messages, warnings }
}

fn assistant(
    content: Vec<ContentBlock>,
    stop: &str,
    provider: Option<String>,
    model: Option<String>,
    ts: Option<f64>,
) -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content,
        api: None,
        provider,
        model,
        usage: None,
        stop_reason: Some(stop.into()),
        error_message: None,
        timestamp: ts,
        extra: Extra::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::rows_from_value;
    use serde_json::json;

    fn rows(v: Value) -> Vec<UiMessage> {
        rows_from_value(v, "rows").unwrap()
    }

    fn texts(ctx: &ParentContext) -> Vec<String> {
        ctx.messages
            .iter()
            .map(|m| match m {
                AgentMessage::User(u) => format!("user:{}", u.content.text("")),
                AgentMessage::Assistant(a) => format!(
                    "assistant:{}:{}",
                    Content::Blocks(a.content.clone()).text(""),
                    a.tool_calls()
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                AgentMessage::ToolResult(t) => {
                    format!("tool:{}:{}", t.tool_call_id, t.content.text("\n"))
                }
                other => other.role().to_string(),
            })
            .collect()
    }

    #[test]
    fn replays_historical_tool_results_as_role_tool_messages_with_unaltered_content() {
        let ctx = build_parent_context(&rows(json!([
            {"id": "u1", "role": "user", "content": "read it"},
            {"id": "a1", "role": "assistant", "content": "reading"},
            {"id": "c1", "role": "tool", "content": "", "toolName": "read", "toolCallId": "c1", "toolArgs": {"path": "a.rs"}, "toolResult": "{\"success\":true,\"data\":{\"response\":\"x\"}}", "toolStatus": "success"}
        ])));
        assert_eq!(
            texts(&ctx),
            vec![
                "user:read it",
                "assistant:reading:c1",
                "tool:c1:{\"success\":true,\"data\":{\"response\":\"x\"}}"
            ]
        );
        assert!(ctx.warnings.is_empty());
    }

    #[test]
    fn uses_subagent_response_instead_of_full_json_for_subagent_tool_calls_in_context_replay() {
        let full = json!({"success": true, "data": {"prompt": "p", "thinking": "secret thoughts", "response": "the report", "toolCalls": [{"name": "read"}], "stats": {"turns": 3}}}).to_string();
        let ctx = build_parent_context(&rows(json!([
            {"id": "u1", "role": "user", "content": "delegate"},
            {"id": "a1", "role": "assistant", "content": ""},
            {"id": "t1", "role": "tool", "content": "", "toolName": "subagent", "toolCallId": "t1", "toolResult": full, "subagent": {"prompt": "p", "thinking": "secret thoughts", "response": "the report", "toolCalls": [], "stats": {}}, "toolStatus": "success"},
            {"id": "d1", "role": "assistant", "content": "delegate inner work", "parentToolCallId": "t1", "agentName": "explorer"}
        ])));
        let all = texts(&ctx).join("\n");
        assert!(all.contains("tool:t1:the report"), "{all}");
        for leak in [
            "\"success\":true",
            "\"toolCalls\"",
            "\"thinking\"",
            "secret thoughts",
            "delegate inner work",
        ] {
            assert!(!all.contains(leak), "{leak} leaked: {all}");
        }
    }

    #[test]
    fn falls_back_to_tool_call_response_for_subagent_calls_without_parsed_subagent_data() {
        let ctx = build_parent_context(&rows(json!([
            {"id": "u1", "role": "user", "content": "delegate"},
            {"id": "t1", "role": "tool", "content": "", "toolName": "Task", "toolCallId": "t1", "toolResult": "plain old report"},
            {"id": "t2", "role": "tool", "content": "", "toolName": "task", "toolCallId": "t2", "toolResult": "{\"success\":true,\"data\":{\"response\":\"parsed from raw\"}}"},
            {"id": "t3", "role": "tool", "content": "", "toolName": "task", "toolCallId": "t3", "toolResult": "{not json"}
        ])));
        assert_eq!(
            texts(&ctx),
            vec![
                "user:delegate",
                "assistant::t1,t2,t3",
                "tool:t1:plain old report",
                "tool:t2:parsed from raw",
                "tool:t3:{not json"
            ]
        );
        assert_eq!(ctx.warnings.len(), 1);
        assert_eq!(ctx.warnings[0].code, UNPARSEABLE_SUBAGENT_RESULT);
        assert_eq!(ctx.warnings[0].row_id.as_deref(), Some("t3"));
    }

    #[test]
    fn order_stays_user_assistant_tool_results_with_matching_ids() {
        let ctx = build_parent_context(&rows(json!([
            {"id": "u1", "role": "user", "content": "q1"},
            {"id": "a1", "role": "assistant", "content": "a", "thinking": "t"},
            {"id": "c1", "role": "tool", "toolName": "read", "toolCallId": "c1", "toolResult": {"content": [{"type": "text", "text": "r1"}]}},
            {"id": "x1", "role": "assistant", "content": "inner", "parentToolCallId": "c2", "agentName": "e"},
            {"id": "c2", "role": "tool", "toolName": "task", "toolCallId": "c2", "toolResult": {"details": {"report": "rep", "status": "completed"}}},
            {"id": "s1", "role": "system", "content": "sys"},
            {"id": "a2", "role": "assistant", "content": "boom", "status": "error"},
            {"id": "c3", "role": "tool", "toolName": "grep", "toolCallId": "c3", "toolStatus": "running"},
            {"id": "u2", "role": "user", "content": "q2"},
            {"id": "a3", "role": "assistant", "content": "done"}
        ])));
        assert_eq!(
            texts(&ctx),
            vec![
                "user:q1",
                "assistant:a:c1,c2",
                "tool:c1:r1",
                "tool:c2:rep",
                "assistant::c3",
                "tool:c3:[tool call was interrupted before a result was recorded]",
                "user:q2",
                "assistant:done:"
            ]
        );
        // every tool call is answered right after its carrier, every result has its call
        let mut open: Vec<String> = Vec::new();
        for m in &ctx.messages {
            match m {
                AgentMessage::Assistant(a) => {
                    assert!(open.is_empty());
                    open = a.tool_calls().map(|c| c.id.clone()).collect();
                }
                AgentMessage::ToolResult(t) => {
                    assert_eq!(open.first(), Some(&t.tool_call_id));
                    open.remove(0);
                }
                _ => assert!(open.is_empty()),
            }
        }
    }

    #[test]
    fn live_path() {
        let r =
            subagent_result_for_parent(r#"{"success":true,"data":{"response":"hi","stats":{}}}"#);
        assert_eq!(
            (r.text.as_str(), r.extracted, r.warning.is_none()),
            ("hi", true, true)
        );
        let r = subagent_result_for_parent(r#"{"success":false,"error":"x"}"#);
        assert_eq!((r.extracted, r.warning.is_none()), (false, true));
        let r = subagent_result_for_parent("oops");
        assert_eq!(r.text, "oops");
        assert_eq!(r.warning.unwrap().code, UNPARSEABLE_SUBAGENT_RESULT);
    }

    #[test]
    fn iso_timestamps() {
        assert_eq!(iso_to_millis("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(
            iso_to_millis("2026-05-17T10:00:00.123Z"),
            Some(1_779_012_000_123.0)
        );
        assert_eq!(
            iso_to_millis("2026-05-17T12:00:00+02:00"),
            Some(1_779_012_000_000.0)
        );
        assert_eq!(iso_to_millis("nonsense"), None);
    }
}
