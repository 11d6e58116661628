//! Issue 8: the context handle is a faster path, never a second behaviour. Random
//! sessions are pushed into a `DelegateContext` in random chunks, driven through random
//! turn boundaries (compact, degrade, overflow, with summarizer replies of every kind)
//! whose outcomes rewrite the handle, and more messages are pushed after each. At every
//! step the handle must answer exactly what the one-shot functions answer on the same
//! messages built fresh: the estimate, the cut point, pi's prepareCompaction, the
//! boundary decision and its outcome, and the facts themselves.
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::budget::{context_budget, BudgetModel, ContextBudget};
use delegate_context::compaction::assess::boundary_tokens;
use delegate_context::compaction::plan::find_cut_point;
use delegate_context::compaction::prepare::{prepare_compaction, CompactionSettings};
use delegate_context::compaction::turn::{DelegateTurnOptions, SummaryAnswer};
use delegate_context::compaction::{complete_delegate_turn, prepare_delegate_turn};
use delegate_context::compaction::{DelegateContext, Item, Next, Reply, Turn};
use delegate_context::message::AgentMessage;
use delegate_context::stop_reason::StopReason;
use delegate_context::tokens::{
    estimate_context_tokens, usage_anchor, Anchor, ContextTokenEstimate,
};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestRunner};
use serde_json::json;

#[derive(Clone, Debug)]
enum Piece {
    /// An assistant calling `calls` tools (result sizes), with usage or not.
    Tools(Vec<usize>, Option<u32>),
    Answer(usize, Option<u32>),
    Failed,
    User(usize),
}

#[derive(Clone, Debug)]
enum Answer {
    Text(usize),
    Empty,
    Error,
    Aborted,
    Rejected,
}

#[derive(Clone, Debug)]
struct Round {
    pieces: Vec<Piece>,
    chunk: usize,
    answers: Vec<Answer>,
}

#[derive(Clone, Debug)]
struct Case {
    brief: usize,
    rounds: Vec<Round>,
    window: u32,
    keep: f64,
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 0usize..300, 3 => 300usize..3000, 1 => 3000usize..16000]
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        6 => (prop::collection::vec(size(), 1..3), prop::option::of(100u32..20_000)).prop_map(|(c, u)| Piece::Tools(c, u)),
        2 => (size(), prop::option::of(100u32..20_000)).prop_map(|(n, u)| Piece::Answer(n, u)),
        1 => Just(Piece::Failed),
        1 => size().prop_map(Piece::User),
    ]
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        5 => (1usize..3000).prop_map(Answer::Text),
        1 => Just(Answer::Empty),
        1 => Just(Answer::Error),
        1 => Just(Answer::Aborted),
        1 => Just(Answer::Rejected),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        1usize..1500,
        prop::collection::vec(
            (
                prop::collection::vec(piece(), 1..10),
                1usize..6,
                prop::collection::vec(answer(), 2),
            )
                .prop_map(|(pieces, chunk, answers)| Round {
                    pieces,
                    chunk,
                    answers,
                }),
            1..6,
        ),
        prop_oneof![2000u32..8000, 8000u32..30_000],
        prop_oneof![Just(20_000.0), 100.0f64..5000.0],
    )
        .prop_map(|(brief, rounds, window, keep)| Case {
            brief,
            rounds,
            window,
            keep,
        })
}

/// pi's `estimateContextTokens` as pi computes it: walk back from `end` to the newest
/// trusted usage at or after `floor`.
fn walked_estimate(ctx: &DelegateContext, end: usize, floor: usize) -> ContextTokenEstimate {
    let end = end.min(ctx.len());
    let facts = ctx.facts();
    match usage_anchor(end, floor, |i| Ok::<_, ()>(Some(&facts[i]))).expect("infallible") {
        Anchor::Found(e) => e,
        Anchor::Missing { .. } => {
            let all = ctx.tokens(0..end) as f64;
            ContextTokenEstimate {
                tokens: all,
                usage_tokens: 0.0,
                trailing_tokens: all,
                last_usage_index: None,
            }
        }
    }
}

