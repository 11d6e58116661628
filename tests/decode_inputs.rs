//! Every input type's hand-written decoder (its `decode_struct!` beside the type) against its derived
//! `Deserialize` under `serde_path_to_error` (what the package used before, issue 17 §7):
//! for random JSON values shaped like the inputs (their own keys and variant names, wrong
//! types anywhere, structs given as arrays), both accept the same values, decode them to
//! the same value, and name the same bad value with the same message.
//! (`tests/decode_paths.rs` does the same for the types it names.)

mod decode_reference;
mod js_words;
use decode_reference::same;

use delegate_context::budget::BudgetModel;
use delegate_context::compaction::tally::{ReportInput, RunTally};
use delegate_context::compaction::turn::{DelegateTurnOptions, SummaryAnswer};
use delegate_context::delegation::binding::{BindingCandidates, ModelBinding, ResumeCandidates};
use delegate_context::delegation::task_row::{
    TaskArgs, TaskDetails, TaskRowRefused, TaskRowSettle, TaskRowStart,
};
use delegate_context::delegation::types::{
    ChainReads, ChainSelector, Diagnostic, DiagnosticCode, ResumableChain, ResumeRequest,
    RunStatus, SettleStatus, StartedDelegation,
};
use delegate_context::fallback::{FallbackCandidate, ModelFailure};
use delegate_context::message::Usage;
use delegate_context::transcript::from_messages::RowOwner;
use delegate_context::transcript::{MessagesToRowsInput, ProviderBinding, RowRole};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const KEYS: &[&str] = &[
    "input",
    "output",
    "cacheRead",
    "totalTokens",
    "messages",
    "start",
    "firstIndex",
    "parentToolCallId",
    "agentName",
    "idPrefix",
    "skipTools",
    "provider",
    "providerId",
    "model",
    "modelId",
    "api",
    "contextWindow",
    "maxTokens",
    "earlyTrigger",
    "overheadTokens",
    "now",
    "history",
    "turnPrefix",
    "error",
    "boundaries",
    "contextDegraded",
    "droppedTokens",
    "report",
    "run",
    "id",
    "code",
    "message",
    "key",
    "allowed",
    "definitionBinding",
    "recordedKey",
    "toolCallIds",
    "agent",
    "files",
    "lines",
    "delegationId",
    "brief",
    "resumedFrom",
    "modelBinding",
    "diagnostics",
    "objective",
    "readLines",
    "status",
    "task",
    "resume",
    "toolCallId",
    "args",
    "started",
    "row",
    "content",
    "isError",
    "runRows",
    "modelFailures",
    "role",
    "user",
    "turns",
    "toolCalls",
    "startedAt",
    "contextCompactions",
    "report",
    // every other field name of the input types (a misspelt one would read as absent)
    "cacheWrite",
    "completedAt",
    "customInstructions",
    "definition",
    "definitionMaxTokens",
    "description",
    "droppedMessages",
    "lastToolName",
    "modelChangedFrom",
    "recordedModelId",
    "summaryMaxTokens",
    "systemPrompt",
    "thinking",
    "thinkingLevel",
    "thinkingSignature",
    "toolResult",
    "toolStatus",
    "tools",
];
const STRINGS: &[&str] = &[
    "user",
    "tool",
    "completed",
    "timed_out",
    "running",
    "MODEL_CHANGED",
    "x",
    "",
];

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..5).prop_map(Value::from),
        (-3i64..0).prop_map(Value::from),
        Just(Value::from(1.5)),
        Just(Value::from(u64::MAX)),
        Just(Value::from(u64::from(u32::MAX) + 1)),
        proptest::sample::select(STRINGS).prop_map(Value::from),
        Just(json!({"role": "user", "content": "hi"})),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..9).prop_map(
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

/// A value with a field set to each of a few values, so that a struct is also met
/// with its fields present (the random objects rarely hold every required field).
fn filled(v: &Value, fields: &[(&str, Value)]) -> Value {
    let mut m = match v {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    for (k, x) in fields {
        m.entry(k.to_string()).or_insert_with(|| x.clone());
    }
    Value::Object(m)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn every_input_type_decodes_as_its_derive_does(v in json()) {
        same::<Usage>(&v)?;
        same::<RowOwner>(&v)?;
        same::<MessagesToRowsInput>(&v)?;
        same::<ProviderBinding>(&v)?;
        same::<BudgetModel>(&v)?;
        same::<DelegateTurnOptions>(&v)?;
        same::<SummaryAnswer>(&v)?;
        same::<RunTally>(&v)?;
        same::<ReportInput>(&v)?;
        same::<Vec<FallbackCandidate>>(&v)?;
        same::<FallbackCandidate>(&v)?;
        same::<ModelFailure>(&v)?;
        same::<ModelBinding>(&v)?;
        same::<ResumeCandidates>(&v)?;
        same::<BindingCandidates>(&v)?;
        same::<ChainSelector>(&v)?;
        same::<ChainReads>(&v)?;
        same::<Diagnostic>(&v)?;
        same::<StartedDelegation>(&v)?;
        same::<ResumeRequest>(&v)?;
        same::<Vec<ResumableChain>>(&v)?;
        same::<ResumableChain>(&v)?;
        same::<TaskArgs>(&v)?;
        same::<TaskRowStart>(&v)?;
        same::<TaskRowSettle>(&v)?;
        same::<TaskRowRefused>(&v)?;
        same::<TaskDetails>(&v)?;
        same::<RowRole>(&v)?;
        same::<SettleStatus>(&v)?;
        same::<DiagnosticCode>(&v)?;
        same::<RunStatus>(&v)?;
        same::<Vec<f64>>(&v)?;
        same::<Option<f64>>(&v)?;
        same::<u32>(&v)?;
        same::<usize>(&v)?;
    }

    #[test]
    fn structs_with_their_required_fields_decode_as_their_derive_does(v in json()) {
        let s = |x: &str| Value::from(x);
        same::<ModelFailure>(&filled(&v, &[("model", s("m")), ("code", s("c")), ("message", s(""))]))?;
        same::<ChainReads>(&filled(&v, &[("files", json!([])), ("lines", json!(1))]))?;
        same::<ResumableChain>(&filled(&v, &[("agent", s("a")), ("delegationId", s("d")), ("objective", s("o")), ("files", json!(["f"])), ("readLines", json!(2))]))?;
        let args = json!({"agent": "a", "task": "t"});
        let binding = json!({"key": "k"});
        let started = json!({"delegationId": "d", "agent": "a", "toolCallIds": [], "brief": "b", "modelBinding": binding, "diagnostics": []});
        same::<StartedDelegation>(&filled(&v, &[("delegationId", s("d")), ("agent", s("a")), ("toolCallIds", json!([])), ("brief", s("b")), ("modelBinding", binding.clone()), ("diagnostics", json!([{"code": "MODEL_CHANGED", "message": "m"}]))]))?;
        same::<TaskRowStart>(&filled(&v, &[("toolCallId", s("t")), ("args", args.clone()), ("started", started)]))?;
        same::<TaskRowRefused>(&filled(&v, &[("toolCallId", s("t")), ("args", args), ("code", s("c")), ("message", s("m"))]))?;
        let row = json!({"id": "r", "role": "tool"});
        same::<TaskRowSettle>(&filled(&v, &[("row", row.clone()), ("status", s("failed")), ("content", s("c")), ("runRows", json!([row]))]))?;
        same::<MessagesToRowsInput>(&filled(&v, &[("messages", json!([{"role": "user", "content": "hi"}]))]))?;
        same::<ReportInput>(&filled(&v, &[("report", s("r"))]))?;
        same::<TaskDetails>(&filled(&v, &[("agent", s("a")), ("turns", json!(3)), ("modelFailures", json!([{"model": "m", "code": "c", "message": ""}]))]))?;
        same::<FallbackCandidate>(&filled(&v, &[("id", s("i"))]))?;
        same::<BindingCandidates>(&filled(&v, &[("definitionBinding", s("d"))]))?;
        same::<ProviderBinding>(&filled(&v, &[("provider", s("p")), ("model", s("m"))]))?;
    }
}
