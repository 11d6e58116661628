//! Target `transcript_rows`: persisted rows (`UiMessage[]`, host-contract §6) →
//! decoding, the parent's context (`build_parent_context`), the rows → messages
//! conversion, seeds (`seed_delegate_messages`), read counting and the registry rebuild.
//!
//! - Raw mode (first byte even): any JSON text as the rows value.
//! - Model mode (first byte odd): rows generated from a model with small pools of ids,
//!   agents and tool names, so that Task rows, chains, duplicates, orphans and rewrites
//!   meet.
//!
//! Invariants: nothing panics; a decoded row encodes back to the same row; every
//! converted history and every parent context is provider-valid with no empty
//! assistant; a seed starts with the brief (trimmed) as a user message, its `tokens` is
//! the sum of its messages' estimates, and it is below hardLimit unless the brief alone
//! is at or above it (then it is the brief alone); a seed of a chain holds nothing from
//! rows outside the chain; a rebuilt registry lists at most 2 chains per agent.

use std::collections::HashMap;

use arbitrary::{Arbitrary, Result, Unstructured};
use delegate_context::delegation::{
    count_chain_reads, select_chain_rows, ChainSelector, Registry, SeedInput,
    MAX_RESUMABLE_CHAINS_PER_AGENT,
};
use delegate_context::js_whitespace;
use delegate_context::message::{AgentMessage, Content, ContentBlock};
use delegate_context::parent::build_parent_context;
use delegate_context::tokens::estimate_tokens;
use delegate_context::transcript::{rows_from_value, UiMessage};
use delegate_context::transcript::{rows_to_messages, ProviderBinding};
use serde_json::{json, Map, Value};

use super::js::{JsNum, JsStr};
use super::message_facts::AnyJson;
use super::provider::valid_messages;

