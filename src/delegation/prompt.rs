//! ADR 0279 clause 9: what the parent model reads about resumable delegations: the
//! `resume` parameter's description for the Task tool's schema ([`resume_parameter_schema`]),
//! and the resumable list in its system prompt, in the host's exact format
//! (host-contract §8):
//!
//! ```text
//! Reusable subagent sessions (same conversation only). To continue one, pass its `resume` id on Task. Saying "reuse" in prose is not enough; omit `resume` to start a new session. Do not pass `model` when resuming.
//! - <agent> / <latestDelegationId>: <objective or "(no label)">
//!   Files read: <first 8 joined with ", "> (+N more)
//! ```
//!
//! One entry per chain, newest activity first, lines joined with `\n`, no trailing
//! newline. No chain: the empty string (the host appends nothing). An objective is one
//! line: line breaks inside it (a `task` used as the label) become single spaces, so a
//! multi-line brief cannot break the list's format.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::js_whitespace;
use crate::text_build::{Joined, Owned};

use super::limits::MAX_RESUMABLE_LISTED_FILES;
use super::types::ResumableChain;
use crate::text_build::Append;

/// Clause 9, last paragraph: the description of the Task tool's `resume` parameter
/// ("reuse requires the id; prose alone does not resume anything"), and clause 4's
/// "Task.model ... not allowed on a resumed run".
pub const RESUME_PARAMETER_DESCRIPTION: &str = "The delegationId of an earlier delegation to continue with its history (from a Task result, or the reusable subagent sessions listed in the system prompt). Reuse requires this id: saying \"reuse\" or \"continue\" in prose resumes nothing. Omit it to start a new delegation. Use the same agent, and do not pass `model` on a resume: a resumed run keeps its own model.";

/// The JSON schema of the Task tool's `resume` parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct ResumeParameterSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"string\"")]
    pub kind: String,
    /// What the model reads: reuse requires the id, prose resumes nothing, no `model`
    /// on a resume.
    pub description: String,
}

/// The `resume` parameter's schema, to put in the host's Task tool schema as it is.
pub fn resume_parameter_schema() -> ResumeParameterSchema {
    ResumeParameterSchema {
        kind: "string".owned(),
        description: RESUME_PARAMETER_DESCRIPTION.into(),
    }
}

/// The header line of the resumable list.
pub const RESUMABLE_LIST_HEADER: &str = "Reusable subagent sessions (same conversation only). To continue one, pass its `resume` id on Task. Saying \"reuse\" in prose is not enough; omit `resume` to start a new session. Do not pass `model` when resuming.";

/// An objective on one line: every line break (with the blanks around it) becomes one
/// space; the result is trimmed.
pub fn one_line(s: &str) -> String {
    let s = js_whitespace::trim(s);
    if !s.contains(['\n', '\r']) {
        return s.owned();
    }
    s.split(['\n', '\r'])
        .map(js_whitespace::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .joined(" ")
}

/// The `Files read:` value: the first 8 files, ` (+N more)`, or `none recorded`.
pub fn files_line(files: &[String]) -> String {
    if files.is_empty() {
        return "none recorded".owned();
    }
    let shown = files.len().min(MAX_RESUMABLE_LISTED_FILES);
    let mut out = files.get(..shown).unwrap_or_default().joined(", ");
    if files.len() > shown {
        out.append(&format!(" (+{} more)", files.len() - shown));
    }
    out
}

/// The block for `chains` (already filtered and ordered newest first); `""` when empty.
pub fn format_resumable_list(chains: &[ResumableChain]) -> String {
    if chains.is_empty() {
        return String::new();
    }
    let mut lines = vec![RESUMABLE_LIST_HEADER.owned()];
    for chain in chains {
        let objective = one_line(&chain.objective);
        let objective = if objective.is_empty() {
            "(no label)".owned()
        } else {
            objective
        };
        lines.push(format!(
            "- {} / {}: {}",
            chain.agent, chain.delegation_id, objective
        ));
        lines.push(format!("  Files read: {}", files_line(&chain.files)));
    }
    lines.joined("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delegation::types::{RunStatus, SettleStatus};

    fn chain(agent: &str, id: &str, objective: &str, files: usize) -> ResumableChain {
        ResumableChain {
            agent: agent.into(),
            delegation_id: id.into(),
            objective: objective.into(),
            files: (0..files).map(|i| format!("f{i}.rs")).collect(),
            read_lines: 3,
            status: RunStatus::Settled(SettleStatus::Completed),
        }
    }

    #[test]
    fn exact_host_format() {
        let s = format_resumable_list(&[
            chain("explorer", "d2", "Map the parser", 10),
            chain("coder", "d1", "", 0),
            chain("coder", "d0", " line one\n  line two \r\n", 8),
        ]);
        assert_eq!(
            s,
            "Reusable subagent sessions (same conversation only). To continue one, pass its `resume` id on Task. Saying \"reuse\" in prose is not enough; omit `resume` to start a new session. Do not pass `model` when resuming.\n\
- explorer / d2: Map the parser\n  Files read: f0.rs, f1.rs, f2.rs, f3.rs, f4.rs, f5.rs, f6.rs, f7.rs (+2 more)\n\
- coder / d1: (no label)\n  Files read: none recorded\n\
- coder / d0: line one line two\n  Files read: f0.rs, f1.rs, f2.rs, f3.rs, f4.rs, f5.rs, f6.rs, f7.rs"
        );
        assert_eq!(format_resumable_list(&[]), "");
    }

    #[test]
    fn the_resume_parameter_says_the_id_is_required() {
        let schema = serde_json::to_value(resume_parameter_schema()).unwrap();
        assert_eq!(schema["type"], "string");
        let description = schema["description"].as_str().unwrap();
        for needed in [
            "delegationId",
            "requires this id",
            "prose resumes nothing",
            "`model`",
        ] {
            assert!(description.contains(needed), "{needed}: {description}");
        }
    }
}
