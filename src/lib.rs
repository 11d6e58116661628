//! # delegate-context
//!
//! The pure decisions that keep a sub-agent's ("delegate's") context window under
//! control, for a JavaScript agent loop that owns networking and persistence.
//!
//! ## Seed clause → file
//!
//! Where each rule of the three design documents (`../shared/seeds/`) and of the host
//! contract lives. Every rule lives once, in the core; [`wasm`] only decodes, calls and
//! encodes.
//!
//! | seed clause | rule | file |
//! |---|---|---|
//! | host-contract §1 | messages the host hands us (typed, for the messages we write) | [`message`] |
//! | host-contract §1 | a message's `role` | [`role`] |
//! | issue 35 | the Vercel AI SDK's `ModelMessage`s read as the core reads a conversation (what each counts, its tool calls and results, usage and stop reason as inputs, file tools as configuration) | [`ai_sdk`] |
//! | host-contract §1 | an assistant's `stopReason`; what a failed assistant is | [`stop_reason`] |
//! | host-contract §1 | pi's closed string sets read both ways (role, stopReason) | [`text_table`] |
//! | host-contract §1–2 | what the decisions need of a host message (`AgentMessage::facts`), read once from its JSON text | [`facts`] (`facts/mod.rs`), [`json_scan`] |
//! | host-contract §1 | a host message's fields checked by type, refused in the serde decoder's words | `facts/validate.rs` |
//! | host-contract §2, ADR 0299 §3 | a message's `content`: characters, tool calls, file operations | `facts/content.rs` |
//! | ADR 0299 §3–4 | the library's marks on a `compactionSummary` (file lists, retained messages, degrade counts) | [`facts::SummaryMarks`] (`facts/marks.rs`) |
//! | host-contract §3 | how pi writes a message for a summary request: each role's parts, the `convertToLlm` wrappers, a tool call's line, a bash execution's text, the 2,000-character tool-result cut | [`llm_text`] |
//! | host-contract §2 | JavaScript string lengths, `JSON.stringify` sizes and numbers | [`js_text`] |
//! | host-contract §1, §5–6 | JavaScript's white space: `trim`, blank, a regex's `\s` | [`js_whitespace`] |
//! | host-contract §2 | `estimateTokens`, `estimateContextTokens` (the usage anchor, once), the request overhead | [`tokens`] |
//! | ADR 0299 §1–2 | the budget of the model a delegate runs on | [`budget`] |
//! | ADR 0299 §3 | a delegate's context kept across turns (the handle's core) | [`compaction::context`] |
//! | ADR 0299 §3–5 | the boundary as a state machine, in the seed's order; what a failed summary is; abort | [`compaction::step`] |
//! | ADR 0299 §3 | 1. assess: the boundary's size, the threshold, the turn (ADR 0136) | [`compaction::assess`] |
//! | ADR 0299 §3 (ADR 0136) | 2. plan the cut: cut points, split turns (pi's `findCutPoint`), the compaction's ranges, active-turn retention | [`compaction::plan`] |
//! | ADR 0299 §3 | 3. request the summary (pi's prompts, bounded, the brief as context) | [`compaction::request`] |
//! | ADR 0299 §3 | 4. compose the compacted context | [`compaction::compose`] |
//! | ADR 0299 §3–5 | what a boundary step takes and gives (options, preparation, answer, outcome) | [`compaction::turn`] |
//! | ADR 0299 §3 | pi's file operations | [`compaction::file_ops`] |
//! | ADR 0299 §3 | pi's `prepareCompaction` | [`compaction::prepare`] |
//! | ADR 0299 §4–5 | degrade (brief + newest unit, the note), then `SUBAGENT_CONTEXT_OVERFLOW` | [`compaction::degrade`] |
//! | ADR 0299 §4 (consequences) | a run's counts; the report the parent receives ("a degraded run must say so") | [`compaction::tally`] |
//! | ADR 0299 §5 | the provider's overflow error becomes the code the parent can act on | [`fallback::provider_error`] (`overflow_for_provider_error`) |
//! | ADR 0299 §6 | fallback models re-checked against their own window | [`fallback`] (`select_fallback_model`) |
//! | ADR 0299 §8 | tools a delegate never inherits (`new_context` first) | [`fallback::inherited_tools`] (`filter_inherited_tools`) |
//! | host-contract §5 | provider overflow classification (status rules and pi's failure shapes) | [`fallback::provider_error`] (`classify_provider_error`) |
//! | host-contract §5 (end) | pi-ai's `isContextOverflow`: its patterns, its silent-overflow rules | [`overflow`] |
//! | host-contract §6 | persisted rows, the row rules, names, timestamps | [`transcript`] |
//! | host-contract §6 | "lowercase": JavaScript's `toLowerCase` (Unicode's, Final_Sigma included) | [`lowercase`] |
//! | ADR 0279 §3, subagent-context | rows → provider messages (one converter) | [`transcript::to_messages`] |
//! | subagent-context (seed 001) | only a delegate's report enters the parent's context | [`parent`] |
//! | ADR 0279 §1–13, ADR 0299 §7 | resumable delegations (their own table) | [`delegation`] |
//! | ADR 0299 §2, §4–7, ADR 0279 §1–6 | one delegation start to settle: the model it resolves, retries, fallbacks, what the parent receives, the settlement (a sans-IO machine the adapters drive) | [`run`] |
//! | ADR 0299 §2 | the models a run may use, in order (`Task.model`, the definition's, the session's) | [`run::models`] |
//! | ADR 0299 §5–6, host-contract §5 | what a request came to: completed, aborted, failed, a silent overflow; the size and wait a provider stated | [`run::request`] |
//! | host-contract §6 (issue 34) | rows' order keys, restored by every reader | [`transcript::order`] |
//! | host-contract §1 | typed inputs decoded with the path of a bad value | [`decode`] |
//! | all | one error enum, a stable code per variant | [`error`] |
//! | all | one stable sort (one copy in the module) | [`order`] |
//! | all | tables by string key (one hash map type in the module) | [`keyed`] |
//! | all | slices of text without a panic path | [`text_at`] |
//! | all | text built by code compiled once (`join`, `to_string`, `push_str`) | [`text_build`] |
//!
//! Everything above is plain Rust, tested natively. [`wasm`] is the only module that
//! knows wasm-bindgen: it decodes, calls the core, encodes.

