//! Table tests of the resumable delegations: one row per validation row of ADR 0279
//! clause 4, one per rebuild rule of clause 12, and the bad inputs of the issue (rows
//! out of order, duplicate ids, unparseable toolArgs, self / cyclic resumes, unknown
//! statuses): a clear error or a documented skip, never a panic or a corrupted registry.

use std::cell::Cell;
use std::rc::Rc;

use delegate_context::delegation::{
    ChainReads, IdSource, ModelBinding, Registry, ResumeCandidates, ResumeRequest,
    SettleDelegation, SettleStatus, StartDelegation, MAX_RESUMABLE_READ_LINES,
};
use delegate_context::transcript::{rows_from_value, UiMessage};
use delegate_context::Error;
use serde_json::{json, Value};

fn ids() -> IdSource {
    let n = Rc::new(Cell::new(0u32));
    Box::new(move || {
        n.set(n.get() + 1);
        Ok(format!("d{}", n.get()))
    })
}

fn rows(v: Value) -> Vec<UiMessage> {
    rows_from_value(v, "rows").unwrap()
}

fn start(tc: &str, agent: &str, task: &str) -> StartDelegation {
    StartDelegation {
        tool_call_id: tc.into(),
        agent: agent.into(),
        task: task.into(),
        ..Default::default()
    }
}

fn resume(tc: &str, agent: &str, id: &str) -> StartDelegation {
    StartDelegation {
        resume: Some(id.into()),
        ..start(tc, agent, "continue")
    }
}

fn settle(id: &str, status: SettleStatus, lines: u64) -> SettleDelegation {
    SettleDelegation {
        delegation_id: id.into(),
        status,
        reads: Some(ChainReads {
            files: vec![format!("{id}.rs")],
            lines,
        }),
        rows: None,
    }
}

fn req(id: &str, agent: &str) -> ResumeRequest {
    ResumeRequest {
        delegation_id: id.into(),
        agent: agent.into(),
        model: None,
    }
}

/// A registry snapshot for "an error changed nothing" checks.
fn snapshot(reg: &Registry) -> String {
    let mut s = reg.resumable_prompt();
    s.push_str(&format!("{:?}{}", reg.resumable_list(), reg.chain_count()));
    for i in 1..40 {
        s.push_str(&format!("{:?}", reg.resolve(&format!("d{i}"))));
    }
    s
}

// ---------------------------------------------------------------------------------------
// Clause 4: one row per validation condition.

/// The registry every clause-4 row starts from. Ids are issued in pairs (delegationId,
/// chain key): d1 (explorer, completed, key d2), d3 (coder, running, key d4), d5
/// (explorer, stopped), d7 (coder, aborted), d9 (reviewer, interrupted), d11 (reviewer,
/// over the read budget), d13 (scout, completed, middle of a chain whose latest is d15).
fn clause4_registry() -> Registry {
    let mut r = Registry::with_id_source(ids());
    let mut go = |tc: &str, agent: &str, status: Option<SettleStatus>, lines: u64| {
        let s = r
            .start(&start(tc, agent, &format!("task of {tc}")), None)
            .unwrap();
        if let Some(st) = status {
            r.settle(&settle(&s.delegation_id, st, lines)).unwrap();
        }
        s.delegation_id
    };
    assert_eq!(
        go("t1", "explorer", Some(SettleStatus::Completed), 10),
        "d1"
    );
    assert_eq!(go("t2", "coder", None, 0), "d3");
    assert_eq!(go("t3", "explorer", Some(SettleStatus::Stopped), 1), "d5");
    assert_eq!(go("t4", "coder", Some(SettleStatus::Aborted), 1), "d7");
    assert_eq!(
        go("t5", "reviewer", Some(SettleStatus::Interrupted), 1),
        "d9"
    );
    assert_eq!(
        go(
            "t6",
            "reviewer",
            Some(SettleStatus::Completed),
            MAX_RESUMABLE_READ_LINES + 1
        ),
        "d11"
    );
    assert_eq!(go("t7", "scout", Some(SettleStatus::Failed), 5), "d13");
    let s = r.start(&resume("t8", "scout", "d13"), None).unwrap();
    assert_eq!(s.delegation_id, "d15");
    r.settle(&settle("d15", SettleStatus::Completed, 5))
        .unwrap();
    r
}

