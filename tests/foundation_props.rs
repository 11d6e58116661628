//! Property tests of the foundation (host-contract §1–2): sizes as JavaScript measures
//! them, messages that come back with every field they had, and pi's estimate.
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::js_text::{
    js_number_to_string, json_stringify, json_stringify_len, utf16_len,
};
use delegate_context::message::AgentMessage;
use delegate_context::tokens::{estimate_context_tokens, estimate_tokens, sum_estimates};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('a'),
            Just(' '),
            Just('"'),
            Just('\\'),
            Just('\n'),
            Just('\u{1}'),
            Just('\u{1f}'),
            Just('é'),
            Just('中'),
            Just('😀'),
            Just('\u{2028}'),
            Just('\u{7f}'),
            any::<char>()
        ],
        0..24,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

/// JSON values without floats (serde_json prints floats unlike JavaScript; those are
/// covered by the differential test against pi and by `numbers_round_trip`).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// serde_json escapes exactly what JSON.stringify escapes (quote, backslash, the
    /// short escapes, other controls as \u00XX), so for float-free values its output
    /// measured in UTF-16 units is an independent oracle.
    #[test]
    fn stringify_length_matches_an_independent_serializer(v in json_value()) {
        let reference = serde_json::to_string(&v).unwrap();
        prop_assert_eq!(json_stringify_len(&v), utf16_len(&reference));
        // the allocation-free length and the printer agree
        prop_assert_eq!(json_stringify_len(&v), utf16_len(&json_stringify(&v)));
    }

    #[test]
    fn numbers_round_trip(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let s = js_number_to_string(x);
        prop_assert_eq!(s.parse::<f64>().unwrap(), if x == 0.0 { 0.0 } else { x });
        prop_assert!(!s.contains("e") || s.contains("e+") || s.contains("e-"), "{}", s);
    }

    /// Any known-role message with unknown fields comes back field for field.
    #[test]
    fn messages_keep_unknown_fields(extra in prop::collection::vec(("[a-z]{1,8}X", json_value()), 0..5), body in text(), which in 0usize..4) {
        let mut m = match which {
            0 => json!({"role": "user", "content": body, "timestamp": 1.0}),
            1 => json!({"role": "assistant", "content": [{"type": "text", "text": body, "blockX": 1.0}, {"type": "toolCall", "id": "c", "name": "n", "arguments": {"a": body}}], "stopReason": "stop", "usage": {"input": 1.0, "output": 2.0, "totalTokens": 3.0, "cost": {"total": 0.5}}}),
            2 => json!({"role": "toolResult", "toolCallId": "c", "toolName": "n", "content": [{"type": "text", "text": body}], "isError": false}),
            _ => json!({"role": "bashExecution", "command": body, "output": "", "exitCode": null}),
        };
        for (k, v) in extra {
            m.as_object_mut().unwrap().insert(k, v);
        }
        let decoded = AgentMessage::from_value(m.clone(), "m").unwrap();
        prop_assert_eq!(normalize(serde_json::to_value(&decoded).unwrap()), normalize(m));
    }

    /// Reading newest first and stopping at the anchor gives pi's figure; with no usage
    /// it is the sum of the per-message estimates.
    #[test]
    fn context_estimate_is_anchor_plus_trailing(sizes in prop::collection::vec((0usize..400, 0u8..4), 1..30)) {
        let msgs: Vec<AgentMessage> = sizes.iter().map(|&(n, kind)| {
            let v = match kind {
                0 => json!({"role": "user", "content": "x".repeat(n)}),
                1 => json!({"role": "assistant", "content": [{"type": "text", "text": "y".repeat(n)}], "stopReason": "stop", "usage": {"totalTokens": n as f64}}),
                2 => json!({"role": "assistant", "content": [], "stopReason": "error", "usage": {"totalTokens": 5.0}}),
                _ => json!({"role": "toolResult", "toolCallId": "c", "toolName": "t", "content": [{"type": "text", "text": "z".repeat(n)}]}),
            };
            AgentMessage::from_value(v, "m").unwrap()
        }).collect();
        let e = estimate_context_tokens(&msgs).unwrap();
        match e.last_usage_index {
            None => prop_assert_eq!(e.tokens, sum_estimates(&msgs) as f64),
            Some(i) => {
                prop_assert!(matches!(&msgs[i], AgentMessage::Assistant(a) if !a.is_failed()));
                prop_assert_eq!(e.trailing_tokens, msgs[i + 1..].iter().map(estimate_tokens).sum::<u64>() as f64);
                prop_assert_eq!(e.tokens, e.usage_tokens + e.trailing_tokens);
            }
        }
    }
}

fn normalize(v: Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(a) => Value::Array(a.into_iter().map(normalize).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, normalize(v))).collect()),
        other => other,
    }
}
