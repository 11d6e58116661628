//! ADR 0299 clauses 3–5: compaction of a delegate's context at its turn boundary
//! (host-contract §3 and §5), with pi-agent-core 0.85.1's primitives.
//!
//! A boundary step reads as the seed does: [`step`] assesses, plans the cut, requests
//! the summary and composes, and degrades (or fails) when that cannot fit. Each step is
//! one module, entered once:
//!
//! | clause | what | module |
//! |---|---|---|
//! | 3–5 | the boundary as a state machine, in the seed's order: ask for summaries, interpret replies, decide | [`step`] |
//! | 3 | 1. assess: re-estimate the context, the threshold, the turn (ADR 0136), the limit a rewrite must fit | [`assess`] |
//! | 3 | 2. plan the cut: pi's `findCutPoint`, split turns, the ranges of `prepareCompaction`, the retained active turn | [`plan`] |
//! | 3 | 3. request the summary (pi's prompts, bounded to the window, the brief as context) | [`request`] |
//! | 3 | 4. compose the compacted context (pi's combined summary, re-estimated) | [`compose`] |
//! | 4, 5 | degradation before failure, `SUBAGENT_CONTEXT_OVERFLOW` | [`degrade`] |
//! | 3–5 | what a step takes and gives: options, preparation, answer, outcome | [`turn`] |
//! | 3 | a delegate's context kept across turns (facts, running sums) | [`context`] |
//! | 3 | pi's `FileOperations`: the files a summary or a degrade note names | [`file_ops`] |
//! | 3 | pi's `prepareCompaction` as the package exports it: parts, tokensBefore, previousSummary, fileOps | [`prepare`] |
//! | 4 | a run's counts and the report the parent receives | [`tally`] |
//! | 3–5, 4 | what the drivers keep across a run: its config, the summarizer's reply, one boundary at a time, the hook's counts and report | [`run`] |
//!
//! The delegate's context is `[brief, (compactionSummary), messages...]`: the task brief
//! is the first message and stays verbatim through every compaction (a delegate must
//! never lose its task); a `compactionSummary` message plays the role of pi's previous
//! compaction entry. Everything here is pure Rust; the async drivers that await the
//! host's summarizer live in the binding and only await the host, handing what it settled
//! with ([`run::Settled`]) to [`step::Turn`]; the run's state is [`run::Run`].

pub mod assess;
pub mod compose;
pub mod context;
pub mod degrade;
pub mod file_ops;
pub mod plan;
pub mod prepare;
pub mod request;
pub mod run;
pub mod step;
pub mod tally;
pub mod turn;

pub use step::{Next, Reply};

// Re-exported for the native tests (tests/*.rs, fuzz/): on wasm32 nothing imports these
// paths, and an unused import fails that build (src/lib.rs says why).
#[cfg(not(target_arch = "wasm32"))]
pub use {
    context::{DelegateContext, Item},
    file_ops::FileOps,
    plan::{find_cut_point, CutPoint},
    prepare::{prepare_compaction, CompactionPreparation, CompactionSettings},
    request::build_summary_request,
    step::{complete_delegate_turn, complete_turn, prepare_delegate_turn, Turn},
    tally::{report_for_parent, ParentBoundReport, ReportInput, RunTally},
    turn::{
        DegradeReason, DelegateTurnOptions, DelegateTurnOutcome, DelegateTurnPreparation,
        SummaryAnswer, SummaryKind, SummaryRequest, TurnAction, TurnKind, TurnOutcomeKind,
    },
};