#[test]
fn clause4_validation_table() {
    // (row, request, code, message or message fragment)
    let table: Vec<(&str, ResumeRequest, &str, &str)> = vec![
        (
            "unknown id",
            req("nope", "explorer"),
            "UNKNOWN_DELEGATION",
            "Unknown delegation \"nope\". Reusable: scout / d15, explorer / d1.",
        ),
        (
            "still running",
            req("d3", "coder"),
            "DELEGATION_RUNNING",
            "Delegation d3 is still running, call TaskWait first",
        ),
        (
            "stopped",
            req("d5", "explorer"),
            "NOT_RESUMABLE",
            "Delegation d5 was stopped and is not resumable; start a new delegation.",
        ),
        (
            "aborted",
            req("d7", "coder"),
            "NOT_RESUMABLE",
            "Delegation d7 was aborted and is not resumable; start a new delegation.",
        ),
        (
            "interrupted",
            req("d9", "reviewer"),
            "NOT_RESUMABLE",
            "Delegation d9 was interrupted (the app closed while it ran) and is not resumable; start a new delegation.",
        ),
        (
            "agent mismatch while the chain runs (the agent is checked first)",
            req("d3", "explorer"),
            "AGENT_MISMATCH",
            "Delegation d3 belongs to agent \"coder\", not \"explorer\": resume it with agent \"coder\" or start a new delegation. Reusable: scout / d15, explorer / d1.",
        ),
        (
            "agent mismatch",
            req("d1", "coder"),
            "AGENT_MISMATCH",
            "Delegation d1 belongs to agent \"explorer\", not \"coder\": resume it with agent \"explorer\" or start a new delegation. Reusable: scout / d15, explorer / d1.",
        ),
        (
            "model on resume",
            ResumeRequest {
                model: Some("gpt-5".into()),
                ..req("d1", "explorer")
            },
            "MODEL_ON_RESUME",
            "Task.model is not allowed on a resumed run (delegation d1); start a new delegation to change models",
        ),
        (
            "over the read budget",
            req("d11", "reviewer"),
            "READ_BUDGET_EXCEEDED",
            "Delegation d11 has read too much to resume cheaply (50001 lines read); start a new delegation",
        ),
    ];
    for (name, request, code, message) in table {
        let mut reg = clause4_registry();
        let before = snapshot(&reg);
        let e = reg.validate_resume(&request, None).unwrap_err();
        assert_eq!(e.code(), code, "{name}: {e}");
        assert_eq!(e.to_string(), message, "{name}");
        assert_eq!(
            snapshot(&reg),
            before,
            "{name}: an error changed the registry"
        );
        // start() gives the same answer and changes nothing either
        let e2 = reg
            .start(
                &StartDelegation {
                    model: request.model.clone(),
                    ..resume("t-new", &request.agent, &request.delegation_id)
                },
                None,
            )
            .unwrap_err();
        assert_eq!(e2, e, "{name}");
        assert_eq!(snapshot(&reg), before, "{name}: start changed the registry");
    }
}

