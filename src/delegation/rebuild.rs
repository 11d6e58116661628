//! ADR 0279 clause 12: the registry rebuilt from the persisted transcript alone
//! (host-contract §8, "Rebuild on startup").
//!
//! Rules, in order:
//! 1. Task rows (role `tool`, tool name `Task`/`task`) are keyed by `toolCallId` (else
//!    `id`); a later copy of the same call wins (the host rewrites the row when the run
//!    settles). A call's place is its first copy's; its recency the last copy's.
//! 2. A call needs `toolResult.details.delegationId` (a rejected call has none: skipped)
//!    and an agent: `toolArgs.agent` normalised, else `details.agent` (none: skipped).
//!    Unparseable `toolArgs` are read as no arguments (agent from `details`, no task).
//! 3. Status: `details.status` with `running` → `interrupted`; none recorded:
//!    `toolStatus:"error"` → `failed`, `"running"` → `interrupted`, otherwise settled
//!    (`null`, trusted as resumable). Unknown statuses are kept and are not resumable.
//! 4. A delegationId seen on an earlier call is a duplicate: the later call is skipped.
//! 5. Runs link by `toolArgs.resume`. A resume whose parent is missing (or a rejected
//!    call), recorded under another agent, pointing at itself, or in a cycle is dropped,
//!    and so is everything that continues it. The chain key is the root's delegationId.
//! 6. A chain's runs are in transcript order; its brief is the root's `task`; its label
//!    the latest non-blank objective; its reads and "anything to replay" come from its
//!    rows; its model is the latest `details.modelId` (no key: clause 4 matches by id).
//! 7. Then the clause-7 bound applies, as after a settle.
//!
//! What a rebuild cannot know: the binding key, the definition fingerprint, and a run
//! that was still working (it becomes `interrupted`).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

use super::history::{count_chain_reads, objective_from_args, select_chain_rows, task_call_id};
use super::registry::{run_replayable, Chain, IdSource, ModelBinding, Registry, Run};
use crate::transcript::{normalize_agent_name, UiMessage};

/// A Task row the rebuild did not turn into a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RebuildSkip {
    /// Index of the row (its last copy) in the transcript.
    pub index: usize,
    pub tool_call_id: String,
    /// `NO_DELEGATION_ID`, `NO_AGENT`, `DUPLICATE_DELEGATION_ID`, `MISSING_PARENT`,
    /// `AGENT_MISMATCH`, `CYCLE`.
    pub reason: String,
}

#[derive(Clone, Debug)]
struct Call {
    tool_call_id: String,
    delegation_id: String,
    agent: String,
    resume: Option<String>,
    task: String,
    description: Option<String>,
    objective: String,
    model_id: Option<String>,
    status: Option<String>,
    last_index: usize,
}

fn s<'a>(m: Option<&'a Map<String, Value>>, k: &str) -> Option<&'a str> {
    m?.get(k)?.as_str().map(str::trim).filter(|v| !v.is_empty())
}

fn status_of(details: Option<&Map<String, Value>>, row: &UiMessage) -> Option<String> {
    if let Some(st) = s(details, "status") {
        return Some(if st == "running" { "interrupted" } else { st }.to_string());
    }
    match row.tool_status.as_deref() {
        Some("error") => Some("failed".into()),
        Some("running") => Some("interrupted".into()),
        _ => None,
    }
}

