//! Property tests of ADR 0299 clauses 3–5 (the delegate turn boundary) on generated
//! sessions: brief first; user / assistant (text, thinking, tool calls) / tool results
//! (text and images) / bashExecution / custom / unknown roles with random sizes, provider
//! usage, failed assistants, unknown fields, and sometimes a previous compaction.
//! Each case runs the synchronous boundary step with a fake summarizer (short text, a
//! text too long to fit, or a failure) and checks every invariant of issue 3.

use delegate_context::budget::{context_budget, BudgetModel, ContextBudget};
use delegate_context::compaction::assess::unchanged_below_threshold;
use delegate_context::compaction::degrade::newest_unit;
use delegate_context::compaction::turn::{
    DelegateTurnOptions, DelegateTurnOutcome, SummaryAnswer, TurnAction, TurnOutcomeKind,
};
use delegate_context::compaction::SummaryKind;
use delegate_context::compaction::{
    complete_delegate_turn, prepare_delegate_turn, DelegateContext,
};
use delegate_context::message::AgentMessage;
use delegate_context::tokens::estimate_tokens;
use delegate_context::Error;
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestRunner};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Debug)]
enum Turn {
    Tools {
        think: usize,
        text: usize,
        calls: Vec<(u8, usize, usize, bool)>,
        usage: Option<u32>,
    },
    Answer {
        text: usize,
        usage: Option<u32>,
    },
    Failed {
        aborted: bool,
        calls: bool,
    },
    User(usize),
    Bash(usize),
    Custom(usize),
    Unknown,
}

#[derive(Clone, Debug)]
struct Case {
    brief: usize,
    previous: Option<(usize, usize)>,
    turns: Vec<Turn>,
    window: u32,
    max_tokens: u32,
    summary: u8,
    summary_len: usize,
    early: bool,
    overhead: u32,
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 0usize..400, 3 => 400usize..4000, 1 => 4000usize..20000]
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        8 => (size(), size(), prop::collection::vec((0u8..5, 0usize..200, size(), prop::bool::weighted(0.05)), 1..4), prop::option::of(80u32..130))
            .prop_map(|(think, text, calls, usage)| Turn::Tools { think, text, calls, usage }),
        2 => (size(), prop::option::of(80u32..130)).prop_map(|(text, usage)| Turn::Answer { text, usage }),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(aborted, calls)| Turn::Failed { aborted, calls }),
        1 => size().prop_map(Turn::User),
        1 => size().prop_map(Turn::Bash),
        1 => size().prop_map(Turn::Custom),
        1 => Just(Turn::Unknown),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![9 => 1usize..2000, 1 => 2000usize..300_000],
        prop::option::of((1usize..3000, 0usize..6)),
        prop::collection::vec(turn(), 0..40),
        prop_oneof![1500u32..8000, 8000u32..40_000, 40_000u32..200_000],
        prop_oneof![Just(0u32), 256u32..70_000],
        0u8..3,
        1usize..3000,
        prop::bool::weighted(0.2),
        prop_oneof![3 => Just(0u32), 1 => 0u32..2000],
    )
        .prop_map(
            |(
                brief,
                previous,
                turns,
                window,
                max_tokens,
                summary,
                summary_len,
                early,
                overhead,
            )| Case {
                brief,
                previous,
                turns,
                window,
                max_tokens,
                summary,
                summary_len,
                early,
                overhead,
            },
        )
}

fn text(n: usize, c: char) -> String {
    // mostly ASCII, with a non-BMP character now and then (2 UTF-16 units)
    let mut s: String = std::iter::repeat_n(c, n).collect();
    if n > 10 {
        s.push('😀');
    }
    s
}

fn msg(v: Value) -> AgentMessage {
    AgentMessage::from_value(v, "m").expect("generated message")
}

