//! The only module that knows wasm-bindgen. Each export decodes its arguments, calls
//! the core, and encodes the result; the decisions are the core's. What this module
//! still holds besides (issue 17 §1 moves it into the core): the host's objects beside
//! the core's context ([`host_context`]), the async drivers' run state (the `Agent`
//! hook's lock, its run tally and report, in [`turn`]), and small JavaScript helpers in
//! `inline_js` blocks (reading host values without throwing, the summarizer's reply,
//! abort signals). Errors reach JavaScript as `Error` objects with `name`
//! `DelegateContextError` and a stable `code` (see [`convert::to_js_error`]).

pub mod compaction;
pub mod context;
pub mod convert;
pub mod delegation;
pub mod fallback;
pub mod foundation;
pub mod host;
pub mod host_context;
pub mod messages;
pub mod rows;
pub mod turn;
