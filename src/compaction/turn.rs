//! ADR 0299 clauses 3–5 (host-contract §5): what a delegate's boundary step takes and
//! gives, in the host's words: its options, the decision before any summary with the
//! summary request(s) to send (`prepareDelegateTurn`), the host's answer
//! (`completeDelegateTurn`), and the outcome. The step itself, in the seed's order
//! (assess, plan the cut, request the summary, compose; degrade; fail), is
//! [`super::step`].

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::context::Item;
use crate::decode::decode_struct;
use crate::error::Result;
use crate::facts::MessageFacts;
use crate::message::{AgentMessage, Content, ContentBlock, UserMessage};
use crate::tokens::tokens_from_f64;

/// Host options of a boundary step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnOptions {
    /// Compact from the budget's `compactionTrigger` (90% of hardLimit) instead of at
    /// hardLimit. Off by default (ADR 0299 clause 3).
    #[serde(default)]
    #[tsify(optional)]
    pub early_trigger: bool,
    /// Tokens of every request that are not messages (system prompt, tool schemas). Added
    /// to per-message estimates; provider usage already includes them. The hook derives
    /// it from the Agent's context when absent (`requestOverheadTokens`).
    #[serde(default)]
    #[tsify(optional)]
    pub overhead_tokens: Option<f64>,
    /// The summarizing model's `maxTokens` (default: the budget's `maxOutputTokens`).
    #[serde(default)]
    #[tsify(optional)]
    pub summary_max_tokens: Option<f64>,
    /// pi's `customInstructions` ("Additional focus: ...") for the history summary.
    #[serde(default)]
    #[tsify(optional)]
    pub custom_instructions: Option<String>,
    /// Timestamp for messages this step creates (default: `Date.now()` in JavaScript).
    #[serde(default)]
    #[tsify(optional)]
    pub now: Option<f64>,
}

decode_struct!(DelegateTurnOptions "DelegateTurnOptions" {
    early_trigger: "earlyTrigger" => default,
    overhead_tokens: "overheadTokens" => default,
    summary_max_tokens: "summaryMaxTokens" => default,
    custom_instructions: "customInstructions" => default,
    now: "now" => default,
});

impl DelegateTurnOptions {
    /// The request overhead in tokens (absurd numbers saturate, see [`tokens_from_f64`]).
    pub fn overhead(&self) -> u64 {
        self.overhead_tokens.map_or(0, tokens_from_f64)
    }
}

/// ADR 0136: is the delegate in the middle of a turn?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum TurnKind {
    /// The last assistant called tools (results pending or just answered): it and its
    /// results are always retained verbatim.
    Active,
    /// The last assistant finished its answer: pi's cut applies unchanged.
    Completed,
}

/// What the boundary step does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum TurnAction {
    /// Below the threshold: send the next request as is.
    Unchanged,
    /// Send `requests` to the summarizing model, then call `completeDelegateTurn`.
    Summarize,
    /// Compaction cannot help (see `reason`): call `completeDelegateTurn` without summaries.
    Degrade,
}

/// Why a step degraded (or planned to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum DegradeReason {
    /// The summary request failed, was rejected, or came back empty.
    SummaryFailed,
    /// The compacted context was still at or above hardLimit.
    StillOverLimit,
    /// Everything compactable is the retained turn: a summary would remove nothing.
    NothingToSummarize,
    /// The summary request itself cannot fit the model's window.
    SummaryRequestTooLarge,
}

/// The outcome recorded in the host's delegation summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum TurnOutcomeKind {
    Unchanged,
    Compacted,
    Degraded,
}

/// Which of pi's two summary requests this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum SummaryKind {
    /// The history summary (`SUMMARIZATION_PROMPT`, or the update prompt after a previous summary).
    History,
    /// The split turn's prefix summary (`TURN_PREFIX_SUMMARIZATION_PROMPT`).
    TurnPrefix,
}

/// A summary request, ready for the host's provider: `{systemPrompt, messages}` is the
/// context, `maxTokens` the output cap.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
    pub kind: SummaryKind,
    pub system_prompt: String,
    /// One user message holding the prompt.
    pub messages: Vec<AgentMessage>,
    pub max_tokens: u64,
    /// `ceil((systemPrompt.length + prompt.length) / 4)`; plus maxTokens it is <= the window.
    pub estimated_input_tokens: u64,
    /// Whether the conversation (or previous summary) was shortened to fit the window.
    pub bounded: bool,
    /// Serialized parts dropped from the oldest end to fit.
    pub omitted_parts: usize,
}