fn build(case: &Case) -> Vec<AgentMessage> {
    let mut ms = vec![msg(
        json!({"role": "user", "content": text(case.brief, 'b'), "timestamp": 1, "hostBriefId": "brief-1"}),
    )];
    let mut retained_hint = 0;
    if let Some((len, r)) = case.previous {
        ms.push(msg(json!({"role": "compactionSummary", "summary": text(len, 's'), "tokensBefore": 99999, "timestamp": 2,
                           "details": {"readFiles": ["old.rs"], "modifiedFiles": [], "retainedMessages": 0}})));
        retained_hint = r;
    }
    let mut id = 0;
    let tools = ["read", "write", "edit", "bash", "grep"];
    let usage = |ms: &Vec<AgentMessage>, pct: u32| {
        let est: u64 = ms.iter().map(estimate_tokens).sum();
        json!({"input": est * pct as u64 / 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": est * pct as u64 / 100 + 10, "cost": {"total": 0}})
    };
    for t in &case.turns {
        match t {
            Turn::Tools { think, text: tl, calls, usage: u } => {
                let mut content = vec![json!({"type": "thinking", "thinking": text(*think, 't'), "thinkingSignature": "sig"}),
                                       json!({"type": "text", "text": text(*tl, 'a')})];
                let mut ids = Vec::new();
                for (k, arg, _, _) in calls {
                    id += 1;
                    let cid = format!("call_{id}");
                    content.push(json!({"type": "toolCall", "id": cid, "name": tools[*k as usize], "arguments": {"path": format!("src/f{}.rs", arg % 7), "pad": "x".repeat(*arg), "n": 1.5}, "providerField": id}));
                    ids.push(cid);
                }
                let mut a = json!({"role": "assistant", "content": content, "api": "faux", "provider": "p", "model": "m",
                                   "stopReason": "toolUse", "timestamp": 3, "responseId": format!("r{id}")});
                if let Some(p) = u {
                    a["usage"] = usage(&ms, *p);
                }
                ms.push(msg(a));
                for ((k, _, rl, image), cid) in calls.iter().zip(ids) {
                    let mut blocks = vec![json!({"type": "text", "text": text(*rl, 'r')})];
                    if *image {
                        blocks.push(json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}));
                    }
                    ms.push(msg(json!({"role": "toolResult", "toolCallId": cid, "toolName": tools[*k as usize], "content": blocks,
                                       "isError": false, "timestamp": 4, "details": {"lines": rl}, "hostOnly": [1, 2]})));
                }
            }
            Turn::Answer { text: tl, usage: u } => {
                let mut a = json!({"role": "assistant", "content": [{"type": "text", "text": text(*tl, 'A')}], "stopReason": "stop", "timestamp": 5});
                if let Some(p) = u {
                    a["usage"] = usage(&ms, *p);
                }
                ms.push(msg(a));
            }
            Turn::Failed { aborted, calls } => {
                let content = if *calls {
                    id += 1;
                    json!([{"type": "toolCall", "id": format!("call_{id}"), "name": "read", "arguments": {"path": "x"}}])
                } else {
                    json!([])
                };
                ms.push(msg(json!({"role": "assistant", "content": content, "stopReason": if *aborted { "aborted" } else { "error" },
                                   "errorMessage": "boom", "usage": {"totalTokens": 1_000_000}, "timestamp": 6})));
                if *calls {
                    ms.push(msg(json!({"role": "toolResult", "toolCallId": format!("call_{id}"), "toolName": "read", "content": [], "isError": true})));
                }
            }
            Turn::User(n) => ms.push(msg(json!({"role": "user", "content": [{"type": "text", "text": text(*n, 'u')}], "timestamp": 7}))),
            Turn::Bash(n) => ms.push(msg(json!({"role": "bashExecution", "command": "ls", "output": text(*n, 'o'), "exitCode": 1, "timestamp": 8}))),
            Turn::Custom(n) => ms.push(msg(json!({"role": "custom", "customType": "note", "content": text(*n, 'c'), "display": true, "timestamp": 9}))),
            Turn::Unknown => ms.push(msg(json!({"role": "hostSpecial", "payload": {"deep": [1, "two"]}}))),
        }
    }
    if case.previous.is_some() {
        let r = retained_hint.min(ms.len() - 2);
        if let AgentMessage::CompactionSummary(s) = &mut ms[1] {
            s.extra["details"]["retainedMessages"] = json!(r);
        }
    }
    ms
}