#[test]
fn clause4_error_fields() {
    let mut reg = clause4_registry();
    let e = reg
        .validate_resume(&req("nope", "explorer"), None)
        .unwrap_err();
    match e {
        Error::UnknownDelegation { resumable, .. } => assert_eq!(resumable, ["d15", "d1"]),
        other => panic!("{other:?}"),
    }
    let e = reg
        .validate_resume(&req("d1", "Coder.md"), None)
        .unwrap_err();
    match e {
        Error::AgentMismatch {
            expected, actual, ..
        } => {
            assert_eq!((expected.as_str(), actual.as_str()), ("explorer", "coder"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn clause4_evicted_is_unknown_too() {
    let mut reg = clause4_registry();
    // explorer holds d1 (completed) and d5 (stopped). Clause 7 counts reusable chains:
    // the first new completed chain evicts nothing, the second evicts d1 (least
    // recently used reusable one); the stopped d5 is bounded apart and stays.
    for (tc, want) in [("e1", vec![]), ("e2", vec!["d1"])] {
        let s = reg.start(&start(tc, "explorer", "x"), None).unwrap();
        let out = reg
            .settle(&settle(&s.delegation_id, SettleStatus::Completed, 1))
            .unwrap();
        assert_eq!(out.evicted, want, "{tc}");
    }
    let e = reg
        .validate_resume(&req("d1", "explorer"), None)
        .unwrap_err();
    assert_eq!(e.code(), "UNKNOWN_DELEGATION");
    assert!(reg.resolve("d1").is_none());
    assert_eq!(
        reg.validate_resume(&req("d5", "explorer"), None)
            .unwrap_err()
            .code(),
        "NOT_RESUMABLE"
    );
    // two newer stopped explorer chains: now d5 is the least recently used of the
    // chains that cannot be resumed, and goes
    for tc in ["s1", "s2"] {
        let s = reg.start(&start(tc, "explorer", "x"), None).unwrap();
        let out = reg
            .settle(&settle(&s.delegation_id, SettleStatus::Stopped, 1))
            .unwrap();
        let want: Vec<&str> = if tc == "s2" { vec!["d5"] } else { vec![] };
        assert_eq!(out.evicted, want, "{tc}");
    }
    assert_eq!(
        reg.validate_resume(&req("d5", "explorer"), None)
            .unwrap_err()
            .code(),
        "UNKNOWN_DELEGATION"
    );
    assert_eq!(reg.resumable_list().len(), 3); // e1, e2 (explorer) and d15 (scout)
}

#[test]
fn clause4_resumable_rows_and_middle_ids() {
    for (id, agent, latest) in [
        ("d1", "Explorer", "d1"),
        ("d13", "scout", "d15"), // a middle id resolves to its chain
        ("d15", "scout.md", "d15"),
    ] {
        let mut reg = clause4_registry();
        let t = reg.validate_resume(&req(id, agent), None).unwrap();
        assert_eq!(t.latest_delegation_id, latest);
        assert_eq!(t.delegation_id, id);
    }
    // failed and timed_out are resumable
    let mut reg = Registry::with_id_source(ids());
    for (tc, st) in [("a", SettleStatus::Failed), ("b", SettleStatus::TimedOut)] {
        let s = reg.start(&start(tc, "x", "t"), None).unwrap();
        reg.settle(&settle(&s.delegation_id, st, 1)).unwrap();
        assert!(reg
            .validate_resume(&req(&s.delegation_id, "x"), None)
            .is_ok());
    }
    // exactly at the read budget is still within it
    let s = reg.start(&start("c", "y", "t"), None).unwrap();
    reg.settle(&settle(
        &s.delegation_id,
        SettleStatus::Completed,
        MAX_RESUMABLE_READ_LINES,
    ))
    .unwrap();
    assert!(reg
        .validate_resume(&req(&s.delegation_id, "y"), None)
        .is_ok());
}

#[test]
fn clause4_no_history_drops_the_chain_from_the_list() {
    let transcript = rows(json!([
        {"id": "t1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolArgs": {"agent": "explorer", "task": "look"}},
        {"id": "t2", "role": "tool", "toolName": "Task", "toolCallId": "t2", "toolArgs": {"agent": "explorer", "task": "look again"}},
        {"id": "r1", "role": "assistant", "content": "found", "parentToolCallId": "t2", "agentName": "explorer"},
        {"id": "r2", "role": "assistant", "content": "boom", "status": "error", "parentToolCallId": "t1", "agentName": "explorer"},
    ]));
    let mut reg = Registry::with_id_source(ids());
    let a = reg.start(&start("t1", "explorer", "look"), None).unwrap();
    reg.settle(&settle(&a.delegation_id, SettleStatus::Failed, 0))
        .unwrap();
    let b = reg
        .start(&start("t2", "explorer", "look again"), None)
        .unwrap();
    reg.settle(&SettleDelegation {
        rows: Some(transcript.clone()),
        reads: None,
        ..settle(&b.delegation_id, SettleStatus::Completed, 0)
    })
    .unwrap();
    assert_eq!(reg.resumable_list().len(), 2);
    // the first chain's only row is a failed assistant: nothing to replay
    let e = reg
        .validate_resume(&req(&a.delegation_id, "explorer"), Some(&transcript))
        .unwrap_err();
    assert_eq!(e.code(), "NO_HISTORY");
    assert_eq!(
        e.to_string(),
        format!(
            "Delegation {} has no recorded history to resume; start a new delegation. Reusable: explorer / {}.",
            a.delegation_id, b.delegation_id
        )
    );
    let listed: Vec<String> = reg
        .resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect();
    assert_eq!(listed, vec![b.delegation_id.clone()]);
    assert!(!reg.resumable_prompt().contains(&a.delegation_id));
    // it was dropped at once: asking again finds no such delegation, whose listing does
    // not offer it either
    let e = reg
        .validate_resume(&req(&a.delegation_id, "explorer"), None)
        .unwrap_err();
    match e {
        Error::UnknownDelegation { resumable, .. } => {
            assert_eq!(resumable, vec![b.delegation_id.clone()])
        }
        other => panic!("{other:?}"),
    }
    assert!(reg.resolve(&a.delegation_id).is_none());
    // the chain with rows is fine
    assert!(reg
        .validate_resume(&req(&b.delegation_id, "explorer"), Some(&transcript))
        .is_ok());
}

// ---------------------------------------------------------------------------------------
// Clause 1, 6, 7, 11 and the model binding through the registry.

#[test]
fn one_live_run_per_chain_and_lru_never_evicts_a_running_chain() {
    let mut reg = Registry::with_id_source(ids());
    let a = reg.start(&start("a", "explorer", "A"), None).unwrap(); // d1
    reg.settle(&settle(&a.delegation_id, SettleStatus::Completed, 1))
        .unwrap();
    let a2 = reg.start(&resume("a2", "explorer", "d1"), None).unwrap();
    assert_eq!(a2.resumed_from.as_deref(), Some("d1"));
    assert_eq!(a2.tool_call_ids, ["a", "a2"]);
    assert_eq!(a2.brief, "A");
    // a second resume while it runs: rejected, never queued
    let e = reg
        .start(&resume("a3", "explorer", "d1"), None)
        .unwrap_err();
    assert_eq!(e.code(), "DELEGATION_RUNNING");
    assert!(e.to_string().contains(&a2.delegation_id));
    // two more settled explorer chains: the running chain is neither evicted nor counted
    for tc in ["b", "c"] {
        let s = reg.start(&start(tc, "explorer", tc), None).unwrap();
        let out = reg
            .settle(&settle(&s.delegation_id, SettleStatus::Completed, 1))
            .unwrap();
        assert!(out.evicted.is_empty());
    }
    assert!(reg.resolve("d1").is_some());
    assert_eq!(reg.resumable_list().len(), 2);
    // when it settles, the least recently used whole chain goes
    let out = reg
        .settle(&settle(&a2.delegation_id, SettleStatus::Completed, 1))
        .unwrap();
    assert_eq!(out.evicted.len(), 1);
    assert!(reg.resolve("d1").is_some(), "the chain just used stays");
    let list: Vec<String> = reg
        .resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect();
    assert_eq!(list[0], a2.delegation_id, "newest activity first");
    // every id of an evicted chain is gone together
    let gone = &out.evicted[0];
    assert!(reg.resolve(gone).is_none());
}

#[test]
fn model_binding_and_definition_on_resume() {
    let mut reg = Registry::with_id_source(ids());
    let a = reg
        .start(
            &StartDelegation {
                binding: Some(ModelBinding {
                    key: Some("acct2/gpt-5".into()),
                    model_id: Some("gpt-5".into()),
                }),
                definition: Some("v1".into()),
                ..start("a", "explorer", "A")
            },
            None,
        )
        .unwrap();
    reg.settle(&settle(&a.delegation_id, SettleStatus::Completed, 1))
        .unwrap();
    // the recorded key is allowed: kept
    let mut r2 = StartDelegation {
        candidates: Some(ResumeCandidates {
            allowed: vec!["acct1/gpt-5".into(), "acct2/gpt-5".into()],
            definition_binding: "acct1/o3".into(),
        }),
        definition: Some("v1".into()),
        ..resume("a2", "explorer", &a.delegation_id)
    };
    let s = reg.start(&r2, None).unwrap();
    assert_eq!(s.model_binding.key.as_deref(), Some("acct2/gpt-5"));
    assert_eq!(s.model_changed_from, None);
    assert!(s.diagnostics.is_empty());
    reg.settle(&settle(&s.delegation_id, SettleStatus::Completed, 1))
        .unwrap();
    // the key is gone and the definition changed: definition binding, both recorded
    r2.tool_call_id = "a3".into();
    r2.resume = Some(s.delegation_id.clone());
    r2.candidates = Some(ResumeCandidates {
        allowed: vec!["acct1/gpt-5".into()],
        definition_binding: "acct1/o3".into(),
    });
    r2.definition = Some("v2".into());
    let s3 = reg.start(&r2, None).unwrap();
    assert_eq!(s3.model_binding.key.as_deref(), Some("acct1/o3"));
    assert_eq!(s3.model_changed_from.as_deref(), Some("gpt-5"));
    let codes: Vec<Value> = s3.diagnostics.iter().map(|d| json!(d.code)).collect();
    assert_eq!(codes, ["MODEL_CHANGED", "DEFINITION_CHANGED"]);
    // clause 11: the diagnostic names the agent, the run it resumed and both fingerprints
    assert_eq!(
        s3.diagnostics[1].message,
        format!(
            "The definition of agent \"explorer\" changed since delegation {} (v1 → v2); the current definition applies.",
            s.delegation_id
        )
    );
    // bad candidates: INVALID_INPUT, nothing started
    reg.settle(&settle(&s3.delegation_id, SettleStatus::Completed, 1))
        .unwrap();
    let before = snapshot(&reg);
    r2.tool_call_id = "a4".into();
    r2.resume = Some(s3.delegation_id.clone());
    r2.candidates = Some(ResumeCandidates {
        allowed: vec![],
        definition_binding: "no-slash".into(),
    });
    assert_eq!(reg.start(&r2, None).unwrap_err().code(), "INVALID_INPUT");
    assert_eq!(snapshot(&reg), before);
}

#[test]
fn start_and_settle_reject_bad_input_without_changing_anything() {
    let mut reg = Registry::with_id_source(ids());
    let a = reg.start(&start("a", "explorer", "A"), None).unwrap();
    let before = snapshot(&reg);
    let cases: Vec<(StartDelegation, &str)> = vec![
        (start(" ", "explorer", "x"), "INVALID_INPUT"),
        (start("b", " .md ", "x"), "INVALID_INPUT"),
        (start("b", "explorer", "   "), "INVALID_INPUT"),
        (start("a", "explorer", "x"), "INVALID_STATE"), // the same Task call twice
    ];
    for (input, code) in cases {
        assert_eq!(
            reg.start(&input, None).unwrap_err().code(),
            code,
            "{input:?}"
        );
        assert_eq!(snapshot(&reg), before);
    }
    assert_eq!(
        reg.settle(&settle("zzz", SettleStatus::Completed, 1))
            .unwrap_err()
            .code(),
        "INVALID_STATE"
    );
    reg.settle(&settle(&a.delegation_id, SettleStatus::Completed, 1))
        .unwrap();
    let before = snapshot(&reg);
    // settling twice
    assert_eq!(
        reg.settle(&settle(&a.delegation_id, SettleStatus::Failed, 1))
            .unwrap_err()
            .code(),
        "INVALID_STATE"
    );
    assert_eq!(snapshot(&reg), before);
    // an id source that repeats itself cannot corrupt the reverse map
    let mut stuck = Registry::with_id_source(Box::new(|| Ok("same".to_string())));
    assert_eq!(
        stuck.start(&start("a", "x", "t"), None).unwrap_err().code(),
        "INVALID_STATE"
    );
    assert_eq!(stuck.chain_count(), 0);
}

// ---------------------------------------------------------------------------------------
// Clause 12: one row per rebuild rule.

fn task_row(tc: &str, args: Value, details: Value) -> Value {
    json!({"id": tc, "role": "tool", "toolName": "Task", "toolCallId": tc, "toolStatus": "success",
           "toolArgs": args, "toolResult": {"details": details}})
}

fn child(id: &str, tc: &str, agent: &str) -> Value {
    json!({"id": id, "role": "assistant", "content": format!("reply {id}"), "parentToolCallId": tc, "agentName": agent})
}

/// `(rule, transcript, request, expected Ok(latest id) or Err(code))`
type RebuildCase = (
    &'static str,
    Value,
    ResumeRequest,
    Result<&'static str, &'static str>,
);

#[test]
fn clause12_rebuild_table() {
    let table: Vec<RebuildCase> = vec![
        (
            "a Task row with a delegationId becomes a chain",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer")
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "later copy wins (running, then completed)",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "running"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "later copy wins (completed, then stopped)",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "stopped"})
                ),
            ]),
            req("D1", "explorer"),
            Err("NOT_RESUMABLE"),
        ),
        (
            "agent names are normalised (toolArgs, rows and Task.agent)",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "agents/Explorer.md", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "Explorer")
            ]),
            req("D1", "explorer.md"),
            Ok("D1"),
        ),
        (
            "agent from details when toolArgs are unparseable",
            json!([
                {"id": "t1", "role": "tool", "toolName": "task", "toolCallId": "t1", "toolArgs": "{not json", "toolResult": {"details": {"delegationId": "D1", "agent": "Explorer", "status": "completed"}}},
                child("c1", "t1", "explorer"),
            ]),
            req("D1", "explorer"),
            Err("NO_HISTORY"), // no brief recorded: nothing to seed the task with
        ),
        (
            "running rebuilds as interrupted",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "running"})
                ),
                child("c1", "t1", "explorer")
            ]),
            req("D1", "explorer"),
            Err("NOT_RESUMABLE"),
        ),
        (
            "no status recorded is trusted as settled",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1"})
                ),
                child("c1", "t1", "explorer")
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "no status and toolStatus error is failed (resumable)",
            json!([{"id": "t1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolStatus": "error", "toolArgs": {"agent": "explorer", "task": "T"}, "toolResult": {"details": {"delegationId": "D1"}}}, child("c1", "t1", "explorer")]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "no status and toolStatus running is interrupted",
            json!([{"id": "t1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolStatus": "running", "toolArgs": {"agent": "explorer", "task": "T"}, "toolResult": {"details": {"delegationId": "D1"}}}, child("c1", "t1", "explorer")]),
            req("D1", "explorer"),
            Err("NOT_RESUMABLE"),
        ),
        (
            "an unknown status is kept and not resumable",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "exploded"})
                ),
                child("c1", "t1", "explorer")
            ]),
            req("D1", "explorer"),
            Err("NOT_RESUMABLE"),
        ),
        (
            "runs link by toolArgs.resume; a middle id resolves",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T2", "resume": "D1"}),
                    json!({"delegationId": "D2", "status": "completed", "resumedFrom": "D1"})
                ),
                child("c2", "t2", "explorer"),
            ]),
            req("D1", "explorer"),
            Ok("D2"),
        ),
        (
            "a resume whose parent is missing is dropped",
            json!([
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T2", "resume": "GONE"}),
                    json!({"delegationId": "D2", "status": "completed"})
                ),
                child("c2", "t2", "explorer")
            ]),
            req("D2", "explorer"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "a resume recorded under another agent is dropped",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t2",
                    json!({"agent": "coder", "task": "T2", "resume": "D1"}),
                    json!({"delegationId": "D2", "status": "completed"})
                ),
                child("c2", "t2", "coder"),
            ]),
            req("D2", "coder"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "the chain whose child was dropped keeps its own latest",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t2",
                    json!({"agent": "coder", "task": "T2", "resume": "D1"}),
                    json!({"delegationId": "D2", "status": "completed"})
                ),
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "two runs resume the same run: the chain goes on from the later started",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T2", "resume": "D1"}),
                    json!({"delegationId": "D2", "status": "completed"})
                ),
                task_row(
                    "t3",
                    json!({"agent": "explorer", "task": "T3", "resume": "D1"}),
                    json!({"delegationId": "D3", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
            ]),
            req("D2", "explorer"),
            Ok("D3"),
        ),
        (
            "a resume pointing at itself is dropped",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T", "resume": "D1"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer")
            ]),
            req("D1", "explorer"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "a resume cycle is dropped",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T", "resume": "D2"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T", "resume": "D1"}),
                    json!({"delegationId": "D2", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
            ]),
            req("D1", "explorer"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "a rejected Task call (no delegationId) is not a chain",
            json!([task_row(
                "t1",
                json!({"agent": "explorer", "task": "T"}),
                json!({"error": "UNKNOWN_DELEGATION"})
            )]),
            req("D1", "explorer"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "a duplicate delegationId on a later call is skipped",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t2",
                    json!({"agent": "coder", "task": "T"}),
                    json!({"delegationId": "D1", "status": "stopped"})
                ),
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "rows out of order: a resume before its parent still links",
            json!([
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T2", "resume": "D1"}),
                    json!({"delegationId": "D2", "status": "completed"})
                ),
                child("c2", "t2", "explorer"),
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
            ]),
            req("D2", "explorer"),
            Ok("D2"), // the resume links decide which run is latest, not the rows' order
        ),
        (
            "reads come from the chain's rows: over budget leaves the list",
            json!([
                task_row("t1", json!({"agent": "explorer", "task": "T"}), json!({"delegationId": "D1", "status": "completed"})),
                {"id": "r1", "role": "tool", "toolName": "Read", "toolCallId": "r1", "toolArgs": {"path": "big"}, "toolResult": "\n".repeat(50_000), "parentToolCallId": "t1", "agentName": "explorer"},
            ]),
            req("D1", "explorer"),
            Err("READ_BUDGET_EXCEEDED"),
        ),
        (
            "the Task tool in any spelling (TASK, a blank toolCallId: known by its id)",
            json!([
                {"id": "t1", "role": "tool", "toolName": "TASK", "toolCallId": " ", "toolArgs": {"agent": "explorer", "task": "T"},
                 "toolResult": {"details": {"delegationId": "D1", "status": "completed"}}},
                child("c1", "t1", "explorer"),
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "a refused resume that answered NO_HISTORY dropped its chain",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                {"id": "x", "role": "assistant", "content": "boom", "status": "error", "parentToolCallId": "t1", "agentName": "explorer"},
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T2", "resume": "D1"}),
                    json!({"error": "NO_HISTORY", "message": "Delegation D1 has no recorded history"})
                ),
            ]),
            req("D1", "explorer"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "a chain with nothing to replay that nobody asked for still answers NO_HISTORY",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                {"id": "x", "role": "assistant", "content": "boom", "status": "error", "parentToolCallId": "t1", "agentName": "explorer"},
            ]),
            req("D1", "explorer"),
            Err("NO_HISTORY"),
        ),
        (
            "stopped chains do not evict a reusable one (clause 7 counts reusable chains)",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D2", "status": "stopped"})
                ),
                task_row(
                    "t3",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D3", "status": "aborted"})
                ),
                task_row(
                    "t4",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D4", "status": "running"})
                ),
            ]),
            req("D1", "explorer"),
            Ok("D1"),
        ),
        (
            "a chain that cannot be resumed is bounded apart (the oldest goes)",
            json!([
                task_row(
                    "t1",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D1", "status": "completed"})
                ),
                child("c1", "t1", "explorer"),
                task_row(
                    "t2",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D2", "status": "stopped"})
                ),
                task_row(
                    "t3",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D3", "status": "aborted"})
                ),
                task_row(
                    "t4",
                    json!({"agent": "explorer", "task": "T"}),
                    json!({"delegationId": "D4", "status": "stopped"})
                ),
            ]),
            req("D2", "explorer"),
            Err("UNKNOWN_DELEGATION"),
        ),
        (
            "a chain with no rows has no history",
            json!([task_row(
                "t1",
                json!({"agent": "explorer", "task": "T"}),
                json!({"delegationId": "D1", "status": "completed"})
            )]),
            req("D1", "explorer"),
            Err("NO_HISTORY"),
        ),
    ];
    for (rule, transcript, request, want) in table {
        let rows = rows(transcript);
        let mut reg = Registry::from_transcript(&rows);
        let got = reg.validate_resume(&request, Some(&rows));
        match (got, want) {
            (Ok(t), Ok(latest)) => assert_eq!(t.latest_delegation_id, latest, "{rule}"),
            (Err(e), Err(code)) => assert_eq!(e.code(), code, "{rule}: {e}"),
            (got, want) => panic!("{rule}: got {got:?}, want {want:?}"),
        }
        // the list never offers what validation refuses
        let listed = reg
            .resumable_list()
            .iter()
            .any(|c| c.delegation_id == request.delegation_id);
        if listed {
            assert!(reg.validate_resume(&request, Some(&rows)).is_ok(), "{rule}");
        }
    }
}

