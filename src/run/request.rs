//! What one request came to (ADR 0299 clauses 5–6, host-contract §5): the agent loop on
//! one model ran until it stopped, and the adapter hands over its last answer and what
//! the loop threw, in neutral terms (no framework's message); the run machine reads the
//! [`Verdict`] here.
//!
//! A request failed when its answer stopped with `error`, and also when it "succeeded"
//! but pi-ai's `isContextOverflow` calls it a silent overflow (a `stop` whose input passes
//! the window, a `length` with no output and the input at the window): the window is the
//! model's own. A failure is an overflow, retriable (HTTP 408/409/425/429/5xx, or what
//! pi-ai calls transient), or neither ([`classify_provider_error`]); an overflow states,
//! in most providers' words, how large the request was ([`stated_prompt_tokens`]), and a
//! throttled request often how long to wait ([`stated_retry_after_ms`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;

use crate::decode::decode_struct;

use crate::fallback::provider_error::{classify_provider_error, ProviderError};
use crate::message::Usage;
use crate::stop_reason::StopReason;
use crate::text_build::{Joined, Owned};

/// The last answer of a request, read by the adapter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// Its text (text blocks joined by `\n`): the report when the run ends with it.
    pub text: String,
    pub stop_reason: Option<StopReason>,
    /// The provider's words on a failed request.
    pub error_message: Option<String>,
    /// The provider's usage (read for a silent overflow).
    pub usage: Option<Usage>,
    /// The HTTP status, when the adapter knows it.
    pub status: Option<f64>,
    /// How long the provider asked to wait before a retry, when the adapter knows it.
    pub retry_after_ms: Option<f64>,
    /// The provider's own stop word, when the adapter knows it (the AI SDK's
    /// `rawFinishReason`): Anthropic's `model_context_window_exceeded` is an overflow that
    /// arrives as a successful `length`.
    pub raw_stop_reason: Option<String>,
}

/// The provider stop words that say the request overflowed the window.
const OVERFLOW_STOPS: [&str; 1] = ["model_context_window_exceeded"];

/// An answer as a framework other than pi gives it (the AI SDK's last step): its text,
/// the step's `finishReason`, `rawFinishReason` and `usage` ([`crate::ai_sdk::StepInfo`]),
/// and what the adapter read of a failure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunAnswer {
    #[serde(default)]
    #[tsify(optional)]
    pub text: String,
    #[serde(flatten)]
    pub step: crate::ai_sdk::StepInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub status: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub retry_after_ms: Option<f64>,
}

decode_struct!(RunAnswer "RunAnswer" {
    text: "text" => default,
    error_message: "errorMessage" => default,
    status: "status" => default,
    retry_after_ms: "retryAfterMs" => default,
} flatten step);

impl RunAnswer {
    /// The answer the run reads.
    pub fn answer(&self) -> Answer {
        Answer {
            text: self.text.clone(),
            stop_reason: Some(StopReason::parse(self.step.stop_reason())),
            error_message: self.error_message.clone(),
            usage: self
                .step
                .pi_usage()
                .and_then(|u| crate::decode::decode_value(&u, "usage").ok()),
            status: self.status,
            retry_after_ms: self.retry_after_ms,
            raw_stop_reason: self.step.raw_finish_reason.clone(),
        }
    }
}

impl Answer {
    /// A pi `AssistantMessage` (as JSON) read as an answer; `None` for another message.
    pub fn from_pi_message(m: &Value) -> Option<Answer> {
        if m.get("role").and_then(Value::as_str) != Some("assistant") {
            return None;
        }
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .joined("\n"),
            _ => String::new(),
        };
        let string = |key: &str| m.get(key).and_then(Value::as_str).map(Owned::owned);
        Some(Answer {
            text,
            stop_reason: string("stopReason").as_deref().map(StopReason::parse),
            error_message: string("errorMessage"),
            usage: m
                .get("usage")
                .and_then(|u| crate::decode::decode_value(u, "usage").ok()),
            status: None,
            retry_after_ms: None,
            raw_stop_reason: None,
        })
    }

    fn provider_error(&self) -> ProviderError {
        ProviderError {
            status: self.status,
            stop_reason: self
                .stop_reason
                .and_then(StopReason::as_str)
                .map(Owned::owned),
            error_message: self.error_message.clone(),
            usage: self.usage.clone(),
            ..ProviderError::default()
        }
    }
}

