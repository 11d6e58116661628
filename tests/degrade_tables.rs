//! ADR 0299 clauses 4–5 as tables (issue 20: rules no test noticed when a mutant changed
//! them). Clause 4: "When a summary cannot be generated, or the compacted context still
//! exceeds hardLimit, the run keeps the original task brief plus the most recent
//! message(s) and discards the rest of its history. The run continues and records that it
//! was degraded". Host-contract §5 says which recent messages: "at least the newest
//! message, with the tool call or results it is paired with, then as many older ones as
//! fit (never starting with an orphan toolResult; failed or empty assistants skipped)".
//! Clause 5: "When even the degraded context does not fit, the run fails with
//! SUBAGENT_CONTEXT_OVERFLOW".
//!
//! Every case runs the public boundary step (`complete_delegate_turn`) on an 8k model
//! (hardLimit 4,096, host-contract §4) with a summary that failed, so the expected values
//! are the clauses' words, not the module's internals.
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::budget::{context_budget, BudgetModel, ContextBudget};
use delegate_context::compaction::turn::{
    DegradeReason, DelegateTurnOptions, DelegateTurnOutcome, SummaryAnswer, TurnOutcomeKind,
};
use delegate_context::compaction::{complete_delegate_turn, Item};
use delegate_context::message::AgentMessage;
use delegate_context::tokens::estimate_tokens;
use delegate_context::Error;
use serde_json::{json, Value};

const MODEL: &str = "local/small";

fn msg(v: Value) -> AgentMessage {
    AgentMessage::from_value(v, "m").unwrap()
}

/// host-contract §4: an 8,192-token window with a 1,024-token output cap has hardLimit
/// 4,096 (window − max(16384 clamped to half the window, ...)).
fn budget_8k() -> ContextBudget {
    let b = context_budget(&BudgetModel {
        context_window: Some(8192.0),
        max_tokens: Some(1024.0),
        definition_max_tokens: None,
    });
    assert_eq!(b.hard_limit, 4_096);
    b
}

