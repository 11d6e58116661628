//! ADR 0279 clauses 1, 2, 5, 6 and 8: a run starts (a new chain or the next run of one) and
//! settles, and the transitions both go through.

use super::resume::resume_diagnostics;
use super::{vanished, Registry};
use crate::delegation::binding::bind_resumed_run;
use crate::delegation::chain::{Chain, Run};
use crate::delegation::history::{count_chain_reads, replays_anything, select_chain_rows};
use crate::delegation::text::non_blank;
use crate::delegation::types::{
    ChainReads, ChainSelector, ResumeRequest, RunStatus, SettleDelegation, SettledDelegation,
    StartDelegation, StartedDelegation,
};
use crate::error::{Error, Result};
use crate::js_whitespace;
use crate::text_build::Owned;
use crate::transcript::{normalize_agent_name, UiMessage};

impl Registry {
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
        let tool_call_id = non_blank(Some(&input.tool_call_id))
            .ok_or_else(|| Error::invalid("input.toolCallId", "must not be blank"))?;
        let agent = normalize_agent_name(&input.agent);
        if agent.is_empty() {
            return Err(Error::invalid("input.agent", "must not be blank"));
        }
        let task = non_blank(Some(&input.task))
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
        let description = non_blank(input.description.as_deref());
        let new_run = |delegation_id: String| {
            Run::started(
                delegation_id,
                tool_call_id.clone(),
                task.clone(),
                description.clone(),
            )
        };
        let objective = description.clone().unwrap_or_else(|| task.clone());
        match non_blank(input.resume.as_deref()) {
            None => {
                let delegation_id = self.fresh_id()?;
                let key = self.fresh_id_besides(&delegation_id)?;
                let binding = input.binding.clone().unwrap_or_default();
                let last_active = self.now();
                self.open_chain(Chain {
                    key,
                    agent: agent.clone(),
                    brief: task.clone(),
                    runs: vec![new_run(delegation_id.clone())],
                    objective,
                    reads: ChainReads::default(),
                    last_active,
                    model: binding.clone(),
                    definition: non_blank(input.definition.as_deref()),
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
                let definition = non_blank(input.definition.as_deref());
                let diagnostics = resume_diagnostics(
                    chain,
                    &target,
                    bound.model_changed_from.as_deref(),
                    &bound.binding,
                    definition.as_deref(),
                );
                let delegation_id = self.fresh_id()?;
                let last_active = self.now();
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
        let id = js_whitespace::trim(&input.delegation_id).owned();
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
        let at = self.now();
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

    // ---------------------------------------------------------------------- transitions

    /// The time of the next start or settle. The transition itself moves the clock past
    /// it ([`Registry::open_chain`], [`Registry::begin_run`], [`Registry::finish_run`]),
    /// as it does for a replayed event's time.
    pub(super) fn now(&self) -> u64 {
        self.tick
    }

    pub(super) fn fresh_id(&mut self) -> Result<String> {
        for _ in 0..8 {
            let id = (self.ids)()?;
            let id = js_whitespace::trim(&id).owned();
            if !id.is_empty() && !self.by_delegation.contains(&id) && !self.chains.contains(&id) {
                return Ok(id);
            }
        }
        Err(Error::InvalidState {
            message: "the id source keeps returning ids already in use".owned(),
        })
    }

    /// A fresh id that is not `other` (a chain key besides its first delegationId).
    pub(super) fn fresh_id_besides(&mut self, other: &str) -> Result<String> {
        for _ in 0..2 {
            let id = self.fresh_id()?;
            if id != other {
                return Ok(id);
            }
        }
        Err(Error::InvalidState {
            message: "the id source keeps returning the same id".owned(),
        })
    }

    /// A new chain, its first run running.
    pub(super) fn open_chain(&mut self, chain: Chain) {
        for run in &chain.runs {
            self.by_delegation
                .put(run.delegation_id.clone(), chain.key.clone());
            self.by_tool_call
                .put(run.tool_call_id.clone(), chain.key.clone());
        }
        self.tick = self.tick.max(chain.last_active.saturating_add(1));
        self.chains.put(chain.key.clone(), chain);
    }

    /// The next run of the chain `key` starts: the chain runs again and leaves its
    /// agent's settled group.
    pub(super) fn begin_run(&mut self, key: &str, run: Run, at: u64) {
        let Some(chain) = self.chains.get_mut(key) else {
            return;
        };
        self.by_delegation
            .put(run.delegation_id.clone(), key.owned());
        self.by_tool_call.put(run.tool_call_id.clone(), key.owned());
        chain.runs.push(run);
        chain.last_active = chain.last_active.max(at);
        self.tick = self.tick.max(at.saturating_add(1));
        let agent = chain.agent.clone();
        self.leave_settled_group(key, &agent);
    }

    /// Run `run_index` of the chain `key` settles with `status`: its reads join the
    /// chain's, and once the chain's latest run has settled the chain joins its agent's
    /// settled group and the bound applies. Returns the evicted delegationIds.
    pub(super) fn finish_run(
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
        let group = self.settled_by_agent.entry(agent.clone(), Vec::new);
        if !group.iter().any(|k| k == key) {
            group.push(key.owned());
        }
        self.enforce_bound(&agent)
    }
}
