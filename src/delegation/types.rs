//! ADR 0279 clauses 1, 2, 4–9, 11 and 12: the inputs and outputs of the registry of
//! resumable chains, as the host passes and receives them (camelCase in JavaScript).
//! The state they describe is in [`super::chain`], the transitions in
//! [`super::registry`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use super::binding::{ModelBinding, ResumeCandidates};
use crate::decode::{decode_enum, decode_struct, Bad, Decode};
use crate::text_build::Owned;
use crate::transcript::UiMessage;

/// Which chain to select: its Task call ids and its agent (clauses 2–3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainSelector {
    /// Every Task `toolCallId` on the chain, oldest first.
    pub tool_call_ids: Vec<String>,
    /// The chain's agent (compared after normalising).
    pub agent: String,
}

decode_struct!(ChainSelector "ChainSelector" {
    tool_call_ids: "toolCallIds" => req,
    agent: "agent" => req,
});

/// What a chain's read-only tools read (clause 8).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainReads {
    /// Targets (`path`, else `file_path`, else `pattern`), deduplicated, first-seen order.
    pub files: Vec<String>,
    /// Lines of the read-only tools' results.
    pub lines: u64,
}

decode_struct!(ChainReads "ChainReads" {
    files: "files" => req,
    lines: "lines" => req,
});

impl ChainReads {
    /// Add another run's reads: files merged in first-seen order, lines summed.
    pub fn merge(&mut self, other: &ChainReads) {
        for file in &other.files {
            if !self.files.contains(file) {
                self.files.push(file.clone());
            }
        }
        self.lines = self.lines.saturating_add(other.lines);
    }
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

decode_struct!(StartDelegation "StartDelegation" {
    tool_call_id: "toolCallId" => req,
    agent: "agent" => req,
    task: "task" => req,
    description: "description" => default,
    model: "model" => default,
    resume: "resume" => default,
    binding: "binding" => default,
    candidates: "candidates" => default,
    definition: "definition" => default,
});

/// The code of a `Diagnostic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DiagnosticCode {
    /// Clause 4: the chain's binding could not be kept (`modelChangedFrom`).
    ModelChanged,
    /// Clause 11: the agent definition changed since the chain's previous run.
    DefinitionChanged,
}

decode_enum!(DiagnosticCode {
    ModelChanged = "MODEL_CHANGED",
    DefinitionChanged = "DEFINITION_CHANGED",
});

/// Something the host records in the delegation's lifecycle details.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub code: DiagnosticCode,
    pub message: String,
}

decode_struct!(Diagnostic "Diagnostic" {
    code: "code" => req,
    message: "message" => req,
});

/// The result of `start`.
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

decode_struct!(StartedDelegation "StartedDelegation" {
    delegation_id: "delegationId" => req,
    agent: "agent" => req,
    tool_call_ids: "toolCallIds" => req,
    brief: "brief" => req,
    resumed_from: "resumedFrom" => default,
    model_binding: "modelBinding" => req,
    model_changed_from: "modelChangedFrom" => default,
    diagnostics: "diagnostics" => req,
});

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

decode_enum!(SettleStatus: ALL, as_str);

impl SettleStatus {
    /// Every status in declared order, for parsing and decoding.
    pub const ALL: [SettleStatus; 6] = [
        SettleStatus::Completed,
        SettleStatus::Failed,
        SettleStatus::Aborted,
        SettleStatus::Stopped,
        SettleStatus::TimedOut,
        SettleStatus::Interrupted,
    ];

    /// The status string (`timed_out`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            SettleStatus::Completed => "completed",
            SettleStatus::Failed => "failed",
            SettleStatus::Aborted => "aborted",
            SettleStatus::Stopped => "stopped",
            SettleStatus::TimedOut => "timed_out",
            SettleStatus::Interrupted => "interrupted",
        }
    }

    /// The status a string names, if it names one.
    pub fn parse(text: &str) -> Option<SettleStatus> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Clause 5: `completed` and `failed` are resumable; `timed_out` is treated as failed.
    pub fn is_resumable(self) -> bool {
        matches!(
            self,
            SettleStatus::Completed | SettleStatus::Failed | SettleStatus::TimedOut
        )
    }
}

/// The status of one run.
/// Crosses to JavaScript as the status string the host writes, or `null` for
/// [`RunStatus::Unrecorded`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Started and not settled yet.
    Running,
    /// Settled with this status.
    Settled(SettleStatus),
    /// A rebuilt Task row that recorded no status: trusted as settled (clause 12).
    Unrecorded,
    /// A status this library does not know (a rebuilt row): kept for display, not
    /// resumable.
    Unknown(String),
}

