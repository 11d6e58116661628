//! Regression tests of ADR 0299 clauses 3–5 for cases an independent review found:
//! an active turn whose own results reach keepRecentTokens, and a context whose provider
//! usage is far above its chars/4 estimate.
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::budget::{context_budget, BudgetModel, ContextBudget};
use delegate_context::compaction::turn::{
    DelegateTurnOptions, SummaryAnswer, TurnAction, TurnOutcomeKind,
};
use delegate_context::compaction::{complete_delegate_turn, prepare_delegate_turn};
use delegate_context::message::AgentMessage;
use delegate_context::tokens::estimate_tokens;
use delegate_context::Error;
use serde_json::json;

fn msg(v: serde_json::Value) -> AgentMessage {
    AgentMessage::from_value(v, "m").unwrap()
}

/// The task brief most tests start with.
fn brief() -> AgentMessage {
    msg(json!({"role": "user", "content": "brief", "timestamp": 1}))
}

/// An assistant reply of `chars` copies of `c`.
fn text_reply(c: &str, chars: usize) -> AgentMessage {
    msg(
        json!({"role": "assistant", "content": [{"type": "text", "text": c.repeat(chars)}], "stopReason": "stop"}),
    )
}

/// An assistant that calls `read` on `path` (call `id`).
fn read_call(id: &str, path: &str) -> AgentMessage {
    msg(
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {"path": path}}], "stopReason": "toolUse"}),
    )
}

/// The result of read call `id`: `chars` characters.
fn read_result(id: &str, chars: usize) -> AgentMessage {
    msg(
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "r".repeat(chars)}], "isError": false}),
    )
}

fn budget_32k() -> ContextBudget {
    let b = context_budget(&BudgetModel {
        context_window: Some(32_000.0),
        max_tokens: Some(8_000.0),
        definition_max_tokens: None,
    });
    assert_eq!((b.hard_limit, b.keep_recent_tokens), (16_000, 8_000));
    b
}

#[test]
fn an_active_turn_whose_results_reach_keep_recent_is_summarized_not_degraded() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        text_reply("a", 28_000),
        read_call("c1", "a"),
        read_result("c1", 36_000),
    ];
    let opts = DelegateTurnOptions::default();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    let answer = SummaryAnswer {
        history: Some("## Goal\nread a".into()),
        turn_prefix: Some("## Original Request\nread a".into()),
        error: None,
    };
    let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
    let out_messages = out.materialize(&ms);
    assert_eq!(out.outcome, TurnOutcomeKind::Compacted);
    assert!(!out.context_degraded);
    assert_eq!(out_messages[0], ms[0]);
    assert_eq!(
        &out_messages[2..],
        &ms[2..],
        "the active turn stays verbatim"
    );
    assert!(out_messages.iter().map(estimate_tokens).sum::<u64>() < budget.hard_limit);
}

#[test]
fn usage_far_above_the_estimate_is_not_returned_as_fitting() {
    let budget = budget_32k();
    // 20,000 CJK characters estimate at 5,000 tokens; the provider counted 20,100.
    let ms = vec![
        msg(json!({"role": "user", "content": "漢".repeat(20_000), "timestamp": 1})),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop", "usage": {"totalTokens": 20_100}}),
        ),
    ];
    let opts = DelegateTurnOptions::default();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    assert_ne!(prep.action, TurnAction::Unchanged);
    match complete_delegate_turn(&ms, &budget, "m", &opts, &SummaryAnswer::default()) {
        Err(Error::SubagentContextOverflow {
            tokens, hard_limit, ..
        }) => {
            assert_eq!(hard_limit, Some(16_000));
            let tokens = tokens.unwrap_or(0);
            assert!(
                tokens >= 16_000,
                "reported in the provider's terms: {tokens}"
            );
        }
        other => panic!("expected SUBAGENT_CONTEXT_OVERFLOW, got {other:?}"),
    }
}

/// Clause 3: a boundary compacts when its context is at or above hardLimit: exactly at
/// hardLimit it acts, one token below it the context stays as it is.
#[test]
fn a_context_at_exactly_hard_limit_compacts_and_one_token_below_does_not() {
    let budget = budget_8k();
    assert_eq!(budget.hard_limit, 4_096);
    for (usage, unchanged) in [(4_095, true), (4_096, false)] {
        let ms = vec![
            brief(),
            msg(
                json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop", "usage": {"totalTokens": usage}}),
            ),
        ];
        let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
        assert_eq!(prep.tokens, usage);
        assert_eq!(prep.action == TurnAction::Unchanged, unchanged, "{prep:?}");
    }
}

#[test]
fn a_calibrated_compaction_lands_below_hard_limit_in_provider_terms() {
    let budget = budget_32k();
    // the provider counts three times what chars/4 says
    let mut ms = vec![msg(
        json!({"role": "user", "content": "brief", "timestamp": 1}),
    )];
    for i in 0..12 {
        ms.push(msg(json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("c{i}"), "name": "read", "arguments": {"path": "x"}}], "stopReason": "toolUse"})));
        ms.push(msg(json!({"role": "toolResult", "toolCallId": format!("c{i}"), "toolName": "read", "content": [{"type": "text", "text": "r".repeat(4_000)}], "isError": false})));
    }
    let estimate: u64 = ms.iter().map(estimate_tokens).sum();
    ms.push(msg(json!({"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop", "usage": {"totalTokens": 3 * estimate}})));
    let opts = DelegateTurnOptions::default();
    let answer = SummaryAnswer {
        history: Some("## Goal\nread".into()),
        turn_prefix: Some("p".into()),
        error: None,
    };
    let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
    let out_messages = out.materialize(&ms);
    assert_ne!(out.outcome, TurnOutcomeKind::Unchanged);
    let after: u64 = out_messages.iter().map(estimate_tokens).sum();
    assert!(
        3 * after < budget.hard_limit,
        "{after} estimate tokens, about {} for the provider",
        3 * after
    );
}

