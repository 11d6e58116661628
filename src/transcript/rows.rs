//! Persisted transcript rows (`UiMessage`, host-contract §6), shared by the
//! parent-context rebuild (seed 001) and the resumable delegations (ADR 0279 clauses 2,
//! 3, 8 and 12).
//!
//! Rows are what the host stores and replays. Fields we do not model are kept in
//! `extra`. Required: `id` (string) and `role` (`user | assistant | system | tool`);
//! `content` defaults to `""` when missing.
//!
//! [`RowHead`] holds the few fields that decide which rows a function reads (is it a
//! Task row, which call wrote it, is it a read); its methods are the only place those
//! rules live, so a caller that looks at a row before decoding it (the wasm binding's
//! pre-filters) and the core that decodes it always agree.
//!
//! Duplicate rows: the host rewrites a row in place when it settles, so a transcript may
//! hold two copies with the same `id`; [`dedupe_rows`] keeps the later copy at the first
//! copy's place.

use crate::keyed::{KeySet, Keyed};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

use super::names::{is_read_only_tool, is_task_tool, normalize_agent_name};
use crate::decode::{decode_enum, decode_struct};
use crate::error::Result;
use crate::js_whitespace;
use crate::message::{decode_at, kind_of};
use crate::text_build::Owned;
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

decode_enum!(RowRole: ALL, as_str);

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
    /// The row's order key ([`super::order`]): set on every row the package writes, kept
    /// by a rewrite in place; readers put rows back in this order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub order: Option<f64>,
    #[serde(flatten)]
    #[tsify(type = "{}")]
    pub extra: Map<String, Value>,
}

decode_struct!(UiMessage "UiMessage" {
    id: "id" => req,
    role: "role" => req,
    content: "content" => default,
    created_at: "createdAt" => default,
    status: "status" => default,
    thinking: "thinking" => default,
    model_id: "modelId" => default,
    provider_id: "providerId" => default,
    usage: "usage" => default,
    error: "error" => default,
    tool_name: "toolName" => default,
    tool_call_id: "toolCallId" => default,
    tool_status: "toolStatus" => default,
    tool_args: "toolArgs" => default,
    tool_result: "toolResult" => default,
    is_error: "isError" => default,
    parent_tool_call_id: "parentToolCallId" => default,
    agent_name: "agentName" => default,
    order: "order" => default,
} extra extra);

impl RowRole {
    /// Every role in declared order, for decoding.
    pub const ALL: [RowRole; 4] = [
        RowRole::User,
        RowRole::Assistant,
        RowRole::System,
        RowRole::Tool,
    ];

    /// The role as the host writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            RowRole::User => "user",
            RowRole::Assistant => "assistant",
            RowRole::System => "system",
            RowRole::Tool => "tool",
        }
    }
}

/// A tool row's `toolResult.content` holding one text block (`[{type: "text", text}]`),
/// as pi writes a result whose content is a string.
pub fn text_content(text: &str) -> Value {
    let mut block = crate::js_text::new_map();
    block.insert("type".owned(), Value::String("text".owned()));
    block.insert("text".owned(), Value::String(text.owned()));
    Value::Array(vec![Value::Object(block)])
}

impl UiMessage {
    /// A row the package writes: its id and role, every other field empty (the writers
    /// of [`super::from_messages`] and the Task rows fill in theirs).
    #[inline(never)]
    pub fn new(id: String, role: RowRole) -> UiMessage {
        UiMessage {
            id,
            role,
            content: String::new(),
            created_at: None,
            status: None,
            thinking: None,
            model_id: None,
            provider_id: None,
            usage: None,
            error: None,
            tool_name: None,
            tool_call_id: None,
            tool_status: None,
            tool_args: None,
            tool_result: None,
            is_error: None,
            parent_tool_call_id: None,
            agent_name: None,
            order: None,
            extra: crate::js_text::new_map(),
        }
    }

    /// The fields the row rules look at.
    #[inline(never)]
    pub fn head(&self) -> RowHead<'_> {
        RowHead {
            id: Some(&self.id),
            role: Some(self.role.as_str()),
            tool_name: self.tool_name.as_deref(),
            tool_call_id: self.tool_call_id.as_deref(),
            parent_tool_call_id: self.parent_tool_call_id.as_deref(),
            agent_name: self.agent_name.as_deref(),
        }
    }

    /// Whether this row is a Task (delegation) call row ([`RowHead::is_task_row`]).
    pub fn is_task_row(&self) -> bool {
        self.head().is_task_row()
    }

    /// The id a Task row is known by ([`RowHead::task_call_id`]).
    #[inline(never)]
    pub fn task_call_id(&self) -> &str {
        self.head().task_call_id()
    }

    /// `toolArgs` as an object: an object as is, a JSON string parsed; `None` otherwise.
    #[inline(never)]
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

