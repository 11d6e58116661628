//! Property tests of the resumable delegations (ADR 0279, ADR 0299 clause 7):
//! - seeded histories are provider-valid, start with the brief, fit hardLimit unless the
//!   brief alone does not, hold nothing from another chain or agent, and keep the most
//!   recent turns: no stripped tool-call pair newer than every message dropped whole
//!   would still fit (ADR 0299 clause 7);
//! - restart equivalence: a registry driven through random start / work / settle /
//!   resume / evict sequences, rebuilt from the rows the host would have written (a
//!   later copy appended, with or without times; the row rewritten in place with
//!   `completedAt`; and in place with a resumed run's row stored before its parent's), gives
//!   the same resumable list, prompt, validation answers and seeds (the binding key is
//!   what a rebuild cannot know), and a rebuilt registry keeps working as the live one.
//!   The sequences reach every clause-7 and clause-4 rule: reusable and non-reusable
//!   chains bounded apart, chains with nothing to replay dropped by their `NO_HISTORY`
//!   answer (the host writes the refused Task row), over-budget chains kept.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use delegate_context::delegation::{
    seed_delegate_messages, select_chain_rows, ChainSelector, IdSource, ModelBinding,
    RebuildSkipReason, Registry, ResumeRequest, SeedInput, SeedResult, SettleDelegation,
    SettleStatus, StartDelegation, MAX_RESUMABLE_CHAINS_PER_AGENT,
};
use delegate_context::message::{AgentMessage, ContentBlock};
use delegate_context::tokens::{estimate_tokens, sum_estimates};
use delegate_context::transcript::{rows_from_value, ProviderBinding, RowFilter, UiMessage};
use proptest::prelude::*;
use serde_json::{json, Value};

fn row(v: Value) -> UiMessage {
    rows_from_value(json!([v]), "rows").unwrap().remove(0)
}

fn binding() -> ProviderBinding {
    ProviderBinding {
        provider: "anthropic".into(),
        model: "claude-test".into(),
        api: Some("anthropic-messages".into()),
        thinking_signature: None,
    }
}

