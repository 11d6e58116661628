//! Target `turn_boundary`: a generated delegate session (the brief first, assistants with
//! tool calls and their results, text turns, failed and empty assistants, usage numbers
//! from plausible to absurd (`1e308`, NaN), a previous summary or degrade note), a
//! budget, options, and for each of several boundaries a sequence of summarizer replies
//! (text, blank, an assistant message that stopped with `error` / `aborted`, a rejection,
//! an unreadable answer, the run's own abort). Each boundary runs `Turn::begin / next /
//! reply` on a `DelegateContext` handle that is then rewritten with the outcome (as the
//! binding's `apply` does) and pushed the next turn's messages.
//!
//! Invariants, per boundary:
//! - nothing panics; the only errors are `ABORTED` (after the run's abort) and
//!   `SUBAGENT_CONTEXT_OVERFLOW`;
//! - the handle equals the one-shot path: a context built fresh from the materialized
//!   messages (their JSON texts) has the same facts and running state, the same
//!   assessment, the same outcome for the same replies, and the fast path
//!   (`unchanged_below_threshold`) agrees with the full assessment whenever it answers;
//! - every summary request fits the summarizing window;
//! - every outcome's context is provider-valid, starts with the brief verbatim, keeps
//!   input messages in order, and (compacted / degraded) is below hardLimit in estimate
//!   units with the overhead, `tokensAfter` being exactly that figure; unchanged is below
//!   the threshold;
//! - degraded ⇒ the note is a `compactionSummary` marked `degraded`, its text and its
//!   `droppedMessages` both say the outcome's `droppedMessages`, and kept + dropped +
//!   summarized messages account for the whole history;
//! - no thrash: right after a rewrite (early trigger off) the next assessment is
//!   `unchanged`.

use arbitrary::{Arbitrary, Result, Unstructured};
use delegate_context::budget::{context_budget, BudgetModel, ContextBudget};
use delegate_context::compaction::assess::unchanged_below_threshold;
use delegate_context::compaction::context::{DelegateContext, Item};
use delegate_context::compaction::step::{decide, Decision};
use delegate_context::compaction::turn::{
    DelegateTurnOptions, DelegateTurnOutcome, TurnAction, TurnOutcomeKind,
};
use delegate_context::compaction::{prepare_delegate_turn, Next, Reply, Turn};
use delegate_context::facts::MessageFacts;
use delegate_context::js_text::json_stringify;
use delegate_context::message::AgentMessage;
use delegate_context::role::Role;
use delegate_context::stop_reason::StopReason;
use delegate_context::Error;

use super::js::{obj, JVal, JsNum, JsStr};
use super::provider::valid_facts;

/// Boundaries seen per outcome: unchanged, compacted, degraded, overflow, aborted (the
/// replay test prints them, to show what the committed corpus covers).
pub static OUTCOMES: [std::sync::atomic::AtomicUsize; 5] =
    [const { std::sync::atomic::AtomicUsize::new(0) }; 5];

fn count(k: usize) {
    OUTCOMES[k].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(session) = Session::arbitrary(&mut u) {
        super::debug(&session);
        run(&session);
    }
}

// ---------------------------------------------------------------------------------------
// The model

/// A size in characters: mostly small, sometimes large.
#[derive(Clone, Copy, Debug)]
struct Size(usize);

impl<'a> Arbitrary<'a> for Size {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Size(match u.int_in_range(0..=9u8)? {
            0..=5 => u.int_in_range(0..=400u32)? as usize,
            6..=8 => u.int_in_range(400..=4000u32)? as usize,
            _ => u.int_in_range(4000..=40_000u32)? as usize,
        }))
    }
}

#[derive(Arbitrary, Clone, Copy, Debug)]
enum UsageM {
    /// A plausible total: this percentage of the estimate so far.
    Pct(u8),
    /// Any number as `totalTokens`.
    Total(JsNum),
    /// The four parts, no total.
    Parts(JsNum, JsNum),
}

#[derive(Arbitrary, Clone, Copy, Debug)]
enum ToolKind {
    Read,
    Write,
    Edit,
    Bash,
    Grep,
}

#[derive(Arbitrary, Clone, Debug)]
struct Call {
    tool: ToolKind,
    path: u8,
    args: Size,
    result: Size,
    image: bool,
    error: bool,
}

