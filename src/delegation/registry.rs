//! ADR 0279 clauses 1, 2, 4–9 and 11: the registry of resumable chains, a plain Rust
//! struct kept across calls (the wasm class `DelegationRegistry` wraps it).
//!
//! - Clause 1: a chain has an internal key (a random UUID, or the root's delegationId
//!   after a rebuild) that no output of this module contains; every delegationId issued
//!   on a live chain maps back to it, so a middle id resolves too.
//! - Clause 2: a chain is its ordered Task calls; reads live on the chain.
//! - Clause 4: [`Registry::validate_resume`] checks, in this order: unknown or evicted
//!   id → `UNKNOWN_DELEGATION` (with the resumable list); latest run still running →
//!   `DELEGATION_RUNNING`; latest run stopped / aborted / interrupted / an unknown status
//!   → `NOT_RESUMABLE`; `Task.agent` differs → `AGENT_MISMATCH`; `Task.model` given →
//!   `MODEL_ON_RESUME`; over the read budget → `READ_BUDGET_EXCEEDED`; nothing to replay →
//!   `NO_HISTORY`. Model binding on resume: [`super::binding`].
//! - Clause 5: resumable = latest status `completed`, `failed`, `timed_out` (treated as
//!   failed), or none recorded (a rebuilt row trusted as settled).
//! - Clause 6: one live run per chain: a resume while it runs is rejected, never queued.
//! - Clause 7: at most [`MAX_RESUMABLE_CHAINS_PER_AGENT`] settled chains per agent; when
//!   a delegation settles, the least recently used ones go, with every reverse-map
//!   entry. A chain whose latest run is running is never evicted and not counted. The
//!   bound counts every settled chain of the agent (also stopped or over-budget ones, so
//!   memory stays bounded and a stopped id still answers `NOT_RESUMABLE` while kept).
//!   This reading ("reusable" = settled, as opposed to live) keeps a rebuild from the
//!   transcript equal to the live registry; a stopped run can therefore push out an
//!   older resumable chain of the same agent.
//! - Clause 8: reads are added at settle; a chain over
//!   [`MAX_RESUMABLE_READ_LINES`] leaves the list (checked when the list is built).
//! - Clause 9: [`Registry::resumable_list`] / [`Registry::resumable_prompt`].
//! - Clause 11: a changed definition fingerprint on resume is applied and reported as a
//!   `DEFINITION_CHANGED` diagnostic.
//!
//! Recency ("LRU", and the list's "newest activity first"): a counter bumped on every
//! start (new or resumed) and every settle; a validation does not bump it. After a
//! rebuild the counter is the transcript position of a chain's latest Task row copy.
//!
//! No history (clause 4, last row): whether a run left anything to replay is learnt from
//! rows given to `settle` or `validate_resume` (or the transcript, after a rebuild). A
//! chain known to have nothing (or no brief) is never listed and answers `NO_HISTORY`;
//! it is not removed at once, so its id keeps giving that answer until LRU evicts it.
//!
//! Every method validates before it mutates: an error leaves the registry unchanged,
//! except `NO_HISTORY`, which records that the chain has nothing to replay.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::binding::{resolve_resume_binding, BindingCandidates};
use super::history::{
    chain_rows_to_messages, count_chain_reads, select_chain_rows, ChainReads, ChainSelector,
    ProviderBinding,
};
use super::prompt::format_resumable_list;
use super::rebuild::RebuildSkip;
use super::seed::is_only_text;
use super::{MAX_RESUMABLE_CHAINS_PER_AGENT, MAX_RESUMABLE_READ_LINES};
use crate::error::{Error, Result};
use crate::transcript::{normalize_agent_name, UiMessage};

/// A source of fresh ids (delegationIds and internal chain keys).
pub type IdSource = Box<dyn FnMut() -> Result<String>>;

/// A random UUID v4 (`getrandom`), lower-case hex.
pub fn random_uuid_v4() -> Result<String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| Error::InvalidState {
        message: format!("no randomness available for a delegation id: {e}"),
    })?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    ))
}

/// The model binding a run used: the `providerId/modelId` key and/or the model id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ModelBinding {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_id: Option<String>,
}

