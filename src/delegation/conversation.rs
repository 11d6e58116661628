//! ADR 0279 clause 13: the transcript renders a chain as one continuous conversation.
//!
//! [`chain_conversation`] gives the host one card's content: every run of the chain in
//! order, each a turn pair (its task, then the rows its delegate wrote), with no special
//! "resumed" marking. Rows are selected like [`super::select_chain_rows`] (duplicates
//! collapsed, later copy wins).

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::history::{select_chain_rows, task_call_id, ChainSelector};
use super::registry::Registry;
use crate::error::{Error, Result};
use crate::transcript::UiMessage;

/// One run of a chain: the task, then the reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainTurn {
    pub delegation_id: String,
    pub tool_call_id: String,
    /// The run's `Task.task` (trimmed; empty when a rebuilt row recorded none).
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub description: Option<String>,
    /// `running`, a settled status, or `null`.
    pub status: Option<String>,
    /// The run's Task row in `rows` (its last copy), when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub task_row: Option<UiMessage>,
    /// The rows the delegate wrote during this run, in order.
    pub rows: Vec<UiMessage>,
}

/// A whole chain, oldest run first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ChainConversation {
    pub agent: String,
    /// The chain's latest delegationId.
    pub latest_delegation_id: String,
    pub turns: Vec<ChainTurn>,
}

/// Clause 13 for the chain `delegation_id` belongs to (any id on it).
///
/// Errors: `UNKNOWN_DELEGATION` when the registry does not hold the id.
pub fn chain_conversation(
    registry: &Registry,
    rows: &[UiMessage],
    delegation_id: &str,
) -> Result<ChainConversation> {
    let Some(chain) = registry.chain_of(delegation_id) else {
        let (listing, resumable) = registry.listing();
        return Err(Error::UnknownDelegation {
            id: delegation_id.trim().to_string(),
            listing,
            resumable,
        });
    };
    let turns = chain
        .runs
        .iter()
        .map(|run| ChainTurn {
            delegation_id: run.delegation_id.clone(),
            tool_call_id: run.tool_call_id.clone(),
            task: run.task.clone(),
            description: run.description.clone(),
            status: run.status.clone(),
            task_row: rows
                .iter()
                .rev()
                .find(|r| r.is_task_row() && task_call_id(r) == run.tool_call_id)
                .cloned(),
            rows: select_chain_rows(
                rows,
                &ChainSelector {
                    tool_call_ids: vec![run.tool_call_id.clone()],
                    agent: chain.agent.clone(),
                },
            ),
        })
        .collect();
    Ok(ChainConversation {
        agent: chain.agent.clone(),
        latest_delegation_id: chain
            .runs
            .last()
            .map(|r| r.delegation_id.clone())
            .unwrap_or_default(),
        turns,
    })
}

impl Registry {
    /// [`chain_conversation`] as a method.
    pub fn chain_conversation(
        &self,
        rows: &[UiMessage],
        delegation_id: &str,
    ) -> Result<ChainConversation> {
        chain_conversation(self, rows, delegation_id)
    }
}