/// Provider validity: each assistant's tool calls are answered by the results that
/// directly follow it (one each), and no result appears anywhere else.
fn assert_provider_valid(ms: &[AgentMessage]) -> Result<(), TestCaseError> {
    let mut i = 0;
    while i < ms.len() {
        match &ms[i] {
            AgentMessage::Assistant(a) => {
                let mut want: HashSet<&str> = a.tool_calls().map(|c| c.id.as_str()).collect();
                prop_assert_eq!(want.len(), a.tool_calls().count(), "duplicate call ids");
                prop_assert!(!a.content.is_empty(), "empty assistant");
                if want.is_empty() {
                    prop_assert_ne!(a.stop_reason.as_deref(), Some("toolUse"));
                }
                i += 1;
                while i < ms.len() {
                    let Some(r) = ms[i].as_tool_result() else {
                        break;
                    };
                    prop_assert!(want.remove(r.tool_call_id.as_str()), "orphan result");
                    i += 1;
                }
                prop_assert!(want.is_empty(), "unanswered calls {:?}", want);
            }
            AgentMessage::ToolResult(_) => {
                prop_assert!(false, "result without its call at {}", i);
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// ADR 0299 clause 7, "the most recent turns are preserved": no tool-call pair the
/// truncation left stripped, newer than every message it dropped whole, would still fit
/// (`full`: the untruncated seed). Checked from the outside: the seed is aligned with the
/// full history as a subsequence (a stripped carrier without its calls).
fn assert_no_pair_that_fits_is_left_out(
    full: &[AgentMessage],
    seed: &SeedResult,
    limit: u64,
) -> Result<(), TestCaseError> {
    let stripped: HashSet<&str> = seed
        .dropped
        .tool_call_ids
        .iter()
        .map(String::as_str)
        .collect();
    let without_calls = |m: &AgentMessage| -> Option<AgentMessage> {
        let mut a = m.as_assistant()?.clone();
        a.content
            .retain(|b| !matches!(b, ContentBlock::ToolCall(_)));
        a.stop_reason = Some("stop".into());
        Some(AgentMessage::Assistant(a))
    };
    let calls_of = |m: &AgentMessage| -> Vec<String> {
        m.as_assistant()
            .map(|a| a.tool_calls().map(|c| c.id.clone()).collect())
            .unwrap_or_default()
    };
    // each full message's version in the seed, if kept
    let mut kept: Vec<Option<&AgentMessage>> = vec![None; full.len()];
    let mut k = 0;
    for (i, m) in full.iter().enumerate() {
        let Some(t) = seed.messages.get(k) else {
            break;
        };
        if t == m || without_calls(m).as_ref() == Some(t) {
            kept[i] = Some(t);
            k += 1;
        }
    }
    prop_assert_eq!(
        k,
        seed.messages.len(),
        "the seed is a subsequence of the history"
    );
    // the last message dropped whole (not a part of a stripped pair)
    let mut cut = 0;
    for (i, m) in full.iter().enumerate() {
        if kept[i].is_some() {
            continue;
        }
        let calls = calls_of(m);
        let part_of_pair = match m {
            AgentMessage::ToolResult(r) => stripped.contains(r.tool_call_id.as_str()),
            AgentMessage::Assistant(_) => {
                !calls.is_empty()
                    && calls.iter().all(|c| stripped.contains(c.as_str()))
                    && without_calls(m).and_then(|a| a.as_assistant().map(|a| a.content.is_empty()))
                        == Some(true)
            }
            _ => false,
        };
        if !part_of_pair {
            cut = i;
        }
    }
    for (c, m) in full.iter().enumerate().skip(cut + 1) {
        let calls = calls_of(m);
        if calls.is_empty() || !calls.iter().all(|id| stripped.contains(id.as_str())) {
            continue;
        }
        let now = kept[c].map_or(0, estimate_tokens);
        let results: u64 = full
            .iter()
            .enumerate()
            .skip(c + 1)
            .filter(|(j, r)| {
                kept[*j].is_none()
                    && r.as_tool_result()
                        .is_some_and(|r| calls.contains(&r.tool_call_id))
            })
            .map(|(_, r)| estimate_tokens(r))
            .sum();
        let grown = seed.tokens - now + estimate_tokens(m) + results;
        prop_assert!(
            grown >= limit,
            "the stripped pair {:?} at {} would fit: {} < {}",
            calls,
            c,
            grown,
            limit
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Seeds

#[derive(Clone, Debug)]
enum RowSpec {
    User(u8),
    Assistant {
        text: u16,
        thinking: bool,
        failed: bool,
    },
    Tool {
        size: u16,
        status: u8,
        dup: bool,
    },
    Foreign {
        other_agent: bool,
    },
}

fn row_spec() -> impl Strategy<Value = RowSpec> {
    prop_oneof![
        2 => any::<u8>().prop_map(RowSpec::User),
        3 => (0u16..400, any::<bool>(), prop::bool::weighted(0.15))
            .prop_map(|(text, thinking, failed)| RowSpec::Assistant { text, thinking, failed }),
        5 => (0u16..3000, 0u8..5, prop::bool::weighted(0.05))
            .prop_map(|(size, status, dup)| RowSpec::Tool { size, status, dup }),
        1 => any::<bool>().prop_map(|other_agent| RowSpec::Foreign { other_agent }),
    ]
}

const BRIEF: &str = "Investigate the flaky parser test and report the cause.";

fn build_rows(specs: &[RowSpec]) -> Vec<UiMessage> {
    let mut rows = vec![row(json!({
        "id": "task-1", "role": "tool", "toolName": "Task", "toolCallId": "task-1",
        "toolArgs": {"agent": "explorer", "task": BRIEF}
    }))];
    let mut last_call = String::from("none");
    for (i, s) in specs.iter().enumerate() {
        let parent = if i % 3 == 2 { "task-2" } else { "task-1" };
        let base = json!({"id": format!("r{i}"), "parentToolCallId": parent, "agentName": if i % 2 == 0 { "Explorer" } else { "explorer.md" }});
        let mut v = base.clone();
        let o = v.as_object_mut().unwrap();
        match s {
            RowSpec::User(k) => {
                o.insert("role".into(), json!("user"));
                let content = match k % 4 {
                    0 => BRIEF.to_string(),
                    1 => "   ".to_string(),
                    _ => format!("continue with step {k}"),
                };
                o.insert("content".into(), json!(content));
            }
            RowSpec::Assistant {
                text,
                thinking,
                failed,
            } => {
                o.insert("role".into(), json!("assistant"));
                o.insert("content".into(), json!("a".repeat(*text as usize)));
                if *thinking {
                    o.insert("thinking".into(), json!("t".repeat(*text as usize / 2 + 1)));
                }
                if *failed {
                    o.insert("status".into(), json!("error"));
                }
                o.insert(
                    "usage".into(),
                    json!({"inputTokens": 5000, "outputTokens": 10, "totalTokens": 5010}),
                );
            }
            RowSpec::Tool { size, status, dup } => {
                let call = if *dup {
                    last_call.clone()
                } else {
                    format!("call-{i}")
                };
                last_call = call.clone();
                o.insert("role".into(), json!("tool"));
                o.insert(
                    "toolName".into(),
                    json!(["Read", "grep", "bash", "edit"][i % 4]),
                );
                o.insert("toolCallId".into(), json!(call));
                o.insert(
                    "toolArgs".into(),
                    json!({"path": format!("src/f{}.rs", i % 7)}),
                );
                let st = ["success", "error", "running", "denied", "success"][*status as usize];
                o.insert("toolStatus".into(), json!(st));
                if st != "running" {
                    o.insert(
                        "toolResult".into(),
                        json!({"content": [{"type": "text", "text": "x".repeat(*size as usize)}]}),
                    );
                }
            }
            RowSpec::Foreign { other_agent } => {
                o.insert("role".into(), json!("assistant"));
                o.insert("content".into(), json!("FOREIGN content"));
                if *other_agent {
                    o.insert("agentName".into(), json!("coder"));
                } else {
                    o.insert("parentToolCallId".into(), json!("task-9"));
                }
            }
        }
        rows.push(row(v));
    }
    rows
}

/// `default` cases, or `PROPTEST_CASES` when it is set (scripts/mutants.sh runs 32,
/// scripts/explore.sh more); the test command leaves it unset.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(2000), ..ProptestConfig::default() })]

    #[test]
    fn seeds_are_provider_valid_start_with_the_brief_and_fit(
        specs in prop::collection::vec(row_spec(), 0..40),
        hard_limit in 1u64..6000,
    ) {
        let rows = build_rows(&specs);
        let chain = ChainSelector { tool_call_ids: vec!["task-1".into(), "task-2".into()], agent: "explorer".into() };
        let seeded = seed_delegate_messages(&SeedInput {
            brief: BRIEF.into(),
            rows: rows.clone(),
            chain: Some(chain.clone()),
            binding: binding(),
            hard_limit: hard_limit as f64,
            overhead_tokens: None,
            system_prompt: None,
            tools: None,
        }).unwrap();
        let ms = &seeded.messages;
        // starts with the brief, and the brief appears once
        let first = serde_json::to_value(&ms[0]).unwrap();
        prop_assert_eq!(&first["role"], "user");
        prop_assert_eq!(&first["content"][0]["text"], BRIEF);
        let text = serde_json::to_string(ms).unwrap();
        prop_assert_eq!(text.matches(BRIEF).count(), 1);
        // provider-valid
        assert_provider_valid(ms)?;
        // fits unless the brief alone does not
        prop_assert_eq!(seeded.tokens, sum_estimates(ms));
        if seeded.brief_over_limit {
            prop_assert_eq!(ms.len(), 1);
        } else {
            prop_assert!(seeded.tokens < hard_limit, "{} >= {}", seeded.tokens, hard_limit);
        }
        // nothing from another chain or agent
        prop_assert!(!text.contains("FOREIGN"));
        // every assistant is stamped with the delegate's own binding
        for m in ms {
            if let AgentMessage::Assistant(a) = m {
                prop_assert_eq!(a.provider.as_deref(), Some("anthropic"));
                prop_assert_eq!(a.model.as_deref(), Some("claude-test"));
            }
        }
        // untruncated seeds keep the whole converted history
        let full = seed_delegate_messages(&SeedInput {
            brief: BRIEF.into(),
            rows: select_chain_rows(&rows, &chain).into_iter().cloned().collect(),
            chain: None,
            binding: binding(),
            hard_limit: 1e12,
            overhead_tokens: None,
            system_prompt: None,
            tools: None,
        }).unwrap();
        prop_assert!(!full.truncated);
        assert_provider_valid(&full.messages)?;
        prop_assert!(ms.len() <= full.messages.len());
        if !seeded.truncated {
            prop_assert_eq!(&full.messages, ms);
        } else {
            prop_assert_eq!(seeded.dropped.tokens, full.tokens - seeded.tokens);
            for m in ms {
                if let AgentMessage::Assistant(a) = m {
                    prop_assert_eq!(a.usage.as_ref().and_then(|u| u.total_tokens), Some(0.0));
                }
            }
        }
        // the most recent turns are kept: every stripped pair that fits again is back
        assert_no_pair_that_fits_is_left_out(&full.messages, &seeded, hard_limit)?;
        // what survives is a subsequence: the newest turns are preferred
        let tool_ids: Vec<String> = ms.iter().filter_map(|m| m.as_tool_result()).map(|r| r.tool_call_id.clone()).collect();
        for id in &seeded.dropped.tool_call_ids {
            prop_assert!(!tool_ids.contains(id));
            prop_assert!(!ms.iter().filter_map(|m| m.as_assistant()).any(|a| a.content.iter().any(|b| matches!(b, ContentBlock::ToolCall(c) if &c.id == id))));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Restart equivalence

#[derive(Clone, Debug)]
enum Op {
    New {
        agent: u8,
        desc: bool,
    },
    Resume {
        target: u16,
        agent_ok: bool,
        model: bool,
    },
    Work {
        run: u8,
        kind: u8,
        size: u16,
    },
    Settle {
        run: u8,
        status: u8,
    },
    Restart,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..3, any::<bool>()).prop_map(|(agent, desc)| Op::New { agent, desc }),
        3 => (any::<u16>(), prop::bool::weighted(0.85), prop::bool::weighted(0.1))
            .prop_map(|(target, agent_ok, model)| Op::Resume { target, agent_ok, model }),
        8 => (any::<u8>(), 0u8..9, any::<u16>()).prop_map(|(run, kind, size)| Op::Work { run, kind, size }),
        4 => (any::<u8>(), 0u8..12).prop_map(|(run, status)| Op::Settle { run, status }),
        1 => Just(Op::Restart),
    ]
}

const AGENTS: [&str; 3] = ["Explorer", "coder.md", "code_reviewer"];
const NORMAL: [&str; 3] = ["explorer", "coder", "code-reviewer"];

fn id_source(counter: Rc<Cell<u64>>) -> IdSource {
    Box::new(move || {
        let n = counter.get();
        counter.set(n + 1);
        Ok(format!("00000000-0000-4000-8000-{n:012}"))
    })
}

struct Running {
    delegation_id: String,
    task_row: Value,
    agent: usize,
}

/// How the host writes a Task row's settlement (issue 16: the rebuild must give the live
/// registry back for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Writes {
    /// A later copy appended; no times recorded (the row position is all there is).
    Appended,
    /// A later copy appended, with `startedAt` / `completedAt` / `createdAt`.
    AppendedTimed,
    /// The row rewritten in place (ADR 0279 §12), times recorded: row order is start order.
    InPlace,
    /// In place, and a resumed run's row stored before its parent's (rows out of order).
    OutOfOrder,
}

const WRITES: [Writes; 4] = [
    Writes::Appended,
    Writes::AppendedTimed,
    Writes::InPlace,
    Writes::OutOfOrder,
];

/// Milliseconds after 2026-01-01T00:00:00Z, as an ISO string.
fn iso(ms: u64) -> String {
    format!(
        "2026-01-01T{:02}:{:02}:{:02}.{:03}Z",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

struct Host {
    rows: Vec<UiMessage>,
    reg: Registry,
    counter: Rc<Cell<u64>>,
    running: Vec<Running>,
    issued: Vec<(String, usize)>,
    seq: u64,
    restarts: u64,
    comparisons: u64,
    writes: Writes,
    /// The host's clock, in milliseconds (one tick per Task row event).
    now: u64,
}

impl Host {
    fn writing(writes: Writes) -> Self {
        let counter = Rc::new(Cell::new(0));
        Host {
            rows: Vec::new(),
            reg: Registry::with_id_source(id_source(counter.clone())),
            counter,
            running: Vec::new(),
            issued: Vec::new(),
            seq: 0,
            restarts: 0,
            comparisons: 0,
            writes,
            now: 0,
        }
    }

    fn timed(&self) -> bool {
        self.writes != Writes::Appended
    }

    fn tick(&mut self) -> String {
        self.now += 1;
        iso(self.now)
    }

    fn task_row_at(&self, tool_call_id: &str) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| r.is_task_row() && r.task_call_id() == tool_call_id)
    }

    fn task_row_of(&self, delegation_id: &str) -> Option<usize> {
        self.rows.iter().position(|r| {
            r.is_task_row()
                && r.tool_result
                    .as_ref()
                    .and_then(|t| t["details"]["delegationId"].as_str())
                    == Some(delegation_id)
        })
    }

    /// The settled copy of a Task row: appended, or written over the row in place.
    fn write_settled(&mut self, copy: Value) {
        let at = match self.writes {
            Writes::Appended | Writes::AppendedTimed => None,
            Writes::InPlace | Writes::OutOfOrder => {
                self.task_row_at(copy["toolCallId"].as_str().unwrap_or_default())
            }
        };
        match at {
            Some(at) => self.rows[at] = row(copy),
            None => self.push(copy),
        }
    }

    fn next(&mut self, prefix: &str) -> String {
        self.seq += 1;
        format!("{prefix}-{}", self.seq)
    }

    fn push(&mut self, v: Value) {
        self.rows.push(row(v));
    }

    fn start(&mut self, agent: usize, desc: bool, resume: Option<String>, model: bool) {
        let tc = self.next("tc");
        let task = format!("  Task {} for {}  ", self.seq, NORMAL[agent]);
        let mut args = json!({"agent": AGENTS[agent], "task": task});
        if desc {
            args["description"] = json!(format!("label {}", self.seq));
        }
        if let Some(r) = &resume {
            args["resume"] = json!(r);
        }
        if model {
            args["model"] = json!("gpt-x");
        }
        let input = StartDelegation {
            tool_call_id: tc.clone(),
            agent: AGENTS[agent].into(),
            task: task.clone(),
            description: args["description"].as_str().map(Into::into),
            model: model.then(|| "gpt-x".to_string()),
            resume: resume.clone(),
            binding: Some(ModelBinding {
                key: Some("prov/m1".into()),
                model_id: Some("m1".into()),
            }),
            candidates: None,
            definition: None,
        };
        let tool_name = if self.seq % 2 == 0 { "Task" } else { "task" };
        let at = self.tick();
        match self.reg.start(&input, Some(&self.rows)) {
            Ok(started) => {
                let mut v = json!({
                    "id": tc, "role": "tool", "content": "", "toolName": tool_name, "toolCallId": tc,
                    "toolArgs": args, "toolStatus": "success",
                    "toolResult": {"details": {"delegationId": started.delegation_id, "agent": NORMAL[agent], "status": "running", "modelId": "m1"}}
                });
                if self.timed() {
                    v["toolResult"]["details"]["startedAt"] = json!(at);
                }
                let before_parent = match (&started.resumed_from, self.writes) {
                    (Some(parent), Writes::OutOfOrder) => self.task_row_of(parent),
                    _ => None,
                };
                match before_parent {
                    Some(parent) => self.rows.insert(parent, row(v.clone())),
                    None => self.push(v.clone()),
                }
                self.issued.push((started.delegation_id.clone(), agent));
                // the delegate's own first user row is often the task itself
                if self.seq % 3 == 0 {
                    let id = self.next("u");
                    self.push(json!({"id": id, "role": "user", "content": task.trim(), "parentToolCallId": tc, "agentName": NORMAL[agent]}));
                }
                self.running.push(Running {
                    delegation_id: started.delegation_id,
                    task_row: v,
                    agent,
                });
            }
            Err(e) => {
                let mut v = json!({
                    "id": tc, "role": "tool", "content": "", "toolName": tool_name, "toolCallId": tc,
                    "toolArgs": args, "toolStatus": "error", "isError": true,
                    "toolResult": {"details": {"error": e.code(), "message": e.to_string()}}
                });
                if self.timed() {
                    v["createdAt"] = json!(at);
                }
                self.push(v);
            }
        }
    }

    fn work(&mut self, run: u8, kind: u8, size: u16) {
        if self.running.is_empty() {
            return;
        }
        let r = &self.running[run as usize % self.running.len()];
        let tc = r.task_row["toolCallId"].as_str().unwrap().to_string();
        let agent = r.agent;
        let written = if size % 2 == 0 {
            AGENTS[agent]
        } else {
            NORMAL[agent]
        };
        let id = self.next("row");
        let base = json!({"id": id, "parentToolCallId": tc, "agentName": written});
        let mut v = base;
        let o = v.as_object_mut().unwrap();
        let lines = |n: u64| {
            (0..n)
                .map(|i| format!("line {i}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        match kind {
            0 => {
                o.insert("role".into(), json!("user"));
                o.insert("content".into(), json!(format!("more work {size}")));
            }
            1 => {
                o.insert("role".into(), json!("assistant"));
                o.insert("content".into(), json!(format!("answer {size}")));
            }
            2 | 3 => {
                o.insert("role".into(), json!("tool"));
                o.insert(
                    "toolName".into(),
                    json!(["Read", "grep", "Glob", "BrowserPreview"][size as usize % 4]),
                );
                o.insert("toolCallId".into(), json!(format!("{id}-call")));
                o.insert(
                    "toolArgs".into(),
                    json!({"path": format!("src/m{}.rs", size % 11)}),
                );
                o.insert("toolStatus".into(), json!("success"));
                o.insert("toolResult".into(), json!(lines(size as u64 % 40)));
            }
            4 => {
                o.insert("role".into(), json!("assistant"));
                o.insert("content".into(), json!("provider failed"));
                o.insert("status".into(), json!("error"));
            }
            5 => {
                o.insert("role".into(), json!("tool"));
                o.insert("toolName".into(), json!("write"));
                o.insert("toolCallId".into(), json!(format!("{id}-call")));
                o.insert("toolArgs".into(), json!({"path": "out.rs"}));
                o.insert("toolStatus".into(), json!("running"));
            }
            6 => {
                // a row of the same call from another agent: never selected
                o.insert("role".into(), json!("assistant"));
                o.insert("content".into(), json!("FOREIGN"));
                o.insert("agentName".into(), json!("somebody-else"));
            }
            7 => {
                // a big read: pushes chains over the read budget now and then
                o.insert("role".into(), json!("tool"));
                o.insert("toolName".into(), json!("read"));
                o.insert("toolCallId".into(), json!(format!("{id}-call")));
                o.insert(
                    "toolArgs".into(),
                    json!({"file_path": format!("big{}.txt", size % 3)}),
                );
                o.insert("toolStatus".into(), json!("success"));
                o.insert("toolResult".into(), json!({"content": [{"type": "text", "text": "\n".repeat(20_000 + size as usize % 20_000)}]}));
            }
            _ => {
                o.insert("role".into(), json!("assistant"));
                o.insert("content".into(), json!(""));
                o.insert("thinking".into(), json!(format!("thinking {size}")));
            }
        }
        self.push(v);
    }

    fn settle(&mut self, run: u8, status: u8) {
        if self.running.is_empty() {
            return;
        }
        let r = self.running.remove(run as usize % self.running.len());
        let st = [
            SettleStatus::Completed,
            SettleStatus::Completed,
            SettleStatus::Completed,
            SettleStatus::Completed,
            SettleStatus::Failed,
            SettleStatus::Failed,
            SettleStatus::TimedOut,
            SettleStatus::Stopped,
            SettleStatus::Aborted,
            SettleStatus::Interrupted,
            SettleStatus::Completed,
            SettleStatus::Failed,
        ][status as usize % 12];
        let settled = self
            .reg
            .settle(&SettleDelegation {
                delegation_id: r.delegation_id.clone(),
                status: st,
                reads: None,
                rows: Some(self.rows.clone()),
            })
            .unwrap();
        assert_eq!(settled.status, st);
        let mut copy = r.task_row.clone();
        copy["toolResult"]["details"]["status"] = json!(st.as_str());
        let at = self.tick();
        if self.timed() {
            // the summary's completedAt: an ISO string or epoch milliseconds
            copy["toolResult"]["details"]["completedAt"] = if self.now % 2 == 0 {
                json!(at)
            } else {
                json!(1_767_225_600_000u64 + self.now)
            };
        }
        self.write_settled(copy);
    }

    fn log_text(&self) -> String {
        serde_json::to_string(&self.rows).unwrap()
    }

    fn check_invariants(&self) {
        // every running run resolves (a live chain is never evicted)
        for r in &self.running {
            let info = self
                .reg
                .resolve(&r.delegation_id)
                .expect("running chain evicted");
            assert_eq!(info.status.as_text(), Some("running"));
            assert_eq!(info.latest_delegation_id, r.delegation_id);
        }
        // ids resolve to the chain that holds them; per agent at most N reusable chains
        // and, apart, at most N settled ones that cannot be resumed (clause 7)
        let mut chains: BTreeMap<String, (String, Option<String>, bool)> = BTreeMap::new();
        for (id, _) in &self.issued {
            if let Some(info) = self.reg.resolve(id) {
                assert!(info.delegation_ids.contains(id));
                chains.insert(
                    info.latest_delegation_id.clone(),
                    (
                        info.agent.clone(),
                        info.status.as_text().map(str::to_string),
                        info.resumable,
                    ),
                );
            }
        }
        assert_eq!(chains.len(), self.reg.chain_count());
        let mut per_agent: HashMap<(&str, bool), usize> = HashMap::new();
        for (agent, status, resumable) in chains.values() {
            if status.as_deref() != Some("running") {
                *per_agent.entry((agent.as_str(), *resumable)).or_default() += 1;
            }
        }
        assert!(
            per_agent
                .values()
                .all(|&n| n <= MAX_RESUMABLE_CHAINS_PER_AGENT),
            "{per_agent:?}"
        );
        // the list holds settled, resumable chains only
        for c in self.reg.resumable_list() {
            assert!(matches!(
                c.status.as_text(),
                None | Some("completed" | "failed" | "timed_out")
            ));
            assert!(c.read_lines <= 50_000);
        }
    }

    fn restart(&mut self) {
        let rebuild = |host: &Host| {
            Registry::from_transcript_with_id_source(&host.rows, id_source(host.counter.clone()))
        };
        let mut rebuilt = rebuild(self);
        // a transcript the host wrote never resumes a chain the registry no longer held
        assert!(
            rebuilt
                .rebuild_skips()
                .iter()
                .all(|skip| skip.reason != RebuildSkipReason::ParentGone),
            "{:?}",
            rebuilt.rebuild_skips()
        );
        // the wasm binding's path: only the rows the rebuild's row rule reads, with their
        // transcript positions, rebuild the same registry
        let (read, positions): (Vec<UiMessage>, Vec<usize>) = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, row)| RowFilter::DelegateOrTaskRows.accepts(&row.head()))
            .map(|(i, row)| (row.clone(), i))
            .unzip();
        let filtered = Registry::from_transcript_rows(
            &read,
            Some(&positions),
            id_source(self.counter.clone()),
        );
        assert_eq!(filtered.resumable_list(), rebuilt.resumable_list());
        assert_eq!(filtered.rebuild_skips(), rebuilt.rebuild_skips());
        assert_eq!(filtered.chain_count(), rebuilt.chain_count());
        for (id, _) in &self.issued {
            assert_eq!(filtered.resolve(id), rebuilt.resolve(id), "{id}");
        }
        if self.running.is_empty() {
            self.compare(&mut rebuilt);
            // the comparison's own NO_HISTORY answers dropped chains in both registries,
            // but a host writes no row for a validation alone: carry on with a registry
            // rebuilt from what the transcript says
            rebuilt = rebuild(self);
        } else {
            // runs the app closed mid-way come back as interrupted (or were evicted by the bound)
            for r in &self.running {
                let req = ResumeRequest {
                    delegation_id: r.delegation_id.clone(),
                    agent: NORMAL[r.agent].into(),
                    model: None,
                };
                let e = rebuilt.validate_resume(&req, Some(&self.rows)).unwrap_err();
                assert!(
                    matches!(e.code(), "NOT_RESUMABLE" | "UNKNOWN_DELEGATION"),
                    "{e}"
                );
                if e.code() == "NOT_RESUMABLE" {
                    assert!(e.to_string().contains("interrupted"), "{e}");
                }
            }
            if self.writes == Writes::OutOfOrder {
                // A row that still says running has no time: it sits where its row is, and
                // rows inserted before it later would move it. This host records the
                // interruption when it starts again, and carries on with what that says.
                for r in std::mem::take(&mut self.running) {
                    let mut copy = r.task_row.clone();
                    copy["toolResult"]["details"]["status"] = json!("interrupted");
                    let at = self.tick();
                    copy["toolResult"]["details"]["completedAt"] = json!(at);
                    self.write_settled(copy);
                }
                rebuilt = rebuild(self);
            }
            self.running.clear();
        }
        self.reg = rebuilt;
        self.restarts += 1;
    }

    fn compare(&mut self, rebuilt: &mut Registry) {
        self.comparisons += 1;
        assert_eq!(self.reg.resumable_list(), rebuilt.resumable_list());
        assert_eq!(self.reg.resumable_prompt(), rebuilt.resumable_prompt());
        assert_eq!(self.reg.chain_count(), rebuilt.chain_count());
        let mut ids: Vec<(String, usize)> = self.issued.clone();
        ids.push(("no-such-id".into(), 0));
        for (id, agent) in ids {
            let req = ResumeRequest {
                delegation_id: id.clone(),
                agent: NORMAL[agent].into(),
                model: None,
            };
            let a = self.reg.validate_resume(&req, Some(&self.rows));
            let b = rebuilt.validate_resume(&req, Some(&self.rows));
            match (a, b) {
                (Ok(mut a), Ok(mut b)) => {
                    assert_eq!(a.recorded_model.model_id, b.recorded_model.model_id);
                    a.recorded_model.key = None; // a rebuild cannot know the key
                    b.recorded_model.key = None;
                    assert_eq!(a, b);
                    let seed = |t: &delegate_context::delegation::ResumeTarget, limit: f64| {
                        seed_delegate_messages(&SeedInput {
                            brief: t.brief.clone(),
                            rows: self.rows.clone(),
                            chain: Some(ChainSelector {
                                tool_call_ids: t.tool_call_ids.clone(),
                                agent: t.agent.clone(),
                            }),
                            binding: binding(),
                            hard_limit: limit,
                            overhead_tokens: None,
                            system_prompt: None,
                            tools: None,
                        })
                        .unwrap()
                    };
                    for limit in [1e9, 300.0] {
                        let (sa, sb) = (seed(&a, limit), seed(&b, limit));
                        assert_eq!(sa, sb);
                        assert!(!serde_json::to_string(&sa.messages)
                            .unwrap()
                            .contains("FOREIGN"));
                    }
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.code(), b.code(), "{id}");
                    assert_eq!(a.to_string(), b.to_string());
                    assert_eq!(a.fields(), b.fields());
                }
                (a, b) => panic!("{id}: live {a:?} vs rebuilt {b:?}"),
            }
        }
        // middle ids resolve to the same chain
        for (id, _) in &self.issued {
            let (a, b) = (self.reg.resolve(id), rebuilt.resolve(id));
            assert_eq!(a.is_some(), b.is_some(), "{id}");
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(a.delegation_ids, b.delegation_ids);
                assert_eq!(a.tool_call_ids, b.tool_call_ids);
                assert_eq!(a.reads, b.reads);
                assert_eq!(a.status, b.status);
            }
        }
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::New { agent, desc } => self.start(agent as usize, desc, None, false),
            Op::Resume {
                target,
                agent_ok,
                model,
            } => {
                let (id, agent) = if self.issued.is_empty() || target as usize % 8 == 7 {
                    ("00000000-0000-4000-8000-999999999999".to_string(), 0)
                } else {
                    // mostly recent ids (older ones are usually evicted), sometimes any
                    let n = self.issued.len();
                    let i = if target % 5 == 0 {
                        target as usize % n
                    } else {
                        n - 1 - (target as usize / 5) % n.min(6)
                    };
                    self.issued[i].clone()
                };
                let agent = if agent_ok { agent } else { (agent + 1) % 3 };
                self.start(agent, target % 2 == 0, Some(id), model);
            }
            Op::Work { run, kind, size } => self.work(run, kind, size),
            Op::Settle { run, status } => self.settle(run, status),
            Op::Restart => self.restart(),
        }
        self.check_invariants();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(600), ..ProptestConfig::default() })]

    #[test]
    fn restart_equivalence(ops in prop::collection::vec(op(), 1..90), writes in prop::sample::select(WRITES.to_vec())) {
        let mut host = Host::writing(writes);
        for op in &ops {
            host.apply(op);
        }
        // settle everything, then a final restart must agree with the live registry
        while !host.running.is_empty() {
            host.settle(0, 0);
        }
        host.check_invariants();
        host.restart();
        prop_assert!(host.comparisons >= 1);
        // the chain key never appears in anything the registry hands out: live keys are
        // the generated ids that were never issued as delegationIds
        let issued: HashSet<String> = host.issued.iter().map(|(id, _)| id.clone()).collect();
        let keys: Vec<String> = (0..host.counter.get())
            .map(|n| format!("00000000-0000-4000-8000-{n:012}"))
            .filter(|id| !issued.contains(id))
            .collect();
        let mut out = host.reg.resumable_prompt();
        out.push_str(&serde_json::to_string(&host.reg.resumable_list()).unwrap());
        for (id, _) in &host.issued {
            out.push_str(&serde_json::to_string(&host.reg.resolve(id)).unwrap());
        }
        out.push_str(&host.log_text());
        for k in &keys {
            prop_assert!(!out.contains(k.as_str()), "chain key {} leaked", k);
        }
    }
}

/// The harness itself: a long fixed sequence reaches every interesting state, with rows
/// appended untimed and with timed rows rewritten in place and out of order (the two
/// ends; the property runs all four ways).
#[test]
fn long_sequence_exercises_every_path() {
    for writes in [Writes::Appended, Writes::OutOfOrder] {
        long_sequence(writes);
    }
}

fn long_sequence(writes: Writes) {
    let mut host = Host::writing(writes);
    let mut codes: HashSet<String> = HashSet::new();
    let mut count: BTreeMap<String, u32> = BTreeMap::new();
    let mut n: u64 = 0x9e37_79b9;
    for step in 0..3000u64 {
        n ^= n << 13;
        n ^= n >> 7;
        n ^= n << 17;
        let pick = (n % 19) as u8;
        let op = match pick {
            0..=2 => Op::New {
                agent: (n >> 8) as u8 % 3,
                desc: n & 1 == 0,
            },
            3..=5 => Op::Resume {
                target: (n >> 16) as u16,
                agent_ok: (n >> 5) % 10 != 0,
                model: (n >> 6) % 12 == 0,
            },
            6..=13 => Op::Work {
                run: (n >> 24) as u8,
                kind: (n >> 32) as u8 % 9,
                size: (n >> 40) as u16,
            },
            14..=17 => Op::Settle {
                run: (n >> 24) as u8,
                status: (n >> 48) as u8 % 12,
            },
            _ => Op::Restart,
        };
        if let Op::Resume { .. } = op {
            let before = host.rows.len();
            host.apply(&op);
            if let Some(r) = host.rows.get(before) {
                if let Some(c) = r
                    .tool_result
                    .as_ref()
                    .and_then(|t| t["details"]["error"].as_str())
                {
                    codes.insert(c.to_string());
                    *count.entry(c.to_string()).or_default() += 1;
                } else if r.tool_result.is_some() {
                    *count.entry("OK".into()).or_default() += 1;
                }
            }
        } else {
            host.apply(&op);
        }
        if step % 500 == 499 {
            while !host.running.is_empty() {
                host.settle(0, 0);
            }
            host.restart();
        }
    }
    eprintln!(
        "{writes:?}: resume outcomes: {count:?}, comparisons {}",
        host.comparisons
    );
    assert!(host.comparisons >= 6, "{}", host.comparisons);
    for c in [
        "UNKNOWN_DELEGATION",
        "DELEGATION_RUNNING",
        "NOT_RESUMABLE",
        "AGENT_MISMATCH",
        "MODEL_ON_RESUME",
        "NO_HISTORY",
        "READ_BUDGET_EXCEEDED",
    ] {
        assert!(codes.contains(c), "{c} never produced: {codes:?}");
    }
}