impl ModelBinding {
    fn model_id_or_key(&self) -> Option<String> {
        self.model_id.clone().or_else(|| {
            self.key
                .as_deref()
                .and_then(super::binding::split_key)
                .map(|(_, m)| m.to_string())
        })
    }
}

/// What the host resolves a resumed run's model among (clause 4).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResumeCandidates {
    /// Keys the run may use now, in the host's priority order.
    #[serde(default)]
    pub allowed: Vec<String>,
    /// The key the agent definition resolves to now.
    pub definition_binding: String,
}

/// A Task call as the host knows it when the tool runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StartDelegation {
    /// The Task call's id (child rows carry it as `parentToolCallId`).
    pub tool_call_id: String,
    /// `Task.agent` (normalised: `Explorer` and `explorer.md` are `explorer`).
    pub agent: String,
    /// `Task.task`, the brief of this run.
    pub task: String,
    /// `Task.description`, the 3–6 word label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub description: Option<String>,
    /// `Task.model` as the model passed it (rejected on a resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model: Option<String>,
    /// `Task.resume`: any delegationId of the chain to continue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub resume: Option<String>,
    /// The binding the host resolved for a new run (recorded for later resumes). On a
    /// resume without `candidates`, a binding the host resolved itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub binding: Option<ModelBinding>,
    /// On a resume: what the binding is resolved among (see `resolveResumeBinding`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub candidates: Option<ResumeCandidates>,
    /// A fingerprint (hash, version) of the agent definition, for clause 11.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub definition: Option<String>,
}

/// Something the host records in the delegation's lifecycle details.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// `MODEL_CHANGED` or `DEFINITION_CHANGED`.
    pub code: String,
    pub message: String,
}

/// The result of [`Registry::start`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StartedDelegation {
    /// The new run's id (a random UUID).
    pub delegation_id: String,
    /// The normalised agent name.
    pub agent: String,
    /// Every Task call of the chain, this one last (for `selectChainRows`).
    pub tool_call_ids: Vec<String>,
    /// The chain's original task (the seed's first message).
    pub brief: String,
    /// On a resume: the chain's previous latest delegationId.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub resumed_from: Option<String>,
    /// The binding the run uses (on a resume: the chain's own, clause 4).
    pub model_binding: ModelBinding,
    /// The previous model id, when a resume could not keep the chain's binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_changed_from: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "snake_case")]
pub enum SettleStatus {
    Completed,
    Failed,
    Aborted,
    Stopped,
    TimedOut,
    Interrupted,
}

impl SettleStatus {
    /// The status string (`timed_out`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SettleStatus::Completed => "completed",
            SettleStatus::Failed => "failed",
            SettleStatus::Aborted => "aborted",
            SettleStatus::Stopped => "stopped",
            SettleStatus::TimedOut => "timed_out",
            SettleStatus::Interrupted => "interrupted",
        }
    }
}

/// Input of [`Registry::settle`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SettleDelegation {
    pub delegation_id: String,
    pub status: SettleStatus,
    /// The run's reads (`countChainReads` of its rows). Wins over `rows` for reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reads: Option<ChainReads>,
    /// The run's rows (or any rows including them): reads are counted from them when
    /// `reads` is absent, and they tell whether the run left anything to replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub rows: Option<Vec<UiMessage>>,
}

/// The result of [`Registry::settle`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SettledDelegation {
    pub delegation_id: String,
    pub status: String,
    /// Whether the chain is now in the resumable list.
    pub resumable: bool,
    /// delegationIds that left the registry by LRU eviction (clause 7).
    pub evicted: Vec<String>,
}

/// A resume as the Task tool receives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResumeRequest {
    /// `Task.resume`.
    pub delegation_id: String,
    /// `Task.agent`.
    pub agent: String,
    /// `Task.model` (must be absent on a resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model: Option<String>,
}

/// What a valid resume continues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResumeTarget {
    /// The id that was asked for (any id on the chain).
    pub delegation_id: String,
    /// The chain's latest run.
    pub latest_delegation_id: String,
    pub agent: String,
    /// The chain's original task.
    pub brief: String,
    pub objective: String,
    /// Every Task call of the chain, oldest first (for `selectChainRows`).
    pub tool_call_ids: Vec<String>,
    /// The latest run's status (`null`: a rebuilt row that recorded none).
    pub status: Option<String>,
    pub reads: ChainReads,
    /// The binding the chain recorded (after a rebuild only the model id).
    pub recorded_model: ModelBinding,
}

