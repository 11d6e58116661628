//! Boundary tests of the delegation exports (ADR 0279, ADR 0299 clause 7): the registry
//! handle's shapes, clause-4 errors as `Error` objects with `code`, bad input that leaves
//! the handle working, and the pure functions' results as plain objects.
use super::{get, js};
use delegate_context::wasm::delegation::{
    count_chain_reads, resume_parameter_schema, seed_delegate_messages, select_chain_rows,
    DelegationRegistry,
};
use js_sys::Array;
use serde_json::json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn s(o: &JsValue, k: &str) -> Option<String> {
    get(o, k).as_string()
}

fn code(e: &JsValue) -> Option<String> {
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {e:?}");
    assert_eq!(s(e, "name").as_deref(), Some("DelegateContextError"));
    s(e, "code")
}

fn transcript() -> serde_json::Value {
    json!([
        {"id": "t1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolStatus": "success",
         "toolArgs": {"agent": "Explorer", "task": "Map the parser", "description": "parser map"},
         "toolResult": {"details": {"delegationId": "D1", "agent": "explorer", "status": "completed", "modelId": "m1"}}},
        {"id": "a1", "role": "assistant", "content": "", "parentToolCallId": "t1", "agentName": "explorer"},
        {"id": "r1", "role": "tool", "toolName": "Read", "toolCallId": "r1", "toolArgs": {"path": "src/parser.rs"},
         "toolResult": "fn a() {}\nfn b() {}", "toolStatus": "success", "parentToolCallId": "t1", "agentName": "explorer"},
        {"id": "a2", "role": "assistant", "content": "The parser has two functions.", "parentToolCallId": "t1", "agentName": "explorer"}
    ])
}

#[wasm_bindgen_test]
fn registry_lifecycle_through_the_handle() {
    let rows = js(transcript());
    let reg = DelegationRegistry::from_transcript(rows.clone()).unwrap();
    assert_eq!(reg.chain_count().unwrap(), 1);
    let list = reg.resumable_list().unwrap();
    assert!(Array::is_array(&list));
    let first = Array::from(&list).get(0);
    assert_eq!(s(&first, "delegationId").as_deref(), Some("D1"));
    assert_eq!(s(&first, "objective").as_deref(), Some("parser map"));
    assert!(reg
        .resumable_prompt()
        .unwrap()
        .ends_with("- explorer / D1: parser map\n  Files read: src/parser.rs"));

    let target = reg
        .validate_resume(
            js(json!({"delegationId": "D1", "agent": "explorer"})),
            Some(rows.clone()),
        )
        .unwrap();
    assert_eq!(s(&target, "brief").as_deref(), Some("Map the parser"));
    assert_eq!(
        s(&get(&target, "recordedModel"), "modelId").as_deref(),
        Some("m1")
    );

    let started = reg
        .start(
            js(json!({"toolCallId": "t2", "agent": "explorer", "task": "Now the lexer", "resume": "D1"})),
            Some(rows.clone()),
        )
        .unwrap();
    let id = s(&started, "delegationId").unwrap();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    assert_eq!(s(&started, "resumedFrom").as_deref(), Some("D1"));
    assert!(Array::is_array(&get(&started, "diagnostics")));

    let e = reg
        .validate_resume(js(json!({"delegationId": "D1", "agent": "explorer"})), None)
        .unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("DELEGATION_RUNNING"));
    assert_eq!(s(&e, "delegationId").as_deref(), Some(id.as_str()));

    let settled = reg
        .settle(js(json!({"delegationId": id, "status": "completed", "reads": {"files": ["src/lexer.rs"], "lines": 3}})))
        .unwrap();
    assert_eq!(get(&settled, "resumable").as_bool(), Some(true));
    assert!(reg
        .resumable_prompt()
        .unwrap()
        .contains("Files read: src/parser.rs, src/lexer.rs"));
    let info = reg.resolve(JsValue::from_str("D1")).unwrap();
    assert_eq!(s(&info, "latestDelegationId").as_deref(), Some(id.as_str()));
    assert!(reg
        .resolve(JsValue::from_str("nope"))
        .unwrap()
        .is_undefined());
    drop(reg); // free()
}

