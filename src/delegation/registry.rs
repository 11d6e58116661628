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
//!   [`MAX_RESUMABLE_CHAINS_PER_AGENT`] reusable ones, and separately at most as many that
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

use std::cmp::Reverse;
use std::collections::HashMap;
use std::fmt;

use super::binding::{bind_resumed_run, ModelBinding};
use super::chain::{Chain, Run, RunStatus, Standing};
use super::conversation::{conversation_of, ChainConversation};
use super::history::{
    count_chain_reads, replays_anything, run_replays_anything, select_chain_rows,
};
use super::ids::{random_uuid_v4, IdSource};
use super::limits::MAX_RESUMABLE_CHAINS_PER_AGENT;
use super::prompt::format_resumable_list;
use super::rebuild::{plan, Event, RebuildPlan};
use super::types::{
    ChainInfo, ChainReads, ChainSelector, Diagnostic, DiagnosticCode, RebuildSkip,
    RebuildSkipReason, ResumableChain, ResumeRequest, ResumeTarget, SettleDelegation,
    SettledDelegation, StartDelegation, StartedDelegation,
};
use super::wording::{self, ReusableListing};
use crate::error::{Error, Result};
use crate::transcript::{normalize_agent_name, UiMessage};

/// The registry of resumable chains (see the module docs).
pub struct Registry {
    chains: HashMap<String, Chain>,
    /// Every delegationId of a held chain → its key.
    by_delegation: HashMap<String, String>,
    /// Every Task call id of a held chain → its key.
    by_tool_call: HashMap<String, String>,
    /// Agent → keys of its chains whose latest run has settled (clause 7's groups).
    settled_by_agent: HashMap<String, Vec<String>>,
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

fn trimmed(text: &str) -> Option<String> {
    Some(text.trim())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

fn trimmed_option(text: Option<&str>) -> Option<String> {
    text.and_then(trimmed)
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
            chains: HashMap::new(),
            by_delegation: HashMap::new(),
            by_tool_call: HashMap::new(),
            settled_by_agent: HashMap::new(),
            tick: 0,
            ids,
            rebuild_skips: Vec::new(),
            last_bound_check: 0,
        }
    }

    /// Clause 12: a registry rebuilt from the session transcript, issuing random ids.
    pub fn from_transcript(rows: &[UiMessage]) -> Self {
        Self::from_transcript_with_id_source(rows, Box::new(random_uuid_v4))
    }

    /// [`Registry::from_transcript`] with an injected id source.
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
        let mut registry = Registry::with_id_source(ids);
        registry.replay(plan(rows, positions));
        let transcript_len = positions
            .and_then(|p| p.last())
            .map_or(rows.len(), |last| last + 1);
        registry.tick = registry.tick.max(transcript_len as u64);
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
    #[doc(hidden)]
    pub fn last_bound_check_size(&self) -> usize {
        self.last_bound_check
    }

    // ---------------------------------------------------------------------- reading

    fn key_of(&self, delegation_id: &str) -> Option<&String> {
        self.by_delegation.get(delegation_id.trim())
    }