/// Rule 3 as `resolve` shows it: the status a rebuilt run carries, from `details.status`
/// or, with none recorded, from the row's `toolStatus`.
#[test]
fn clause12_recorded_status_table() {
    // (rule, the row's toolStatus, details, the status resolve shows)
    let table: [(&str, &str, Value, Option<&str>); 6] = [
        (
            "details.status wins",
            "success",
            json!({"delegationId": "D1", "status": "stopped"}),
            Some("stopped"),
        ),
        (
            "running is interrupted",
            "success",
            json!({"delegationId": "D1", "status": "running"}),
            Some("interrupted"),
        ),
        (
            "no status, toolStatus error: failed",
            "error",
            json!({"delegationId": "D1"}),
            Some("failed"),
        ),
        (
            "no status, toolStatus running: interrupted",
            "running",
            json!({"delegationId": "D1"}),
            Some("interrupted"),
        ),
        (
            "no status, toolStatus success: none recorded",
            "success",
            json!({"delegationId": "D1"}),
            None,
        ),
        (
            "an unknown status is kept",
            "success",
            json!({"delegationId": "D1", "status": "exploded"}),
            Some("exploded"),
        ),
    ];
    for (rule, tool_status, details, want) in table {
        let mut row = task_row("t1", json!({"agent": "explorer", "task": "T"}), details);
        row["toolStatus"] = json!(tool_status);
        let reg = Registry::from_transcript(&rows(json!([row, child("c1", "t1", "explorer")])));
        let info = reg
            .resolve("D1")
            .unwrap_or_else(|| panic!("{rule}: no chain"));
        assert_eq!(json!(info.status), json!(want), "{rule}");
    }
}

