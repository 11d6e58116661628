//! Provider validity, the property every context the library hands to a provider needs:
//! each assistant's tool calls (distinct ids) are answered by the tool results that
//! directly follow it, one each, and no tool result appears anywhere else.

use delegate_context::facts::MessageFacts;
use delegate_context::message::AgentMessage;
use delegate_context::role::Role;

/// Over typed messages.
pub fn valid_messages(ms: &[AgentMessage]) -> Result<(), String> {
    let calls: Vec<(Role, Vec<String>, Option<String>)> = ms
        .iter()
        .map(|m| match m {
            AgentMessage::Assistant(a) => (
                Role::Assistant,
                a.tool_calls().map(|c| c.id.clone()).collect(),
                None,
            ),
            AgentMessage::ToolResult(r) => {
                (Role::ToolResult, Vec::new(), Some(r.tool_call_id.clone()))
            }
            _ => (Role::User, Vec::new(), None),
        })
        .collect();
    valid(&calls)
}

/// Over facts.
pub fn valid_facts(fs: &[MessageFacts]) -> Result<(), String> {
    let calls: Vec<(Role, Vec<String>, Option<String>)> = fs
        .iter()
        .map(|f| {
            (
                f.role,
                f.tool_call_ids.iter().map(|s| s.to_string()).collect(),
                f.answers.as_deref().map(str::to_string),
            )
        })
        .collect();
    valid(&calls)
}

fn valid(ms: &[(Role, Vec<String>, Option<String>)]) -> Result<(), String> {
    let mut pending: Vec<String> = Vec::new();
    for (i, (role, ids, answers)) in ms.iter().enumerate() {
        if *role == Role::ToolResult {
            let id = answers.clone().unwrap_or_default();
            match pending.iter().position(|p| *p == id) {
                Some(k) => {
                    pending.remove(k);
                }
                None => return Err(format!("orphan tool result {id:?} at {i}")),
            }
            continue;
        }
        if !pending.is_empty() {
            return Err(format!("unanswered tool calls {pending:?} before {i}"));
        }
        if *role == Role::Assistant {
            pending = ids.clone();
            let mut sorted = ids.clone();
            sorted.sort();
            sorted.dedup();
            if sorted.len() != ids.len() {
                return Err(format!("duplicate tool call ids {ids:?} at {i}"));
            }
        }
    }
    if pending.is_empty() {
        Ok(())
    } else {
        Err(format!("unanswered tool calls {pending:?} at the end"))
    }
}
