//! Persisted transcript rows (`UiMessage`, host-contract §6) and the host's name
//! normalising rules, shared by the parent-context rebuild (seed 001) and the
//! resumable delegations (ADR 0279 clauses 3 and 12).
//!
//! Rows are what the host stores and replays. Fields we do not model are kept in
//! `extra`. Required: `id` (string) and `role` (`user | assistant | system | tool`);
//! `content` defaults to `""` when missing.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

use crate::error::Result;
use crate::message::{decode_at, kind_of};
use crate::Error;

/// The role of a persisted row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "lowercase")]
pub enum RowRole {
    User,
    Assistant,
    System,
    Tool,
}

/// One persisted transcript row (`UiMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct UiMessage {
    pub id: String,
    pub role: RowRole,
    #[serde(default)]
    pub content: String,
    /// ISO timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub created_at: Option<String>,
    /// `streaming | complete | error | aborted`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub provider_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub usage: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub error: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub tool_call_id: Option<String>,
    /// `running | success | error | denied`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub tool_status: Option<String>,
    /// The tool call's arguments: an object (or its JSON text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub tool_args: Option<Value>,
    /// The tool's result: a string, `{content: [...]}`, `{text}`, or any JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub tool_result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub is_error: Option<bool>,
    /// Set on every row a delegate wrote: the Task call's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub parent_tool_call_id: Option<String>,
    /// Set on every row a delegate wrote: the delegate's agent name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub agent_name: Option<String>,
    #[serde(flatten)]
    #[tsify(type = "{}")]
    pub extra: Map<String, Value>,
}

impl UiMessage {
    /// The row's tool name, normalised (`Task` → `task`).
    pub fn normalized_tool_name(&self) -> Option<String> {
        self.tool_name.as_deref().map(normalize_tool_name)
    }

    /// Whether this row is a Task (delegation) call row.
    pub fn is_task_row(&self) -> bool {
        self.role == RowRole::Tool && self.normalized_tool_name().as_deref() == Some("task")
    }

    /// `toolArgs` as an object: an object as is, a JSON string parsed; `None` otherwise.
    pub fn tool_args_object(&self) -> Option<Map<String, Value>> {
        match self.tool_args.as_ref()? {
            Value::Object(m) => Some(m.clone()),
            Value::String(s) => match crate::js_text::parse_json(s) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Decode `UiMessage[]`, naming `path[i].field` in errors.
pub fn rows_from_value(value: Value, path: &str) -> Result<Vec<UiMessage>> {
    let Value::Array(items) = value else {
        return Err(Error::invalid(
            path,
            format!("expected an array of rows, got {}", kind_of(&value)),
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let p = format!("{path}[{i}]");
            if !v.is_object() {
                return Err(Error::invalid(
                    &p,
                    format!("expected a row object, got {}", kind_of(&v)),
                ));
            }
            decode_at(v, &p)
        })
        .collect()
}

/// Normalise a tool name: legacy PascalCase names become snake_case
/// (`Read` → `read`, `BrowserPreview` → `browser_preview`, `TaskWait` → `task_wait`);
/// names that are already lower-case are unchanged (`new_context`, `asktool`).
pub fn normalize_tool_name(name: &str) -> String {
    let name = name.trim();
    if !name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else {
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c);
        }
    }
    out
}

/// Normalise an agent name: basename, drop `.md`, trim, lower-case, spaces and
/// underscores → `-` (`Explorer`, `agents/explorer.md` and ` explorer ` are all `explorer`).
pub fn normalize_agent_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let base = base.trim();
    let base = match base
        .len()
        .checked_sub(3)
        .and_then(|cut| base.get(cut..).map(|ext| (cut, ext)))
    {
        Some((cut, ext)) if ext.eq_ignore_ascii_case(".md") => &base[..cut],
        _ => base,
    };
    base.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '_' { '-' } else { c })
        .collect()
}

/// `createdAt` (ISO 8601) as milliseconds since the epoch, like `Date.parse`; `None`
/// when absent or not understood. Accepts `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]`
/// (no zone: UTC).
pub fn iso_to_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms) = (0i64, 0i64, 0i64, 0f64);
    let mut i = 10;
    if i < b.len() && (b[i] == b'T' || b[i] == b' ') {
        h = num(i + 1, 2)?;
        if b.get(i + 3) != Some(&b':') {
            return None;
        }
        mi = num(i + 4, 2)?;
        i += 6;
        if b.get(i) == Some(&b':') {
            sec = num(i + 1, 2)?;
            i += 3;
            if b.get(i) == Some(&b'.') {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end == start {
                    return None;
                }
                let frac: f64 = format!("0.{}", &s[start..end]).parse().ok()?;
                ms = (frac * 1000.0).floor();
                i = end;
            }
        }
        if h > 24 || mi > 59 || sec > 60 {
            return None;
        }
    }
    let mut offset_min = 0i64;
    match b.get(i) {
        None => {}
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => {}
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2)?;
            let om = match b.get(i + 3) {
                Some(b':') => num(i + 4, 2)?,
                _ => num(i + 3, 2)?,
            };
            offset_min = (oh * 60 + om) * if sign == b'+' { 1 } else { -1 };
        }
        _ => return None,
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    Some(secs as f64 * 1000.0 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_names() {
        for (a, b) in [
            ("Read", "read"),
            ("Grep", "grep"),
            ("Glob", "glob"),
            ("BrowserPreview", "browser_preview"),
            ("Task", "task"),
            ("TaskWait", "task_wait"),
            ("TaskList", "task_list"),
            ("new_context", "new_context"),
            ("asktool", "asktool"),
            ("ToolSearch", "tool_search"),
            ("task", "task"),
        ] {
            assert_eq!(normalize_tool_name(a), b);
        }
    }

    #[test]
    fn agent_names() {
        for (a, b) in [
            ("Explorer", "explorer"),
            ("explorer.md", "explorer"),
            ("agents/Code Reviewer.md", "code-reviewer"),
            (" my_agent ", "my-agent"),
            ("a\\b\\X.MD", "x"),
            // non-ASCII names: no byte slicing inside a character
            ("Аналитик", "аналитик"),
            ("search 🔍", "search-🔍"),
            ("日x", "日x"),
            ("日.md", "日"),
        ] {
            assert_eq!(normalize_agent_name(a), b);
        }
    }

    #[test]
    fn rows_decode_with_paths_and_keep_unknown_fields() {
        let rows = rows_from_value(
            json!([{"id": "1", "role": "user", "content": "hi", "custom": 1}]),
            "rows",
        )
        .unwrap();
        assert_eq!(rows[0].extra.get("custom"), Some(&json!(1)));
        assert_eq!(
            serde_json::to_value(&rows[0]).unwrap(),
            json!({"id": "1", "role": "user", "content": "hi", "custom": 1})
        );
        let e = rows_from_value(json!([{"id": "1", "role": "user"}, 5]), "rows").unwrap_err();
        assert!(e.to_string().contains("rows[1]"), "{e}");
        let e = rows_from_value(json!([{"id": "1", "role": "robot"}]), "rows").unwrap_err();
        assert!(e.to_string().contains("rows[0].role"), "{e}");
        let e = rows_from_value(json!([{"id": "1", "role": "tool", "toolName": 7}]), "rows")
            .unwrap_err();
        assert!(e.to_string().contains("rows[0].toolName"), "{e}");
    }
}