#[test]
fn a_read_larger_than_the_window_fails_at_once_without_a_summary_request() {
    // [brief, read call, a 16k-token result] on an 8k model: no summary can make it fit
    // and the newest unit (the call with its result) does not fit even alone
    let budget = context_budget(&BudgetModel {
        context_window: Some(8192.0),
        max_tokens: Some(1024.0),
        definition_max_tokens: None,
    });
    let ms = vec![
        msg(json!({"role": "user", "content": "Read the big file.", "timestamp": 1})),
        read_call("c1", "big"),
        msg(
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "x".repeat(64_000)}], "isError": false}),
        ),
    ];
    let ctx = delegate_context::compaction::DelegateContext::from_messages(&ms).unwrap();
    let opts = DelegateTurnOptions::default();
    let turn =
        delegate_context::compaction::Turn::begin(&ctx, &budget, "local/small", &opts).unwrap();
    match turn.next(&ctx) {
        Err(Error::SubagentContextOverflow { model_id, .. }) => assert_eq!(model_id, "local/small"),
        other => {
            panic!("expected SUBAGENT_CONTEXT_OVERFLOW before any summary request, got {other:?}")
        }
    }
}

fn budget_8k() -> ContextBudget {
    context_budget(&BudgetModel {
        context_window: Some(8192.0),
        max_tokens: Some(1024.0),
        definition_max_tokens: None,
    }) // hardLimit 4,096
}

fn tool_turn(id: &str, path: &str, result_chars: usize) -> Vec<AgentMessage> {
    vec![read_call(id, path), read_result(id, result_chars)]
}

fn degrade_of(
    ms: &[AgentMessage],
) -> (
    delegate_context::compaction::DelegateTurnOutcome,
    Vec<AgentMessage>,
) {
    let out = complete_delegate_turn(
        ms,
        &budget_8k(),
        "local/small",
        &DelegateTurnOptions::default(),
        &SummaryAnswer {
            error: Some("summary model down".into()),
            ..SummaryAnswer::default()
        },
    )
    .unwrap();
    let messages = out.materialize(ms);
    (out, messages)
}

fn summary_text(m: &AgentMessage) -> String {
    match m {
        AgentMessage::CompactionSummary(s) => s.summary.clone(),
        other => panic!("expected a compactionSummary, got {other:?}"),
    }
}

#[test]
fn a_degrade_keeps_the_newest_unit_even_when_older_ones_do_not_fit() {
    // brief, then a 3,000-token read the newest: the old code dropped every message whose
    // unit did not fit with the note and went on with the brief alone
    let mut ms = vec![msg(
        json!({"role": "user", "content": "Brief: read big files.", "timestamp": 1}),
    )];
    ms.extend(tool_turn("c1", "a.rs", 9_000));
    ms.extend(tool_turn("c2", "b.rs", 12_000));
    let (out, messages) = degrade_of(&ms);
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded);
    assert_eq!(messages[0], ms[0]);
    assert_eq!(
        &messages[2..],
        &ms[3..],
        "the newest call and its result are kept"
    );
    assert_eq!(out.dropped_messages, 2);
    let note = summary_text(&messages[1]);
    assert!(
        note.starts_with("[Context degraded] 2 earlier messages"),
        "{note}"
    );
    assert!(
        note.contains("Files read or changed in the dropped history: a.rs."),
        "{note}"
    );
    assert!(note.contains("the most recent messages follow"), "{note}");
}

#[test]
fn a_degrade_with_nothing_kept_never_claims_recent_messages_follow() {
    // an orphan tool result is never kept: after the brief nothing is keepable
    let ms = vec![
        msg(json!({"role": "user", "content": "Brief.", "timestamp": 1})),
        read_result("gone", 20_000),
    ];
    let (out, messages) = degrade_of(&ms);
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded);
    assert_eq!(messages.len(), 2, "the brief and the note");
    let note = summary_text(&messages[1]);
    assert!(
        note.starts_with("[Context degraded] 1 earlier message "),
        "{note}"
    );
    assert_eq!(out.dropped_messages, 1);
    assert!(note.contains("no earlier messages follow"), "{note}");
    assert!(!note.contains("most recent messages follow"), "{note}");
}

#[test]
fn a_second_degrade_replaces_the_first_note_instead_of_wrapping_it() {
    let mut ms = vec![msg(
        json!({"role": "user", "content": "Brief.", "timestamp": 1}),
    )];
    ms.extend(tool_turn("c1", "a.rs", 9_000));
    ms.extend(tool_turn("c2", "b.rs", 9_000));
    let (_, first) = degrade_of(&ms);
    let mut next = first.clone();
    next.extend(tool_turn("c3", "c.rs", 9_000));
    next.extend(tool_turn("c4", "d.rs", 9_000));
    let (out, second) = degrade_of(&next);
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded);
    let note = summary_text(&second[1]);
    assert_eq!(
        note.matches("[Context degraded]").count(),
        1,
        "one note, not nested: {note}"
    );
    assert!(
        note.starts_with(&format!(
            "[Context degraded] {} earlier message",
            out.dropped_messages
        )),
        "{note}"
    );
}

