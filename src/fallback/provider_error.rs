//! host-contract §5: whether a provider's failure is a context overflow
//! (`CONTEXT_TOO_LARGE`), in every shape a host on pi meets it (its failed
//! `AssistantMessage`, an `Error` without a status, a status); and ADR 0299 §5: such a
//! failure becomes `SUBAGENT_CONTEXT_OVERFLOW`, the code the parent can act on.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::error::Error;
use crate::message::Usage;
use crate::overflow;
use crate::stop_reason::StopReason;
use crate::text_build::Owned;

// ---------------------------------------------------------------- provider errors

/// The provider's classification of an overflow (host-contract §5).
pub const CONTEXT_TOO_LARGE: &str = "CONTEXT_TOO_LARGE";

/// A provider error in any shape a host on pi meets it (host-contract §5, end): pi's
/// failed `AssistantMessage` (`stopReason`, `errorMessage`, `usage`, no status), an
/// `Error` with a `message` and no status, or an error with `status` (or `statusCode`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ProviderError {
    /// HTTP status.
    #[serde(default)]
    #[tsify(optional)]
    pub status: Option<f64>,
    /// HTTP status, as some SDKs name it (read when `status` is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub status_code: Option<f64>,
    #[serde(default)]
    #[tsify(optional)]
    pub message: Option<String>,
    /// pi's `AssistantMessage.stopReason` (`"error"` for a failed request).
    #[serde(default)]
    #[tsify(optional)]
    pub stop_reason: Option<String>,
    /// pi's `AssistantMessage.errorMessage`: the provider's text.
    #[serde(default)]
    #[tsify(optional)]
    pub error_message: Option<String>,
    /// pi's `AssistantMessage.usage` (read for a silent overflow).
    #[serde(default)]
    #[tsify(optional, type = "Partial<Usage>")]
    pub usage: Option<Usage>,
}

impl ProviderError {
    /// The HTTP status: `status`, or `statusCode` (some SDKs' name) when `status` is
    /// absent; a non-finite number is no status.
    pub fn http_status(&self) -> Option<i64> {
        self.status
            .or(self.status_code)
            .filter(|s| s.is_finite())
            .map(|s| s as i64)
    }

    /// Its `stopReason`, read.
    pub fn stop(&self) -> Option<StopReason> {
        self.stop_reason.as_deref().map(StopReason::parse)
    }

    /// The provider's text: `errorMessage` of a pi message, else `message`.
    #[inline(never)]
    pub fn text(&self) -> &str {
        self.error_message
            .as_deref()
            .filter(|m| !m.is_empty())
            .or(self.message.as_deref())
            .unwrap_or("")
    }
}

/// How the host should treat a provider error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ProviderErrorClass {
    /// `"CONTEXT_TOO_LARGE"` for an overflow, otherwise null.
    pub code: Option<String>,
    /// Whether the request is worth retrying as is: never for an overflow; for other
    /// errors, HTTP 408, 409, 425, 429 and 5xx, or, without a status, what pi-ai's
    /// `isRetryableAssistantError` calls transient (overloaded, rate limits, 5xx, network).
    pub retriable: bool,
    pub context_too_large: bool,
}

/// The host app's message patterns of host-contract §5, matched case-insensitively:
/// `/context[ _-]?length|maximum context|context window|too many tokens|prompt is too long|input token count|exceeds the (?:maximum|model)|token limit/i`.
/// The patterns are ASCII and the regex has no `u` flag, so JavaScript folds ASCII letters
/// only: a non-ASCII character never matches one (the Kelvin sign is no `k`, as it would
/// be under Unicode's lowercase).
pub fn is_overflow_message(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "contextlength",
        "context length",
        "context_length",
        "context-length",
        "maximum context",
        "context window",
        "too many tokens",
        "prompt is too long",
        "input token count",
        "exceeds the maximum",
        "exceeds the model",
        "token limit",
    ]
    .iter()
    .any(|p| crate::js_text::has_text(&m, p))
}

