//! The library's own marks on a `compactionSummary` (ADR 0299 clauses 3–4): the file
//! lists pi keeps in `details`, how many kept messages follow the summary (their usage is
//! stale), and a degrade note's counts, written by the compaction and read back typed.

use serde_json::Value;

use crate::json_scan::{self, Kind, Span};

/// What this library writes into a `compactionSummary`'s `details`, read back typed
/// ([`SummaryMarks::to_details`] writes it, reading ignores what it does not understand).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryMarks {
    /// pi's `details.readFiles` (seeds the next compaction's file operations).
    pub read_files: Vec<String>,
    /// pi's `details.modifiedFiles`.
    pub modified_files: Vec<String>,
    /// Messages after the summary kept from before it: their usage is stale.
    pub retained_messages: usize,
    /// The summary is a degrade note (clause 4).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub degraded: bool,
    /// For a degrade note: how many messages it dropped.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_messages: usize,
    /// For a degrade note: where (in UTF-16 units of `summary`) the summary it carries
    /// starts; a second degrade carries that part instead of nesting the note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried_from: Option<usize>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

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
        const KEYS: [&str; 6] = [
            "readFiles",
            "modifiedFiles",
            "retainedMessages",
            "degraded",
            "droppedMessages",
            "carriedFrom",
        ];
        if details.kind != Kind::Object {
            return SummaryMarks::default();
        }
        let read: std::result::Result<(), json_scan::ScanError> =
            details.reader().object(|key, r| {
                let value = r.skip()?;
                if let Some(k) = KEYS.iter().position(|k| key.decode() == *k) {
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

    /// The marks as a `details` value.
    pub fn to_details(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
