//! A delegate's pi messages → the rows the host persists (host-contract §6; ADR 0279
//! clause 3: "the rows are persisted with enough fidelity for a full rebuild"). The
//! writer of the one row format [`super::to_messages`] reads: a run's rows, read back,
//! give the conversation the run had (a property test holds the two together).
//!
//! Rows, in message order, each with `parentToolCallId` (the Task call) and `agentName`:
//! - a user message: a `user` row with its text (the delegate's task; a resumed chain
//!   reads as task → reply → task → reply, ADR 0279 clause 13). Images are not kept.
//! - an assistant message (one turn): one `assistant` row with its text blocks joined by
//!   `\n`, its thinking blocks joined by `\n` (`thinking`), `modelId`, `providerId` and
//!   `usage`; `status: "complete"`. A failed one (`stopReason` `error` or `aborted`) is
//!   an error row (`status` `"error"` / `"aborted"`, `error` = its `errorMessage`),
//!   which the reader drops; its tool calls never ran and get no row.
//! - a tool call: one `tool` row (`toolCallId`, `toolName`, `toolArgs`), `toolStatus`
//!   `"running"` until its result is among the messages, then `"success"` or `"error"`
//!   with `isError` and `toolResult: {content, details?}`. A result whose call came
//!   earlier rewrites that same row (same id: the later copy wins).
//! - other roles (compaction summaries, custom messages) are not rows: a delegate's
//!   compaction rewrites no row (ADR 0299, "Transcript rows").
//!
//! Ids are stable, so writing the rows of a growing run again rewrites them in place:
//! `<parentToolCallId>:u<i>` / `:a<i>` (`i` the message's index in the run) and
//! `<parentToolCallId>:<toolCallId>` for tool rows. `createdAt` is the message's
//! `timestamp` as an ISO string (a tool row: its call's).

use crate::keyed::{KeySet, Keyed};
use crate::text_build::Owned;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use super::names::normalize_tool_name;
use super::rows::{RowRole, UiMessage};
use super::time::ms_to_iso;
use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::facts::MessageFacts;
use crate::js_whitespace;
#[cfg(not(target_arch = "wasm32"))]
use crate::message::AgentMessage;
use crate::role::Role;
use crate::stop_reason::StopReason;
use crate::text_build::Joined;

/// Who writes the rows: a delegate (the Task call's id and its agent: every row carries
/// them), or the parent (neither: its rows are the parent's own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RowOwner {
    /// A delegate's Task call id (`parentToolCallId` of every row; the ids' prefix too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub parent_tool_call_id: Option<String>,
    /// A delegate's agent name (`agentName` of every row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub agent_name: Option<String>,
    /// The rows' id prefix (default: `parentToolCallId`; required for the parent's rows,
    /// e.g. one per app session, so that two sessions' ids never meet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub id_prefix: Option<String>,
    /// Tools whose calls get no row here (compared normalised): the parent's Task tool,
    /// whose row the runner writes itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
    pub skip_tools: Vec<String>,
}

decode_struct!(RowOwner "RowOwner" {
    parent_tool_call_id: "parentToolCallId" => default,
    agent_name: "agentName" => default,
    id_prefix: "idPrefix" => default,
    skip_tools: "skipTools" => default,
});

impl RowOwner {
    /// The rows of a delegate's run.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn delegate(parent_tool_call_id: &str, agent_name: &str) -> RowOwner {
        RowOwner {
            parent_tool_call_id: Some(parent_tool_call_id.owned()),
            agent_name: Some(agent_name.owned()),
            ..RowOwner::default()
        }
    }

    /// The rows' id prefix; `INVALID_INPUT` when there is none.
    #[inline(never)]
    pub fn prefix(&self) -> Result<&str> {
        self.id_prefix
            .as_deref()
            .or(self.parent_tool_call_id.as_deref())
            .filter(|p| !js_whitespace::is_blank(p))
            .ok_or_else(|| {
                Error::invalid(
                    "input.idPrefix",
                    "give idPrefix (or parentToolCallId for a delegate's rows)",
                )
            })
    }

    fn skips(&self, tool: &str) -> bool {
        let tool = normalize_tool_name(tool);
        self.skip_tools
            .iter()
            .any(|t| normalize_tool_name(t) == tool)
    }
}