/// Whether a provider error is a context overflow, in any of pi's shapes:
/// - a status: the host app's rules (host-contract §5): 413 always; 400 and 422 when the
///   text names an overflow (the host's patterns or pi-ai's) and is not throttling; any
///   other status is not an overflow;
/// - pi's `AssistantMessage` (a `stopReason`): pi-ai's `isContextOverflow(message,
///   contextWindow)` ([`overflow::is_context_overflow`]), silent overflows included;
/// - neither (an `Error` with only a message): pi-ai's text rule on the message.
pub fn is_provider_overflow(e: &ProviderError, context_window: Option<f64>) -> bool {
    let text = e.text();
    let by_status = match e.http_status() {
        Some(413) => true,
        Some(400) | Some(422) => {
            (is_overflow_message(text) || overflow::is_overflow_text(text))
                && !overflow::is_throttling_text(text)
        }
        Some(_) => false,
        None => e.stop_reason.is_none() && overflow::is_overflow_text(text),
    };
    by_status
        || e.stop().is_some_and(|stop| {
            let usage = e.usage.as_ref().map(|u| overflow::OverflowUsage {
                input: u.input,
                output: u.output,
                cache_read: u.cache_read,
            });
            overflow::is_context_overflow(
                Some(stop),
                e.error_message.as_deref(),
                usage.as_ref(),
                context_window,
            )
        })
}

/// How the host should treat a provider error ([`is_provider_overflow`]; `context_window`
/// is the failed model's, for pi's silent-overflow rules).
pub fn classify_provider_error(
    e: &ProviderError,
    context_window: Option<f64>,
) -> ProviderErrorClass {
    if is_provider_overflow(e, context_window) {
        return ProviderErrorClass {
            code: Some(CONTEXT_TOO_LARGE.owned()),
            retriable: false,
            context_too_large: true,
        };
    }
    let status = e.http_status();
    let retriable = match (status, e.stop()) {
        (Some(s), _) => matches!(s, 408 | 409 | 425 | 429) || (500..600).contains(&s),
        // pi's failed message: pi-ai's `isRetryableAssistantError`
        (None, Some(stop)) => {
            stop == StopReason::Error
                && e.error_message.as_deref().is_some_and(|m| !m.is_empty())
                && overflow::is_retryable_text(e.text())
        }
        (None, None) => overflow::is_retryable_text(e.text()),
    };
    ProviderErrorClass {
        code: None,
        retriable,
        context_too_large: false,
    }
}

/// ADR 0299 clause 5: "the provider's raw overflow text is no longer what the parent
/// receives". A provider error that classifies as `CONTEXT_TOO_LARGE` (once the fallbacks
/// are exhausted) becomes `SUBAGENT_CONTEXT_OVERFLOW` for `model_id`, with the guidance;
/// any other error is `None` (the host passes it on unchanged).
pub fn overflow_for_provider_error(error: &ProviderError, model: &OverflowModel) -> Option<Error> {
    is_provider_overflow(error, model.context_window).then(|| Error::SubagentContextOverflow {
        model_id: model.model_id.clone(),
        tokens: model.tokens,
        hard_limit: model.hard_limit,
    })
}