/// Each assistant tool call answered by a result before anything else; no result without its call.
fn provider_valid(ms: &[AgentMessage]) -> Result<(), String> {
    let mut pending: Vec<String> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        match m {
            AgentMessage::ToolResult(r) => {
                match pending.iter().position(|p| *p == r.tool_call_id) {
                    Some(k) => {
                        pending.remove(k);
                    }
                    None => return Err(format!("orphan tool result at {i}")),
                }
            }
            other => {
                if !pending.is_empty() {
                    return Err(format!("unanswered tool calls {pending:?} before {i}"));
                }
                if let AgentMessage::Assistant(a) = other {
                    pending = a.tool_calls().map(|c| c.id.clone()).collect();
                }
            }
        }
    }
    if pending.is_empty() {
        Ok(())
    } else {
        Err(format!("unanswered tool calls {pending:?} at the end"))
    }
}

fn fake_answer(
    prep_requests: &[delegate_context::compaction::SummaryRequest],
    mode: u8,
    len: usize,
    budget: &ContextBudget,
) -> SummaryAnswer {
    let mut a = SummaryAnswer::default();
    match mode {
        0 => {
            for r in prep_requests {
                let t = format!("## Goal\n{}", "g".repeat(len));
                match r.kind {
                    SummaryKind::History => a.history = Some(t),
                    SummaryKind::TurnPrefix => a.turn_prefix = Some(t),
                }
            }
        }
        1 => {
            for r in prep_requests {
                let t = "L".repeat(budget.hard_limit as usize * 4 + len);
                match r.kind {
                    SummaryKind::History => a.history = Some(t),
                    SummaryKind::TurnPrefix => a.turn_prefix = Some(t),
                }
            }
        }
        _ => a.error = Some("summary model unavailable".into()),
    }
    a
}

fn step(
    ms: &[AgentMessage],
    budget: &ContextBudget,
    opts: &DelegateTurnOptions,
    case: &Case,
) -> (TurnAction, Result<DelegateTurnOutcome, Error>) {
    let prep = prepare_delegate_turn(ms, budget, opts).expect("valid input");
    for r in &prep.requests {
        assert!(
            r.estimated_input_tokens + r.max_tokens <= budget.context_window,
            "summary request fits the window"
        );
        if r.bounded {
            count(4);
        }
    }
    let answer = fake_answer(&prep.requests, case.summary, case.summary_len, budget);
    (
        prep.action,
        complete_delegate_turn(ms, budget, "faux/m", opts, &answer),
    )
}

/// The fast path (newest first, stopping at the fresh usage anchor) agrees with the full
/// analysis whenever it answers, and answers whenever the full analysis is `unchanged`
/// on a context whose fresh tail has a trusted usage.
fn fast_path_agrees(
    ms: &[AgentMessage],
    budget: &ContextBudget,
    opts: &DelegateTurnOptions,
) -> Result<(), TestCaseError> {
    let last_summary = ms
        .iter()
        .rposition(|m| matches!(m, AgentMessage::CompactionSummary(_)))
        .map(|k| (k, ms[k].facts("m").expect("facts")));
    let brief = ms[0].facts("m").expect("facts");
    let mut reads = 0usize;
    let quick = unchanged_below_threshold(
        ms.len(),
        &brief,
        last_summary.as_ref().map(|(k, f)| (*k, f)),
        budget,
        opts,
        |i| {
            reads += 1;
            ms[i].facts("m")
        },
    )
    .expect("valid");
    let full = prepare_delegate_turn(ms, budget, opts).expect("valid");
    if let Some(q) = quick {
        prop_assert_eq!(&q, &full);
        count(6);
        prop_assert!(reads <= ms.len() + 1);
    }
    Ok(())
}

