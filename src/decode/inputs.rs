//! The package's input types as [`Decode`]rs (issue 17 §7): each struct's fields as its
//! `#[serde(...)]` attributes name them (camelCase, defaults, aliases, flattened fields),
//! read by [`Fields`](super::Fields). The types keep their derived `Deserialize` for the
//! native tests: `tests/decode_paths.rs` and `tests/decode_inputs.rs` compare these
//! decoders with it (the same accepted values, the same bad value and message).

use serde_json::Value;

use super::typed::{decode_enum, decode_struct};
use super::{Bad, Decode};
use crate::budget::{BudgetModel, ContextBudget};
use crate::compaction::prepare::{
    CompactionSettings, DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_RESERVE_TOKENS,
};
use crate::compaction::tally::{ReportInput, RunTally};
use crate::compaction::turn::{DelegateTurnOptions, SummaryAnswer};
use crate::delegation::binding::{BindingCandidates, ModelBinding, ResumeCandidates};
use crate::delegation::seed::SeedInput;
use crate::delegation::task_row::{
    TaskArgs, TaskDetails, TaskRowRefused, TaskRowSettle, TaskRowStart,
};
use crate::delegation::types::{
    ChainReads, ChainSelector, Diagnostic, DiagnosticCode, ResumableChain, ResumeRequest,
    RunStatus, SettleDelegation, SettleStatus, StartDelegation, StartedDelegation,
};
use crate::fallback::{FallbackCandidate, ModelFailure};
use crate::message::{AgentMessage, Usage};
use crate::transcript::from_messages::RowOwner;
use crate::transcript::{MessagesToRowsInput, ProviderBinding, RowRole, UiMessage};

/// A message, read by [`AgentMessage::from_value`] (its errors in its words, as its
/// `Deserialize` reports them).
impl Decode for AgentMessage {
    fn decode(v: &Value) -> Result<Self, Bad> {
        AgentMessage::from_value(v.clone(), "message").map_err(|e| (String::new(), e.to_string()))
    }
}

/// A recorded status: a string, or `null` / absent (not recorded).
impl Decode for RunStatus {
    fn decode(v: &Value) -> Result<Self, Bad> {
        Ok(RunStatus::from_written(Option::<String>::decode(v)?))
    }
}

decode_enum!(RowRole {
    User = "user",
    Assistant = "assistant",
    System = "system",
    Tool = "tool",
});

decode_enum!(SettleStatus {
    Completed = "completed",
    Failed = "failed",
    Aborted = "aborted",
    Stopped = "stopped",
    TimedOut = "timed_out",
    Interrupted = "interrupted",
});

decode_enum!(DiagnosticCode {
    ModelChanged = "MODEL_CHANGED",
    DefinitionChanged = "DEFINITION_CHANGED",
});

decode_struct!(UiMessage "UiMessage" {
    id: "id" => req,
    role: "role" => req,
    content: "content" => default,
    created_at: "createdAt" => default,
    status: "status" => default,
    thinking: "thinking" => default,
    model_id: "modelId" => default,
    provider_id: "providerId" => default,
    usage: "usage" => default,
    error: "error" => default,
    tool_name: "toolName" => default,
    tool_call_id: "toolCallId" => default,
    tool_status: "toolStatus" => default,
    tool_args: "toolArgs" => default,
    tool_result: "toolResult" => default,
    is_error: "isError" => default,
    parent_tool_call_id: "parentToolCallId" => default,
    agent_name: "agentName" => default,
} extra extra);

decode_struct!(Usage "Usage" {
    input: "input" => default,
    output: "output" => default,
    cache_read: "cacheRead" => default,
    cache_write: "cacheWrite" => default,
    total_tokens: "totalTokens" => default,
} extra extra);

decode_struct!(RowOwner "RowOwner" {
    parent_tool_call_id: "parentToolCallId" => default,
    agent_name: "agentName" => default,
    id_prefix: "idPrefix" => default,
    skip_tools: "skipTools" => default,
});

decode_struct!(MessagesToRowsInput "MessagesToRowsInput" {
    messages: "messages" => req,
    start: "start" => default,
    first_index: "firstIndex" => default,
} flatten owner);

decode_struct!(ProviderBinding "ProviderBinding" {
    provider: "provider" => req,
    model: "model" => req,
    api: "api" => default,
    thinking_signature: "thinkingSignature" => default,
});

decode_struct!(BudgetModel "BudgetModel" {
    context_window: "contextWindow" => default,
    max_tokens: "maxTokens" => default,
    definition_max_tokens: "definitionMaxTokens" => default,
});

decode_struct!(ContextBudget "ContextBudget" {
    context_window: "contextWindow" => req,
    max_output_tokens: "maxOutputTokens" => req,
    request_headroom: "requestHeadroom" => req,
    hard_limit: "hardLimit" => req,
    keep_recent_tokens: "keepRecentTokens" => req,
    compaction_trigger: "compactionTrigger" => req,
    retained_user_budget: "retainedUserBudget" => req,
});

decode_struct!(DelegateTurnOptions "DelegateTurnOptions" {
    early_trigger: "earlyTrigger" => default,
    overhead_tokens: "overheadTokens" => default,
    summary_max_tokens: "summaryMaxTokens" => default,
    custom_instructions: "customInstructions" => default,
    now: "now" => default,
});