#[test]
fn every_summary_request_shows_the_brief() {
    let budget = budget_8k();
    let mut ms = vec![msg(
        json!({"role": "user", "content": "BRIEF-TEXT: audit src/.", "timestamp": 1}),
    )];
    ms.push(msg(json!({"role": "compactionSummary", "summary": "earlier work", "details": {"retainedMessages": 0}})));
    for i in 0..8 {
        ms.extend(tool_turn(&format!("c{i}"), &format!("f{i}.rs"), 3_000));
    }
    let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize);
    for r in &prep.requests {
        let AgentMessage::User(u) = &r.messages[0] else {
            panic!()
        };
        assert!(
            u.content.text("").contains("BRIEF-TEXT: audit src/."),
            "the brief is context of the {:?} request",
            r.kind
        );
    }
}

/// A brief of 6,000 characters and one active tool round (about 4,000 tokens): over the
/// early trigger of [`budget_8k`], below its hardLimit.
fn brief_plus_one_active_tool_turn() -> (Vec<AgentMessage>, DelegateTurnOptions) {
    let ms = vec![
        msg(json!({"role": "user", "content": "b".repeat(6_000), "timestamp": 1})),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(6_000)}, {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}}], "stopReason": "toolUse"}),
        ),
        read_result("c1", 2_800),
    ];
    let opts = DelegateTurnOptions {
        early_trigger: true,
        ..Default::default()
    };
    (ms, opts)
}

/// The brief is shown as context (`<task>`) of a request whose messages do not start
/// with it: the history right after the brief, with no previous summary before it; a
/// split first turn's prefix starts with the brief itself, and shows it only there.
#[test]
fn the_brief_is_context_of_a_request_unless_its_messages_start_with_it() {
    let budget = budget_8k();
    let text = |r: &delegate_context::compaction::SummaryRequest| match &r.messages[0] {
        AgentMessage::User(u) => u.content.text(""),
        other => panic!("{other:?}"),
    };
    let mut ms = vec![msg(
        json!({"role": "user", "content": "BRIEF-TEXT: audit src/.", "timestamp": 1}),
    )];
    for i in 0..8 {
        ms.push(msg(
            json!({"role": "user", "content": format!("step {i}"), "timestamp": 1}),
        ));
        ms.extend(tool_turn(&format!("c{i}"), &format!("f{i}.rs"), 3_000));
    }
    let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    assert_eq!(
        prep.requests[0].kind,
        delegate_context::compaction::SummaryKind::History
    );
    for r in &prep.requests {
        assert!(
            text(r).starts_with("The task this conversation works on")
                && text(r).contains("<task>\nBRIEF-TEXT: audit src/.\n</task>"),
            "the brief is context of the {:?} request",
            r.kind
        );
    }
    // the brief starts the only turn, which the cut splits: the prefix starts with it
    let (ms, opts) = brief_plus_one_active_tool_turn();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    assert_eq!(prep.requests.len(), 1, "{prep:?}");
    let prefix = text(&prep.requests[0]);
    assert!(!prefix.contains("<task>"), "{prefix}");
    assert!(
        prefix.contains(&format!("[User]: {}", "b".repeat(6_000))),
        "{prefix}"
    );
}

/// A summary request that cannot fit the summarizing model's window even with an empty
/// conversation is not built: the boundary degrades and says why.
#[test]
fn a_request_too_large_for_the_window_degrades_with_that_reason() {
    // a 400-token window: hardLimit 200, and a request's fixed prompt alone (about 1,700
    // characters) does not fit beside its maxTokens
    let budget = context_budget(&BudgetModel {
        context_window: Some(400.0),
        max_tokens: Some(100.0),
        definition_max_tokens: None,
    });
    assert_eq!(budget.hard_limit, 200);
    let mut ms = vec![msg(
        json!({"role": "user", "content": "brief", "timestamp": 1}),
    )];
    for i in 0..6 {
        ms.push(msg(
            json!({"role": "user", "content": format!("step {i} {}", "u".repeat(200)), "timestamp": 1}),
        ));
        ms.push(text_reply("a", 200));
    }
    let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
    assert_eq!(prep.action, TurnAction::Degrade, "{prep:?}");
    assert_eq!(
        prep.reason,
        Some(delegate_context::compaction::DegradeReason::SummaryRequestTooLarge)
    );
    assert!(prep.requests.is_empty());
}

#[test]
fn the_brief_plus_one_active_tool_turn_asks_for_the_split_turn_summary() {
    // the host app's "compacts at the shared early trigger before the hard limit": the brief
    // starts the only turn; the cut splits it; one (turn-prefix) summary request
    let budget = budget_8k();
    let (ms, opts) = brief_plus_one_active_tool_turn();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    assert!(
        prep.tokens >= budget.compaction_trigger && prep.tokens < budget.hard_limit,
        "{prep:?}"
    );
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    assert_eq!(prep.requests.len(), 1);
    assert_eq!(
        prep.requests[0].kind,
        delegate_context::compaction::SummaryKind::TurnPrefix
    );
    assert!(prep.is_split_turn);
}

