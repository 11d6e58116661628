//! The only module that knows wasm-bindgen. Each export decodes its arguments, calls
//! the core, and encodes the result; no logic lives here. Errors reach JavaScript as
//! `Error` objects with `name` `DelegateContextError` and a stable `code`
//! (see [`convert::to_js_error`]).

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
