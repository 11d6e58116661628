//! ADR 0299 clauses 3–5: compaction of a delegate's context at its turn boundary
//! (host-contract §3 and §5), with pi-agent-core 0.85.1's primitives.
//!
//! | clause | what | module |
//! |---|---|---|
//! | 3 | a delegate's context kept across turns (facts, running sums) | [`context`] |
//! | 3 | valid cut points, `findCutPoint`, split turns | [`cut`] |
//! | 3 | `prepareCompaction`: parts, tokensBefore, previousSummary, fileOps | [`prepare`] |
//! | 3 | the summary request (pi's prompts, bounded to the window, the brief as context) | [`summary`] |
//! | 3 | the boundary decision and the compacted context | [`turn`] |
//! | 4, 5 | degradation before failure, `SUBAGENT_CONTEXT_OVERFLOW` | [`degrade`] |
//! | 3–5 | the boundary as a state machine: ask for summaries, interpret replies, decide | [`step`] |
//! | 4 | a run's counts and the report the parent receives | [`tally`] |
//! | 3–5, 4 | what the drivers keep across a run: its config, the summarizer's reply, one boundary at a time, the hook's counts and report | [`run`] |
//!
//! The delegate's context is `[brief, (compactionSummary), messages...]`: the task brief
//! is the first message and stays verbatim through every compaction (a delegate must
//! never lose its task); a `compactionSummary` message plays the role of pi's previous
//! compaction entry. Everything here is pure Rust; the async drivers that await the
//! host's summarizer live in the binding and only await the host, handing what it settled
//! with ([`run::Settled`]) to [`step::Turn`]; the run's state is [`run::Run`].

pub mod context;
pub mod cut;
pub mod degrade;
pub mod prepare;
pub mod run;
pub mod step;
pub mod summary;
pub mod tally;
pub mod turn;

pub use context::{DelegateContext, Item};
pub use cut::{find_cut_point, CutPoint};
pub use prepare::{prepare_compaction, CompactionPreparation, CompactionSettings, FileOps};
pub use step::{complete_delegate_turn, complete_turn, prepare_delegate_turn, Next, Reply, Turn};
pub use summary::{build_summary_request, serialize_conversation, SummaryKind, SummaryRequest};
pub use tally::{report_for_parent, ParentBoundReport, ReportInput, RunTally};
pub use turn::{
    DegradeReason, DelegateTurnOptions, DelegateTurnOutcome, DelegateTurnPreparation,
    SummaryAnswer, TurnAction, TurnKind, TurnOutcomeKind,
};
