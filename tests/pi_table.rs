//! host-contract §3 (ADR 0299 clause 3): the compaction primitives against pi-agent-core
//! 0.85.1's own answers on small hand-written contexts, recorded in tests/data/pi-table.json
//! (`node tests/js/pi-table.test.mjs` checks the file against the live pi and rewrites it
//! with `--write`): pi's default settings, `serializeConversation(convertToLlm(messages))`,
//! and `prepareCompaction` and `findCutPoint` of every prefix at several keepRecentTokens.
//! The differential tests on the real sessions (tests/js/compaction-diff.test.mjs) compare
//! many more prefixes, through the package; this table holds the native core to pi, so a
//! wrong rule fails `cargo test` (and cargo-mutants sees it, issue 20).
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::compaction::context::DelegateContext;
use delegate_context::compaction::file_ops::FileOps;
use delegate_context::compaction::prepare::{
    compaction_plans, prepare_compaction, CompactionPreparation, CompactionSettings,
};
use delegate_context::compaction::request::serialize_facts;
use delegate_context::decode::decode_value;
use delegate_context::message::AgentMessage;
use serde_json::{json, Value};

fn table() -> Value {
    serde_json::from_str(include_str!("data/pi-table.json")).expect("tests/data/pi-table.json")
}

fn context(messages: &[Value]) -> DelegateContext {
    let ms: Vec<AgentMessage> = messages
        .iter()
        .map(|m| AgentMessage::from_value(m.clone(), "m").expect("a table message"))
        .collect();
    DelegateContext::from_messages(&ms).expect("a table context")
}

fn settings(keep: f64) -> CompactionSettings {
    CompactionSettings::new(16384.0, keep)
}

fn file_ops(v: &Value) -> FileOps {
    let list = |k: &str| -> Vec<String> {
        v[k].as_array()
            .expect("a list")
            .iter()
            .map(|s| s.as_str().expect("a path").to_string())
            .collect()
    };
    FileOps {
        read: list("read"),
        written: list("written"),
        edited: list("edited"),
    }
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("a list of indices")
        .iter()
        .map(|i| i.as_u64().expect("an index") as usize)
        .collect()
}

fn range_of(r: &delegate_context::compaction::prepare::MessageRange) -> Vec<usize> {
    (r.start..r.end).collect()
}

/// pi's `DEFAULT_COMPACTION_SETTINGS`: what an absent field of `settings` means, in the
/// decoder the package uses and in the type's derive.
#[test]
fn absent_settings_are_pis_defaults() {
    let defaults = &table()["defaults"];
    let want = (
        defaults["reserveTokens"].as_f64().unwrap(),
        defaults["keepRecentTokens"].as_f64().unwrap(),
    );
    let of = |s: CompactionSettings| (s.reserve_tokens, s.keep_recent_tokens);
    assert_eq!(of(CompactionSettings::default()), want);
    let decoded: CompactionSettings = decode_value(&json!({"enabled": true}), "settings").unwrap();
    assert_eq!(of(decoded), want);
    let derived: CompactionSettings = serde_json::from_value(json!({"enabled": true})).unwrap();
    assert_eq!(of(derived), want);
    // a field given is kept, the other one defaults
    let decoded: CompactionSettings =
        decode_value(&json!({"keepRecentTokens": 7}), "settings").unwrap();
    assert_eq!(of(decoded), (want.0, 7.0));
    let derived: CompactionSettings = serde_json::from_value(json!({"reserveTokens": 9})).unwrap();
    assert_eq!(of(derived), (9.0, want.1));
}

#[test]
fn serialize_conversation_is_pis() {
    for c in table()["contexts"].as_array().unwrap() {
        let ctx = context(c["messages"].as_array().unwrap());
        assert_eq!(
            serialize_facts(ctx.facts()),
            c["serialized"].as_str().unwrap(),
            "{}",
            c["name"]
        );
    }
}

