//! Host-contract §5 (end): a context overflow as pi-ai 0.85.1's
//! `isContextOverflow(message, contextWindow?)` recognises it (`dist/utils/overflow.js`),
//! so that ADR 0299 clause 5 holds for a host on pi, whose provider failures mostly
//! arrive without an HTTP status; and a transient failure as its
//! `isRetryableAssistantError` does (`dist/utils/retry.js`).
//!
//! pi's patterns are kept here as the regular-expression text pi-ai writes, and matched by
//! a small matcher for exactly the subset they use (literals, `\d`, `\s`, `.`, classes,
//! `(?:a|b)`, `?`, `*`, `+`, a leading `^`), with JavaScript's semantics for a
//! case-insensitive, non-Unicode expression: ASCII letters fold, `.` stops at line
//! terminators, `\s` is JavaScript's white space. No regex engine is linked into the wasm.

use std::sync::OnceLock;

use crate::js_whitespace::is_js_space;
use crate::stop_reason::StopReason;
use crate::text_build::Joined;

/// pi-ai 0.85.1's `OVERFLOW_PATTERNS` (all case-insensitive), each with the provider it
/// is for (a comment: the module holds the patterns only).
pub const OVERFLOW_PATTERNS: [&str; 25] = [
    // Anthropic token overflow
    "prompt is too long",
    // Anthropic request byte-size overflow (HTTP 413)
    "request_too_large",
    // Amazon Bedrock
    "input is too long for requested model",
    // OpenAI (Completions & Responses API)
    "exceeds the context window",
    // OpenAI-compatible proxies (LiteLLM)
    r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    // Google (Gemini)
    "input token count.*exceeds the maximum",
    // xAI (Grok)
    r"maximum prompt length is \d+",
    // Groq
    "reduce the length of the messages",
    // OpenRouter (most backends)
    r"maximum context length is \d+ tokens",
    // OpenRouter/Poolside
    r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
    // Together AI
    r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
    // GitHub Copilot
    r"exceeds the limit of \d+",
    // llama.cpp server
    "exceeds the available context size",
    // LM Studio
    "greater than the context length",
    // MiniMax
    "context window exceeds limit",
    // Kimi For Coding
    "exceeded model token limit",
    // Mistral
    r"too large for model with \d+ maximum context length",
    // DS4 server
    r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
    // z.ai finish_reason surfaced as error text
    "model_context_window_exceeded",
    // Ollama
    "prompt too long; exceeded (?:max )?context length",
    // DashScope / Qwen
    "range of input length should be",
    // generic
    "context[_ ]length[_ ]exceeded",
    // generic
    "too many tokens",
    // generic
    "token limit exceeded",
    // Cerebras: 400/413 with no body
    r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",
];

/// pi-ai 0.85.1's `NON_OVERFLOW_PATTERNS`: throttling and rate limits, never an overflow
/// even when an overflow pattern matches too (Bedrock's "Too many tokens, please wait").
pub const NON_OVERFLOW_PATTERNS: [&str; 3] = [
    "^(Throttling error|Service unavailable):",
    "rate limit",
    "too many requests",
];

/// pi-ai 0.85.1's `NON_RETRYABLE_PROVIDER_LIMIT_ERROR_PATTERN` (`dist/utils/retry.js`):
/// quota and billing limits, never worth retrying.
pub const NON_RETRYABLE_PATTERNS: [&str; 8] = [
    "GoUsageLimitError",
    "FreeUsageLimitError",
    "Monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
];