fn brief() -> AgentMessage {
    msg(json!({"role": "user", "content": "Brief: audit the files.", "timestamp": 1}))
}
fn user(text: &str) -> AgentMessage {
    msg(json!({"role": "user", "content": text, "timestamp": 2}))
}
fn call(ids: &[&str], path: &str) -> AgentMessage {
    let calls: Vec<Value> = ids
        .iter()
        .map(
            |id| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {"path": path}}),
        )
        .collect();
    msg(json!({"role": "assistant", "content": calls, "stopReason": "toolUse"}))
}
fn result(id: &str, chars: usize) -> AgentMessage {
    msg(
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "r".repeat(chars)}], "isError": false}),
    )
}
fn said(text: &str, stop: &str) -> AgentMessage {
    msg(
        json!({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": stop}),
    )
}
fn empty_assistant() -> AgentMessage {
    msg(json!({"role": "assistant", "content": [], "stopReason": "stop"}))
}
/// A read of about 5,000 tokens: more than hardLimit on its own, so a context holding it
/// must be degraded and this read cannot be kept.
fn big_read(id: &str, path: &str) -> Vec<AgentMessage> {
    vec![call(&[id], path), result(id, 20_000)]
}
fn previous_summary(text: &str) -> AgentMessage {
    msg(
        json!({"role": "compactionSummary", "summary": text, "tokensBefore": 9000, "timestamp": 1, "details": {"retainedMessages": 0}}),
    )
}

fn failed() -> SummaryAnswer {
    SummaryAnswer {
        error: Some("summary model down".into()),
        ..SummaryAnswer::default()
    }
}

fn boundary(
    ms: &[AgentMessage],
    opts: &DelegateTurnOptions,
    answer: &SummaryAnswer,
) -> Result<DelegateTurnOutcome, Error> {
    complete_delegate_turn(ms, &budget_8k(), MODEL, opts, answer)
}

/// A degrade of `ms` after a failed summary: the outcome and the next context.
fn degrade(ms: &[AgentMessage]) -> (DelegateTurnOutcome, Vec<AgentMessage>) {
    let out = boundary(ms, &DelegateTurnOptions::default(), &failed()).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded, "{out:?}");
    let next = out.materialize(ms);
    (out, next)
}

/// The indices of the input messages the next context keeps, after the brief.
fn kept_indices(out: &DelegateTurnOutcome) -> Vec<usize> {
    out.messages
        .iter()
        .filter_map(|item| match item {
            Item::Kept(r) => Some(r.clone()),
            Item::New(_) => None,
        })
        .flatten()
        .filter(|&i| i > 0)
        .collect()
}

fn note_of(next: &[AgentMessage]) -> String {
    match &next[1] {
        AgentMessage::CompactionSummary(s) => s.summary.clone(),
        other => panic!("expected the degrade note second, got {other:?}"),
    }
}

/// host-contract §5: which messages after the dropped history a degrade keeps. Each row
/// is the history after a read too large to keep (messages 1–2); `kept` are the positions
/// in that tail the next context keeps, in order, after the brief and the note.
#[test]
fn what_a_degrade_may_keep() {
    struct Row {
        rule: &'static str,
        tail: Vec<AgentMessage>,
        kept: Vec<usize>,
    }
    let rows = vec![
        Row {
            rule: "a user message is kept on its own",
            tail: vec![user("now check b.rs")],
            kept: vec![0],
        },
        Row {
            rule: "the newest message with the tool call it answers: a call and its result travel together",
            tail: vec![call(&["c1"], "a.rs"), result("c1", 40)],
            kept: vec![0, 1],
        },
        Row {
            rule: "an assistant with every result that answers it (two calls)",
            tail: vec![call(&["c1", "c2"], "a.rs"), result("c1", 40), result("c2", 40)],
            kept: vec![0, 1, 2],
        },
        Row {
            rule: "a failed assistant (stopReason error) is skipped; the newest keepable message is kept",
            tail: vec![call(&["c1"], "a.rs"), result("c1", 40), said("partial", "error")],
            kept: vec![0, 1],
        },
        Row {
            rule: "an aborted assistant is a failed one: skipped",
            tail: vec![user("go on"), said("partial", "aborted")],
            kept: vec![0],
        },
        Row {
            rule: "an empty assistant is skipped",
            tail: vec![user("go on"), empty_assistant()],
            kept: vec![0],
        },
        Row {
            rule: "a failed assistant's own results are not kept either",
            tail: vec![
                user("go on"),
                msg(
                    json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.rs"}}], "stopReason": "error"}),
                ),
                result("c1", 40),
            ],
            kept: vec![0],
        },
        Row {
            rule: "never an orphan toolResult",
            tail: vec![user("go on"), result("gone", 40)],
            kept: vec![0],
        },
        Row {
            rule: "a result answering another call is an orphan, not part of the assistant's unit",
            tail: vec![user("go on"), call(&["c1"], "a.rs"), result("c9", 40)],
            kept: vec![0],
        },
        Row {
            rule: "an assistant whose call has no result, followed by newer messages, is not kept",
            tail: vec![call(&["c1"], "a.rs"), user("go on")],
            kept: vec![1],
        },
        Row {
            rule: "an assistant with one of two calls answered, not the newest, is not kept",
            tail: vec![call(&["c1", "c2"], "a.rs"), result("c1", 40), user("go on")],
            kept: vec![2],
        },
        Row {
            rule: "the newest message is kept even when its call is still unanswered",
            tail: vec![user("go on"), call(&["c1"], "a.rs")],
            kept: vec![0, 1],
        },
        Row {
            rule: "older keepable units follow the newest, oldest first",
            tail: vec![user("one"), call(&["c1"], "a.rs"), result("c1", 40), user("two")],
            kept: vec![0, 1, 2, 3],
        },
    ];
    for row in rows {
        let mut ms = vec![brief()];
        ms.extend(big_read("c0", "old.rs"));
        let first_tail = ms.len();
        ms.extend(row.tail.iter().cloned());
        let (out, next) = degrade(&ms);
        let want: Vec<usize> = row.kept.iter().map(|k| first_tail + k).collect();
        assert_eq!(kept_indices(&out), want, "{}", row.rule);
        assert_eq!(next[0], ms[0], "{}: the brief stays first", row.rule);
        assert_eq!(
            next.len(),
            2 + want.len(),
            "{}: brief, note, kept",
            row.rule
        );
        // everything else is lost history, and the outcome says so
        assert_eq!(
            out.dropped_messages,
            ms.len() - 1 - want.len(),
            "{}",
            row.rule
        );
        assert!(out.context_degraded, "{}", row.rule);
        let note = note_of(&next);
        let n = out.dropped_messages;
        let noun = if n == 1 { "message" } else { "messages" };
        assert!(
            note.starts_with(&format!("[Context degraded] {n} earlier {noun} ")),
            "{}: {note}",
            row.rule
        );
    }
}

/// "then as many older ones as fit": newest first, and the first older unit that does not
/// fit ends the kept history (no gap: an older message never follows a dropped newer one).
#[test]
fn older_messages_are_kept_newest_first_while_they_fit() {
    let mut ms = vec![brief(), user("oldest, small")];
    ms.extend(big_read("c0", "old.rs")); // 2, 3: too large with the newer ones
    ms.extend([call(&["c1"], "a.rs"), result("c1", 8_000)]); // 4, 5: ~2,000 tokens
    ms.push(user("newest"));
    let (out, next) = degrade(&ms);
    assert_eq!(kept_indices(&out), vec![4, 5, 6]);
    assert_eq!(out.dropped_messages, 3);
    assert!(
        note_of(&next).contains("the most recent messages follow"),
        "{}",
        note_of(&next)
    );
    // the degraded context fits hardLimit (clause 4's "the run continues")
    let after: u64 = next.iter().map(estimate_tokens).sum();
    assert!(after < 4_096, "{after}");
    assert_eq!(out.tokens_after, after);
    // the newest unit stays even when nothing older fits beside it
    let mut ms = vec![brief()];
    ms.extend(big_read("c0", "old.rs"));
    ms.extend([call(&["c1"], "a.rs"), result("c1", 12_000)]); // ~3,000 tokens
    let (out, _) = degrade(&ms);
    assert_eq!(kept_indices(&out), vec![3, 4]);
}

/// The note names the files the dropped history read, at most 20, and how many more
/// (`(+N more)`): 20 files are all named, 21 name 20 and "(+1 more)".
#[test]
fn the_note_names_at_most_twenty_files_and_counts_the_rest() {
    // (files the dropped history read, how many the note names, "(+N more)")
    for (files, shown, more) in [
        (1usize, 1usize, None),
        (19, 19, None),
        (20, 20, None),
        (21, 20, Some(1usize)),
        (23, 20, Some(3)),
    ] {
        let mut ms = vec![brief()];
        for i in 0..files - 1 {
            ms.extend([
                call(&[&format!("c{i}")], &format!("f{i:02}.rs")),
                result(&format!("c{i}"), 8),
            ]);
        }
        ms.extend(big_read("cbig", "zz-big.rs")); // does not fit beside the newest: dropped, and the reads before it
        ms.push(user("newest"));
        let (out, next) = degrade(&ms);
        assert_eq!(kept_indices(&out), vec![ms.len() - 1], "{files} files");
        let note = note_of(&next);
        // the note lists them sorted (pi's file lists): f00.rs ... then zz-big.rs
        let named: Vec<String> = (0..files - 1)
            .map(|i| format!("f{i:02}.rs"))
            .chain(["zz-big.rs".to_string()])
            .collect();
        assert_eq!(named.len(), files);
        let list = named[..shown].join(", ");
        let tail = match more {
            Some(n) => format!(" (+{n} more)."),
            None => ".".to_string(),
        };
        assert!(
            note.contains(&format!(
                "Files read or changed in the dropped history: {list}{tail}"
            )),
            "{files} files: {note}"
        );
        assert_eq!(more.is_some(), note.contains(" more)"), "{files}: {note}");
        assert_eq!(note.matches(".rs").count(), shown, "{files}: {note}");
    }
}

/// Clause 4 carries what summary there is: the previous summary's text travels in the note
/// (the messages it covers are summarized, not dropped).
#[test]
fn the_note_carries_the_previous_summary() {
    let mut ms = vec![brief(), previous_summary("PREVIOUS: read a.rs and b.rs")];
    ms.extend(big_read("c0", "old.rs"));
    ms.push(user("newest"));
    let (out, next) = degrade(&ms);
    let note = note_of(&next);
    assert!(
        note.ends_with("\n\nSummary of the earlier work:\n\nPREVIOUS: read a.rs and b.rs"),
        "{note}"
    );
    assert_eq!(kept_indices(&out), vec![4]);
    assert_eq!(
        out.dropped_messages, 2,
        "the read; the summary is carried, not lost"
    );
    assert_eq!(out.summarized_messages, 1);
    assert!(
        note.starts_with("[Context degraded] 2 earlier messages "),
        "{note}"
    );

    // A second degrade carries the same summary text, once, and not the first note's
    // own words (it replaces the note instead of wrapping it).
    let mut again = next.clone();
    again.extend(big_read("c5", "new.rs"));
    again.push(user("newest again"));
    let (out2, next2) = degrade(&again);
    let note2 = note_of(&next2);
    assert!(
        note2.ends_with("\n\nSummary of the earlier work:\n\nPREVIOUS: read a.rs and b.rs"),
        "{note2}"
    );
    assert_eq!(note2.matches("PREVIOUS: read a.rs").count(), 1, "{note2}");
    assert_eq!(note2.matches("[Context degraded]").count(), 1, "{note2}");
    assert_eq!(kept_indices(&out2), vec![again.len() - 1]);
}

/// A previous degrade note that carried no summary gives the next note none to carry.
#[test]
fn a_note_without_a_summary_carries_none_the_next_time() {
    let mut ms = vec![brief()];
    ms.extend(big_read("c0", "old.rs"));
    ms.push(user("newest"));
    let (_, next) = degrade(&ms);
    assert!(!note_of(&next).contains("Summary of the earlier work"));
    let mut again = next.clone();
    again.extend(big_read("c5", "new.rs"));
    again.push(user("newest again"));
    let (out, next2) = degrade(&again);
    let note2 = note_of(&next2);
    assert!(!note2.contains("Summary of the earlier work"), "{note2}");
    // the first note carried nothing, so it is lost history now: counted with the first
    // round's newest message and the read this round drops
    assert_eq!(out.dropped_messages, 4, "{note2}");
}

/// Clause 5: a brief (with the request's overhead) that reaches hardLimit on its own
/// cannot be degraded: SUBAGENT_CONTEXT_OVERFLOW, reporting that size. "At or above
/// hardLimit" does not fit (clause 3's threshold), so exactly hardLimit overflows.
#[test]
fn a_brief_at_hard_limit_overflows_at_once() {
    let mut ms = vec![brief()];
    ms.extend(big_read("c0", "old.rs"));
    let brief_tokens = estimate_tokens(&ms[0]);
    for (overhead, over) in [
        (4_096 - brief_tokens, true),
        (4_096 - brief_tokens + 7, true),
    ] {
        let opts = DelegateTurnOptions {
            overhead_tokens: Some(overhead as f64),
            ..Default::default()
        };
        match boundary(&ms, &opts, &failed()) {
            Err(Error::SubagentContextOverflow {
                model_id,
                tokens,
                hard_limit,
            }) => {
                assert!(over);
                assert_eq!(model_id, MODEL);
                assert_eq!(hard_limit, Some(4_096));
                assert_eq!(
                    tokens,
                    Some(brief_tokens + overhead),
                    "the brief's own size"
                );
            }
            other => {
                panic!("overhead {overhead}: expected SUBAGENT_CONTEXT_OVERFLOW, got {other:?}")
            }
        }
    }
}

/// The degraded reason is recorded: a failed summary says so, with the summary's error.
#[test]
fn a_degrade_records_why() {
    let mut ms = vec![brief()];
    ms.extend(big_read("c0", "old.rs"));
    ms.push(user("newest"));
    let (out, next) = degrade(&ms);
    assert_eq!(out.reason, Some(DegradeReason::SummaryFailed));
    assert_eq!(out.summary_error.as_deref(), Some("summary model down"));
    assert_eq!(out.context_compactions, 1);
    let note = note_of(&next);
    assert!(
        note.contains(&format!(
            "to fit the context window of model \"{MODEL}\": no summary of it could be generated."
        )),
        "{note}"
    );
}

/// A context that already fits loses nothing: with the early trigger (host-contract §5, at
/// 90% of hardLimit) a failed summary of a context below hardLimit leaves it as it is,
/// previous summary included; the previous summary is carried by a degrade note only
/// when history must go, never kept beside it.
#[test]
fn a_failed_summary_below_hard_limit_leaves_the_context_as_it_is() {
    let opts = DelegateTurnOptions {
        early_trigger: true,
        ..Default::default()
    };
    let ms = vec![
        brief(),
        previous_summary(&"s".repeat(4_000)), // about 1,000 tokens
        user(&"a".repeat(5_400)),             // 1,350
        user(&"b".repeat(5_400)),             // 1,350
    ];
    let total: u64 = ms.iter().map(estimate_tokens).sum();
    let budget = budget_8k();
    assert!(
        total >= budget.compaction_trigger && total < budget.hard_limit,
        "{total}: between the early trigger and hardLimit"
    );
    let out = boundary(&ms, &opts, &failed()).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Unchanged, "{out:?}");
    assert_eq!(out.materialize(&ms), ms);
    assert_eq!((out.dropped_messages, out.context_compactions), (0, 0));
}

