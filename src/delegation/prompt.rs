//! ADR 0279 clause 9: the resumable list the parent sees in its system prompt, in the
//! host's exact format (host-contract §8):
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

use super::registry::ResumableChain;
use super::MAX_RESUMABLE_LISTED_FILES;

/// The header line of the resumable list.
pub const RESUMABLE_LIST_HEADER: &str = "Reusable subagent sessions (same conversation only). To continue one, pass its `resume` id on Task. Saying \"reuse\" in prose is not enough; omit `resume` to start a new session. Do not pass `model` when resuming.";

/// An objective on one line: every line break (with the blanks around it) becomes one
/// space; the result is trimmed.
pub fn one_line(s: &str) -> String {
    let s = s.trim();
    if !s.contains(['\n', '\r']) {
        return s.to_string();
    }
    s.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `Files read:` value: the first 8 files, ` (+N more)`, or `none recorded`.
pub fn files_line(files: &[String]) -> String {
    if files.is_empty() {
        return "none recorded".into();
    }
    let shown = files.len().min(MAX_RESUMABLE_LISTED_FILES);
    let mut out = files[..shown].join(", ");
    if files.len() > shown {
        out.push_str(&format!(" (+{} more)", files.len() - shown));
    }
    out
}

/// The block for `chains` (already filtered and ordered newest first); `""` when empty.
pub fn format_resumable_list(chains: &[ResumableChain]) -> String {
    if chains.is_empty() {
        return String::new();
    }
    let mut lines = vec![RESUMABLE_LIST_HEADER.to_string()];
    for c in chains {
        let objective = one_line(&c.objective);
        let objective = if objective.is_empty() {
            "(no label)".to_string()
        } else {
            objective
        };
        lines.push(format!(
            "- {} / {}: {}",
            c.agent, c.delegation_id, objective
        ));
        lines.push(format!("  Files read: {}", files_line(&c.files)));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(agent: &str, id: &str, objective: &str, files: usize) -> ResumableChain {
        ResumableChain {
            agent: agent.into(),
            delegation_id: id.into(),
            objective: objective.into(),
            files: (0..files).map(|i| format!("f{i}.rs")).collect(),
            read_lines: 3,
            status: Some("completed".into()),
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
}
