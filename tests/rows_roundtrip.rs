//! Rows out and rows in are one format (host-contract §6 and §8; ADR 0279 clauses 3 and
//! 12; design "Next shape (2)"): random pi message sequences of delegate runs → the rows
//! the package writes (`messages_to_rows`, the Task row at start and at settle) → the
//! readers (`rows_to_messages`, `seed_delegate_messages`, `Registry::from_transcript`)
//! give back the same conversation and the same registry:
//! - every successful turn comes back with its text, thinking and tool calls, each call
//!   paired with its result (text and error flag kept); failed turns are dropped;
//! - rows written message by message (tool rows rewritten when their result arrives)
//!   are the rows written at once;
//! - a resume's seed within a large limit keeps the whole history of both runs (the
//!   earlier tool calls included);
//! - a registry rebuilt from the written rows answers as the live one.

use std::collections::HashMap;

use delegate_context::compaction::tally::RunTally;
use delegate_context::delegation::{
    seed_delegate_messages, task_row_settle, task_row_start, ModelBinding, Registry, SeedInput,
    SettleDelegation, SettleStatus, StartDelegation, TaskArgs, TaskRowSettle, TaskRowStart,
};
use delegate_context::message::{AgentMessage, ContentBlock};
use delegate_context::transcript::{
    dedupe_rows, messages_to_rows, messages_to_rows_at, rows_to_messages, ProviderBinding,
    RowOwner, UiMessage,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// One generated turn of a delegate.
#[derive(Clone, Debug)]
struct Turn {
    thinking: Option<String>,
    text: Option<String>,
    /// (name, path, result text, is error)
    calls: Vec<(String, String, String, bool)>,
    /// a failed request (stopReason "error") before this turn
    failed_before: bool,
}

fn word() -> impl Strategy<Value = String> {
    "[a-z]{1,8}( [a-z]{1,8}){0,4}"
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        proptest::option::of(word()),
        proptest::option::of(word()),
        proptest::collection::vec(
            (
                prop_oneof![Just("read"), Just("grep"), Just("write")],
                "[a-z]{1,6}\\.rs",
                "[a-z\\n ]{1,40}",
                any::<bool>(),
            ),
            0..3,
        ),
        proptest::bool::weighted(0.15),
    )
        .prop_map(|(thinking, text, calls, failed_before)| Turn {
            thinking,
            text,
            calls: calls
                .into_iter()
                .map(|(n, p, r, e)| (n.to_string(), p, r, e))
                .collect(),
            failed_before,
        })
}

/// A run's pi messages: its task, the turns (each call answered), a final report.
fn run_messages(prefix: &str, task: &str, turns: &[Turn], report: &str) -> Vec<Value> {
    let mut ms = vec![
        json!({"role": "user", "content": [{"type": "text", "text": task}], "timestamp": 1_000}),
    ];
    let mut t = 1_000;
    for (i, turn) in turns.iter().enumerate() {
        t += 1000;
        if turn.failed_before {
            ms.push(json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "503 overloaded", "provider": "p", "model": "m", "timestamp": t}));
        }
        let mut content = Vec::new();
        if let Some(th) = &turn.thinking {
            content.push(json!({"type": "thinking", "thinking": th}));
        }
        if let Some(tx) = &turn.text {
            content.push(json!({"type": "text", "text": tx}));
        }
        for (k, (name, path, _, _)) in turn.calls.iter().enumerate() {
            content.push(json!({"type": "toolCall", "id": format!("{prefix}_c{i}_{k}"), "name": name, "arguments": {"path": path}}));
        }
        let stop = if turn.calls.is_empty() {
            "stop"
        } else {
            "toolUse"
        };
        ms.push(json!({"role": "assistant", "content": content, "stopReason": stop, "provider": "p", "model": "m",
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15}, "timestamp": t}));
        for (k, (name, _, result, err)) in turn.calls.iter().enumerate() {
            ms.push(json!({"role": "toolResult", "toolCallId": format!("{prefix}_c{i}_{k}"), "toolName": name,
                "content": [{"type": "text", "text": result}], "isError": err, "timestamp": t + 500}));
        }
    }
    ms.push(json!({"role": "assistant", "content": [{"type": "text", "text": report}], "stopReason": "stop", "provider": "p", "model": "m", "timestamp": t + 1000}));
    ms
}

fn messages(v: Vec<Value>) -> Vec<AgentMessage> {
    AgentMessage::list_from_value(Value::Array(v), "messages").unwrap()
}