/// Clause 4's other trigger: "the compacted context still exceeds hardLimit". The fresh
/// summary that did not fit is carried by the degrade note; the messages it summarized
/// are summarized, not dropped; only the retained messages the degrade cannot keep are
/// lost, and the note counts exactly those.
#[test]
fn a_fresh_summary_that_did_not_fit_travels_in_the_note() {
    let mut ms = vec![brief()];
    for i in 0..10 {
        ms.extend([
            call(&[&format!("c{i}")], &format!("f{i}.rs")),
            result(&format!("c{i}"), 1_800),
        ]);
    }
    let summary = format!("## Goal\n{}", "h".repeat(10_000)); // about 2,500 tokens
    let answer = SummaryAnswer {
        history: Some(summary.clone()),
        turn_prefix: Some(summary.clone()),
        error: None,
    };
    let out = boundary(&ms, &DelegateTurnOptions::default(), &answer).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded, "{out:?}");
    assert_eq!(out.reason, Some(DegradeReason::StillOverLimit));
    // one active turn from the brief on: its prefix was summarized (a split turn)
    assert!(out.is_split_turn);
    let next = out.materialize(&ms);
    let note = note_of(&next);
    let carried = note
        .split_once("\n\nSummary of the earlier work:\n\n")
        .map(|(_, s)| s)
        .unwrap_or_default();
    assert!(carried.contains(&summary), "{}", &note[..300]);
    let kept = kept_indices(&out);
    assert!(!kept.is_empty() && *kept.last().unwrap() == ms.len() - 1);
    assert!(
        out.summarized_messages > 0 && out.dropped_messages > 0,
        "{out:?}"
    );
    assert_eq!(
        out.summarized_messages + out.dropped_messages + kept.len(),
        ms.len() - 1,
        "every message after the brief is kept, summarized or dropped"
    );
    // the dropped ones are the newest messages not kept: the summary covers all older ones
    let first_kept = kept[0];
    assert_eq!(
        out.summarized_messages + out.dropped_messages,
        first_kept - 1
    );
    let noun = if out.dropped_messages == 1 {
        "message"
    } else {
        "messages"
    };
    assert!(
        note.starts_with(&format!(
            "[Context degraded] {} earlier {noun} ",
            out.dropped_messages
        )),
        "{}",
        &note[..300]
    );
    eprintln!(
        "kept {kept:?}, summarized {}, dropped {}",
        out.summarized_messages, out.dropped_messages
    );
}

