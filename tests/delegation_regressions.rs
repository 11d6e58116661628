//! Regression tests of the resumable delegations for issue 7 (ADR 0279 clauses 4, 7, 8
//! and 12): each test here failed on the code before its fix.
#![cfg(not(target_arch = "wasm32"))]

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use delegate_context::delegation::{
    count_chain_reads, seed_delegate_messages, ChainReads, IdSource, Registry, ResumeRequest,
    SeedInput, SettleDelegation, SettleStatus, StartDelegation, MAX_RESUMABLE_READ_LINES,
};
use delegate_context::tokens::request_overhead_tokens;
use delegate_context::transcript::ProviderBinding;
use delegate_context::transcript::{normalize_tool_name, rows_from_value, UiMessage};
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

fn start(tc: &str, agent: &str) -> StartDelegation {
    StartDelegation {
        tool_call_id: tc.into(),
        agent: agent.into(),
        task: format!("task of {tc}"),
        ..Default::default()
    }
}

fn req(id: &str, agent: &str) -> ResumeRequest {
    ResumeRequest {
        delegation_id: id.into(),
        agent: agent.into(),
        model: None,
    }
}

/// Settle with reads only (the run's rows unknown: it may replay something).
fn settle(id: &str, status: SettleStatus, lines: u64) -> SettleDelegation {
    SettleDelegation {
        delegation_id: id.into(),
        status,
        reads: Some(ChainReads {
            files: vec![],
            lines,
        }),
        rows: None,
    }
}

/// Start a chain of `agent` and settle it; returns its delegationId.
fn chain(reg: &mut Registry, tc: &str, agent: &str, status: SettleStatus, lines: u64) -> String {
    let id = reg.start(&start(tc, agent), None).unwrap().delegation_id;
    reg.settle(&settle(&id, status, lines)).unwrap();
    id
}

/// Start a chain whose run wrote only a failed assistant row: nothing to replay.
fn empty_chain(reg: &mut Registry, tc: &str, agent: &str) -> String {
    let id = reg.start(&start(tc, agent), None).unwrap().delegation_id;
    let written = rows(json!([
        {"id": format!("{tc}-a"), "role": "assistant", "content": "boom", "status": "error", "parentToolCallId": tc, "agentName": agent}
    ]));
    reg.settle(&SettleDelegation {
        delegation_id: id.clone(),
        status: SettleStatus::Completed,
        reads: None,
        rows: Some(written),
    })
    .unwrap();
    id
}