/// A recorded status: a string, or `null` / absent (not recorded).
impl Decode for RunStatus {
    fn decode(v: &Value) -> Result<Self, Bad> {
        Ok(RunStatus::from_written(Option::<String>::decode(v)?))
    }
}

impl RunStatus {
    /// The status a Task row recorded (`running` is read as it is; the rebuild decides
    /// what a run still running at the end of a transcript is).
    #[inline(never)]
    pub fn from_recorded(text: &str) -> RunStatus {
        if text == "running" {
            return RunStatus::Running;
        }
        SettleStatus::parse(text)
            .map_or_else(|| RunStatus::Unknown(text.owned()), RunStatus::Settled)
    }

    /// A status as the host writes it: a string, or `null` / absent (not recorded).
    pub fn from_written(text: Option<String>) -> RunStatus {
        text.map_or(RunStatus::Unrecorded, |text| {
            RunStatus::from_recorded(&text)
        })
    }

    pub fn is_running(&self) -> bool {
        matches!(self, RunStatus::Running)
    }

    /// Clause 5.
    pub fn is_resumable(&self) -> bool {
        match self {
            RunStatus::Settled(status) => status.is_resumable(),
            RunStatus::Unrecorded => true,
            RunStatus::Running | RunStatus::Unknown(_) => false,
        }
    }

    /// The status as the host writes it; `None` for [`RunStatus::Unrecorded`].
    #[inline(never)]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            RunStatus::Running => Some("running"),
            RunStatus::Settled(status) => Some(status.as_str()),
            RunStatus::Unrecorded => None,
            RunStatus::Unknown(text) => Some(text),
        }
    }
}

impl Serialize for RunStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_text().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RunStatus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(RunStatus::from_written(Option::<String>::deserialize(
            deserializer,
        )?))
    }
}

/// Input of `settle`.
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

decode_struct!(SettleDelegation "SettleDelegation" {
    delegation_id: "delegationId" => req,
    status: "status" => req,
    reads: "reads" => default,
    rows: "rows" => default,
});

/// The result of `settle`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SettledDelegation {
    pub delegation_id: String,
    pub status: SettleStatus,
    /// Whether the chain is now in the resumable list.
    pub resumable: bool,
    /// delegationIds that left the registry by the per-agent bound (clause 7).
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

decode_struct!(ResumeRequest "ResumeRequest" {
    delegation_id: "delegationId" => req,
    agent: "agent" => req,
    model: "model" => default,
});

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
    #[tsify(type = "string | null")]
    pub status: RunStatus,
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
    /// The latest run's status (`null`: a rebuilt row that recorded none).
    #[tsify(type = "string | null")]
    pub status: RunStatus,
}

// `status` absent: not recorded (its `Deserialize` reads a missing value as `None`).
decode_struct!(ResumableChain "ResumableChain" {
    agent: "agent" => req,
    delegation_id: "delegationId" => req,
    objective: "objective" => req,
    files: "files" => req,
    read_lines: "readLines" => req,
    status: "status" => or(RunStatus::Unrecorded),
});

/// A chain as `resolve` shows it (no internal key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainInfo {
    pub agent: String,
    pub delegation_ids: Vec<String>,
    pub tool_call_ids: Vec<String>,
    pub latest_delegation_id: String,
    /// `running`, a settled status, or `null` (rebuilt, none recorded).
    #[tsify(type = "string | null")]
    pub status: RunStatus,
    pub brief: String,
    pub objective: String,
    pub reads: ChainReads,
    /// Whether the chain is in the resumable list now.
    pub resumable: bool,
}

/// Why a rebuild (clause 12) did not turn a Task row into a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RebuildSkipReason {
    /// A rejected Task call (no `details.delegationId`).
    NoDelegationId,
    /// Neither `toolArgs.agent` nor `details.agent`.
    NoAgent,
    /// A delegationId already seen on an earlier call.
    DuplicateDelegationId,
    /// `toolArgs.resume` names no call of the transcript.
    MissingParent,
    /// `toolArgs.resume` names a call of another agent.
    AgentMismatch,
    /// `toolArgs.resume` leads back to the call itself.
    Cycle,
    /// `toolArgs.resume` names a chain the registry no longer held at that point of the
    /// transcript (evicted by the bound, or dropped for having nothing to replay).
    ParentGone,
}

/// A Task row the rebuild did not turn into a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RebuildSkip {
    /// Index of the row (its last copy) in the transcript.
    pub index: usize,
    pub tool_call_id: String,
    pub reason: RebuildSkipReason,
}
