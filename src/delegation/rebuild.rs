//! ADR 0279 clause 12: the registry rebuilt from the persisted transcript alone
//! (host-contract §8, "Rebuild on startup").
//!
//! `plan` reads the transcript into its chains and the events that made them, in the
//! order they happened (rule 8); the registry replays those events through the same
//! transitions a live registry makes (start, settle, drop), so the per-agent bound of
//! clause 7 keeps and evicts exactly what it did live, and a rebuilt registry equals the
//! live one, however the host wrote its rows: a later copy appended at settlement, the
//! row rewritten in place (§12: "the settlement projection rewrites that row in place"),
//! or a resumed run's row stored before its parent's.
//!
//! Rules, in order:
//! 1. Task rows (role `tool`, the Task tool in any spelling) are keyed by their call id
//!    (`toolCallId`, else `id`); a later copy of the same call wins (the host rewrites
//!    the row when the run settles). A run starts at its first copy and settles at its
//!    last.
//! 2. A call needs `toolResult.details.delegationId` (a rejected call has none: skipped)
//!    and an agent: `toolArgs.agent` normalised, else `details.agent` (none: skipped).
//!    Unparseable `toolArgs` are read as no arguments (agent from `details`, no task).
//! 3. Status: `details.status` with `running` → `interrupted` (the app closed while it
//!    ran); none recorded: `toolStatus:"error"` → `failed`, `"running"` → `interrupted`,
//!    otherwise settled (`null`, trusted as resumable). Unknown statuses are kept and are
//!    not resumable.
//! 4. A delegationId seen on an earlier call is a duplicate: the later call is skipped.
//! 5. Runs link by `toolArgs.resume`. A resume whose parent is missing (or a rejected
//!    call), recorded under another agent, pointing at itself, or in a cycle is dropped,
//!    and so is everything that continues it. The chain key is the root's delegationId.
//! 6. A chain's runs are in the resume links' order, not the rows' (a run comes after
//!    the run it resumes; runs that resume the same run, by a middle id, in start order
//!    as rule 8 has it), so its latest run is the end of the link chain wherever its row
//!    is stored. Its brief is the root's `task`; its label the latest non-blank
//!    objective; each run's reads and "anything to replay" come from its rows; its model
//!    is the latest run's `details.modelId` (no key: clause 4 matches by id).
//! 7. A rejected Task call that answered `NO_HISTORY` (`details.error`, `details.error.code`
//!    or `details.code`) drops the chain its `toolArgs.resume` named, as the live
//!    registry dropped it then.
//! 8. When things happened (clause 7's recency, and the list's "newest activity first"):
//!    a run settled at its summary's `details.completedAt` and started at
//!    `details.startedAt`, else at its first copy's `createdAt`; a refused call happened
//!    at its row's `createdAt` (each an ISO-8601 string or epoch milliseconds). An event
//!    with no recorded time happened right after the latest time recorded by a row at or
//!    before its own (a start, a refusal, a settlement written as a later copy): with no
//!    times at all, transcript order. Starts then settles of one chain stay in its link
//!    order (an event no later than the chain's next one), and a refusal comes after the
//!    settlement of the chain it names. Equal times keep transcript order.
//!
//! What a rebuild cannot know: the binding key, the definition fingerprint, a run that
//! was still working (it becomes `interrupted`), and a `NO_HISTORY` answer the host never
//! wrote down as a rejected Task row.

use crate::keyed::{KeySet, Keyed};

use serde_json::{Map, Value};

use super::chain::Run;
use super::history::{count_chain_reads, objective_from_args, replays_anything, written_by};
use super::text::trimmed;
use super::types::{ChainReads, RebuildSkip, RebuildSkipReason, RunStatus, SettleStatus};
use crate::text_build::Owned;
use crate::transcript::{iso_to_ms, normalize_agent_name, time_value_to_ms, UiMessage};