fn check(case: Case) -> Result<(), TestCaseError> {
    let ms = build(&case);
    let before = ms.clone();
    let budget = context_budget(&BudgetModel {
        context_window: Some(case.window as f64),
        max_tokens: Some(case.max_tokens as f64),
        definition_max_tokens: None,
    });
    let opts = DelegateTurnOptions {
        early_trigger: case.early,
        overhead_tokens: Some(case.overhead as f64),
        now: Some(42.0),
        ..Default::default()
    };
    fast_path_agrees(&ms, &budget, &opts)?;
    prop_assert!(
        provider_valid(&ms).is_ok(),
        "generator: {:?}",
        provider_valid(&ms)
    );
    let (action, result) = step(&ms, &budget, &opts, &case);
    prop_assert_eq!(&ms, &before, "input unmodified");
    let out = match result {
        Err(e @ Error::SubagentContextOverflow { .. }) => {
            overflow_is_justified(&ms, &budget, &opts, &e)?;
            count(3);
            return Ok(());
        }
        Err(other) => return Err(TestCaseError::fail(format!("unexpected error {other:?}"))),
        Ok(o) => o,
    };
    let out_messages = out.materialize(&ms);
    prop_assert_eq!(&out_messages[0], &ms[0], "the brief stays verbatim first");
    if out.outcome == TurnOutcomeKind::Unchanged {
        prop_assert_eq!(&out_messages, &ms);
        prop_assert_eq!(out.context_compactions, 0);
        count(0);
        if action == TurnAction::Unchanged {
            return Ok(());
        }
    } else {
        prop_assert_eq!(out.context_compactions, 1);
        prop_assert_eq!(
            out.context_degraded,
            out.outcome == TurnOutcomeKind::Degraded
        );
        count(if out.outcome == TurnOutcomeKind::Compacted {
            1
        } else {
            2
        });
    }
    let after: u64 = out_messages.iter().map(estimate_tokens).sum::<u64>() + case.overhead as u64;
    prop_assert_eq!(out.tokens_after, after);
    prop_assert!(
        after < budget.hard_limit,
        "tokens {} < hardLimit {}",
        after,
        budget.hard_limit
    );
    if let Err(e) = provider_valid(&out_messages) {
        return Err(TestCaseError::fail(format!("provider-invalid output: {e}")));
    }
    // Every message but the summary we write is an input message, unchanged (unknown
    // fields included), in input order.
    let mut cursor = 1;
    for (i, m) in out_messages.iter().enumerate().skip(1) {
        if i == 1 && out.outcome != TurnOutcomeKind::Unchanged {
            if let AgentMessage::CompactionSummary(s) = m {
                if s.extra
                    .get("details")
                    .and_then(|d| d.get("retainedMessages"))
                    .is_some()
                    && s.timestamp == Some(42.0)
                {
                    continue;
                }
            }
        }
        match ms[cursor..].iter().position(|x| x == m) {
            Some(k) => cursor += k + 1,
            None => {
                return Err(TestCaseError::fail(format!(
                    "output message {i} is not an input message in order"
                )))
            }
        }
    }
    // The next turn after the step: a provider response with usage, and its tool result.
    let mut next = out_messages.clone();
    next.push(msg(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "next_1", "name": "read", "arguments": {"path": "n"}}],
                         "stopReason": "toolUse", "usage": {"totalTokens": after.min(budget.hard_limit.saturating_sub(50)) as f64}})));
    next.push(msg(json!({"role": "toolResult", "toolCallId": "next_1", "toolName": "read", "content": [{"type": "text", "text": "x"}], "isError": false})));
    fast_path_agrees(&next, &budget, &opts)?;
    // No thrash: the next boundary right after a compaction leaves the context alone.
    if out.outcome != TurnOutcomeKind::Unchanged && !case.early {
        let again = prepare_delegate_turn(&out_messages, &budget, &opts).expect("valid");
        prop_assert_eq!(
            again.action,
            TurnAction::Unchanged,
            "second step after {:?} at {} tokens",
            out.outcome,
            after
        );
        count(5);
    }
    Ok(())
}

