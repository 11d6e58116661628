//! ADR 0299 clause 6 and the §5 conversion as tables (issue 20: boundaries no test
//! noticed when a mutant changed them).
//!
//! Clause 6: "Before advancing to an alternative, the controller checks the carried
//! context against that alternative's budget. An alternative that cannot fit is skipped
//! and recorded in modelFailures with that reason". The check is the turn boundary's
//! (clause 3): a context at or above hardLimit does not fit, so exactly hardLimit is
//! skipped. Host-contract §5: the entry is `{model: "providerId/modelId", code, message}`.
//!
//! Clause 5: "The provider's raw overflow text is no longer what the parent receives for
//! this failure": a provider error that classifies as CONTEXT_TOO_LARGE becomes
//! SUBAGENT_CONTEXT_OVERFLOW for the delegate's model; any other error is passed on as it
//! is (no conversion).
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::compaction::DelegateContext;
use delegate_context::fallback::{
    classify_provider_error, overflow_for_provider_error, select_fallback_model, FallbackCandidate,
    OverflowModel, ProviderError,
};
use delegate_context::message::{AgentMessage, Extra};
use delegate_context::Error;

/// host-contract §4: a 32,000-token window with an 8,000-token output cap has hardLimit
/// 16,000.
fn candidate(id: &str, provider: Option<&str>, window: f64) -> FallbackCandidate {
    FallbackCandidate {
        id: id.into(),
        provider: provider.map(str::to_string),
        context_window: Some(window),
        max_tokens: Some(8_000.0),
        definition_max_tokens: None,
        extra: Extra::new(),
    }
}

/// A carried context of 100 tokens (400 characters, pi's chars/4).
fn context_of_100_tokens() -> DelegateContext {
    DelegateContext::from_messages(&[AgentMessage::user_text("x".repeat(400), None)]).unwrap()
}

#[test]
fn an_alternative_fits_only_below_its_hard_limit() {
    let ctx = context_of_100_tokens();
    // (request overhead, carried tokens, does the 32k alternative fit?)
    for (overhead, tokens, fits) in [
        (15_898u64, 15_998u64, true),
        (15_899, 15_999, true),
        (15_900, 16_000, false), // exactly hardLimit: compaction territory, not a fit
        (15_901, 16_001, false),
    ] {
        let r = select_fallback_model(
            &ctx,
            &[
                candidate("m32", Some("p"), 32_000.0),
                candidate("big", Some("p"), 200_000.0),
            ],
            overhead,
        )
        .unwrap();
        assert_eq!(r.tokens, tokens);
        if fits {
            assert_eq!(r.index, Some(0), "{tokens} tokens");
            assert!(r.model_failures.is_empty());
            assert_eq!(r.budget.map(|b| b.hard_limit), Some(16_000));
        } else {
            assert_eq!(r.index, Some(1), "{tokens} tokens");
            assert_eq!(r.model.as_ref().map(|m| m.id.as_str()), Some("big"));
            assert_eq!(r.model_failures.len(), 1);
            let f = &r.model_failures[0];
            assert_eq!(
                (f.model.as_str(), f.code.as_str()),
                ("p/m32", "SUBAGENT_CONTEXT_OVERFLOW")
            );
            assert!(
                f.message.contains(&format!("about {tokens} tokens"))
                    && f.message.contains("hardLimit 16000"),
                "{}",
                f.message
            );
        }
    }
}

/// `"providerId/modelId"`, or the model id alone when there is no provider (or an empty
/// one).
#[test]
fn a_model_failure_names_the_model_as_provider_slash_id() {
    let ctx = context_of_100_tokens();
    for (provider, label) in [
        (Some("anthropic"), "anthropic/tiny"),
        (None, "tiny"),
        (Some(""), "tiny"),
    ] {
        let r = select_fallback_model(&ctx, &[candidate("tiny", provider, 100.0)], 0).unwrap();
        assert_eq!(r.model, None);
        assert_eq!(r.model_failures[0].model, label, "{provider:?}");
    }
}

