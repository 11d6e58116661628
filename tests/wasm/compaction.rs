//! Boundary tests of the compaction exports (ADR 0299 clauses 3–6, 8): shapes that reach
//! JS, the overflow error's fields, the async step with a JS callback, the hook as a JS
//! function, and an instance that survives bad input.
use super::{get, js};
use delegate_context::wasm::{fallback as fb, turn as ex};
use js_sys::{Function, Promise, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

fn budget() -> Value {
    // contextBudget({contextWindow: 8192, maxTokens: 1024})
    json!({"contextWindow": 8192, "maxOutputTokens": 1024, "requestHeadroom": 4096, "hardLimit": 4096,
           "keepRecentTokens": 2048, "compactionTrigger": 3686, "retainedUserBudget": 2048})
}

fn session(turns: usize) -> Value {
    let mut ms =
        vec![json!({"role": "user", "content": "BRIEF", "timestamp": 1, "hostField": {"k": [1]}})];
    for i in 0..turns {
        ms.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("c{i}"), "name": "read", "arguments": {"path": format!("f{i}")}}], "stopReason": "toolUse"}));
        ms.push(json!({"role": "toolResult", "toolCallId": format!("c{i}"), "toolName": "read", "content": [{"type": "text", "text": "x".repeat(3000)}], "isError": false, "extraHost": i}));
    }
    Value::Array(ms)
}

fn input(turns: usize) -> Value {
    json!({"messages": session(turns), "budget": budget(), "modelId": "p/m"})
}

#[wasm_bindgen_test]
fn prepare_and_complete_reach_js_as_plain_objects() {
    let prep = ex::prepare_delegate_turn(js(input(8))).unwrap();
    assert_eq!(
        get(&prep, "action").as_string().as_deref(),
        Some("summarize")
    );
    let requests: js_sys::Array = get(&prep, "requests").dyn_into().unwrap();
    assert!(requests.length() >= 1);
    let r0 = requests.get(0);
    assert!(get(&r0, "systemPrompt")
        .as_string()
        .unwrap()
        .starts_with("You are a context summarization assistant."));
    let mut completion = input(8);
    completion["answer"] = json!({"history": "H", "turnPrefix": "P"});
    let out = ex::complete_delegate_turn(js(completion)).unwrap();
    assert_eq!(
        get(&out, "outcome").as_string().as_deref(),
        Some("compacted")
    );
    let ms: js_sys::Array = get(&out, "messages").dyn_into().unwrap();
    assert_eq!(
        get(&ms.get(0), "hostField").is_object(),
        true,
        "unknown fields survive"
    );
    assert_eq!(
        get(&ms.get(1), "role").as_string().as_deref(),
        Some("compactionSummary")
    );
    assert_eq!(get(&out, "contextCompactions").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
fn overflow_and_bad_input_are_errors_and_the_instance_keeps_working() {
    let big = json!({"messages": [{"role": "user", "content": "z".repeat(20000)}], "budget": budget(), "modelId": "p/m"});
    let err = ex::complete_delegate_turn(js(big)).unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("SUBAGENT_CONTEXT_OVERFLOW")
    );
    assert_eq!(get(&err, "retriable").as_bool(), Some(false));
    assert_eq!(get(&err, "modelId").as_string().as_deref(), Some("p/m"));
    assert_eq!(get(&err, "hardLimit").as_f64(), Some(4096.0));
    assert_eq!(get(&err, "tokens").as_f64(), Some(5000.0));
    let bad = json!({"messages": [{"role": "assistant", "content": []}], "budget": budget(), "modelId": "p/m"});
    let err = ex::prepare_delegate_turn(js(bad)).unwrap_err();
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("INVALID_INPUT")
    );
    assert_eq!(
        get(&err, "path").as_string().as_deref(),
        Some("messages[0]")
    );
    let ok = ex::prepare_delegate_turn(js(input(1))).unwrap();
    assert_eq!(get(&ok, "action").as_string().as_deref(), Some("unchanged"));
}

