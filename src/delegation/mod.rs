//! Resumable delegations: ADR 0279 (all thirteen clauses) and ADR 0299 clause 7, with
//! the host detail of host-contract §6 and §8.
//!
//! A *chain* is one internal key plus the ordered Task calls that continue each other
//! through `resume`. The parent only ever sees `delegationId`s; the key never leaves
//! the registry (clause 1).
//!
//! | clause | what | module |
//! |---|---|---|
//! | 3 | chain rows, the brief, rows → `AgentMessage[]`, read counting | [`history`] |
//! | 0299 §7 | seeding a resumed run within the delegate's budget | [`seed`] |
//! | 4 (binding) | the model a resumed run continues on | [`binding`] |
//! | 1, 2, 4–9, 11 | the registry: start, settle, validate, LRU, read gate | [`registry`] |
//! | 9 | the resumable list for the parent's system prompt | [`prompt`] |
//! | 12 | the registry rebuilt from the persisted transcript | [`rebuild`] |
//! | 13 | a chain rendered as one conversation | [`conversation`] |
//! | 10 | same session only: every input is the current session's rows | (all) |
//!
//! [`history`], [`seed`], [`binding`], [`prompt`], [`rebuild`] and [`conversation`] are
//! pure functions. [`registry::Registry`] is the only state: a plain struct with an
//! injected id source, deterministic given its inputs.

pub mod binding;
pub mod conversation;
pub mod history;
pub mod prompt;
pub mod rebuild;
pub mod registry;
pub mod seed;

/// ADR 0279 clause 7: reusable chains kept per agent name.
pub const MAX_RESUMABLE_CHAINS_PER_AGENT: usize = 2;
/// ADR 0279 clause 8: a chain is within the read budget while its lines are `<=` this.
pub const MAX_RESUMABLE_READ_LINES: u64 = 50_000;
/// ADR 0279 clause 9: files listed per chain in the resumable list.
pub const MAX_RESUMABLE_LISTED_FILES: usize = 8;

pub use binding::{resolve_resume_binding, BindingCandidates, ResolvedBinding};
pub use conversation::{ChainConversation, ChainTurn};
pub use history::{
    chain_rows_to_messages, count_chain_reads, select_chain_rows, ChainReads, ChainSelector,
    ProviderBinding,
};
pub use prompt::format_resumable_list;
pub use rebuild::RebuildSkip;
pub use registry::{
    random_uuid_v4, Diagnostic, ModelBinding, Registry, ResumableChain, ResumeRequest,
    ResumeTarget, SettleDelegation, SettleStatus, SettledDelegation, StartDelegation,
    StartedDelegation,
};
pub use seed::{seed_delegate_messages, SeedDropped, SeedInput, SeedResult};