/// What the loop threw: one of this library's coded errors (a boundary's
/// `SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED`, `INVALID_INPUT`), or anything else.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Thrown {
    /// The error's `code`, when it is one of this library's.
    pub code: Option<String>,
    pub message: String,
    /// An HTTP status it carried.
    pub status: Option<f64>,
    /// A `SUBAGENT_CONTEXT_OVERFLOW`'s fields: the model, the context's size, the limit.
    pub model_id: Option<String>,
    pub tokens: Option<u64>,
    pub hard_limit: Option<u64>,
}

impl Thrown {
    /// A thrown value as read: its `code` counts only when it is one of this library's
    /// codes (a Node `ENOSPC`, a provider's `context_length_exceeded` are not).
    pub fn new(code: Option<String>, message: String, status: Option<f64>) -> Thrown {
        Thrown {
            code: code.filter(|c| crate::error::CODES.contains(&c.as_str())),
            message,
            status: status.filter(|s| s.is_finite()),
            ..Thrown::default()
        }
    }
}

/// What a request came to: its last answer, and what its loop threw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestEnd {
    pub answer: Option<Answer>,
    pub thrown: Option<Thrown>,
}

/// A provider's failure of a request.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderFailure {
    /// A context overflow (`CONTEXT_TOO_LARGE`).
    pub overflow: bool,
    /// Worth retrying on the same model.
    pub retriable: bool,
    /// The provider's words (never given to the parent for an overflow).
    pub text: String,
    /// The request's size the provider stated, in tokens.
    pub stated_tokens: Option<u64>,
    /// The wait the provider asked for.
    pub retry_after_ms: Option<f64>,
}

/// What the run reads of a request's end.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The delegate answered: `report` is its text.
    Completed { report: String },
    /// The loop was aborted.
    Aborted,
    /// One of this library's errors ended the loop (a boundary that cannot fit,
    /// bad input): it ends the run as it is.
    Coded(Thrown),
    /// The provider failed the request.
    Provider(ProviderFailure),
    /// Something else threw (or the loop ended with no answer): it ends the run. An
    /// overflow in the provider's words still reaches the parent as
    /// `SUBAGENT_CONTEXT_OVERFLOW`.
    Threw { message: String, overflow: bool },
}

/// The code of an abort.
pub const ABORTED: &str = "ABORTED";

/// Read a request's end on a model whose window is `context_window`.
pub fn verdict(end: &RequestEnd, context_window: Option<f64>) -> Verdict {
    if let Some(thrown) = &end.thrown {
        return match thrown.code.as_deref() {
            Some(ABORTED) => Verdict::Aborted,
            Some(_) => Verdict::Coded(thrown.clone()),
            None => {
                let e = ProviderError {
                    status: thrown.status,
                    message: Some(thrown.message.clone()),
                    ..ProviderError::default()
                };
                Verdict::Threw {
                    message: thrown.message.clone(),
                    overflow: classify_provider_error(&e, context_window).context_too_large,
                }
            }
        };
    }
    let Some(answer) = &end.answer else {
        return Verdict::Threw {
            message: "the delegate's loop ended without an answer".into(),
            overflow: false,
        };
    };
    if answer.stop_reason == Some(StopReason::Aborted) {
        return Verdict::Aborted;
    }
    let mut class = classify_provider_error(&answer.provider_error(), context_window);
    if answer
        .raw_stop_reason
        .as_deref()
        .is_some_and(|raw| OVERFLOW_STOPS.contains(&raw))
    {
        class.context_too_large = true;
        class.retriable = false;
    }
    let failed = answer.stop_reason == Some(StopReason::Error) || class.context_too_large;
    if !failed {
        return Verdict::Completed {
            report: answer.text.clone(),
        };
    }
    let text = answer.error_message.clone().unwrap_or_default();
    Verdict::Provider(ProviderFailure {
        overflow: class.context_too_large,
        retriable: class.retriable,
        stated_tokens: stated_prompt_tokens(&text),
        retry_after_ms: answer
            .retry_after_ms
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .or_else(|| stated_retry_after_ms(&text)),
        text,
    })
}

