//! ADR 0279 clauses 2, 5 and 8: the state of one chain, and what follows from it
//! (running, reusable, kept but not reusable). The registry ([`super::registry`]) holds
//! chains and changes them; everything here only reads a chain.
//!
//! - Clause 2: a chain is one internal key plus its ordered runs (one per Task call);
//!   reads live on the chain.
//! - Clause 5: a run's [`RunStatus`]; resumable are `completed`, `failed`, `timed_out`
//!   (treated as failed) and a rebuilt row that recorded no status (trusted as settled).
//! - Clause 8: a chain over [`MAX_RESUMABLE_READ_LINES`] is not reusable.
//! - Clause 4, last row: a chain known to have nothing to replay (every run's rows
//!   convert to nothing but an echo of the brief, or no brief was recorded) is not
//!   reusable either.

use super::binding::ModelBinding;
use super::limits::MAX_RESUMABLE_READ_LINES;
use super::types::{ChainInfo, ChainReads, ResumableChain, RunStatus};
use crate::text_build::Owned;

/// One Task call of a chain.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    pub delegation_id: String,
    pub tool_call_id: String,
    pub task: String,
    pub description: Option<String>,
    pub status: RunStatus,
    /// Whether this run's rows replay anything (`None`: not known yet).
    pub replayable: Option<bool>,
}

impl Run {
    /// A run as its Task call starts it: running, nothing known yet about its rows.
    pub fn started(
        delegation_id: String,
        tool_call_id: String,
        task: String,
        description: Option<String>,
    ) -> Run {
        Run {
            delegation_id,
            tool_call_id,
            task,
            description,
            status: RunStatus::Running,
            replayable: None,
        }
    }
}

/// One chain (clause 2).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Chain {
    /// The internal key (clause 1): never in any output.
    pub key: String,
    /// The normalised agent name.
    pub agent: String,
    /// The first run's task.
    pub brief: String,
    /// Oldest first; never empty.
    pub runs: Vec<Run>,
    /// The latest non-blank label.
    pub objective: String,
    pub reads: ChainReads,
    /// Recency: when the chain last started or settled a run (clause 7's LRU, and the
    /// list's "newest activity first").
    pub last_active: u64,
    pub model: ModelBinding,
    /// The agent definition's fingerprint at the latest run that gave one (clause 11).
    pub definition: Option<String>,
}

/// Which of the two bounded groups of clause 7 a settled chain belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Listed and resumable.
    Reusable,
    /// Kept so that a resume of it answers its own code, never listed.
    NotReusable,
}

impl Chain {
    pub fn latest(&self) -> Option<&Run> {
        self.runs.last()
    }

    pub fn latest_id(&self) -> &str {
        self.latest().map_or("", |run| run.delegation_id.as_str())
    }

    pub fn latest_status(&self) -> Option<&RunStatus> {
        self.latest().map(|run| &run.status)
    }

    /// The latest run still works: never evicted, never listed (clauses 6, 7, 9).
    pub fn is_running(&self) -> bool {
        self.latest_status().is_some_and(RunStatus::is_running)
    }

    /// Known to have nothing to replay (or no brief to seed with).
    #[inline(never)]
    pub fn is_known_empty(&self) -> bool {
        self.brief.is_empty() || self.runs.iter().all(|run| run.replayable == Some(false))
    }

    pub fn is_over_read_budget(&self) -> bool {
        self.reads.lines > MAX_RESUMABLE_READ_LINES
    }

    /// Settled, resumable, within the read budget and not known to be empty: the chain
    /// is listed (clause 9) and counts against clause 7's bound.
    #[inline(never)]
    pub fn is_reusable(&self) -> bool {
        !self.is_running()
            && self.latest_status().is_some_and(RunStatus::is_resumable)
            && !self.is_over_read_budget()
            && !self.is_known_empty()
    }

    /// Its group under clause 7's bound; `None` while it runs (exempt).
    pub fn standing(&self) -> Option<Standing> {
        if self.is_running() {
            None
        } else if self.is_reusable() {
            Some(Standing::Reusable)
        } else {
            Some(Standing::NotReusable)
        }
    }

    #[inline(never)]
    pub fn tool_call_ids(&self) -> Vec<String> {
        self.runs
            .iter()
            .map(|run| run.tool_call_id.clone())
            .collect()
    }

    /// The latest run's status ([`RunStatus::Unrecorded`] for a chain with no run).
    #[inline(never)]
    fn status(&self) -> RunStatus {
        self.latest_status()
            .cloned()
            .unwrap_or(RunStatus::Unrecorded)
    }

    /// The chain's entry in the resumable list.
    pub fn listing_entry(&self) -> ResumableChain {
        ResumableChain {
            agent: self.agent.clone(),
            delegation_id: self.latest_id().owned(),
            objective: self.objective.clone(),
            files: self.reads.files.clone(),
            read_lines: self.reads.lines,
            status: self.status(),
        }
    }

    /// The chain as `resolve` shows it.
    pub fn info(&self) -> ChainInfo {
        ChainInfo {
            agent: self.agent.clone(),
            delegation_ids: self
                .runs
                .iter()
                .map(|run| run.delegation_id.clone())
                .collect(),
            tool_call_ids: self.tool_call_ids(),
            latest_delegation_id: self.latest_id().owned(),
            status: self.status(),
            brief: self.brief.clone(),
            objective: self.objective.clone(),
            reads: self.reads.clone(),
            resumable: self.is_reusable(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        for (text, resumable) in [
            ("completed", true),
            ("failed", true),
            ("timed_out", true),
            ("stopped", false),
            ("aborted", false),
            ("interrupted", false),
            ("running", false),
            ("exploded", false),
        ] {
            let status = RunStatus::from_recorded(text);
            assert_eq!(status.is_resumable(), resumable, "{text}");
            assert_eq!(status.as_text(), Some(text));
        }
        assert!(RunStatus::Unrecorded.is_resumable());
        assert_eq!(RunStatus::Unrecorded.as_text(), None);
    }
}