/// Clause 5: `SUBAGENT_CONTEXT_OVERFLOW` only when even the brief, the degrade note and the
/// newest unit (the newest keepable message with its call or results) do not fit: in
/// estimate terms, or in the provider's terms when usage put the context above its
/// estimate (the fit limit is then calibrated by that ratio, and `tokens` is reported
/// scaled).
fn overflow_is_justified(
    ms: &[AgentMessage],
    budget: &ContextBudget,
    opts: &DelegateTurnOptions,
    error: &Error,
) -> Result<(), TestCaseError> {
    let Error::SubagentContextOverflow {
        tokens,
        hard_limit,
        model_id,
    } = error
    else {
        return Err(TestCaseError::fail(format!("not an overflow: {error:?}")));
    };
    let overhead = opts.overhead_tokens.unwrap_or(0.0) as u64;
    let brief_tokens = estimate_tokens(&ms[0]) + overhead;
    let whole = ms.iter().map(estimate_tokens).sum::<u64>() + overhead;
    let boundary = prepare_delegate_turn(ms, budget, opts)
        .expect("valid")
        .tokens;
    let scale = if boundary > whole && whole > 0 {
        boundary as f64 / whole as f64
    } else {
        1.0
    };
    let newest = newest_unit_tokens(ms)?;
    prop_assert!(
        ((brief_tokens + newest) as f64) * scale + NOTE_BOUND as f64 + 1.0
            >= budget.hard_limit as f64,
        "overflow only when the brief and the newest unit do not fit ({} + {} x {:.3} vs {})",
        brief_tokens,
        newest,
        scale,
        budget.hard_limit
    );
    let tokens = tokens.unwrap_or(0);
    prop_assert!(tokens >= brief_tokens && tokens + 1 >= budget.hard_limit);
    prop_assert_eq!(*hard_limit, Some(budget.hard_limit));
    prop_assert_eq!(model_id.as_str(), "faux/m");
    Ok(())
}

/// An upper bound of a degrade note without a carried summary, in tokens (its text, a
/// capped list of short file names).
const NOTE_BOUND: u64 = 600;

/// Tokens of the newest unit a degrade must keep, by the core's one definition
/// ([`newest_unit`]: the newest keepable message with the tool call it answers or the
/// results answering it; failed or empty assistants and orphan results skipped), after
/// checking that unit against host-contract §5 on the messages themselves.
fn newest_unit_tokens(ms: &[AgentMessage]) -> Result<u64, TestCaseError> {
    let ctx = DelegateContext::from_messages(ms).expect("valid");
    let Some(unit) = newest_unit(&ctx) else {
        // nothing keepable after the brief (and the last summary): only results and
        // failed or empty assistants follow it
        let from = ms
            .iter()
            .rposition(|m| matches!(m, AgentMessage::CompactionSummary(_)))
            .filter(|&i| i >= 1)
            .map_or(1, |i| i + 1);
        for m in &ms[from.min(ms.len())..] {
            prop_assert!(
                matches!(m, AgentMessage::ToolResult(_) | AgentMessage::Assistant(_)),
                "a keepable message, yet no newest unit: {:?}",
                m
            );
        }
        return Ok(0);
    };
    prop_assert!(unit.start >= 1 && unit.end <= ms.len());
    match &ms[unit.start] {
        AgentMessage::Assistant(a) => {
            prop_assert!(!a.is_failed(), "a failed assistant kept");
            let calls: Vec<String> = a.tool_calls().map(|c| c.id.clone()).collect();
            for m in &ms[unit.start + 1..unit.end] {
                let r = m.as_tool_result();
                prop_assert!(
                    r.is_some_and(|r| calls.contains(&r.tool_call_id)),
                    "a result of another call in the unit"
                );
            }
        }
        AgentMessage::ToolResult(_) => prop_assert!(false, "the newest unit starts with a result"),
        _ => prop_assert_eq!(unit.len(), 1),
    }
    // after it, nothing but results and assistants the degrade cannot keep
    for m in &ms[unit.end..] {
        prop_assert!(
            matches!(m, AgentMessage::ToolResult(_) | AgentMessage::Assistant(_)),
            "a keepable message after the newest unit: {:?}",
            m
        );
    }
    Ok(ctx.tokens(unit))
}

static STATS: [AtomicUsize; 7] = [const { AtomicUsize::new(0) }; 7];

fn count(k: usize) {
    STATS[k].fetch_add(1, Ordering::Relaxed);
}

#[test]
fn boundary_step_invariants() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        max_shrink_iters: 2000,
        // failures persist next to this file (tests/compaction_props.proptest-regressions,
        // committed) and are replayed first, as the proptest! macro's are
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    });
    if let Err(e) = runner.run(&case(), check) {
        panic!("{e}");
    }
    let s: Vec<usize> = STATS.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    println!(
        "boundary step: {cases} cases: {} unchanged, {} compacted, {} degraded, {} overflow ({} summary requests bounded, {} second steps checked, {} fast-path answers equal to the full analysis)",
        s[0], s[1], s[2], s[3], s[4], s[5], s[6]
    );
    let min = cases as usize / 20;
    assert!(
        s[1] > min && s[2] > min && s[3] > 0 && s[6] > min,
        "every outcome is exercised: {s:?}"
    );
}