/// One entry of the resumable list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResumableChain {
    pub agent: String,
    /// The chain's latest delegationId (the one the prompt lists).
    pub delegation_id: String,
    /// The latest run's label (may be empty: listed as "(no label)").
    pub objective: String,
    /// Every file the chain read, first-seen order (the prompt shows 8).
    pub files: Vec<String>,
    pub read_lines: u64,
    pub status: Option<String>,
}

/// A chain as [`Registry::resolve`] shows it (no internal key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainInfo {
    pub agent: String,
    pub delegation_ids: Vec<String>,
    pub tool_call_ids: Vec<String>,
    pub latest_delegation_id: String,
    /// `running`, a settled status, or `null` (rebuilt, none recorded).
    pub status: Option<String>,
    pub brief: String,
    pub objective: String,
    pub reads: ChainReads,
    /// Whether the chain is in the resumable list now.
    pub resumable: bool,
}

/// One Task call of a chain.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    pub delegation_id: String,
    pub tool_call_id: String,
    pub task: String,
    pub description: Option<String>,
    /// `running`, a settled status, or `None` (rebuilt, none recorded: settled).
    pub status: Option<String>,
    /// Whether this run's rows convert to at least one message (`None`: unknown).
    pub replayable: Option<bool>,
}

/// One chain (clause 2).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Chain {
    pub key: String,
    pub agent: String,
    pub brief: String,
    pub runs: Vec<Run>,
    pub objective: String,
    pub reads: ChainReads,
    pub last_active: u64,
    pub model: ModelBinding,
    pub definition: Option<String>,
}

pub(crate) fn status_is_resumable(status: Option<&str>) -> bool {
    matches!(status, None | Some("completed" | "failed" | "timed_out"))
}

impl Chain {
    fn latest(&self) -> Option<&Run> {
        self.runs.last()
    }
    fn latest_id(&self) -> &str {
        self.latest().map_or("", |r| r.delegation_id.as_str())
    }
    fn latest_status(&self) -> Option<&str> {
        self.latest().and_then(|r| r.status.as_deref())
    }
    fn is_running(&self) -> bool {
        self.latest_status() == Some("running")
    }
    /// Known to have nothing to replay (or no brief to seed with).
    fn known_empty(&self) -> bool {
        self.brief.is_empty() || self.runs.iter().all(|r| r.replayable == Some(false))
    }
    fn is_listed(&self) -> bool {
        !self.is_running()
            && status_is_resumable(self.latest_status())
            && self.reads.lines <= MAX_RESUMABLE_READ_LINES
            && !self.known_empty()
    }
    pub(crate) fn selector(&self) -> ChainSelector {
        ChainSelector {
            tool_call_ids: self.runs.iter().map(|r| r.tool_call_id.clone()).collect(),
            agent: self.agent.clone(),
        }
    }
    fn entry(&self) -> ResumableChain {
        ResumableChain {
            agent: self.agent.clone(),
            delegation_id: self.latest_id().to_string(),
            objective: self.objective.clone(),
            files: self.reads.files.clone(),
            read_lines: self.reads.lines,
            status: self.latest_status().map(str::to_string),
        }
    }
}

/// Whether a run's rows (selected from `rows`) convert to at least one message.
pub(crate) fn run_replayable(
    rows: &[UiMessage],
    tool_call_id: &str,
    agent: &str,
    brief: &str,
) -> bool {
    let sel = select_chain_rows(
        rows,
        &ChainSelector {
            tool_call_ids: vec![tool_call_id.to_string()],
            agent: agent.to_string(),
        },
    );
    let probe = ProviderBinding {
        provider: String::new(),
        model: String::new(),
        api: None,
        thinking_signature: None,
    };
    // What a seed would replay: the converted rows minus an echo of the brief (the
    // brief itself is always seeded, so a run that left only its echo left nothing).
    chain_rows_to_messages(&sel, &probe)
        .iter()
        .any(|m| !is_only_text(m, brief.trim()))
}

