//! ADR 0299 clause 3 (via host-contract §3), the third step of a boundary: request the
//! summary. The summary request(s) a delegate's compaction sends for its plan, built
//! ready for the host to pass to its provider (the host owns the network).
//!
//! The prompts, `convertToLlm` + `serializeConversation` (tool results cut to 2,000
//! characters), the `<conversation>` / `<previous-summary>` wrapping, the maxTokens
//! formulas and the split-turn prefix request are pi-agent-core 0.85.1's, character for
//! character.
//!
//! One addition (field notes: pi #1796, #8196): the request is bounded so that
//! `ceil((systemPrompt + prompt) / 4) + maxTokens <= contextWindow`. When pi's text is
//! too big, thinking is cut to 1,000 characters and every other part to 4,000 (with a
//! visible marker); if still too big, the oldest parts are dropped behind a marker, and
//! a previous summary may use at most half of the space. A request that cannot fit even
//! empty is not built (the caller degrades).

use super::context::DelegateContext;
use super::plan::CompactionPlan;
use super::turn::{DegradeReason, DelegateTurnOptions, SummaryKind, SummaryRequest};
use crate::budget::ContextBudget;
use crate::facts::MessageFacts;
use crate::js_text::{utf16_len, utf16_prefix};
use crate::js_whitespace;
use crate::message::AgentMessage;
use crate::text_build::Append;
use crate::text_build::Owned;

/// pi's `SUMMARIZATION_SYSTEM_PROMPT`.
pub const SUMMARIZATION_SYSTEM_PROMPT: &str = "You are a context summarization assistant. Your task is to read a conversation between a user and an AI assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.";

/// pi's `SUMMARIZATION_PROMPT`.
pub const SUMMARIZATION_PROMPT: &str = "The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or \"(none)\" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or \"(none)\" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// pi's `UPDATE_SUMMARIZATION_PROMPT`.
pub const UPDATE_SUMMARIZATION_PROMPT: &str = "The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.

Update the existing structured summary with new information. RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from \"In Progress\" to \"Done\" when completed
- UPDATE \"Next Steps\" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it

Use this EXACT format:

## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// pi's `TURN_PREFIX_SUMMARIZATION_PROMPT`.
pub const TURN_PREFIX_SUMMARIZATION_PROMPT: &str =
    "This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained.

Summarize the prefix to provide context for the retained suffix:

## Original Request
[What did the user ask for in this turn?]

## Early Progress
- [Key decisions and work done in the prefix]

## Context for Suffix
- [Information needed to understand the retained recent work]

Be concise. Focus on what's needed to understand the kept suffix.";

/// Thinking kept per part when a request must be bounded.
pub const BOUNDED_THINKING_CHARS: usize = 1000;
/// Any other part kept when a request must be bounded.
pub const BOUNDED_PART_CHARS: usize = 4000;

const THINKING_LABEL: &str = "[Assistant thinking]: ";
/// How a summary request shows the delegate's task brief (context, not conversation).
const TASK_OPEN: &str =
    "The task this conversation works on (context for the summary; not part of the conversation):\n<task>\n";
const TASK_CLOSE: &str = "\n</task>\n\n";

// ---------------------------------------------------------------- serializeConversation

/// pi's `serializeConversation(convertToLlm(messages))` of a context's messages.
pub fn serialize_facts<'f>(facts: impl IntoIterator<Item = &'f MessageFacts>) -> String {
    let mut out = String::new();
    for facts in facts {
        for part in facts.parts() {
            if !out.is_empty() {
                out.append("\n\n");
            }
            out.append(&part);
        }
    }
    out
}

// ---------------------------------------------------------------- the request

/// What to build a request from.
#[derive(Clone, Debug)]
pub struct SummaryRequestSpec<'a> {
    pub kind: SummaryKind,
    /// The conversation parts of the messages to summarize (pi's `serializeConversation`).
    pub parts: Vec<String>,
    /// The delegate's task brief, shown as context when the messages do not include it
    /// (the summary's "## Goal" comes from it).
    pub brief: Option<&'a str>,
    pub previous_summary: Option<&'a str>,
    pub custom_instructions: Option<&'a str>,
    /// pi's `settings.reserveTokens` (a delegate uses its budget's requestHeadroom).
    pub reserve_tokens: f64,
    /// The summarizing model's `maxTokens` (0: no cap).
    pub model_max_tokens: f64,
    /// The summarizing model's window.
    pub context_window: u64,
    /// The prompt message's timestamp.
    pub now: f64,
}

