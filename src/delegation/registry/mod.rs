//! ADR 0279 clauses 1, 4–8, 11 and 12: the registry of resumable chains, the only state
//! of the delegation core (the wasm class `DelegationRegistry` wraps it), and every
//! transition of it.
//!
//! - Clause 1: a chain has an internal key (a random UUID, or the root's delegationId
//!   after a rebuild) that no output contains; every delegationId issued on a held chain
//!   maps back to it, so a middle id resolves too.
//! - Clause 4: [`Registry::validate_resume`] checks, in this order: unknown or evicted
//!   id → `UNKNOWN_DELEGATION`; `Task.agent` differs → `AGENT_MISMATCH` (also while the
//!   chain runs); latest run still running → `DELEGATION_RUNNING`; latest run stopped /
//!   aborted / interrupted / an unknown status → `NOT_RESUMABLE`; `Task.model` given →
//!   `MODEL_ON_RESUME`; over the read budget → `READ_BUDGET_EXCEEDED`; nothing to replay
//!   → `NO_HISTORY`, and the chain is dropped at once (registry entry and every
//!   reverse-map entry), so the next resume of that id is `UNKNOWN_DELEGATION`. The
//!   unknown-id, agent-mismatch and no-history errors list the chains that remain
//!   reusable (at most [`super::limits::MAX_CHAINS_IN_ERROR`], then "(+N more)"). The model binding of
//!   a resumed run: [`super::binding`].
//! - Clause 6: one live run per chain: a resume while it runs is rejected, never queued.
//! - Clause 7: when a delegation settles, its agent's settled chains are bounded: at most
//!   [`MAX_RESUMABLE_CHAINS_PER_AGENT`](super::limits::MAX_RESUMABLE_CHAINS_PER_AGENT) reusable ones, and separately at most as many that
//!   cannot be resumed (stopped, aborted, interrupted, over the read budget, nothing to
//!   replay), least recently used first out, whole chains with every reverse-map entry.
//!   So a chain that cannot be resumed never pushes out a reusable one, memory stays
//!   bounded, and a kept one still answers its own code. A running chain is neither
//!   counted nor evicted. Only the settled chain's agent is looked at (an index by
//!   agent), so a settle costs the same on a registry of any size.
//! - Clause 8: reads are added at settle; a chain over the read budget is not reusable.
//! - Clause 11: a changed definition fingerprint on resume is applied and reported as a
//!   `DEFINITION_CHANGED` diagnostic.
//! - Clause 12: [`Registry::from_transcript`] replays the rebuild's events
//!   ([`super::rebuild`]) through the same transitions.
//!
//! Recency ("LRU", and the list's "newest activity first"): a counter bumped on every
//! start (new or resumed) and every settle; a validation does not bump it. After a
//! rebuild it is the rank of that start or settle in the order the rows say things
//! happened ([`super::rebuild`] rule 8: `completedAt`, `startedAt`, else position).
//!
//! Whether a run left anything to replay is learnt from the rows given to `settle` or
//! `validate_resume` (or the transcript, in a rebuild). Every method validates before
//! it mutates: an error leaves the registry unchanged, except `NO_HISTORY`, which drops
//! the chain.

use std::fmt;

use super::chain::Chain;
use super::conversation::{conversation_of, ChainConversation};
use super::ids::{random_uuid_v4, IdSource};
use super::prompt::format_resumable_list;
use super::rebuild::plan;
use super::types::{ChainInfo, RebuildSkip, ResumableChain};
use super::wording::{self, ReusableListing};
use crate::error::{Error, Result};
use crate::js_whitespace;
use crate::keyed::Table;
use crate::text_build::Owned;
use crate::transcript::UiMessage;

mod bound;
mod lifecycle;
mod replay;
mod resume;

