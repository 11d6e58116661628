//! How pi-agent-core 0.85.1 writes a message as text for a summary request
//! (`convertToLlm` + `serializeConversation`, host-contract §3, used by ADR 0299 clause
//! 3's compaction): the wrappers a summary is shown in, and tool results cut to 2,000
//! characters with pi's marker. [`crate::facts`] writes each message's parts with these;
//! [`crate::compaction::summary`] builds the request from the parts.

use crate::js_text::{utf16_len, utf16_prefix};

/// pi's `COMPACTION_SUMMARY_PREFIX` / `_SUFFIX` (how a summary is shown to the model).
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// pi's `BRANCH_SUMMARY_PREFIX` / `_SUFFIX`.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// pi's `TOOL_RESULT_MAX_CHARS` for serialized tool results.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// pi's `truncateForSummary`: the first `max` characters and a count of the rest.
/// (JavaScript's `slice` may split a surrogate pair; a Rust string cannot hold half of
/// one, so the cut moves one unit earlier there. The count is JavaScript's.)
pub fn truncate_for_summary(text: &str, max: usize) -> String {
    truncate_for_summary_units(text, utf16_len(text)).replace_max(max)
}

/// [`truncate_for_summary`] at [`TOOL_RESULT_MAX_CHARS`] for a text whose length in
/// UTF-16 units is already known.
pub fn truncate_for_summary_units(text: &str, units: usize) -> Truncation<'_> {
    Truncation { text, units }
}

/// A text and its length, to be cut as pi's `truncateForSummary` cuts.
pub struct Truncation<'a> {
    text: &'a str,
    units: usize,
}

impl Truncation<'_> {
    /// The text cut to `max` units with pi's marker.
    pub fn replace_max(&self, max: usize) -> String {
        if self.units <= max {
            return self.text.to_string();
        }
        let (head, _) = utf16_prefix(self.text, max);
        format!(
            "{head}\n\n[... {} more characters truncated]",
            self.units - max
        )
    }
}

impl std::fmt::Display for Truncation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.replace_max(TOOL_RESULT_MAX_CHARS))
    }
}
