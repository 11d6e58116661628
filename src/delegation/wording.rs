//! ADR 0279 clauses 4, 9 and 11: the words the parent model and the host read when a
//! resume is refused or continues differently. Every text that is not a fixed template
//! of [`crate::error::Error`] is composed here.

use super::limits::MAX_CHAINS_IN_ERROR;
use super::types::RunStatus;
use super::types::{ResumableChain, SettleStatus};
use crate::text_build::{Joined, Owned};

/// The reusable chains an error lists (clause 4: the unknown-id and no-history errors,
/// and the agent-mismatch error's "lists available").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReusableListing {
    /// `Reusable: agent / id, ... (+N more).`, or that there is none.
    pub text: String,
    /// The listed delegationIds, at most [`MAX_CHAINS_IN_ERROR`], newest activity first.
    pub ids: Vec<String>,
    /// How many reusable chains were left out.
    pub omitted: usize,
}

/// The listing of `reusable` (newest activity first), capped at [`MAX_CHAINS_IN_ERROR`].
pub fn reusable_listing(reusable: &[ResumableChain]) -> ReusableListing {
    if reusable.is_empty() {
        return ReusableListing {
            text: "No reusable subagent sessions in this conversation.".owned(),
            ids: Vec::new(),
            omitted: 0,
        };
    }
    let shown = &reusable[..reusable.len().min(MAX_CHAINS_IN_ERROR)];
    let omitted = reusable.len() - shown.len();
    let pairs: Vec<String> = shown
        .iter()
        .map(|chain| format!("{} / {}", chain.agent, chain.delegation_id))
        .collect();
    let more = if omitted > 0 {
        format!(" (+{omitted} more)")
    } else {
        String::new()
    };
    ReusableListing {
        text: format!("Reusable: {}{more}.", pairs.joined(", ")),
        ids: shown
            .iter()
            .map(|chain| chain.delegation_id.clone())
            .collect(),
        omitted,
    }
}

/// Clause 5: why the chain whose latest run is `latest` cannot be resumed.
pub fn not_resumable(latest: &str, status: &RunStatus) -> String {
    match status {
        RunStatus::Settled(status @ (SettleStatus::Stopped | SettleStatus::Aborted)) => format!(
            "Delegation {latest} was {} and is not resumable; start a new delegation.",
            status.as_str()
        ),
        RunStatus::Settled(SettleStatus::Interrupted) => format!(
            "Delegation {latest} was interrupted (the app closed while it ran) and is not resumable; start a new delegation."
        ),
        other => format!(
            "Delegation {latest} ended with status \"{}\" and is not resumable; start a new delegation.",
            other.as_text().unwrap_or_default()
        ),
    }
}

/// Clause 4: `Task.agent` differs from the chain's agent.
pub fn agent_mismatch(id: &str, expected: &str, actual: &str, listing: &ReusableListing) -> String {
    format!(
        "Delegation {id} belongs to agent \"{expected}\", not \"{actual}\": resume it with agent \"{expected}\" or start a new delegation. {}",
        listing.text
    )
}

/// Clause 4: the diagnostic of a resume that could not keep the chain's model.
pub fn model_changed(old: &str, now: &str) -> String {
    format!(
        "The chain's model \"{old}\" is no longer available; this run continues on \"{now}\" (modelChangedFrom: {old})."
    )
}

/// Clause 11: the diagnostic of a resume after the agent definition changed.
pub fn definition_changed(agent: &str, latest: &str, old: &str, new: &str) -> String {
    format!(
        "The definition of agent \"{agent}\" changed since delegation {latest} ({old} → {new}); the current definition applies."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(i: usize) -> ResumableChain {
        ResumableChain {
            agent: format!("agent-{i}"),
            delegation_id: format!("d{i}"),
            objective: String::new(),
            files: vec![],
            read_lines: 0,
            status: RunStatus::Unrecorded,
        }
    }

    #[test]
    fn listings_are_capped() {
        let none = reusable_listing(&[]);
        assert_eq!(
            none.text,
            "No reusable subagent sessions in this conversation."
        );
        let two = reusable_listing(&[chain(1), chain(2)]);
        assert_eq!(two.text, "Reusable: agent-1 / d1, agent-2 / d2.");
        assert_eq!((two.ids.len(), two.omitted), (2, 0));
        let many: Vec<ResumableChain> = (0..25).map(chain).collect();
        let capped = reusable_listing(&many);
        assert_eq!(capped.ids.len(), MAX_CHAINS_IN_ERROR);
        assert_eq!(capped.omitted, 5);
        assert!(
            capped.text.ends_with("agent-19 / d19 (+5 more)."),
            "{}",
            capped.text
        );
    }
}