/// pi-ai 0.85.1's `RETRYABLE_PROVIDER_ERROR_PATTERN`: load, rate limits, server errors,
/// transport failures, premature stream ends, explicit retry guidance.
pub const RETRYABLE_PATTERNS: [&str; 41] = [
    "overloaded",
    "rate.?limit",
    "too many requests",
    "429",
    "500",
    "502",
    "503",
    "504",
    "524",
    "service.?unavailable",
    "server.?error",
    "internal.?error",
    "provider.?returned.?error",
    "exceeded request buffer limit while retrying upstream",
    "network.?error",
    "connection.?error",
    "connection.?refused",
    "connection.?lost",
    "other side closed",
    "fetch failed",
    "getaddrinfo",
    "ENOTFOUND",
    "EAI_AGAIN",
    "upstream.?connect",
    "reset before headers",
    "socket hang up",
    "socket connection was closed",
    "timed? out",
    "timeout",
    "terminated",
    "websocket.?closed",
    "websocket.?error",
    "ended without",
    "stream ended before message_stop",
    "stream ended before a terminal response event",
    "http2 request did not get a response",
    "retry delay",
    "you can retry your request",
    "try your request again",
    "please retry your request",
    "ResourceExhausted",
];

/// Whether an error text names a context overflow as pi-ai decides it: an overflow
/// pattern matches and no non-overflow pattern does.
pub fn is_overflow_text(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let c = compiled();
    !c.non_overflow.iter().any(|p| p.is_match(&chars))
        && c.overflow.iter().any(|p| p.is_match(&chars))
}

/// Whether an error text is throttling or a rate limit (pi-ai's `NON_OVERFLOW_PATTERNS`).
pub fn is_throttling_text(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    compiled().non_overflow.iter().any(|p| p.is_match(&chars))
}

/// pi-ai's `isRetryableAssistantError` on an error text: a transient provider or transport
/// failure ([`RETRYABLE_PATTERNS`]) that is not a quota or billing limit. (pi asks the
/// caller to handle an overflow first; so does [`crate::fallback::provider_error::classify_provider_error`].)
pub fn is_retryable_text(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let c = compiled();
    !c.non_retryable.is_match(&chars) && c.retryable.is_match(&chars)
}

/// The usage fields pi's silent-overflow rules read.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OverflowUsage {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
}

/// pi-ai's `isContextOverflow(message, contextWindow)` on a pi `AssistantMessage`:
/// 1. `stopReason "error"` with a non-empty `errorMessage` that [`is_overflow_text`];
/// 2. `stopReason "stop"` whose `usage.input + usage.cacheRead` exceeds `contextWindow`
///    (a provider that accepts an overflow silently);
/// 3. `stopReason "length"` with `usage.output === 0` and `input + cacheRead` at least 99%
///    of `contextWindow` (a provider that truncates the input to fill the window).
///
/// Rules 2 and 3 apply only with a non-zero `contextWindow`. A missing usage number makes
/// its sum NaN, which compares false, as in JavaScript.
pub fn is_context_overflow(
    stop_reason: Option<StopReason>,
    error_message: Option<&str>,
    usage: Option<&OverflowUsage>,
    context_window: Option<f64>,
) -> bool {
    if stop_reason == Some(StopReason::Error) {
        if let Some(m) = error_message.filter(|m| !m.is_empty()) {
            if is_overflow_text(m) {
                return true;
            }
        }
    }
    let window = match context_window {
        Some(w) if w != 0.0 && !w.is_nan() => w,
        _ => return false,
    };
    let Some(usage) = usage else { return false };
    let input = usage.input.unwrap_or(f64::NAN) + usage.cache_read.unwrap_or(f64::NAN);
    match stop_reason {
        Some(StopReason::Stop) => input > window,
        Some(StopReason::Length) => usage.output == Some(0.0) && input >= window * 0.99,
        _ => false,
    }
}

// ---------------------------------------------------------------- the matcher

/// pi's patterns, parsed once.
struct Compiled {
    overflow: Vec<Pattern>,
    non_overflow: Vec<Pattern>,
    /// One alternation, as pi joins its list (`new RegExp(list.join("|"), "i")`).
    retryable: Pattern,
    non_retryable: Pattern,
}