/// Input of `messagesToRows`: messages and who wrote them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct MessagesToRowsInput {
    /// The messages, in order (pi's `AgentMessage`s): a delegate's run from its task on,
    /// or the parent's session, as given. The package reads them from their JSON text
    /// with the message reader ([`rows_of_facts`]); [`rows_of_input`] does the same for
    /// values.
    #[tsify(type = "AgentMessage[]")]
    pub messages: Vec<Value>,
    #[serde(flatten)]
    pub owner: RowOwner,
    /// Rows of `messages[start..]` only (default 0: all).
    #[serde(default)]
    #[tsify(optional)]
    pub start: usize,
    /// The index in the whole run of `messages[0]` (default 0), when `messages` is a
    /// window of it: row ids name a message by its index in the run. A writer that
    /// sends, after each message, the window from the turn that carries the calls still
    /// open writes the same rows as one that sends the whole run, in time linear in the
    /// run.
    #[serde(default)]
    #[tsify(optional)]
    pub first_index: usize,
}

decode_struct!(MessagesToRowsInput "MessagesToRowsInput" {
    messages: "messages" => req,
    start: "start" => default,
    first_index: "firstIndex" => default,
} flatten owner);

/// The row of a user message.
fn user_row(owner: &RowOwner, index: usize, m: &Value) -> UiMessage {
    let mut row = base_row(
        owner,
        format!("u{index}"),
        RowRole::User,
        number(m, "timestamp"),
    );
    row.content = match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        _ => joined(m, "text", "text"),
    };
    row
}

fn base_row(owner: &RowOwner, suffix: String, role: RowRole, ts: Option<f64>) -> UiMessage {
    let id = format!("{}:{suffix}", owner.prefix().unwrap_or_default());
    UiMessage {
        created_at: ts.and_then(ms_to_iso),
        parent_tool_call_id: owner.parent_tool_call_id.clone(),
        agent_name: owner.agent_name.clone(),
        ..UiMessage::new(id, role)
    }
}

/// A message's (or block's) field `key` when it is a string.
#[inline(never)]
fn string<'a>(m: &'a Value, key: &str) -> Option<&'a str> {
    m.get(key).and_then(Value::as_str)
}

/// A message's field `key` when it is a number.
#[inline(never)]
fn number(m: &Value, key: &str) -> Option<f64> {
    m.get(key).and_then(Value::as_f64)
}

