//! ADR 0299 clause 3 (via host-contract §3): pi-agent-core 0.85.1's `FileOperations`,
//! the files a compaction names: collected from the messages' read / write / edit tool
//! calls and from a previous summary's marks, then listed as pi's `computeFileLists` does.
//! A compacted context's summary ends with them; a degrade note names the dropped ones.
//!
//! A difference from pi, forced by working on messages instead of session entries: pi
//! seeds `fileOps` from the previous compaction entry's `details.readFiles` /
//! `details.modifiedFiles`. A host's `compactionSummary` message has no `details`; when it
//! does (the ones this library writes carry them), they seed `fileOps` exactly as pi's
//! entry would; otherwise `fileOps` come from the messages alone.

use serde::Serialize;
use tsify::Tsify;

use super::context::DelegateContext;
use super::plan::CompactionPlan;
use crate::facts::{FileOpKind, MessageFacts};
use crate::text_build::Owned;

/// pi's `FileOperations` with its `Set`s as arrays in insertion order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Tsify)]
pub struct FileOps {
    pub read: Vec<String>,
    pub written: Vec<String>,
    pub edited: Vec<String>,
}

#[inline(never)]
fn add_unique(set: &mut Vec<String>, v: &str) {
    if !set.iter().any(|x| x == v) {
        set.push(v.owned());
    }
}

impl FileOps {
    /// pi's `extractFileOpsFromMessage` for one message's facts.
    #[inline(never)]
    pub fn add_message(&mut self, facts: &MessageFacts) {
        for (kind, path) in &facts.file_ops {
            match kind {
                FileOpKind::Read => add_unique(&mut self.read, path),
                FileOpKind::Write => add_unique(&mut self.written, path),
                FileOpKind::Edit => add_unique(&mut self.edited, path),
            }
        }
    }

    /// Seed from a previous summary's marks (`readFiles` → read, `modifiedFiles` →
    /// edited), as pi does from its previous compaction entry.
    #[inline(never)]
    pub fn add_summary(&mut self, facts: &MessageFacts) {
        if let Some(s) = &facts.summary {
            for p in &s.read_files {
                add_unique(&mut self.read, p);
            }
            for p in &s.modified_files {
                add_unique(&mut self.edited, p);
            }
        }
    }

    /// pi's `extractFileOperations` over what `plan` summarizes (+ the split turn's
    /// prefix), seeded from its previous summary.
    pub fn of_plan(plan: &CompactionPlan, ctx: &DelegateContext) -> FileOps {
        let facts = ctx.facts();
        let mut ops = FileOps::default();
        if let Some(i) = plan.previous_summary_index {
            ops.add_summary(&facts[i]);
        }
        for range in [plan.history_range(), plan.prefix_range()] {
            for &i in ctx.file_op_indices(range) {
                ops.add_message(&facts[i]);
            }
        }
        ops
    }

    /// pi's `computeFileLists`: `(readFiles, modifiedFiles)`, read-only files are those
    /// read and never modified; both sorted as JavaScript's default `sort()` does
    /// (by UTF-16 code units).
    pub fn file_lists(&self) -> (Vec<String>, Vec<String>) {
        let mut modified: Vec<String> = Vec::new();
        for p in self.edited.iter().chain(self.written.iter()) {
            add_unique(&mut modified, p);
        }
        let mut read: Vec<String> = self
            .read
            .iter()
            .filter(|p| !modified.contains(p))
            .cloned()
            .collect();
        crate::order::sort_by(&mut read, |a, b| js_cmp(a, b));
        crate::order::sort_by(&mut modified, |a, b| js_cmp(a, b));
        (read, modified)
    }
}

/// JavaScript's default string order: UTF-16 code unit by code unit.
pub fn js_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_sort_order_is_utf16() {
        // U+FF5E (one unit, 0xFF5E) sorts after U+1F600 (surrogates 0xD83D...) in JS.
        assert_eq!(js_cmp("\u{1F600}", "\u{FF5E}"), std::cmp::Ordering::Less);
    }
}
