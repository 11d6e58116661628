//! ADR 0279 clauses 2 and 3 (a chain's rows, its original task, its label), clause 8
//! (what a chain read) and clause 4's last row (whether a run left anything to replay),
//! with host-contract §8's rules. Pure functions over transcript rows; which rows count
//! is decided by [`RowFilter`], the same rules the wasm binding's pre-filters ask.
//!
//! - [`select_chain_rows`]: rows written during one of the chain's Task calls
//!   (`parentToolCallId`) by the chain's agent (normalised), in transcript order,
//!   duplicate copies collapsed (later copy wins).
//! - [`objective_from_args`]: the one-line label of a Task call.
//! - [`count_chain_reads`]: files and lines of the read-only tools.
//! - [`run_replays_anything`]: whether a run's rows convert to anything besides an echo
//!   of the brief (the brief itself is always seeded).

use serde_json::{Map, Value};

use super::text::non_blank;
use super::types::{ChainReads, ChainSelector};
use crate::js_whitespace;
use crate::message::{AgentMessage, Content, ContentBlock};
use crate::text_build::{Joined, Owned};
use crate::transcript::{
    dedupe_rows, normalize_agent_name, rows_to_messages, CallIds, ProviderBinding, RowFilter,
    UiMessage,
};

/// Clauses 2–3: every row written during one of the chain's calls (`parentToolCallId`)
/// whose `agentName` (normalised) is the chain's agent, in transcript order, duplicates
/// collapsed (the agent is checked on the copy that wins). Task rows themselves carry no
/// `parentToolCallId` and are never selected.
pub fn select_chain_rows<'r>(rows: &'r [UiMessage], chain: &ChainSelector) -> Vec<&'r UiMessage> {
    let calls: CallIds = chain.tool_call_ids.iter().map(String::as_str).collect();
    let written_during = RowFilter::WrittenDuring(&calls);
    let mut during = rows
        .iter()
        .filter(|row| written_during.accepts(&row.head()));
    written_by(&mut during, &chain.agent)
}

/// Of `during` (rows written during a chain's calls, in transcript order), the ones its
/// `agent` (normalised) wrote: duplicate copies collapsed (later copy wins), the agent
/// checked on the copy that wins.
pub(crate) fn written_by<'r>(
    during: &mut dyn Iterator<Item = &'r UiMessage>,
    agent: &str,
) -> Vec<&'r UiMessage> {
    let agent = normalize_agent_name(agent);
    let mut rows = dedupe_rows(during);
    rows.retain(|row| row.head().is_written_by(&agent));
    rows
}

#[inline(never)]
fn str_field<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// The one-line objective of a Task call: `description` if non-blank, else `task`
/// (both trimmed); `""` when neither.
pub fn objective_from_args(args: &Map<String, Value>) -> String {
    non_blank(str_field(args, "description"))
        .or_else(|| non_blank(str_field(args, "task")))
        .unwrap_or_default()
}

/// The text a read-only tool row produced: a string result, or the text blocks of
/// `{content: [...]}` joined with `\n`, or `{text}`.
fn read_result_text(row: &UiMessage) -> Option<String> {
    match row.tool_result.as_ref()? {
        Value::String(text) => Some(text.clone()),
        Value::Object(result) => {
            if let Some(Value::Array(blocks)) = result.get("content") {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|block| block.get("text").and_then(Value::as_str))
                    .collect();
                Some(texts.joined("\n"))
            } else {
                result.get("text").and_then(Value::as_str).map(Owned::owned)
            }
        }
        _ => None,
    }
}

/// The target a read-only tool row read: `toolArgs.path`, else `file_path`, else
/// `pattern` (the first that is a non-blank string), trimmed; `None` when none is.
pub fn read_target(row: &UiMessage) -> Option<String> {
    let args = row.tool_args_object()?;
    // `path || file_path || pattern`: a blank field falls through to the next
    ["path", "file_path", "pattern"]
        .iter()
        .find_map(|key| non_blank(str_field(&args, key)))
}

/// Clause 8: files and lines of the read-only tool rows among `rows` (pass a chain's or
/// a run's rows, e.g. [`select_chain_rows`]'s output), duplicate copies collapsed. Write
/// tools are not counted. Every read row counts its lines (result text split on `\n`;
/// empty: 0).
pub fn count_chain_reads(rows: &[&UiMessage]) -> ChainReads {
    let mut reads = ChainReads::default();
    let mut read_rows = rows
        .iter()
        .copied()
        .filter(|row| RowFilter::ReadRows.accepts(&row.head()));
    for row in dedupe_rows(&mut read_rows) {
        if let Some(target) = read_target(row) {
            if !reads.files.contains(&target) {
                reads.files.push(target);
            }
        }
        let lines = match read_result_text(row) {
            // the lines of `text.split("\n")`
            Some(text) if !text.is_empty() => {
                text.bytes().filter(|&b| b == b'\n').count() as u64 + 1
            }
            _ => 0,
        };
        reads.lines = reads.lines.saturating_add(lines);
    }
    reads
}

/// A user message whose only text is `brief` (trimmed): an echo of the brief, which a
/// seed replaces by the brief itself.
pub fn is_echo_of_brief(message: &AgentMessage, brief: &str) -> bool {
    let AgentMessage::User(user) = message else {
        return false;
    };
    let only_text = match &user.content {
        Content::Text(text) => text,
        Content::Blocks(blocks) => match blocks.as_slice() {
            [ContentBlock::Text(only)] => &only.text,
            _ => return false,
        },
    };
    js_whitespace::trim(only_text) == brief
}