/// Rule 8: a settlement with no `completedAt` happened right after the latest time a row
/// at or before it records, its `createdAt` included, so it can be newer than a
/// settlement stored after it that recorded an earlier `completedAt` (the list is newest
/// activity first). A refusal happened at its row's `createdAt`.
#[test]
fn clause12_created_at_places_unrecorded_times() {
    let transcript = json!([
        {"id": "t2", "role": "tool", "toolName": "Task", "toolCallId": "t2", "toolStatus": "success",
         "createdAt": "2026-01-01T10:00:09Z",
         "toolArgs": {"agent": "explorer", "task": "T2", "description": "two"},
         "toolResult": {"details": {"delegationId": "D2", "status": "completed"}}},
        child("c2", "t2", "explorer"),
        task_row("t1", json!({"agent": "explorer", "task": "T1", "description": "one"}),
                 json!({"delegationId": "D1", "status": "completed",
                        "startedAt": "2026-01-01T10:00:01Z", "completedAt": "2026-01-01T10:00:07Z"})),
        child("c1", "t1", "explorer"),
    ]);
    let reg = Registry::from_transcript(&rows(transcript.clone()));
    let ids: Vec<String> = reg
        .resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect();
    // D2 settled at 10:00:09 (its row's createdAt), D1 at 10:00:07: D2 is the newest.
    assert_eq!(ids, ["D2", "D1"]);
    // Without the createdAt, D2's settlement has no time at or before it: transcript order.
    let mut plain = transcript;
    plain[0].as_object_mut().unwrap().remove("createdAt");
    let reg = Registry::from_transcript(&rows(plain));
    let ids: Vec<String> = reg
        .resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect();
    assert_eq!(ids, ["D1", "D2"]);
}