// ---------------------------------------------------------------- what the provider stated
//
// Read over the text's bytes, ASCII letters folded: every pattern below is ASCII, so a
// byte of a multi-byte character never matches one, and nothing here slices a `str` (no
// panic path, and no float parser: a wait is a few digits).

/// `text`'s bytes at `at..`, when they start with `word`.
fn after<'a>(text: &'a [u8], word: &str) -> Option<&'a [u8]> {
    let word = word.as_bytes();
    let head = text.get(..word.len())?;
    head.eq_ignore_ascii_case(word)
        .then(|| text.get(word.len()..).unwrap_or(&[]))
}

/// `text` without its leading spaces.
fn skip_spaces(text: &[u8]) -> &[u8] {
    let n = text.iter().take_while(|b| **b == b' ').count();
    text.get(n..).unwrap_or(&[])
}

/// `text` without its trailing spaces.
fn trim_spaces_end(text: &[u8]) -> &[u8] {
    let n = text.iter().rev().take_while(|b| **b == b' ').count();
    text.get(..text.len() - n).unwrap_or(&[])
}

/// Whether `text` ends with `word` (ASCII letters folded).
fn ends_with(text: &[u8], word: &str) -> bool {
    let word = word.as_bytes();
    text.len() >= word.len()
        && text
            .get(text.len() - word.len()..)
            .is_some_and(|tail| tail.eq_ignore_ascii_case(word))
}

/// The whole number at the start of `text` (digits, with `,` or `_` between them), and
/// the bytes after it.
fn leading_number(text: &[u8]) -> Option<(u64, &[u8])> {
    let mut value: u64 = 0;
    let mut digits = 0;
    let mut end = 0;
    while let Some(&c) = text.get(end) {
        match c {
            b'0'..=b'9' => {
                value = value.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                digits += 1;
            }
            b',' | b'_' if digits > 0 && text.get(end + 1).is_some_and(u8::is_ascii_digit) => {}
            _ => break,
        }
        end += 1;
    }
    (digits > 0).then(|| (value, text.get(end..).unwrap_or(&[])))
}

/// The request's size in tokens as a provider's overflow error states it, when it does:
/// - "prompt is too long: 8871 tokens > 8192 maximum" (Anthropic): 8871;
/// - "your messages resulted in 130000 tokens", "you requested 130500 tokens" (OpenAI);
/// - "The input token count (210000) exceeds the maximum" (Google);
/// - "input length and `max_tokens` exceed context limit: 150000 + 64000 > 200000"
///   (Anthropic): 150000, the input.
///
/// Case-insensitive; numbers may have `,` separators. `None` when no rule matches.
pub fn stated_prompt_tokens(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes.get(i).is_some_and(u8::is_ascii_digit)
            && (i == 0 || !bytes.get(i - 1).is_some_and(u8::is_ascii_digit));
        if !starts {
            i += 1;
            continue;
        }
        let before = trim_spaces_end(bytes.get(..i).unwrap_or(&[]));
        let Some((n, rest)) = bytes.get(i..).and_then(leading_number) else {
            i += 1;
            continue;
        };
        let rest = skip_spaces(rest);
        let then_tokens = after(rest, "tokens").map(skip_spaces);
        let stated = then_tokens.is_some_and(|next| {
            [">", "exceed", "is greater", "is more"]
                .iter()
                .any(|w| after(next, w).is_some())
        }) || (ends_with(before, "resulted in") || ends_with(before, "requested"))
            && then_tokens.is_some()
            || ends_with(before, "token count (") && rest.first() == Some(&b')')
            || ends_with(before, "token count of")
            || ends_with(before, "limit:") && rest.first() == Some(&b'+');
        if stated {
            return Some(n);
        }
        i = (bytes.len() - rest.len().min(bytes.len())).max(i + 1);
    }
    None
}