/// The chains of a transcript, with the Task rows skipped (see the module docs).
pub(crate) fn rebuild(rows: &[UiMessage]) -> (Vec<Chain>, Vec<RebuildSkip>) {
    // 1. last copy of each Task call, in first-copy order.
    let mut order: Vec<&str> = Vec::new();
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        if !row.is_task_row() {
            continue;
        }
        let id = task_call_id(row);
        if last.insert(id, i).is_none() {
            order.push(id);
        }
    }
    let mut skips = Vec::new();
    let mut skip = |index: usize, id: &str, reason: &str| {
        skips.push(RebuildSkip {
            index,
            tool_call_id: id.to_string(),
            reason: reason.into(),
        })
    };

    // 2–4. calls.
    let mut calls: Vec<Call> = Vec::new();
    let mut by_did: HashMap<String, usize> = HashMap::new();
    for id in order {
        let Some(&i) = last.get(id) else { continue };
        let row = &rows[i];
        let args = row.tool_args_object();
        let details = match &row.tool_result {
            Some(Value::Object(r)) => r.get("details").and_then(Value::as_object),
            _ => None,
        };
        let Some(delegation_id) = s(details, "delegationId") else {
            skip(i, id, "NO_DELEGATION_ID");
            continue;
        };
        let agent = s(args.as_ref(), "agent")
            .or_else(|| s(details, "agent"))
            .map(normalize_agent_name)
            .unwrap_or_default();
        if agent.is_empty() {
            skip(i, id, "NO_AGENT");
            continue;
        }
        if by_did.contains_key(delegation_id) {
            skip(i, id, "DUPLICATE_DELEGATION_ID");
            continue;
        }
        by_did.insert(delegation_id.to_string(), calls.len());
        calls.push(Call {
            tool_call_id: id.to_string(),
            delegation_id: delegation_id.to_string(),
            agent,
            resume: s(args.as_ref(), "resume").map(str::to_string),
            task: s(args.as_ref(), "task").unwrap_or_default().to_string(),
            description: s(args.as_ref(), "description").map(str::to_string),
            objective: args.as_ref().map(objective_from_args).unwrap_or_default(),
            model_id: s(details, "modelId").map(str::to_string),
            status: status_of(details, row),
            last_index: i,
        });
    }

    // 5. roots, following resume links with cycle detection.
    let mut root: Vec<Option<Result<usize, &'static str>>> = vec![None; calls.len()];
    for start in 0..calls.len() {
        let mut path: Vec<usize> = Vec::new();
        let mut cur = start;
        let outcome: Result<usize, &'static str> = loop {
            if let Some(known) = root[cur] {
                break known;
            }
            if path.contains(&cur) {
                break Err("CYCLE");
            }
            path.push(cur);
            let Some(parent) = calls[cur].resume.as_deref() else {
                break Ok(cur);
            };
            match by_did.get(parent) {
                None => break Err("MISSING_PARENT"),
                Some(&p) if p == cur => break Err("CYCLE"),
                Some(&p) if calls[p].agent != calls[cur].agent => break Err("AGENT_MISMATCH"),
                Some(&p) => cur = p,
            }
        };
        for p in path {
            root[p] = Some(outcome);
        }
    }

    // 6. chains. Rows are indexed by parentToolCallId once, so each chain reads only its own.
    let mut by_parent: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some(p) = r.parent_tool_call_id.as_deref() {
            by_parent.entry(p).or_default().push(i);
        }
    }
    let rows_of = |calls: &[&str]| -> Vec<UiMessage> {
        let mut at: Vec<usize> = calls
            .iter()
            .filter_map(|c| by_parent.get(c))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        at.into_iter().map(|i| rows[i].clone()).collect()
    };
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, r) in root.iter().enumerate() {
        match r {
            Some(Ok(rt)) => members.entry(*rt).or_default().push(i),
            Some(Err(reason)) => skip(calls[i].last_index, &calls[i].tool_call_id, reason),
            None => {}
        }
    }
    let mut chains = Vec::new();
    for (rt, idx) in members {
        let root_call = &calls[rt];
        let runs: Vec<Run> = idx
            .iter()
            .map(|&i| {
                let c = &calls[i];
                Run {
                    delegation_id: c.delegation_id.clone(),
                    tool_call_id: c.tool_call_id.clone(),
                    task: c.task.clone(),
                    description: c.description.clone(),
                    status: c.status.clone(),
                    replayable: Some(run_replayable(
                        &rows_of(&[c.tool_call_id.as_str()]),
                        &c.tool_call_id,
                        &c.agent,
                        &root_call.task,
                    )),
                }
            })
            .collect();
        let mut objective = String::new();
        for &i in &idx {
            if !calls[i].objective.is_empty() {
                objective = calls[i].objective.clone();
            }
        }
        let latest = idx.last().map_or(root_call, |&i| &calls[i]);
        let mut chain = Chain {
            key: root_call.delegation_id.clone(),
            agent: root_call.agent.clone(),
            brief: root_call.task.clone(),
            runs,
            objective,
            reads: Default::default(),
            last_active: idx
                .iter()
                .map(|&i| calls[i].last_index as u64)
                .max()
                .unwrap_or(0),
            model: ModelBinding {
                key: None,
                model_id: latest.model_id.clone(),
            },
            definition: None,
        };
        let calls: Vec<&str> = chain.runs.iter().map(|r| r.tool_call_id.as_str()).collect();
        chain.reads = count_chain_reads(&select_chain_rows(&rows_of(&calls), &chain.selector()));
        chains.push(chain);
    }
    skips.sort_by_key(|s| s.index);
    (chains, skips)
}

impl Registry {
    /// Clause 12: a registry rebuilt from the session transcript, issuing random ids.
    pub fn from_transcript(rows: &[UiMessage]) -> Self {
        Self::from_transcript_with_id_source(rows, Box::new(super::registry::random_uuid_v4))
    }

    /// [`Registry::from_transcript`] with an injected id source.
    pub fn from_transcript_with_id_source(rows: &[UiMessage], ids: IdSource) -> Self {
        let (chains, skips) = rebuild(rows);
        let mut reg = Registry::with_id_source(ids);
        for c in chains {
            reg.install(c);
        }
        reg.evict_overflow();
        reg.set_rebuild_skips(skips);
        reg
    }
}