/// One run of a rebuilt chain, with everything the replay needs.
#[derive(Clone, Debug)]
pub(crate) struct RebuiltRun {
    /// The run as it starts in the replay.
    pub run: Run,
    /// The label of this call (`description`, else `task`; `""` when neither).
    pub objective: String,
    pub model_id: Option<String>,
    /// The status its last Task row copy recorded (rule 3).
    pub status: RunStatus,
    pub reads: ChainReads,
    pub replays_anything: bool,
    /// Transcript index of its last Task row copy.
    pub last_index: usize,
}

/// One chain found in the transcript.
#[derive(Clone, Debug)]
pub(crate) struct RebuiltChain {
    pub key: String,
    pub agent: String,
    pub brief: String,
    pub runs: Vec<RebuiltRun>,
}

/// What happened at a transcript position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// Run `run` of chain `chain` started (its first Task row copy).
    Start { chain: usize, run: usize },
    /// It settled with its recorded status (its last copy).
    Settle { chain: usize, run: usize },
    /// A resume of the chain holding `resume` was refused with `NO_HISTORY`.
    NoHistory { resume: String },
}

/// An [`Event`], `at` its rank in the order things happened (rule 8): the recency the
/// replay gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TimedEvent {
    pub at: usize,
    pub event: Event,
}

/// The transcript read for a rebuild.
#[derive(Clone, Debug, Default)]
pub(crate) struct RebuildPlan {
    pub chains: Vec<RebuiltChain>,
    /// In the order they happened (rule 8), `at` counting up from 0.
    pub events: Vec<TimedEvent>,
    pub skips: Vec<RebuildSkip>,
}

/// When an event happened, as far as the rows say: a recorded time, and the transcript
/// position of the row copy it comes from.
#[derive(Clone, Copy, Debug)]
struct Stamp {
    ms: Option<f64>,
    pos: usize,
}

/// A `NO_HISTORY` refusal of a resume of `resume`.
#[derive(Clone, Debug)]
struct Refusal {
    stamp: Stamp,
    resume: String,
}

/// A Task call (its last copy) that recorded a delegation.
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
    status: RunStatus,
    /// Transcript indices of its first and last copy.
    first_index: usize,
    last_index: usize,
    /// Rule 8: when it started and settled, where a row says.
    started_ms: Option<f64>,
    completed_ms: Option<f64>,
}

impl Call {
    fn start(&self) -> Stamp {
        Stamp {
            ms: self.started_ms,
            pos: self.first_index,
        }
    }

    fn settle(&self) -> Stamp {
        Stamp {
            ms: self.completed_ms,
            pos: self.last_index,
        }
    }
}

#[inline(never)]
fn str_at<'a>(object: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a str> {
    trimmed(object?.get(key)?.as_str())
}

/// Rule 3.
fn recorded_status(details: Option<&Map<String, Value>>, row: &UiMessage) -> RunStatus {
    if let Some(status) = str_at(details, "status") {
        return match RunStatus::from_recorded(status) {
            RunStatus::Running => RunStatus::Settled(SettleStatus::Interrupted),
            other => other,
        };
    }
    match row.tool_status.as_deref() {
        Some("error") => RunStatus::Settled(SettleStatus::Failed),
        Some("running") => RunStatus::Settled(SettleStatus::Interrupted),
        _ => RunStatus::Unrecorded,
    }
}

/// Rule 7: the error code a rejected Task call recorded.
fn recorded_error_code(details: Option<&Map<String, Value>>) -> Option<&str> {
    str_at(details, "error")
        .or_else(|| str_at(details?.get("error")?.as_object(), "code"))
        .or_else(|| str_at(details, "code"))
}