impl SummaryRequestSpec<'_> {
    /// The request's `maxTokens`, and the characters its prompt may hold (4 per token of
    /// the window left beside the output); `None` when the output alone is over the
    /// window. (When it fills the window exactly, no prompt fits the room of 0:
    /// [`build_summary_request`] answers `None` then.)
    #[inline(never)]
    fn limits(&self) -> Option<(u64, usize)> {
        let max_tokens = summary_max_tokens(self.kind, self.reserve_tokens, self.model_max_tokens);
        let room = self.context_window.checked_sub(max_tokens)?;
        // saturated: on wasm32 a usize is 32 bits, and a window may be up to 2^53 tokens
        // (a `4 * room as usize` wrapped, or truncated the room, there)
        let chars = usize::try_from(room.saturating_mul(4)).unwrap_or(usize::MAX);
        Some((max_tokens, chars))
    }
}

/// pi's maxTokens for a request kind: `min(floor(f * reserveTokens), maxTokens > 0 ? maxTokens : ∞)`.
pub fn summary_max_tokens(kind: SummaryKind, reserve_tokens: f64, model_max_tokens: f64) -> u64 {
    let f = match kind {
        SummaryKind::History => 0.8,
        SummaryKind::TurnPrefix => 0.5,
    };
    let mut m = (f * reserve_tokens).floor();
    if model_max_tokens > 0.0 {
        m = m.min(model_max_tokens);
    }
    // (`as` gives 0 for a negative figure; NaN and infinities are not finite)
    if m.is_finite() {
        m as u64
    } else {
        0
    }
}

/// `text` cut to at most `max` units including a visible marker.
fn cut_marked(text: &str, max: usize) -> String {
    let len = utf16_len(text);
    if len <= max {
        return text.owned();
    }
    let marker = |n: usize| format!("\n\n[... {n} more characters cut to fit the summary request]");
    let room = max.saturating_sub(utf16_len(&marker(len)));
    let (head, kept) = utf16_prefix(text, room);
    let out = format!("{head}{}", marker(len - kept));
    // the marker alone may be longer than `max`
    let (h, _) = utf16_prefix(&out, max);
    h.owned()
}

fn push_joined<'p>(out: &mut String, parts: impl Iterator<Item = &'p str>) {
    for (i, p) in parts.enumerate() {
        if i > 0 {
            out.append("\n\n");
        }
        out.append(p);
    }
}

fn joined_len<S: AsRef<str>>(parts: &[S]) -> usize {
    parts.iter().map(|p| utf16_len(p.as_ref())).sum::<usize>() + 2 * parts.len().saturating_sub(1)
}

/// The most units one part may keep once a request has to be shortened.
fn part_max(p: &str) -> usize {
    if p.starts_with(THINKING_LABEL) {
        utf16_len(THINKING_LABEL) + BOUNDED_THINKING_CHARS
    } else {
        BOUNDED_PART_CHARS
    }
}

/// The conversation parts of `messages` for `spec`'s request, without holding what the
/// request cannot show: read newest first, every part is kept until the kept ones,
/// shortened as `fit_parts` shortens them, pass the request's whole limit; each part of
/// an older message is then an empty placeholder (counted, for the omitted-parts marker,
/// never shown: `fit_parts` keeps the newest parts that fit, and the kept ones already
/// overflow). The request built is the one all the parts give, while a 100,000-message
/// span no longer serializes all of it at once (found by the memory test: 2.6× its JSON
/// at the peak).
pub fn request_parts(messages: &[MessageFacts], spec: &SummaryRequestSpec<'_>) -> Vec<String> {
    let limit = spec.limits().map_or(0, |(_, limit)| limit);
    let mut newest_first: Vec<String> = Vec::new();
    let mut used = 0usize;
    for m in messages.iter().rev() {
        for p in m.parts().into_iter().rev() {
            if used > limit {
                newest_first.push(String::new());
                continue;
            }
            let max = part_max(&p);
            let len = utf16_len(&p);
            let shown = if len > max {
                utf16_len(&cut_marked(&p, max))
            } else {
                len
            };
            let separator = if newest_first.is_empty() { 0 } else { 2 };
            used = used.saturating_add(shown).saturating_add(separator);
            newest_first.push(p);
        }
    }
    newest_first.reverse();
    newest_first
}