/// "then as many older ones as fit": an older message is left out only when keeping it
/// would reach hardLimit. The note is budgeted before it is written, at an upper bound of
/// its text (the largest counts, every file of the context), so "fit" has that bound's
/// slack: a dropped message would have brought the context within 64 tokens of hardLimit.
#[test]
fn an_older_message_is_left_out_only_when_it_would_not_fit() {
    let mut kept_some = false;
    let mut dropped_some = false;
    for chars in (15_000..16_400).step_by(8) {
        let mut ms = vec![brief()];
        ms.extend(big_read("c0", "old.rs"));
        ms.push(user(&"x".repeat(chars)));
        ms.push(user("newest"));
        let (out, _) = degrade(&ms);
        let x = estimate_tokens(&ms[3]);
        if kept_indices(&out) == vec![3, 4] {
            kept_some = true;
            assert!(out.tokens_after < 4_096, "{chars}: {out:?}");
        } else {
            assert_eq!(kept_indices(&out), vec![4], "{chars}");
            dropped_some = true;
            assert!(
                out.tokens_after + x >= 4_096 - 64,
                "{chars} characters ({x} tokens) were dropped with {} tokens kept",
                out.tokens_after
            );
        }
    }
    assert!(kept_some && dropped_some, "the sweep crosses the limit");
}