#[inline(never)]
fn compiled() -> &'static Compiled {
    static PATTERNS: OnceLock<Compiled> = OnceLock::new();
    PATTERNS.get_or_init(|| Compiled {
        overflow: OVERFLOW_PATTERNS
            .iter()
            .map(|p| Pattern::parse(p))
            .collect(),
        non_overflow: NON_OVERFLOW_PATTERNS
            .iter()
            .map(|p| Pattern::parse(p))
            .collect(),
        retryable: Pattern::parse(&RETRYABLE_PATTERNS.joined("|")),
        non_retryable: Pattern::parse(&NON_RETRYABLE_PATTERNS.joined("|")),
    })
}

/// One element of a pattern.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// One character: an ASCII letter matches either case (JavaScript's `/i` without `u`
    /// never folds a non-ASCII character onto an ASCII one).
    Char(char),
    /// `\d`
    Digit,
    /// `\s`
    Space,
    /// `.`
    Any,
    /// `[...]`: any of these nodes (characters, `\d`, `\s`).
    Class(Vec<Node>),
    /// `(?:a|b)` or `(a|b)`
    Group(Vec<Vec<Node>>),
    /// `x?`, `x*`, `x+`: at least `min`, at most `max` (None: unbounded).
    Repeat(Box<Node>, usize, Option<usize>),
    /// `^`
    Start,
}

/// A case-insensitive pattern, searched anywhere in the text (unless it starts with `^`).
#[derive(Clone, Debug, PartialEq)]
struct Pattern(Vec<Node>);

impl Pattern {
    /// Parse the subset pi's patterns use. Total: anything else is a literal character.
    fn parse(source: &str) -> Pattern {
        let chars: Vec<char> = source.chars().collect();
        let mut pos = 0;
        let alts = parse_alternatives(&chars, &mut pos);
        Pattern(if alts.len() == 1 {
            alts.into_iter().next().unwrap_or_default()
        } else {
            vec![Node::Group(alts)]
        })
    }

    #[inline(never)]
    fn is_match(&self, text: &[char]) -> bool {
        (0..=text.len()).any(|i| seq(&self.0, text, i, &mut |_| true))
    }
}

fn parse_alternatives(p: &[char], pos: &mut usize) -> Vec<Vec<Node>> {
    let mut alts = vec![Vec::new()];
    while *pos < p.len() {
        let c = p[*pos];
        *pos += 1;
        let atom = match c {
            ')' => break,
            '|' => {
                alts.push(Vec::new());
                continue;
            }
            '^' => Node::Start,
            '.' => Node::Any,
            '\\' => escape(p, pos),
            '[' => {
                let mut items = Vec::new();
                while *pos < p.len() && p[*pos] != ']' {
                    let c = p[*pos];
                    *pos += 1;
                    items.push(if c == '\\' {
                        escape(p, pos)
                    } else {
                        Node::Char(c)
                    });
                }
                *pos += 1; // ']'
                Node::Class(items)
            }
            '(' => {
                if p.get(*pos) == Some(&'?') && p.get(*pos + 1) == Some(&':') {
                    *pos += 2;
                }
                Node::Group(parse_alternatives(p, pos))
            }
            c => Node::Char(c),
        };
        let atom = match p.get(*pos) {
            Some('?') => Node::Repeat(Box::new(atom), 0, Some(1)),
            Some('*') => Node::Repeat(Box::new(atom), 0, None),
            Some('+') => Node::Repeat(Box::new(atom), 1, None),
            _ => atom,
        };
        if matches!(atom, Node::Repeat(..)) {
            *pos += 1;
        }
        if let Some(last) = alts.last_mut() {
            last.push(atom);
        }
    }
    alts
}

fn escape(p: &[char], pos: &mut usize) -> Node {
    let c = p.get(*pos).copied().unwrap_or('\\');
    *pos += 1;
    match c {
        'd' => Node::Digit,
        's' => Node::Space,
        c => Node::Char(c),
    }
}

/// Whether a single-character node matches `c`.
fn one(node: &Node, c: char) -> bool {
    match node {
        Node::Char(p) => {
            *p == c || (p.is_ascii_alphabetic() && c.is_ascii() && p.eq_ignore_ascii_case(&c))
        }
        Node::Digit => c.is_ascii_digit(),
        Node::Space => is_js_space(c),
        Node::Any => !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'),
        Node::Class(items) => items.iter().any(|n| one(n, c)),
        Node::Group(_) | Node::Repeat(..) | Node::Start => false,
    }
}