/// Fit the parts into `budget` units (joined by a blank line). Returns the parts, whether
/// anything was shortened, and how many parts were dropped.
fn fit_parts(mut parts: Vec<String>, budget: usize) -> (Vec<String>, bool, usize) {
    if joined_len(&parts) <= budget {
        return (parts, false, 0);
    }
    for p in parts.iter_mut() {
        *p = cut_marked(p, part_max(p));
    }
    if joined_len(&parts) <= budget {
        return (parts, true, 0);
    }
    let total = parts.len();
    let marker = |n: usize| {
        format!("[... {n} earlier parts of the conversation omitted to fit the summary request]")
    };
    let marker_len = utf16_len(&marker(total)) + 2;
    let room = budget.saturating_sub(marker_len);
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0usize;
    for p in parts.into_iter().rev() {
        let add = utf16_len(&p) + if kept.is_empty() { 0 } else { 2 };
        if used + add <= room {
            used += add;
            kept.push(p);
        } else {
            if kept.is_empty() && room > 0 {
                kept.push(cut_marked(&p, room));
            }
            break;
        }
    }
    kept.reverse();
    let omitted = total - kept.len();
    if omitted > 0 && budget >= marker_len {
        kept.insert(0, marker(omitted));
    }
    (kept, true, omitted)
}

/// Build a summary request that fits the window, or `None` when even an empty
/// conversation would not fit.
pub fn build_summary_request(spec: &SummaryRequestSpec<'_>) -> Option<SummaryRequest> {
    let (max_tokens, limit) = spec.limits()?;
    let previous = spec.previous_summary.filter(|s| !s.is_empty());
    let base = match spec.kind {
        SummaryKind::TurnPrefix => TURN_PREFIX_SUMMARIZATION_PROMPT.owned(),
        SummaryKind::History => {
            let mut b = if previous.is_some() {
                UPDATE_SUMMARIZATION_PROMPT.owned()
            } else {
                SUMMARIZATION_PROMPT.owned()
            };
            if let Some(ci) = spec.custom_instructions.filter(|s| !s.is_empty()) {
                b = format!("{b}\n\nAdditional focus: {ci}");
            }
            b
        }
    };
    let open = "<conversation>\n";
    let close = "\n</conversation>\n\n";
    let fixed = utf16_len(SUMMARIZATION_SYSTEM_PROMPT)
        + utf16_len(open)
        + utf16_len(close)
        + utf16_len(&base);
    let available = limit.checked_sub(fixed)?;
    let prev_wrap = utf16_len("<previous-summary>\n\n</previous-summary>\n\n");
    let mut bounded = false;
    let previous: Option<String> = match (spec.kind, previous) {
        (SummaryKind::History, Some(p)) => {
            let half = available / 2;
            if utf16_len(p) + prev_wrap > half {
                bounded = true;
                Some(cut_marked(p, half.saturating_sub(prev_wrap)))
            } else {
                Some(p.owned())
            }
        }
        _ => None,
    };
    let prev_len = previous.as_ref().map_or(0, |p| utf16_len(p) + prev_wrap);
    let task: Option<String> = spec.brief.filter(|b| !js_whitespace::is_blank(b)).map(|b| {
        let room = (available / 4).saturating_sub(utf16_len(TASK_OPEN) + utf16_len(TASK_CLOSE));
        if utf16_len(b) > room {
            bounded = true;
        }
        format!("{TASK_OPEN}{}{TASK_CLOSE}", cut_marked(b, room))
    });
    let task_len = task.as_deref().map_or(0, utf16_len);
    let conv_budget = available.checked_sub(prev_len + task_len)?;
    let whole = joined_len(&spec.parts);
    let mut omitted = 0;
    let shortened: Option<Vec<String>> = (whole > conv_budget).then(|| {
        let (parts, _, dropped) = fit_parts(spec.parts.clone(), conv_budget);
        omitted = dropped;
        parts
    });
    bounded |= shortened.is_some();
    let mut prompt = String::with_capacity(task_len + whole.min(conv_budget) + prev_len + fixed);
    if let Some(t) = &task {
        prompt.append(t);
    }
    prompt.append(open);
    match &shortened {
        Some(parts) => push_joined(&mut prompt, parts.iter().map(String::as_str)),
        None => push_joined(&mut prompt, spec.parts.iter().map(|p| p.as_str())),
    }
    prompt.append(close);
    if let Some(p) = &previous {
        prompt.append(&format!("<previous-summary>\n{p}\n</previous-summary>\n\n"));
    }
    prompt.append(&base);
    let input_chars = utf16_len(SUMMARIZATION_SYSTEM_PROMPT) + utf16_len(&prompt);
    let estimated_input_tokens = input_chars.div_ceil(4) as u64;
    if estimated_input_tokens.saturating_add(max_tokens) > spec.context_window {
        return None;
    }
    Some(SummaryRequest {
        kind: spec.kind,
        system_prompt: SUMMARIZATION_SYSTEM_PROMPT.owned(),
        messages: vec![AgentMessage::user_text(prompt, Some(spec.now))],
        max_tokens,
        estimated_input_tokens,
        bounded,
        omitted_parts: omitted,
    })
}

