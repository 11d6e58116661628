//! ADR 0299 clause 8: the tools a delegate never inherits (`SUBAGENT_INHERIT_DENY_TOOLS`
//! of host-contract §5, `new_context` first among them), matched after pi's name
//! normalisation.

use serde::Serialize;
use tsify::Tsify;

use crate::error::{Error, Result};
use crate::transcript::{fold_name, normalize_tool_name};

// ---------------------------------------------------------------- clause 8

/// `SUBAGENT_INHERIT_DENY_TOOLS` (host-contract §5): tools a delegate never inherits.
pub const SUBAGENT_INHERIT_DENY_TOOLS: [&str; 9] = [
    "Task",
    "TaskWait",
    "TaskList",
    "TaskStop",
    "EnterPlanMode",
    "EnterGoalMode",
    "asktool",
    "new_context",
    "ToolSearch",
];

/// Whether a tool name is on the deny list, compared after normalising both names and
/// folding case and separators, so `Task`, `TASK`, `task_wait`, `TaskWait`,
/// `newContext`, `new-context` and `toolsearch` all match.
pub fn is_denied_tool(name: &str) -> bool {
    let key = |n: &str| fold_name(&normalize_tool_name(n));
    let n = key(name);
    SUBAGENT_INHERIT_DENY_TOOLS.iter().any(|d| key(d) == n)
}

/// The result of [`filter_inherited_tools`].
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct InheritedTools {
    /// The tools kept, as given (the same strings or tool objects).
    #[tsify(type = "(string | { name: string; [field: string]: unknown })[]")]
    pub tools: Vec<usize>,
    /// Names of the tools removed.
    pub denied: Vec<String>,
}

/// One tool as the host gave it: its name, or what it was instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolEntry {
    /// A name, or a tool object's string `name`.
    Named(String),
    /// An object whose `name` is missing or not a string.
    Unnamed,
    /// Neither a string nor an object.
    NotATool,
}

/// Clause 8: the tools a delegate inherits, minus the deny list: `tools` of the result
/// are the positions kept (the binding hands back the host's own tool objects). Whatever
/// a definition asks for, `new_context` (and the rest of the list) never reaches a
/// delegate.
pub fn filter_inherited_tools(tools: &[ToolEntry]) -> Result<InheritedTools> {
    let mut kept = Vec::new();
    let mut denied = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        match t {
            ToolEntry::Named(name) if is_denied_tool(name) => denied.push(name.clone()),
            ToolEntry::Named(_) => kept.push(i),
            ToolEntry::Unnamed => {
                return Err(Error::invalid(
                    format!("tools[{i}].name"),
                    "expected a tool name (string)",
                ))
            }
            ToolEntry::NotATool => {
                return Err(Error::invalid(
                    format!("tools[{i}]"),
                    "expected a tool name or a tool object with a name",
                ))
            }
        }
    }
    Ok(InheritedTools {
        tools: kept,
        denied,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_list_after_normalising() {
        for n in [
            "Task",
            "task",
            "task_wait",
            "TaskWait",
            "new_context",
            "ToolSearch",
            "tool_search",
            "asktool",
            "EnterPlanMode",
            "enter_goal_mode",
            "newContext",
            "new-context",
            "NEW_CONTEXT",
            "toolsearch",
            "TASKWAIT",
        ] {
            assert!(is_denied_tool(n), "{n}");
        }
        for n in ["read", "Read", "bash", "new_context_x", "TaskCreate"] {
            assert!(!is_denied_tool(n), "{n}");
        }
        let named = |n: &str| ToolEntry::Named(n.into());
        let r =
            filter_inherited_tools(&[named("read"), named("new_context"), named("bash")]).unwrap();
        assert_eq!(r.tools, vec![0, 2]);
        assert_eq!(r.denied, vec!["new_context"]);
        assert!(filter_inherited_tools(&[ToolEntry::NotATool]).is_err());
        assert_eq!(
            filter_inherited_tools(&[named("read"), ToolEntry::Unnamed]).unwrap_err(),
            Error::invalid("tools[1].name", "expected a tool name (string)")
        );
    }
}