#[test]
fn compaction_happens_and_counts() {
    // Deterministic scenario: 30 tool turns with 2,000-char results in an 8,192 window.
    let budget = context_budget(&BudgetModel {
        context_window: Some(8192.0),
        max_tokens: Some(1024.0),
        definition_max_tokens: None,
    });
    let case = Case {
        brief: 200,
        previous: None,
        turns: (0..30)
            .map(|_| Turn::Tools {
                think: 100,
                text: 100,
                calls: vec![(0, 10, 2000, false)],
                usage: None,
            })
            .collect(),
        window: 8192,
        max_tokens: 1024,
        summary: 0,
        summary_len: 200,
        early: false,
        overhead: 0,
    };
    let ms = build(&case);
    let opts = DelegateTurnOptions {
        now: Some(42.0),
        ..Default::default()
    };
    let (action, out) = step(&ms, &budget, &opts, &case);
    assert_eq!(action, TurnAction::Summarize);
    let out = out.unwrap();
    let out_messages = out.materialize(&ms);
    assert_eq!(out.outcome, TurnOutcomeKind::Compacted);
    assert!(out.tokens_after < budget.hard_limit);
    assert!(matches!(
        out_messages[1],
        AgentMessage::CompactionSummary(_)
    ));
    let failed = Case {
        summary: 2,
        ..case.clone()
    };
    let (_, out) = step(&ms, &budget, &opts, &failed);
    let out = out.unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded);
    assert!(out.dropped_messages > 0 && out.context_degraded);
    assert_eq!(
        out.summary_error.as_deref(),
        Some("summary model unavailable")
    );
    let huge = Case {
        brief: 40_000,
        ..case
    };
    let (_, out) = step(&build(&huge), &budget, &opts, &huge);
    assert_eq!(out.unwrap_err().code(), "SUBAGENT_CONTEXT_OVERFLOW");
}

/// Found by `boundary_step_invariants` on a fresh seed (issue 16 item 4): a final answer
/// with no text is an empty assistant, which a degrade never keeps (host-contract §5,
/// "failed or empty assistants skipped"), so the newest unit is the message before it.
/// The step rightly answers `SUBAGENT_CONTEXT_OVERFLOW`: the brief (276 tokens), a degrade
/// note and that message do not fit hardLimit 912. The property once took the empty
/// answer (0 tokens) for the newest unit and called the overflow wrong; it now asks the
/// core's one definition (`degrade::newest_unit`).
#[test]
fn an_empty_final_answer_is_not_the_newest_unit() {
    let budget = context_budget(&BudgetModel {
        context_window: Some(1823.0),
        max_tokens: Some(0.0),
        definition_max_tokens: None,
    });
    assert_eq!(budget.hard_limit, 912);
    let ms = vec![
        msg(json!({"role": "user", "content": "b".repeat(1104), "timestamp": 1})),
        msg(
            json!({"role": "user", "content": [{"type": "text", "text": "u".repeat(2800)}], "timestamp": 7}),
        ),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": ""}], "stopReason": "stop", "timestamp": 5}),
        ),
    ];
    assert_eq!(estimate_tokens(&ms[0]), 276);
    assert_eq!(estimate_tokens(&ms[2]), 0);
    let ctx = DelegateContext::from_messages(&ms).unwrap();
    assert_eq!(newest_unit(&ctx), Some(1..2), "the empty answer is skipped");
    let opts = DelegateTurnOptions {
        now: Some(42.0),
        ..Default::default()
    };
    for answer in [
        SummaryAnswer {
            error: Some("summary model unavailable".into()),
            ..Default::default()
        },
        SummaryAnswer {
            history: Some("## Goal\nread".into()),
            turn_prefix: Some("## Original Request\nread".into()),
            error: None,
        },
    ] {
        let e = complete_delegate_turn(&ms, &budget, "faux/m", &opts, &answer).unwrap_err();
        assert_eq!(e.code(), "SUBAGENT_CONTEXT_OVERFLOW");
        overflow_is_justified(&ms, &budget, &opts, &e).unwrap();
    }
}