fn msg(v: serde_json::Value) -> AgentMessage {
    AgentMessage::from_value(v, "m").expect("generated messages are valid")
}

fn messages_of(pieces: &[Piece], round: usize) -> Vec<AgentMessage> {
    let mut out = Vec::new();
    for (k, p) in pieces.iter().enumerate() {
        match p {
            Piece::Tools(results, usage) => {
                let calls: Vec<serde_json::Value> = results
                    .iter()
                    .enumerate()
                    .map(|(j, _)| json!({"type": "toolCall", "id": format!("c{round}_{k}_{j}"), "name": if j % 2 == 0 { "read" } else { "edit" }, "arguments": {"path": format!("src/f{k}.rs")}}))
                    .collect();
                let mut a = json!({"role": "assistant", "content": calls, "stopReason": "toolUse", "timestamp": 1});
                if let Some(u) = usage {
                    a["usage"] = json!({"totalTokens": u});
                }
                out.push(msg(a));
                for (j, n) in results.iter().enumerate() {
                    out.push(msg(json!({"role": "toolResult", "toolCallId": format!("c{round}_{k}_{j}"), "toolName": "read",
                        "content": [{"type": "text", "text": "r".repeat(*n)}], "isError": false, "timestamp": 2})));
                }
            }
            Piece::Answer(n, usage) => {
                let mut a = json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(*n)}], "stopReason": "stop", "timestamp": 3});
                if let Some(u) = usage {
                    a["usage"] = json!({"totalTokens": u});
                }
                out.push(msg(a));
            }
            Piece::Failed => out.push(msg(
                json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "boom", "usage": {"totalTokens": 99}}),
            )),
            Piece::User(n) => out.push(msg(json!({"role": "user", "content": "u".repeat(*n), "timestamp": 4}))),
        }
    }
    out
}

fn reply(a: &Answer) -> Reply {
    match a {
        Answer::Text(n) => Reply::Text(format!("## Goal\n{}", "s".repeat(*n))),
        Answer::Empty => Reply::Text("  ".into()),
        Answer::Error => Reply::Message {
            text: String::new(),
            stop_reason: Some(StopReason::Error),
            error_message: Some("overloaded".into()),
        },
        Answer::Aborted => Reply::Message {
            text: String::new(),
            stop_reason: Some(StopReason::Aborted),
            error_message: None,
        },
        Answer::Rejected => Reply::Rejected("503".into()),
    }
}

/// The same replies as a host that sent the requests itself would give them.
fn summary_answer(
    kinds: &[delegate_context::compaction::SummaryKind],
    replies: &[Reply],
) -> SummaryAnswer {
    let mut answer = SummaryAnswer::default();
    for (kind, r) in kinds.iter().zip(replies) {
        let text = match r {
            Reply::Text(t) => t.clone(),
            Reply::Message {
                stop_reason: Some(_),
                error_message,
                ..
            } => {
                answer.error = Some(
                    error_message
                        .clone()
                        .unwrap_or_else(|| "the summary request ended with aborted".into()),
                );
                return answer;
            }
            Reply::Rejected(m) => {
                answer.error = Some(m.clone());
                return answer;
            }
            _ => String::new(),
        };
        match kind {
            delegate_context::compaction::SummaryKind::History => answer.history = Some(text),
            delegate_context::compaction::SummaryKind::TurnPrefix => {
                answer.turn_prefix = Some(text)
            }
        }
    }
    answer
}

