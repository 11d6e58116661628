//! Resumable delegations: ADR 0279 (all thirteen clauses) and ADR 0299 clause 7, with
//! the host detail of host-contract §6 and §8.
//!
//! A *chain* is one internal key plus the ordered Task calls that continue each other
//! through `resume`. The parent only ever sees `delegationId`s; the key never leaves
//! the registry (clause 1).
//!
//! | clause | what | file |
//! |---|---|---|
//! | 0279 §1 | the internal chain key, random delegationIds | [`ids`], [`registry`] |
//! | 0279 §2 | a chain: its runs, its reads, its state | [`chain`] |
//! | 0279 §3 | a chain's rows, its brief and label; rows → messages | [`history`]; [`crate::transcript::to_messages`] |
//! | 0279 §4 | validation, in the host's order; the errors' words | [`registry`] (`validate_resume`), [`wording`] |
//! | 0279 §4 (binding) | the model a resumed run continues on | [`binding`] |
//! | 0279 §4 (last row) | a chain with nothing to replay is dropped | [`history`] (`run_replays_anything`), [`registry`] |
//! | 0279 §5 | which statuses are resumable | [`chain`] (`RunStatus`) |
//! | 0279 §6 | one live run per chain | [`registry`] |
//! | 0279 §7 | the per-agent bound, LRU | [`registry`] (`enforce_bound`), [`limits`] |
//! | 0279 §8 | the read budget, read counting | [`history`] (`count_chain_reads`), [`chain`], [`limits`] |
//! | 0279 §9 | the resumable list; the `resume` parameter's description | [`prompt`] |
//! | 0279 §10 | same session only: every input is the current session's rows | (all) |
//! | 0279 §11 | definition edits take effect, with a diagnostic | [`registry`] (`start`), [`wording`] |
//! | 0279 §12 | the registry rebuilt from the transcript | [`rebuild`] (plan), [`registry`] (replay) |
//! | 0279 §13 | a chain rendered as one conversation | [`conversation`] |
//! | 0299 §7 | seeding a resumed run within the delegate's budget | [`seed`] |
//! | 0279 §4, §12 (host-contract §6) | the Task row a run writes at start, at settle, or refused | [`task_row`] |
//! | inputs and outputs of the registry | | [`types`] |
//!
//! Imports run one way: [`registry`] → ([`rebuild`], [`conversation`], [`prompt`],
//! [`wording`], [`binding`]) → ([`chain`], [`history`]) → ([`types`], [`limits`], `text`) →
//! [`crate::transcript`]. Everything but [`registry::Registry`] is a pure function or a
//! plain type; the registry is the only state: a plain struct with an injected id
//! source, deterministic given its inputs.

pub mod binding;
pub mod chain;
pub mod conversation;
pub mod history;
pub mod ids;
pub mod limits;
pub mod prompt;
pub mod rebuild;
pub mod registry;
pub mod seed;
pub mod task_row;
mod text;
pub mod types;
pub mod wording;

pub use binding::{resolve_resume_binding, BindingCandidates};
pub use history::{count_chain_reads, select_chain_rows};
pub use ids::random_uuid_v4;
pub use prompt::{format_resumable_list, resume_parameter_schema};
pub use registry::Registry;
pub use seed::{seed_delegate_messages, SeedInput};
pub use task_row::{
    task_row_refused, task_row_settle, task_row_start, TaskRowRefused, TaskRowSettle, TaskRowStart,
};
pub use types::{ChainSelector, ResumableChain, ResumeRequest, SettleDelegation, StartDelegation};

// Re-exported for the native tests (tests/*.rs, fuzz/): on wasm32 nothing imports these
// paths, and an unused import fails that build (src/lib.rs says why).
#[cfg(not(target_arch = "wasm32"))]
pub use {
    binding::{BindingSource, ModelBinding, ResolvedBinding, ResumeCandidates},
    conversation::{ChainConversation, ChainTurn},
    history::objective_from_args,
    ids::IdSource,
    limits::{
        MAX_CHAINS_IN_ERROR, MAX_RESUMABLE_CHAINS_PER_AGENT, MAX_RESUMABLE_LISTED_FILES,
        MAX_RESUMABLE_READ_LINES,
    },
    prompt::{ResumeParameterSchema, RESUME_PARAMETER_DESCRIPTION},
    seed::{SeedDropped, SeedResult},
    task_row::{task_details, TaskArgs, TaskDetails, TASK_TOOL_NAME},
    types::{
        ChainInfo, ChainReads, Diagnostic, DiagnosticCode, RebuildSkip, RebuildSkipReason,
        ResumeTarget, SettleStatus, SettledDelegation, StartedDelegation,
    },
};