/// The chains of a transcript and the events that made them (see the module docs).
///
/// `rows` may be the whole transcript or only the rows a rebuild reads
/// ([`crate::transcript::RowFilter::DelegateOrTaskRows`], in order); `positions[i]` is then
/// row `i`'s index in the whole transcript (events and skips are placed by it).
pub(crate) fn plan(rows: &[UiMessage], positions: Option<&[usize]>) -> RebuildPlan {
    let position = |i: usize| positions.and_then(|p| p.get(i)).copied().unwrap_or(i);
    let mut plan = RebuildPlan::default();
    let (calls, refusals) = read_calls(rows, &task_call_copies(rows), &position, &mut plan);
    let roots = link_runs(&calls);
    let clock = Clock::new(&calls, &refusals);
    let chains = build_chains(rows, &calls, &roots, &clock, &mut plan);
    plan.events = order_events(&calls, &chains, &refusals, &clock);
    crate::order::sort_by_key(&mut plan.skips, |skip| skip.index);
    plan
}

fn details_of(row: &UiMessage) -> Option<&Map<String, Value>> {
    match &row.tool_result {
        Some(Value::Object(result)) => result.get("details").and_then(Value::as_object),
        _ => None,
    }
}

/// Rule 8: a time the summary records under `key`.
#[inline(never)]
fn recorded_ms(details: Option<&Map<String, Value>>, key: &str) -> Option<f64> {
    time_value_to_ms(details?.get(key)?)
}

fn created_ms(row: &UiMessage) -> Option<f64> {
    row.created_at.as_deref().and_then(iso_to_ms)
}

/// Rule 1: each Task call's id with the row indices of its first and last copy, in
/// first-copy order.
fn task_call_copies(rows: &[UiMessage]) -> Vec<(&str, usize, usize)> {
    let mut copies: Vec<(&str, usize, usize)> = Vec::new();
    let mut at: Keyed<usize> = Keyed::default();
    for (i, row) in rows.iter().enumerate() {
        if !row.is_task_row() {
            continue;
        }
        let id = row.task_call_id();
        match at.get(id).and_then(|&k| copies.get_mut(k)) {
            Some((_, _, last)) => *last = i,
            None => {
                at.put(id, copies.len());
                copies.push((id, i, i));
            }
        }
    }
    copies
}

/// Rules 2–4, 7 and 8: the calls that recorded a delegation, from their last copy, and
/// the `NO_HISTORY` refusals. Skipped calls go to `plan`.
fn read_calls(
    rows: &[UiMessage],
    copies: &[(&str, usize, usize)],
    position: &dyn Fn(usize) -> usize,
    plan: &mut RebuildPlan,
) -> (Vec<Call>, Vec<Refusal>) {
    let mut calls: Vec<Call> = Vec::new();
    let mut refusals: Vec<Refusal> = Vec::new();
    let mut seen_delegations = KeySet::default();
    for &(id, first_at, last_at) in copies {
        let Some(row) = rows.get(last_at) else {
            continue;
        };
        let (first_index, last_index) = (position(first_at), position(last_at));
        let mut skip = |reason| {
            plan.skips.push(RebuildSkip {
                index: last_index,
                tool_call_id: id.owned(),
                reason,
            })
        };
        let args = row.tool_args_object();
        let details = details_of(row);
        let Some(delegation_id) = str_at(details, "delegationId") else {
            if let (Some("NO_HISTORY"), Some(resume)) = (
                recorded_error_code(details),
                str_at(args.as_ref(), "resume"),
            ) {
                refusals.push(Refusal {
                    stamp: Stamp {
                        ms: created_ms(row),
                        pos: last_index,
                    },
                    resume: resume.owned(),
                });
            }
            skip(RebuildSkipReason::NoDelegationId);
            continue;
        };
        let agent = str_at(args.as_ref(), "agent")
            .or_else(|| str_at(details, "agent"))
            .map(normalize_agent_name)
            .unwrap_or_default();
        if agent.is_empty() {
            skip(RebuildSkipReason::NoAgent);
            continue;
        }
        if !seen_delegations.insert(delegation_id) {
            skip(RebuildSkipReason::DuplicateDelegationId);
            continue;
        }
        calls.push(Call {
            tool_call_id: id.owned(),
            delegation_id: delegation_id.owned(),
            agent,
            resume: str_at(args.as_ref(), "resume").map(Owned::owned),
            task: str_at(args.as_ref(), "task").unwrap_or_default().owned(),
            description: str_at(args.as_ref(), "description").map(Owned::owned),
            objective: args.as_ref().map(objective_from_args).unwrap_or_default(),
            model_id: str_at(details, "modelId").map(Owned::owned),
            status: recorded_status(details, row),
            first_index,
            last_index,
            started_ms: recorded_ms(details, "startedAt")
                .or_else(|| rows.get(first_at).and_then(created_ms)),
            completed_ms: recorded_ms(details, "completedAt"),
        });
    }
    (calls, refusals)
}

