//! host-contract §1: a message's `role`, the strings pi-agent-core 0.85.1 writes, each
//! written once. Every reader of a role (message facts, typed messages, the binding's
//! newest-first checks) goes through [`Role`]; a role pi does not write is kept and read
//! as [`Role::Other`] (0 tokens, never a cut point).

use crate::text_table;

/// A message's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    CompactionSummary,
    BranchSummary,
    Custom,
    BashExecution,
    /// A role this library does not know (0 tokens, never a cut point).
    Other,
}

/// pi's texts.
const NAMES: [(Role, &str); 7] = [
    (Role::User, "user"),
    (Role::Assistant, "assistant"),
    (Role::ToolResult, "toolResult"),
    (Role::CompactionSummary, "compactionSummary"),
    (Role::BranchSummary, "branchSummary"),
    (Role::Custom, "custom"),
    (Role::BashExecution, "bashExecution"),
];

impl Role {
    /// The role a `role` text names (exact, as pi's `===`).
    pub fn parse(text: &str) -> Role {
        text_table::value_of(&NAMES, text).unwrap_or(Role::Other)
    }

    /// pi's text for this role (`None` for [`Role::Other`]).
    #[inline(never)]
    pub fn as_str(self) -> Option<&'static str> {
        text_table::text_of(&NAMES, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::AgentMessage;
    use serde_json::json;

    #[test]
    fn parse_is_exact_and_round_trips_pi_s_roles() {
        // pi-agent-core 0.85.1's message roles (pi-ai's three and the harness's four)
        for text in [
            "user",
            "assistant",
            "toolResult",
            "compactionSummary",
            "branchSummary",
            "custom",
            "bashExecution",
        ] {
            let role = Role::parse(text);
            assert_ne!(role, Role::Other, "{text}");
            assert_eq!(role.as_str(), Some(text));
        }
        for text in ["", "User", "tool", "tool_result", "system"] {
            assert_eq!(Role::parse(text), Role::Other, "{text:?}");
        }
        assert_eq!(Role::Other.as_str(), None);
    }

    #[test]
    fn a_typed_message_writes_the_role_it_was_read_as() {
        for (role, _) in NAMES {
            let name = role.as_str().unwrap();
            let m = AgentMessage::from_value(
                json!({"role": name, "content": [], "toolCallId": "c", "toolName": "t",
                    "summary": "s", "command": "ls", "output": "", "customType": "x"}),
                "m",
            )
            .unwrap();
            assert_eq!(m.kind(), role);
            assert_eq!(m.role(), name);
            assert_eq!(serde_json::to_value(&m).unwrap()["role"], json!(name));
        }
        let other = AgentMessage::from_value(json!({"role": "system", "x": 1}), "m").unwrap();
        assert_eq!((other.kind(), other.role()), (Role::Other, "system"));
    }
}
