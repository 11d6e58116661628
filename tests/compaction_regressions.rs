//! Regression tests of ADR 0299 clauses 3–5 for cases an independent review found:
//! an active turn whose own results reach keepRecentTokens, and a context whose provider
//! usage is far above its chars/4 estimate.
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::budget::{context_budget, BudgetModel, ContextBudget};
use delegate_context::compaction::turn::{
    complete_delegate_turn, prepare_delegate_turn, DelegateTurnOptions, SummaryAnswer, TurnAction,
    TurnOutcomeKind,
};
use delegate_context::message::AgentMessage;
use delegate_context::tokens::estimate_tokens;
use delegate_context::Error;
use serde_json::json;

fn msg(v: serde_json::Value) -> AgentMessage {
    AgentMessage::from_value(v, "m").unwrap()
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
        msg(json!({"role": "user", "content": "brief", "timestamp": 1})),
        msg(
            json!({"role": "assistant", "content": [{"type": "text", "text": "a".repeat(28_000)}], "stopReason": "stop"}),
        ),
        msg(
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}], "stopReason": "toolUse"}),
        ),
        msg(
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "r".repeat(36_000)}], "isError": false}),
        ),
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
        msg(
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "big"}}], "stopReason": "toolUse"}),
        ),
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