/// Rule 8: a settlement appended as a later copy with no `completedAt` happened right
/// after the latest time recorded at or before it, here its own start's `createdAt`
/// (10:00:09), so it is newer than a run that settled at 10:00:05 stored between.
#[test]
fn clause12_appended_settlement_takes_the_latest_time_before_it() {
    let running = json!({"delegationId": "D1", "status": "running"});
    let mut first = task_row("t1", json!({"agent": "explorer", "task": "T1"}), running);
    first["createdAt"] = json!("2026-01-01T10:00:09Z");
    let transcript = json!([
        first,
        child("c1", "t1", "explorer"),
        task_row(
            "t2",
            json!({"agent": "explorer", "task": "T2"}),
            json!({"delegationId": "D2", "status": "completed",
                        "startedAt": "2026-01-01T10:00:01Z", "completedAt": "2026-01-01T10:00:05Z"})
        ),
        child("c2", "t2", "explorer"),
        task_row(
            "t1",
            json!({"agent": "explorer", "task": "T1"}),
            json!({"delegationId": "D1", "status": "completed"})
        ),
    ]);
    let reg = Registry::from_transcript(&rows(transcript));
    let ids: Vec<String> = reg
        .resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect();
    assert_eq!(ids, ["D1", "D2"]);
}

