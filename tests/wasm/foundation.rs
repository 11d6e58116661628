//! Boundary tests of the foundation exports: shapes that reach JS, errors as `Error`
//! objects with `code` and `path`, and an instance that survives them.
use super::{get, js};
use js_sys::{Array, Object};
use serde_json::json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn budget_reaches_js_as_a_plain_object() {
    let b = delegate_context::wasm::foundation::budget(js(
        json!({"contextWindow": 64000, "maxTokens": 16000}),
    ))
    .unwrap();
    assert!(b.is_object());
    assert_eq!(Object::keys(b.unchecked_ref::<Object>()).length(), 7);
    assert_eq!(get(&b, "hardLimit").as_f64(), Some(47616.0));
    assert_eq!(get(&b, "keepRecentTokens").as_f64(), Some(9523.0));
}

#[wasm_bindgen_test]
fn bad_input_is_an_error_with_code_and_path_and_the_instance_keeps_working() {
    let err = delegate_context::wasm::foundation::estimate_context_tokens(js(
        json!([{"role": "user", "content": "x"}, {"role": "assistant", "content": 5}]),
    ))
    .unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("INVALID_INPUT")
    );
    assert_eq!(
        get(&err, "path").as_string().as_deref(),
        Some("messages[1].content")
    );
    assert_eq!(
        get(&err, "name").as_string().as_deref(),
        Some("DelegateContextError")
    );
    let ok = delegate_context::wasm::foundation::estimate_context_tokens(js(
        json!([{"role": "user", "content": "abcdefgh"}]),
    ))
    .unwrap();
    assert_eq!(get(&ok, "tokens").as_f64(), Some(2.0));
    assert!(get(&ok, "lastUsageIndex").is_null());
}

#[wasm_bindgen_test]
fn parent_context_keeps_only_reports() {
    let rows = js(json!([
        {"id": "u", "role": "user", "content": "go"},
        {"id": "t", "role": "tool", "toolName": "task", "toolCallId": "t", "toolResult": "{\"success\":true,\"data\":{\"response\":\"R\"}}"},
        {"id": "d", "role": "assistant", "content": "inner", "parentToolCallId": "t", "agentName": "x"}
    ]));
    let ctx = delegate_context::wasm::foundation::build_parent_context(rows).unwrap();
    let messages: Array = get(&ctx, "messages").unchecked_into();
    assert_eq!(messages.length(), 3); // user, synthesised carrier, the report
    let result = messages.get(2);
    let content: Array = get(&result, "content").unchecked_into();
    assert_eq!(
        get(&content.get(0), "text").as_string().as_deref(),
        Some("R")
    );
    assert_eq!(Array::from(&get(&ctx, "warnings")).length(), 0);
}

#[wasm_bindgen_test]
fn non_ascii_lengths_are_utf16_units() {
    // "😀" is two UTF-16 code units; 4 of them = 8 units = 2 tokens
    let n = delegate_context::wasm::foundation::estimate_tokens(js(
        json!({"role": "user", "content": "😀😀😀😀"}),
    ))
    .unwrap();
    assert_eq!(n, 2.0);
}

/// These tests run the glue the package ships (scripts/glue-patch.cjs, applied by
/// scripts/test.sh in every runtime): a handle freed from JavaScript ignores a second
/// free(), and its methods throw a `DelegateContextError` with code `INVALID_STATE`.
/// wasm-bindgen's own glue throws a plain `Error` ("null pointer passed to rust") for both.
#[wasm_bindgen_test]
fn the_glue_under_test_is_the_packages() {
    let handle = delegate_context::wasm::context::DelegateContextHandle::new(None).unwrap();
    let object = JsValue::from(handle);
    let call = |name: &str| {
        get(&object, name)
            .unchecked_into::<js_sys::Function>()
            .call0(&object)
    };
    call("free").unwrap();
    assert!(call("free").is_ok(), "free() a second time does nothing");
    let err = call("estimateContextTokens").unwrap_err();
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("INVALID_STATE")
    );
    assert_eq!(
        get(&err, "name").as_string().as_deref(),
        Some("DelegateContextError")
    );
}