decode_struct!(SummaryAnswer "SummaryAnswer" {
    history: "history" => default,
    turn_prefix: "turnPrefix" => default,
    error: "error" => default,
});

decode_struct!(CompactionSettings "CompactionSettings" {
    reserve_tokens: "reserveTokens" => default(DEFAULT_RESERVE_TOKENS),
    keep_recent_tokens: "keepRecentTokens" => default(DEFAULT_KEEP_RECENT_TOKENS),
} extra extra);

decode_struct!(RunTally "RunTally" {
    boundaries: "boundaries" => default,
    context_compactions: "contextCompactions" => default,
    context_degraded: "contextDegraded" => default,
    dropped_messages: "droppedMessages" => default,
    dropped_tokens: "droppedTokens" => default,
});

decode_struct!(ReportInput "ReportInput" {
    report: "report" => req,
    run: "run" => default,
    model_id: "modelId" => default,
});

decode_struct!(FallbackCandidate "FallbackCandidate" {
    id: "id" | "modelId" => req,
    provider: "provider" | "providerId" => default,
    context_window: "contextWindow" => default,
    max_tokens: "maxTokens" => default,
    definition_max_tokens: "definitionMaxTokens" => default,
} extra extra);

decode_struct!(ModelFailure "ModelFailure" {
    model: "model" => req,
    code: "code" => req,
    message: "message" => req,
});

decode_struct!(ModelBinding "ModelBinding" {
    key: "key" => default,
    model_id: "modelId" => default,
});

decode_struct!(ResumeCandidates "ResumeCandidates" {
    allowed: "allowed" => default,
    definition_binding: "definitionBinding" => req,
});

decode_struct!(BindingCandidates "BindingCandidates" {
    recorded_key: "recordedKey" => default,
    recorded_model_id: "recordedModelId" => default,
    allowed: "allowed" => default,
    definition_binding: "definitionBinding" => req,
});

decode_struct!(SeedInput "SeedInput" {
    brief: "brief" => req,
    rows: "rows" => req,
    chain: "chain" => default,
    binding: "binding" => req,
    hard_limit: "hardLimit" => req,
    overhead_tokens: "overheadTokens" => default,
    system_prompt: "systemPrompt" => default,
    tools: "tools" => default,
});

decode_struct!(ChainSelector "ChainSelector" {
    tool_call_ids: "toolCallIds" => req,
    agent: "agent" => req,
});

decode_struct!(ChainReads "ChainReads" {
    files: "files" => req,
    lines: "lines" => req,
});

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

decode_struct!(Diagnostic "Diagnostic" {
    code: "code" => req,
    message: "message" => req,
});

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

decode_struct!(SettleDelegation "SettleDelegation" {
    delegation_id: "delegationId" => req,
    status: "status" => req,
    reads: "reads" => default,
    rows: "rows" => default,
});

decode_struct!(ResumeRequest "ResumeRequest" {
    delegation_id: "delegationId" => req,
    agent: "agent" => req,
    model: "model" => default,
});

// `status` absent: not recorded (its `Deserialize` reads a missing value as `None`).
decode_struct!(ResumableChain "ResumableChain" {
    agent: "agent" => req,
    delegation_id: "delegationId" => req,
    objective: "objective" => req,
    files: "files" => req,
    read_lines: "readLines" => req,
    status: "status" => or(RunStatus::Unrecorded),
});

decode_struct!(TaskArgs "TaskArgs" {
    agent: "agent" => req,
    task: "task" => req,
    description: "description" => default,
    model: "model" => default,
    resume: "resume" => default,
});

decode_struct!(TaskRowStart "TaskRowStart" {
    tool_call_id: "toolCallId" => req,
    args: "args" => req,
    started: "started" => req,
    thinking_level: "thinkingLevel" => default,
    now: "now" => default,
});

decode_struct!(TaskRowSettle "TaskRowSettle" {
    row: "row" => req,
    status: "status" => req,
    content: "content" => req,
    is_error: "isError" => default,
    run_rows: "runRows" => default,
    run: "run" => default,
    model_failures: "modelFailures" => default,
    error: "error" => default,
    now: "now" => default,
});

decode_struct!(TaskRowRefused "TaskRowRefused" {
    tool_call_id: "toolCallId" => req,
    args: "args" => req,
    code: "code" => req,
    message: "message" => req,
    now: "now" => default,
});

// A Task row's `toolResult.details` (read back by `taskRowSettle`).
decode_struct!(TaskDetails "TaskDetails" {
    delegation_id: "delegationId" => default,
    agent: "agent" => req,
    model_id: "modelId" => default,
    thinking_level: "thinkingLevel" => default,
    status: "status" => default,
    started_at: "startedAt" => default,
    turns: "turns" => default,
    tool_calls: "toolCalls" => default,
    last_tool_name: "lastToolName" => default,
    completed_at: "completedAt" => default,
    model_failures: "modelFailures" => default,
    error: "error" => default,
    context_compactions: "contextCompactions" => default,
    context_degraded: "contextDegraded" => default,
    resumed_from: "resumedFrom" => default,
    model_changed_from: "modelChangedFrom" => default,
    report: "report" => default,
} extra extra);