/// Rule 5: each call's root (the first run of its chain), following `resume` links with
/// cycle detection, or why the call is dropped.
fn link_runs(calls: &[Call]) -> Vec<Result<usize, RebuildSkipReason>> {
    let call_of_delegation: Keyed<usize> = calls
        .iter()
        .enumerate()
        .map(|(i, call)| (call.delegation_id.as_str(), i))
        .collect();
    let mut root_of: Vec<Option<Result<usize, RebuildSkipReason>>> = vec![None; calls.len()];
    for start in 0..calls.len() {
        let mut path: Vec<usize> = Vec::new();
        let mut current = start;
        let outcome = loop {
            if let Some(known) = root_of.get(current).copied().flatten() {
                break known;
            }
            if path.contains(&current) {
                break Err(RebuildSkipReason::Cycle);
            }
            path.push(current);
            let Some(call) = calls.get(current) else {
                break Err(RebuildSkipReason::MissingParent);
            };
            let Some(parent_id) = call.resume.as_deref() else {
                break Ok(current);
            };
            match call_of_delegation.get(parent_id).copied() {
                None => break Err(RebuildSkipReason::MissingParent),
                Some(parent) if calls.get(parent).map(|p| &p.agent) != Some(&call.agent) => {
                    break Err(RebuildSkipReason::AgentMismatch)
                }
                Some(parent) => current = parent,
            }
        };
        for member in path {
            if let Some(slot) = root_of.get_mut(member) {
                *slot = Some(outcome);
            }
        }
    }
    root_of
        .into_iter()
        .map(|root| root.unwrap_or(Err(RebuildSkipReason::MissingParent)))
        .collect()
}

/// Rule 8's clock: the times rows recorded when they were written, by position.
struct Clock {
    /// `(position, latest time recorded at or before it)`, by position.
    written: Vec<(usize, f64)>,
}

/// An event's place in time: `(ms, position)`, compared in that order.
type Key = (f64, usize);

fn key_cmp(left: &Key, right: &Key) -> std::cmp::Ordering {
    left.0.total_cmp(&right.0).then(left.1.cmp(&right.1))
}

impl Clock {
    /// Times written with their row: a start, a refusal, a settlement written as a later
    /// copy (a settlement rewritten in place sits at its start's position, so its time
    /// says nothing about the rows around it).
    fn new(calls: &[Call], refusals: &[Refusal]) -> Clock {
        let mut written: Vec<(usize, f64)> = Vec::new();
        for call in calls {
            if let Some(ms) = call.started_ms {
                written.push((call.first_index, ms));
            }
            if let (Some(ms), true) = (call.completed_ms, call.last_index != call.first_index) {
                written.push((call.last_index, ms));
            }
        }
        written.extend(
            refusals
                .iter()
                .filter_map(|refusal| Some((refusal.stamp.pos, refusal.stamp.ms?))),
        );
        crate::order::sort_by_key(&mut written, |&(pos, _)| pos);
        let mut latest = f64::NEG_INFINITY;
        for (_, ms) in written.iter_mut() {
            latest = latest.max(*ms);
            *ms = latest;
        }
        Clock { written }
    }