/// The `message_facts` fuzz target's `crash-marks-lone-surrogate`: a host-written
/// `details` holding a lone surrogate, or nesting deeper than a JSON parser's recursion
/// limit, somewhere else must not lose this library's marks (a lost `degraded` or
/// `retainedMessages` made the next degrade nest its note and trusted stale usage).
#[test]
fn summary_marks_survive_lone_surrogates_and_deep_nesting_elsewhere_in_details() {
    use delegate_context::facts::MessageFacts;
    let deep = format!("{}1{}", "[".repeat(3_000), "]".repeat(3_000));
    for extra in [r#""\udc00""#.to_string(), deep] {
        let text = format!(
            r#"{{"role":"compactionSummary","summary":"s","tokensBefore":9,"timestamp":1,"details":{{"host":{extra},"readFiles":["a.rs","b\ud800.rs"],"modifiedFiles":["c.rs"],"retainedMessages":3,"degraded":true,"droppedMessages":4,"carriedFrom":2,"retainedMessages":5}}}}"#
        );
        let facts = MessageFacts::from_json(&text, "m").unwrap();
        let marks = facts.summary.expect("a compactionSummary has marks");
        assert_eq!(marks.read_files, ["a.rs", "b\u{fffd}.rs"]);
        assert_eq!(marks.modified_files, ["c.rs"]);
        assert_eq!(marks.retained_messages, 5, "the last of a repeated key");
        assert!(marks.degraded);
        assert_eq!(marks.dropped_messages, 4);
        assert_eq!(marks.carried_from, Some(2));
    }
}

/// The outcome's own account of the next context: `len()` is its number of messages
/// (what `materialize` gives), `rewrites(n)` says whether it differs from the `n` messages
/// the step was decided over (a handle applies only a rewrite), and a kept run's
/// `Item::len` is its number of messages.
#[test]
fn an_outcome_counts_the_next_context_and_says_when_it_rewrites() {
    use delegate_context::compaction::Item;
    assert_eq!((Item::Kept(3..7).len(), Item::Kept(3..3).len()), (4, 0));
    assert!(Item::Kept(3..3).is_empty() && !Item::Kept(3..4).is_empty());
    let new = Item::New(Box::new(msg(json!({"role": "user", "content": "x"}))));
    assert_eq!((new.len(), new.is_empty()), (1, false));
    use delegate_context::compaction::context::DelegateContext;
    let empty = DelegateContext::new();
    let one =
        DelegateContext::from_messages(&[msg(json!({"role": "user", "content": "x"}))]).unwrap();
    assert_eq!((empty.len(), empty.is_empty()), (0, true));
    assert_eq!((one.len(), one.is_empty()), (1, false));

    let budget = budget_32k();
    let brief = brief();
    let say = |n: usize| {
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(n)}], "stopReason": "stop"}),
        )
    };
    let opts = DelegateTurnOptions::default();
    // below the trigger: unchanged, the same messages, no rewrite
    let small = vec![brief.clone(), say(100), say(100)];
    let out =
        complete_delegate_turn(&small, &budget, "m", &opts, &SummaryAnswer::default()).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Unchanged);
    assert_eq!(out.len(), 3);
    assert!(!out.is_empty());
    assert!(!out.rewrites(3));
    assert!(out.rewrites(4), "decided over 4 messages, 3 follow");
    // compacted: a summary replaces the history; the count is the next context's length
    let big: Vec<_> = std::iter::once(brief)
        .chain((0..8).map(|_| say(8_000)))
        .collect();
    let answer = SummaryAnswer {
        history: Some("## Goal\nwrite".into()),
        turn_prefix: Some("## Original Request\nwrite".into()),
        error: None,
    };
    let out = complete_delegate_turn(&big, &budget, "m", &opts, &answer).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Compacted, "{out:?}");
    let next = out.materialize(&big);
    assert_eq!(out.len(), next.len());
    assert!(next.len() < big.len() && out.rewrites(big.len()));
}