/// Match `nodes` at `i`, then the continuation `k` with the end position (backtracking
/// into greedy repeats as JavaScript does; only whether some match exists matters).
/// Repeats of one character loop instead of recursing, so a long text cannot exhaust the
/// stack; the recursion depth is bounded by the pattern's length.
fn seq(nodes: &[Node], t: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    let Some((node, rest)) = nodes.split_first() else {
        return k(i);
    };
    match node {
        Node::Start => i == 0 && seq(rest, t, i, k),
        Node::Group(alts) => alts
            .iter()
            .any(|alt| seq(alt, t, i, &mut |j| seq(rest, t, j, k))),
        Node::Repeat(inner, min, max) => {
            if matches!(**inner, Node::Group(_)) {
                // only `(?:...)?` in pi's patterns: once, or not at all
                let once = seq(std::slice::from_ref(&**inner), t, i, &mut |j| {
                    seq(rest, t, j, k)
                });
                return once || (*min == 0 && seq(rest, t, i, k));
            }
            let mut run = 0;
            while i + run < t.len() && max.is_none_or(|m| run < m) && one(inner, t[i + run]) {
                run += 1;
            }
            (*min..=run).rev().any(|n| seq(rest, t, i + n, k))
        }
        single => i < t.len() && one(single, t[i]) && seq(rest, t, i + 1, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_parses_into_the_subset() {
        // a misread operator would be left as a literal character
        fn plain(nodes: &[Node]) -> bool {
            nodes.iter().all(|n| match n {
                Node::Group(alts) => alts.iter().all(|a| plain(a)),
                Node::Repeat(inner, ..) => plain(std::slice::from_ref(&**inner)),
                Node::Char(c) => !matches!(*c, '?' | '*' | '+' | '|' | ']'),
                _ => true,
            })
        }
        for p in OVERFLOW_PATTERNS.iter().chain(&NON_OVERFLOW_PATTERNS) {
            assert!(plain(&Pattern::parse(p).0), "{p}");
        }
        assert_eq!(
            Pattern::parse(r"a(?:b|c)?\d+").0,
            vec![
                Node::Char('a'),
                Node::Repeat(
                    Box::new(Node::Group(vec![
                        vec![Node::Char('b')],
                        vec![Node::Char('c')]
                    ])),
                    0,
                    Some(1)
                ),
                Node::Repeat(Box::new(Node::Digit), 1, None),
            ]
        );
    }

    /// Each provider's wording as pi-ai documents it (overflow.js's header comment).
    #[test]
    fn providers_wordings_are_overflows() {
        for m in [
            "prompt is too long: 213462 tokens > 200000 maximum",
            "413 {\"error\":{\"type\":\"request_too_large\",\"message\":\"Request exceeds the maximum size\"}}",
            "Your input exceeds the context window of this model",
            "Requested token count exceeds the model's maximum context length of 131072 tokens",
            "Input length (265330) exceeds model's maximum context length (262144).",
            "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
            "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
            "Please reduce the length of the messages or completion",
            "This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens",
            "Input length 300000 exceeds the maximum allowed input length of 262,144 tokens.",
            "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
            "the request exceeds the available context size, try increasing it",
            "tokens to keep from the initial prompt is greater than the context length",
            "prompt token count of 130000 exceeds the limit of 128000",
            "invalid params, context window exceeds limit",
            "Your request exceeded model token limit: 262144 (requested: 300000)",
            "Prompt has 70,000 tokens, but the configured context size is 65,536 tokens",
            "400 status code (no body)",
            "413 status code (no body)",
            "413 (no body)",
            "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
            "prompt too long; exceeded max context length by 1200 tokens",
            "Range of input length should be [1, 98304]",
            "model_context_window_exceeded",
            "Input is too long for requested model.",
            "context_length_exceeded",
            "Too many tokens in the request",
            "Token limit exceeded",
            "PROMPT IS TOO LONG",
        ] {
            assert!(is_overflow_text(m), "{m}");
        }
    }

    #[test]
    fn throttling_and_other_errors_are_not() {
        for m in [
            "Throttling error: Too many tokens, please wait before trying again.",
            "Service unavailable: prompt is too long", // a prefix pi reserves for Bedrock's 503
            "429 Rate limit reached: too many tokens per minute",
            "Too many requests: token limit exceeded",
            "529 Overloaded",
            "503 Service Unavailable",
            "401 invalid x-api-key",
            "maximum context length is unknown tokens",
            "x 400 status code (no body)", // anchored at the start
            "prompt is\ntoo long",         // a line break is not a space here
            "input token count\nexceeds the maximum", // `.` stops at a line terminator
            "",
        ] {
            assert!(!is_overflow_text(m), "{m}");
        }
        assert!(is_overflow_text(
            "input token count x\u{a0}y exceeds the maximum"
        ));
        assert!(is_overflow_text("400\u{2003}(no body)"));
        assert!(!is_overflow_text(
            "\u{212a}imi: exceeded model to\u{212a}en limit"
        ));
    }

    #[test]
    fn retryable_as_pi_decides() {
        for m in [
            "529 Overloaded",
            "Rate limit reached",
            "rate-limit",
            "503 Service Unavailable",
            "fetch failed",
            "Request timed out.",
            "request time out",
            "socket hang up",
            "ResourceExhausted: try later",
        ] {
            assert!(is_retryable_text(m), "{m}");
        }
        for m in [
            "429 insufficient_quota",
            "Rate limit: check your billing details",
            "prompt is too long",
            "401 invalid x-api-key",
            "",
        ] {
            assert!(!is_retryable_text(m), "{m}");
        }
    }

    #[test]
    fn silent_overflow_rules() {
        let u = |input: f64, output: f64, cache_read: f64| OverflowUsage {
            input: Some(input),
            output: Some(output),
            cache_read: Some(cache_read),
        };
        let o = |stop: &str, usage: OverflowUsage, w: Option<f64>| {
            is_context_overflow(Some(StopReason::parse(stop)), None, Some(&usage), w)
        };
        assert!(o("stop", u(8000.0, 10.0, 300.0), Some(8192.0)));
        assert!(!o("stop", u(8000.0, 10.0, 192.0), Some(8192.0)));
        assert!(!o("stop", u(9000.0, 10.0, 0.0), None));
        assert!(!o("stop", u(9000.0, 10.0, 0.0), Some(0.0)));
        assert!(o("length", u(8111.0, 0.0, 0.0), Some(8192.0))); // 99% of 8192 is 8110.08
        assert!(!o("length", u(8110.0, 0.0, 0.0), Some(8192.0)));
        assert!(!o("length", u(8100.0, 0.0, 0.0), Some(8192.0)));
        assert!(!o("length", u(8192.0, 1.0, 0.0), Some(8192.0)));
        assert!(!o("toolUse", u(9000.0, 0.0, 0.0), Some(8192.0)));
        let missing = OverflowUsage {
            input: Some(9000.0),
            ..Default::default()
        };
        assert!(!o("stop", missing, Some(8192.0)));
        assert!(is_context_overflow(
            Some(StopReason::Error),
            Some("prompt is too long"),
            None,
            None
        ));
        assert!(!is_context_overflow(
            Some(StopReason::Aborted),
            Some("prompt is too long"),
            None,
            None
        ));
        assert!(!is_context_overflow(
            Some(StopReason::Error),
            Some(""),
            None,
            None
        ));
    }

    #[test]
    fn a_long_text_neither_overflows_the_stack_nor_matches_wrongly() {
        let long = format!(
            "input token count {} exceeds the maximum",
            "x".repeat(200_000)
        );
        assert!(is_overflow_text(&long));
        assert!(!is_overflow_text(&"9".repeat(200_000)));
    }
}
