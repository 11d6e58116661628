//! The only module that knows wasm-bindgen. Each export decodes its arguments, calls
//! the core, and encodes the result; the decisions are the core's, and so is the state
//! of a run ([`crate::compaction::run`]: its counts, its lock, its report, the
//! summarizer's reply). What this module holds is the host's own objects. Errors reach
//! JavaScript as `Error` objects with `name` `DelegateContextError` and a stable `code`
//! (see [`convert::to_js_error`]).
//!
//! | file | what it does |
//! |---|---|
//! | [`compaction`] | one-shot exports over a message array: `findCutPoint`, `prepareCompaction`, `serializeConversation`, `reportForParent` |
//! | [`context`] | the `DelegateContext` class: a handle on a [`host_context::HostContext`], its lock the core's |
//! | [`convert`] | the crossing: JSON in (with the path of a bad value), JSON out, core errors as JS `Error`s |
//! | [`delegation`] | the `DelegationRegistry` class and the delegation functions (transcript rows decoded one at a time) |
//! | [`fallback`] | fallback models, inherited tools, provider overflow, `errorForParent` |
//! | [`foundation`] | version, token estimates, the budget, the parent context |
//! | [`host`] | reading host values so that a throwing getter becomes `INVALID_INPUT` with its path |
//! | [`host_context`] | the core's context beside the host's own message objects (kept by reference, handed back) |
//! | [`messages`] | host messages read as the core's facts (one `JSON.stringify` per range) |
//! | [`rows`] | the rows the package writes (messages → rows, the Task row) |
//! | [`run`] | the `DelegateRun` class (the core's run machine, on a registry it shares) and the `RowRecorder` class |
//! | [`turn`] | the boundary exports: read the config; for the async ones, a [`turn::TurnStep`] that `host.js`'s `dc_drive` drives (it awaits the host's summarizer and hands what came of it, a [`crate::compaction::run::Settled`], to the core) |
//! | `host.js` | the JavaScript these call (no rule: reading, calling, awaiting, signals), type-checked and tested by itself |

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
pub mod run;
pub mod turn;