/// pi's `findCutPoint` at small `keepRecentTokens` (a host's own compaction settings may
/// set any value, 0 included): the values pi-agent-core 0.85.1 returns for this context
/// (a 2-token brief, then three messages of 100 tokens), recorded from pi itself.
#[test]
fn the_cut_point_at_small_keep_recent_settings_is_pis() {
    use delegate_context::compaction::context::DelegateContext;
    use delegate_context::compaction::plan::find_cut_point;
    let say = |role: &str, text: String| {
        if role == "user" {
            msg(json!({"role": "user", "content": text, "timestamp": 1}))
        } else {
            msg(
                json!({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop", "timestamp": 1}),
            )
        }
    };
    let ms = vec![
        say("user", "brief".into()),
        say("assistant", "a".repeat(400)),
        say("user", "u".repeat(400)),
        say("assistant", "b".repeat(400)),
    ];
    let ctx = DelegateContext::from_messages(&ms).unwrap();
    // keepRecentTokens → (firstKeptEntryIndex, turnStartIndex, isSplitTurn), from pi
    let pi = [
        (0.0, 3, 2, true),
        (1.0, 3, 2, true),
        (100.0, 3, 2, true),
        (101.0, 2, -1, false),
        (200.0, 2, -1, false),
        (201.0, 1, 0, true),
    ];
    for (keep, first_kept, turn_start, split) in pi {
        let cut = find_cut_point(&ctx, 0, ms.len(), keep, 0);
        assert_eq!(
            (
                cut.first_kept_entry_index,
                cut.turn_start_index,
                cut.is_split_turn
            ),
            (first_kept, turn_start, split),
            "keepRecentTokens {keep}"
        );
    }
}

/// pi's `prepareCompaction` file lists: the files of the messages it summarizes (history
/// and turn prefix) and the previous summary's own lists; never a file of a message
/// before the previous summary, nor of the first kept message. Each case's lists are
/// what pi-agent-core 0.85.1 returns for the same messages (the summary as pi's
/// `compaction` entry with the same `details`).
#[test]
fn the_summarized_file_lists_are_pis() {
    use delegate_context::compaction::context::DelegateContext;
    use delegate_context::compaction::prepare::{prepare_compaction, CompactionSettings};
    let user = |t: String| msg(json!({"role": "user", "content": t, "timestamp": 1}));
    let call = |id: &str, path: &str| {
        msg(
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {"path": path}}], "stopReason": "toolUse", "timestamp": 1}),
        )
    };
    let res = |id: &str| {
        msg(
            json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "r".repeat(400)}], "isError": false, "timestamp": 1}),
        )
    };
    let said = || {
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "b".repeat(400)}], "stopReason": "stop", "timestamp": 1}),
        )
    };
    let reads = |ms: &[delegate_context::message::AgentMessage], keep: f64| {
        let ctx = DelegateContext::from_messages(ms).unwrap();
        let prep = prepare_compaction(&ctx, &CompactionSettings::new(1000.0, keep)).unwrap();
        prep.file_ops.file_lists().0
    };
    // the cut at the read of kept.rs (keepRecentTokens 201): its file stays out
    let ms = vec![
        user("brief".into()),
        call("c1", "old.rs"),
        res("c1"),
        user("u".repeat(400)),
        call("c2", "kept.rs"),
        res("c2"),
        said(),
    ];
    assert_eq!(reads(&ms, 201.0), vec!["old.rs"]);
    assert_eq!(reads(&ms, 200.0), vec!["kept.rs", "old.rs"]);
    // a file read before the previous summary is that summary's business (its details)
    let summary = msg(
        json!({"role": "compactionSummary", "summary": "earlier", "tokensBefore": 500, "timestamp": 1, "details": {"readFiles": ["noted.rs"], "modifiedFiles": [], "retainedMessages": 0}}),
    );
    let ms = vec![
        user("brief".into()),
        call("c1", "before.rs"),
        res("c1"),
        summary,
        user("u".repeat(400)),
        call("c2", "after.rs"),
        res("c2"),
        said(),
    ];
    assert_eq!(reads(&ms, 1.0), vec!["after.rs", "noted.rs"]);
}

/// A summary that comes back empty fails the compaction (ADR 0299 clause 4: then
/// degrade), and the outcome says which one: the history summary or the turn prefix
/// summary of a split turn.
#[test]
fn an_empty_summary_is_named_in_the_outcome() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        text_reply("a", 20_000),
        msg(json!({"role": "user", "content": "go on", "timestamp": 2})),
        text_reply("b", 20_000),
        read_call("c1", "a"),
        read_result("c1", 30_000),
    ];
    let opts = DelegateTurnOptions::default();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    let kinds: Vec<_> = prep.requests.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds.len(),
        2,
        "a history and a turn prefix request: {prep:?}"
    );
    let cases = [
        (
            "",
            "## Original Request\nread a",
            "the history summary is missing or empty",
        ),
        (
            "## Goal\nread a",
            " \n",
            "the turn prefix summary is missing or empty",
        ),
    ];
    for (history, turn_prefix, why) in cases {
        let answer = SummaryAnswer {
            history: Some(history.into()),
            turn_prefix: Some(turn_prefix.into()),
            error: None,
        };
        let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
        assert_eq!(out.outcome, TurnOutcomeKind::Degraded, "{why}");
        assert_eq!(out.summary_error.as_deref(), Some(why));
    }
}

