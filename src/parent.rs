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
use serde_json::Value;
use tsify::Tsify;

use crate::js_text::js_truthy;
use crate::js_whitespace;
use crate::message::{AgentMessage, Content};
use crate::text_build::Owned;
use crate::transcript::{
    normalize_tool_name, rows_to_messages, tool_result_blocks, ProviderBinding, RowRole, UiMessage,
};

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
    match crate::js_text::parse_json(raw) {
        Ok(v) => match report_of_result_json(&v) {
            Some(text) => ParentReport { text, extracted: true, warning: None },
            None => ParentReport { text: raw.owned(), extracted: false, warning: None },
        },
        Err(e) => ParentReport {
            text: raw.owned(),
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
    // JavaScript truthiness, as the seed's `parsed.success && ...`
    if !js_truthy(v.get("success")?) {
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

#[inline(never)]
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

/// The report a subagent row contributes, and a warning when its raw result was
/// JSON-looking text that did not parse. `None` when the row recorded nothing.
fn report_of_row(row: &UiMessage, index: usize) -> (Option<String>, Option<ContextWarning>) {
    if let Some(report) = stored_report(row) {
        return (Some(report), None);
    }
    let blocks = tool_result_blocks(row.tool_result.as_ref());
    if blocks.is_empty() {
        return (None, None);
    }
    let raw = Content::Blocks(blocks).text("\n");
    if !js_whitespace::trim_start(&raw).starts_with(['{', '[']) {
        return (Some(raw), None); // an old row that stored the report text itself
    }
    let r = subagent_result_for_parent(&raw);
    let warning = r.warning.map(|mut w| {
        w.row_id = Some(row.id.clone());
        w.index = Some(index);
        w
    });
    (Some(r.text), warning)
}

/// The binding stamped on the rebuilt assistant messages: the parent's latest assistant
/// row's provider and model (the session binding), else `"unknown"`.
fn session_binding(rows: &[UiMessage]) -> ProviderBinding {
    let last = rows.iter().rev().find(|r| {
        r.role == RowRole::Assistant && r.parent_tool_call_id.is_none() && r.model_id.is_some()
    });
    ProviderBinding {
        provider: last
            .and_then(|r| r.provider_id.clone())
            .unwrap_or_else(|| "unknown".owned()),
        model: last
            .and_then(|r| r.model_id.clone())
            .unwrap_or_else(|| "unknown".owned()),
        api: None,
        thinking_signature: None,
    }
}

/// Replay path (seed 001, "Historical Context"): the parent's model context from the
/// persisted rows of a session. The rows are converted by the same converter that
/// rebuilds a delegate's history ([`rows_to_messages`]: failed assistants dropped,
/// orphan tool rows carried, interrupted tools answered, a row rewritten in place counted
/// once), after two parent-only steps: rows a delegate wrote are left out, and a
/// subagent/Task row's result is replaced by the delegate's report.
pub fn build_parent_context(rows: &[UiMessage]) -> ParentContext {
    build_parent_context_with(rows, &session_binding(rows))
}

/// [`build_parent_context`] with an explicit provider/model binding for the assistants.
pub fn build_parent_context_with(rows: &[UiMessage], binding: &ProviderBinding) -> ParentContext {
    let mut warnings = Vec::new();
    // the subagent rows, their result replaced by the report (the other rows are read
    // where they are)
    let mut reported: Vec<UiMessage> = Vec::new();
    let mut own: Vec<Option<&UiMessage>> = Vec::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        if row.head().is_delegate_row() {
            continue; // a delegate's own row: never in the parent's context
        }
        let subagent = row.role == RowRole::Tool
            && row
                .tool_name
                .as_deref()
                .is_some_and(|n| is_subagent_tool(&normalize_tool_name(n)));
        if !subagent {
            own.push(Some(row));
            continue;
        }
        let (report, warning) = report_of_row(row, index);
        warnings.extend(warning);
        let mut row = row.clone();
        row.tool_result = report.map(Value::String);
        reported.push(row);
        own.push(None); // its place: the next of `reported`
    }
    let mut reported = reported.iter();
    let own: Vec<&UiMessage> = own
        .into_iter()
        .filter_map(|row| row.or_else(|| reported.next()))
        .collect();
    ParentContext {
        messages: rows_to_messages(&own, binding),
        warnings,
    }
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
    fn an_empty_stored_report_is_no_report() {
        // seed 001: `toolCall.name === "subagent" && toolCall.subagent?.response`: an empty
        // stored response is falsy, so the next place a report can be is read (here the
        // parsed raw result), never an empty report
        let raw = json!({"success": true, "data": {"response": "from the raw result"}}).to_string();
        let ctx = build_parent_context(&rows(json!([
            {"id": "u1", "role": "user", "content": "delegate"},
            {"id": "t1", "role": "tool", "content": "", "toolName": "subagent", "toolCallId": "t1", "toolResult": raw, "subagent": {"response": ""}}
        ])));
        assert_eq!(texts(&ctx)[2], "tool:t1:from the raw result");
    }

    #[test]
    fn assistants_carry_the_parents_own_binding_never_a_delegates() {
        // the parent's latest assistant row with a model names the session's binding; a
        // delegate's row (parentToolCallId) and a row without a model do not
        let ctx = build_parent_context(&rows(json!([
            {"id": "u1", "role": "user", "content": "delegate"},
            {"id": "a1", "role": "assistant", "content": "first", "providerId": "lead-provider", "modelId": "lead-model"},
            {"id": "d1", "role": "assistant", "content": "inner", "parentToolCallId": "t9", "providerId": "sub-provider", "modelId": "sub-model"},
            {"id": "a2", "role": "assistant", "content": "second"}
        ])));
        let bindings: Vec<_> = ctx
            .messages
            .iter()
            .filter_map(|m| match m {
                AgentMessage::Assistant(a) => Some((a.provider.as_deref(), a.model.as_deref())),
                _ => None,
            })
            .collect();
        assert_eq!(
            bindings,
            vec![(Some("lead-provider"), Some("lead-model")); 2],
            "{:?}",
            texts(&ctx)
        );
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
        for falsy in ["0", "\"\"", "null", "false"] {
            let r = subagent_result_for_parent(&format!(
                r#"{{"success":{falsy},"data":{{"response":"x"}}}}"#
            ));
            assert!(!r.extracted, "success: {falsy}");
        }
        // seed 001: `parsed.success && parsed.data?.response`: an empty response is falsy,
        // so the parent gets the raw result, not an empty report
        let raw = r#"{"success":true,"data":{"response":""}}"#;
        let r = subagent_result_for_parent(raw);
        assert_eq!((r.text.as_str(), r.extracted), (raw, false));
        for truthy in ["1", "\"yes\"", "{}", "[]"] {
            let r = subagent_result_for_parent(&format!(
                r#"{{"success":{truthy},"data":{{"response":"x"}}}}"#
            ));
            assert_eq!(
                (r.text.as_str(), r.extracted),
                ("x", true),
                "success: {truthy}"
            );
        }
        let r = subagent_result_for_parent("oops");
        assert_eq!(r.text, "oops");
        assert_eq!(r.warning.unwrap().code, UNPARSEABLE_SUBAGENT_RESULT);
    }
}