pub fn check(data: &[u8]) {
    match data.split_first() {
        None => {}
        Some((mode, rest)) if mode % 2 == 0 => {
            let Ok(v) = serde_json::from_slice::<Value>(rest) else {
                return;
            };
            let seed = SeedParams {
                brief: Brief::Fixed,
                limit: Limit::Small(rest.len() as u16),
                chain: Some((vec![0, 1], 0)),
                thinking_signature: false,
            };
            super::debug(&v);
            if let Ok(rows) = rows_from_value(v, "rows") {
                check_rows(&rows, &seed);
            }
        }
        Some((_, rest)) => {
            let mut u = Unstructured::new(rest);
            if let Ok(case) = Case::arbitrary(&mut u) {
                super::debug(&case);
                let v = case.to_value();
                let rows = rows_from_value(v.clone(), "rows")
                    .unwrap_or_else(|e| panic!("generated rows refused: {e}\n{v}"));
                check_rows(&rows, &case.seed);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The model

const IDS: [&str; 8] = ["t1", "t2", "t3", "c1", "c2", "c3", "r1", " t1 "];
const AGENTS: [&str; 8] = [
    "explorer",
    "Explorer",
    "agents/explorer.md",
    "coder.md",
    "code_reviewer",
    "Code Reviewer",
    "",
    "  ",
];
const TOOLS: [&str; 12] = [
    "Task",
    "task",
    "subagent",
    "Read",
    "read",
    "grep",
    "Glob",
    "BrowserPreview",
    "bash",
    "write",
    "",
    "TaskWait",
];
const STATUSES: [&str; 8] = [
    "running",
    "completed",
    "failed",
    "aborted",
    "timed_out",
    "stopped",
    "interrupted",
    "weird",
];
const DATES: [&str; 10] = [
    "2024-05-01T10:00:00.000Z",
    "2024-05-01T10:00:00Z",
    "2024-05-01",
    "2024-05-01T10:00",
    "2024-05-01T10:00:00.123456789+05:30",
    "2024-13-01T00:00:00Z",
    "9999-12-31T24:00:60.999-23:59",
    "0000-01-01T00:00:00-0000",
    "not a date",
    "2024-05-01T1",
];
const BRIEF: &str = "Investigate the flaky parser test and report the cause.";

/// A pick from a pool, or any string.
#[derive(Clone, Debug)]
struct Pick<const P: usize>(String);

fn pool(p: usize) -> &'static [&'static str] {
    match p {
        0 => &IDS,
        1 => &AGENTS,
        2 => &TOOLS,
        3 => &STATUSES,
        _ => &DATES,
    }
}

impl<'a, const P: usize> Arbitrary<'a> for Pick<P> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.ratio(1u8, 8u8)? {
            Ok(Pick(JsStr::gen(u, 3)?.lossy()))
        } else {
            Ok(Pick(u.choose(pool(P))?.to_string()))
        }
    }
}

type Id = Pick<0>;
type Agent = Pick<1>;
type Tool = Pick<2>;
type Status = Pick<3>;
type Date = Pick<4>;

#[derive(Arbitrary, Clone, Debug)]
enum Text {
    Brief,
    Short(JsStr),
    Lines(u16),
    Long(u16),
}

impl Text {
    fn value(&self) -> String {
        match self {
            Text::Brief => BRIEF.to_string(),
            Text::Short(s) => s.lossy(),
            Text::Lines(n) => (0..*n % 300).map(|i| format!("line {i}\n")).collect(),
            Text::Long(n) => "x".repeat(*n as usize * 4),
        }
    }
}

#[derive(Arbitrary, Clone, Debug)]
enum RoleM {
    User,
    Assistant,
    System,
    Tool,
}

#[derive(Arbitrary, Clone, Debug)]
struct ArgsM {
    agent: Option<Agent>,
    task: Option<Text>,
    description: Option<Text>,
    resume: Option<Id>,
    model: Option<Id>,
    path: Option<Text>,
    file_path: Option<Text>,
    pattern: Option<Text>,
}

#[derive(Arbitrary, Clone, Debug)]
enum ToolArgs {
    Object(ArgsM),
    /// The object's JSON text (hosts stored either).
    Json(ArgsM),
    Garbage(Text),
    Any(AnyJson),
}

#[derive(Arbitrary, Clone, Debug)]
struct DetailsM {
    delegation_id: Option<Id>,
    agent: Option<Agent>,
    status: Option<Status>,
    model_id: Option<Id>,
    report: Option<Text>,
    error: bool,
}

#[derive(Arbitrary, Clone, Debug)]
enum ResultBlock {
    Text(Text),
    Image,
    Empty,
    Junk(AnyJson),
}

#[derive(Arbitrary, Clone, Debug)]
enum ToolResultM {
    Str(Text),
    Content(Vec<ResultBlock>, Option<DetailsM>),
    Details(DetailsM),
    TextField(Text),
    /// A subagent's raw JSON result (`{success, data: {response}}`) or text that is not JSON.
    SubagentJson(bool, Option<Text>),
    NotJson(Text),
    Any(AnyJson),
}

#[derive(Arbitrary, Clone, Debug)]
struct RowM {
    id: Id,
    role: RoleM,
    content: Option<Text>,
    status: Option<Status>,
    thinking: Option<Text>,
    usage: Option<(JsNum, JsNum, Option<JsNum>)>,
    error: Option<AnyJson>,
    tool_name: Option<Tool>,
    tool_call_id: Option<Id>,
    tool_status: Option<Status>,
    tool_args: Option<ToolArgs>,
    tool_result: Option<ToolResultM>,
    is_error: Option<bool>,
    parent: Option<Id>,
    agent_name: Option<Agent>,
    created_at: Option<Date>,
    /// A stored parsed report on the row (`subagent.response`).
    subagent: Option<Text>,
    extra: Option<AnyJson>,
}

#[derive(Arbitrary, Clone, Debug)]
enum Brief {
    Fixed,
    Blank,
    Any(JsStr),
}

#[derive(Arbitrary, Clone, Debug)]
enum Limit {
    Small(u16),
    Any(JsNum),
    Budget(u32),
}

#[derive(Arbitrary, Clone, Debug)]
struct SeedParams {
    brief: Brief,
    limit: Limit,
    /// The chain: indices into IDS, and an agent.
    chain: Option<(Vec<u8>, u8)>,
    thinking_signature: bool,
}

#[derive(Arbitrary, Clone, Debug)]
struct Case {
    rows: Vec<RowM>,
    seed: SeedParams,
}

fn s(v: String) -> Value {
    Value::String(v)
}

impl ArgsM {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        let mut put = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                m.insert(k.into(), s(v));
            }
        };
        put("agent", self.agent.as_ref().map(|a| a.0.clone()));
        put("task", self.task.as_ref().map(Text::value));
        put("description", self.description.as_ref().map(Text::value));
        put("resume", self.resume.as_ref().map(|a| a.0.clone()));
        put("model", self.model.as_ref().map(|a| a.0.clone()));
        put("path", self.path.as_ref().map(Text::value));
        put("file_path", self.file_path.as_ref().map(Text::value));
        put("pattern", self.pattern.as_ref().map(Text::value));
        Value::Object(m)
    }
}

