//! # delegate-context
//!
//! The pure decisions that keep a sub-agent's ("delegate's") context window under
//! control, for a JavaScript agent loop that owns networking and persistence.
//!
//! | concept | module | specification |
//! |---|---|---|
//! | messages the host hands us, unknown fields kept | [`message`] | host-contract §1 |
//! | JavaScript string lengths, `JSON.stringify` sizes | [`js_text`] | host-contract §2 |
//! | token accounting, identical to pi-agent-core | [`tokens`] | host-contract §2 |
//! | the budget of the model a delegate runs on | [`budget`] | ADR 0299 §1–2 |
//! | persisted transcript rows, name normalising | [`transcript`] | host-contract §6 |
//! | only a delegate's report enters the parent | [`parent`] | subagent-context, §7 |
//! | compaction at the delegate turn boundary | [`compaction`] | ADR 0299 §3–5 |
//! | fallback models, inherited tools, provider errors | [`fallback`] | ADR 0299 §6, §8 |
//! | resumable delegations | [`delegation`] | ADR 0279, ADR 0299 §7 |
//!
//! Everything above is plain Rust, tested natively. [`wasm`] is the only module that
//! knows wasm-bindgen: it decodes, calls the core, encodes.

pub mod budget;
pub mod compaction;
pub mod delegation;
pub mod error;
pub mod facts;
pub mod fallback;
pub mod js_text;
pub mod json_scan;
pub mod message;
pub mod parent;
pub mod tokens;
pub mod transcript;
pub mod wasm;

pub use error::{Error, Result};

/// The crate version (`version()` in JavaScript).
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
