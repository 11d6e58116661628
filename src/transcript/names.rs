//! The host's name normalising rules (host-contract §6 "Tool names", "Agent names"), one
//! function each, used by every rule that compares a name: the parent-context rebuild
//! (seed 001), the resumable delegations (ADR 0279 clauses 2, 8 and 12) and the
//! inherited-tools deny list (ADR 0299 clause 8).

use crate::js_whitespace;
use crate::lowercase;
use crate::text_build::Append;
use crate::text_build::Owned;

/// The host's tools under their canonical names. A name that folds (case and separators
/// ignored) to one of these is that tool: `Read`, `READ` and `rEaD` are `read`;
/// `BrowserPreview`, `browserPREVIEW` and `Browser_Preview` are `browser_preview`.
pub const KNOWN_TOOLS: [&str; 16] = [
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "glob",
    "browser_preview",
    "task",
    "task_wait",
    "task_list",
    "task_stop",
    "enter_plan_mode",
    "enter_goal_mode",
    "asktool",
    "new_context",
    "tool_search",
];

/// Tools whose rows count as reads (ADR 0279 clause 8), by canonical name.
pub const READ_ONLY_TOOLS: [&str; 4] = ["read", "glob", "grep", "browser_preview"];

/// The canonical name of the Task (delegation) tool.
pub const TASK_TOOL: &str = "task";

/// A name with case and the separators `_`, `-`, space and `.` ignored (how names are
/// compared: [`normalize_tool_name`]'s known tools, the inherited-tools deny list).
#[inline(never)]
pub fn fold_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ' | '.')) {
        lowercase::push_lowercase(c, &mut out);
    }
    out
}

/// Normalise a tool name (host-contract §6).
///
/// 1. A name that folds to one of [`KNOWN_TOOLS`] is that tool (`TASK`, `taskWait`,
///    `Browser_Preview`, `rEaD`).
/// 2. Any other legacy PascalCase name becomes snake_case (`MyTool` → `my_tool`); a name
///    that does not start with a capital is kept as it is (`custom_tool`, `myTool`).
///
/// The name is trimmed first.
#[inline(never)]
pub fn normalize_tool_name(name: &str) -> String {
    let name = js_whitespace::trim(name);
    let folded = fold_name(name);
    if let Some(known) = KNOWN_TOOLS.iter().find(|k| fold_name(k) == folded) {
        return (*known).owned();
    }
    if !name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
        return name.owned();
    }
    let mut out = String::with_capacity(name.len() + 4);
    let mut after_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if after_lower {
                out.append_char('_');
            }
            out.append_char(c.to_ascii_lowercase());
            after_lower = false;
        } else {
            after_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.append_char(c);
        }
    }
    out
}

/// Whether a (raw) tool name is the Task tool.
pub fn is_task_tool(name: &str) -> bool {
    normalize_tool_name(name) == TASK_TOOL
}

/// Whether a (raw) tool name is a read-only tool (ADR 0279 clause 8).
pub fn is_read_only_tool(name: &str) -> bool {
    READ_ONLY_TOOLS.contains(&normalize_tool_name(name).as_str())
}

/// Normalise an agent name: basename, drop `.md`, trim, lower-case, spaces and
/// underscores → `-` (`Explorer`, `agents/explorer.md` and ` explorer ` are all `explorer`).
pub fn normalize_agent_name(name: &str) -> String {
    // after the last `/` or `\`
    let base = crate::text_at::from(
        name,
        name.bytes()
            .rposition(|b| b == b'/' || b == b'\\')
            .map_or(0, |at| at + 1),
    );
    let base = js_whitespace::trim(base);
    let base = match base
        .len()
        .checked_sub(3)
        .and_then(|cut| base.get(cut..).map(|ext| (cut, ext)))
    {
        Some((cut, ext)) if ext.eq_ignore_ascii_case(".md") => crate::text_at::upto(base, cut),
        _ => base,
    };
    lowercase::to_lowercase(js_whitespace::trim(base))
        .chars()
        .map(|c| if c == ' ' || c == '_' { '-' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        for (raw, want) in [
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
            // case folded before the legacy map
            ("rEaD", "read"),
            ("READ", "read"),
            ("browserPREVIEW", "browser_preview"),
            ("Browser_Preview", "browser_preview"),
            ("TASK", "task"),
            ("taskWait", "task_wait"),
            ("newContext", "new_context"),
            (" Task ", "task"),
            // names the host does not know
            ("MyTool", "my_tool"),
            ("custom_tool", "custom_tool"),
            ("myTool", "myTool"),
            ("", ""),
            ("\u{feff}Read\u{feff}", "read"),
            ("read\u{85}", "read\u{85}"),
        ] {
            assert_eq!(normalize_tool_name(raw), want, "{raw:?}");
        }
        assert!(is_task_tool("TASK") && !is_task_tool("task_wait"));
        assert!(is_read_only_tool("browserPREVIEW") && !is_read_only_tool("write"));
    }

    #[test]
    fn agent_names() {
        for (raw, want) in [
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
            // trimmed as JavaScript trims: U+FEFF is white space, U+0085 is not
            ("\u{feff}Explorer\u{feff}", "explorer"),
            ("explorer\u{85}", "explorer\u{85}"),
            ("\u{3000}x.md\u{2028}", "x"),
        ] {
            assert_eq!(normalize_agent_name(raw), want);
        }
    }
}