// Dead code fails the build (issue 17 §4). The wasm32 build -- the one users get -- sees
// the core as private modules, so its only roots are the wasm-bindgen exports in [`wasm`]
// (and `version`): an item nothing reaches from them is dead, and `deny` makes that an
// error in `wasm-pack build` and in the boundary tests' build alike. Native builds keep
// the modules `pub` for the integration tests (tests/*.rs), fuzz/ and examples/. One crate
// with two visibilities rather than a core crate and a binding crate: the same rustc
// lint with no second Cargo.toml, no re-exports to keep in step, one set of tests.
// An item only the native tests use is marked `#[cfg(not(target_arch = "wasm32"))]`.
#![cfg_attr(target_arch = "wasm32", deny(dead_code, unused_imports))]
// No unsafe code of ours (issue 36 §1): the allocator is talc's, the rest safe Rust.
#![forbid(unsafe_code)]
// The conventions the module's small code keeps (issue 17 §7), checked, not remembered
// (issue 36 §1): in the wasm32 build, the methods clippy.toml names (`push_str`, `push`,
// `to_owned`) and a `str`'s `to_string` (their out-of-line twins are in `text_build`), and
// `&s[a..b]` on text (`text_at`: no panic path) are clippy errors (scripts/test.sh runs that clippy). Native
// code, the tests and the examples may use them (Cargo.toml's `[lints]` allows them).
#![cfg_attr(
    target_arch = "wasm32",
    deny(
        clippy::disallowed_methods,
        clippy::str_to_string,
        clippy::string_slice
    )
)]