/// The registry of resumable chains (see the module docs).
pub struct Registry {
    chains: Table<String, Chain>,
    /// Every delegationId of a held chain → its key.
    by_delegation: Table<String, String>,
    /// Every Task call id of a held chain → its key.
    by_tool_call: Table<String, String>,
    /// Agent → keys of its chains whose latest run has settled (clause 7's groups).
    settled_by_agent: Table<String, Vec<String>>,
    tick: u64,
    ids: IdSource,
    rebuild_skips: Vec<RebuildSkip>,
    /// Chains the last bound check looked at.
    last_bound_check: usize,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("chains", &self.chains.len())
            .field("tick", &self.tick)
            .finish()
    }
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

fn vanished(what: &str) -> Error {
    Error::InvalidState {
        message: format!("the validated chain of {what} vanished"),
    }
}

impl Registry {
    /// An empty registry issuing random UUID v4 ids.
    pub fn new() -> Self {
        Self::with_id_source(Box::new(random_uuid_v4))
    }

    /// An empty registry issuing ids from `ids` (deterministic tests).
    pub fn with_id_source(ids: IdSource) -> Self {
        Registry {
            chains: Table::default(),
            by_delegation: Table::default(),
            by_tool_call: Table::default(),
            settled_by_agent: Table::default(),
            tick: 0,
            ids,
            rebuild_skips: Vec::new(),
            last_bound_check: 0,
        }
    }