/// Clause 3 before clause 5: a boundary whose degraded context could not fit (the brief,
/// the degrade note and the newest tool round are over hardLimit) but whose compacted
/// context can (the brief, a short summary and the same round) asks for the summary and
/// compacts; it fails with `SUBAGENT_CONTEXT_OVERFLOW` before asking only when even the
/// brief and the retained messages are over the limit
/// (`a_read_larger_than_the_window_fails_at_once_without_a_summary_request`).
#[test]
fn a_summary_that_can_fit_is_asked_for_even_when_a_degrade_cannot() {
    let budget = budget_32k();
    // a read of 63,700 characters (about 15,925 tokens) after 5,000 tokens of history
    let ms = vec![
        brief(),
        msg(json!({"role": "user", "content": "go", "timestamp": 2})),
        text_reply("a", 20_000),
        read_call("c1", "a"),
        read_result("c1", 63_700),
    ];
    let opts = DelegateTurnOptions::default();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    // the cut splits the only turn after the brief: one turn-prefix request
    assert_eq!(prep.requests.len(), 1, "{prep:?}");
    assert_eq!(
        prep.requests[0].kind,
        delegate_context::compaction::SummaryKind::TurnPrefix
    );
    // the step machine asks for that summary instead of failing at once
    let ctx = delegate_context::compaction::DelegateContext::from_messages(&ms).unwrap();
    let turn = delegate_context::compaction::Turn::begin(&ctx, &budget, "m", &opts).unwrap();
    match turn.next(&ctx) {
        Ok(delegate_context::compaction::Next::Summarize(r)) => assert_eq!(
            r.kind,
            delegate_context::compaction::SummaryKind::TurnPrefix
        ),
        other => panic!("expected the turn-prefix request, got {other:?}"),
    }
    // the degrade alone cannot fit: the brief, its note and the read are over hardLimit
    let failed = complete_delegate_turn(
        &ms,
        &budget,
        "m",
        &opts,
        &SummaryAnswer {
            error: Some("summary model down".into()),
            ..SummaryAnswer::default()
        },
    );
    assert!(
        matches!(failed, Err(Error::SubagentContextOverflow { .. })),
        "{failed:?}"
    );
    // with the summary it fits: brief, summary, the read
    let answer = SummaryAnswer {
        history: None,
        turn_prefix: Some("## Original Request\nread a".into()),
        error: None,
    };
    let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Compacted);
    assert!(out.tokens_after < budget.hard_limit, "{out:?}");
    let out_messages = out.materialize(&ms);
    assert_eq!(out_messages.len(), 4);
    assert_eq!(out_messages[0], ms[0]);
    assert!(
        summary_text(&out_messages[1]).contains("## Original Request\nread a"),
        "{:?}",
        out_messages[1]
    );
    assert_eq!(&out_messages[2..], &ms[3..]);
}

/// Clause 3's input: a boundary's messages start with the task brief (a user message), and
/// its budget has a hardLimit of at least 1; anything else is `INVALID_INPUT` at its path.
#[test]
fn a_boundary_needs_its_brief_first_and_a_positive_hard_limit() {
    let budget = budget_32k();
    let opts = DelegateTurnOptions::default();
    let brief = brief();
    let reply = msg(
        json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop"}),
    );
    let invalid = |ms: &[AgentMessage], budget: &ContextBudget| match prepare_delegate_turn(
        ms, budget, &opts,
    ) {
        Err(Error::InvalidInput { path, message }) => (path, message),
        other => panic!("expected INVALID_INPUT, got {other:?}"),
    };
    let (path, message) = invalid(&[], &budget);
    assert_eq!(path, "messages");
    assert!(message.contains("at least its task brief"), "{message}");
    let (path, message) = invalid(&[reply.clone(), brief.clone()], &budget);
    assert_eq!(path, "messages[0]");
    assert!(message.contains("got role \"assistant\""), "{message}");
    let zero = ContextBudget {
        hard_limit: 0,
        ..budget
    };
    let (path, _) = invalid(&[brief.clone(), reply.clone()], &zero);
    assert_eq!(path, "budget.hardLimit");
    // the same context with its brief first and the budget's own hardLimit is valid
    assert!(prepare_delegate_turn(&[brief, reply], &budget, &opts).is_ok());
}

/// pi's `compact()` for a split turn with history before it: the summary is the history
/// summary, then the turn prefix summary under "**Turn Context (split turn):**", then the
/// file lists of both summarized parts, which also go into `details` (`readFiles`,
/// `modifiedFiles`); `summarizedMessages` counts the history and the turn prefix.
#[test]
fn a_split_turn_with_history_composes_pis_summary_and_details() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        read_call("c1", "a.rs"),
        read_result("c1", 20_000),
        msg(json!({"role": "user", "content": "go on", "timestamp": 2})),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(20_000)}, {"type": "toolCall", "id": "c2", "name": "edit", "arguments": {"path": "b.rs"}}], "stopReason": "toolUse"}),
        ),
        msg(
            json!({"role": "toolResult", "toolCallId": "c2", "toolName": "edit", "content": [{"type": "text", "text": "edited"}], "isError": false}),
        ),
        read_call("c3", "c.rs"),
        read_result("c3", 36_000),
    ];
    let opts = DelegateTurnOptions::default();
    let prep = prepare_delegate_turn(&ms, &budget, &opts).unwrap();
    let kinds: Vec<_> = prep.requests.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            delegate_context::compaction::SummaryKind::History,
            delegate_context::compaction::SummaryKind::TurnPrefix
        ],
        "{prep:?}"
    );
    let answer = SummaryAnswer {
        history: Some("HISTORY".into()),
        turn_prefix: Some("PREFIX".into()),
        error: None,
    };
    let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Compacted);
    // history [1, 3) and the turn prefix [3, 6) are summarized; [6, 8) is kept
    assert_eq!(out.summarized_messages, 5);
    let messages = out.materialize(&ms);
    assert_eq!(messages.len(), 4);
    assert_eq!(&messages[2..], &ms[6..]);
    let AgentMessage::CompactionSummary(s) = &messages[1] else {
        panic!("{:?}", messages[1]);
    };
    assert_eq!(
        s.summary,
        "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>"
    );
    let details = serde_json::to_value(&s.extra["details"]).unwrap();
    assert_eq!(details["readFiles"], json!(["a.rs"]), "{details}");
    assert_eq!(details["modifiedFiles"], json!(["b.rs"]), "{details}");
}