/// Every prefix at every keepRecentTokens, through the batch (`compactionPlans`) and the
/// single call (`prepareCompaction`), against pi's `prepareCompaction` and `findCutPoint`.
#[test]
fn prepare_compaction_and_the_cut_of_every_prefix_are_pis() {
    let mut compared = 0;
    for c in table()["contexts"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let messages = c["messages"].as_array().unwrap();
        let whole = context(messages);
        let plans = c["plans"].as_array().unwrap();
        let mut keeps: Vec<f64> = plans.iter().map(|p| p["keep"].as_f64().unwrap()).collect();
        keeps.dedup();
        for keep in keeps {
            let rows: Vec<&Value> = plans.iter().filter(|p| p["keep"] == keep).collect();
            let ends: Vec<usize> = rows
                .iter()
                .map(|p| p["end"].as_u64().unwrap() as usize)
                .collect();
            let batch = compaction_plans(&whole, &ends, &settings(keep));
            assert_eq!(batch.len(), rows.len(), "{name}: one row per end");
            for (pi, ours) in rows.iter().zip(&batch) {
                let end = pi["end"].as_u64().unwrap() as usize;
                let label = format!("{name} keep={keep} end={end}");
                assert_eq!(ours.end, end, "{label}");
                assert_eq!(
                    (ours.turn_start_index, ours.is_split_turn),
                    (
                        pi["turnStartIndex"].as_i64().unwrap(),
                        pi["isSplitTurn"].as_bool().unwrap()
                    ),
                    "{label}: findCutPoint"
                );
                let single = prepare_compaction(&context(&messages[..end]), &settings(keep));
                let prepared = &pi["prepared"];
                if prepared.is_null() {
                    assert!(!ours.applicable, "{label}: pi returns undefined");
                    assert!(single.is_none(), "{label}: pi returns undefined");
                    continue;
                }
                assert!(ours.applicable, "{label}");
                assert_eq!(
                    ours.first_kept_entry_index,
                    pi["firstKeptEntryIndex"].as_u64().unwrap() as usize,
                    "{label}: findCutPoint"
                );
                let want_summarize = indices(&prepared["messagesToSummarize"]);
                let want_prefix = indices(&prepared["turnPrefixMessages"]);
                let want_retained = indices(&prepared["retainedTail"]);
                let want_tokens = prepared["tokensBefore"].as_f64().unwrap();
                let want_previous = prepared["previousSummary"].as_str().map(str::to_string);
                let want_ops = file_ops(&prepared["fileOps"]);
                // the batch row
                assert_eq!(
                    (ours.compactable_start..ours.history_end).collect::<Vec<_>>(),
                    want_summarize,
                    "{label}: messagesToSummarize"
                );
                assert_eq!(ours.tokens_before, want_tokens, "{label}: tokensBefore");
                assert_eq!(ours.previous_summary, want_previous, "{label}");
                assert_eq!(ours.file_ops, want_ops, "{label}: fileOps");
                // the single call
                let p: CompactionPreparation = single.expect("applicable");
                assert_eq!(
                    range_of(&p.messages_to_summarize),
                    want_summarize,
                    "{label}"
                );
                assert_eq!(range_of(&p.turn_prefix_messages), want_prefix, "{label}");
                assert_eq!(range_of(&p.retained_tail), want_retained, "{label}");
                assert_eq!(p.is_split_turn, prepared["isSplitTurn"].as_bool().unwrap());
                assert_eq!(p.tokens_before, want_tokens, "{label}: tokensBefore");
                assert_eq!(p.previous_summary, want_previous, "{label}");
                assert_eq!(p.file_ops, want_ops, "{label}: fileOps");
                assert_eq!(p.settings, settings(keep), "{label}: settings echoed");
                compared += 1;
            }
        }
    }
    // the table reaches cuts of every kind (a row that only says "undefined" would not)
    assert!(compared >= 150, "{compared} applicable rows");
}

/// The summary requests pi's `compact` sends for a whole context (captured from pi-ai's
/// faux provider): the history request, then a split turn's prefix request, each with
/// pi's system prompt, prompt text and `maxTokens`, at three reserveTokens / model
/// maxTokens / customInstructions settings. (The boundary adds the delegate's brief as
/// context; pi has no brief, so these requests are built without one.)
#[test]
fn summary_requests_are_pis() {
    use delegate_context::compaction::request::{build_summary_request, SummaryRequestSpec};
    use delegate_context::compaction::SummaryKind;
    let mut compared = 0;
    for c in table()["contexts"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let ctx = context(c["messages"].as_array().unwrap());
        for r in c["requests"].as_array().unwrap() {
            let keep = r["keep"].as_f64().unwrap();
            let label = format!("{name} keep={keep} {r}");
            let p = prepare_compaction(&ctx, &settings(keep)).expect("applicable");
            let parts =
                |range: &delegate_context::compaction::prepare::MessageRange| -> Vec<String> {
                    ctx.facts()[range.start..range.end]
                        .iter()
                        .flat_map(|f| f.parts())
                        .collect()
                };
            // pi's `compact`: a split turn sends the history request only when there is
            // history, then the prefix request; otherwise it sends the history request,
            // empty or not (the boundary itself never asks to summarize nothing)
            let history = (SummaryKind::History, parts(&p.messages_to_summarize));
            let kinds =
                if p.is_split_turn && p.turn_prefix_messages.end > p.turn_prefix_messages.start {
                    let prefix = (SummaryKind::TurnPrefix, parts(&p.turn_prefix_messages));
                    if p.messages_to_summarize.end > p.messages_to_summarize.start {
                        vec![history, prefix]
                    } else {
                        vec![prefix]
                    }
                } else {
                    vec![history]
                };
            let sent = r["sent"].as_array().unwrap();
            assert_eq!(kinds.len(), sent.len(), "{label}: how many requests");
            for ((kind, parts), pi) in kinds.into_iter().zip(sent) {
                let spec = SummaryRequestSpec {
                    kind,
                    parts,
                    brief: None,
                    previous_summary: p.previous_summary.as_deref(),
                    custom_instructions: r["customInstructions"].as_str(),
                    reserve_tokens: r["reserveTokens"].as_f64().unwrap(),
                    model_max_tokens: r["maxTokens"].as_f64().unwrap(),
                    context_window: 1_000_000,
                    now: 0.0,
                };
                let ours = build_summary_request(&spec).expect("a request that fits");
                assert!(!ours.bounded, "{label}");
                assert_eq!(
                    ours.system_prompt,
                    pi["systemPrompt"].as_str().unwrap(),
                    "{label}"
                );
                assert_eq!(
                    ours.max_tokens,
                    pi["maxTokens"].as_u64().unwrap(),
                    "{label}"
                );
                let AgentMessage::User(u) = &ours.messages[0] else {
                    panic!("{label}: a user message");
                };
                assert_eq!(
                    u.content.text(""),
                    pi["prompt"].as_str().unwrap(),
                    "{label} {kind:?}"
                );
                // pi's `if (previousSummary)`: an empty previous summary is none
                if spec.previous_summary.is_none() {
                    let empty = SummaryRequestSpec {
                        previous_summary: Some(""),
                        ..spec.clone()
                    };
                    assert_eq!(build_summary_request(&empty), Some(ours), "{label}");
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 25, "{compared} requests");
}
