//! Target `message_facts`: every host message goes through `MessageFacts::from_json`.
//!
//! - Raw mode (first byte even): any text. `from_json` never panics; what it accepts
//!   reads its characters again without panic; and when serde_json also reads the text
//!   (lone surrogates replaced, as the library does), the typed decoder
//!   (`AgentMessage::from_value`) accepts exactly what the scanner accepts.
//! - Model mode (first byte odd): a message generated from a small model and written as
//!   `JSON.stringify` writes it (non-ASCII, lone surrogates, controls, odd numbers, deep
//!   nesting, `role` before or after `content`). Every fact equals a reference computed
//!   on the model's UTF-16 units (pi's `estimateTokens`, `calculateContextTokens`, tool
//!   call ids, file operations, summary marks, ...), and every string of the message,
//!   scanned alone by `json_scan`, has the UTF-16 length of serde_json's decoding and
//!   decodes to the same text.

use arbitrary::{Arbitrary, Result, Unstructured};
use delegate_context::facts::{FileOpKind, MessageFacts, SummaryMarks};
use delegate_context::js_text::{parse_json, replace_lone_surrogates};
use delegate_context::js_whitespace;
use delegate_context::json_scan;
use delegate_context::message::AgentMessage;
use delegate_context::role::Role;
use delegate_context::stop_reason::StopReason;

use super::js::{obj, write_str, write_str_escaped, JVal, JsNum, JsStr};

pub fn check(data: &[u8]) {
    match data.split_first() {
        None => {}
        Some((mode, rest)) if mode % 2 == 0 => check_raw(rest),
        Some((_, rest)) => {
            let mut u = Unstructured::new(rest);
            if let Ok(case) = Case::arbitrary(&mut u) {
                check_model(&case);
            }
        }
    }
}

/// serde_json's reading of JSON text written by JavaScript (lone surrogates replaced).
pub fn serde_value(text: &str) -> Option<serde_json::Value> {
    let fixed = replace_lone_surrogates(text);
    parse_json(fixed.as_deref().unwrap_or(text)).ok()
}