#[wasm_bindgen_test]
fn clause4_errors_are_errors_with_code_and_fields() {
    let rows = js(transcript());
    let reg = DelegationRegistry::from_transcript(rows.clone()).unwrap();
    let cases = [
        (
            json!({"delegationId": "zz", "agent": "explorer"}),
            "UNKNOWN_DELEGATION",
        ),
        (
            json!({"delegationId": "D1", "agent": "coder"}),
            "AGENT_MISMATCH",
        ),
        (
            json!({"delegationId": "D1", "agent": "explorer", "model": "gpt"}),
            "MODEL_ON_RESUME",
        ),
    ];
    for (request, want) in cases {
        let e = reg.validate_resume(js(request), None).unwrap_err();
        assert_eq!(code(&e).as_deref(), Some(want));
    }
    let e = reg
        .validate_resume(js(json!({"delegationId": "zz", "agent": "explorer"})), None)
        .unwrap_err();
    let resumable = Array::from(&get(&e, "resumable"));
    assert_eq!(resumable.get(0).as_string().as_deref(), Some("D1"));
    // bad input: INVALID_INPUT with a path, and the handle keeps working
    let e = reg
        .settle(js(json!({"delegationId": "D1", "status": "exploded"})))
        .unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("INVALID_INPUT"));
    assert_eq!(s(&e, "path").as_deref(), Some("input.status"));
    let e = DelegationRegistry::from_transcript(js(
        json!([{"id": 1, "role": "tool", "toolName": "Task"}]),
    ))
    .err()
    .unwrap();
    assert_eq!(code(&e).as_deref(), Some("INVALID_INPUT"));
    assert_eq!(s(&e, "path").as_deref(), Some("rows[0].id"));
    let e = reg
        .start(js(json!({"toolCallId": "t9", "agent": "x"})), None)
        .unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("INVALID_INPUT"));
    assert_eq!(
        reg.resumable_list()
            .map(|l| Array::from(&l).length())
            .unwrap(),
        1
    );
}

#[wasm_bindgen_test]
fn pure_functions_return_plain_values() {
    let rows = js(transcript());
    let sel = select_chain_rows(
        rows.clone(),
        js(json!({"toolCallIds": ["t1"], "agent": "explorer"})),
    )
    .unwrap();
    assert_eq!(Array::from(&sel).length(), 3);
    let reads = count_chain_reads(sel.clone()).unwrap();
    assert_eq!(get(&reads, "lines").as_f64(), Some(2.0));
    let seeded = seed_delegate_messages(js(json!({
        "brief": "Map the parser",
        "rows": transcript(),
        "chain": {"toolCallIds": ["t1"], "agent": "explorer"},
        "binding": {"provider": "anthropic", "model": "claude"},
        "hardLimit": 100000
    })))
    .unwrap();
    let messages = Array::from(&get(&seeded, "messages"));
    assert_eq!(messages.length(), 4); // brief, carrier with the read, its result, the answer
    assert_eq!(s(&messages.get(0), "role").as_deref(), Some("user"));
    assert_eq!(
        s(&messages.get(1), "stopReason").as_deref(),
        Some("toolUse")
    );
    assert_eq!(get(&seeded, "truncated").as_bool(), Some(false));
    let e = seed_delegate_messages(js(json!({"brief": "x", "rows": [], "binding": {"provider": "p", "model": "m"}, "hardLimit": -1})))
        .unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("INVALID_INPUT"));
    assert_eq!(s(&e, "path").as_deref(), Some("input.hardLimit"));
}

#[wasm_bindgen_test]
fn hostile_rows_are_invalid_input_with_a_path_and_the_handle_keeps_working() {
    let revocable = js_sys::Proxy::revocable(&Array::new(), &js_sys::Object::new());
    let proxy = get(&revocable, "proxy");
    let revoke: js_sys::Function = get(&revocable, "revoke").unchecked_into();
    revoke.call0(&JsValue::NULL).unwrap();
    let e = DelegationRegistry::from_transcript(proxy.clone())
        .err()
        .unwrap();
    assert_eq!(code(&e).as_deref(), Some("INVALID_INPUT"));
    assert_eq!(s(&e, "path").as_deref(), Some("rows"));
    let e = count_chain_reads(proxy).unwrap_err();
    assert_eq!(s(&e, "path").as_deref(), Some("rows"));
    // the instance still works
    let reg = DelegationRegistry::from_transcript(js(transcript())).unwrap();
    assert_eq!(reg.chain_count().unwrap(), 1);
    let schema = resume_parameter_schema().unwrap();
    assert_eq!(s(&schema, "type").as_deref(), Some("string"));
    assert!(s(&schema, "description")
        .unwrap()
        .contains("requires this id"));
}