#[derive(Arbitrary, Clone, Debug)]
enum TurnM {
    Tools {
        think: Size,
        text: Size,
        calls: Vec<Call>,
        usage: Option<UsageM>,
    },
    Answer {
        text: Size,
        usage: Option<UsageM>,
    },
    Failed {
        aborted: bool,
        calls: bool,
        usage: Option<UsageM>,
    },
    Empty,
    User(Size),
    Bash(Size),
    Custom(Size),
    Branch(Size),
    Unknown,
}

#[derive(Arbitrary, Clone, Debug)]
struct Previous {
    len: Size,
    retained: u8,
    degraded: bool,
    carried: Option<u16>,
}

#[derive(Arbitrary, Clone, Debug)]
enum ReplyM {
    Text(Size),
    Blank,
    Stop(Size),
    Error(Option<JsStr>),
    Aborted,
    Rejected,
    Unreadable,
    RunAborted,
    /// Far larger than any window.
    Huge,
}

#[derive(Arbitrary, Clone, Debug)]
struct Boundary {
    replies: Vec<ReplyM>,
    next: Vec<TurnM>,
}

#[derive(Arbitrary, Clone, Debug)]
enum Window {
    Small(u16),
    Mid(u32),
    Preset(u8),
    Any(JsNum),
}

#[derive(Arbitrary, Clone, Debug)]
struct Session {
    brief: Size,
    brief_odd: Option<JsStr>,
    previous: Option<Previous>,
    turns: Vec<TurnM>,
    window: Window,
    max_tokens: Option<u32>,
    early: bool,
    overhead: Option<JsNum>,
    summary_max_tokens: Option<JsNum>,
    custom_instructions: Option<JsStr>,
    now: Option<JsNum>,
    boundaries: Vec<Boundary>,
}

const PRESETS: [f64; 6] = [4096.0, 8192.0, 16384.0, 32000.0, 128000.0, 1.0];

impl Session {
    fn budget(&self) -> ContextBudget {
        let window = match &self.window {
            Window::Small(n) => 1500.0 + *n as f64 % 8000.0,
            Window::Mid(n) => 8000.0 + (*n % 200_000) as f64,
            Window::Preset(k) => PRESETS[*k as usize % PRESETS.len()],
            Window::Any(n) => n.0,
        };
        context_budget(&BudgetModel {
            context_window: Some(window),
            max_tokens: self.max_tokens.map(|m| m as f64),
            definition_max_tokens: None,
        })
    }

    fn options(&self) -> DelegateTurnOptions {
        DelegateTurnOptions {
            early_trigger: self.early,
            overhead_tokens: self.overhead.map(|n| {
                // mostly plausible overheads, sometimes absurd ones
                if n.0.is_finite() && n.0.abs() < 1e6 {
                    n.0.abs() % 3000.0
                } else {
                    n.0
                }
            }),
            summary_max_tokens: self.summary_max_tokens.map(|n| n.0),
            custom_instructions: self.custom_instructions.as_ref().map(JsStr::lossy),
            now: self.now.map(|n| n.0),
        }
    }
}

/// Writes messages as JSON text, with fresh tool call ids.
struct Writer {
    next_id: u64,
}

fn text_of(n: usize, c: char) -> JsStr {
    let mut s: Vec<u16> = std::iter::repeat_n(c as u16, n).collect();
    if n > 10 {
        s.extend("😀é".encode_utf16());
    }
    JsStr(s)
}

fn st(s: &str) -> JVal {
    JVal::Str(JsStr::ascii(s))
}

fn num(x: f64) -> JVal {
    JVal::Num(JsNum(x))
}

impl Writer {
    fn usage(&self, u: &UsageM, estimate_so_far: u64) -> JVal {
        match u {
            UsageM::Pct(p) => {
                let t = estimate_so_far * (*p as u64 % 160) / 100;
                obj(vec![
                    ("input", num(t as f64)),
                    ("output", num(10.0)),
                    ("cacheRead", num(0.0)),
                    ("cacheWrite", num(0.0)),
                    ("totalTokens", num(t as f64 + 10.0)),
                    ("cost", obj(vec![("total", num(0.0))])),
                ])
            }
            UsageM::Total(n) => obj(vec![("totalTokens", JVal::Num(*n))]),
            UsageM::Parts(a, b) => obj(vec![
                ("input", JVal::Num(*a)),
                ("output", JVal::Num(*b)),
                ("cacheRead", num(0.0)),
                ("cacheWrite", num(0.0)),
            ]),
        }
    }