/// The few fields of a row that decide which rows a function reads, borrowed from a
/// decoded [`UiMessage`] ([`UiMessage::head`]) or from values a caller read itself
/// ([`RowHead::from_fields`]). A field that is absent or not a string is `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowHead<'a> {
    pub id: Option<&'a str>,
    pub role: Option<&'a str>,
    pub tool_name: Option<&'a str>,
    pub tool_call_id: Option<&'a str>,
    pub parent_tool_call_id: Option<&'a str>,
    pub agent_name: Option<&'a str>,
}

/// Task call ids (`toolCallId`s of Task rows), as the row rules take them.
pub type CallIds<'a> = KeySet<'a>;

/// A field of [`RowHead`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadField {
    Id,
    Role,
    ToolName,
    ToolCallId,
    ParentToolCallId,
}

impl HeadField {
    /// How many fields a filter may read ([`RowHead::from_fields`]'s array).
    pub const COUNT: usize = 5;

    /// The field's name on a host row.
    pub fn js_name(self) -> &'static str {
        match self {
            HeadField::Id => "id",
            HeadField::Role => "role",
            HeadField::ToolName => "toolName",
            HeadField::ToolCallId => "toolCallId",
            HeadField::ParentToolCallId => "parentToolCallId",
        }
    }

    /// Its place in [`RowHead::from_fields`]'s array.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which rows a function reads, judged from the row head alone: the one statement of
/// each selection rule, asked by the core on decoded rows and by the wasm binding on
/// host rows before it decodes them (so both always select the same rows).
#[derive(Clone, Copy, Debug)]
pub enum RowFilter<'c> {
    /// Rows a delegate wrote, and Task rows (what a rebuild reads).
    DelegateOrTaskRows,
    /// Rows written during one of these Task calls (a chain's rows, by any agent).
    WrittenDuring(&'c CallIds<'c>),
    /// Those, plus the Task rows of these calls.
    WrittenDuringOrTaskRowOf(&'c CallIds<'c>),
    /// Rows of read-only tools (ADR 0279 clause 8).
    ReadRows,
}

impl RowFilter<'_> {
    /// The fields [`RowFilter::accepts`] looks at (the others may be left `None`).
    pub fn fields(&self) -> &'static [HeadField] {
        use HeadField::*;
        match self {
            RowFilter::DelegateOrTaskRows => &[ParentToolCallId, Role, ToolName],
            RowFilter::WrittenDuring(_) => &[ParentToolCallId],
            RowFilter::WrittenDuringOrTaskRowOf(_) => {
                &[ParentToolCallId, Role, ToolName, ToolCallId, Id]
            }
            RowFilter::ReadRows => &[Role, ToolName],
        }
    }

    /// The head fields this filter looks at, each read by `read(its JavaScript name)`
    /// (a host row's property; `None` when it is not a string), the others left `None`:
    /// what [`RowHead::from_fields`] takes.
    pub fn head_fields<E>(
        &self,
        mut read: impl FnMut(&'static str) -> Result<Option<String>, E>,
    ) -> Result<[Option<String>; HeadField::COUNT], E> {
        let mut fields: [Option<String>; HeadField::COUNT] = Default::default();
        for field in self.fields() {
            if let Some(slot) = fields.get_mut(field.index()) {
                *slot = read(field.js_name())?;
            }
        }
        Ok(fields)
    }

    /// Whether a row with this head is read.
    pub fn accepts(&self, head: &RowHead) -> bool {
        match self {
            RowFilter::DelegateOrTaskRows => head.is_delegate_row() || head.is_task_row(),
            RowFilter::WrittenDuring(calls) => head.is_written_during(calls),
            RowFilter::WrittenDuringOrTaskRowOf(calls) => {
                head.is_written_during(calls) || head.is_task_row_of(calls)
            }
            RowFilter::ReadRows => head.is_read_row(),
        }
    }
}

impl<'a> RowHead<'a> {
    /// A head from values read in [`HeadField`] order (at [`HeadField::index`]); no
    /// filter reads `agentName`, so such a head has none.
    pub fn from_fields(values: &'a [Option<String>; HeadField::COUNT]) -> Self {
        let [id, role, tool_name, tool_call_id, parent_tool_call_id] = values;
        RowHead {
            id: id.as_deref(),
            role: role.as_deref(),
            tool_name: tool_name.as_deref(),
            tool_call_id: tool_call_id.as_deref(),
            parent_tool_call_id: parent_tool_call_id.as_deref(),
            agent_name: None,
        }
    }

    fn is_tool_row(&self) -> bool {
        self.role == Some(RowRole::Tool.as_str())
    }

    /// A Task (delegation) call row: role `tool`, tool name `Task` in any spelling.
    pub fn is_task_row(&self) -> bool {
        self.is_tool_row() && self.tool_name.is_some_and(is_task_tool)
    }

