//! The library's own marks on a `compactionSummary` (ADR 0299 clauses 3–4): the file
//! lists pi keeps in `details`, how many kept messages follow the summary (their usage is
//! stale), and a degrade note's counts, written by the compaction and read back typed.

use serde_json::Value;

use crate::json_scan::{self, Kind, Span};

/// What this library writes into a `compactionSummary`'s `details`, read back typed
/// ([`SummaryMarks::to_details`] writes it, reading ignores what it does not understand).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryMarks {
    /// pi's `details.readFiles` (seeds the next compaction's file operations).
    pub read_files: Vec<String>,
    /// pi's `details.modifiedFiles`.
    pub modified_files: Vec<String>,
    /// Messages after the summary kept from before it: their usage is stale.
    pub retained_messages: usize,
    /// The summary is a degrade note (clause 4).
    pub degraded: bool,
    /// For a degrade note: how many messages it dropped.
    pub dropped_messages: usize,
    /// For a degrade note: where (in UTF-16 units of `summary`) the summary it carries
    /// starts; a second degrade carries that part instead of nesting the note.
    pub carried_from: Option<usize>,
}

/// The marks' keys in `details`, in the order they are written.
const KEYS: [&str; 6] = [
    "readFiles",
    "modifiedFiles",
    "retainedMessages",
    "degraded",
    "droppedMessages",
    "carriedFrom",
];

impl SummaryMarks {
    /// The marks of a `details` value; anything not understood is ignored (pi ignores it too).
    ///
    /// Read with the scanner, only the six fields: host-written details may hold lone
    /// surrogates or nest deeper than a parser's recursion limit anywhere else, and that
    /// must not lose the marks (the `message_facts` fuzz target found both). A repeated key
    /// counts once, its last value (as `JSON.parse`); a lone surrogate in a file name
    /// becomes U+FFFD.
    pub(super) fn read(details: Span<'_>) -> SummaryMarks {
        let mut fields: [Option<Span<'_>>; 6] = [None; 6];
        if details.kind != Kind::Object {
            return SummaryMarks::default();
        }
        let read: std::result::Result<(), json_scan::ScanError> =
            details.reader().object(|key, r| {
                let value = r.skip()?;
                if let Some(k) = crate::text_table::index_of(&KEYS, &key.decode()) {
                    fields[k] = Some(value);
                }
                Ok(())
            });
        if read.is_err() {
            return SummaryMarks::default();
        }
        let [read_files, modified_files, retained, degraded, dropped, carried] = fields;
        let list = |v: Option<Span<'_>>| -> Vec<String> {
            v.filter(|v| v.kind == Kind::Array)
                .and_then(|v| v.elements().ok())
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Span::as_str)
                        .map(|s| s.decode())
                        .collect()
                })
                .unwrap_or_default()
        };
        let count = |v: Option<Span<'_>>| -> Option<usize> {
            v.filter(|v| v.kind == Kind::Number)
                .and_then(|v| v.as_f64())
                .filter(|r| r.is_finite() && *r >= 0.0)
                .map(|r| r as usize)
        };
        SummaryMarks {
            read_files: list(read_files),
            modified_files: list(modified_files),
            retained_messages: count(retained).unwrap_or(0),
            degraded: degraded.and_then(|v| v.as_bool()).unwrap_or(false),
            dropped_messages: count(dropped).unwrap_or(0),
            carried_from: count(carried),
        }
    }

    /// The marks as a `details` value: the file lists and `retainedMessages` always, the
    /// degrade counts when they say something (not `false`, `0` or absent).
    pub fn to_details(&self) -> Value {
        let [read, modified, retained, degraded, dropped, carried] = KEYS;
        let list = |l: &[String]| Value::Array(l.iter().cloned().map(Value::String).collect());
        let mut details = crate::js_text::new_map();
        details.insert(read.into(), list(&self.read_files));
        details.insert(modified.into(), list(&self.modified_files));
        details.insert(retained.into(), (self.retained_messages as u64).into());
        if self.degraded {
            details.insert(degraded.into(), true.into());
        }
        if self.dropped_messages != 0 {
            details.insert(dropped.into(), (self.dropped_messages as u64).into());
        }
        if let Some(at) = self.carried_from {
            details.insert(carried.into(), (at as u64).into());
        }
        Value::Object(details)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The details written are the ones read back, in the keys and shape pi and the
    /// earlier derived writer used.
    #[test]
    fn details_written_and_read_back() {
        let plain = SummaryMarks {
            read_files: vec!["a.rs".into()],
            modified_files: vec![],
            retained_messages: 3,
            ..SummaryMarks::default()
        };
        assert_eq!(
            plain.to_details(),
            json!({"readFiles": ["a.rs"], "modifiedFiles": [], "retainedMessages": 3})
        );
        let degraded = SummaryMarks {
            degraded: true,
            dropped_messages: 7,
            carried_from: Some(0),
            ..plain.clone()
        };
        let details = degraded.to_details();
        assert_eq!(
            serde_json::to_string(&details).unwrap(),
            r#"{"readFiles":["a.rs"],"modifiedFiles":[],"retainedMessages":3,"degraded":true,"droppedMessages":7,"carriedFrom":0}"#
        );
        for marks in [plain, degraded] {
            let text = crate::js_text::json_stringify(&marks.to_details());
            let span = json_scan::Reader::new(&text).skip().unwrap();
            assert_eq!(SummaryMarks::read(span), marks);
        }
    }
}