impl DetailsM {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        if let Some(d) = &self.delegation_id {
            m.insert("delegationId".into(), s(format!("d-{}", d.0)));
        }
        if let Some(a) = &self.agent {
            m.insert("agent".into(), s(a.0.clone()));
        }
        if let Some(st) = &self.status {
            m.insert("status".into(), s(st.0.clone()));
        }
        if let Some(x) = &self.model_id {
            m.insert("modelId".into(), s(x.0.clone()));
        }
        if let Some(r) = &self.report {
            m.insert("report".into(), s(r.value()));
        }
        if self.error {
            m.insert("error".into(), s("UNKNOWN_DELEGATION".into()));
        }
        Value::Object(m)
    }
}

fn any_value(a: &AnyJson) -> Value {
    super::message_facts::serde_value(&a.0.to_json()).unwrap_or(Value::Null)
}

impl RowM {
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), s(self.id.0.clone()));
        m.insert(
            "role".into(),
            s(match self.role {
                RoleM::User => "user",
                RoleM::Assistant => "assistant",
                RoleM::System => "system",
                RoleM::Tool => "tool",
            }
            .into()),
        );
        if let Some(c) = &self.content {
            m.insert("content".into(), s(c.value()));
        }
        if let Some(d) = &self.created_at {
            m.insert("createdAt".into(), s(d.0.clone()));
        }
        if let Some(st) = &self.status {
            m.insert("status".into(), s(st.0.clone()));
        }
        if let Some(t) = &self.thinking {
            m.insert("thinking".into(), s(t.value()));
        }
        if let Some((i, o, t)) = &self.usage {
            let mut u = json!({"inputTokens": i.0, "outputTokens": o.0});
            if let Some(t) = t {
                u["totalTokens"] = json!(t.0);
            }
            m.insert("usage".into(), u);
        }
        if let Some(e) = &self.error {
            m.insert("error".into(), any_value(e));
        }
        if let Some(t) = &self.tool_name {
            m.insert("toolName".into(), s(t.0.clone()));
        }
        if let Some(t) = &self.tool_call_id {
            m.insert("toolCallId".into(), s(t.0.clone()));
        }
        if let Some(t) = &self.tool_status {
            m.insert("toolStatus".into(), s(t.0.clone()));
        }
        if let Some(a) = &self.tool_args {
            m.insert(
                "toolArgs".into(),
                match a {
                    ToolArgs::Object(x) => x.to_value(),
                    ToolArgs::Json(x) => s(x.to_value().to_string()),
                    ToolArgs::Garbage(t) => s(t.value()),
                    ToolArgs::Any(v) => any_value(v),
                },
            );
        }
        if let Some(r) = &self.tool_result {
            let v = match r {
                ToolResultM::Str(t) => s(t.value()),
                ToolResultM::Content(blocks, details) => {
                    let blocks: Vec<Value> = blocks
                        .iter()
                        .map(|b| match b {
                            ResultBlock::Text(t) => json!({"type": "text", "text": t.value()}),
                            ResultBlock::Image => {
                                json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
                            }
                            ResultBlock::Empty => json!({"type": "text", "text": ""}),
                            ResultBlock::Junk(v) => any_value(v),
                        })
                        .collect();
                    let mut o = json!({ "content": blocks });
                    if let Some(d) = details {
                        o["details"] = d.to_value();
                    }
                    o
                }
                ToolResultM::Details(d) => json!({ "details": d.to_value() }),
                ToolResultM::TextField(t) => json!({ "text": t.value() }),
                ToolResultM::SubagentJson(ok, resp) => {
                    let mut o = json!({"success": ok, "data": {"stats": {}}});
                    if let Some(r) = resp {
                        o["data"]["response"] = s(r.value());
                    }
                    s(o.to_string())
                }
                ToolResultM::NotJson(t) => s(format!("{{{}", t.value())),
                ToolResultM::Any(v) => any_value(v),
            };
            m.insert("toolResult".into(), v);
        }
        if let Some(b) = self.is_error {
            m.insert("isError".into(), Value::Bool(b));
        }
        if let Some(p) = &self.parent {
            m.insert("parentToolCallId".into(), s(p.0.clone()));
        }
        if let Some(a) = &self.agent_name {
            m.insert("agentName".into(), s(a.0.clone()));
        }
        if let Some(r) = &self.subagent {
            m.insert("subagent".into(), json!({"response": r.value()}));
        }
        if let Some(x) = &self.extra {
            m.insert("hostExtra".into(), any_value(x));
        }
        Value::Object(m)
    }
}

