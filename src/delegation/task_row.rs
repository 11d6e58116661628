//! The Task row a delegation writes (host-contract §6; ADR 0279 clauses 4 and 12; ADR
//! 0299 clauses 4–6): what the rebuild ([`super::rebuild`]), the parent's context
//! ([`crate::parent`]) and a resume's seed read back. One row per Task call, `id ==
//! toolCallId`, written three ways:
//!
//! - [`task_row_start`]: when the run starts, `details.status: "running"` with
//!   `delegationId`, `agent`, `modelId` (the run's binding: what a resume continues on),
//!   `startedAt`, `turns: 0`, `toolCalls: 0`, and `resumedFrom` / `modelChangedFrom` on
//!   a resume. `toolStatus: "running"`: a row never settled (the app closed) replays to
//!   the parent as an interrupted call and rebuilds as `interrupted`.
//! - [`task_row_settle`]: the same row rewritten when the run settles (later copy wins):
//!   `status`, `completedAt` (ISO: the rebuild's recency), `turns` / `toolCalls` /
//!   `lastToolName` counted from the run's rows, `contextCompactions` /
//!   `contextDegraded` from the run's tally (across every model it ran on),
//!   `modelFailures`, `error` (a code) on failure, and `report`: what the parent
//!   received, so the parent's rebuilt context shows it (seed 001, the stored report).
//!   `toolResult.content` holds the same text; `toolStatus` is `"success"`, or
//!   `"error"` with `isError` when the parent received an error.
//! - [`task_row_refused`]: a Task call refused before it started (ADR 0279 clause 4):
//!   `details.error` holds the code and no `delegationId` (the rebuild skips it, and a
//!   `NO_HISTORY` refusal drops the chain it named, as it did live).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

use super::text::non_blank;
use super::types::{SettleStatus, StartedDelegation};
use crate::compaction::tally::RunTally;
use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::fallback::ModelFailure;
use crate::js_text::js_number_to_string;
use crate::text_build::Owned;
use crate::transcript::{ms_to_iso, text_content, RowRole, UiMessage};

/// The Task tool's name on the rows the package writes.
pub const TASK_TOOL_NAME: &str = "task";

/// The Task call's arguments as the parent's model passed them (`toolArgs`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TaskArgs {
    pub agent: String,
    /// The brief of this run.
    pub task: String,
    /// The 3–6 word label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub resume: Option<String>,
}

decode_struct!(TaskArgs "TaskArgs" {
    agent: "agent" => req,
    task: "task" => req,
    description: "description" => default,
    model: "model" => default,
    resume: "resume" => default,
});

/// `toolResult.details` of a Task row: the host's delegation summary (host-contract §6).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TaskDetails {
    /// Absent on a refused call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub delegation_id: Option<String>,
    pub agent: String,
    /// The run's model binding (a fallback the run moved to is not recorded here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub thinking_level: Option<String>,
    /// `running`, then `completed | failed | aborted | timed_out | stopped`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub status: Option<String>,
    /// ISO time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub tool_calls: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub last_tool_name: Option<String>,
    /// ISO time of the settlement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub completed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_failures: Option<Vec<ModelFailure>>,
    /// The error code (`SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED`, a clause-4 code, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub context_compactions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub context_degraded: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub resumed_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_changed_from: Option<String>,
    /// What the parent received (the report, with the degraded notice when the run lost
    /// history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub report: Option<String>,
    /// `providerId/modelId` the run ended on (a fallback, when it moved to one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub final_model: Option<String>,
    /// Fields the host added.
    #[serde(flatten)]
    #[tsify(type = "{}")]
    pub extra: Map<String, Value>,
}