fn check(case: Case) -> Result<(), TestCaseError> {
    let budget: ContextBudget = context_budget(&BudgetModel {
        context_window: Some(case.window as f64),
        max_tokens: Some(1024.0),
        definition_max_tokens: None,
    });
    let options = DelegateTurnOptions {
        now: Some(7.0),
        ..Default::default()
    };
    let settings = CompactionSettings::new(budget.request_headroom as f64, case.keep);
    let mut messages = vec![msg(
        json!({"role": "user", "content": "b".repeat(case.brief), "timestamp": 0}),
    )];
    let mut handle = DelegateContext::from_messages(&messages).expect("brief");
    for (r, round) in case.rounds.iter().enumerate() {
        // push the round's messages in chunks
        let new = messages_of(&round.pieces, r);
        for chunk in new.chunks(round.chunk) {
            for m in chunk {
                handle.push(m.facts("m").expect("facts"));
            }
            messages.extend_from_slice(chunk);
        }
        // the handle's state equals a context built fresh from the same messages
        let fresh = DelegateContext::from_messages(&messages).expect("fresh");
        prop_assert_eq!(handle.facts(), fresh.facts());
        prop_assert_eq!(handle.total_tokens(), fresh.total_tokens());
        prop_assert_eq!(handle.last_summary(), fresh.last_summary());
        prop_assert_eq!(handle.last_assistant(), fresh.last_assistant());
        prop_assert_eq!(
            handle.estimate(handle.len(), 0),
            estimate_context_tokens(&messages).expect("estimate")
        );
        // the usage anchor is looked up in an index: the same as pi's walk back over every
        // message, for any end and floor (a rewrite's fresh-usage floor among them)
        let len = handle.len();
        for end in [len, len / 2, len.saturating_sub(1), 1] {
            for floor in [0, handle.fresh_usage_start(), end / 3, end] {
                prop_assert_eq!(
                    handle.estimate(end, floor),
                    walked_estimate(&handle, end, floor)
                );
            }
        }
        let overhead = 1234;
        let walked = walked_estimate(&handle, len, handle.fresh_usage_start());
        prop_assert_eq!(
            boundary_tokens(&handle, overhead),
            if walked.last_usage_index.is_some() {
                walked.boundary_tokens()
            } else {
                handle.total_tokens() + overhead
            }
        );
        prop_assert_eq!(
            find_cut_point(&handle, 0, handle.len(), case.keep, 0),
            find_cut_point(&fresh, 0, fresh.len(), case.keep, 0)
        );
        prop_assert_eq!(
            prepare_compaction(&handle, &settings),
            prepare_compaction(&fresh, &settings)
        );
        // the boundary: the handle's turn and the one-shot functions decide the same
        let turn = Turn::begin(&handle, &budget, "m", &options).expect("valid");
        let one_shot = prepare_delegate_turn(&messages, &budget, &options).expect("valid");
        prop_assert_eq!(&turn.decision().preparation(&budget), &one_shot);
        let kinds: Vec<_> = turn.decision().requests.iter().map(|q| q.kind).collect();
        let replies: Vec<Reply> = round.answers.iter().map(reply).collect();
        let mut turn = turn;
        let mut used = 0;
        let outcome = loop {
            match turn.next(&handle) {
                Ok(Next::Summarize(_)) => {
                    turn.reply(replies[used.min(replies.len() - 1)].clone());
                    used += 1;
                }
                Ok(Next::Done(out)) => break Ok(out),
                Err(e) => break Err(e),
            }
        };
        let one_shot = complete_delegate_turn(
            &messages,
            &budget,
            "m",
            &options,
            &summary_answer(&kinds, &replies[..used.min(replies.len())]),
        );
        match (&outcome, &one_shot) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => {
                prop_assert_eq!(a, b);
                return Ok(()); // the run ends at an overflow
            }
            _ => {
                return Err(TestCaseError::fail(format!(
                    "handle {outcome:?} vs one-shot {one_shot:?}"
                )))
            }
        }
        let Ok(out) = outcome else { unreachable!() };
        // apply the outcome to the handle and to the message list the host would keep
        let next = out.materialize(&messages);
        handle.rewrite(&out.messages, out.new_facts().expect("new facts"));
        messages = next;
        let rebuilt = DelegateContext::from_messages(&messages).expect("fresh");
        prop_assert_eq!(handle.facts(), rebuilt.facts());
        prop_assert!(
            out.messages
                .iter()
                .any(|m| matches!(m, Item::Kept(r) if r.contains(&0))),
            "the brief is kept"
        );
    }
    Ok(())
}

#[test]
fn the_handle_answers_what_the_one_shot_functions_answer() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        max_shrink_iters: 500,
        // failures persist next to this file (tests/context_equivalence.proptest-regressions,
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
}