    /// Clause 12: a registry rebuilt from the session transcript, issuing random ids.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn from_transcript(rows: &[UiMessage]) -> Self {
        Self::from_transcript_with_id_source(rows, Box::new(random_uuid_v4))
    }

    /// [`Registry::from_transcript`] with an injected id source.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn from_transcript_with_id_source(rows: &[UiMessage], ids: IdSource) -> Self {
        Self::from_transcript_rows(rows, None, ids)
    }

    /// [`Registry::from_transcript`] from only the rows a rebuild reads
    /// ([`crate::transcript::RowFilter::DelegateOrTaskRows`], in transcript order), with
    /// each row's index in the whole transcript (`positions[i]` for `rows[i]`), so that
    /// recency and [`RebuildSkip::index`] are transcript positions.
    pub fn from_transcript_rows(
        rows: &[UiMessage],
        positions: Option<&[usize]>,
        ids: IdSource,
    ) -> Self {
        // Every replayed start and settle raises the clock past its own time, so what
        // happens after the rebuild is newer than anything the rows recorded (only the
        // order of the ticks is ever read).
        let mut registry = Registry::with_id_source(ids);
        // rows with order keys are read in key order, in the slots they hold (a store that
        // returns rows in another order rebuilds the same registry)
        let keys: Vec<Option<f64>> = rows.iter().map(|r| r.order).collect();
        let arranged = crate::transcript::order::arrange(&keys);
        if arranged.iter().enumerate().all(|(slot, &i)| slot == i) {
            registry.replay(plan(rows, positions));
        } else {
            let rows: Vec<UiMessage> = arranged
                .iter()
                .filter_map(|&i| rows.get(i).cloned())
                .collect();
            registry.replay(plan(&rows, positions));
        }
        registry
    }

    /// Number of chains held (listed or not).
    pub fn chain_count(&self) -> usize {
        self.chains.len()
    }

    /// Task rows the last rebuild skipped, and why.
    pub fn rebuild_skips(&self) -> &[RebuildSkip] {
        &self.rebuild_skips
    }

    /// How many chains the last bound check (clause 7, at a settle) looked at: the
    /// settled chains of one agent, never the whole registry.
    #[cfg(test)]
    pub fn last_bound_check_size(&self) -> usize {
        self.last_bound_check
    }

    // ---------------------------------------------------------------------- reading

    #[inline(never)]
    pub(super) fn key_of(&self, delegation_id: &str) -> Option<&String> {
        self.by_delegation.get(js_whitespace::trim(delegation_id))
    }

    pub(super) fn chain_of(&self, delegation_id: &str) -> Option<&Chain> {
        self.chains.get(self.key_of(delegation_id)?)
    }

    /// The chain `delegation_id` belongs to, if the registry holds it.
    pub fn resolve(&self, delegation_id: &str) -> Option<ChainInfo> {
        self.chain_of(delegation_id).map(Chain::info)
    }

    /// The resumable chains, newest activity first (clause 9).
    pub fn resumable_list(&self) -> Vec<ResumableChain> {
        let mut reusable: Vec<&Chain> = self
            .chains
            .values()
            .filter(|chain| chain.is_reusable())
            .collect();
        crate::order::sort_by(&mut reusable, |left, right| {
            (right.last_active, &left.key).cmp(&(left.last_active, &right.key))
        });
        reusable.into_iter().map(Chain::listing_entry).collect()
    }

    /// The resumable list block for the parent's system prompt; `""` when empty.
    pub fn resumable_prompt(&self) -> String {
        format_resumable_list(&self.resumable_list())
    }

    pub(super) fn reusable_listing(&self) -> ReusableListing {
        wording::reusable_listing(&self.resumable_list())
    }

    #[inline(never)]
    pub(super) fn unknown_delegation(&self, delegation_id: &str) -> Error {
        let listing = self.reusable_listing();
        Error::UnknownDelegation {
            id: js_whitespace::trim(delegation_id).owned(),
            listing: listing.text,
            resumable: listing.ids,
            resumable_omitted: listing.omitted,
        }
    }

    /// Clause 13: the chain of `delegation_id` (any id on it) as one conversation.
    ///
    /// Errors: `UNKNOWN_DELEGATION` when the registry does not hold the id.
    pub fn chain_conversation(
        &self,
        rows: &[UiMessage],
        delegation_id: &str,
    ) -> Result<ChainConversation> {
        match self.chain_of(delegation_id) {
            Some(chain) => Ok(conversation_of(chain, rows)),
            None => Err(self.unknown_delegation(delegation_id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delegation::limits::MAX_RESUMABLE_CHAINS_PER_AGENT;
    use crate::delegation::types::{SettleDelegation, SettleStatus, StartDelegation};

    fn counting() -> IdSource {
        let mut n = 0u64;
        Box::new(move || {
            n += 1;
            Ok(format!("id-{n}"))
        })
    }

    #[test]
    fn a_settle_looks_at_one_agents_settled_chains_only() {
        let mut registry = Registry::with_id_source(counting());
        // many running chains of one agent, many settled chains of others
        for i in 0..200 {
            registry
                .start(
                    &StartDelegation {
                        tool_call_id: format!("run-{i}"),
                        agent: "busy".into(),
                        task: "t".into(),
                        ..Default::default()
                    },
                    None,
                )
                .unwrap();
            let other = registry
                .start(
                    &StartDelegation {
                        tool_call_id: format!("other-{i}"),
                        agent: format!("agent-{i}"),
                        task: "t".into(),
                        ..Default::default()
                    },
                    None,
                )
                .unwrap();
            registry
                .settle(&SettleDelegation {
                    delegation_id: other.delegation_id,
                    status: SettleStatus::Completed,
                    reads: None,
                    rows: None,
                })
                .unwrap();
            assert_eq!(registry.last_bound_check_size(), 1);
        }
        for i in 0..200 {
            let id = registry
                .resolve(&format!("id-{}", 4 * i + 1))
                .unwrap()
                .latest_delegation_id;
            let status = if i % 2 == 0 {
                SettleStatus::Completed
            } else {
                SettleStatus::Stopped
            };
            registry
                .settle(&SettleDelegation {
                    delegation_id: id,
                    status,
                    reads: None,
                    rows: None,
                })
                .unwrap();
            // at most the kept chains plus the one just settled
            assert!(registry.last_bound_check_size() <= 2 * MAX_RESUMABLE_CHAINS_PER_AGENT + 1);
        }
        assert_eq!(
            registry.chain_count(),
            200 + 2 * MAX_RESUMABLE_CHAINS_PER_AGENT
        );
    }
}