// A Task row's `toolResult.details` (read back by `taskRowSettle`).
decode_struct!(TaskDetails "TaskDetails" {
    delegation_id: "delegationId" => default,
    agent: "agent" => req,
    model_id: "modelId" => default,
    thinking_level: "thinkingLevel" => default,
    status: "status" => default,
    started_at: "startedAt" => default,
    turns: "turns" => default,
    tool_calls: "toolCalls" => default,
    last_tool_name: "lastToolName" => default,
    completed_at: "completedAt" => default,
    model_failures: "modelFailures" => default,
    error: "error" => default,
    context_compactions: "contextCompactions" => default,
    context_degraded: "contextDegraded" => default,
    resumed_from: "resumedFrom" => default,
    model_changed_from: "modelChangedFrom" => default,
    report: "report" => default,
    final_model: "finalModel" => default,
} extra extra);

/// Input of [`task_row_start`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TaskRowStart {
    pub tool_call_id: String,
    pub args: TaskArgs,
    /// What `registry.start` returned.
    pub started: StartedDelegation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub thinking_level: Option<String>,
    /// Milliseconds since the epoch (default: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub now: Option<f64>,
}

decode_struct!(TaskRowStart "TaskRowStart" {
    tool_call_id: "toolCallId" => req,
    args: "args" => req,
    started: "started" => req,
    thinking_level: "thinkingLevel" => default,
    now: "now" => default,
});

/// Input of [`task_row_settle`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TaskRowSettle {
    /// The row [`task_row_start`] wrote.
    pub row: UiMessage,
    pub status: SettleStatus,
    /// What the parent's tool result holds (the report, or the error's message).
    pub content: String,
    /// Whether the parent received an error.
    #[serde(default)]
    #[tsify(optional)]
    pub is_error: bool,
    /// The run's own rows (turns and tool calls are counted from them).
    #[serde(default)]
    #[tsify(optional)]
    pub run_rows: Vec<UiMessage>,
    /// The run's tally, across every model it ran on.
    #[serde(default)]
    #[tsify(optional)]
    pub run: RunTally,
    #[serde(default)]
    #[tsify(optional)]
    pub model_failures: Vec<ModelFailure>,
    /// The error's code, when the run failed with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<String>,
    /// `providerId/modelId` the run ended on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub final_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub now: Option<f64>,
}

decode_struct!(TaskRowSettle "TaskRowSettle" {
    row: "row" => req,
    status: "status" => req,
    content: "content" => req,
    is_error: "isError" => default,
    run_rows: "runRows" => default,
    run: "run" => default,
    model_failures: "modelFailures" => default,
    error: "error" => default,
    final_model: "finalModel" => default,
    now: "now" => default,
});

/// Input of [`task_row_refused`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TaskRowRefused {
    pub tool_call_id: String,
    pub args: TaskArgs,
    /// The refusal's code (`UNKNOWN_DELEGATION`, `NO_HISTORY`, ...).
    pub code: String,
    /// The refusal's message (the Task tool's error text).
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub now: Option<f64>,
}

decode_struct!(TaskRowRefused "TaskRowRefused" {
    tool_call_id: "toolCallId" => req,
    args: "args" => req,
    code: "code" => req,
    message: "message" => req,
    now: "now" => default,
});

fn iso(now: Option<f64>, path: &str) -> Result<String> {
    let ms = now.ok_or_else(|| Error::invalid(path, "expected a time in milliseconds"))?;
    ms_to_iso(ms).ok_or_else(|| {
        Error::invalid(
            path,
            format!("not a valid time: {}", js_number_to_string(ms)),
        )
    })
}

fn args_value(args: &TaskArgs) -> Value {
    crate::js_text::to_json_value(args).unwrap_or(Value::Null)
}

fn task_row(tool_call_id: &str, args: &TaskArgs, created_at: String) -> UiMessage {
    UiMessage {
        created_at: Some(created_at),
        tool_name: Some(TASK_TOOL_NAME.into()),
        tool_call_id: Some(tool_call_id.owned()),
        tool_args: Some(args_value(args)),
        ..UiMessage::new(tool_call_id.owned(), RowRole::Tool)
    }
}

fn with_details(details: &TaskDetails, content: Option<&str>) -> Value {
    let mut out = crate::js_text::new_map();
    if let Some(text) = content {
        out.insert("content".owned(), text_content(text));
    }
    out.insert(
        "details".owned(),
        crate::js_text::to_json_value(details).unwrap_or(Value::Null),
    );
    Value::Object(out)
}