fn check_raw(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    super::debug(&text);
    let facts = MessageFacts::from_json(text, "m");
    if let Ok(f) = &facts {
        let t = f.text();
        let _ = f.parts();
        assert!(text.contains(f.raw.as_str()), "raw is a part of the text");
        if f.role == Role::User {
            assert!(t.user_text.is_some(), "a user message has a user text");
        }
    }
    // The typed decoder and the scanner agree on what is a valid message.
    if let Some(v) = serde_value(text) {
        let typed = AgentMessage::from_value(v, "m");
        assert_eq!(
            typed.is_ok(),
            facts.is_ok(),
            "typed decoder {typed:?} vs scanner {facts:?}"
        );
        if let (Ok(m), Ok(f)) = (&typed, &facts) {
            if f.role != Role::Other {
                assert_eq!(m.role(), f.role_name(), "role");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The model

#[derive(Arbitrary, Clone, Debug)]
pub enum ToolName {
    Read,
    Write,
    Edit,
    Bash,
    Other(JsStr),
}

impl ToolName {
    pub fn to_js(&self) -> JsStr {
        match self {
            ToolName::Read => JsStr::ascii("read"),
            ToolName::Write => JsStr::ascii("write"),
            ToolName::Edit => JsStr::ascii("edit"),
            ToolName::Bash => JsStr::ascii("bash"),
            ToolName::Other(s) => s.clone(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct AnyJson(pub JVal);

impl<'a> Arbitrary<'a> for AnyJson {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(AnyJson(JVal::gen(u, 3)?))
    }
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Args {
    Path {
        path: JsStr,
        rest: Vec<(JsStr, AnyJson)>,
    },
    Any(AnyJson),
}

impl Args {
    pub fn to_jval(&self) -> JVal {
        match self {
            Args::Path { path, rest } => {
                let mut e: Vec<(JsStr, JVal)> = rest
                    .iter()
                    .map(|(k, v)| (prefixed("a", k), v.0.clone()))
                    .collect();
                e.insert(0, (JsStr::ascii("path"), JVal::Str(path.clone())));
                JVal::obj(e)
            }
            Args::Any(v) => v.0.clone(),
        }
    }
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Block {
    Text {
        text: JsStr,
        sig: Option<JsStr>,
    },
    Thinking {
        thinking: JsStr,
        /// absent, `null`, or a string
        sig: Option<Option<JsStr>>,
        redacted: Option<bool>,
    },
    Image {
        data: JsStr,
        mime: JsStr,
    },
    ToolCall {
        id: JsStr,
        name: ToolName,
        args: Args,
        thought: Option<JsStr>,
    },
    Unknown {
        kind: JsStr,
        payload: AnyJson,
    },
}

/// `prefix` + `s`: a key or type that cannot be one the library knows.
fn prefixed(prefix: &str, s: &JsStr) -> JsStr {
    let mut u: Vec<u16> = prefix.encode_utf16().collect();
    u.extend_from_slice(&s.0);
    JsStr(u)
}

impl Block {
    pub fn to_jval(&self) -> JVal {
        let s = |x: &JsStr| JVal::Str(x.clone());
        match self {
            Block::Text { text, sig } => {
                let mut e = vec![("type", s(&JsStr::ascii("text"))), ("text", s(text))];
                if let Some(g) = sig {
                    e.push(("textSignature", s(g)));
                }
                obj(e)
            }
            Block::Thinking {
                thinking,
                sig,
                redacted,
            } => {
                let mut e = vec![
                    ("type", s(&JsStr::ascii("thinking"))),
                    ("thinking", s(thinking)),
                ];
                match sig {
                    None => {}
                    Some(None) => e.push(("thinkingSignature", JVal::Null)),
                    Some(Some(g)) => e.push(("thinkingSignature", s(g))),
                }
                if let Some(r) = redacted {
                    e.push(("redacted", JVal::Bool(*r)));
                }
                obj(e)
            }
            Block::Image { data, mime } => obj(vec![
                ("type", s(&JsStr::ascii("image"))),
                ("data", s(data)),
                ("mimeType", s(mime)),
            ]),
            Block::ToolCall {
                id,
                name,
                args,
                thought,
            } => {
                let mut e = vec![
                    ("type", s(&JsStr::ascii("toolCall"))),
                    ("id", s(id)),
                    ("name", s(&name.to_js())),
                    ("arguments", args.to_jval()),
                ];
                if let Some(t) = thought {
                    e.push(("thoughtSignature", s(t)));
                }
                obj(e)
            }
            Block::Unknown { kind, payload } => obj(vec![
                ("type", s(&prefixed("x", kind))),
                ("payload", payload.0.clone()),
            ]),
        }
    }
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Content {
    Str(JsStr),
    Blocks(Vec<Block>),
}

impl Content {
    fn to_jval(&self) -> JVal {
        match self {
            Content::Str(s) => JVal::Str(s.clone()),
            Content::Blocks(b) => JVal::Arr(b.iter().map(Block::to_jval).collect()),
        }
    }
    /// pi's character count of a user / toolResult / custom content.
    fn chars(&self) -> usize {
        match self {
            Content::Str(s) => s.len(),
            Content::Blocks(b) => b
                .iter()
                .map(|b| match b {
                    Block::Text { text, .. } => text.len(),
                    Block::Image { .. } => 4800,
                    _ => 0,
                })
                .sum(),
        }
    }
    /// pi's `contentText(content, "")`, as Rust receives it.
    fn text(&self) -> String {
        match self {
            Content::Str(s) => s.lossy(),
            Content::Blocks(b) => b
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text, .. } => Some(text.lossy()),
                    _ => None,
                })
                .collect(),
        }
    }
}

#[derive(Arbitrary, Clone, Debug)]
#[allow(clippy::enum_variant_names)]
pub enum Stop {
    Absent,
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
    Deferred,
    Pending,
    Other(JsStr),
}

impl Stop {
    fn to_js(&self) -> Option<JsStr> {
        Some(JsStr::ascii(match self {
            Stop::Absent => return None,
            Stop::Stop => "stop",
            Stop::Length => "length",
            Stop::ToolUse => "toolUse",
            Stop::Error => "error",
            Stop::Aborted => "aborted",
            Stop::Deferred => "deferred",
            Stop::Pending => "pending",
            Stop::Other(s) => return Some(prefixed("x", s)),
        }))
    }
    fn expected(&self) -> Option<StopReason> {
        Some(match self {
            Stop::Absent => return None,
            Stop::Stop => StopReason::Stop,
            Stop::Length => StopReason::Length,
            Stop::ToolUse => StopReason::ToolUse,
            Stop::Error => StopReason::Error,
            Stop::Aborted => StopReason::Aborted,
            Stop::Deferred => StopReason::Deferred,
            Stop::Pending => StopReason::Pending,
            Stop::Other(_) => StopReason::Other,
        })
    }
}

#[derive(Arbitrary, Clone, Debug)]
pub struct UsageM {
    pub input: Option<JsNum>,
    pub output: Option<JsNum>,
    pub cache_read: Option<JsNum>,
    pub cache_write: Option<JsNum>,
    pub total: Option<JsNum>,
    pub cost: bool,
}

impl UsageM {
    pub fn to_jval(&self) -> JVal {
        let mut e = Vec::new();
        for (k, v) in [
            ("input", self.input),
            ("output", self.output),
            ("cacheRead", self.cache_read),
            ("cacheWrite", self.cache_write),
            ("totalTokens", self.total),
        ] {
            if let Some(n) = v {
                e.push((k, JVal::Num(n)));
            }
        }
        if self.cost {
            e.push(("cost", obj(vec![("total", JVal::Num(JsNum(0.5)))])));
        }
        obj(e)
    }
    /// `calculateContextTokens`: `totalTokens || input + output + cacheRead + cacheWrite`,
    /// a missing number `undefined` (NaN), one written as `null` read as NaN.
    pub fn expected(&self) -> f64 {
        let n = |v: Option<JsNum>| v.map_or(f64::NAN, JsNum::read_back);
        let t = n(self.total);
        if t != 0.0 && !t.is_nan() {
            t
        } else {
            n(self.input) + n(self.output) + n(self.cache_read) + n(self.cache_write)
        }
    }
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Details {
    Marks {
        read: Vec<JsStr>,
        modified: Vec<JsStr>,
        retained: Option<JsNum>,
        degraded: Option<bool>,
        dropped: Option<JsNum>,
        carried: Option<JsNum>,
    },
    Junk(AnyJson),
}

impl Details {
    fn to_jval(&self) -> JVal {
        match self {
            Details::Marks {
                read,
                modified,
                retained,
                degraded,
                dropped,
                carried,
            } => {
                let list = |l: &Vec<JsStr>| JVal::Arr(l.iter().cloned().map(JVal::Str).collect());
                let mut e = vec![("readFiles", list(read)), ("modifiedFiles", list(modified))];
                for (k, v) in [
                    ("retainedMessages", retained),
                    ("droppedMessages", dropped),
                    ("carriedFrom", carried),
                ] {
                    if let Some(n) = v {
                        e.push((k, JVal::Num(*n)));
                    }
                }
                if let Some(d) = degraded {
                    e.push(("degraded", JVal::Bool(*d)));
                }
                obj(e)
            }
            Details::Junk(v) => v.0.clone(),
        }
    }
}

/// The marks of a `details` value by the documented rule (anything not understood is
/// ignored), read on the model.
fn expected_marks(details: &JVal) -> SummaryMarks {
    let JVal::Obj(entries) = details else {
        return SummaryMarks::default();
    };
    let get = |k: &str| {
        entries
            .iter()
            .rev()
            .find(|(key, _)| key.lossy() == k)
            .map(|(_, v)| v)
    };
    let list = |k: &str| -> Vec<String> {
        match get(k) {
            Some(JVal::Arr(items)) => items
                .iter()
                .filter_map(|v| match v {
                    JVal::Str(s) => Some(s.lossy()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let count = |k: &str| -> Option<usize> {
        match get(k) {
            Some(JVal::Num(n)) if n.0.is_finite() && n.0 >= 0.0 => Some(n.0 as usize),
            _ => None,
        }
    };
    SummaryMarks {
        read_files: list("readFiles"),
        modified_files: list("modifiedFiles"),
        retained_messages: count("retainedMessages").unwrap_or(0),
        degraded: matches!(get("degraded"), Some(JVal::Bool(true))),
        dropped_messages: count("droppedMessages").unwrap_or(0),
        carried_from: count("carriedFrom"),
    }
}

#[derive(Arbitrary, Clone, Debug)]
pub enum Msg {
    User {
        content: Content,
    },
    Assistant {
        blocks: Vec<Block>,
        stop: Stop,
        usage: Option<UsageM>,
        error_message: Option<JsStr>,
        meta: bool,
    },
    ToolResult {
        id: JsStr,
        name: JsStr,
        content: Content,
        is_error: Option<bool>,
        details: Option<AnyJson>,
    },
    CompactionSummary {
        summary: JsStr,
        tokens_before: Option<JsNum>,
        details: Option<Details>,
    },
    BranchSummary {
        summary: JsStr,
        from_id: Option<JsStr>,
    },
    Custom {
        content: Content,
        custom_type: Option<JsStr>,
        display: Option<bool>,
    },
    Bash {
        command: JsStr,
        output: JsStr,
        exit_code: Option<AnyJson>,
        cancelled: Option<AnyJson>,
        truncated: Option<AnyJson>,
        exclude: Option<bool>,
    },
    Unknown {
        role: JsStr,
        payload: AnyJson,
    },
}

#[derive(Arbitrary, Clone, Debug)]
pub struct Case {
    pub msg: Msg,
    pub role_first: bool,
    pub timestamp: Option<JsNum>,
    /// Host fields the library does not know (keys prefixed so they cannot be known ones).
    pub extra: Vec<(JsStr, AnyJson)>,
    /// A host field nested this deep (`[[[…]]]` and `{"d":…}`), written as text.
    pub deep: Option<u16>,
}

/// `text` (a JSON object) with a field `xdeep` nested `levels` deep, built as text (no
/// recursion: a value this deep would overflow any recursive walk of the harness).
fn with_deep_field(text: &str, levels: usize) -> String {
    let Some(body) = text.strip_suffix('}') else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + levels * 6 + 16);
    out.push_str(body);
    if body.len() > 1 {
        out.push(',');
    }
    out.push_str("\"xdeep\":");
    for k in 0..levels {
        out.push_str(if k % 2 == 0 { "[" } else { "{\"d\":" });
    }
    out.push_str("\"leaf\"");
    for k in (0..levels).rev() {
        out.push(if k % 2 == 0 { ']' } else { '}' });
    }
    out.push('}');
    out
}

impl Case {
    /// The message as `JSON.stringify` writes it.
    pub fn to_jval(&self) -> JVal {
        let s = |x: &JsStr| JVal::Str(x.clone());
        let (role, mut fields): (&str, Vec<(&str, JVal)>) = match &self.msg {
            Msg::User { content } => ("user", vec![("content", content.to_jval())]),
            Msg::Assistant {
                blocks,
                stop,
                usage,
                error_message,
                meta,
            } => {
                let mut e = vec![(
                    "content",
                    JVal::Arr(blocks.iter().map(Block::to_jval).collect()),
                )];
                if *meta {
                    e.push(("api", s(&JsStr::ascii("faux"))));
                    e.push(("provider", s(&JsStr::ascii("p"))));
                    e.push(("model", s(&JsStr::ascii("m"))));
                }
                if let Some(st) = stop.to_js() {
                    e.push(("stopReason", JVal::Str(st)));
                }
                if let Some(u) = usage {
                    e.push(("usage", u.to_jval()));
                }
                if let Some(m) = error_message {
                    e.push(("errorMessage", s(m)));
                }
                ("assistant", e)
            }
            Msg::ToolResult {
                id,
                name,
                content,
                is_error,
                details,
            } => {
                let mut e = vec![
                    ("toolCallId", s(id)),
                    ("toolName", s(name)),
                    ("content", content.to_jval()),
                ];
                if let Some(b) = is_error {
                    e.push(("isError", JVal::Bool(*b)));
                }
                if let Some(d) = details {
                    e.push(("details", d.0.clone()));
                }
                ("toolResult", e)
            }
            Msg::CompactionSummary {
                summary,
                tokens_before,
                details,
            } => {
                let mut e = vec![("summary", s(summary))];
                if let Some(n) = tokens_before {
                    e.push(("tokensBefore", JVal::Num(*n)));
                }
                if let Some(d) = details {
                    e.push(("details", d.to_jval()));
                }
                ("compactionSummary", e)
            }
            Msg::BranchSummary { summary, from_id } => {
                let mut e = vec![("summary", s(summary))];
                if let Some(f) = from_id {
                    e.push(("fromId", s(f)));
                }
                ("branchSummary", e)
            }
            Msg::Custom {
                content,
                custom_type,
                display,
            } => {
                let mut e = vec![("content", content.to_jval())];
                if let Some(c) = custom_type {
                    e.push(("customType", s(c)));
                }
                if let Some(d) = display {
                    e.push(("display", JVal::Bool(*d)));
                }
                ("custom", e)
            }
            Msg::Bash {
                command,
                output,
                exit_code,
                cancelled,
                truncated,
                exclude,
            } => {
                let mut e = vec![("command", s(command)), ("output", s(output))];
                for (k, v) in [
                    ("exitCode", exit_code),
                    ("cancelled", cancelled),
                    ("truncated", truncated),
                ] {
                    if let Some(v) = v {
                        e.push((k, v.0.clone()));
                    }
                }
                if let Some(x) = exclude {
                    e.push(("excludeFromContext", JVal::Bool(*x)));
                }
                ("bashExecution", e)
            }
            Msg::Unknown { role, payload } => {
                let mut e = vec![("payload", payload.0.clone())];
                e.insert(0, ("role", s(&prefixed("x", role))));
                return with_extra(obj(e), &self.extra);
            }
        };
        if let Some(t) = self.timestamp {
            fields.push(("timestamp", JVal::Num(t)));
        }
        let role = ("role", JVal::Str(JsStr::ascii(role)));
        if self.role_first {
            fields.insert(0, role);
        } else {
            fields.push(role);
        }
        with_extra(obj(fields), &self.extra)
    }

    /// The facts the library must read, computed on the model.
    fn expected(&self) -> Expected {
        let mut e = Expected {
            role: Role::Other,
            chars: 0,
            usage: None,
            stop: None,
            ids: Vec::new(),
            answers: None,
            empty: false,
            file_ops: Vec::new(),
            marks: None,
            user_text: None,
            summary: None,
        };
        match &self.msg {
            Msg::User { content } => {
                e.role = Role::User;
                e.chars = content.chars();
                e.user_text = Some(content.text());
            }
            Msg::Custom { content, .. } => {
                e.role = Role::Custom;
                e.chars = content.chars();
            }
            Msg::ToolResult { id, content, .. } => {
                e.role = Role::ToolResult;
                e.chars = content.chars();
                e.answers = Some(id.lossy());
            }
            Msg::Assistant {
                blocks,
                stop,
                usage,
                ..
            } => {
                e.role = Role::Assistant;
                e.stop = stop.expected();
                e.usage = usage.as_ref().map(UsageM::expected);
                let mut blank = true;
                for b in blocks {
                    match b {
                        Block::Text { text, .. } => {
                            e.chars += text.len();
                            blank &= js_whitespace::is_blank(&text.lossy());
                        }
                        Block::Thinking { thinking, sig, .. } => {
                            e.chars += thinking.len();
                            blank &= js_whitespace::is_blank(&thinking.lossy())
                                && !matches!(sig, Some(Some(_)));
                        }
                        Block::ToolCall { id, name, args, .. } => {
                            blank = false;
                            // name.length + JSON.stringify(arguments).length
                            e.chars += name.to_js().len()
                                + super::js::utf16_len(&args.to_jval().to_json());
                            e.ids.push(id.lossy());
                            let kind = match name.to_js().lossy().as_str() {
                                "read" => Some(FileOpKind::Read),
                                "write" => Some(FileOpKind::Write),
                                "edit" => Some(FileOpKind::Edit),
                                _ => None,
                            };
                            if let (Some(kind), JVal::Obj(entries)) = (kind, args.to_jval()) {
                                let path = entries
                                    .iter()
                                    .rev()
                                    .find(|(k, _)| k.lossy() == "path")
                                    .and_then(|(_, v)| match v {
                                        JVal::Str(p) => Some(p.lossy()),
                                        _ => None,
                                    })
                                    .filter(|p| !p.is_empty());
                                if let Some(p) = path {
                                    e.file_ops.push((kind, p));
                                }
                            }
                        }
                        Block::Image { .. } => {}
                        Block::Unknown { .. } => blank = false,
                    }
                }
                e.empty = blank;
            }
            Msg::CompactionSummary {
                summary, details, ..
            } => {
                e.role = Role::CompactionSummary;
                e.chars = summary.len();
                e.marks = Some(
                    details
                        .as_ref()
                        .map(|d| expected_marks(&d.to_jval()))
                        .unwrap_or_default(),
                );
                e.summary = Some(summary.lossy());
            }
            Msg::BranchSummary { summary, .. } => {
                e.role = Role::BranchSummary;
                e.chars = summary.len();
            }
            Msg::Bash {
                command, output, ..
            } => {
                e.role = Role::BashExecution;
                e.chars = command.len() + output.len();
            }
            Msg::Unknown { .. } => {}
        }
        e
    }

    /// Every string of the message (keys included), for the string-level checks.
    fn strings(&self) -> Vec<JsStr> {
        let mut out = Vec::new();
        collect_strings(&self.to_jval(), &mut out, 32);
        out
    }
}

fn with_extra(v: JVal, extra: &[(JsStr, AnyJson)]) -> JVal {
    let JVal::Obj(mut entries) = v else { return v };
    for (k, x) in extra {
        entries.push((prefixed("x", k), x.0.clone()));
    }
    JVal::obj(entries)
}

fn collect_strings(v: &JVal, out: &mut Vec<JsStr>, budget: usize) {
    if out.len() >= budget {
        return;
    }
    match v {
        JVal::Str(s) => out.push(s.clone()),
        JVal::Arr(items) => {
            // iterate, not recurse, down single-element chains (deep nesting)
            for x in items {
                collect_strings_shallow(x, out, budget);
            }
        }
        JVal::Obj(entries) => {
            for (k, x) in entries {
                out.push(k.clone());
                collect_strings_shallow(x, out, budget);
            }
        }
        _ => {}
    }
}

fn collect_strings_shallow(v: &JVal, out: &mut Vec<JsStr>, budget: usize) {
    let mut cur = v;
    // walk down a deep chain without recursion
    loop {
        match cur {
            JVal::Arr(items) if items.len() == 1 => cur = &items[0],
            JVal::Obj(entries) if entries.len() == 1 => {
                if out.len() < budget {
                    out.push(entries[0].0.clone());
                }
                cur = &entries[0].1;
            }
            other => return collect_strings(other, out, budget),
        }
    }
}

#[derive(Debug)]
struct Expected {
    role: Role,
    chars: usize,
    usage: Option<f64>,
    stop: Option<StopReason>,
    ids: Vec<String>,
    answers: Option<String>,
    empty: bool,
    file_ops: Vec<(FileOpKind, String)>,
    marks: Option<SummaryMarks>,
    user_text: Option<String>,
    summary: Option<String>,
}

fn same_f64(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
        (None, None) => true,
        _ => false,
    }
}

/// The value as Rust receives it: every string and key with its lone surrogates replaced
/// by U+FFFD, so keys that differed only there become one (the last value, at the first
/// key's place, as serde_json's ordered map keeps them).
fn lossy_value(v: &JVal) -> JVal {
    match v {
        JVal::Str(s) => JVal::Str(JsStr::ascii(&s.lossy())),
        JVal::Arr(items) => JVal::Arr(items.iter().map(lossy_value).collect()),
        JVal::Obj(entries) => JVal::obj(
            entries
                .iter()
                .map(|(k, x)| (JsStr::ascii(&k.lossy()), lossy_value(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn check_model(case: &Case) {
    let mut text = case.to_jval().to_json();
    if let Some(levels) = case.deep {
        text = with_deep_field(&text, (levels as usize * 8).min(100_000));
    }
    super::debug(&case);
    super::debug(&text);
    let facts = match MessageFacts::from_json(&text, "m") {
        Ok(f) => f,
        Err(e) => panic!("a valid message was refused: {e}\n{text}"),
    };
    let want = case.expected();
    assert_eq!(facts.role, want.role, "role");
    assert_eq!(
        facts.tokens,
        want.chars.div_ceil(4) as u64,
        "estimateTokens = ceil({} chars / 4)",
        want.chars
    );
    assert!(
        same_f64(facts.usage_tokens, want.usage),
        "usage {:?} vs {:?}",
        facts.usage_tokens,
        want.usage
    );
    assert_eq!(facts.stop_reason, want.stop, "stopReason");
    let ids: Vec<String> = facts.tool_call_ids.iter().map(|s| s.to_string()).collect();
    assert_eq!(ids, want.ids, "tool call ids");
    assert_eq!(facts.answers.as_deref(), want.answers.as_deref(), "answers");
    if facts.role == Role::Assistant {
        assert_eq!(facts.empty_assistant, want.empty, "empty assistant");
    }
    let ops: Vec<(FileOpKind, String)> = facts
        .file_ops
        .iter()
        .map(|(k, p)| (*k, p.to_string()))
        .collect();
    assert_eq!(ops, want.file_ops, "file operations");
    assert_eq!(
        facts.summary.as_deref(),
        want.marks.as_ref(),
        "summary marks"
    );
    assert_eq!(
        facts.raw.as_str(),
        text.as_str(),
        "raw is the message's text"
    );
    // the characters, read again from the text
    let t = facts.text();
    if facts.role == Role::User {
        assert_eq!(t.user_text, want.user_text, "user text");
    }
    if facts.role == Role::CompactionSummary {
        assert_eq!(t.summary, want.summary, "summary text");
    }
    // The typed path reads the same message (serde_json, lone surrogates replaced).
    if let Some(v) = serde_value(&text) {
        let typed = AgentMessage::from_value(v, "m")
            .unwrap_or_else(|e| panic!("typed decoder refused a valid message: {e}"));
        let tf = typed.facts("m").expect("typed facts");
        // The typed path measures the arguments Rust received: a lone surrogate is U+FFFD
        // (1 character where JSON.stringify writes 6), and keys that differed only by one
        // became one key: the documented difference of the typed path (js_text docs).
        let typed_chars = match &case.msg {
            Msg::Assistant { blocks, .. } => blocks.iter().fold(want.chars, |chars, b| match b {
                Block::ToolCall { args, .. } => {
                    let v = args.to_jval();
                    chars - super::js::utf16_len(&v.to_json())
                        + super::js::utf16_len(&lossy_value(&v).to_json())
                }
                _ => chars,
            }),
            _ => want.chars,
        };
        assert_eq!(
            tf.tokens,
            typed_chars.div_ceil(4) as u64,
            "typed path estimate"
        );
        assert_eq!(tf.role, facts.role);
        assert_eq!(tf.tool_call_ids, facts.tool_call_ids);
    }
    // Every string alone: json_scan's length and decoding against serde_json's.
    for s in case.strings() {
        check_string(&s);
    }
}

/// One string literal, canonical and escaped: `json_scan` measures `s.len()` UTF-16 units
/// and decodes what serde_json decodes.
pub fn check_string(s: &JsStr) {
    let lossy = s.lossy();
    for escaped in [false, true] {
        let mut lit = String::new();
        if escaped {
            write_str_escaped(s, &mut lit);
        } else {
            write_str(s, &mut lit);
        }
        let scanned = json_scan::Reader::new(&lit)
            .string()
            .unwrap_or_else(|e| panic!("scanner refused {lit}: {e}"));
        assert_eq!(scanned.utf16_len(), s.len(), "UTF-16 length of {lit}");
        let serde: String = serde_json::from_str(
            replace_lone_surrogates(&lit)
                .as_deref()
                .unwrap_or(lit.as_str()),
        )
        .unwrap_or_else(|e| panic!("serde_json refused {lit}: {e}"));
        assert_eq!(super::js::utf16_len(&serde), s.len(), "serde's length");
        assert_eq!(scanned.decode(), serde, "decoded {lit}");
        assert_eq!(serde, lossy);
        assert_eq!(
            scanned.is_blank(),
            js_whitespace::is_blank(&lossy),
            "blank: {lit}"
        );
        let span = json_scan::parse(&lit).expect("parse");
        assert_eq!(span.as_str().map(|x| x.utf16_len()), Some(s.len()));
        // prefixes: the first k units, a pair never split
        for k in [1, 2, s.len() / 2, s.len().saturating_sub(1)] {
            let mut want = String::new();
            let mut units = 0;
            for c in lossy.chars() {
                if units + c.len_utf16() > k {
                    break;
                }
                units += c.len_utf16();
                want.push(c);
            }
            assert_eq!(scanned.decode_prefix(k), want, "prefix {k} of {lit}");
        }
    }
}