// ---------------------------------------------------------------- a boundary's requests

/// The summary request(s) of a boundary with `plan`: the history summary (when the plan
/// summarizes history), then the split turn's prefix summary (when the cut splits a
/// turn), with `reserveTokens = requestHeadroom`, the summarizing model's `maxTokens`
/// (default: the budget's `maxOutputTokens`) and the delegate's brief as context.
///
/// Errors (the reason the boundary degrades instead): `NothingToSummarize` when the plan
/// has neither; `SummaryRequestTooLarge` when a request cannot fit the window even empty.
pub fn summary_requests(
    ctx: &DelegateContext,
    plan: &CompactionPlan,
    budget: &ContextBudget,
    options: &DelegateTurnOptions,
) -> Result<Vec<SummaryRequest>, DegradeReason> {
    let facts = ctx.facts();
    let history = plan.history_range();
    let prefix = plan.prefix_range();
    // The brief plus one active tool round: the cut splits the brief's own turn, whose
    // prefix is the brief alone. pi (and the host app) send that split turn's prefix
    // summary; the brief itself stays verbatim in front of it.
    if history.is_empty() && prefix.is_empty() {
        return Err(DegradeReason::NothingToSummarize);
    }
    let brief = facts[0].text().user_text;
    let spec = |kind, range: std::ops::Range<usize>| {
        let mut spec = SummaryRequestSpec {
            kind,
            // the brief as context, unless the messages start with it (a split first turn)
            brief: if range.start == 0 {
                None
            } else {
                brief.as_deref()
            },
            parts: Vec::new(),
            previous_summary: plan.previous_summary.as_deref(),
            custom_instructions: options.custom_instructions.as_deref(),
            reserve_tokens: budget.request_headroom as f64,
            model_max_tokens: options
                .summary_max_tokens
                .unwrap_or(budget.max_output_tokens as f64),
            context_window: budget.context_window,
            now: options.now.unwrap_or(0.0),
        };
        spec.parts = request_parts(&facts[range], &spec);
        spec
    };
    let mut wanted = Vec::new();
    if !history.is_empty() {
        wanted.push(spec(SummaryKind::History, history));
    }
    if !prefix.is_empty() {
        wanted.push(spec(SummaryKind::TurnPrefix, prefix));
    }
    wanted
        .iter()
        .map(|s| build_summary_request(s).ok_or(DegradeReason::SummaryRequestTooLarge))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js_text::json_stringify;
    use serde_json::{json, Value};

    fn m(v: Value) -> AgentMessage {
        AgentMessage::from_value(v, "m").unwrap()
    }

    /// pi's conversation parts of `messages` (pi joins them with a blank line).
    fn conversation_parts(messages: &[AgentMessage]) -> crate::Result<Vec<String>> {
        let ctx = super::super::context::DelegateContext::from_messages(messages)?;
        Ok(ctx.facts().iter().flat_map(MessageFacts::parts).collect())
    }

    /// `request_parts` builds exactly the request all the parts build, for spans that fit,
    /// that need shortening, and that drop most of their parts (a window of 2,000 to
    /// 3,000,000 tokens over up to 3,000 messages of 10 to 20,000 characters, thinking,
    /// tool calls, astral characters).
    #[test]
    fn request_parts_build_the_request_all_parts_build() {
        let messages: Vec<MessageFacts> = (0..3_000usize)
            .map(|i| {
                let n = [10, 900, 3_999, 4_001, 20_000][i % 5] + i % 7;
                let v = match i % 4 {
                    0 => json!({"role": "user", "content": "u".repeat(n), "timestamp": i}),
                    1 => json!({"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "t".repeat(n)},
                        {"type": "text", "text": "x"},
                        {"type": "toolCall", "id": format!("c{i}"), "name": "read", "arguments": {"path": "p"}}]}),
                    2 => json!({"role": "toolResult", "toolCallId": format!("c{}", i - 1), "toolName": "read", "content": "r".repeat(n)}),
                    _ => json!({"role": "assistant", "content": [{"type": "text", "text": "\u{1F600}".repeat(n / 2)}]}),
                };
                MessageFacts::from_json(&v.to_string(), "m").unwrap()
            })
            .collect();
        for window in [2_000u64, 9_000, 40_000, 200_000, 3_000_000] {
            for count in [1, 40, 3_000] {
                let span = &messages[messages.len() - count..];
                let mut spec = SummaryRequestSpec {
                    kind: SummaryKind::History,
                    parts: span.iter().flat_map(MessageFacts::parts).collect(),
                    brief: Some("the brief"),
                    previous_summary: Some("previous"),
                    custom_instructions: None,
                    reserve_tokens: 1_000.0,
                    model_max_tokens: 800.0,
                    context_window: window,
                    now: 1.0,
                };
                let all = build_summary_request(&spec);
                let lazy_parts = request_parts(span, &spec);
                assert_eq!(lazy_parts.len(), spec.parts.len());
                let placeholders = lazy_parts.iter().filter(|p| p.is_empty()).count();
                if window == 2_000 && count == 3_000 {
                    assert!(placeholders > 2_900, "older parts are not held");
                }
                spec.parts = lazy_parts;
                assert_eq!(
                    build_summary_request(&spec),
                    all,
                    "window {window}, {count} messages"
                );
            }
        }
    }

    #[test]
    fn stringify_matches_javascript() {
        let v = json!({"b": 1.5, "2": [true, null, "a\"\n\u{1}"], "1": 1e21, "a": {"10": 0, "x": -0.0}});
        assert_eq!(
            json_stringify(&v),
            r#"{"1":1e+21,"2":[true,null,"a\"\n\u0001"],"b":1.5,"a":{"10":0,"x":0}}"#
        );
    }

    #[test]
    fn serializes_like_pi() {
        let ms = vec![
            m(
                json!({"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
            ),
            m(json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "t1"}, {"type": "text", "text": "x"},
                {"type": "thinking", "thinking": "t2"}, {"type": "text", "text": "y"},
                {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "p", "n": 2}}]})),
            m(
                json!({"role": "toolResult", "toolCallId": "1", "toolName": "read", "content": "r".repeat(2001)}),
            ),
            m(json!({"role": "bashExecution", "command": "ls", "output": "", "exitCode": 2})),
            m(json!({"role": "compactionSummary", "summary": "S"})),
        ];
        let parts = conversation_parts(&ms).unwrap();
        assert_eq!(parts[0], "[User]: ab");
        assert_eq!(parts[1], "[Assistant thinking]: t1\nt2");
        assert_eq!(parts[2], "[Assistant]: x\ny");
        assert_eq!(parts[3], "[Assistant tool calls]: read(path=\"p\", n=2)");
        assert!(parts[4].ends_with("\n\n[... 1 more characters truncated]"));
        assert_eq!(
            parts[5],
            "[User]: Ran `ls`\n(no output)\n\nCommand exited with code 2"
        );
        assert!(parts[6].contains("<summary>\nS\n</summary>"));
    }

    #[test]
    fn requests_fit_their_window() {
        let big: Vec<AgentMessage> = (0..200)
            .map(|i| {
                m(json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "think ".repeat(2000)},
                {"type": "text", "text": format!("step {i} ") }]}))
            })
            .collect();
        let big = conversation_parts(&big).unwrap();
        for window in [3000u64, 8192, 32000, 128000] {
            let spec = SummaryRequestSpec {
                kind: SummaryKind::History,
                parts: big.clone(),
                brief: Some("the task"),
                previous_summary: Some(&"p".repeat(50_000)),
                custom_instructions: None,
                reserve_tokens: (window / 4) as f64,
                model_max_tokens: 0.0,
                context_window: window,
                now: 0.0,
            };
            let r = build_summary_request(&spec).unwrap();
            assert!(
                r.estimated_input_tokens + r.max_tokens <= window,
                "{window}"
            );
            assert!(r.bounded);
            let text = match &r.messages[0] {
                AgentMessage::User(u) => u.content.text(""),
                _ => unreachable!(),
            };
            assert!(text.contains("step 199"), "the newest part survives");
        }
        let tiny = SummaryRequestSpec {
            kind: SummaryKind::History,
            parts: big.clone(),
            brief: None,
            previous_summary: None,
            custom_instructions: None,
            reserve_tokens: 100.0,
            model_max_tokens: 0.0,
            context_window: 200,
            now: 0.0,
        };
        assert!(build_summary_request(&tiny).is_none());
    }

    /// A history request of one user message, "hello", in a 128,000-token window.
    fn hello_spec() -> SummaryRequestSpec<'static> {
        SummaryRequestSpec {
            kind: SummaryKind::History,
            parts: conversation_parts(&[m(json!({"role": "user", "content": "hello"}))]).unwrap(),
            brief: None,
            previous_summary: None,
            custom_instructions: None,
            reserve_tokens: 16384.0,
            model_max_tokens: 8192.0,
            context_window: 128000,
            now: 5.0,
        }
    }

    #[test]
    fn unbounded_requests_are_pis_text() {
        let spec = SummaryRequestSpec {
            previous_summary: Some("prev"),
            ..hello_spec()
        };
        let r = build_summary_request(&spec).unwrap();
        assert_eq!(r.max_tokens, 8192);
        assert!(!r.bounded);
        let AgentMessage::User(u) = &r.messages[0] else {
            unreachable!()
        };
        assert_eq!(
            u.content.text(""),
            format!("<conversation>\n[User]: hello\n</conversation>\n\n<previous-summary>\nprev\n</previous-summary>\n\n{UPDATE_SUMMARIZATION_PROMPT}")
        );
    }

    #[test]
    fn take_prompt_leaves_the_request_with_an_empty_prompt() {
        let whole = build_summary_request(&hello_spec()).unwrap();
        let mut shell = whole.clone();
        let prompt = shell
            .take_prompt()
            .expect("a built request holds its prompt");
        assert_eq!(
            prompt,
            format!("<conversation>\n[User]: hello\n</conversation>\n\n{SUMMARIZATION_PROMPT}")
        );
        let AgentMessage::User(u) = &shell.messages[0] else {
            unreachable!()
        };
        assert_eq!(u.content.text(""), "");
        // the rest is the request as built
        shell.messages = whole.messages.clone();
        assert_eq!(shell, whole);
    }

    #[test]
    fn the_brief_travels_as_context_of_the_request() {
        let spec = SummaryRequestSpec {
            brief: Some("Audit src/ for unsafe casts"),
            ..hello_spec()
        };
        let r = build_summary_request(&spec).unwrap();
        let AgentMessage::User(u) = &r.messages[0] else {
            unreachable!()
        };
        assert_eq!(
            u.content.text(""),
            format!("{TASK_OPEN}Audit src/ for unsafe casts{TASK_CLOSE}<conversation>\n[User]: hello\n</conversation>\n\n{SUMMARIZATION_PROMPT}")
        );
    }
}