/// pi's file lists for the next compaction (host-contract §3, `details.readFiles`): the
/// degrade note lists the files of the history it replaced, not those of the messages
/// still in context.
#[test]
fn the_note_lists_the_files_of_the_history_it_replaced() {
    let mut ms = vec![brief()];
    ms.extend(big_read("c0", "old.rs"));
    ms.extend([call(&["c1"], "kept.rs"), result("c1", 40)]);
    let (out, next) = degrade(&ms);
    assert_eq!(kept_indices(&out), vec![3, 4]);
    let AgentMessage::CompactionSummary(note) = &next[1] else {
        panic!("expected the degrade note second")
    };
    let details = &note.extra["details"];
    assert_eq!(details["readFiles"], json!(["old.rs"]), "{details}");
    assert_eq!(details["modifiedFiles"], json!([]), "{details}");
    assert_eq!(details["degraded"], json!(true), "{details}");
    assert_eq!(details["retainedMessages"], json!(2), "{details}");
}

fn early() -> DelegateTurnOptions {
    DelegateTurnOptions {
        early_trigger: true,
        ..Default::default()
    }
}

/// Clause 4 keeps "the original task brief plus the most recent message(s)": a context
/// below hardLimit is left as it is only when nothing would be lost. A failed assistant is
/// never kept (host-contract §5), so a context that holds one is degraded even though it
/// fits, and the note counts the failed assistant as dropped.
#[test]
fn a_fitting_context_with_a_message_a_degrade_drops_is_degraded() {
    let ms = vec![
        brief(),
        user(&"a".repeat(7_400)), // 1,850 tokens
        said("the provider failed", "error"),
        user(&"b".repeat(7_400)), // 1,850
    ];
    let total: u64 = ms.iter().map(estimate_tokens).sum();
    let budget = budget_8k();
    assert!(
        total >= budget.compaction_trigger && total < budget.hard_limit,
        "{total}"
    );
    let out = boundary(&ms, &early(), &failed()).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded, "{out:?}");
    assert_eq!(out.dropped_messages, 1, "{out:?}");
    assert_eq!(kept_indices(&out), vec![1, 3]);
}

