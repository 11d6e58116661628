//! `tokens::estimate_tokens` counts a typed message; `MessageFacts::tokens` counts the
//! same message from its JSON text (the count the JavaScript differential tests compare
//! with pi's `estimateTokens` on the real sessions). They must agree on every message:
//! the real sessions' (skipped with a notice when `../shared` is absent, a failure under
//! `CI=true`) and generated ones of every role and block kind, with text that is not
//! ASCII, escapes, images, tool arguments of every JSON kind and unknown blocks and roles.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use delegate_context::facts::MessageFacts;
use delegate_context::js_text::to_json;
use delegate_context::message::AgentMessage;
use delegate_context::tokens::estimate_tokens;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Both counts of the message `v` (as the host would hold it).
fn both(v: &Value) -> (u64, u64) {
    let typed = AgentMessage::from_value(v.clone(), "m").expect("a valid message");
    let text = to_json(v).expect("JSON text");
    let facts = MessageFacts::from_json(&text, "m").expect("facts");
    (estimate_tokens(&typed), facts.tokens)
}

#[test]
fn the_real_sessions_count_alike() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/pi-sessions");
    let mut seen = 0;
    for file in ["large-session.jsonl", "before-compaction.jsonl"] {
        let path = dir.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "fixture missing under CI: {}",
                path.display()
            );
            println!("# SKIP: fixture {} is absent", path.display());
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let entry: Value = serde_json::from_str(line).expect("a JSON line");
            if entry["type"] != "message" {
                continue;
            }
            let (typed, facts) = both(&entry["message"]);
            assert_eq!(typed, facts, "{file}: {}", entry["message"]);
            seen += 1;
        }
    }
    println!("{seen} real messages counted alike");
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('a'),
            Just(' '),
            Just('"'),
            Just('\\'),
            Just('\n'),
            Just('\u{1}'),
            Just('é'),
            Just('中'),
            Just('😀'),
            Just('\u{2028}'),
            any::<char>()
        ],
        0..40,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        // floats: written as JavaScript writes them by both counts
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| json!(x)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A block of any kind a content array may hold.
fn block() -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(|t| json!({"type": "text", "text": t})),
        (text(), any::<bool>())
            .prop_map(|(t, r)| json!({"type": "thinking", "thinking": t, "redacted": r})),
        text().prop_map(|d| json!({"type": "image", "data": d, "mimeType": "image/png"})),
        (text(), text(), json_value()).prop_map(|(id, name, args)| {
            let args = if args.is_object() {
                args
            } else {
                json!({"value": args})
            };
            json!({"type": "toolCall", "id": id, "name": name, "arguments": args})
        }),
        text().prop_map(|t| json!({"type": "mystery", "text": t})),
    ]
}

fn content() -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(Value::String),
        prop::collection::vec(
            prop_oneof![
                text().prop_map(|t| json!({"type": "text", "text": t})),
                text().prop_map(|d| json!({"type": "image", "data": d, "mimeType": "image/png"})),
            ],
            0..4
        )
        .prop_map(Value::Array),
    ]
}

fn message() -> impl Strategy<Value = Value> {
    prop_oneof![
        content().prop_map(|c| json!({"role": "user", "content": c, "timestamp": 1})),
        prop::collection::vec(block(), 0..5).prop_map(|blocks| {
            // an assistant's blocks: no image among them is read by either count
            json!({"role": "assistant", "content": blocks, "stopReason": "toolUse", "timestamp": 2})
        }),
        (content(), text()).prop_map(|(c, id)| json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": c, "isError": false})),
        (content(), text()).prop_map(|(c, t)| json!({"role": "custom", "customType": t, "content": c, "display": true})),
        text().prop_map(|s| json!({"role": "compactionSummary", "summary": s, "tokensBefore": 5})),
        text().prop_map(|s| json!({"role": "branchSummary", "summary": s, "fromId": null})),
        (text(), text()).prop_map(|(c, o)| json!({"role": "bashExecution", "command": c, "output": o, "exitCode": 0, "cancelled": false, "truncated": false})),
        text().prop_map(|t| json!({"role": "narrator", "content": t})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn generated_messages_count_alike(v in message()) {
        let (typed, facts) = both(&v);
        prop_assert_eq!(typed, facts, "{}", v);
    }
}