/// The Task row at the start of a run (see the module docs).
pub fn task_row_start(input: &TaskRowStart) -> Result<UiMessage> {
    let started_at = iso(input.now, "input.now")?;
    let s = &input.started;
    let details = TaskDetails {
        delegation_id: Some(s.delegation_id.clone()),
        agent: s.agent.clone(),
        model_id: s.model_binding.effective_model_id(),
        thinking_level: non_blank(input.thinking_level.as_deref()),
        status: Some("running".owned()),
        started_at: Some(started_at.clone()),
        turns: Some(0),
        tool_calls: Some(0),
        resumed_from: s.resumed_from.clone(),
        model_changed_from: s.model_changed_from.clone(),
        ..TaskDetails::default()
    };
    let mut row = task_row(&input.tool_call_id, &input.args, started_at);
    row.tool_status = Some("running".owned());
    row.tool_result = Some(with_details(&details, None));
    Ok(row)
}

/// The details a Task row holds (`toolResult.details`), when it holds any.
pub fn task_details(row: &UiMessage) -> Option<TaskDetails> {
    let details = row.tool_result.as_ref()?.get("details")?;
    crate::decode::Decode::decode(details).ok()
}

/// The same Task row when its run settles (see the module docs).
pub fn task_row_settle(input: &TaskRowSettle) -> Result<UiMessage> {
    let completed_at = iso(input.now, "input.now")?;
    let mut details = task_details(&input.row).ok_or_else(|| {
        Error::invalid(
            "input.row.toolResult.details",
            "expected the details of the row taskRowStart wrote",
        )
    })?;
    let own = |r: &&UiMessage| r.parent_tool_call_id.as_deref() == Some(input.row.task_call_id());
    let turns = input
        .run_rows
        .iter()
        .filter(own)
        .filter(|r| r.role == RowRole::Assistant && r.status.as_deref() == Some("complete"))
        .count();
    let tools: Vec<&UiMessage> = input
        .run_rows
        .iter()
        .filter(own)
        .filter(|r| r.role == RowRole::Tool)
        .collect();
    details.status = Some(input.status.as_str().owned());
    details.completed_at = Some(completed_at);
    details.turns = Some(u32::try_from(turns).unwrap_or(u32::MAX));
    details.tool_calls = Some(u32::try_from(tools.len()).unwrap_or(u32::MAX));
    details.last_tool_name = tools.last().and_then(|r| r.tool_name.clone());
    details.context_compactions = Some(input.run.context_compactions);
    details.context_degraded = Some(input.run.context_degraded);
    details.model_failures =
        (!input.model_failures.is_empty()).then(|| input.model_failures.clone());
    details.error = non_blank(input.error.as_deref());
    details.report = (!input.is_error).then(|| input.content.clone());
    details.final_model = non_blank(input.final_model.as_deref());
    let mut row = input.row.clone();
    row.tool_status = Some(if input.is_error { "error" } else { "success" }.into());
    row.is_error = Some(input.is_error);
    row.tool_result = Some(with_details(&details, Some(&input.content)));
    Ok(row)
}

