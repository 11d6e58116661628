//! ADR 0279 clause 13: the transcript renders a chain as one continuous conversation.
//!
//! `conversation_of` gives the host one card's content: every run of the chain in
//! order, each a turn pair (its task, then the rows its delegate wrote), with no special
//! "resumed" marking. Rows are selected like [`select_chain_rows`] (duplicates
//! collapsed, later copy wins). The registry's `chain_conversation` finds the chain.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::keyed::{KeySet, Keyed};

use super::chain::Chain;
#[cfg(doc)]
use super::history::select_chain_rows;
use super::history::written_by;
use super::types::RunStatus;
use crate::text_build::Owned;
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
    /// `running`, a settled status, or `null` (rebuilt, none recorded).
    #[tsify(type = "string | null")]
    pub status: RunStatus,
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

/// Clause 13 for `chain`, from the session's `rows`: one pass over the rows, whatever
/// the number of runs (each run's rows are what [`select_chain_rows`] selects for its
/// call alone).
pub(crate) fn conversation_of(chain: &Chain, rows: &[UiMessage]) -> ChainConversation {
    let calls: KeySet = chain.runs.iter().map(|r| r.tool_call_id.as_str()).collect();
    let mut task_rows: Keyed<&UiMessage> = Keyed::default();
    let mut written: Keyed<Vec<&UiMessage>> = Keyed::default();
    for row in rows {
        let head = row.head();
        if head.is_task_row_of(&calls) {
            *task_rows.entry(head.task_call_id(), || row) = row; // the last copy wins
        }
        if let Some(call) = head.parent_call().filter(|c| calls.contains(c)) {
            written.entry(call, Vec::new).push(row);
        }
    }
    let turns = chain
        .runs
        .iter()
        .map(|run| ChainTurn {
            delegation_id: run.delegation_id.clone(),
            tool_call_id: run.tool_call_id.clone(),
            task: run.task.clone(),
            description: run.description.clone(),
            status: run.status.clone(),
            task_row: task_rows
                .get(run.tool_call_id.as_str())
                .map(|r| (*r).clone()),
            rows: written
                .get(run.tool_call_id.as_str())
                .map(|during| {
                    written_by(&mut during.iter().copied(), &chain.agent)
                        .into_iter()
                        .cloned()
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    ChainConversation {
        agent: chain.agent.clone(),
        latest_delegation_id: chain.latest_id().owned(),
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delegation::chain::Run;

    #[test]
    fn unrecorded_status_is_null() {
        let chain = Chain {
            key: "k".into(),
            agent: "explorer".into(),
            brief: "b".into(),
            runs: vec![Run {
                delegation_id: "d".into(),
                tool_call_id: "t".into(),
                task: "b".into(),
                description: None,
                status: RunStatus::Unrecorded,
                replayable: None,
            }],
            objective: "b".into(),
            reads: Default::default(),
            last_active: 0,
            model: Default::default(),
            definition: None,
        };
        let conversation = conversation_of(&chain, &[]);
        let json = serde_json::to_value(&conversation).unwrap();
        assert_eq!(json["turns"][0]["status"], serde_json::Value::Null);
    }
}