    /// The id a Task row is known by: its `toolCallId` unless blank, else its row `id`.
    #[inline(never)]
    pub fn task_call_id(&self) -> &'a str {
        match self.tool_call_id {
            Some(id) if !js_whitespace::is_blank(id) => id,
            _ => self.id.unwrap_or(""),
        }
    }

    /// A Task row of one of `calls`.
    pub fn is_task_row_of(&self, calls: &CallIds) -> bool {
        self.is_task_row() && calls.contains(self.task_call_id())
    }

    /// The Task call that wrote this row, when a delegate wrote it (`parentToolCallId`,
    /// non-empty).
    pub fn parent_call(&self) -> Option<&'a str> {
        self.parent_tool_call_id.filter(|p| !p.is_empty())
    }

    /// A row a delegate wrote (the parent's context never holds one).
    pub fn is_delegate_row(&self) -> bool {
        self.parent_call().is_some()
    }

    /// A row written during one of `calls` (by any agent: see [`RowHead::is_written_by`]).
    pub fn is_written_during(&self, calls: &CallIds) -> bool {
        self.parent_call().is_some_and(|p| calls.contains(p))
    }

    /// Written by the agent `agent` (already normalised); names compare normalised.
    pub fn is_written_by(&self, agent: &str) -> bool {
        self.agent_name
            .is_some_and(|a| normalize_agent_name(a) == agent)
    }

    /// A row of a read-only tool (ADR 0279 clause 8).
    pub fn is_read_row(&self) -> bool {
        self.is_tool_row() && self.tool_name.is_some_and(is_read_only_tool)
    }
}

/// The rows in reading order with duplicate ids collapsed: the later copy wins, at the
/// first copy's place; then rows with an order key are put in key order
/// ([`super::order::arrange`]). Rows are borrowed.
///
/// Not generic (one copy for every caller's iterator, issue 17 §7).
pub fn dedupe_rows<'a>(rows: &mut dyn Iterator<Item = &'a UiMessage>) -> Vec<&'a UiMessage> {
    let rows = dedupe_copies(rows);
    let keys: Vec<Option<f64>> = rows.iter().map(|r| r.order).collect();
    super::order::arrange(&keys)
        .into_iter()
        .filter_map(|i| rows.get(i).copied())
        .collect()
}

/// The rows with duplicate ids collapsed (the later copy at the first copy's place).
fn dedupe_copies<'a>(rows: &mut dyn Iterator<Item = &'a UiMessage>) -> Vec<&'a UiMessage> {
    let mut out: Vec<&UiMessage> = Vec::new();
    let mut at: Keyed<usize> = Keyed::default();
    for row in rows {
        match at.get(row.id.as_str()) {
            Some(&i) => {
                if let Some(slot) = out.get_mut(i) {
                    *slot = row;
                }
            }
            None => {
                at.put(row.id.as_str(), out.len());
                out.push(row);
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filters_look_only_at_the_fields_they_name() {
        let calls: CallIds = ["t1"].into_iter().collect();
        let filters = [
            RowFilter::DelegateOrTaskRows,
            RowFilter::WrittenDuring(&calls),
            RowFilter::WrittenDuringOrTaskRowOf(&calls),
            RowFilter::ReadRows,
        ];
        let values = |v: [Option<&str>; 6]| v.map(|f| f.map(str::to_string));
        let heads = [
            values([Some("t1"), Some("tool"), Some("TASK"), Some(""), None, None]),
            values([
                Some("x"),
                Some("tool"),
                Some("task"),
                Some("t1"),
                None,
                None,
            ]),
            values([
                Some("r"),
                Some("tool"),
                Some("rEaD"),
                Some("r"),
                Some("t1"),
                Some("e"),
            ]),
            values([Some("r"), Some("user"), None, None, Some("t2"), Some("e")]),
            values([
                Some("r"),
                Some("tool"),
                Some("glob"),
                Some("g"),
                Some(""),
                None,
            ]),
            values([None, None, None, None, None, None]),
        ];
        // every field of a head, `agentName` too (which no filter may read)
        fn whole(v: &[Option<String>; 6]) -> RowHead<'_> {
            RowHead {
                id: v[0].as_deref(),
                role: v[1].as_deref(),
                tool_name: v[2].as_deref(),
                tool_call_id: v[3].as_deref(),
                parent_tool_call_id: v[4].as_deref(),
                agent_name: v[5].as_deref(),
            }
        }
        for filter in filters {
            for full in &heads {
                let mut partial: [Option<String>; HeadField::COUNT] = Default::default();
                for field in filter.fields() {
                    partial[field.index()] = full[field.index()].clone();
                }
                assert_eq!(
                    filter.accepts(&whole(full)),
                    filter.accepts(&RowHead::from_fields(&partial)),
                    "{filter:?} {full:?}"
                );
            }
        }
        let blank_call = whole(&heads[0]);
        assert!(blank_call.is_task_row() && blank_call.task_call_id() == "t1");
        assert!(RowFilter::WrittenDuringOrTaskRowOf(&calls).accepts(&blank_call));
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