impl Case {
    fn to_value(&self) -> Value {
        Value::Array(self.rows.iter().map(RowM::to_value).collect())
    }
}

// ---------------------------------------------------------------------------------------
// The checks

fn binding(sig: bool) -> ProviderBinding {
    ProviderBinding {
        provider: "p".into(),
        model: "m".into(),
        api: None,
        thinking_signature: sig.then(|| "reasoning_content".into()),
    }
}

fn no_empty_assistant(ms: &[AgentMessage]) -> std::result::Result<(), String> {
    for (i, m) in ms.iter().enumerate() {
        if let AgentMessage::Assistant(a) = m {
            if a.content.is_empty() {
                return Err(format!("empty assistant at {i}"));
            }
        }
    }
    Ok(())
}

fn check_history(what: &str, ms: &[AgentMessage]) {
    if let Err(e) = valid_messages(ms).and_then(|_| no_empty_assistant(ms)) {
        panic!(
            "{what}: {e}\n{}",
            serde_json::to_string(ms).unwrap_or_default()
        );
    }
    for m in ms {
        let _ = m
            .facts("m")
            .unwrap_or_else(|e| panic!("{what}: facts of a message: {e}"));
    }
}

fn check_rows(rows: &[UiMessage], seed: &SeedParams) {
    // a decoded row encodes back to itself (unknown fields kept)
    for r in rows {
        let v = serde_json::to_value(r).expect("row encodes");
        let again = rows_from_value(Value::Array(vec![v]), "rows").expect("row decodes again");
        assert_eq!(&again[0], r, "row round trip");
    }
    let parent = build_parent_context(rows);
    check_history("parent context", &parent.messages);
    for w in &parent.warnings {
        assert!(!w.code.is_empty());
    }
    let b = binding(seed.thinking_signature);
    let all: Vec<&UiMessage> = rows.iter().collect();
    let converted = rows_to_messages(&all, &b);
    check_history("converted rows", &converted);
    let _ = count_chain_reads(&all);

    let chain = seed.chain.as_ref().map(|(ids, agent)| ChainSelector {
        tool_call_ids: ids
            .iter()
            .map(|i| IDS[*i as usize % IDS.len()].to_string())
            .collect(),
        agent: AGENTS[*agent as usize % AGENTS.len()].to_string(),
    });
    if let Some(c) = &chain {
        let selected = select_chain_rows(rows, c);
        let _ = count_chain_reads(&selected);
        check_history("chain rows", &rows_to_messages(&selected, &b));
    }
    let brief = match &seed.brief {
        Brief::Fixed => format!("  {BRIEF}\n"),
        Brief::Blank => " \n\t".into(),
        Brief::Any(s) => s.lossy(),
    };
    let limit = match &seed.limit {
        Limit::Small(n) => *n as f64,
        Limit::Any(n) => n.0,
        Limit::Budget(w) => {
            delegate_context::budget::context_budget(&delegate_context::budget::BudgetModel {
                context_window: Some(*w as f64),
                max_tokens: None,
                definition_max_tokens: None,
            })
            .hard_limit as f64
        }
    };
    check_seed(rows, &brief, limit, chain.as_ref(), &b);

    let reg = Registry::from_transcript_with_id_source(rows, counter_ids());
    let list = reg.resumable_list();
    let mut per_agent: HashMap<&str, usize> = HashMap::new();
    for c in &list {
        *per_agent.entry(c.agent.as_str()).or_default() += 1;
        assert!(c.read_lines <= delegate_context::delegation::MAX_RESUMABLE_READ_LINES);
        assert!(matches!(
            c.status.as_text(),
            None | Some("completed" | "failed" | "timed_out")
        ));
    }
    assert!(
        per_agent
            .values()
            .all(|&n| n <= MAX_RESUMABLE_CHAINS_PER_AGENT),
        "clause 7: {per_agent:?}"
    );
    let _ = reg.resumable_prompt();
    let _ = reg.rebuild_skips();
}

