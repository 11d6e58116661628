//! Boundary tests of the exports, one test binary (so each runner starts once), run in
//! Node (`wasm-pack test --node --features boundary-tests -- --test wasm`) and headless
//! Chromium (`wasm-pack test --headless --chrome --features boundary-tests -- --test
//! wasm`). The feature makes `delegate_context::wasm` public for these calls (Cargo.toml).
#![cfg(target_arch = "wasm32")]

use delegate_context::wasm::convert::to_js;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

mod compaction;
mod delegation;
mod foundation;

/// A JS value of JSON data, as a host would pass it.
fn js(v: serde_json::Value) -> JsValue {
    to_js(&v).unwrap()
}

/// `o[k]`.
fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap()
}