/// A message's content blocks (none when `content` is a string).
fn blocks(m: &Value) -> &[Value] {
    m.get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Field `key` of the blocks of type `kind`, joined by `\n` (pi-ai's
/// `contentText(content, "\n")` for the text blocks).
fn joined(m: &Value, kind: &str, key: &str) -> String {
    blocks(m)
        .iter()
        .filter(|b| string(b, "type") == Some(kind))
        .filter_map(|b| string(b, key))
        .collect::<Vec<_>>()
        .joined("\n")
}

/// An assistant's tool calls: `(id, name, arguments)`, in order.
fn tool_calls(m: &Value) -> impl Iterator<Item = (&str, &str, &Value)> {
    blocks(m).iter().filter_map(|b| {
        (string(b, "type") == Some("toolCall"))
            .then(|| Some((string(b, "id")?, string(b, "name")?, b.get("arguments")?)))
            .flatten()
    })
}

/// pi's usage as a row's `usage` (`{inputTokens, outputTokens, cacheReadTokens,
/// cacheWriteTokens, totalTokens}`).
fn row_usage(usage: &Value) -> Value {
    let mut m = crate::js_text::new_map();
    for (from, to) in [
        ("input", "inputTokens"),
        ("output", "outputTokens"),
        ("cacheRead", "cacheReadTokens"),
        ("cacheWrite", "cacheWriteTokens"),
        ("totalTokens", "totalTokens"),
    ] {
        let n = serde_json::Number::from_f64(number(usage, from).unwrap_or(0.0));
        m.insert(to.into(), n.map_or(Value::Null, Value::Number));
    }
    Value::Object(m)
}

/// The row of an assistant message (one turn).
fn assistant_row(owner: &RowOwner, index: usize, f: &MessageFacts, m: &Value) -> UiMessage {
    let mut row = base_row(
        owner,
        format!("a{index}"),
        RowRole::Assistant,
        number(m, "timestamp"),
    );
    row.content = joined(m, "text", "text");
    let thinking = joined(m, "thinking", "thinking");
    row.thinking = (!thinking.is_empty()).then_some(thinking);
    row.model_id = string(m, "model").map(Owned::owned);
    row.provider_id = string(m, "provider").map(Owned::owned);
    row.usage = m.get("usage").filter(|u| u.is_object()).map(row_usage);
    let failed = f.stop_reason.filter(|_| f.is_failed());
    match failed.and_then(StopReason::as_str) {
        Some(reason) => {
            row.status = Some(reason.owned());
            let text = string(m, "errorMessage")
                .filter(|e| !js_whitespace::is_blank(e))
                .map_or_else(
                    || format!("the request ended with stopReason \"{reason}\""),
                    Owned::owned,
                );
            row.error = Some(Value::String(text));
        }
        _ => row.status = Some("complete".owned()),
    }
    row
}

/// The row of a tool call, with its result when there is one.
fn tool_row(
    owner: &RowOwner,
    call_id: &str,
    name: &str,
    args: Option<&Value>,
    result: Option<&Value>,
    ts: Option<f64>,
) -> UiMessage {
    let mut row = base_row(owner, call_id.owned(), RowRole::Tool, ts);
    row.tool_call_id = Some(call_id.owned());
    row.tool_name = Some(name.owned());
    row.tool_args = args.cloned();
    match result {
        None => row.tool_status = Some("running".owned()),
        Some(r) => {
            let failed = r.get("isError") == Some(&Value::Bool(true));
            row.tool_status = Some(if failed { "error" } else { "success" }.into());
            row.is_error = Some(failed);
            let content = match r.get("content") {
                // a string is one text block
                Some(Value::String(s)) => super::rows::text_content(s),
                Some(blocks @ Value::Array(_)) => blocks.clone(),
                _ => Value::Array(Vec::new()),
            };
            let mut out = crate::js_text::new_map();
            out.insert("content".owned(), content);
            if let Some(details) = r.get("details") {
                out.insert("details".owned(), details.clone());
            }
            row.tool_result = Some(Value::Object(out));
        }
    }
    row
}

/// The rows of `messages[start..]` (a delegate's run from its task on, or the parent's
/// session; earlier messages pair tool calls with their results). See the module docs.
///
/// Errors: `INVALID_INPUT` when `owner` gives no id prefix.
#[cfg(not(target_arch = "wasm32"))] // for the native tests
pub fn messages_to_rows(
    messages: &[AgentMessage],
    owner: &RowOwner,
    start: usize,
) -> Result<Vec<UiMessage>> {
    messages_to_rows_at(messages, owner, start, 0)
}

/// A tool result's `toolCallId` (`""` for another message).
fn answered(f: &MessageFacts) -> &str {
    f.answers.as_deref().unwrap_or("")
}

/// [`messages_to_rows`] over a window of a run whose first message is the run's
/// `first_index`-th (see [`MessagesToRowsInput::first_index`]).
#[cfg(not(target_arch = "wasm32"))] // for the native tests
pub fn messages_to_rows_at(
    messages: &[AgentMessage],
    owner: &RowOwner,
    start: usize,
    first_index: usize,
) -> Result<Vec<UiMessage>> {
    let mut facts = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        facts.push(m.facts(&format!("messages[{i}]"))?);
    }
    rows_of_facts(&facts, owner, start, first_index)
}

/// The rows of `input` (`messagesToRows` on values): each message checked as a host
/// message (`INVALID_INPUT` at `input.messages[i]`, in the message reader's words), then
/// [`rows_of_facts`].
#[cfg(not(target_arch = "wasm32"))] // for the native tests (the binding reads the text)
pub fn rows_of_input(input: &MessagesToRowsInput) -> Result<Vec<UiMessage>> {
    let mut facts = Vec::with_capacity(input.messages.len());
    for (i, m) in input.messages.iter().enumerate() {
        let text = crate::js_text::json_stringify(m);
        facts.push(MessageFacts::from_json(
            &text,
            &format!("input.messages[{i}]"),
        )?);
    }
    rows_of_facts(&facts, &input.owner, input.start, input.first_index)
}

/// The rows of messages read as host messages (`messagesToRows`: the reader checked
/// them, and its facts give each one's role, failure and answered call; each one's JSON
/// text is read again for the fields a row keeps). See the module docs.
pub fn rows_of_facts(
    messages: &[MessageFacts],
    owner: &RowOwner,
    start: usize,
    first_index: usize,
) -> Result<Vec<UiMessage>> {
    owner.prefix()?;
    let values: Vec<Value> = messages
        .iter()
        .map(|f| crate::js_text::parse_json(f.raw.as_str()).unwrap_or(Value::Null))
        .collect();
    // every call of a successful assistant, and every result, by tool call id
    let mut calls: Keyed<(&str, &Value, Option<f64>)> = Keyed::default();
    let mut results: Keyed<&Value> = Keyed::default();
    for (f, m) in messages.iter().zip(&values) {
        match f.role {
            Role::Assistant if !f.is_failed() => {
                for (id, name, args) in tool_calls(m) {
                    calls.entry(id, || (name, args, number(m, "timestamp")));
                }
            }
            Role::ToolResult => {
                results.entry(answered(f), || m);
            }
            _ => {}
        }
    }
    let mut rows = Vec::new();
    let mut written = KeySet::default();
    for (index, (f, m)) in messages.iter().zip(&values).enumerate().skip(start) {
        match f.role {
            Role::User => rows.push(user_row(owner, first_index + index, m)),
            Role::Assistant => {
                rows.push(assistant_row(owner, first_index + index, f, m));
                if f.is_failed() {
                    continue;
                }
                let ts = number(m, "timestamp");
                for (id, name, args) in tool_calls(m) {
                    if id.is_empty() || owner.skips(name) || !written.insert(id) {
                        continue;
                    }
                    let result = results.get(id).copied();
                    rows.push(tool_row(owner, id, name, Some(args), result, ts));
                }
            }
            Role::ToolResult => {
                let id = answered(f);
                let tool_name = string(m, "toolName").unwrap_or("");
                if id.is_empty() || owner.skips(tool_name) || !written.insert(id) {
                    continue;
                }
                let (name, args, ts) = match calls.get(id) {
                    Some((name, args, ts)) => (*name, Some(*args), *ts),
                    None => (tool_name, None, number(m, "timestamp")),
                };
                rows.push(tool_row(owner, id, name, args, Some(m), ts));
            }
            _ => {}
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{rows_to_messages, ProviderBinding};
    use serde_json::json;

    fn owner() -> RowOwner {
        RowOwner::delegate("task_1", "explorer")
    }

    fn messages(v: Value) -> Vec<AgentMessage> {
        AgentMessage::list_from_value(v, "messages").unwrap()
    }

    #[test]
    fn one_row_per_turn_and_per_tool_call() {
        let ms = messages(json!([
            {"role": "user", "content": [{"type": "text", "text": "Read a.rs"}], "timestamp": 0},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "Reading."},
              {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.rs"}}],
              "provider": "p", "model": "m", "usage": {"input": 5, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7}, "stopReason": "toolUse", "timestamp": 1000},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "fn a() {}"}], "details": {"lines": 1}, "isError": false, "timestamp": 2000},
            {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "prompt is too long: 9000 tokens", "timestamp": 3000},
            {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "stopReason": "stop", "timestamp": 4000},
        ]));
        let rows = messages_to_rows(&ms, &owner(), 0).unwrap();
        let v = serde_json::to_value(&rows).unwrap();
        assert_eq!(
            v,
            json!([
                {"id": "task_1:u0", "role": "user", "content": "Read a.rs", "createdAt": "1970-01-01T00:00:00.000Z", "parentToolCallId": "task_1", "agentName": "explorer"},
                {"id": "task_1:a1", "role": "assistant", "content": "Reading.", "createdAt": "1970-01-01T00:00:01.000Z", "status": "complete", "thinking": "hm", "modelId": "m", "providerId": "p",
                 "usage": {"inputTokens": 5.0, "outputTokens": 2.0, "cacheReadTokens": 0.0, "cacheWriteTokens": 0.0, "totalTokens": 7.0}, "parentToolCallId": "task_1", "agentName": "explorer"},
                {"id": "task_1:c1", "role": "tool", "content": "", "createdAt": "1970-01-01T00:00:01.000Z", "toolName": "read", "toolCallId": "c1", "toolStatus": "success", "toolArgs": {"path": "a.rs"},
                 "toolResult": {"content": [{"type": "text", "text": "fn a() {}"}], "details": {"lines": 1}}, "isError": false, "parentToolCallId": "task_1", "agentName": "explorer"},
                {"id": "task_1:a3", "role": "assistant", "content": "", "createdAt": "1970-01-01T00:00:03.000Z", "status": "error", "error": "prompt is too long: 9000 tokens", "parentToolCallId": "task_1", "agentName": "explorer"},
                {"id": "task_1:a4", "role": "assistant", "content": "Done.", "createdAt": "1970-01-01T00:00:04.000Z", "status": "complete", "parentToolCallId": "task_1", "agentName": "explorer"},
            ])
        );
        // read back: the failed turn is dropped, the call keeps its result
        let back = rows_to_messages(
            &rows.iter().collect::<Vec<_>>(),
            &ProviderBinding {
                provider: "p".into(),
                model: "m".into(),
                api: None,
                thinking_signature: None,
            },
        );
        let roles: Vec<&str> = back.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    }

    #[test]
    fn the_input_s_messages_are_read_as_host_messages_and_a_bad_one_is_named() {
        let input = |messages: Value| MessagesToRowsInput {
            messages: messages.as_array().cloned().unwrap_or_default(),
            owner: owner(),
            start: 0,
            first_index: 0,
        };
        let bad = input(json!([
            {"role": "user", "content": "hi"},
            {"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": [{"type": "text", "text": 5}]},
        ]));
        match rows_of_input(&bad) {
            Err(Error::InvalidInput { path, message }) => {
                assert_eq!(path, "input.messages[1].content");
                assert!(
                    message.contains("[0]: text: expected a string, got a number"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
        let refused = rows_of_input(&input(json!([5]))).unwrap_err();
        assert!(
            refused.to_string().contains("input.messages[0]"),
            "{refused}"
        );
        // the rows of the same messages, typed or as the host gives them, are the same
        let given = json!([
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "text", "text": "b"}], "timestamp": 5},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}],
             "usage": {"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4, "totalTokens": 10}, "stopReason": "toolUse", "timestamp": 6},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": "text", "details": null, "isError": false},
            {"role": "assistant", "content": [{"type": "text", "text": "  "}], "stopReason": "aborted", "errorMessage": " "},
        ]);
        let rows = rows_of_input(&input(given.clone())).unwrap();
        assert_eq!(
            rows,
            messages_to_rows(&messages(given), &owner(), 0).unwrap()
        );
        assert_eq!(rows[0].content, "a\nb");
        assert_eq!(
            rows[2].tool_result,
            Some(json!({"content": [{"type": "text", "text": "text"}], "details": null}))
        );
        assert_eq!(
            rows[3].error,
            Some(json!("the request ended with stopReason \"aborted\""))
        );
    }

    #[test]
    fn a_pending_call_is_running_until_its_result_rewrites_the_same_row() {
        let ms = messages(json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}], "stopReason": "toolUse"},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "x"}], "isError": true},
        ]));
        let first = messages_to_rows(&ms[..1], &owner(), 0).unwrap();
        assert_eq!(first[1].tool_status.as_deref(), Some("running"));
        let later = messages_to_rows(&ms, &owner(), 1).unwrap();
        assert_eq!(later.len(), 1);
        assert_eq!(later[0].id, first[1].id);
        assert_eq!(later[0].tool_status.as_deref(), Some("error"));
        assert_eq!(later[0].tool_args, Some(json!({"path": "a"})));
    }

    #[test]
    fn the_parents_rows_skip_the_task_calls_and_carry_no_owner() {
        let ms = messages(json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "t1", "name": "Task", "arguments": {}},
              {"type": "toolCall", "id": "r1", "name": "read", "arguments": {}}], "stopReason": "toolUse"},
            {"role": "toolResult", "toolCallId": "t1", "toolName": "Task", "content": "report", "isError": false},
            {"role": "toolResult", "toolCallId": "r1", "toolName": "read", "content": "x", "isError": false},
        ]));
        let owner = RowOwner {
            id_prefix: Some("s1".into()),
            skip_tools: vec!["task".into()],
            ..RowOwner::default()
        };
        let rows = messages_to_rows(&ms, &owner, 0).unwrap();
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["s1:u0", "s1:a1", "s1:r1"]);
        assert!(rows
            .iter()
            .all(|r| r.parent_tool_call_id.is_none() && r.agent_name.is_none()));
        let e = messages_to_rows(&ms, &RowOwner::default(), 0).unwrap_err();
        assert!(e.to_string().contains("input.idPrefix"), "{e}");
    }
}
