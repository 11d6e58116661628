//! The hand-written message reader (`src/message/read.rs`, issue 17 §7) against the serde
//! derives it replaced: for random values shaped like pi's messages (their own keys, wrong
//! types anywhere, unknown fields, blocks of every type), `AgentMessage::from_value`
//! accepts what the derived decoders accepted, with the same fields, and refuses what they
//! refused at the same path with the same message. The reference below is the library's
//! message types as they were derived (flattened `extra`, `null` kept for `details` and
//! `fromId`), decoded under `serde_path_to_error` (what the library used before).
#![cfg(not(target_arch = "wasm32"))]

mod js_words;

use delegate_context::message::{AgentMessage, Usage};
use delegate_context::Error;
use proptest::prelude::*;
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use serde_json::{Map, Value};

type Extra = Map<String, Value>;

fn kept_even_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

#[derive(Debug)]
#[allow(dead_code)]
struct Block(Value);

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct TextBlock {
    text: String,
    #[serde(default)]
    text_signature: Option<String>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ThinkingBlock {
    thinking: String,
    #[serde(default)]
    thinking_signature: Option<String>,
    #[serde(default)]
    redacted: Option<bool>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ImageBlock {
    data: String,
    mime_type: String,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolCallBlock {
    id: String,
    name: String,
    arguments: Value,
    #[serde(default)]
    thought_signature: Option<String>,
    #[serde(flatten)]
    extra: Extra,
}

/// The block decoder as it was (`ContentBlock::from_map`).
fn block_from_map(mut map: Extra) -> Result<(), String> {
    let kind = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => return Err(format!("type: expected a string, got {}", kind_of(other))),
        None => return Err("missing field `type`".into()),
    };
    fn de<T: serde::de::DeserializeOwned>(map: Extra) -> Result<(), String> {
        decode_inner::<T>(&Value::Object(map))
            .map(|_| ())
            .map_err(|(p, message)| match p.strip_prefix('.').unwrap_or(&p) {
                "" => message,
                p => format!("{p}: {message}"),
            })
    }
    if matches!(kind.as_str(), "text" | "thinking" | "image" | "toolCall") {
        map.remove("type");
    }
    match kind.as_str() {
        "text" => de::<TextBlock>(map),
        "thinking" => de::<ThinkingBlock>(map),
        "image" => de::<ImageBlock>(map),
        "toolCall" => de::<ToolCallBlock>(map),
        _ => Ok(()),
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Extra::deserialize(d)?;
        block_from_map(map.clone()).map_err(D::Error::custom)?;
        Ok(Block(Value::Object(map)))
    }
}

fn kind_of(v: &Value) -> &'static str {
    delegate_context::message::kind_of(v)
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct User {
    content: Content,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Assistant {
    content: Vec<Block>,
    #[serde(default)]
    api: Option<String>,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    error_message: Option<String>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolResult {
    tool_call_id: String,
    tool_name: String,
    content: Content,
    #[serde(default, deserialize_with = "kept_even_if_null")]
    details: Option<Value>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CompactionSummary {
    summary: String,
    #[serde(default)]
    tokens_before: Option<f64>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct BranchSummary {
    summary: String,
    #[serde(default, deserialize_with = "kept_even_if_null")]
    from_id: Option<Value>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Custom {
    content: Content,
    #[serde(default)]
    custom_type: Option<String>,
    #[serde(default)]
    display: Option<bool>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct BashExecution {
    command: String,
    output: String,
    #[serde(default)]
    exclude_from_context: Option<bool>,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(flatten)]
    extra: Extra,
}

/// The derived decoders under `serde_path_to_error` (the reference the library's old
/// path-tracking decoder matched, `tests/decode_paths.rs`), the error as the library
/// words it: `path` + the inner path of the bad value.
fn decode_value<T: serde::de::DeserializeOwned>(v: &Value, path: &str) -> Result<T, Error> {
    decode_inner(v).map_err(|(inner, message)| Error::invalid(format!("{path}{inner}"), message))
}

/// `T` from `v`, or the inner path of the bad value (`""`, `.a[0].b`) and the message.
fn decode_inner<T: serde::de::DeserializeOwned>(v: &Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let inner = match e.path().to_string() {
            p if p == "." => String::new(),
            p if p.starts_with('[') => p,
            p => format!(".{p}"),
        };
        (inner, js_words::js_words(&e.into_inner().to_string()))
    })
}

/// The derived decoders' answer for a message object: `Ok` or (path, message).
fn reference(v: &Value) -> Result<(), (String, String)> {
    let path = "m";
    let Value::Object(map) = v else {
        return ours(v); // not an object: checked before any derive ran (unchanged code)
    };
    let role = match map.get("role") {
        Some(Value::String(r)) => r.clone(),
        _ => return ours(v), // the same unchanged checks of `role`
    };
    let mut map = map.clone();
    map.remove("role");
    let m = Value::Object(map);
    let r = match role.as_str() {
        "user" => decode_value::<User>(&m, path).map(|_| ()),
        "assistant" => decode_value::<Assistant>(&m, path).map(|_| ()),
        "toolResult" => decode_value::<ToolResult>(&m, path).map(|_| ()),
        "compactionSummary" => decode_value::<CompactionSummary>(&m, path).map(|_| ()),
        "branchSummary" => decode_value::<BranchSummary>(&m, path).map(|_| ()),
        "custom" => decode_value::<Custom>(&m, path).map(|_| ()),
        "bashExecution" => decode_value::<BashExecution>(&m, path).map(|_| ()),
        _ => Ok(()),
    };
    r.map_err(split)
}

fn split(e: Error) -> (String, String) {
    match e {
        Error::InvalidInput { path, message } => (path, message),
        other => (String::new(), other.to_string()),
    }
}

fn ours(v: &Value) -> Result<(), (String, String)> {
    AgentMessage::from_value(v.clone(), "m")
        .map(|_| ())
        .map_err(split)
}

const ROLES: &[&str] = &[
    "user",
    "assistant",
    "toolResult",
    "compactionSummary",
    "branchSummary",
    "custom",
    "bashExecution",
    "hostOnly",
];
const KEYS: &[&str] = &[
    "content",
    "timestamp",
    "api",
    "provider",
    "model",
    "usage",
    "stopReason",
    "errorMessage",
    "toolCallId",
    "toolName",
    "details",
    "isError",
    "summary",
    "tokensBefore",
    "fromId",
    "customType",
    "display",
    "command",
    "output",
    "excludeFromContext",
    "input",
    "totalTokens",
    "hostField",
];
const BLOCK_TYPES: &[&str] = &["text", "thinking", "image", "toolCall", "future"];
const BLOCK_KEYS: &[&str] = &[
    "text",
    "textSignature",
    "thinking",
    "thinkingSignature",
    "redacted",
    "data",
    "mimeType",
    "id",
    "name",
    "arguments",
    "thoughtSignature",
    "extra",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..5).prop_map(Value::from),
        Just(Value::from(-2)),
        Just(Value::from(1.5)),
        "[a-c]{0,2}".prop_map(Value::from),
        Just(Value::Array(vec![])),
        Just(Value::Object(Map::new())),
    ]
}

fn object(keys: &'static [&'static str], value: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    proptest::collection::vec((proptest::sample::select(keys), value), 0..7)
        .prop_map(|entries| {
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        })
        .boxed()
}

fn block() -> BoxedStrategy<Value> {
    let typed = (
        proptest::option::weighted(0.9, proptest::sample::select(BLOCK_TYPES)),
        object(BLOCK_KEYS, leaf().boxed()),
    )
        .prop_map(|(t, mut o)| {
            if let (Some(t), Value::Object(m)) = (t, &mut o) {
                m.insert("type".into(), Value::from(t));
            }
            o
        });
    prop_oneof![8 => typed, 1 => leaf()].boxed()
}

fn field_value() -> BoxedStrategy<Value> {
    let usage = object(
        &["input", "output", "totalTokens", "cacheRead", "x"],
        leaf().boxed(),
    );
    prop_oneof![
        4 => leaf(),
        3 => proptest::collection::vec(block(), 0..4).prop_map(Value::Array),
        1 => usage,
    ]
    .boxed()
}

fn message() -> impl Strategy<Value = Value> {
    (
        proptest::option::weighted(0.95, proptest::sample::select(ROLES)),
        object(KEYS, field_value()),
    )
        .prop_map(|(role, mut o)| {
            if let (Some(r), Value::Object(m)) = (role, &mut o) {
                m.insert("role".into(), Value::from(r));
            }
            o
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6000, ..ProptestConfig::default() })]

    #[test]
    fn the_same_messages_and_refusals_as_the_derived_decoders(v in message()) {
        prop_assert_eq!(ours(&v), reference(&v), "{}", v);
    }
}

/// Well-formed messages of every role (null where allowed, unknown fields and blocks):
/// accepted by both (field-for-field round trips are foundation_props' test).
#[test]
fn valid_messages_of_every_role_are_read_whole() {
    let samples = serde_json::json!([
        {"role": "user", "content": [{"type": "text", "text": "a", "z": 1}, {"type": "image", "data": "AA", "mimeType": "image/png"}], "timestamp": 1, "h": [1]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "redacted": true}, {"type": "toolCall", "id": "c", "name": "n", "arguments": null}, {"type": "x"}], "usage": {"input": 1, "q": 2}, "stopReason": "stop", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "c", "toolName": "n", "content": "r", "details": null, "isError": false},
        {"role": "branchSummary", "summary": "s", "fromId": null},
        {"role": "custom", "content": "c", "display": null, "customType": "k"},
        {"role": "bashExecution", "command": "ls", "output": "", "excludeFromContext": true},
        {"role": "compactionSummary", "summary": "s", "tokensBefore": 3}
    ]);
    for m in samples.as_array().unwrap() {
        assert_eq!(ours(m), Ok(()), "{m}");
        assert_eq!(reference(m), Ok(()), "{m}");
    }
}