/// "Fits" is below hardLimit: a context of exactly hardLimit tokens is degraded, one
/// token less is left as it is (the 4-characters-per-token estimate of host-contract §2:
/// the filler's length is searched for each total).
#[test]
fn a_context_fits_below_hard_limit_not_at_it() {
    let limit = budget_8k().hard_limit;
    let with_filler =
        |chars: usize| vec![brief(), user(&"a".repeat(6_000)), user(&"b".repeat(chars))];
    let mut seen = [false, false];
    for chars in 10_200..10_600 {
        let ms = with_filler(chars);
        let total: u64 = ms.iter().map(estimate_tokens).sum();
        let expected = if total == limit {
            TurnOutcomeKind::Degraded
        } else if total == limit - 1 {
            TurnOutcomeKind::Unchanged
        } else {
            continue;
        };
        let out = boundary(&ms, &early(), &failed()).unwrap();
        assert_eq!(out.outcome, expected, "{total} tokens: {out:?}");
        seen[usize::from(total == limit)] = true;
    }
    assert_eq!(seen, [true, true], "both totals were reached");
}

/// A context that fits keeps its previous summary even when a degrade note carrying that
/// summary would not fit beside the newest message: no note is written, so nothing is
/// dropped (before, the degrade fell back to a note without the summary and dropped it).
#[test]
fn a_fitting_context_keeps_its_summary_when_the_note_would_not_fit() {
    let ms = vec![
        brief(),
        previous_summary(&"s".repeat(8_000)), // about 2,000 tokens
        user(&"u".repeat(8_280)),             // 2,070
    ];
    let total: u64 = ms.iter().map(estimate_tokens).sum();
    let budget = budget_8k();
    assert!(
        total >= budget.compaction_trigger && total < budget.hard_limit,
        "{total}: between the early trigger and hardLimit"
    );
    let out = boundary(&ms, &early(), &failed()).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Unchanged, "{out:?}");
    assert_eq!(out.materialize(&ms), ms);
}

/// A fresh summary that did not fit is placed by a degrade (clause 4's "the compacted
/// context still exceeds hardLimit") even when the context before it was below hardLimit:
/// the summary is never thrown away by leaving the context as it was.
#[test]
fn a_fresh_summary_is_placed_even_when_the_context_fit() {
    let ms = vec![
        brief(),
        user(&"a".repeat(6_000)),
        said(&"b".repeat(6_000), "stop"),
        user(&"c".repeat(3_000)),
    ];
    let total: u64 = ms.iter().map(estimate_tokens).sum();
    let budget = budget_8k();
    assert!(
        total >= budget.compaction_trigger && total < budget.hard_limit,
        "{total}"
    );
    let summary = format!("## Goal\n{}", "h".repeat(14_000)); // about 3,500 tokens
    let answer = SummaryAnswer {
        history: Some(summary.clone()),
        turn_prefix: Some(summary.clone()),
        error: None,
    };
    let out = boundary(&ms, &early(), &answer).unwrap();
    assert_eq!(out.outcome, TurnOutcomeKind::Degraded, "{out:?}");
    assert_eq!(out.reason, Some(DegradeReason::StillOverLimit), "{out:?}");
}