/// A conversation as the model reads it: role, text, thinking, calls, results.
fn projection(ms: &[AgentMessage]) -> Vec<String> {
    let mut out = Vec::new();
    for m in ms {
        match m {
            AgentMessage::User(u) => out.push(format!("user:{}", u.content.text("\n"))),
            AgentMessage::Assistant(a) if !a.is_failed() => {
                let pick = |f: &dyn Fn(&ContentBlock) -> Option<String>| {
                    a.content
                        .iter()
                        .filter_map(f)
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                let text = pick(&|b| match b {
                    ContentBlock::Text(t) => Some(t.text.clone()),
                    _ => None,
                });
                let thinking = pick(&|b| match b {
                    ContentBlock::Thinking(t) => Some(t.thinking.clone()),
                    _ => None,
                });
                let calls: Vec<String> = a
                    .tool_calls()
                    .map(|c| format!("{}={}({})", c.id, c.name, c.arguments))
                    .collect();
                if text.is_empty() && thinking.is_empty() && calls.is_empty() {
                    continue; // an empty assistant is no turn
                }
                out.push(format!("assistant:{text}|{thinking}|{}", calls.join(",")));
            }
            AgentMessage::ToolResult(r) => out.push(format!(
                "result:{}:{}:{}",
                r.tool_call_id,
                r.content.text("\n"),
                r.is_error == Some(true)
            )),
            _ => {}
        }
    }
    out
}

fn binding() -> ProviderBinding {
    ProviderBinding {
        provider: "p".into(),
        model: "m".into(),
        api: None,
        thinking_signature: None,
    }
}

/// Upsert rows by id (the host's store: a later copy replaces the earlier in place).
fn upsert(store: &mut Vec<UiMessage>, rows: Vec<UiMessage>) {
    for row in rows {
        match store.iter().position(|r| r.id == row.id) {
            Some(i) => store[i] = row,
            None => store.push(row),
        }
    }
}

/// A row: `base` with the fields of `extra` set over it.
fn with_fields(mut base: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().expect("extra fields are an object") {
        base[k] = v.clone();
    }
    base
}

fn ids(from: u64) -> delegate_context::delegation::IdSource {
    let mut n = from;
    Box::new(move || {
        n += 1;
        Ok(format!("00000000-0000-4000-8000-{n:012}"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn rows_written_read_back_as_the_conversation(turns in proptest::collection::vec(turn(), 0..8)) {
        let owner = RowOwner::delegate("task_1", "explorer");
        let ms = messages(run_messages("r1", "Survey the modules", &turns, "The report."));
        let rows = messages_to_rows(&ms, &owner, 0).unwrap();
        // message by message, as a runner writes them
        let mut store = Vec::new();
        for k in 0..ms.len() {
            upsert(&mut store, messages_to_rows(&ms[..=k], &owner, k).unwrap());
        }
        prop_assert_eq!(&store, &rows);
        // the same, each message sending only the window from the turn that carries the
        // calls still open (what the runner sends: linear in the run)
        let mut windowed = Vec::new();
        for k in 0..ms.len() {
            let base = (0..=k).rev().find(|&i| matches!(ms[i], AgentMessage::Assistant(_))).unwrap_or(0);
            upsert(&mut windowed, messages_to_rows_at(&ms[base..=k], &owner, k - base, base).unwrap());
        }
        prop_assert_eq!(&windowed, &rows);
        prop_assert!(rows.iter().all(|r| r.parent_tool_call_id.as_deref() == Some("task_1") && r.agent_name.as_deref() == Some("explorer")));
        let back = rows_to_messages(&rows.iter().collect::<Vec<_>>(), &binding());
        prop_assert_eq!(projection(&back), projection(&ms));
    }

    #[test]
    fn a_restart_and_a_resume_keep_the_history_and_the_registry(
        first in proptest::collection::vec(turn(), 1..6),
        second in proptest::collection::vec(turn(), 0..4),
        fail_first in any::<bool>(),
    ) {
        let mut live = Registry::with_id_source(ids(0));
        let mut transcript: Vec<UiMessage> = Vec::new();
        let model = ModelBinding { key: Some("p/m".into()), model_id: Some("m".into()) };
        let run = |reg: &mut Registry, transcript: &mut Vec<UiMessage>, call: &str, args: TaskArgs, turns: &[Turn], status: SettleStatus, now: f64| {
            let started = reg.start(&StartDelegation {
                tool_call_id: call.into(), agent: args.agent.clone(), task: args.task.clone(),
                description: args.description.clone(), resume: args.resume.clone(),
                binding: Some(model.clone()), ..StartDelegation::default()
            }, Some(transcript.as_slice())).unwrap();
            let row = task_row_start(&TaskRowStart { tool_call_id: call.into(), args: args.clone(), started: started.clone(), thinking_level: None, now: Some(now) }).unwrap();
            upsert(transcript, vec![row.clone()]);
            let ms = messages(run_messages(call, &args.task, turns, &format!("report of {call}")));
            let run_rows = messages_to_rows(&ms, &RowOwner::delegate(call, &started.agent), 0).unwrap();
            upsert(transcript, run_rows.clone());
            let settled = task_row_settle(&TaskRowSettle {
                row, status, content: format!("report of {call}"), is_error: status != SettleStatus::Completed,
                run_rows: run_rows.clone(), run: RunTally::default(), model_failures: vec![], error: None, final_model: None, now: Some(now + 1000.0),
            }).unwrap();
            upsert(transcript, vec![settled]);
            reg.settle(&SettleDelegation { delegation_id: started.delegation_id.clone(), status, reads: None, rows: Some(run_rows) }).unwrap();
            (started, ms)
        };
        let status = if fail_first { SettleStatus::Failed } else { SettleStatus::Completed };
        let args1 = TaskArgs { agent: "Explorer".into(), task: "Survey the modules".into(), description: Some("survey".into()), ..TaskArgs::default() };
        let (s1, ms1) = run(&mut live, &mut transcript, "call_1", args1, &first, status, 1e12);

        // a restart: the registry from the rows alone answers as the live one
        let rebuilt = Registry::from_transcript_with_id_source(&transcript, ids(1000));
        prop_assert_eq!(rebuilt.resumable_list(), live.resumable_list());
        prop_assert_eq!(rebuilt.resolve(&s1.delegation_id).map(|c| (c.agent, c.tool_call_ids, c.status, c.brief, c.reads, c.resumable)),
            live.resolve(&s1.delegation_id).map(|c| (c.agent, c.tool_call_ids, c.status, c.brief, c.reads, c.resumable)));

        // a resume on the rebuilt registry: its seed holds the first run's history
        let mut reg = rebuilt;
        let args2 = TaskArgs { agent: "explorer".into(), task: "Now check rounding".into(), resume: Some(s1.delegation_id.clone()), ..TaskArgs::default() };
        let (s2, ms2) = run(&mut reg, &mut transcript, "call_2", args2, &second, SettleStatus::Completed, 2e12);
        prop_assert_eq!(s2.resumed_from.as_deref(), Some(s1.delegation_id.as_str()));
        let seed = seed_delegate_messages(&SeedInput {
            brief: s2.brief.clone(), rows: transcript.clone(),
            chain: Some(delegate_context::delegation::ChainSelector { tool_call_ids: s2.tool_call_ids.clone(), agent: s2.agent.clone() }),
            binding: binding(), hard_limit: 1e9, overhead_tokens: None, system_prompt: None, tools: None,
        }).unwrap();
        prop_assert!(!seed.truncated);
        // the whole chain: run 1 (its task is the brief), then run 2 from its task on
        let mut want = projection(&ms1);
        want.extend(projection(&ms2));
        prop_assert_eq!(projection(&seed.messages), want);
        let calls: usize = seed.messages.iter().filter_map(AgentMessage::as_assistant).map(|a| a.tool_calls().count()).sum();
        let want_calls: usize = first.iter().chain(&second).map(|t| t.calls.len()).sum();
        prop_assert_eq!(calls, want_calls);

        // the Task rows read back: one per call, settled, with the details the rebuild needs
        let tasks: HashMap<String, Value> = dedupe_rows(&mut transcript.iter()).into_iter().filter(|r| r.is_task_row())
            .map(|r| (r.id.clone(), r.tool_result.clone().unwrap_or(Value::Null))).collect();
        prop_assert_eq!(tasks.len(), 2);
        prop_assert_eq!(&tasks["call_2"]["details"]["resumedFrom"], &json!(s1.delegation_id));
        prop_assert!(tasks["call_1"]["details"]["completedAt"].is_string());
    }
}

/// Which rows each function reads (host-contract §8; ADR 0279 clauses 8 and 12), as a
/// table, asked two ways that must agree: on decoded rows (the core) and on the few head
/// fields the wasm binding reads off a host row by their JavaScript names before it
/// decodes it (`RowFilter::head_fields`, the one reader both use, and `RowHead::from_fields`).
#[test]
fn row_filter_table() {
    use delegate_context::transcript::{rows_from_value, CallIds, RowFilter, RowHead};
    let rows = json!([
        {"id": "p1", "role": "user", "content": "parent's own"},
        {"id": "T1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolArgs": {}},
        {"id": "t2", "role": "tool", "toolName": "task", "toolCallId": " ", "toolArgs": {}},
        {"id": "T3", "role": "tool", "toolName": "Task", "toolCallId": "t3", "toolArgs": {}},
        {"id": "u1", "role": "user", "toolName": "Task", "toolCallId": "t1", "content": "not a tool row"},
        {"id": "c1", "role": "assistant", "content": "x", "parentToolCallId": "t1"},
        {"id": "c3", "role": "assistant", "content": "x", "parentToolCallId": "t3"},
        {"id": "e1", "role": "assistant", "content": "x", "parentToolCallId": ""},
        {"id": "r1", "role": "tool", "toolName": "read", "toolCallId": "r1", "parentToolCallId": "t1"},
        {"id": "r2", "role": "tool", "toolName": "Grep", "toolCallId": "r2"},
        {"id": "w1", "role": "tool", "toolName": "write", "toolCallId": "w1", "parentToolCallId": "t1"},
        {"id": "r3", "role": "assistant", "toolName": "read", "content": "not a tool row"}
    ]);
    let calls: CallIds = ["t1", "t2"].into_iter().collect();
    let table: [(&str, RowFilter, &[&str]); 4] = [
        (
            "a rebuild reads delegate rows and Task rows",
            RowFilter::DelegateOrTaskRows,
            &["T1", "t2", "T3", "c1", "c3", "r1", "w1"],
        ),
        (
            "a chain's rows: written during its calls",
            RowFilter::WrittenDuring(&calls),
            &["c1", "r1", "w1"],
        ),
        (
            "and its Task rows, by toolCallId (blank: the row id)",
            RowFilter::WrittenDuringOrTaskRowOf(&calls),
            &["T1", "t2", "c1", "r1", "w1"],
        ),
        ("read-only tool rows", RowFilter::ReadRows, &["r1", "r2"]),
    ];
    let decoded = rows_from_value(rows.clone(), "rows").unwrap();
    for (rule, filter, want) in table {
        let core: Vec<&str> = decoded
            .iter()
            .filter(|row| filter.accepts(&row.head()))
            .map(|row| row.id.as_str())
            .collect();
        assert_eq!(core, want, "{rule}");
        let binding: Vec<&str> = rows
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| {
                let fields = filter
                    .head_fields(|name| Ok::<_, ()>(row[name].as_str().map(str::to_string)))
                    .unwrap();
                filter.accepts(&RowHead::from_fields(&fields))
            })
            .map(|row| row["id"].as_str().unwrap())
            .collect();
        assert_eq!(binding, want, "{rule}: the binding's pre-filter");
    }
}

/// Host-contract §6 (the Task row) and ADR 0279 clause 12: what `taskRowStart` writes
/// into `toolResult.details` (the host's delegation summary: `thinkingLevel` trimmed,
/// absent when blank; `resumedFrom` and `modelChangedFrom` from the start), and the
/// settlement's `error` (trimmed, absent when blank). The rebuild reads these fields back.
#[test]
fn task_row_details_table() {
    let mut reg = Registry::with_id_source(ids(1));
    let binding_of = |key: &str, id: &str| ModelBinding {
        key: Some(key.into()),
        model_id: Some(id.into()),
    };
    let first = reg
        .start(
            &StartDelegation {
                tool_call_id: "c1".into(),
                agent: "explorer".into(),
                task: "T".into(),
                binding: Some(binding_of("a/x", "x")),
                ..StartDelegation::default()
            },
            None,
        )
        .unwrap();
    reg.settle(&SettleDelegation {
        delegation_id: first.delegation_id.clone(),
        status: SettleStatus::Completed,
        reads: None,
        rows: None,
    })
    .unwrap();
    let resumed = reg
        .start(
            &StartDelegation {
                tool_call_id: "c2".into(),
                agent: "explorer".into(),
                task: "U".into(),
                resume: Some(first.delegation_id.clone()),
                binding: Some(binding_of("b/y", "y")),
                ..StartDelegation::default()
            },
            None,
        )
        .unwrap();
    let details = |row: &UiMessage| row.tool_result.as_ref().unwrap()["details"].clone();
    let args = TaskArgs {
        agent: "explorer".into(),
        task: "U".into(),
        ..TaskArgs::default()
    };
    for (thinking, want_thinking) in [
        (Some(" high "), Some("high")),
        (Some("  "), None),
        (None, None),
    ] {
        let row = task_row_start(&TaskRowStart {
            tool_call_id: "c2".into(),
            args: args.clone(),
            started: resumed.clone(),
            thinking_level: thinking.map(Into::into),
            now: Some(0.0),
        })
        .unwrap();
        let mut want = json!({
            "delegationId": resumed.delegation_id, "agent": "explorer", "modelId": "y",
            "status": "running", "startedAt": "1970-01-01T00:00:00.000Z", "turns": 0,
            "toolCalls": 0, "resumedFrom": first.delegation_id, "modelChangedFrom": "x",
        });
        if let Some(level) = want_thinking {
            want["thinkingLevel"] = json!(level);
        }
        assert_eq!(details(&row), want, "thinkingLevel {thinking:?}");
        for (error, want_error) in [
            (Some(" boom "), Some("boom")),
            (Some(" "), None),
            (None, None),
        ] {
            let settled = task_row_settle(&TaskRowSettle {
                row: row.clone(),
                status: SettleStatus::Failed,
                content: "r".into(),
                is_error: true,
                run_rows: vec![],
                run: RunTally::default(),
                model_failures: vec![],
                error: error.map(Into::into),
                final_model: None,
                now: Some(1000.0),
            })
            .unwrap();
            assert_eq!(
                details(&settled).get("error").and_then(Value::as_str),
                want_error,
                "error {error:?}"
            );
        }
    }
}

/// Host-contract §6: the settlement counts the run's own rows (`parentToolCallId` is the
/// Task call): `turns` its completed assistant rows, `toolCalls` its tool rows,
/// `lastToolName` the last of them. Rows of another call given with them do not count.
#[test]
fn task_row_settle_counts_the_runs_own_rows() {
    let started = Registry::with_id_source(ids(1))
        .start(
            &StartDelegation {
                tool_call_id: "c1".into(),
                agent: "explorer".into(),
                task: "T".into(),
                ..StartDelegation::default()
            },
            None,
        )
        .unwrap();
    let args = TaskArgs {
        agent: "explorer".into(),
        task: "T".into(),
        ..TaskArgs::default()
    };
    let row = task_row_start(&TaskRowStart {
        tool_call_id: "c1".into(),
        args,
        started,
        thinking_level: None,
        now: Some(0.0),
    })
    .unwrap();
    let of = |call: &str, id: &str, role: &str, extra: Value| {
        with_fields(
            json!({"id": id, "role": role, "content": "x", "parentToolCallId": call, "agentName": "explorer"}),
            extra,
        )
    };
    let run_rows = delegate_context::transcript::rows_from_value(
        json!([
            of("c1", "a1", "assistant", json!({"status": "complete"})),
            of(
                "c1",
                "t1",
                "tool",
                json!({"toolName": "read", "toolCallId": "k1"})
            ),
            of("c1", "a2", "assistant", json!({"status": "error"})),
            of("c1", "a3", "assistant", json!({"status": "complete"})),
            of(
                "c1",
                "t2",
                "tool",
                json!({"toolName": "grep", "toolCallId": "k2"})
            ),
            of("other", "a4", "assistant", json!({"status": "complete"})),
            of(
                "other",
                "t3",
                "tool",
                json!({"toolName": "bash", "toolCallId": "k3"})
            ),
        ]),
        "rows",
    )
    .unwrap();
    let settled = task_row_settle(&TaskRowSettle {
        row,
        status: SettleStatus::Completed,
        content: "done".into(),
        is_error: false,
        run_rows,
        run: RunTally::default(),
        model_failures: vec![],
        error: None,
        final_model: None,
        now: Some(1000.0),
    })
    .unwrap();
    let details = &settled.tool_result.as_ref().unwrap()["details"];
    assert_eq!(
        (
            &details["turns"],
            &details["toolCalls"],
            &details["lastToolName"]
        ),
        (&json!(2), &json!(2), &json!("grep"))
    );
}

/// ADR 0279 clause 3 and host-contract §6, rows → provider messages: an assistant row
/// that records a failed provider response (`status: "error"`, `isError: true`, or a
/// non-null `error`) is not replayed; a tool row without a call id or a tool name, or a
/// second row of the same call, is skipped; a result's image blocks travel with it.
#[test]
fn rows_to_messages_drops_failed_replies_and_keeps_images() {
    let assistant = |id: &str, extra: Value| {
        with_fields(
            json!({"id": id, "role": "assistant", "content": format!("reply {id}")}),
            extra,
        )
    };
    let rows = delegate_context::transcript::rows_from_value(
        json!([
            {"id": "u", "role": "user", "content": "brief"},
            assistant("ok", json!({"status": "complete"})),
            assistant("null-error", json!({"error": null})),
            assistant("status-error", json!({"status": "error"})),
            assistant("is-error", json!({"isError": true})),
            assistant("error-text", json!({"error": "boom"})),
            {"id": "t1", "role": "tool", "toolName": "read", "toolCallId": "k1", "toolArgs": {"path": "a.png"},
             "toolResult": {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "text", "text": "a.png"}]}},
            {"id": "t2", "role": "tool", "toolName": "read", "toolCallId": "", "toolResult": "no id"},
            {"id": "t3", "role": "tool", "toolName": "", "toolCallId": "k3", "toolResult": "no name"},
            {"id": "t4", "role": "tool", "toolName": "read", "toolCallId": "k1", "toolResult": "again"},
        ]),
        "rows",
    )
    .unwrap();
    let messages = serde_json::to_value(rows_to_messages(
        &rows.iter().collect::<Vec<_>>(),
        &binding(),
    ))
    .unwrap();
    let texts: Vec<String> = messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect();
    assert_eq!(texts, ["brief", "reply ok", "reply null-error", "a.png"]);
    let calls: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "toolResult")
        .map(|m| m["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["k1"]);
    let result = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "toolResult")
        .unwrap();
    assert_eq!(
        result["content"][0],
        json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
    );
}

/// host-contract §6, messages → rows written a window at a time: a tool result whose call
/// was written earlier takes the call's name, arguments and time from the successful
/// assistant that made it; a failed assistant's calls were never tool rows (its reply is
/// not replayed), so a result of one is written from the result alone.
#[test]
fn a_result_written_alone_takes_its_call_from_a_successful_assistant_only() {
    let ms = messages(vec![
        json!({"role": "user", "content": "brief", "timestamp": 1000}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "k1", "name": "read", "arguments": {"path": "a.rs"}}], "stopReason": "toolUse", "timestamp": 2000}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "k2", "name": "read", "arguments": {"path": "b.rs"}}], "stopReason": "error", "errorMessage": "overloaded", "timestamp": 3000}),
        json!({"role": "toolResult", "toolCallId": "k1", "toolName": "read", "content": "1", "isError": false, "timestamp": 4000}),
        json!({"role": "toolResult", "toolCallId": "k2", "toolName": "read", "content": "2", "isError": false, "timestamp": 5000}),
    ]);
    let owner = RowOwner::delegate("task_1", "explorer");
    // the window writes the two results only (the messages before it are read for calls)
    let rows = messages_to_rows_at(&ms, &owner, 3, 0).unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r.tool_call_id.as_deref() == Some(id))
            .unwrap_or_else(|| panic!("a row of {id}: {rows:?}"))
    };
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(row("k1").tool_args, Some(json!({"path": "a.rs"})));
    assert_eq!(
        row("k1").created_at.as_deref(),
        Some("1970-01-01T00:00:02.000Z")
    );
    assert_eq!(row("k2").tool_args, None, "{:?}", row("k2"));
    assert_eq!(
        row("k2").created_at.as_deref(),
        Some("1970-01-01T00:00:05.000Z")
    );
}

/// A window's rows are numbered by their place in the whole run (`first_index`), so a
/// user message sent during the run (a steering message) gets the row it gets when the
/// whole run is written at once.
#[test]
fn a_window_numbers_its_rows_by_their_place_in_the_run() {
    let ms = messages(vec![
        json!({"role": "user", "content": "brief", "timestamp": 1000}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "reading"}], "stopReason": "stop", "timestamp": 2000}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "still reading"}], "stopReason": "stop", "timestamp": 2500}),
        json!({"role": "user", "content": "also look at b.rs", "timestamp": 3000}),
    ]);
    let owner = RowOwner::delegate("task_1", "explorer");
    let whole = messages_to_rows(&ms, &owner, 0).unwrap();
    for base in 1..=3 {
        let window = messages_to_rows_at(&ms[base..], &owner, 3 - base, base).unwrap();
        assert_eq!(window.as_slice(), &whole[3..], "a window from {base}");
    }
}