/// How long a throttled request asks to wait, in milliseconds, as its words state it:
/// "retry after 20 seconds", "retry-after: 3", "Please try again in 1.5s", "try again in
/// 250ms" (seconds unless `ms` follows). `None` when none is stated.
pub fn stated_retry_after_ms(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    for lead in [
        "retry after",
        "retry-after:",
        "retry-after",
        "try again in",
        "retry in",
    ] {
        for at in 0..bytes.len() {
            let Some(rest) = bytes.get(at..).and_then(|t| after(t, lead)) else {
                continue;
            };
            if let Some(ms) = duration_ms(skip_spaces(rest)) {
                return Some(ms);
            }
        }
    }
    None
}

/// A duration at the start of `text`: a decimal number, then `ms`, or seconds.
fn duration_ms(text: &[u8]) -> Option<f64> {
    let (whole, rest) = leading_number(text)?;
    let mut value = whole as f64;
    let mut rest = rest;
    if let Some(fraction) = rest.strip_prefix(b".") {
        let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut scale = 1.0;
        for d in fraction.iter().take(digits) {
            scale /= 10.0;
            value += f64::from(d - b'0') * scale;
        }
        rest = fraction.get(digits..).unwrap_or(&[]);
    }
    let unit = skip_spaces(rest);
    Some(
        if after(unit, "ms").is_some() || after(unit, "millisecond").is_some() {
            value
        } else {
            value * 1000.0
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_size_a_provider_states() {
        let cases = [
            ("prompt is too long: 8871 tokens > 8192 maximum", Some(8871)),
            ("This model's maximum context length is 128000 tokens. However, your messages resulted in 130,000 tokens. Please reduce the length of the messages.", Some(130_000)),
            ("This model's maximum context length is 8192 tokens. However, you requested 9500 tokens (9000 in the messages, 500 in the completion).", Some(9500)),
            ("The input token count (210000) exceeds the maximum number of tokens allowed (200000).", Some(210_000)),
            ("input length and `max_tokens` exceed context limit: 150000 + 64000 > 200000, decrease input length", Some(150_000)),
            ("The input token count of 210000 exceeds the maximum.", Some(210_000)),
            ("the request is 9000 tokens is greater than the 8192 allowed", Some(9000)),
            ("Your input exceeds the context window of this model.", None),
            ("429 rate limit exceeded", None),
            ("", None),
            // a number at the end, a number in parentheses, a sum without "limit:"
            ("the context window of this model is 8192", None),
            ("request (id 42) was rejected", None),
            ("input and output: 100 + 50 > 120", None),
            // a number too large to read is no size, and its digits are not read as a smaller one
            ("99999999999999999999999 tokens > 8192 maximum", None),
        ];
        for (text, want) in cases {
            assert_eq!(stated_prompt_tokens(text), want, "{text}");
        }
    }

    #[test]
    fn the_wait_a_provider_asks_for() {
        let cases = [
            (
                "Rate limit reached. Please try again in 1.5s.",
                Some(1500.0),
            ),
            ("try again in 250ms", Some(250.0)),
            ("429: retry after 20 seconds", Some(20_000.0)),
            ("retry-after: 3", Some(3000.0)),
            ("overloaded, retry later", None),
            ("429 rate limit exceeded", None),
            ("please retry after a short wait", None),
        ];
        for (text, want) in cases {
            assert_eq!(stated_retry_after_ms(text), want, "{text}");
        }
    }

    #[test]
    fn a_number_is_digits_with_separators_between_digits() {
        let cases: [(&str, Option<(u64, &str)>); 7] = [
            ("8871 tokens", Some((8871, " tokens"))),
            ("130,000 tokens", Some((130_000, " tokens"))),
            ("1_000_", Some((1000, "_"))),
            // a separator that no digit follows, or that no digit precedes, is not the number's
            ("8192, 9000", Some((8192, ", 9000"))),
            (",5", None),
            ("x1", None),
            ("99999999999999999999999", None),
        ];
        for (text, want) in cases {
            let got = leading_number(text.as_bytes());
            assert_eq!(got, want.map(|(n, rest)| (n, rest.as_bytes())), "{text}");
        }
    }

    fn answer(v: Value) -> Answer {
        Answer::from_pi_message(&v).unwrap()
    }

    #[test]
    fn a_request_ends_completed_failed_silently_overflowed_or_aborted() {
        let ok = answer(
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "a" }, { "type": "thinking", "thinking": "t" }, { "type": "text", "text": "b" }], "stopReason": "stop" }),
        );
        let end = |a: Answer| RequestEnd {
            answer: Some(a),
            thrown: None,
        };
        assert_eq!(
            verdict(&end(ok), Some(8192.0)),
            Verdict::Completed {
                report: "a\nb".into()
            }
        );
        // a silent overflow on the model's own window: a stop past it, a length with no output at it
        let stop = answer(
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "done" }], "stopReason": "stop",
            "usage": { "input": 9000, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 9010 } }),
        );
        assert!(matches!(
            verdict(&end(stop.clone()), Some(8192.0)),
            Verdict::Provider(ProviderFailure { overflow: true, .. })
        ));
        assert_eq!(
            verdict(&end(stop), Some(32_000.0)),
            Verdict::Completed {
                report: "done".into()
            }
        );
        let length = answer(
            json!({ "role": "assistant", "content": [], "stopReason": "length",
            "usage": { "input": 8192, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 8192 } }),
        );
        assert!(matches!(
            verdict(&end(length), Some(8192.0)),
            Verdict::Provider(ProviderFailure { overflow: true, .. })
        ));
        let failed = answer(
            json!({ "role": "assistant", "content": [], "stopReason": "error", "errorMessage": "429 rate limit exceeded, try again in 2s" }),
        );
        assert_eq!(
            verdict(&end(failed), None),
            Verdict::Provider(ProviderFailure {
                overflow: false,
                retriable: true,
                text: "429 rate limit exceeded, try again in 2s".into(),
                stated_tokens: None,
                retry_after_ms: Some(2000.0),
            })
        );
        // the wait the adapter read (a Retry-After header) wins over the words; one that
        // is not a finite number >= 0 is no wait
        for (ms, want) in [
            (Some(3000.0), Some(3000.0)),
            (Some(0.0), Some(0.0)),
            (Some(-1.0), Some(2000.0)),
            (Some(f64::INFINITY), Some(2000.0)),
            (Some(f64::NAN), Some(2000.0)),
        ] {
            let mut a = answer(
                json!({ "role": "assistant", "content": [], "stopReason": "error", "errorMessage": "429 rate limit exceeded, try again in 2s" }),
            );
            a.retry_after_ms = ms;
            match verdict(&end(a), None) {
                Verdict::Provider(f) => assert_eq!(f.retry_after_ms, want, "{ms:?}"),
                other => panic!("{other:?}"),
            }
        }
        // the HTTP status the adapter knows decides: a 503 is retried whatever its words,
        // a 413 is an overflow
        let mut by_status = answer(
            json!({ "role": "assistant", "content": [], "stopReason": "error", "errorMessage": "upstream said no" }),
        );
        assert!(matches!(
            verdict(&end(by_status.clone()), None),
            Verdict::Provider(ProviderFailure {
                retriable: false,
                overflow: false,
                ..
            })
        ));
        by_status.status = Some(503.0);
        assert!(matches!(
            verdict(&end(by_status.clone()), None),
            Verdict::Provider(ProviderFailure {
                retriable: true,
                overflow: false,
                ..
            })
        ));
        by_status.status = Some(413.0);
        assert!(matches!(
            verdict(&end(by_status), None),
            Verdict::Provider(ProviderFailure { overflow: true, .. })
        ));
        // pi's content as one string is the report too
        let plain =
            answer(json!({ "role": "assistant", "content": "plain text", "stopReason": "stop" }));
        assert_eq!(
            verdict(&end(plain), None),
            Verdict::Completed {
                report: "plain text".into()
            }
        );
        let aborted =
            answer(json!({ "role": "assistant", "content": [], "stopReason": "aborted" }));
        assert_eq!(verdict(&end(aborted), None), Verdict::Aborted);
        assert!(Answer::from_pi_message(&json!({ "role": "toolResult" })).is_none());
    }

    #[test]
    fn only_this_librarys_codes_count() {
        assert_eq!(
            Thrown::new(Some("ENOSPC".into()), "m".into(), None).code,
            None
        );
        assert_eq!(
            Thrown::new(Some("ABORTED".into()), "m".into(), Some(f64::NAN)),
            Thrown {
                code: Some("ABORTED".into()),
                message: "m".into(),
                ..Thrown::default()
            }
        );
        assert_eq!(
            Thrown::new(None, "m".into(), Some(413.0)).status,
            Some(413.0)
        );
    }

    #[test]
    fn an_ai_sdk_answer_is_read_with_its_step() {
        let a: RunAnswer = crate::decode::decode_at(
            json!({ "text": "partial", "finishReason": "length", "rawFinishReason": "model_context_window_exceeded",
                "usage": { "inputTokens": 199_000, "inputTokenDetails": { "cacheReadTokens": 150_000 }, "outputTokens": 900, "totalTokens": 199_900 } }),
            "answer",
        )
        .unwrap();
        let answer = a.answer();
        assert_eq!(answer.stop_reason, Some(StopReason::Length));
        assert_eq!(answer.usage.as_ref().and_then(|u| u.input), Some(49_000.0));
        assert_eq!(
            answer.usage.as_ref().and_then(|u| u.cache_read),
            Some(150_000.0)
        );
        // Anthropic's window stop is an overflow, though it arrives as a successful step
        let end = RequestEnd {
            answer: Some(answer),
            thrown: None,
        };
        assert!(matches!(
            verdict(&end, Some(200_000.0)),
            Verdict::Provider(ProviderFailure {
                overflow: true,
                retriable: false,
                ..
            })
        ));
        let mut plain = a.clone();
        plain.step.raw_finish_reason = Some("max_tokens".into());
        let end = RequestEnd {
            answer: Some(plain.answer()),
            thrown: None,
        };
        assert_eq!(
            verdict(&end, Some(200_000.0)),
            Verdict::Completed {
                report: "partial".into()
            }
        );
        let tools: RunAnswer =
            crate::decode::decode_at(json!({ "finishReason": "tool-calls" }), "a").unwrap();
        assert_eq!(tools.answer().stop_reason, Some(StopReason::ToolUse));
    }

    #[test]
    fn what_the_loop_threw_wins() {
        let thrown = |code: Option<&str>, message: &str| RequestEnd {
            answer: Some(Answer::default()),
            thrown: Some(Thrown {
                code: code.map(Into::into),
                message: message.into(),
                ..Thrown::default()
            }),
        };
        assert_eq!(
            verdict(&thrown(Some("ABORTED"), "x"), None),
            Verdict::Aborted
        );
        assert_eq!(
            verdict(
                &thrown(Some("SUBAGENT_CONTEXT_OVERFLOW"), "does not fit"),
                None
            ),
            Verdict::Coded(Thrown {
                code: Some("SUBAGENT_CONTEXT_OVERFLOW".into()),
                message: "does not fit".into(),
                ..Thrown::default()
            })
        );
        assert_eq!(
            verdict(
                &thrown(None, "prompt is too long: 9000 tokens > 8192 maximum"),
                None
            ),
            Verdict::Threw {
                message: "prompt is too long: 9000 tokens > 8192 maximum".into(),
                overflow: true
            }
        );
        // a thrown status decides as a failed answer's does: a 413 is an overflow
        let mut status = thrown(None, "request rejected");
        assert_eq!(
            verdict(&status, None),
            Verdict::Threw {
                message: "request rejected".into(),
                overflow: false
            }
        );
        if let Some(t) = status.thrown.as_mut() {
            t.status = Some(413.0);
        }
        assert_eq!(
            verdict(&status, None),
            Verdict::Threw {
                message: "request rejected".into(),
                overflow: true
            }
        );
        assert_eq!(
            verdict(&RequestEnd::default(), None),
            Verdict::Threw {
                message: "the delegate's loop ended without an answer".into(),
                overflow: false
            }
        );
    }
}