// Core modules: public on native (for tests/, fuzz/ and examples/), private on wasm32 (so
// rustc sees what the exports leave unused). cargo-mutants finds the files to mutate by
// reading `mod` items and ignores their `cfg`: the native list is written out (it reads
// it), the wasm32 list comes from a macro (which it does not read), so each file is
// examined once.
#[cfg(not(target_arch = "wasm32"))]
pub mod ai_sdk;
#[cfg(not(target_arch = "wasm32"))]
pub mod budget;
#[cfg(not(target_arch = "wasm32"))]
pub mod compaction;
#[cfg(not(target_arch = "wasm32"))]
pub mod decode;
#[cfg(not(target_arch = "wasm32"))]
pub mod delegation;
#[cfg(not(target_arch = "wasm32"))]
pub mod error;
#[cfg(not(target_arch = "wasm32"))]
pub mod facts;
#[cfg(not(target_arch = "wasm32"))]
pub mod fallback;
#[cfg(not(target_arch = "wasm32"))]
pub mod js_text;
#[cfg(not(target_arch = "wasm32"))]
pub mod js_whitespace;
#[cfg(not(target_arch = "wasm32"))]
pub mod json_scan;
#[cfg(not(target_arch = "wasm32"))]
pub mod keyed;
#[cfg(not(target_arch = "wasm32"))]
pub mod llm_text;
#[cfg(not(target_arch = "wasm32"))]
pub mod lowercase;
#[cfg(not(target_arch = "wasm32"))]
pub mod message;
#[cfg(not(target_arch = "wasm32"))]
pub mod order;
#[cfg(not(target_arch = "wasm32"))]
pub mod overflow;
#[cfg(not(target_arch = "wasm32"))]
pub mod parent;
#[cfg(not(target_arch = "wasm32"))]
pub mod role;
#[cfg(not(target_arch = "wasm32"))]
pub mod run;
#[cfg(not(target_arch = "wasm32"))]
pub mod stop_reason;
#[cfg(not(target_arch = "wasm32"))]
pub mod text_at;
#[cfg(not(target_arch = "wasm32"))]
pub mod text_build;
#[cfg(not(target_arch = "wasm32"))]
pub mod text_table;
#[cfg(not(target_arch = "wasm32"))]
pub mod tokens;
#[cfg(not(target_arch = "wasm32"))]
pub mod transcript;
#[cfg(target_arch = "wasm32")]
macro_rules! private_modules {
    ($($name:ident),* $(,)?) => { $(mod $name;)* };
}
#[cfg(target_arch = "wasm32")]
private_modules!(
    ai_sdk,
    budget,
    compaction,
    decode,
    delegation,
    error,
    facts,
    fallback,
    js_text,
    js_whitespace,
    json_scan,
    keyed,
    llm_text,
    lowercase,
    message,
    order,
    overflow,
    parent,
    role,
    run,
    stop_reason,
    text_at,
    text_build,
    text_table,
    tokens,
    transcript,
);
// The binding: its exports are the wasm32 build's roots. Public natively, and for the
// boundary tests (tests/wasm, feature `boundary-tests`), which call the exports by their
// Rust paths; private in the build users get, so that a core type's public method that
// nothing calls is dead too (a public `wasm` would make every type in its signatures,
// and so each of their public methods, reachable).
#[cfg(any(not(target_arch = "wasm32"), feature = "boundary-tests"))]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", not(feature = "boundary-tests")))]
mod wasm;

pub use error::{Error, Result};

/// The module's memory allocator: talc's, in place of Rust's default dlmalloc (smaller,
/// and freed memory merges with its free neighbours, so a delegate's freed context is
/// usable by any later request). Single-threaded wasm32 only (a build with `atomics`
/// keeps Rust's default); native builds keep the system allocator.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The crate version (`version()` in JavaScript).
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