/// pi's failed message carries the provider's text in `errorMessage`; an empty one falls
/// back to `message` (the text host-contract §5's patterns are matched against).
#[test]
fn an_empty_error_message_falls_back_to_the_message() {
    let e = ProviderError {
        status: Some(400.0),
        error_message: Some(String::new()),
        message: Some("prompt is too long: 210000 tokens > 200000 maximum".into()),
        ..Default::default()
    };
    assert_eq!(
        e.text(),
        "prompt is too long: 210000 tokens > 200000 maximum"
    );
    assert!(classify_provider_error(&e, None).context_too_large);
    let e = ProviderError {
        status: Some(400.0),
        error_message: Some("prompt is too long".into()),
        message: Some("Bad Request".into()),
        ..Default::default()
    };
    assert_eq!(e.text(), "prompt is too long");
}

/// Clause 5's conversion: an overflow becomes SUBAGENT_CONTEXT_OVERFLOW for the delegate's
/// model, with the sizes the host knows; anything else is not converted.
#[test]
fn only_an_overflow_becomes_subagent_context_overflow() {
    let model = OverflowModel {
        model_id: "anthropic/claude-small".into(),
        context_window: Some(200_000.0),
        tokens: Some(210_000),
        hard_limit: Some(168_000),
    };
    let overflow = ProviderError {
        status: Some(413.0),
        message: Some("Request Entity Too Large".into()),
        ..Default::default()
    };
    assert_eq!(
        overflow_for_provider_error(&overflow, &model),
        Some(Error::SubagentContextOverflow {
            model_id: "anthropic/claude-small".into(),
            tokens: Some(210_000),
            hard_limit: Some(168_000),
        })
    );
    for other in [
        ProviderError {
            status: Some(401.0),
            message: Some("invalid x-api-key".into()),
            ..Default::default()
        },
        ProviderError {
            status: Some(429.0),
            message: Some("Too many tokens, please wait".into()),
            ..Default::default()
        },
        ProviderError {
            stop_reason: Some("error".into()),
            error_message: Some("overloaded_error".into()),
            ..Default::default()
        },
        ProviderError::default(),
    ] {
        assert_eq!(
            overflow_for_provider_error(&other, &model),
            None,
            "{other:?}"
        );
    }
}

/// host-contract §5: a 400 or 422 is an overflow when its message matches the host app's
/// pattern `/context[ _-]?length|maximum context|context window|too many tokens|prompt is
/// too long|input token count|exceeds the (?:maximum|model)|token limit/i`: each of its
/// alternatives, in any case, whether or not pi-ai's own patterns know the wording; a
/// message that matches none is not.
#[test]
fn the_host_patterns_make_a_400_or_422_an_overflow() {
    let model = OverflowModel {
        model_id: "m".into(),
        context_window: Some(8_000.0),
        tokens: Some(9_000),
        hard_limit: Some(4_000),
    };
    let of = |status: f64, text: &str| ProviderError {
        status: Some(status),
        message: Some(text.into()),
        ..Default::default()
    };
    for text in [
        "bad: CONTEXTLENGTH 9000 > 8000",
        "bad: context length 9000",
        "bad: context_length",
        "bad: Context-Length",
        "bad: the Maximum Context of this model",
        "bad: over the context window",
        "bad: too many tokens in the request",
        "bad: prompt is too long",
        "bad: Input token count 9000 over",
        "bad: request exceeds the maximum",
        "bad: request exceeds the model's budget",
        "bad: token limit reached",
    ] {
        for status in [400.0, 422.0] {
            assert!(
                overflow_for_provider_error(&of(status, text), &model).is_some(),
                "{status} {text}"
            );
        }
        assert!(
            overflow_for_provider_error(&of(401.0, text), &model).is_none(),
            "401 {text}"
        );
    }
    for text in [
        "bad: invalid tool schema",
        "bad: context",
        "bad: the model exceeds",
    ] {
        assert!(
            overflow_for_provider_error(&of(400.0, text), &model).is_none(),
            "{text}"
        );
    }
}