/// The limit a rewrite is checked against (clause 3, "below hardLimit in the provider's
/// terms"): provider usage above the context's chars/4 estimate shrinks hardLimit by
/// estimate/usage; usage at or below the estimate, or an estimate of 0 (nothing to scale
/// by), leaves hardLimit.
#[test]
fn the_fit_limit_shrinks_by_estimate_over_usage_only() {
    use delegate_context::compaction::assess::fit_limit;
    use delegate_context::compaction::DelegateContext;
    let budget = budget_32k();
    let ctx = DelegateContext::from_messages(&[
        msg(json!({"role": "user", "content": "b".repeat(4_000), "timestamp": 1})),
        text_reply("a", 4_000),
    ])
    .unwrap();
    assert_eq!(ctx.total_tokens(), 2_000);
    // (overhead, usage tokens) → limit
    let rows = [
        (0, 4_000, 8_000),     // usage twice the estimate: half of hardLimit
        (0, 3_000, 10_666),    // floor(16000 * 2000 / 3000)
        (1_000, 6_000, 8_000), // the overhead counts in the estimate: 3000 / 6000
        (0, 2_000, 16_000),    // equal
        (0, 1_000, 16_000),    // below
    ];
    for (overhead, tokens, want) in rows {
        assert_eq!(
            fit_limit(&ctx, &budget, overhead, tokens),
            want,
            "overhead {overhead}, usage {tokens}"
        );
    }
    let empty = DelegateContext::from_messages(&[msg(
        json!({"role": "user", "content": "", "timestamp": 1}),
    )])
    .unwrap();
    assert_eq!(empty.total_tokens(), 0);
    assert_eq!(fit_limit(&empty, &budget, 0, 500), 16_000);
}

/// The fast path's `last_summary` is an index of the context: one at or past its length is
/// no summary (the answer is the one without it), never a floor that hides every usage.
#[test]
fn the_fast_path_ignores_a_summary_index_past_the_context() {
    use delegate_context::compaction::assess::unchanged_below_threshold;
    let budget = budget_32k();
    let ms = [
        brief(),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop", "usage": {"input": 5000, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 5000}}),
        ),
        msg(json!({"role": "user", "content": "go on", "timestamp": 2})),
    ];
    let summary = msg(
        json!({"role": "compactionSummary", "summary": "s", "tokensBefore": 1, "timestamp": 0}),
    )
    .facts("s")
    .unwrap();
    let brief = ms[0].facts("m").unwrap();
    let opts = DelegateTurnOptions::default();
    let answer = |last_summary| {
        unchanged_below_threshold(ms.len(), &brief, last_summary, &budget, &opts, |i| {
            ms[i].facts("m")
        })
        .unwrap()
        .expect("below the threshold")
    };
    let without = answer(None);
    assert!(without.tokens >= 5_000, "the usage counts: {without:?}");
    assert_eq!(answer(Some((ms.len(), &summary))), without);
    assert_eq!(answer(Some((ms.len() + 5, &summary))), without);
}

/// pi's `maxTokens` of a summary request: `min(floor(f × reserveTokens), maxTokens > 0 ?
/// maxTokens : ∞)` with f = 0.8 for the history and 0.5 for a turn prefix (the table of
/// pi's own requests is tests/pi_table.rs); a reserve that gives no positive finite number
/// gives 0.
#[test]
fn a_summary_requests_max_tokens_table() {
    use delegate_context::compaction::request::summary_max_tokens;
    use delegate_context::compaction::SummaryKind::{History, TurnPrefix};
    let rows = [
        (History, 16384.0, 0.0, 13107),
        (TurnPrefix, 16384.0, 0.0, 8192),
        (History, 16384.0, 4096.0, 4096),
        (History, 16384.0, -1.0, 13107),
        (TurnPrefix, 1001.0, 0.0, 500),
        (History, f64::INFINITY, 0.0, 0),
        (History, f64::INFINITY, 300.0, 300),
        (History, f64::NAN, 0.0, 0),
        (History, -10.0, 0.0, 0),
        (History, 1.0, 0.0, 0),
    ];
    for (kind, reserve, model_max, want) in rows {
        assert_eq!(
            summary_max_tokens(kind, reserve, model_max),
            want,
            "{kind:?} reserve {reserve} model maxTokens {model_max}"
        );
    }
}

/// The previous summary of a plan ending at `end` is the last `compactionSummary` before
/// `end`, also when a later one exists (a prefix of the context).
#[test]
fn the_previous_summary_is_the_last_one_before_the_end() {
    use delegate_context::compaction::plan::last_summary_before;
    use delegate_context::compaction::DelegateContext;
    let summary = |s: &str| {
        msg(json!({"role": "compactionSummary", "summary": s, "tokensBefore": 1, "timestamp": 0}))
    };
    let reply = || {
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "stopReason": "stop"}),
        )
    };
    let user = || msg(json!({"role": "user", "content": "go", "timestamp": 1}));
    let ctx = DelegateContext::from_messages(&[
        user(),
        reply(),
        summary("first"),
        user(),
        reply(),
        summary("second"),
        user(),
    ])
    .unwrap();
    let rows = [
        (0, None),
        (1, None),
        (2, None),
        (3, Some(2)),
        (5, Some(2)),
        (6, Some(5)),
        (7, Some(5)),
        (99, Some(5)),
    ];
    for (end, want) in rows {
        assert_eq!(last_summary_before(&ctx, end), want, "end {end}");
    }
}