    /// The stamp's recorded time, else the latest time written at or before its position.
    fn key(&self, stamp: Stamp) -> Key {
        let ms = stamp.ms.unwrap_or_else(|| {
            let upto = self.written.partition_point(|&(pos, _)| pos <= stamp.pos);
            upto.checked_sub(1)
                .and_then(|last| self.written.get(last))
                .map_or(f64::NEG_INFINITY, |&(_, ms)| ms)
        });
        (ms, stamp.pos)
    }
}

/// Rule 6: a chain's member calls in link order: each after the run it resumes, the
/// runs ready to go in start order (rule 8). Kahn's algorithm over the resume tree.
fn link_order(calls: &[Call], members: &[usize], clock: &Clock) -> Vec<usize> {
    use std::cmp::Ordering;
    use std::collections::BinaryHeap;

    // (the start, the call, its place in `members`)
    struct Ready(Key, usize, usize);
    impl PartialEq for Ready {
        fn eq(&self, other: &Self) -> bool {
            self.cmp(other) == Ordering::Equal
        }
    }
    impl Eq for Ready {}
    impl PartialOrd for Ready {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Ready {
        // a max-heap: the earliest start first
        fn cmp(&self, other: &Self) -> Ordering {
            key_cmp(&other.0, &self.0).then(other.1.cmp(&self.1))
        }
    }

    // a member's place in `members` by its delegation id
    let member_of: Keyed<usize> = members
        .iter()
        .enumerate()
        .filter_map(|(p, &i)| Some((calls.get(i)?.delegation_id.as_str(), p)))
        .collect();
    // each member's children as (call, place), indexed by place (a map keyed by index
    // would be a hash table type of its own in the module, issue 17 §7)
    let mut children: Vec<Vec<(usize, usize)>> = vec![Vec::new(); members.len()];
    let mut ready: BinaryHeap<Ready> = BinaryHeap::new();
    for (p, &i) in members.iter().enumerate() {
        let Some(call) = calls.get(i) else {
            continue;
        };
        match call.resume.as_deref().and_then(|id| member_of.get(id)) {
            Some(&parent) => {
                if let Some(siblings) = children.get_mut(parent) {
                    siblings.push((i, p));
                }
            }
            None => ready.push(Ready(clock.key(call.start()), i, p)),
        }
    }
    let mut ordered = Vec::with_capacity(members.len());
    while let Some(Ready(_, i, p)) = ready.pop() {
        ordered.push(i);
        for (child, q) in children.get_mut(p).map(std::mem::take).unwrap_or_default() {
            if let Some(call) = calls.get(child) {
                ready.push(Ready(clock.key(call.start()), child, q));
            }
        }
    }
    ordered
}

/// Rule 6: the chains, each run with its reads and whether it replays anything; returns
/// each chain's member calls in link order. Dropped calls go to `plan.skips`.
fn build_chains(
    rows: &[UiMessage],
    calls: &[Call],
    roots: &[Result<usize, RebuildSkipReason>],
    clock: &Clock,
    plan: &mut RebuildPlan,
) -> Vec<Vec<usize>> {
    // rows indexed once by the call that wrote them, so each run reads only its own
    let mut rows_by_call: Keyed<Vec<&UiMessage>> = Keyed::default();
    for row in rows {
        if let Some(call) = row.head().parent_call() {
            rows_by_call.entry(call, Vec::new).push(row);
        }
    }
    // members of each chain, chains in the order their first member appears
    let mut members: Vec<(usize, Vec<usize>)> = Vec::new();
    // the chain of each root call, indexed by call (see `link_order`'s children)
    let mut chain_of_root: Vec<Option<usize>> = vec![None; calls.len()];
    for (i, (call, root)) in calls.iter().zip(roots).enumerate() {
        match root {
            Ok(root) => {
                let chain = match chain_of_root.get(*root).copied().flatten() {
                    Some(chain) => chain,
                    None => {
                        members.push((*root, Vec::new()));
                        let chain = members.len() - 1;
                        if let Some(slot) = chain_of_root.get_mut(*root) {
                            *slot = Some(chain);
                        }
                        chain
                    }
                };
                if let Some((_, list)) = members.get_mut(chain) {
                    list.push(i);
                }
            }
            Err(reason) => plan.skips.push(RebuildSkip {
                index: call.last_index,
                tool_call_id: call.tool_call_id.clone(),
                reason: *reason,
            }),
        }
    }
    let mut ordered_chains = Vec::with_capacity(members.len());
    for (root, member_calls) in members {
        let Some(root_call) = calls.get(root) else {
            continue;
        };
        let ordered = link_order(calls, &member_calls, clock);
        let mut runs = Vec::new();
        for call in ordered.iter().filter_map(|&i| calls.get(i)) {
            // the rows written during this call (select_chain_rows's filter, done above)
            let run_rows = written_by(
                &mut rows_by_call
                    .get(call.tool_call_id.as_str())
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .copied(),
                &call.agent,
            );
            runs.push(RebuiltRun {
                run: Run::started(
                    call.delegation_id.clone(),
                    call.tool_call_id.clone(),
                    call.task.clone(),
                    call.description.clone(),
                ),
                objective: call.objective.clone(),
                model_id: call.model_id.clone(),
                status: call.status.clone(),
                reads: count_chain_reads(&run_rows),
                replays_anything: replays_anything(&run_rows, &root_call.task),
                last_index: call.last_index,
            });
        }
        plan.chains.push(RebuiltChain {
            key: root_call.delegation_id.clone(),
            agent: root_call.agent.clone(),
            brief: root_call.task.clone(),
            runs,
        });
        ordered_chains.push(ordered);
    }
    ordered_chains
}

/// Rule 8: every start, settle and refusal in the order it happened, ranked.
fn order_events(
    calls: &[Call],
    chains: &[Vec<usize>],
    refusals: &[Refusal],
    clock: &Clock,
) -> Vec<TimedEvent> {
    // (key, group, sequence within the group, event); a chain's events are one group
    let mut keyed: Vec<(Key, usize, usize, Event)> = Vec::new();
    let mut last_settle: Keyed<Key> = Keyed::default();
    for (chain, members) in chains.iter().enumerate() {
        let mut sequence: Vec<(Key, Event)> = Vec::with_capacity(2 * members.len());
        for (run, call) in members.iter().filter_map(|&i| calls.get(i)).enumerate() {
            sequence.push((clock.key(call.start()), Event::Start { chain, run }));
            sequence.push((clock.key(call.settle()), Event::Settle { chain, run }));
        }
        // an event happened no later than the chain's next one
        let mut next: Key = (f64::INFINITY, usize::MAX);
        for (key, _) in sequence.iter_mut().rev() {
            if key_cmp(key, &next).is_gt() {
                *key = next;
            }
            next = *key;
        }
        if let Some((key, _)) = sequence.last() {
            for call in members.iter().filter_map(|&i| calls.get(i)) {
                *last_settle.entry(call.delegation_id.as_str(), || *key) = *key;
            }
        }
        keyed.extend(
            sequence
                .into_iter()
                .enumerate()
                .map(|(seq, (key, event))| (key, chain, seq, event)),
        );
    }
    for (seq, refusal) in refusals.iter().enumerate() {
        // the refusal answered a settled chain: after its settlement
        let mut key = clock.key(refusal.stamp);
        if let Some(settled) = last_settle.get(refusal.resume.as_str()) {
            if key_cmp(&key, settled).is_lt() {
                key = (settled.0, settled.1.max(key.1));
            }
        }
        keyed.push((
            key,
            usize::MAX,
            seq,
            Event::NoHistory {
                resume: refusal.resume.clone(),
            },
        ));
    }
    crate::order::sort_by(&mut keyed, |a, b| {
        key_cmp(&a.0, &b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    });
    keyed
        .into_iter()
        .enumerate()
        .map(|(at, (_, _, _, event))| TimedEvent { at, event })
        .collect()
}