fn counter_ids() -> delegate_context::delegation::IdSource {
    let mut n = 0u64;
    Box::new(move || {
        n += 1;
        Ok(format!("id-{n}"))
    })
}

fn check_seed(
    rows: &[UiMessage],
    brief: &str,
    limit: f64,
    chain: Option<&ChainSelector>,
    b: &ProviderBinding,
) {
    let input = SeedInput {
        brief: brief.to_string(),
        rows: rows.to_vec(),
        chain: chain.cloned(),
        binding: b.clone(),
        hard_limit: limit,
        overhead_tokens: None,
        system_prompt: None,
        tools: None,
    };
    let seeded = match delegate_context::delegation::seed_delegate_messages(&input) {
        Ok(s) => s,
        Err(e) => {
            assert_eq!(e.code(), "INVALID_INPUT", "{e}");
            assert!(
                js_whitespace::is_blank(brief) || !(limit.is_finite() && limit >= 1.0),
                "seed refused a valid input: {e}"
            );
            return;
        }
    };
    assert!(!js_whitespace::is_blank(brief) && limit.is_finite() && limit >= 1.0);
    let ms = &seeded.messages;
    // the brief first, verbatim (trimmed), as a user message
    match ms.first() {
        Some(AgentMessage::User(u)) => {
            let text = match &u.content {
                Content::Text(t) => t.clone(),
                Content::Blocks(bs) => match bs.as_slice() {
                    [ContentBlock::Text(t)] => t.text.clone(),
                    other => panic!("brief blocks {other:?}"),
                },
            };
            assert_eq!(
                text,
                js_whitespace::trim(brief),
                "the seed starts with the brief"
            );
        }
        other => panic!("the seed starts with {other:?}"),
    }
    check_history("seed", ms);
    let sum: u64 = ms.iter().map(estimate_tokens).sum();
    assert_eq!(
        seeded.tokens, sum,
        "seed tokens are the sum of its estimates"
    );
    let hard = limit.floor() as u64;
    assert_eq!(seeded.hard_limit, hard);
    let brief_tokens = estimate_tokens(&ms[0]);
    assert_eq!(seeded.brief_over_limit, brief_tokens >= hard);
    if seeded.brief_over_limit {
        assert_eq!(ms.len(), 1, "a brief over the limit is seeded alone");
    } else {
        assert!(
            seeded.tokens < hard,
            "seed {} >= hardLimit {}",
            seeded.tokens,
            hard
        );
    }
    // a chain's seed holds nothing from rows outside the chain: every tool result answers
    // a tool row of the chain's own rows
    if let Some(c) = chain {
        let own = select_chain_rows(rows, c);
        for m in ms {
            if let AgentMessage::ToolResult(r) = m {
                assert!(
                    own.iter()
                        .any(|row| row.tool_call_id.as_deref() == Some(r.tool_call_id.as_str())),
                    "a result from outside the chain: {}",
                    r.tool_call_id
                );
            }
        }
    }
}