/// The row of a Task call refused before it started (see the module docs).
pub fn task_row_refused(input: &TaskRowRefused) -> Result<UiMessage> {
    let created_at = iso(input.now, "input.now")?;
    let details = TaskDetails {
        agent: input.args.agent.clone(),
        error: Some(input.code.clone()),
        ..TaskDetails::default()
    };
    let mut row = task_row(&input.tool_call_id, &input.args, created_at);
    row.tool_status = Some("error".owned());
    row.is_error = Some(true);
    row.tool_result = Some(with_details(&details, Some(&input.message)));
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delegation::ModelBinding;
    use serde_json::json;

    fn start() -> UiMessage {
        task_row_start(&TaskRowStart {
            tool_call_id: "call_1".into(),
            args: TaskArgs {
                agent: "Explorer".into(),
                task: "Survey src/".into(),
                description: Some("survey".into()),
                ..TaskArgs::default()
            },
            started: StartedDelegation {
                delegation_id: "d1".into(),
                agent: "explorer".into(),
                tool_call_ids: vec!["call_1".into()],
                brief: "Survey src/".into(),
                resumed_from: None,
                model_binding: ModelBinding {
                    key: Some("local/small".into()),
                    model_id: None,
                },
                model_changed_from: None,
                diagnostics: vec![],
            },
            thinking_level: None,
            now: Some(0.0),
        })
        .unwrap()
    }

    #[test]
    fn start_then_settle_rewrites_the_same_row() {
        let row = start();
        assert_eq!(
            serde_json::to_value(&row).unwrap(),
            json!({"id": "call_1", "role": "tool", "content": "", "createdAt": "1970-01-01T00:00:00.000Z", "toolName": "task", "toolCallId": "call_1", "toolStatus": "running",
              "toolArgs": {"agent": "Explorer", "task": "Survey src/", "description": "survey"},
              "toolResult": {"details": {"delegationId": "d1", "agent": "explorer", "modelId": "small", "status": "running", "startedAt": "1970-01-01T00:00:00.000Z", "turns": 0, "toolCalls": 0}}})
        );
        let run_rows: Vec<UiMessage> = crate::transcript::rows_from_value(
            json!([
                {"id": "call_1:a0", "role": "assistant", "status": "complete", "parentToolCallId": "call_1", "agentName": "explorer"},
                {"id": "call_1:c", "role": "tool", "toolName": "read", "toolCallId": "c", "parentToolCallId": "call_1", "agentName": "explorer"},
                {"id": "call_1:a1", "role": "assistant", "status": "error", "parentToolCallId": "call_1", "agentName": "explorer"},
                {"id": "x", "role": "tool", "toolName": "grep", "toolCallId": "x", "parentToolCallId": "call_9", "agentName": "explorer"},
            ]),
            "rows",
        )
        .unwrap();
        let settled = task_row_settle(&TaskRowSettle {
            row,
            status: SettleStatus::Completed,
            content: "report".into(),
            is_error: false,
            run_rows,
            run: RunTally {
                context_compactions: 2,
                context_degraded: true,
                ..RunTally::default()
            },
            model_failures: vec![],
            error: None,
            final_model: None,
            now: Some(60_000.0),
        })
        .unwrap();
        let v = serde_json::to_value(&settled).unwrap();
        assert_eq!(v["id"], "call_1");
        assert_eq!(v["toolStatus"], "success");
        assert_eq!(v["toolResult"]["content"][0]["text"], "report");
        assert_eq!(
            v["toolResult"]["details"],
            json!({"delegationId": "d1", "agent": "explorer", "modelId": "small", "status": "completed", "startedAt": "1970-01-01T00:00:00.000Z",
              "turns": 1, "toolCalls": 1, "lastToolName": "read", "completedAt": "1970-01-01T00:01:00.000Z", "contextCompactions": 2, "contextDegraded": true, "report": "report"})
        );
    }

    #[test]
    fn a_refused_call_records_its_code_and_no_delegation_id() {
        let row = task_row_refused(&TaskRowRefused {
            tool_call_id: "c2".into(),
            args: TaskArgs {
                agent: "explorer".into(),
                task: "t".into(),
                resume: Some("nope".into()),
                ..TaskArgs::default()
            },
            code: "UNKNOWN_DELEGATION".into(),
            message: "Unknown delegation \"nope\"".into(),
            now: Some(0.0),
        })
        .unwrap();
        let v = serde_json::to_value(&row).unwrap();
        assert_eq!(
            v["toolResult"]["details"],
            json!({"agent": "explorer", "error": "UNKNOWN_DELEGATION"})
        );
        assert_eq!(v["isError"], true);
        let e = task_row_refused(&TaskRowRefused {
            now: None,
            ..serde_json::from_value(json!({"toolCallId": "c", "args": {"agent": "a", "task": "t"}, "code": "X", "message": "m"})).unwrap()
        })
        .unwrap_err();
        assert!(e.to_string().contains("input.now"), "{e}");
    }
}