    fn chain_of(&self, delegation_id: &str) -> Option<&Chain> {
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

    fn reusable_listing(&self) -> ReusableListing {
        wording::reusable_listing(&self.resumable_list())
    }

    fn unknown_delegation(&self, delegation_id: &str) -> Error {
        let listing = self.reusable_listing();
        Error::UnknownDelegation {
            id: delegation_id.trim().to_string(),
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

    // ---------------------------------------------------------------------- clause 4

    /// Clause 4: every check a resume must pass, in the module docs' order.
    ///
    /// `rows` (the session transcript, or at least the chain's rows) make the
    /// `NO_HISTORY` check exact; without them only what settle / rebuild learnt is used.
    /// A `NO_HISTORY` answer drops the chain.
    pub fn validate_resume(
        &mut self,
        request: &ResumeRequest,
        rows: Option<&[UiMessage]>,
    ) -> Result<ResumeTarget> {
        let id = request.delegation_id.trim().to_string();
        let Some(chain) = self.chain_of(&id) else {
            return Err(self.unknown_delegation(&id));
        };
        let latest = chain.latest_id().to_string();
        let agent = normalize_agent_name(&request.agent);
        if agent != chain.agent {
            let listing = self.reusable_listing();
            return Err(Error::AgentMismatch {
                message: wording::agent_mismatch(&id, &chain.agent, &agent, &listing),
                id,
                expected: chain.agent.clone(),
                actual: agent,
            });
        }
        if chain.is_running() {
            return Err(Error::DelegationRunning { id: latest });
        }
        let status = chain
            .latest_status()
            .cloned()
            .unwrap_or(RunStatus::Unrecorded);
        if !status.is_resumable() {
            return Err(Error::NotResumable {
                message: wording::not_resumable(&latest, &status),
                id: latest,
                status: status.as_text().unwrap_or_default().to_string(),
            });
        }
        if trimmed_option(request.model.as_deref()).is_some() {
            return Err(Error::ModelOnResume { id });
        }
        if chain.is_over_read_budget() {
            return Err(Error::ReadBudgetExceeded {
                id,
                lines: chain.reads.lines,
            });
        }
        let key = chain.key.clone();
        if let Some(rows) = rows {
            self.learn_replays(&key, rows);
        }
        let Some(chain) = self.chains.get(&key) else {
            return Err(vanished(&id));
        };
        if chain.is_known_empty() {
            self.drop_chain(&key);
            let listing = self.reusable_listing();
            return Err(Error::NoHistory {
                id,
                listing: listing.text,
                resumable: listing.ids,
                resumable_omitted: listing.omitted,
            });
        }
        Ok(ResumeTarget {
            delegation_id: id,
            latest_delegation_id: latest,
            agent: chain.agent.clone(),
            brief: chain.brief.clone(),
            objective: chain.objective.clone(),
            tool_call_ids: chain.tool_call_ids(),
            status: status.as_text().map(str::to_string),
            reads: chain.reads.clone(),
            recorded_model: chain.model.clone(),
        })
    }

    /// Whether each run of the chain `key` replays anything, from `rows`.
    fn learn_replays(&mut self, key: &str, rows: &[UiMessage]) {
        let Some(chain) = self.chains.get_mut(key) else {
            return;
        };
        for run in &mut chain.runs {
            run.replayable = Some(run_replays_anything(
                rows,
                &run.tool_call_id,
                &chain.agent,
                &chain.brief,
            ));
        }
    }

    // ---------------------------------------------------------------------- start

    /// Start a run: a new chain, or (with `resume`) the next run of an existing one after
    /// the same checks as [`Registry::validate_resume`] (`rows` as there).
    ///
    /// Errors: `INVALID_INPUT` for a blank `toolCallId` / `agent` / `task` or bad
    /// `candidates`; `INVALID_STATE` for a `toolCallId` that already started a run;
    /// every clause-4 code on a resume.
    pub fn start(
        &mut self,
        input: &StartDelegation,
        rows: Option<&[UiMessage]>,
    ) -> Result<StartedDelegation> {
        let tool_call_id = trimmed(&input.tool_call_id)
            .ok_or_else(|| Error::invalid("input.toolCallId", "must not be blank"))?;
        let agent = normalize_agent_name(&input.agent);
        if agent.is_empty() {
            return Err(Error::invalid("input.agent", "must not be blank"));
        }
        let task = trimmed(&input.task)
            .ok_or_else(|| Error::invalid("input.task", "must not be blank"))?;
        if let Some(key) = self.by_tool_call.get(&tool_call_id) {
            let existing = self
                .chains
                .get(key)
                .and_then(|chain| {
                    chain
                        .runs
                        .iter()
                        .find(|run| run.tool_call_id == tool_call_id)
                })
                .map_or("", |run| run.delegation_id.as_str());
            return Err(Error::InvalidState {
                message: format!("Task call {tool_call_id} already started delegation {existing}"),
            });
        }
        let description = trimmed_option(input.description.as_deref());
        let new_run = |delegation_id: String| Run {
            delegation_id,
            tool_call_id: tool_call_id.clone(),
            task: task.clone(),
            description: description.clone(),
            status: RunStatus::Running,
            replayable: None,
        };
        let objective = description.clone().unwrap_or_else(|| task.clone());
        match trimmed_option(input.resume.as_deref()) {
            None => {
                let delegation_id = self.fresh_id()?;
                let key = self.fresh_id_besides(&delegation_id)?;
                let binding = input.binding.clone().unwrap_or_default();
                let last_active = self.bump();
                self.open_chain(Chain {
                    key,
                    agent: agent.clone(),
                    brief: task.clone(),
                    runs: vec![new_run(delegation_id.clone())],
                    objective,
                    reads: ChainReads::default(),
                    last_active,
                    model: binding.clone(),
                    definition: trimmed_option(input.definition.as_deref()),
                });
                Ok(StartedDelegation {
                    delegation_id,
                    agent,
                    tool_call_ids: vec![tool_call_id],
                    brief: task,
                    resumed_from: None,
                    model_binding: binding,
                    model_changed_from: None,
                    diagnostics: Vec::new(),
                })
            }
            Some(resume) => {
                let target = self.validate_resume(
                    &ResumeRequest {
                        delegation_id: resume,
                        agent: input.agent.clone(),
                        model: input.model.clone(),
                    },
                    rows,
                )?;
                let Some(key) = self.key_of(&target.latest_delegation_id).cloned() else {
                    return Err(vanished(&target.delegation_id));
                };
                let Some(chain) = self.chains.get(&key) else {
                    return Err(vanished(&target.delegation_id));
                };
                let bound = bind_resumed_run(
                    &chain.model,
                    input.candidates.as_ref(),
                    input.binding.as_ref(),
                )?;
                let definition = trimmed_option(input.definition.as_deref());
                let diagnostics = resume_diagnostics(
                    chain,
                    &target,
                    bound.model_changed_from.as_deref(),
                    &bound.binding,
                    definition.as_deref(),
                );
                let delegation_id = self.fresh_id()?;
                let last_active = self.bump();
                self.begin_run(&key, new_run(delegation_id.clone()), last_active);
                let Some(chain) = self.chains.get_mut(&key) else {
                    return Err(vanished(&target.delegation_id));
                };
                chain.objective = objective;
                chain.model = bound.binding.clone();
                if definition.is_some() {
                    chain.definition = definition;
                }
                Ok(StartedDelegation {
                    delegation_id,
                    agent,
                    tool_call_ids: chain.tool_call_ids(),
                    brief: chain.brief.clone(),
                    resumed_from: Some(target.latest_delegation_id),
                    model_binding: bound.binding,
                    model_changed_from: bound.model_changed_from,
                    diagnostics,
                })
            }
        }
    }

    // ---------------------------------------------------------------------- settle

    /// Settle a running run with its status and reads, then apply clause 7's bound to its
    /// agent.
    ///
    /// Errors: `INVALID_STATE` for an id the registry does not hold or a run that is not
    /// the chain's running one.
    pub fn settle(&mut self, input: &SettleDelegation) -> Result<SettledDelegation> {
        let id = input.delegation_id.trim().to_string();
        let Some(key) = self.key_of(&id).cloned() else {
            return Err(Error::InvalidState {
                message: format!("cannot settle delegation {id}: the registry does not hold it"),
            });
        };
        let Some(chain) = self.chains.get(&key) else {
            return Err(vanished(&id));
        };
        let run_index = chain.runs.len().saturating_sub(1);
        let Some(run) = chain.latest().filter(|r| r.delegation_id == id) else {
            return Err(Error::InvalidState {
                message: format!("cannot settle delegation {id}: a later run of its chain exists"),
            });
        };
        if !run.status.is_running() {
            return Err(Error::InvalidState {
                message: format!(
                    "cannot settle delegation {id}: it is not running (status {})",
                    run.status.as_text().unwrap_or("none")
                ),
            });
        }
        let run_rows = input.rows.as_deref().map(|rows| {
            select_chain_rows(
                rows,
                &ChainSelector {
                    tool_call_ids: vec![run.tool_call_id.clone()],
                    agent: chain.agent.clone(),
                },
            )
        });
        let reads = match (&input.reads, &run_rows) {
            (Some(reads), _) => reads.clone(),
            (None, Some(run_rows)) => count_chain_reads(run_rows),
            (None, None) => ChainReads::default(),
        };
        let replayable = run_rows
            .as_deref()
            .map(|run_rows| replays_anything(run_rows, &chain.brief));
        let at = self.bump();
        let evicted = self.finish_run(
            &key,
            run_index,
            RunStatus::Settled(input.status),
            &reads,
            replayable,
            at,
        );
        Ok(SettledDelegation {
            delegation_id: id,
            status: input.status,
            resumable: self.chains.get(&key).is_some_and(Chain::is_reusable),
            evicted,
        })
    }

    // ---------------------------------------------------------------------- clause 12

    /// Replay a rebuild's events (clause 12) through the live transitions.
    fn replay(&mut self, plan: RebuildPlan) {
        let RebuildPlan {
            chains,
            events,
            mut skips,
        } = plan;
        for timed in events {
            let at = timed.at as u64;
            match timed.event {
                Event::Start { chain, run } => {
                    let Some(rebuilt) = chains.get(chain) else {
                        continue;
                    };
                    let Some(started) = rebuilt.runs.get(run) else {
                        continue;
                    };
                    let new_run = Run {
                        delegation_id: started.delegation_id.clone(),
                        tool_call_id: started.tool_call_id.clone(),
                        task: started.task.clone(),
                        description: started.description.clone(),
                        status: RunStatus::Running,
                        replayable: None,
                    };
                    if run == 0 {
                        self.open_chain(Chain {
                            key: rebuilt.key.clone(),
                            agent: rebuilt.agent.clone(),
                            brief: rebuilt.brief.clone(),
                            runs: vec![new_run],
                            objective: started.objective.clone(),
                            reads: ChainReads::default(),
                            last_active: at,
                            model: ModelBinding {
                                key: None,
                                model_id: started.model_id.clone(),
                            },
                            definition: None,
                        });
                        continue;
                    }
                    if !self.chains.contains_key(&rebuilt.key) {
                        skips.push(RebuildSkip {
                            index: started.last_index,
                            tool_call_id: started.tool_call_id.clone(),
                            reason: RebuildSkipReason::ParentGone,
                        });
                        continue;
                    }
                    self.begin_run(&rebuilt.key, new_run, at);
                    if let Some(chain) = self.chains.get_mut(&rebuilt.key) {
                        if !started.objective.is_empty() {
                            chain.objective = started.objective.clone();
                        }
                        chain.model.model_id = started.model_id.clone();
                    }
                }
                Event::Settle { chain, run } => {
                    let Some(rebuilt) = chains.get(chain) else {
                        continue;
                    };
                    let Some(settled) = rebuilt.runs.get(run) else {
                        continue;
                    };
                    let Some(run_index) = self.chains.get(&rebuilt.key).and_then(|held| {
                        held.runs
                            .iter()
                            .position(|r| r.delegation_id == settled.delegation_id)
                    }) else {
                        continue; // its chain is gone (a resume the replay skipped)
                    };
                    self.finish_run(
                        &rebuilt.key,
                        run_index,
                        settled.status.clone(),
                        &settled.reads,
                        Some(settled.replays_anything),
                        at,
                    );
                }
                Event::NoHistory { resume } => {
                    if let Some(key) = self.key_of(&resume).cloned() {
                        if self.chains.get(&key).is_some_and(Chain::is_known_empty) {
                            self.drop_chain(&key);
                        }
                    }
                }
            }
        }
        crate::order::sort_by_key(&mut skips, |skip| skip.index);
        self.rebuild_skips = skips;
    }

    // ---------------------------------------------------------------------- transitions

    fn bump(&mut self) -> u64 {
        let now = self.tick;
        self.tick += 1;
        now
    }

    fn fresh_id(&mut self) -> Result<String> {
        for _ in 0..8 {
            let id = (self.ids)()?;
            let id = id.trim().to_string();
            if !id.is_empty()
                && !self.by_delegation.contains_key(&id)
                && !self.chains.contains_key(&id)
            {
                return Ok(id);
            }
        }
        Err(Error::InvalidState {
            message: "the id source keeps returning ids already in use".into(),
        })
    }

    /// A fresh id that is not `other` (a chain key besides its first delegationId).
    fn fresh_id_besides(&mut self, other: &str) -> Result<String> {
        for _ in 0..2 {
            let id = self.fresh_id()?;
            if id != other {
                return Ok(id);
            }
        }
        Err(Error::InvalidState {
            message: "the id source keeps returning the same id".into(),
        })
    }

    /// A new chain, its first run running.
    fn open_chain(&mut self, chain: Chain) {
        for run in &chain.runs {
            self.by_delegation
                .insert(run.delegation_id.clone(), chain.key.clone());
            self.by_tool_call
                .insert(run.tool_call_id.clone(), chain.key.clone());
        }
        self.tick = self.tick.max(chain.last_active.saturating_add(1));
        self.chains.insert(chain.key.clone(), chain);
    }

    /// The next run of the chain `key` starts: the chain runs again and leaves its
    /// agent's settled group.
    fn begin_run(&mut self, key: &str, run: Run, at: u64) {
        let Some(chain) = self.chains.get_mut(key) else {
            return;
        };
        self.by_delegation
            .insert(run.delegation_id.clone(), key.to_string());
        self.by_tool_call
            .insert(run.tool_call_id.clone(), key.to_string());
        chain.runs.push(run);
        chain.last_active = chain.last_active.max(at);
        self.tick = self.tick.max(at.saturating_add(1));
        let agent = chain.agent.clone();
        self.leave_settled_group(key, &agent);
    }

    /// Run `run_index` of the chain `key` settles with `status`: its reads join the
    /// chain's, and once the chain's latest run has settled the chain joins its agent's
    /// settled group and the bound applies. Returns the evicted delegationIds.
    fn finish_run(
        &mut self,
        key: &str,
        run_index: usize,
        status: RunStatus,
        reads: &ChainReads,
        replayable: Option<bool>,
        at: u64,
    ) -> Vec<String> {
        let Some(chain) = self.chains.get_mut(key) else {
            return Vec::new();
        };
        if let Some(run) = chain.runs.get_mut(run_index) {
            run.status = status;
            if replayable.is_some() {
                run.replayable = replayable;
            }
        }
        chain.reads.merge(reads);
        chain.last_active = chain.last_active.max(at);
        self.tick = self.tick.max(at.saturating_add(1));
        if chain.is_running() {
            return Vec::new();
        }
        let agent = chain.agent.clone();
        let group = self.settled_by_agent.entry(agent.clone()).or_default();
        if !group.iter().any(|k| k == key) {
            group.push(key.to_string());
        }
        self.enforce_bound(&agent)
    }

    /// Clause 7 for one agent: keep the most recently used
    /// [`MAX_RESUMABLE_CHAINS_PER_AGENT`] reusable chains and as many that cannot be
    /// resumed; drop the rest. Returns the dropped delegationIds.
    fn enforce_bound(&mut self, agent: &str) -> Vec<String> {
        let Some(group) = self.settled_by_agent.get(agent) else {
            return Vec::new();
        };
        self.last_bound_check = group.len();
        let mut reusable: Vec<(u64, &str)> = Vec::new();
        let mut not_reusable: Vec<(u64, &str)> = Vec::new();
        for key in group {
            let Some(chain) = self.chains.get(key) else {
                continue;
            };
            match chain.standing() {
                Some(Standing::Reusable) => reusable.push((chain.last_active, key)),
                Some(Standing::NotReusable) => not_reusable.push((chain.last_active, key)),
                None => {}
            }
        }
        let mut doomed: Vec<String> = Vec::new();
        for group in [&mut reusable, &mut not_reusable] {
            // most recently used first; the key breaks ties deterministically
            crate::order::sort_by_key(group, |&(last_active, key)| (Reverse(last_active), key));
            doomed.extend(
                group
                    .iter()
                    .skip(MAX_RESUMABLE_CHAINS_PER_AGENT)
                    .map(|(_, key)| key.to_string()),
            );
        }
        doomed.iter().flat_map(|key| self.drop_chain(key)).collect()
    }

    /// The chain `key` leaves the registry with every reverse-map entry. Returns its
    /// delegationIds.
    fn drop_chain(&mut self, key: &str) -> Vec<String> {
        let Some(chain) = self.chains.remove(key) else {
            return Vec::new();
        };
        self.leave_settled_group(key, &chain.agent);
        chain
            .runs
            .into_iter()
            .map(|run| {
                self.by_delegation.remove(&run.delegation_id);
                self.by_tool_call.remove(&run.tool_call_id);
                run.delegation_id
            })
            .collect()
    }

    fn leave_settled_group(&mut self, key: &str, agent: &str) {
        if let Some(group) = self.settled_by_agent.get_mut(agent) {
            group.retain(|k| k != key);
            if group.is_empty() {
                self.settled_by_agent.remove(agent);
            }
        }
    }
}

/// Clauses 4 and 11: what a resume records in the delegation's lifecycle details.
fn resume_diagnostics(
    chain: &Chain,
    target: &ResumeTarget,
    model_changed_from: Option<&str>,
    binding: &ModelBinding,
    definition: Option<&str>,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    if let Some(old) = model_changed_from {
        diagnostics.push(Diagnostic {
            code: DiagnosticCode::ModelChanged,
            message: wording::model_changed(old, &binding.label()),
        });
    }
    if let (Some(old), Some(new)) = (chain.definition.as_deref(), definition) {
        if old != new {
            diagnostics.push(Diagnostic {
                code: DiagnosticCode::DefinitionChanged,
                message: wording::definition_changed(
                    &target.agent,
                    &target.latest_delegation_id,
                    old,
                    new,
                ),
            });
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delegation::types::SettleStatus;

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
