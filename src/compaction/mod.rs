//! ADR 0299 clauses 3–5: compaction of a delegate's context at its turn boundary
//! (host-contract §3 and §5), with pi-agent-core 0.85.1's primitives over `AgentMessage[]`.
//!
//! | clause | what | module |
//! |---|---|---|
//! | 3 | valid cut points, `findCutPoint`, split turns | [`cut`] |
//! | 3 | `prepareCompaction`: parts, tokensBefore, previousSummary, fileOps | [`prepare`] |
//! | 3 | the summary request (pi's prompts, bounded to the window) and its answer | [`summary`] |
//! | 3, 4, 5 | the boundary decision: unchanged, compacted, degraded, or `SUBAGENT_CONTEXT_OVERFLOW` | [`turn`] |
//!
//! The delegate's context is `[brief, (compactionSummary), messages...]`: the task brief
//! is the first message and stays verbatim through every compaction (a delegate must
//! never lose its task); a `compactionSummary` message plays the role of pi's previous
//! compaction entry. Everything here is pure Rust; the async orchestration with the
//! host's summarize callback lives in the binding (`wasm::compaction`).

pub mod cut;
pub mod prepare;
pub mod summary;
pub mod turn;

pub use cut::{find_cut_point, CutPoint};
pub use prepare::{prepare_compaction, CompactionPreparation, CompactionSettings, FileOps};
pub use summary::{build_summary_request, serialize_conversation, SummaryKind, SummaryRequest};
pub use turn::{
    complete_delegate_turn, prepare_delegate_turn, DegradeReason, DelegateTurnOptions,
    DelegateTurnOutcome, DelegateTurnPreparation, SummaryAnswer, TurnAction, TurnKind,
    TurnOutcomeKind,
};