impl SummaryRequest {
    /// Takes the prompt out (the text of the one user message), leaving it empty; `None`
    /// when the request holds no such message (it always does as built here). The binding
    /// writes the rest as JSON and sets the prompt into the result, one string crossing.
    pub fn take_prompt(&mut self) -> Option<String> {
        match self.messages.first_mut() {
            Some(AgentMessage::User(UserMessage {
                content: Content::Blocks(blocks),
                ..
            })) => match blocks.first_mut() {
                Some(ContentBlock::Text(text)) => Some(std::mem::take(&mut text.text)),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The synchronous first half: what to do, and the summary request(s) to send.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnPreparation {
    pub action: TurnAction,
    /// The context's size at the boundary (trusted provider usage + estimates after it).
    pub tokens: u64,
    /// What `tokens` was compared with (hardLimit, or compactionTrigger when early).
    pub threshold: u64,
    pub hard_limit: u64,
    pub turn: TurnKind,
    /// In order: the history summary (absent when a split turn has no earlier history),
    /// then the split turn's prefix summary.
    pub requests: Vec<SummaryRequest>,
    pub is_split_turn: bool,
    /// Messages the summary replaces (history + split-turn prefix).
    pub summarized_messages: usize,
    /// Messages kept verbatim after the summary.
    pub retained_messages: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reason: Option<DegradeReason>,
}

/// The host's answer to the summary request(s) (`completeDelegateTurn`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryAnswer {
    /// Text of the `history` request's response.
    #[serde(default)]
    #[tsify(optional)]
    pub history: Option<String>,
    /// Text of the `turnPrefix` request's response.
    #[serde(default)]
    #[tsify(optional)]
    pub turn_prefix: Option<String>,
    /// Set when a request failed (the message is reported back as `summaryError`).
    #[serde(default)]
    #[tsify(optional)]
    pub error: Option<String>,
}

decode_struct!(SummaryAnswer "SummaryAnswer" {
    history: "history" => default,
    turn_prefix: "turnPrefix" => default,
    error: "error" => default,
});

/// The result of a boundary step.
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct DelegateTurnOutcome {
    pub outcome: TurnOutcomeKind,
    /// The context for the next request: every message kept from the input is the
    /// caller's own object (nothing copied), the summary or degrade note is new. Held as
    /// runs of kept messages (an unchanged context is one run, whatever its length); the
    /// binding hands back the messages themselves.
    #[tsify(type = "AgentMessage[]")]
    pub messages: Vec<Item>,
    pub tokens_before: u64,
    /// Per-message estimate (+ overheadTokens) of `messages`; for `unchanged`, the boundary figure.
    pub tokens_after: u64,
    pub hard_limit: u64,
    pub turn: TurnKind,
    pub is_split_turn: bool,
    /// Messages replaced by the summary.
    pub summarized_messages: usize,
    /// Messages neither kept verbatim nor carried by a summary (lost history).
    pub dropped_messages: usize,
    pub dropped_tokens: u64,
    /// 1 when this step rewrote the context (compacted or degraded), else 0.
    pub context_compactions: u32,
    /// This step lost history without a complete summary.
    pub context_degraded: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub reason: Option<DegradeReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub summary_error: Option<String>,
}

impl DelegateTurnOutcome {
    /// The outcome of a boundary that leaves a context of `len` messages as it is.
    #[inline(never)]
    pub fn unchanged(
        len: usize,
        tokens_before: u64,
        tokens_after: u64,
        hard_limit: u64,
        turn: TurnKind,
    ) -> Self {
        DelegateTurnOutcome {
            outcome: TurnOutcomeKind::Unchanged,
            messages: vec![Item::Kept(0..len)],
            tokens_before,
            tokens_after,
            hard_limit,
            turn,
            is_split_turn: false,
            summarized_messages: 0,
            dropped_messages: 0,
            dropped_tokens: 0,
            context_compactions: 0,
            context_degraded: false,
            reason: None,
            summary_error: None,
        }
    }

    /// The next context as messages, given the input the indices refer to.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn materialize(&self, input: &[AgentMessage]) -> Vec<AgentMessage> {
        let mut out = Vec::with_capacity(self.len());
        for item in &self.messages {
            match item {
                Item::Kept(run) => {
                    out.extend_from_slice(input.get(run.clone()).unwrap_or_default())
                }
                Item::New(m) => out.push(m.as_ref().clone()),
            }
        }
        out
    }

    /// Number of messages of the next context.
    pub fn len(&self) -> usize {
        self.messages.iter().map(Item::len).sum()
    }

    /// Whether the next context has no message (never for a valid context: the brief stays).
    #[cfg(not(target_arch = "wasm32"))] // clippy's len_without_is_empty on the native API
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the next context differs from the `len` messages the step was decided over
    /// (a new message, or some dropped): a handle applies it with
    /// [`DelegateContext::rewrite`](super::context::DelegateContext::rewrite).
    pub fn rewrites(&self, len: usize) -> bool {
        self.messages.iter().any(|m| matches!(m, Item::New(_))) || self.len() != len
    }

    /// The new messages' facts, in order (to
    /// [`DelegateContext::rewrite`](super::context::DelegateContext::rewrite) a handle).
    pub fn new_facts(&self) -> Result<Vec<MessageFacts>> {
        self.messages
            .iter()
            .filter_map(|item| match item {
                Item::New(m) => Some(m.facts("(new message)")),
                Item::Kept(_) => None,
            })
            .collect()
    }
}