/// ADR 0136 with a previous summary: an active turn whose results reach keepRecentTokens
/// moves the cut to its assistant; the turn start is searched only after the previous
/// summary (pi's boundaryStart), so a user message before the summary does not make the
/// moved cut a split turn: what lies between the summary and the active assistant is one
/// history request.
#[test]
fn a_moved_cut_searches_its_turn_start_after_the_previous_summary_only() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "first"}], "stopReason": "stop"}),
        ),
        msg(json!({"role": "user", "content": "go on", "timestamp": 2})),
        msg(
            json!({"role": "compactionSummary", "summary": "## Goal\nread", "tokensBefore": 9000, "timestamp": 3}),
        ),
        text_reply("a", 400),
        read_call("c1", "a"),
        read_result("c1", 70_000),
    ];
    let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    let kinds: Vec<_> = prep.requests.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [delegate_context::compaction::SummaryKind::History],
        "{prep:?}"
    );
    assert!(!prep.is_split_turn);
    // the assistant after the summary is summarized; the active turn is retained
    assert_eq!((prep.summarized_messages, prep.retained_messages), (1, 2));
}

/// ADR 0136: an active turn is retained whole. When pi's cut falls after the active
/// assistant (here at a user message sent while its tool ran), the cut moves back to that
/// assistant: the assistant, its result and the message after them stay verbatim.
#[test]
fn a_cut_after_the_active_assistant_moves_back_to_it() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        text_reply("a", 30_000),
        read_call("c1", "a"),
        read_result("c1", 20_000),
        msg(
            json!({"role": "user", "content": format!("also look at b {}", "s".repeat(40_000)), "timestamp": 2}),
        ),
    ];
    let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    // pi alone would keep only the user message (10,000 tokens reach keepRecentTokens)
    assert_eq!(
        (prep.summarized_messages, prep.retained_messages),
        (1, 3),
        "{prep:?}"
    );
    // the brief starts the first turn, so the moved cut splits it: one turn-prefix request
    // for the message between the brief and the active assistant
    assert!(prep.is_split_turn);
    let kinds: Vec<_> = prep.requests.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [delegate_context::compaction::SummaryKind::TurnPrefix]
    );
}

/// ADR 0136's retention only ever moves pi's cut back: a cut that already falls before the
/// active assistant keeps more than the active turn, and stays where pi put it.
#[test]
fn a_cut_before_the_active_assistant_stays_where_pi_put_it() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        text_reply("a", 40_000),
        msg(json!({"role": "user", "content": "go on", "timestamp": 2})),
        text_reply("b", 20_000),
        read_call("c1", "a"),
        read_result("c1", 16_000),
    ];
    let prep = prepare_delegate_turn(&ms, &budget, &DelegateTurnOptions::default()).unwrap();
    assert_eq!(prep.action, TurnAction::Summarize, "{prep:?}");
    // pi's cut at the assistant before the active one (keepRecentTokens reached there):
    // the history before the turn and the turn's start are summarized, three kept
    assert_eq!(
        (prep.summarized_messages, prep.retained_messages),
        (2, 3),
        "{prep:?}"
    );
    let kinds: Vec<_> = prep.requests.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            delegate_context::compaction::SummaryKind::History,
            delegate_context::compaction::SummaryKind::TurnPrefix
        ]
    );
}

/// An outcome counts the messages of the next context; `is_empty` says there are none.
#[test]
fn an_outcome_is_empty_only_without_messages() {
    use delegate_context::compaction::turn::TurnKind;
    use delegate_context::compaction::DelegateTurnOutcome;
    let none = DelegateTurnOutcome::unchanged(0, 0, 0, 16_000, TurnKind::Completed);
    assert_eq!((none.len(), none.is_empty()), (0, true));
    let three = DelegateTurnOutcome::unchanged(3, 10, 10, 16_000, TurnKind::Completed);
    assert_eq!((three.len(), three.is_empty()), (3, false));
}

/// A compaction over a previous summary that is not right after the brief: the messages
/// between the brief and that summary were already summarized, and the compacted context
/// drops them; the outcome counts them and their tokens.
#[test]
fn a_compaction_counts_the_messages_before_the_previous_summary_it_drops() {
    let budget = budget_32k();
    let ms = vec![
        brief(),
        text_reply("f", 400),
        msg(json!({"role": "user", "content": "go on", "timestamp": 2})),
        msg(
            json!({"role": "compactionSummary", "summary": "## Goal\nread", "tokensBefore": 9000, "timestamp": 3}),
        ),
        text_reply("a", 30_000),
        read_call("c1", "a"),
        read_result("c1", 40_000),
    ];
    let opts = DelegateTurnOptions::default();
    let answer = SummaryAnswer {
        history: Some("## Goal\nread a".into()),
        turn_prefix: None,
        error: None,
    };
    let out = complete_delegate_turn(&ms, &budget, "m", &opts, &answer).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Compacted, "{out:?}");
    let messages = out.materialize(&ms);
    assert_eq!(messages.len(), 4, "brief, summary, the active turn");
    assert_eq!(&messages[2..], &ms[5..]);
    assert_eq!(out.dropped_messages, 2);
    assert_eq!(
        out.dropped_tokens,
        estimate_tokens(&ms[1]) + estimate_tokens(&ms[2])
    );
}
