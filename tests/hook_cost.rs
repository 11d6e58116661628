//! Issue 16 item 3: a turn boundary that changes nothing costs what came after the last
//! provider response, not the whole history, whichever driver runs it (the pi `Agent`
//! hook, `runDelegateTurn`, `DelegateContext.runTurn` all run the core's [`Turn`]).
//! Pinned without timing: the bytes the step allocates (a counting allocator, this
//! thread only) are the same over a 100,000-message context as over 1,000 messages.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use delegate_context::budget::{context_budget, BudgetModel};
use delegate_context::compaction::run::{Run, TurnConfig};
use delegate_context::compaction::turn::{DelegateTurnOptions, TurnOutcomeKind};
use delegate_context::compaction::{DelegateContext, Next};
use delegate_context::facts::MessageFacts;
use serde_json::json;

struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|c| c.set(c.get().saturating_add(bytes)));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocated() -> usize {
    ALLOCATED.with(Cell::get)
}

fn facts(v: serde_json::Value) -> MessageFacts {
    MessageFacts::from_json(&v.to_string(), "message").expect("a valid message")
}

/// One tool turn: an assistant with provider usage that calls `read`, and its result.
fn turn(i: usize) -> [MessageFacts; 2] {
    [
        facts(json!({
            "role": "assistant",
            "content": [{"type": "toolCall", "id": format!("c{i}"), "name": "read", "arguments": {"path": format!("f{i}")}}],
            "api": "x", "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": i,
            "usage": {"input": 1000 + i, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1020 + i,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
        })),
        facts(json!({
            "role": "toolResult", "toolCallId": format!("c{i}"), "toolName": "read",
            "content": [{"type": "text", "text": "line of code\n".repeat(20)}], "isError": false, "timestamp": i
        })),
    ]
}

/// Bytes allocated by each of five unchanged boundaries over a context of `turns` tool
/// turns, one turn pushed before each (the push is not counted: the step is).
fn bytes_per_step(turns: usize) -> Vec<usize> {
    let budget = context_budget(&BudgetModel {
        context_window: Some(100_000_000.0),
        max_tokens: Some(32_000.0),
        definition_max_tokens: None,
    });
    let options = DelegateTurnOptions {
        now: Some(0.0),
        ..Default::default()
    };
    let brief =
        facts(json!({"role": "user", "content": "BRIEF: read every file.", "timestamp": 0}));
    let mut ctx = DelegateContext::from_facts(std::iter::once(brief));
    for i in 0..turns {
        for f in turn(i) {
            ctx.push(f);
        }
    }
    // the hook's run, as the binding drives it: the step's configuration, the boundary,
    // the count and the report
    let config = TurnConfig {
        budget,
        model_id: "m".into(),
        options,
    };
    let mut run: Run<()> = Run::new(config, None);
    let mut per_step = Vec::new();
    for k in 0..5 {
        for f in turn(turns + k) {
            ctx.push(f);
        }
        let before = allocated();
        let held = run.lock().acquire().expect("one boundary at a time");
        let config = run
            .step_config(0.0, || Ok(()), |_| Ok(0.0))
            .expect("a configuration");
        let step = config.begin(&ctx, 0.0).expect("a valid context");
        let Next::Done(out) = step.next(&ctx).expect("below the threshold") else {
            panic!("below the threshold nothing is summarized");
        };
        assert_eq!(out.outcome, TurnOutcomeKind::Unchanged);
        drop(held);
        // the report borrows the outcome: it is made and dropped within the step
        let _ = run.record(&out);
        drop((out, step, config));
        per_step.push(allocated() - before);
    }
    assert_eq!(run.tally().boundaries, 5);
    per_step
}

#[test]
fn an_unchanged_boundary_allocates_the_same_over_any_history() {
    let small = bytes_per_step(500);
    let large = bytes_per_step(50_000);
    println!("bytes allocated per unchanged step: {small:?} (1,001 messages), {large:?} (100,001 messages)");
    assert_eq!(large, small, "the step's allocations grow with the history");
}