#[wasm_bindgen_test]
async fn run_delegate_turn_awaits_the_js_summarizer() {
    let mut i = input(8);
    let obj = js(i.take());
    let summarize =
        Function::new_with_args("req", "return Promise.resolve('summary of ' + req.kind)");
    Reflect::set(&obj, &JsValue::from_str("summarize"), &summarize).unwrap();
    let out = JsFuture::from(ex::run_delegate_turn(obj.clone()))
        .await
        .unwrap();
    assert_eq!(
        get(&out, "outcome").as_string().as_deref(),
        Some("compacted")
    );
    let failing = Function::new_with_args("req", "return Promise.reject(new Error('down'))");
    Reflect::set(&obj, &JsValue::from_str("summarize"), &failing).unwrap();
    let out = JsFuture::from(ex::run_delegate_turn(obj.clone()))
        .await
        .unwrap();
    assert_eq!(
        get(&out, "outcome").as_string().as_deref(),
        Some("degraded")
    );
    assert_eq!(
        get(&out, "summaryError").as_string().as_deref(),
        Some("down")
    );
    let aborted = js(json!({"aborted": true}));
    Reflect::set(&obj, &JsValue::from_str("signal"), &aborted).unwrap();
    let err = JsFuture::from(ex::run_delegate_turn(obj))
        .await
        .unwrap_err();
    assert_eq!(get(&err, "code").as_string().as_deref(), Some("ABORTED"));
}

#[wasm_bindgen_test]
async fn the_hook_is_a_js_function_returning_a_promise() {
    let config = js(json!({"budget": budget(), "modelId": "p/m"}));
    Reflect::set(
        &config,
        &JsValue::from_str("summarize"),
        &Function::new_no_args("return 'S'"),
    )
    .unwrap();
    let hook: Function = ex::create_prepare_next_turn(config)
        .unwrap()
        .dyn_into()
        .unwrap();
    let ctx = js(json!({"context": {"systemPrompt": "sys", "messages": session(1), "tools": []}}));
    let p: Promise = hook
        .call1(&JsValue::UNDEFINED, &ctx)
        .unwrap()
        .dyn_into()
        .unwrap();
    assert!(JsFuture::from(p).await.unwrap().is_undefined());
    let ctx = js(json!({"context": {"systemPrompt": "sys", "messages": session(8), "tools": []}}));
    let p: Promise = hook
        .call1(&JsValue::UNDEFINED, &ctx)
        .unwrap()
        .dyn_into()
        .unwrap();
    let next = JsFuture::from(p).await.unwrap();
    let messages: js_sys::Array = get(&get(&next, "context"), "messages").dyn_into().unwrap();
    assert_eq!(
        get(&messages.get(1), "summary")
            .as_string()
            .map(|s| s.starts_with('S') || s.contains("**Turn Context (split turn):**\n\nS")),
        Some(true)
    );
    assert_eq!(
        get(&get(&next, "context"), "systemPrompt")
            .as_string()
            .as_deref(),
        Some("sys")
    );
}

#[wasm_bindgen_test]
fn fallback_classification_and_tools() {
    let sel = fb::select_fallback_model(js(json!({"messages": session(8), "candidates": [
        {"provider": "a", "id": "small", "contextWindow": 8192, "maxTokens": 1024},
        {"provider": "b", "id": "large", "contextWindow": 200000, "maxTokens": 8192}]})))
    .unwrap();
    assert_eq!(get(&sel, "index").as_f64(), Some(1.0));
    let failures: js_sys::Array = get(&sel, "modelFailures").dyn_into().unwrap();
    assert_eq!(
        get(&failures.get(0), "model").as_string().as_deref(),
        Some("a/small")
    );
    let c = fb::classify_provider_error(js(json!({"status": 413, "message": "too large"})), None)
        .unwrap();
    assert_eq!(
        get(&c, "code").as_string().as_deref(),
        Some("CONTEXT_TOO_LARGE")
    );
    let t =
        fb::filter_inherited_tools(js(json!(["read", "new_context", {"name": "Task"}]))).unwrap();
    let kept: js_sys::Array = get(&t, "tools").dyn_into().unwrap();
    assert_eq!(kept.length(), 1);
}