/// Clause 4, last row: whether the rows of the run `tool_call_id` (selected from `rows`
/// like [`select_chain_rows`]) replay anything a seed would keep.
pub fn run_replays_anything(
    rows: &[UiMessage],
    tool_call_id: &str,
    agent: &str,
    brief: &str,
) -> bool {
    let run_rows = select_chain_rows(
        rows,
        &ChainSelector {
            tool_call_ids: vec![tool_call_id.owned()],
            agent: agent.owned(),
        },
    );
    replays_anything(&run_rows, brief)
}

/// Whether a run's own rows (already selected) convert to any message besides an echo
/// of `brief`.
pub fn replays_anything(run_rows: &[&UiMessage], brief: &str) -> bool {
    // the provider binding does not change whether anything converts
    let any_binding = ProviderBinding {
        provider: String::new(),
        model: String::new(),
        api: None,
        thinking_signature: None,
    };
    rows_to_messages(run_rows, &any_binding)
        .iter()
        .any(|message| !is_echo_of_brief(message, js_whitespace::trim(brief)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::rows_from_value;
    use serde_json::json;

    #[test]
    fn an_echo_of_the_brief_is_a_user_message_whose_only_text_is_the_brief() {
        let message = |v: serde_json::Value| AgentMessage::from_value(v, "m").unwrap();
        let brief = "audit src/";
        let echoes = [
            json!({"role": "user", "content": " audit src/\n"}),
            json!({"role": "user", "content": [{"type": "text", "text": "audit src/ "}]}),
        ];
        for v in echoes {
            assert!(is_echo_of_brief(&message(v.clone()), brief), "{v}");
        }
        let others = [
            json!({"role": "user", "content": "audit src/ again"}),
            json!({"role": "user", "content": [{"type": "text", "text": "audit"}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "audit src/"}, {"type": "text", "text": "audit src/"}]}),
            json!({"role": "user", "content": [{"type": "image", "data": "", "mimeType": "image/png"}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "audit src/"}]}),
        ];
        for v in others {
            assert!(!is_echo_of_brief(&message(v.clone()), brief), "{v}");
        }
    }

    #[test]
    fn selection_and_reads() {
        let rows = rows_from_value(
            json!([
                {"id": "t1", "role": "tool", "toolName": "Task", "toolCallId": "t1", "toolArgs": {"agent": "Explorer", "task": "  look  "}},
                {"id": "r1", "role": "tool", "toolName": "Read", "toolCallId": "r1", "toolArgs": {"path": " a.rs "}, "toolResult": "1\n2\n3", "parentToolCallId": "t1", "agentName": "explorer.md"},
                {"id": "r2", "role": "tool", "toolName": "glob", "toolCallId": "r2", "toolArgs": {"pattern": "*.rs"}, "toolResult": {"text": ""}, "parentToolCallId": "t1", "agentName": "Explorer"},
                {"id": "r3", "role": "tool", "toolName": "write", "toolCallId": "r3", "toolArgs": {"path": "b.rs"}, "toolResult": "ok", "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "r4", "role": "tool", "toolName": "read", "toolCallId": "r4", "toolArgs": {"file_path": "a.rs"}, "toolResult": {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "", "mimeType": "x"}, {"type": "text", "text": "b"}]}, "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "x1", "role": "tool", "toolName": "read", "toolCallId": "x1", "toolArgs": {"path": "other.rs"}, "toolResult": "1", "parentToolCallId": "t1", "agentName": "coder"},
                {"id": "x2", "role": "tool", "toolName": "read", "toolCallId": "x2", "toolArgs": {"path": "other.rs"}, "toolResult": "1", "parentToolCallId": "t9", "agentName": "explorer"},
                {"id": "r1", "role": "tool", "toolName": "Read", "toolCallId": "r1", "toolArgs": {"path": " a.rs "}, "toolResult": "1\n2\n3\n4", "parentToolCallId": "t1", "agentName": "explorer.md"},
            ]),
            "rows",
        )
        .unwrap();
        let sel = select_chain_rows(
            &rows,
            &ChainSelector {
                tool_call_ids: vec!["t1".into()],
                agent: "explorer".into(),
            },
        );
        let ids: Vec<&str> = sel.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["r1", "r2", "r3", "r4"]);
        assert_eq!(sel[0].tool_result, Some(json!("1\n2\n3\n4")));
        let reads = count_chain_reads(&sel);
        assert_eq!(reads.files, ["a.rs", "*.rs"]);
        assert_eq!(reads.lines, 6); // 4 (later copy of r1) + 0 (empty) + 2
    }

    #[test]
    fn a_run_that_left_only_an_echo_of_its_brief_replays_nothing() {
        let rows = rows_from_value(
            json!([
                {"id": "u", "role": "user", "content": " look ", "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "a", "role": "assistant", "content": "x", "status": "error", "parentToolCallId": "t1", "agentName": "explorer"},
                {"id": "b", "role": "assistant", "content": "found", "parentToolCallId": "t2", "agentName": "explorer"},
            ]),
            "rows",
        )
        .unwrap();
        assert!(!run_replays_anything(&rows, "t1", "explorer", "look"));
        assert!(run_replays_anything(&rows, "t2", "explorer", "look"));
        assert!(!run_replays_anything(&rows, "t2", "coder", "look"));
    }
}