/// The failed delegate's model, as `errorForParent` takes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverflowModel {
    pub model_id: String,
    /// Its window, for pi's silent-overflow rules.
    pub context_window: Option<f64>,
    /// The context's size, when known.
    pub tokens: Option<u64>,
    /// The delegate's hardLimit, when known.
    pub hard_limit: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_host_contract() {
        let c = |status: i32, m: &str| {
            classify_provider_error(
                &ProviderError {
                    status: Some(status as f64),
                    message: Some(m.into()),
                    ..Default::default()
                },
                None,
            )
        };
        assert!(c(413, "whatever").context_too_large);
        assert!(c(400, "This model's maximum context length is 8192 tokens").context_too_large);
        assert!(c(400, "prompt is too long: 210000 tokens > 200000 maximum").context_too_large);
        assert!(c(422, "Input token count exceeds the MAXIMUM").context_too_large);
        assert!(c(400, "context_length_exceeded").context_too_large);
        assert!(!c(400, "invalid tool schema").context_too_large);
        assert!(!c(500, "context window").context_too_large);
        assert!(c(500, "x").retriable && c(429, "x").retriable && !c(400, "x").retriable);
        assert!(!c(413, "x").retriable);
        assert_eq!(c(413, "").code.as_deref(), Some("CONTEXT_TOO_LARGE"));
        // pi-ai's wordings count under 400 too; throttling never does
        assert!(c(400, "400 status code (no body)").context_too_large);
        assert!(c(400, "Please reduce the length of the messages").context_too_large);
        assert!(!c(400, "Rate limit: token limit reached for this minute").context_too_large);
        assert!(!c(429, "Too many tokens, please wait").context_too_large);
    }

    /// The same provider text in pi's three shapes (issue 15 item 2).
    #[test]
    fn an_overflow_in_every_shape() {
        let shapes = |text: &str| {
            [
                // pi's failed AssistantMessage: no status
                ProviderError {
                    stop_reason: Some("error".into()),
                    error_message: Some(text.into()),
                    ..Default::default()
                },
                // an Error without a status
                ProviderError {
                    message: Some(text.into()),
                    ..Default::default()
                },
                // an error with a status
                ProviderError {
                    status: Some(400.0),
                    message: Some(text.into()),
                    ..Default::default()
                },
            ]
        };
        for text in [
            "prompt is too long: 8871 tokens > 8192 maximum",
            "Your input exceeds the context window of this model",
            "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
            "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
        ] {
            for (i, e) in shapes(text).iter().enumerate() {
                let class = classify_provider_error(e, None);
                assert!(class.context_too_large && !class.retriable, "{i}: {text}");
                let err = overflow_for_provider_error(
                    e,
                    &OverflowModel {
                        model_id: "m".into(),
                        ..Default::default()
                    },
                );
                assert_eq!(err.map(|e| e.code()), Some("SUBAGENT_CONTEXT_OVERFLOW"));
            }
        }
        for text in [
            "Throttling error: Too many tokens, please wait before trying again.",
            "429 Rate limit reached for requests",
            "Too many requests",
            "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
            "401 invalid x-api-key",
        ] {
            for (i, e) in shapes(text).iter().enumerate() {
                assert!(
                    !classify_provider_error(e, None).context_too_large,
                    "{i}: {text}"
                );
            }
        }
        // without a status, pi's retry patterns decide; with one, the status does
        let [msg, err, with_status] = shapes("Too many requests");
        assert!(classify_provider_error(&msg, None).retriable);
        assert!(classify_provider_error(&err, None).retriable);
        assert!(!classify_provider_error(&with_status, None).retriable);
        let [msg, err, _] = shapes("insufficient_quota: check your billing");
        assert!(!classify_provider_error(&msg, None).retriable);
        assert!(!classify_provider_error(&err, None).retriable);
        // a failed message that is not an error, and the host regex alone without a status
        let aborted = ProviderError {
            stop_reason: Some("aborted".into()),
            error_message: Some("prompt is too long".into()),
            ..Default::default()
        };
        assert!(!classify_provider_error(&aborted, None).context_too_large);
        let host_only = ProviderError {
            message: Some("the context window of this model".into()),
            ..Default::default()
        };
        assert!(!classify_provider_error(&host_only, None).context_too_large);
    }

    /// The host's regex as JavaScript answers (tests/data/string-table.json, recorded by
    /// tests/js/string-table.test.mjs): a `/i` regex without `u` folds ASCII letters only,
    /// so a Kelvin sign is no `k` (Unicode's lowercase would make it one).
    #[test]
    fn the_host_regex_as_javascript_answers() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/data/string-table.json"))
                .expect("tests/data/string-table.json");
        let rows = table["overflow"].as_array().expect("overflow rows");
        assert!(rows.len() > 20);
        for row in rows {
            let (text, want) = (row[0].as_str().expect("text"), row[1].as_bool());
            let non_ascii: Vec<String> = text
                .chars()
                .filter(|c| !c.is_ascii())
                .map(|c| format!("U+{:04X}", c as u32))
                .collect();
            assert_eq!(
                Some(is_overflow_message(text)),
                want,
                "{text:?} {non_ascii:?}"
            );
        }
    }

    #[test]
    fn a_silent_overflow_needs_the_window() {
        let stop = ProviderError {
            stop_reason: Some("stop".into()),
            usage: Some(Usage {
                input: Some(8000.0),
                output: Some(20.0),
                cache_read: Some(500.0),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(!classify_provider_error(&stop, None).context_too_large);
        assert!(classify_provider_error(&stop, Some(8192.0)).context_too_large);
        assert!(!classify_provider_error(&stop, Some(16_384.0)).context_too_large);
    }

    #[test]
    fn status_code_is_read_when_status_is_absent() {
        let e = |status: Option<f64>, status_code: Option<f64>| ProviderError {
            status,
            status_code,
            message: Some("boom".into()),
            ..Default::default()
        };
        assert_eq!(e(None, Some(413.0)).http_status(), Some(413));
        assert_eq!(e(Some(500.0), Some(413.0)).http_status(), Some(500));
        assert_eq!(e(None, Some(f64::NAN)).http_status(), None);
        assert!(classify_provider_error(&e(None, Some(413.0)), None).context_too_large);
        assert!(classify_provider_error(&e(None, Some(503.0)), None).retriable);
        assert!(!classify_provider_error(&e(Some(400.0), Some(413.0)), None).context_too_large);
    }
}