fn listed(reg: &Registry) -> Vec<String> {
    reg.resumable_list()
        .into_iter()
        .map(|c| c.delegation_id)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Issue 7 part 1 (clause 7): the bound counts reusable chains.

#[test]
fn non_reusable_chains_never_evict_a_resumable_one() {
    let mut reg = Registry::with_id_source(ids());
    let a = chain(&mut reg, "a", "explorer", SettleStatus::Completed, 1);
    let b = chain(&mut reg, "b", "explorer", SettleStatus::Failed, 1);
    // five chains that cannot be resumed, all newer than a and b
    let stopped = chain(&mut reg, "c", "explorer", SettleStatus::Stopped, 1);
    let aborted = chain(&mut reg, "d", "explorer", SettleStatus::Aborted, 1);
    let interrupted = chain(&mut reg, "e", "explorer", SettleStatus::Interrupted, 1);
    let over = chain(
        &mut reg,
        "f",
        "explorer",
        SettleStatus::Completed,
        MAX_RESUMABLE_READ_LINES + 1,
    );
    let empty = empty_chain(&mut reg, "g", "explorer");
    assert_eq!(listed(&reg), [b.clone(), a.clone()], "both stay resumable");
    for id in [&a, &b] {
        assert!(reg.validate_resume(&req(id, "explorer"), None).is_ok());
    }
    // the non-reusable ones are bounded too: the two most recent are kept and still
    // answer their own code; the older ones are gone
    assert_eq!(
        reg.validate_resume(&req(&over, "explorer"), None)
            .unwrap_err()
            .code(),
        "READ_BUDGET_EXCEEDED"
    );
    for gone in [&stopped, &aborted, &interrupted] {
        assert!(reg.resolve(gone).is_none(), "{gone} kept");
    }
    assert_eq!(
        reg.validate_resume(&req(&empty, "explorer"), None)
            .unwrap_err()
            .code(),
        "NO_HISTORY"
    );
    assert_eq!(reg.chain_count(), 3); // a, b, over (empty was dropped by its answer)
}

#[test]
fn a_kept_stopped_chain_answers_not_resumable() {
    let mut reg = Registry::with_id_source(ids());
    let a = chain(&mut reg, "a", "explorer", SettleStatus::Completed, 1);
    let b = chain(&mut reg, "b", "explorer", SettleStatus::Completed, 1);
    let stopped = chain(&mut reg, "c", "explorer", SettleStatus::Stopped, 1);
    let e = reg
        .validate_resume(&req(&stopped, "explorer"), None)
        .unwrap_err();
    assert_eq!(e.code(), "NOT_RESUMABLE");
    assert_eq!(listed(&reg), [b, a]);
    // a third reusable chain evicts the least recently used reusable one only
    let c = chain(&mut reg, "d", "explorer", SettleStatus::Completed, 1);
    assert_eq!(listed(&reg).len(), 2);
    assert!(listed(&reg).contains(&c));
    assert!(reg.resolve(&stopped).is_some());
}

// ---------------------------------------------------------------------------------------
// Issue 7 part 2 (clause 4, last row): no history → dropped, answered once.

#[test]
fn a_chain_with_nothing_to_replay_is_answered_once_then_unknown() {
    let mut reg = Registry::with_id_source(ids());
    let keep = chain(&mut reg, "k", "coder", SettleStatus::Completed, 1);
    let empty = empty_chain(&mut reg, "g", "explorer");
    assert_eq!(listed(&reg), std::slice::from_ref(&keep), "never listed");
    let before = reg.chain_count();
    let e = reg
        .validate_resume(&req(&empty, "explorer"), None)
        .unwrap_err();
    assert_eq!(e.code(), "NO_HISTORY");
    // dropped at once: registry entry and every reverse-map entry
    assert_eq!(reg.chain_count(), before - 1);
    assert!(reg.resolve(&empty).is_none());
    let e = reg
        .validate_resume(&req(&empty, "explorer"), None)
        .unwrap_err();
    assert_eq!(e.code(), "UNKNOWN_DELEGATION");
    // its Task call id is free again? no: a Task call starts one run only, but the
    // dropped chain's call no longer blocks anything
    assert!(reg.start(&start("g", "explorer"), None).is_ok());
}

// ---------------------------------------------------------------------------------------
// Issue 7 part 3: check order and the NO_HISTORY listing.

#[test]
fn a_wrong_agent_is_agent_mismatch_even_while_the_chain_runs() {
    let mut reg = Registry::with_id_source(ids());
    let running = reg.start(&start("a", "explorer"), None).unwrap();
    let e = reg
        .validate_resume(&req(&running.delegation_id, "coder"), None)
        .unwrap_err();
    assert_eq!(e.code(), "AGENT_MISMATCH", "{e}");
    // the right agent still hears that it runs
    let e = reg
        .validate_resume(&req(&running.delegation_id, "explorer"), None)
        .unwrap_err();
    assert_eq!(e.code(), "DELEGATION_RUNNING");
}

#[test]
fn no_history_lists_the_chains_that_remain_reusable() {
    let mut reg = Registry::with_id_source(ids());
    let keep = chain(&mut reg, "k", "coder", SettleStatus::Completed, 1);
    let empty = empty_chain(&mut reg, "g", "explorer");
    let e = reg
        .validate_resume(&req(&empty, "explorer"), None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("Delegation {empty} has no recorded history to resume; start a new delegation. Reusable: coder / {keep}.")
    );
    let fields = e.fields();
    assert!(
        fields
            .iter()
            .any(|(k, v)| *k == "resumable" && v.to_string() == keep),
        "{fields:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Issue 7 part 4: tool names fold case before the legacy map.

#[test]
fn tool_names_fold_case() {
    for (name, want) in [
        ("rEaD", "read"),
        ("READ", "read"),
        ("browserPREVIEW", "browser_preview"),
        ("Browser_Preview", "browser_preview"),
        ("browser-preview", "browser_preview"),
        ("TASK", "task"),
        ("taskWait", "task_wait"),
        ("TASK_WAIT", "task_wait"),
        ("GREP", "grep"),
        ("Glob", "glob"),
    ] {
        assert_eq!(normalize_tool_name(name), want, "{name}");
    }
    // and the rules that use them: reads, Task rows of a rebuild
    let transcript = rows(json!([
        {"id": "t1", "role": "tool", "toolName": "TASK", "toolCallId": "t1", "toolArgs": {"agent": "explorer", "task": "T"},
         "toolResult": {"details": {"delegationId": "D1", "status": "completed"}}},
        {"id": "r1", "role": "tool", "toolName": "rEaD", "toolCallId": "r1", "toolArgs": {"path": "a.rs"}, "toolResult": "1\n2", "parentToolCallId": "t1", "agentName": "explorer"},
        {"id": "r2", "role": "tool", "toolName": "browserPREVIEW", "toolCallId": "r2", "toolArgs": {"path": "b.html"}, "toolResult": "x", "parentToolCallId": "t1", "agentName": "explorer"},
    ]));
    let reads = count_chain_reads(&transcript[1..]);
    assert_eq!(reads.files, ["a.rs", "b.html"]);
    assert_eq!(reads.lines, 3);
    let reg = Registry::from_transcript(&transcript);
    assert_eq!(listed(&reg), ["D1"]);
}

// ---------------------------------------------------------------------------------------
// Issue 7 part 8: a registry of 20,000 chains stays fast and its errors stay short.

#[test]
fn twenty_thousand_chains_settle_fast_and_errors_stay_short() {
    let mut n = 0u64;
    let mut reg = Registry::with_id_source(Box::new(move || {
        n += 1;
        Ok(format!("{n:08x}-0000-4000-8000-000000000000"))
    }));
    let t = Instant::now();
    for i in 0..20_000 {
        // distinct agents: every chain stays resumable (2 per agent)
        chain(
            &mut reg,
            &format!("t{i}"),
            &format!("agent-{i}"),
            SettleStatus::Completed,
            1,
        );
    }
    let elapsed = t.elapsed();
    eprintln!("20,000 start+settle pairs: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert_eq!(reg.chain_count(), 20_000);
    let e = reg
        .validate_resume(&req("no-such-id", "x"), None)
        .unwrap_err();
    let text = e.to_string();
    assert!(text.len() < 2_000, "{} bytes", text.len());
    assert!(
        text.ends_with("(+19980 more)."),
        "{}",
        &text[text.len() - 40..]
    );
    match e {
        Error::UnknownDelegation { resumable, .. } => assert_eq!(resumable.len(), 20),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Issue 7 part 6 (ADR 0299 clause 7): a seed plus the request overhead starts below
// hardLimit. Before, a seed of about 15,500 tokens against a hardLimit of 16,000 with
// 3,000 tokens of system prompt and tools was returned whole, and compacted on its
// first request.

#[test]
fn a_seed_plus_its_request_overhead_starts_below_hard_limit() {
    let mut transcript = vec![
        json!({"id": "u", "role": "user", "content": "Survey the parser", "parentToolCallId": "t1", "agentName": "explorer"}),
    ];
    for i in 0..7 {
        transcript.push(json!({"id": format!("a{i}"), "role": "assistant", "content": "", "parentToolCallId": "t1", "agentName": "explorer"}));
        transcript.push(json!({"id": format!("r{i}"), "role": "tool", "toolName": "read", "toolCallId": format!("r{i}"),
            "toolArgs": {"path": format!("f{i}")}, "toolResult": "x".repeat(8_800), "parentToolCallId": "t1", "agentName": "explorer"}));
    }
    let rows = rows(Value::Array(transcript));
    let system_prompt = "s".repeat(10_000);
    let tools = json!([{"name": "read", "description": "d".repeat(1_950), "parameters": {"type": "object"}}]);
    let overhead = request_overhead_tokens(Some(&system_prompt), Some(&tools));
    assert!((3_000..3_100).contains(&overhead), "{overhead}");
    let seed =
        |overhead_tokens: Option<f64>, system_prompt: Option<String>, tools: Option<Value>| {
            seed_delegate_messages(&SeedInput {
                brief: "Survey the parser".into(),
                rows: rows.clone(),
                chain: None,
                binding: ProviderBinding {
                    provider: "p".into(),
                    model: "m".into(),
                    api: None,
                    thinking_signature: None,
                },
                hard_limit: 16_000.0,
                overhead_tokens,
                system_prompt,
                tools,
            })
            .unwrap()
        };
    let bare = seed(None, None, None);
    assert!(!bare.truncated);
    assert!((13_000..16_000).contains(&bare.tokens), "{}", bare.tokens);
    assert!(bare.tokens + overhead >= 16_000, "the case of the issue");
    for sized in [
        seed(None, Some(system_prompt.clone()), Some(tools.clone())),
        seed(Some(overhead as f64), None, None),
    ] {
        assert_eq!(sized.overhead_tokens, overhead);
        assert!(sized.truncated);
        assert!(
            sized.tokens + overhead < 16_000,
            "{} + {overhead}",
            sized.tokens
        );
        assert_eq!(
            sized.dropped.tool_call_ids.first().map(String::as_str),
            Some("r0")
        );
    }
    // an overhead at or above hardLimit leaves the brief alone, flagged
    let over = seed(Some(16_000.0), None, None);
    assert_eq!(over.messages.len(), 1);
    assert!(over.brief_over_limit);
}