#[test]
fn clause12_skips_are_reported() {
    let rows = rows(json!([
        task_row(
            "t1",
            json!({"agent": "explorer", "task": "T"}),
            json!({"error": "x"})
        ),
        task_row("t2", json!({"task": "T"}), json!({"delegationId": "D2"})),
        task_row(
            "t3",
            json!({"agent": "e", "task": "T"}),
            json!({"delegationId": "D3"})
        ),
        task_row(
            "t4",
            json!({"agent": "e", "task": "T"}),
            json!({"delegationId": "D3"})
        ),
        task_row(
            "t5",
            json!({"agent": "e", "task": "T", "resume": "nope"}),
            json!({"delegationId": "D5"})
        ),
        task_row(
            "t6",
            json!({"agent": "f", "task": "T", "resume": "D3"}),
            json!({"delegationId": "D6"})
        ),
        task_row(
            "t7",
            json!({"agent": "e", "task": "T", "resume": "D7"}),
            json!({"delegationId": "D7"})
        ),
        task_row(
            "t8",
            json!({"agent": "e", "task": "T", "resume": "D5"}),
            json!({"delegationId": "D8"})
        ),
    ]));
    let reg = Registry::from_transcript(&rows);
    let skips: Vec<(String, String)> = reg
        .rebuild_skips()
        .iter()
        .map(|s| {
            (
                s.tool_call_id.clone(),
                json!(s.reason).as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("t1", "NO_DELEGATION_ID"),
        ("t2", "NO_AGENT"),
        ("t4", "DUPLICATE_DELEGATION_ID"),
        ("t5", "MISSING_PARENT"),
        ("t6", "AGENT_MISMATCH"),
        ("t7", "CYCLE"),
        ("t8", "MISSING_PARENT"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(skips, want);
    assert_eq!(reg.chain_count(), 1);
}

#[test]
fn clause12_rebuild_applies_the_lru_bound_and_orders_by_latest_copy() {
    let mut v = Vec::new();
    for i in 1..=4 {
        let tc = format!("t{i}");
        v.push(task_row(&tc, json!({"agent": "explorer", "task": format!("T{i}"), "description": format!("label {i}")}), json!({"delegationId": format!("D{i}"), "status": "running"})));
        v.push(child(&format!("c{i}"), &tc, "explorer"));
    }
    // settle copies appended in another order: D1 last
    for i in [2, 4, 3, 1] {
        let tc = format!("t{i}");
        v.push(task_row(&tc, json!({"agent": "explorer", "task": format!("T{i}"), "description": format!("label {i}")}), json!({"delegationId": format!("D{i}"), "status": "completed"})));
    }
    let reg = Registry::from_transcript(&rows(Value::Array(v)));
    let ids: Vec<String> = reg
        .resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect();
    assert_eq!(ids, ["D1", "D3"]);
    assert_eq!(reg.chain_count(), 2);
    assert_eq!(
        reg.resumable_prompt(),
        "Reusable subagent sessions (same conversation only). To continue one, pass its `resume` id on Task. Saying \"reuse\" in prose is not enough; omit `resume` to start a new session. Do not pass `model` when resuming.\n\
- explorer / D1: label 1\n  Files read: none recorded\n\
- explorer / D3: label 3\n  Files read: none recorded"
    );
}

// ---------------------------------------------------------------------------------------
// Clause 13.

#[test]
fn clause13_chain_conversation() {
    let transcript = rows(json!([
        task_row("t1", json!({"agent": "explorer", "task": "T1"}), json!({"delegationId": "D1", "status": "completed"})),
        child("a", "t1", "explorer"),
        {"id": "u0", "role": "user", "content": "parent talks"},
        task_row("t2", json!({"agent": "explorer", "task": "T2", "resume": "D1"}), json!({"delegationId": "D2", "status": "completed"})),
        child("b", "t2", "explorer"),
        child("x", "t2", "coder"),
        child("c", "t2", "Explorer"),
    ]));
    let reg = Registry::from_transcript(&transcript);
    let conv = reg.chain_conversation(&transcript, "D1").unwrap();
    assert_eq!(conv.latest_delegation_id, "D2");
    let turns: Vec<(String, Vec<String>)> = conv
        .turns
        .iter()
        .map(|t| {
            (
                t.task.clone(),
                t.rows.iter().map(|r| r.id.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(
        turns,
        [
            ("T1".to_string(), vec!["a".to_string()]),
            ("T2".to_string(), vec!["b".to_string(), "c".to_string()])
        ]
    );
    assert_eq!(
        conv.turns[1].task_row.as_ref().map(|r| r.id.as_str()),
        Some("t2")
    );
    assert_eq!(
        reg.chain_conversation(&transcript, "nope")
            .unwrap_err()
            .code(),
        "UNKNOWN_DELEGATION"
    );
}

/// ADR 0279 clause 4, the model a resumed run continues on: a chain started on `recorded`
/// is resumed with `candidates` (the host's allowed keys and the definition's binding) or a
/// binding the host resolved itself. `modelChangedFrom` (and its `MODEL_CHANGED`
/// diagnostic, naming the new binding by its key, else its model id) only when the run
/// does not continue on the recorded model.
#[test]
fn clause4_model_changed_from_table() {
    fn b(key: Option<&str>, id: Option<&str>) -> ModelBinding {
        ModelBinding {
            key: key.map(Into::into),
            model_id: id.map(Into::into),
        }
    }
    fn cands(allowed: &[&str], definition: &str) -> Option<ResumeCandidates> {
        Some(ResumeCandidates {
            allowed: allowed.iter().map(|s| s.to_string()).collect(),
            definition_binding: definition.into(),
        })
    }
    let changed = |old: &str, now: &str| {
        vec![format!(
            "The chain's model \"{old}\" is no longer available; this run continues on \"{now}\" (modelChangedFrom: {old})."
        )]
    };
    #[allow(clippy::type_complexity)]
    let table: Vec<(
        &str,
        ModelBinding,
        Option<ResumeCandidates>,
        Option<ModelBinding>,
        ModelBinding,
        Option<&str>,
        Vec<String>,
    )> = vec![
        (
            "recorded key not allowed, the definition is the same key: no change",
            b(Some("a/x"), Some("x")),
            cands(&[], "a/x"),
            None,
            b(Some("a/x"), Some("x")),
            None,
            vec![],
        ),
        (
            "recorded key not allowed, the definition another key: changed",
            b(Some("a/x"), Some("x")),
            cands(&[], "a/y"),
            None,
            b(Some("a/y"), Some("y")),
            Some("x"),
            changed("x", "a/y"),
        ),
        (
            "a model id only, no allowed key of it, the definition the same model: no change",
            b(None, Some("x")),
            cands(&["b/y"], "a/x"),
            None,
            b(Some("a/x"), Some("x")),
            None,
            vec![],
        ),
        (
            "a model id only, the definition another model: changed",
            b(None, Some("x")),
            cands(&["b/y"], "a/z"),
            None,
            b(Some("a/z"), Some("z")),
            Some("x"),
            changed("x", "a/z"),
        ),
        (
            "the host's binding, the same model on another key: no change",
            b(Some("a/x"), Some("x")),
            None,
            Some(b(Some("b/x"), Some("x"))),
            b(Some("b/x"), Some("x")),
            None,
            vec![],
        ),
        (
            "the host's binding, another model named by its key",
            b(Some("a/x"), Some("x")),
            None,
            Some(b(Some("b/y"), Some("y"))),
            b(Some("b/y"), Some("y")),
            Some("x"),
            changed("x", "b/y"),
        ),
        (
            "the host's binding, another model with no key: named by its model id",
            b(Some("a/x"), None),
            None,
            Some(b(None, Some("y"))),
            b(None, Some("y")),
            Some("x"),
            changed("x", "y"),
        ),
        (
            "nothing given: the recorded binding",
            b(Some("a/x"), Some("x")),
            None,
            None,
            b(Some("a/x"), Some("x")),
            None,
            vec![],
        ),
    ];
    for (row, recorded, candidates, host, want, want_from, want_messages) in table {
        let mut reg = Registry::with_id_source(ids());
        let first = reg
            .start(
                &StartDelegation {
                    binding: Some(recorded),
                    ..start("t1", "explorer", "A")
                },
                None,
            )
            .unwrap();
        reg.settle(&settle(&first.delegation_id, SettleStatus::Completed, 1))
            .unwrap();
        let s = reg
            .start(
                &StartDelegation {
                    candidates,
                    binding: host,
                    ..resume("t2", "explorer", &first.delegation_id)
                },
                None,
            )
            .unwrap();
        assert_eq!(s.model_binding, want, "{row}");
        assert_eq!(s.model_changed_from.as_deref(), want_from, "{row}");
        let messages: Vec<String> = s.diagnostics.iter().map(|d| d.message.clone()).collect();
        assert_eq!(messages, want_messages, "{row}");
    }
}

/// ADR 0279 clause 8: a chain's reads are its runs' reads added at each settle: the files
/// once each, in the order first read, and the lines summed.
#[test]
fn clause8_a_chains_reads_add_up_across_runs() {
    let mut reg = Registry::with_id_source(ids());
    let with = |id: &str, files: &[&str], lines: u64| SettleDelegation {
        delegation_id: id.into(),
        status: SettleStatus::Completed,
        reads: Some(ChainReads {
            files: files.iter().map(|f| f.to_string()).collect(),
            lines,
        }),
        rows: None,
    };
    let first = reg.start(&start("r1", "explorer", "A"), None).unwrap();
    reg.settle(&with(&first.delegation_id, &["a.rs", "b.rs"], 10))
        .unwrap();
    let second = reg
        .start(&resume("r2", "explorer", &first.delegation_id), None)
        .unwrap();
    reg.settle(&with(&second.delegation_id, &["b.rs", "c.rs", "a.rs"], 5))
        .unwrap();
    assert_eq!(
        reg.resolve(&first.delegation_id).unwrap().reads,
        ChainReads {
            files: vec!["a.rs".into(), "b.rs".into(), "c.rs".into()],
            lines: 15,
        }
    );
}