/// The registry of resumable chains (see the module docs).
pub struct Registry {
    chains: BTreeMap<String, Chain>,
    by_delegation: HashMap<String, String>,
    by_tool_call: HashMap<String, String>,
    tick: u64,
    ids: IdSource,
    rebuild_skips: Vec<RebuildSkip>,
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

fn trimmed(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl Registry {
    /// An empty registry issuing random UUID v4 ids.
    pub fn new() -> Self {
        Self::with_id_source(Box::new(random_uuid_v4))
    }

    /// An empty registry issuing ids from `ids` (deterministic tests).
    pub fn with_id_source(ids: IdSource) -> Self {
        Registry {
            chains: BTreeMap::new(),
            by_delegation: HashMap::new(),
            by_tool_call: HashMap::new(),
            tick: 0,
            ids,
            rebuild_skips: Vec::new(),
        }
    }

    /// Number of chains held (listed or not).
    pub fn chain_count(&self) -> usize {
        self.chains.len()
    }

    /// Task rows the last rebuild skipped, and why.
    pub fn rebuild_skips(&self) -> &[RebuildSkip] {
        &self.rebuild_skips
    }

    pub(crate) fn set_rebuild_skips(&mut self, skips: Vec<RebuildSkip>) {
        self.rebuild_skips = skips;
    }

    /// Install a chain built elsewhere (the rebuild); its ids must be new.
    pub(crate) fn install(&mut self, chain: Chain) {
        for r in &chain.runs {
            self.by_delegation
                .insert(r.delegation_id.clone(), chain.key.clone());
            self.by_tool_call
                .insert(r.tool_call_id.clone(), chain.key.clone());
        }
        self.tick = self.tick.max(chain.last_active.saturating_add(1));
        self.chains.insert(chain.key.clone(), chain);
    }

    pub(crate) fn chain_of(&self, delegation_id: &str) -> Option<&Chain> {
        self.chains
            .get(self.by_delegation.get(delegation_id.trim())?)
    }

    fn bump(&mut self) -> u64 {
        let t = self.tick;
        self.tick += 1;
        t
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

    /// The resumable chains, newest activity first (clause 9).
    pub fn resumable_list(&self) -> Vec<ResumableChain> {
        let mut listed: Vec<&Chain> = self.chains.values().filter(|c| c.is_listed()).collect();
        listed.sort_by(|a, b| b.last_active.cmp(&a.last_active).then(a.key.cmp(&b.key)));
        listed.into_iter().map(Chain::entry).collect()
    }

    /// The resumable list block for the parent's system prompt; `""` when empty.
    pub fn resumable_prompt(&self) -> String {
        format_resumable_list(&self.resumable_list())
    }

    /// The unknown-id hint: `Reusable: agent / id, ...` and the listed ids.
    pub(crate) fn listing(&self) -> (String, Vec<String>) {
        let list = self.resumable_list();
        let ids: Vec<String> = list.iter().map(|c| c.delegation_id.clone()).collect();
        let text = if list.is_empty() {
            "No reusable subagent sessions in this conversation.".to_string()
        } else {
            let pairs: Vec<String> = list
                .iter()
                .map(|c| format!("{} / {}", c.agent, c.delegation_id))
                .collect();
            format!("Reusable: {}.", pairs.join(", "))
        };
        (text, ids)
    }

    /// The chain `delegation_id` belongs to, if the registry holds it.
    pub fn resolve(&self, delegation_id: &str) -> Option<ChainInfo> {
        let c = self.chain_of(delegation_id)?;
        Some(ChainInfo {
            agent: c.agent.clone(),
            delegation_ids: c.runs.iter().map(|r| r.delegation_id.clone()).collect(),
            tool_call_ids: c.runs.iter().map(|r| r.tool_call_id.clone()).collect(),
            latest_delegation_id: c.latest_id().to_string(),
            status: c.latest_status().map(str::to_string),
            brief: c.brief.clone(),
            objective: c.objective.clone(),
            reads: c.reads.clone(),
            resumable: c.is_listed(),
        })
    }

    /// Clause 4: every check a resume must pass, in the module docs' order.
    ///
    /// `rows` (the session transcript, or at least the chain's rows) make the
    /// `NO_HISTORY` check exact; without them only what settle / rebuild learnt is used.
    /// `NO_HISTORY` records that the chain has nothing to replay: it is never listed
    /// again.
    pub fn validate_resume(
        &mut self,
        req: &ResumeRequest,
        rows: Option<&[UiMessage]>,
    ) -> Result<ResumeTarget> {
        let id = req.delegation_id.trim().to_string();
        let Some(chain) = self.chain_of(&id) else {
            let (listing, resumable) = self.listing();
            return Err(Error::UnknownDelegation {
                id,
                listing,
                resumable,
            });
        };
        let latest = chain.latest_id().to_string();
        if chain.is_running() {
            return Err(Error::DelegationRunning { id: latest });
        }
        let status = chain.latest_status().map(str::to_string);
        if !status_is_resumable(status.as_deref()) {
            let s = status.unwrap_or_default();
            let message = match s.as_str() {
                "stopped" | "aborted" => format!(
                    "Delegation {latest} was {s} and is not resumable; start a new delegation."
                ),
                "interrupted" => format!(
                    "Delegation {latest} was interrupted (the app closed while it ran) and is not resumable; start a new delegation."
                ),
                other => format!(
                    "Delegation {latest} ended with status \"{other}\" and is not resumable; start a new delegation."
                ),
            };
            return Err(Error::NotResumable {
                id: latest,
                status: s,
                message,
            });
        }
        let agent = normalize_agent_name(&req.agent);
        if agent != chain.agent {
            let (listing, _) = self.listing();
            let message = format!(
                "Delegation {id} belongs to agent \"{}\", not \"{agent}\": resume it with agent \"{}\" or start a new delegation. {listing}",
                chain.agent, chain.agent
            );
            return Err(Error::AgentMismatch {
                id,
                expected: chain.agent.clone(),
                actual: agent,
                message,
            });
        }
        if trimmed(req.model.as_deref()).is_some() {
            return Err(Error::ModelOnResume { id });
        }
        if chain.reads.lines > MAX_RESUMABLE_READ_LINES {
            return Err(Error::ReadBudgetExceeded {
                id,
                lines: chain.reads.lines,
            });
        }
        let key = chain.key.clone();
        if let Some(rows) = rows {
            let replayable: Vec<bool> = chain
                .runs
                .iter()
                .map(|r| run_replayable(rows, &r.tool_call_id, &chain.agent, &chain.brief))
                .collect();
            if let Some(c) = self.chains.get_mut(&key) {
                for (r, ok) in c.runs.iter_mut().zip(replayable) {
                    r.replayable = Some(ok);
                }
            }
        }
        let Some(chain) = self.chains.get(&key) else {
            return Err(Error::InvalidState {
                message: format!("delegation {id} lost its chain"),
            });
        };
        if chain.known_empty() {
            return Err(Error::NoHistory { id });
        }
        Ok(ResumeTarget {
            delegation_id: id,
            latest_delegation_id: latest,
            agent: chain.agent.clone(),
            brief: chain.brief.clone(),
            objective: chain.objective.clone(),
            tool_call_ids: chain.runs.iter().map(|r| r.tool_call_id.clone()).collect(),
            status,
            reads: chain.reads.clone(),
            recorded_model: chain.model.clone(),
        })
    }

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
        let tool_call_id = trimmed(Some(&input.tool_call_id))
            .ok_or_else(|| Error::invalid("input.toolCallId", "must not be blank"))?;
        let agent = normalize_agent_name(&input.agent);
        if agent.is_empty() {
            return Err(Error::invalid("input.agent", "must not be blank"));
        }
        let task = trimmed(Some(&input.task))
            .ok_or_else(|| Error::invalid("input.task", "must not be blank"))?;
        if let Some(key) = self.by_tool_call.get(&tool_call_id) {
            let existing = self
                .chains
                .get(key)
                .and_then(|c| c.runs.iter().find(|r| r.tool_call_id == tool_call_id))
                .map_or("", |r| r.delegation_id.as_str());
            return Err(Error::InvalidState {
                message: format!("Task call {tool_call_id} already started delegation {existing}"),
            });
        }
        let description = trimmed(input.description.as_deref());
        let objective = description.clone().unwrap_or_else(|| task.clone());
        let run = |delegation_id: String| Run {
            delegation_id,
            tool_call_id: tool_call_id.clone(),
            task: task.clone(),
            description: description.clone(),
            status: Some("running".into()),
            replayable: None,
        };

        let Some(resume) = trimmed(input.resume.as_deref()) else {
            // A new chain.
            let delegation_id = self.fresh_id()?;
            let mut key = self.fresh_id()?;
            if key == delegation_id {
                key = self.fresh_id()?;
                if key == delegation_id {
                    return Err(Error::InvalidState {
                        message: "the id source keeps returning the same id".into(),
                    });
                }
            }
            let binding = input.binding.clone().unwrap_or_default();
            let last_active = self.bump();
            let chain = Chain {
                key: key.clone(),
                agent: agent.clone(),
                brief: task.clone(),
                runs: vec![run(delegation_id.clone())],
                objective,
                reads: ChainReads::default(),
                last_active,
                model: binding.clone(),
                definition: trimmed(input.definition.as_deref()),
            };
            self.by_delegation
                .insert(delegation_id.clone(), key.clone());
            self.by_tool_call.insert(tool_call_id.clone(), key.clone());
            self.chains.insert(key, chain);
            return Ok(StartedDelegation {
                delegation_id,
                agent,
                tool_call_ids: vec![tool_call_id],
                brief: task,
                resumed_from: None,
                model_binding: binding,
                model_changed_from: None,
                diagnostics: Vec::new(),
            });
        };

        // A resume: validate, resolve the binding, then mutate.
        let target = self.validate_resume(
            &ResumeRequest {
                delegation_id: resume,
                agent: input.agent.clone(),
                model: input.model.clone(),
            },
            rows,
        )?;
        let Some(key) = self
            .by_delegation
            .get(&target.latest_delegation_id)
            .cloned()
        else {
            return Err(Error::InvalidState {
                message: "validated chain vanished".into(),
            });
        };
        let (recorded, recorded_def) = match self.chains.get(&key) {
            Some(c) => (c.model.clone(), c.definition.clone()),
            None => {
                return Err(Error::InvalidState {
                    message: "validated chain vanished".into(),
                })
            }
        };
        let recorded_id = recorded.model_id_or_key();
        let (binding, changed) = if let Some(c) = &input.candidates {
            let r = resolve_resume_binding(&BindingCandidates {
                recorded_key: recorded.key.clone(),
                recorded_model_id: recorded.model_id.clone(),
                allowed: c.allowed.clone(),
                definition_binding: c.definition_binding.clone(),
            })?;
            (
                ModelBinding {
                    key: Some(r.key),
                    model_id: Some(r.model_id),
                },
                r.model_changed_from,
            )
        } else if let Some(b) = &input.binding {
            let new_id = b.model_id_or_key();
            let changed = match (&recorded_id, &new_id) {
                (Some(old), Some(new)) if old != new => Some(old.clone()),
                _ => None,
            };
            (b.clone(), changed)
        } else {
            (recorded.clone(), None)
        };
        let mut diagnostics = Vec::new();
        if let Some(old) = &changed {
            let now = binding
                .key
                .clone()
                .or_else(|| binding.model_id.clone())
                .unwrap_or_default();
            diagnostics.push(Diagnostic {
                code: "MODEL_CHANGED".into(),
                message: format!(
                    "The chain's model \"{old}\" is no longer available; this run continues on \"{now}\" (modelChangedFrom: {old})."
                ),
            });
        }
        let definition = trimmed(input.definition.as_deref());
        if let (Some(old), Some(new)) = (&recorded_def, &definition) {
            if old != new {
                diagnostics.push(Diagnostic {
                    code: "DEFINITION_CHANGED".into(),
                    message: format!(
                        "The definition of agent \"{}\" changed since delegation {} ({old} → {new}); the current definition applies.",
                        target.agent, target.latest_delegation_id
                    ),
                });
            }
        }
        let delegation_id = self.fresh_id()?;
        let last_active = self.bump();
        let Some(chain) = self.chains.get_mut(&key) else {
            return Err(Error::InvalidState {
                message: "validated chain vanished".into(),
            });
        };
        chain.runs.push(run(delegation_id.clone()));
        chain.objective = objective;
        chain.last_active = last_active;
        chain.model = binding.clone();
        if definition.is_some() {
            chain.definition = definition;
        }
        let tool_call_ids = chain.runs.iter().map(|r| r.tool_call_id.clone()).collect();
        let brief = chain.brief.clone();
        self.by_delegation
            .insert(delegation_id.clone(), key.clone());
        self.by_tool_call.insert(tool_call_id, key);
        Ok(StartedDelegation {
            delegation_id,
            agent,
            tool_call_ids,
            brief,
            resumed_from: Some(target.latest_delegation_id),
            model_binding: binding,
            model_changed_from: changed,
            diagnostics,
        })
    }

    /// Settle a running run with its status and reads, then evict (clause 7).
    ///
    /// Errors: `INVALID_STATE` for an id the registry does not hold or a run that is not
    /// the chain's running one.
    pub fn settle(&mut self, input: &SettleDelegation) -> Result<SettledDelegation> {
        let id = input.delegation_id.trim().to_string();
        let Some(key) = self.by_delegation.get(&id).cloned() else {
            return Err(Error::InvalidState {
                message: format!("cannot settle delegation {id}: the registry does not hold it"),
            });
        };
        let Some(chain) = self.chains.get(&key) else {
            return Err(Error::InvalidState {
                message: format!("cannot settle delegation {id}: its chain is gone"),
            });
        };
        let Some(run) = chain.latest().filter(|r| r.delegation_id == id) else {
            return Err(Error::InvalidState {
                message: format!("cannot settle delegation {id}: a later run of its chain exists"),
            });
        };
        if run.status.as_deref() != Some("running") {
            return Err(Error::InvalidState {
                message: format!(
                    "cannot settle delegation {id}: it is not running (status {})",
                    run.status.as_deref().unwrap_or("none")
                ),
            });
        }
        let selected = input.rows.as_deref().map(|rows| {
            select_chain_rows(
                rows,
                &ChainSelector {
                    tool_call_ids: vec![run.tool_call_id.clone()],
                    agent: chain.agent.clone(),
                },
            )
        });
        let reads = match (&input.reads, &selected) {
            (Some(r), _) => r.clone(),
            (None, Some(rows)) => count_chain_reads(rows),
            (None, None) => ChainReads::default(),
        };
        let replayable = input
            .rows
            .as_deref()
            .map(|rows| run_replayable(rows, &run.tool_call_id, &chain.agent, &chain.brief));
        let status = input.status.as_str().to_string();
        let t = self.bump();
        if let Some(chain) = self.chains.get_mut(&key) {
            chain.reads.merge(&reads);
            chain.last_active = t;
            if let Some(run) = chain.runs.last_mut() {
                run.status = Some(status.clone());
                if replayable.is_some() {
                    run.replayable = replayable;
                }
            }
        }
        let evicted = self.evict_overflow();
        let resumable = self.chains.get(&key).is_some_and(Chain::is_listed);
        Ok(SettledDelegation {
            delegation_id: id,
            status,
            resumable,
            evicted,
        })
    }

    /// Clause 7: keep the most recently used settled chains per agent; drop the rest with
    /// every reverse-map entry. Returns the dropped delegationIds.
    pub(crate) fn evict_overflow(&mut self) -> Vec<String> {
        let mut groups: BTreeMap<&str, Vec<(u64, &str)>> = BTreeMap::new();
        for c in self.chains.values().filter(|c| !c.is_running()) {
            groups
                .entry(c.agent.as_str())
                .or_default()
                .push((c.last_active, c.key.as_str()));
        }
        let mut doomed: Vec<String> = Vec::new();
        for group in groups.values_mut() {
            group.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            doomed.extend(
                group
                    .iter()
                    .skip(MAX_RESUMABLE_CHAINS_PER_AGENT)
                    .map(|(_, k)| k.to_string()),
            );
        }
        let mut evicted = Vec::new();
        for key in doomed {
            if let Some(c) = self.chains.remove(&key) {
                for r in c.runs {
                    self.by_delegation.remove(&r.delegation_id);
                    self.by_tool_call.remove(&r.tool_call_id);
                    evicted.push(r.delegation_id);
                }
            }
        }
        evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_v4() {
        let a = random_uuid_v4().unwrap();
        let b = random_uuid_v4().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }
}
