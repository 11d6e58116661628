//! The typed-input decoder (`src/decode.rs`) against the crate it replaced: for random
//! JSON values shaped like the package's inputs (their own keys, wrong types anywhere),
//! `serde_path_to_error` over serde_json names the same bad value with the same message,
//! and both accept the same values.

mod decode_reference;
mod js_words;
use decode_reference::same;

use delegate_context::budget::ContextBudget;
use delegate_context::compaction::prepare::CompactionSettings;
use delegate_context::delegation::seed::SeedInput;
use delegate_context::delegation::types::{SettleDelegation, StartDelegation};
use delegate_context::transcript::UiMessage;
use proptest::prelude::*;
use serde_json::{Map, Value};

const KEYS: &[&str] = &[
    "id",
    "role",
    "content",
    "createdAt",
    "status",
    "toolName",
    "toolCallId",
    "toolArgs",
    "isError",
    "parentToolCallId",
    "agentName",
    "usage",
    "delegationId",
    "reads",
    "rows",
    "files",
    "lines",
    "toolCallIds",
    "agent",
    "task",
    "model",
    "resume",
    "binding",
    "key",
    "modelId",
    "candidates",
    "allowed",
    "definitionBinding",
    "brief",
    "chain",
    "hardLimit",
    "contextWindow",
    "maxOutputTokens",
    "requestHeadroom",
    "keepRecentTokens",
    "compactionTrigger",
    "retainedUserBudget",
    "reserveTokens",
    "enabled",
    // the other field names of these types (a misspelt one would read as absent)
    "overheadTokens",
    "systemPrompt",
    "tools",
    "provider",
    "api",
    "thinkingSignature",
    "toolStatus",
    "toolResult",
    "description",
    "thinkingLevel",
    "summaryMaxTokens",
    "maxTokens",
    "earlyTrigger",
];
const STRINGS: &[&str] = &[
    "user",
    "assistant",
    "tool",
    "completed",
    "failed",
    "aborted",
    "x",
    "",
    "2024-01-01T00:00:00Z",
];

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..5).prop_map(Value::from),
        (-3i64..0).prop_map(Value::from),
        Just(Value::from(1.5)),
        Just(Value::from(u64::MAX)),
        proptest::sample::select(STRINGS).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..8).prop_map(
                |entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect::<Map<_, _>>(),
                    )
                }
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_same_bad_value_and_message_as_serde_path_to_error(v in json()) {
        same::<UiMessage>(&v)?;
        same::<Vec<UiMessage>>(&Value::Array(vec![v.clone()]))?;
        same::<StartDelegation>(&v)?;
        same::<SettleDelegation>(&v)?;
        same::<SeedInput>(&v)?;
        same::<ContextBudget>(&v)?;
        same::<CompactionSettings>(&v)?;
        same::<Option<Vec<u32>>>(&v)?;
        same::<Vec<(String, f64)>>(&v)?;
    }
}