    /// The messages of one turn, as JSON texts.
    fn turn(&mut self, t: &TurnM, estimate_so_far: u64) -> Vec<String> {
        let tools = ["read", "write", "edit", "bash", "grep"];
        let mut out = Vec::new();
        match t {
            TurnM::Tools {
                think,
                text,
                calls,
                usage,
            } => {
                let mut content = vec![
                    obj(vec![
                        ("type", st("thinking")),
                        ("thinking", JVal::Str(text_of(think.0, 't'))),
                        ("thinkingSignature", st("sig")),
                    ]),
                    obj(vec![
                        ("type", st("text")),
                        ("text", JVal::Str(text_of(text.0, 'a'))),
                    ]),
                ];
                let mut ids = Vec::new();
                for c in calls.iter().take(4) {
                    self.next_id += 1;
                    let id = format!("call_{}", self.next_id);
                    let name = tools[c.tool as usize];
                    content.push(obj(vec![
                        ("type", st("toolCall")),
                        ("id", st(&id)),
                        ("name", st(name)),
                        (
                            "arguments",
                            obj(vec![
                                ("path", st(&format!("src/f{}.rs", c.path % 9))),
                                ("pad", JVal::Str(text_of(c.args.0 % 2000, 'p'))),
                                ("n", num(1.5)),
                            ]),
                        ),
                    ]));
                    ids.push((id, name, c));
                }
                let stop = if ids.is_empty() { "stop" } else { "toolUse" };
                let mut a = vec![
                    ("role", st("assistant")),
                    ("content", JVal::Arr(content)),
                    ("api", st("faux")),
                    ("provider", st("p")),
                    ("model", st("m")),
                    ("stopReason", st(stop)),
                    ("timestamp", num(3.0)),
                ];
                if let Some(u) = usage {
                    a.push(("usage", self.usage(u, estimate_so_far)));
                }
                out.push(obj(a).to_json());
                for (id, name, c) in ids {
                    let mut blocks = vec![obj(vec![
                        ("type", st("text")),
                        ("text", JVal::Str(text_of(c.result.0, 'r'))),
                    ])];
                    if c.image {
                        blocks.push(obj(vec![
                            ("type", st("image")),
                            ("data", st("AAAA")),
                            ("mimeType", st("image/png")),
                        ]));
                    }
                    out.push(
                        obj(vec![
                            ("role", st("toolResult")),
                            ("toolCallId", st(&id)),
                            ("toolName", st(name)),
                            ("content", JVal::Arr(blocks)),
                            ("isError", JVal::Bool(c.error)),
                            ("timestamp", num(4.0)),
                            ("details", obj(vec![("lines", num(c.result.0 as f64))])),
                        ])
                        .to_json(),
                    );
                }
            }
            TurnM::Answer { text, usage } => {
                let mut a = vec![
                    ("role", st("assistant")),
                    (
                        "content",
                        JVal::Arr(vec![obj(vec![
                            ("type", st("text")),
                            ("text", JVal::Str(text_of(text.0, 'A'))),
                        ])]),
                    ),
                    ("stopReason", st("stop")),
                    ("timestamp", num(5.0)),
                ];
                if let Some(u) = usage {
                    a.push(("usage", self.usage(u, estimate_so_far)));
                }
                out.push(obj(a).to_json());
            }
            TurnM::Failed {
                aborted,
                calls,
                usage,
            } => {
                self.next_id += 1;
                let id = format!("call_{}", self.next_id);
                let content = if *calls {
                    JVal::Arr(vec![obj(vec![
                        ("type", st("toolCall")),
                        ("id", st(&id)),
                        ("name", st("read")),
                        ("arguments", obj(vec![("path", st("x"))])),
                    ])])
                } else {
                    JVal::Arr(vec![])
                };
                let mut a = vec![
                    ("role", st("assistant")),
                    ("content", content),
                    ("stopReason", st(if *aborted { "aborted" } else { "error" })),
                    ("errorMessage", st("boom")),
                    ("timestamp", num(6.0)),
                ];
                if let Some(u) = usage {
                    a.push(("usage", self.usage(u, estimate_so_far)));
                }
                out.push(obj(a).to_json());
                if *calls {
                    out.push(
                        obj(vec![
                            ("role", st("toolResult")),
                            ("toolCallId", st(&id)),
                            ("toolName", st("read")),
                            ("content", JVal::Arr(vec![])),
                            ("isError", JVal::Bool(true)),
                        ])
                        .to_json(),
                    );
                }
            }
            TurnM::Empty => out.push(
                obj(vec![
                    ("role", st("assistant")),
                    (
                        "content",
                        JVal::Arr(vec![obj(vec![("type", st("text")), ("text", st("  \n"))])]),
                    ),
                    ("stopReason", st("stop")),
                ])
                .to_json(),
            ),
            TurnM::User(n) => out.push(
                obj(vec![
                    ("role", st("user")),
                    (
                        "content",
                        JVal::Arr(vec![obj(vec![
                            ("type", st("text")),
                            ("text", JVal::Str(text_of(n.0, 'u'))),
                        ])]),
                    ),
                    ("timestamp", num(7.0)),
                ])
                .to_json(),
            ),
            TurnM::Bash(n) => out.push(
                obj(vec![
                    ("role", st("bashExecution")),
                    ("command", st("ls")),
                    ("output", JVal::Str(text_of(n.0, 'o'))),
                    ("exitCode", num(1.0)),
                    ("timestamp", num(8.0)),
                ])
                .to_json(),
            ),
            TurnM::Custom(n) => out.push(
                obj(vec![
                    ("role", st("custom")),
                    ("customType", st("note")),
                    ("content", JVal::Str(text_of(n.0, 'c'))),
                    ("display", JVal::Bool(true)),
                ])
                .to_json(),
            ),
            TurnM::Branch(n) => out.push(
                obj(vec![
                    ("role", st("branchSummary")),
                    ("summary", JVal::Str(text_of(n.0, 'B'))),
                    ("fromId", st("e1")),
                ])
                .to_json(),
            ),
            TurnM::Unknown => out.push(
                obj(vec![
                    ("role", st("hostSpecial")),
                    (
                        "payload",
                        obj(vec![("deep", JVal::Arr(vec![num(1.0), st("two")]))]),
                    ),
                ])
                .to_json(),
            ),
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// The checks

fn facts(text: &str) -> MessageFacts {
    MessageFacts::from_json(text, "m").unwrap_or_else(|e| panic!("message refused: {e}\n{text}"))
}

/// Equality through `Debug` (a NaN usage or timestamp equals itself there).
fn same<T: std::fmt::Debug + PartialEq>(a: &T, b: &T, what: &str) {
    if a == b {
        return;
    }
    let (x, y) = (format!("{a:?}"), format!("{b:?}"));
    assert!(x == y, "{what} differ:\n{x}\n{y}");
}

/// The handle and a context built fresh from the same messages hold the same state.
fn same_state(handle: &DelegateContext, fresh: &DelegateContext) {
    same(&handle.facts(), &fresh.facts(), "facts");
    assert_eq!(handle.total_tokens(), fresh.total_tokens(), "total tokens");
    assert_eq!(handle.last_summary(), fresh.last_summary(), "last summary");
    assert_eq!(
        handle.last_assistant(),
        fresh.last_assistant(),
        "last assistant"
    );
    assert_eq!(
        handle.file_op_indices(0..handle.len()),
        fresh.file_op_indices(0..fresh.len()),
        "file op indices"
    );
    assert_eq!(handle.fresh_usage_start(), fresh.fresh_usage_start());
    for end in [0, handle.len() / 2, handle.len()] {
        assert_eq!(handle.tokens(0..end), fresh.tokens(0..end));
        same(
            &handle.estimate(end, 0),
            &fresh.estimate(end, 0),
            "estimates",
        );
    }
}

fn reply_of(r: &ReplyM, budget: &ContextBudget) -> Reply {
    match r {
        ReplyM::Text(n) => Reply::Text(format!("## Goal\n{}", "g".repeat(n.0))),
        ReplyM::Blank => Reply::Text(" \n\t".into()),
        ReplyM::Stop(n) => Reply::Message {
            text: format!("summary {}", "s".repeat(n.0)),
            stop_reason: Some(StopReason::Stop),
            error_message: None,
        },
        ReplyM::Error(m) => Reply::Message {
            text: "partial".into(),
            stop_reason: Some(StopReason::Error),
            error_message: m.as_ref().map(JsStr::lossy),
        },
        ReplyM::Aborted => Reply::Message {
            text: String::new(),
            stop_reason: Some(StopReason::Aborted),
            error_message: None,
        },
        ReplyM::Rejected => Reply::Rejected("provider error 500".into()),
        ReplyM::Unreadable => Reply::Unreadable,
        ReplyM::RunAborted => Reply::RunAborted,
        ReplyM::Huge => Reply::Text(
            "H".repeat(
                (budget.hard_limit as usize)
                    .saturating_mul(4)
                    .clamp(10, 4_000_000)
                    + 10,
            ),
        ),
    }
}

/// One boundary driven to its end with `replies` (cycled; a short text when none).
fn drive(
    ctx: &DelegateContext,
    budget: &ContextBudget,
    opts: &DelegateTurnOptions,
    replies: &[ReplyM],
) -> (std::result::Result<DelegateTurnOutcome, Error>, bool) {
    let mut turn = match Turn::begin(ctx, budget, "faux/m", opts) {
        Ok(t) => t,
        Err(e) => return (Err(e), false),
    };
    let mut asked = 0usize;
    let mut run_aborted = false;
    loop {
        match turn.next(ctx) {
            Ok(Next::Done(out)) => return (Ok(out), run_aborted),
            Ok(Next::Summarize(request)) => {
                assert!(asked < 2, "more than two summary requests");
                assert!(
                    request
                        .estimated_input_tokens
                        .saturating_add(request.max_tokens)
                        <= budget.context_window,
                    "summary request {} + {} over the window {}",
                    request.estimated_input_tokens,
                    request.max_tokens,
                    budget.context_window
                );
                let r = replies
                    .get(asked)
                    .cloned()
                    .unwrap_or(ReplyM::Text(Size(40)));
                run_aborted |= matches!(r, ReplyM::RunAborted);
                turn.reply(reply_of(&r, budget));
                asked += 1;
            }
            Err(e) => return (Err(e), run_aborted),
        }
    }
}

fn new_texts(item: &Item, texts: &[String]) -> Vec<String> {
    match item {
        Item::Kept(run) => texts[run.clone()].to_vec(),
        Item::New(m) => vec![json_stringify(
            &serde_json::to_value(m.as_ref()).expect("new message encodes"),
        )],
    }
}

fn run(session: &Session) {
    let budget = session.budget();
    let opts = session.options();
    let overhead = opts.overhead();
    let mut w = Writer { next_id: 0 };

    let brief_text = match &session.brief_odd {
        Some(s) if !s.is_empty() => s.clone(),
        _ => text_of(session.brief.0.max(1), 'b'),
    };
    let mut texts: Vec<String> = vec![obj(vec![
        ("role", st("user")),
        ("content", JVal::Str(brief_text)),
        ("timestamp", num(1.0)),
        ("hostBriefId", st("brief-1")),
    ])
    .to_json()];
    if let Some(p) = &session.previous {
        let mut details = vec![
            ("readFiles", JVal::Arr(vec![st("old.rs")])),
            ("modifiedFiles", JVal::Arr(vec![])),
            ("retainedMessages", num((p.retained % 8) as f64)),
        ];
        if p.degraded {
            details.push(("degraded", JVal::Bool(true)));
            details.push(("droppedMessages", num(3.0)));
            if let Some(c) = p.carried {
                details.push(("carriedFrom", num(c as f64)));
            }
        }
        texts.push(
            obj(vec![
                ("role", st("compactionSummary")),
                ("summary", JVal::Str(text_of(p.len.0, 's'))),
                ("tokensBefore", num(99999.0)),
                ("timestamp", num(2.0)),
                ("details", obj(details)),
            ])
            .to_json(),
        );
    }
    let mut handle = DelegateContext::new();
    for t in &texts {
        handle.push(facts(t));
    }
    for t in session.turns.iter().take(60) {
        let new = w.turn(t, handle.total_tokens());
        for m in new {
            handle.push(facts(&m));
            texts.push(m);
        }
    }
    let brief = texts[0].clone();
    let input_valid = valid_facts(handle.facts()).is_ok();
    assert!(input_valid, "generator: {:?}", valid_facts(handle.facts()));

    for (k, b) in session.boundaries.iter().take(4).enumerate() {
        // the handle against the one-shot path
        let fresh = DelegateContext::from_facts(texts.iter().map(|t| facts(t)));
        same_state(&handle, &fresh);
        let a = decide(&handle, &budget, &opts);
        same(&a, &decide(&fresh, &budget, &opts), "assessments");
        let a = match a {
            Ok(a) => a,
            Err(e) => {
                assert_eq!(e.code(), "INVALID_INPUT");
                assert!(
                    budget.hard_limit == 0,
                    "assess refused a valid context: {e}"
                );
                return;
            }
        };
        fast_path_agrees(&handle, &texts, &budget, &opts);
        if k == 0 {
            // (costly: every message decoded and encoded again; once per session)
            typed_path_agrees(&a, &texts, &budget, &opts);
        }

        let (result, run_aborted) = drive(&handle, &budget, &opts, &b.replies);
        let (again, _) = drive(&fresh, &budget, &opts, &b.replies);
        same(
            &result,
            &again,
            "the handle's and the one-shot path's outcomes",
        );
        let out = match result {
            Ok(out) => out,
            Err(Error::Aborted) => {
                count(4);
                assert!(run_aborted, "ABORTED without the run's abort");
                return; // the run ends here, its context unchanged
            }
            Err(Error::SubagentContextOverflow {
                tokens, hard_limit, ..
            }) => {
                count(3);
                assert_eq!(hard_limit, Some(budget.hard_limit));
                assert_ne!(
                    a.action,
                    TurnAction::Unchanged,
                    "overflow below the threshold"
                );
                let t = tokens.unwrap_or(0);
                assert!(
                    t.saturating_add(1) >= budget.hard_limit.min(a.assessment.fit_limit),
                    "overflow at {t} tokens"
                );
                return; // clause 5: the run ends
            }
            Err(other) => panic!("unexpected error {other:?}"),
        };
        count(match out.outcome {
            TurnOutcomeKind::Unchanged => 0,
            TurnOutcomeKind::Compacted => 1,
            TurnOutcomeKind::Degraded => 2,
        });
        let new_texts: Vec<String> = out
            .messages
            .iter()
            .flat_map(|m| new_texts(m, &texts))
            .collect();
        let new_facts: Vec<MessageFacts> = new_texts.iter().map(|t| facts(t)).collect();
        check_outcome(&out, &a, &texts, &new_texts, &new_facts, &budget, overhead);
        assert_eq!(new_texts[0], brief, "the brief is first and verbatim");

        // apply the outcome to the handle as the binding does
        let rewrote = out.rewrites(handle.len());
        if rewrote {
            let nf = out.new_facts().expect("new facts");
            handle.rewrite(&out.messages, nf);
        }
        texts = new_texts;
        same_state(&handle, &DelegateContext::from_facts(new_facts));
        if rewrote && !opts.early_trigger {
            let next = decide(&handle, &budget, &opts).expect("assess after a rewrite");
            assert_eq!(
                next.action,
                TurnAction::Unchanged,
                "a second boundary right after {:?} at {} tokens",
                out.outcome,
                out.tokens_after
            );
        }
        // the next turn's messages
        for t in b.next.iter().take(20) {
            let new = w.turn(t, handle.total_tokens());
            for m in new {
                handle.push(facts(&m));
                texts.push(m);
            }
        }
    }
}

/// The one-shot functions over typed messages (`prepareDelegateTurn`'s core) decide as
/// the handle does.
fn typed_path_agrees(
    a: &Decision,
    texts: &[String],
    budget: &ContextBudget,
    opts: &DelegateTurnOptions,
) {
    let typed: Option<Vec<AgentMessage>> = texts
        .iter()
        .map(|t| {
            super::message_facts::serde_value(t).and_then(|v| AgentMessage::from_value(v, "m").ok())
        })
        .collect();
    let Some(typed) = typed else { return };
    let prep = prepare_delegate_turn(&typed, budget, opts).expect("typed path");
    same(
        &prep,
        &a.preparation(budget),
        "the typed one-shot path's and the handle's decisions",
    );
}

fn fast_path_agrees(
    ctx: &DelegateContext,
    texts: &[String],
    budget: &ContextBudget,
    opts: &DelegateTurnOptions,
) {
    let fs = ctx.facts();
    let last_summary = fs.iter().rposition(|f| f.role == Role::CompactionSummary);
    let quick = unchanged_below_threshold(
        fs.len(),
        &fs[0],
        last_summary.map(|k| (k, &fs[k])),
        budget,
        opts,
        |i| MessageFacts::from_json(&texts[i], "m"),
    )
    .expect("quick path");
    if let Some(q) = quick {
        let full = decide(ctx, budget, opts)
            .expect("assess")
            .preparation(budget);
        same(
            &q,
            &full,
            "the fast path's and the full assessment's answers",
        );
    }
}

fn check_outcome(
    out: &DelegateTurnOutcome,
    a: &Decision,
    texts: &[String],
    new_texts: &[String],
    new_facts: &[MessageFacts],
    budget: &ContextBudget,
    overhead: u64,
) {
    if let Err(e) = valid_facts(new_facts) {
        panic!("provider-invalid {:?} outcome: {e}", out.outcome);
    }
    // kept input messages stay in input order
    let kept: Vec<usize> = out
        .messages
        .iter()
        .flat_map(|m| match m {
            Item::Kept(run) => run.clone(),
            Item::New(_) => 0..0,
        })
        .collect();
    assert!(
        kept.windows(2).all(|w| w[0] < w[1]),
        "kept messages in order: {kept:?}"
    );
    assert!(kept.iter().all(|&i| i < texts.len()));
    assert_eq!(out.hard_limit, budget.hard_limit);
    let sum: u64 = new_facts
        .iter()
        .map(|f| f.tokens)
        .sum::<u64>()
        .saturating_add(overhead);
    match out.outcome {
        TurnOutcomeKind::Unchanged => {
            assert_eq!(new_texts, texts, "unchanged keeps every message");
            assert_eq!(out.context_compactions, 0);
            assert!(!out.context_degraded);
            if a.action == TurnAction::Unchanged {
                assert!(a.assessment.tokens < a.assessment.threshold);
            } else {
                // degrade found nothing to drop: the whole context fits
                assert_eq!(out.tokens_after, sum);
                assert!(sum < budget.hard_limit, "unchanged at {sum} >= hardLimit");
            }
        }
        TurnOutcomeKind::Compacted | TurnOutcomeKind::Degraded => {
            assert_eq!(out.context_compactions, 1);
            assert_eq!(
                out.context_degraded,
                out.outcome == TurnOutcomeKind::Degraded
            );
            assert_eq!(
                out.tokens_after, sum,
                "tokensAfter is the estimate with the overhead"
            );
            assert!(
                sum < budget.hard_limit,
                "{:?} context at {sum} >= hardLimit {}",
                out.outcome,
                budget.hard_limit
            );
            assert!(sum < a.assessment.fit_limit.max(1) || a.assessment.fit_limit == 0);
            // the new message is the summary / note, right after the brief
            assert!(matches!(out.messages.get(1), Some(Item::New(_))));
            let note = &new_facts[1];
            assert_eq!(note.role, Role::CompactionSummary);
            let marks = note.summary.as_deref().cloned().unwrap_or_default();
            assert_eq!(marks.retained_messages, kept.len() - 1, "retainedMessages");
            if out.outcome == TurnOutcomeKind::Degraded {
                assert!(marks.degraded, "a degrade note is marked degraded");
                assert_eq!(
                    marks.dropped_messages, out.dropped_messages,
                    "droppedMessages mark"
                );
                let text = note.text().summary.unwrap_or_default();
                let said = text
                    .strip_prefix("[Context degraded] ")
                    .and_then(|t| t.split(' ').next())
                    .and_then(|n| n.parse::<usize>().ok());
                assert_eq!(said, Some(out.dropped_messages), "the note says {text:?}");
                assert_eq!(
                    (kept.len() - 1) + out.dropped_messages + out.summarized_messages,
                    texts.len() - 1,
                    "kept + dropped + summarized = the history"
                );
                if let Some(from) = marks.carried_from {
                    assert!(from <= super::js::utf16_len(&text));
                }
            } else {
                assert!(!marks.degraded);
            }
        }
    }
}
