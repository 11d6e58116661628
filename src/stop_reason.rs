//! host-contract §1: an assistant's `stopReason` (pi-ai 0.85.1's `StopReason`), and the
//! one definition of a failed assistant (`error` / `aborted`: its usage is not trusted,
//! its summary is a failed summary, its row is an error row).
//!
//! pi compares `stopReason` with `===`; [`StopReason::parse`] does the same (a text pi
//! does not write is [`StopReason::Other`], never one of pi's). Every reader of a
//! `stopReason` (message facts, typed messages, a summarizer's reply, a provider error,
//! pi-ai's overflow rules) goes through this type.

use crate::text_table;

/// An assistant's `stopReason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
    Deferred,
    Pending,
    /// A text pi does not write.
    Other,
}

/// pi's texts, each written once.
const NAMES: [(StopReason, &str); 7] = [
    (StopReason::Stop, "stop"),
    (StopReason::Length, "length"),
    (StopReason::ToolUse, "toolUse"),
    (StopReason::Error, "error"),
    (StopReason::Aborted, "aborted"),
    (StopReason::Deferred, "deferred"),
    (StopReason::Pending, "pending"),
];

impl StopReason {
    /// The reason a `stopReason` text names (exact, as pi's `===`).
    pub fn parse(text: &str) -> StopReason {
        text_table::value_of(&NAMES, text).unwrap_or(StopReason::Other)
    }

    /// pi's text for this reason (`None` for [`StopReason::Other`]).
    #[inline(never)]
    pub fn as_str(self) -> Option<&'static str> {
        text_table::text_of(&NAMES, self)
    }

    /// A failed response (`error` or `aborted`): its usage is not trusted, a summary it
    /// carries is a failed summary.
    pub fn is_failed(self) -> bool {
        matches!(self, StopReason::Error | StopReason::Aborted)
    }

    /// pi's `isContextMessage` leaves such an assistant out of the context: failed or
    /// `deferred`.
    pub fn leaves_context(self) -> bool {
        self.is_failed() || self == StopReason::Deferred
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_is_exact_and_round_trips_pi_s_texts() {
        // pi-ai 0.85.1's `StopReason` union (types.d.ts), in its order
        let pi = [
            "stop", "length", "toolUse", "error", "aborted", "pending", "deferred",
        ];
        for text in pi {
            let reason = StopReason::parse(text);
            assert_ne!(reason, StopReason::Other, "{text}");
            assert_eq!(reason.as_str(), Some(text));
        }
        for text in ["", "Error", "ERROR", " error", "tool_use", "abort"] {
            assert_eq!(StopReason::parse(text), StopReason::Other, "{text:?}");
        }
        assert_eq!(StopReason::Other.as_str(), None);
    }

    #[test]
    fn failed_is_error_or_aborted_and_deferred_also_leaves_the_context() {
        let failed: Vec<&str> = NAMES
            .iter()
            .filter(|(r, _)| r.is_failed())
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(failed, ["error", "aborted"]);
        let left: Vec<&str> = NAMES
            .iter()
            .filter(|(r, _)| r.leaves_context())
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(left, ["error", "aborted", "deferred"]);
        assert!(!StopReason::Other.is_failed() && !StopReason::Other.leaves_context());
    }

    #[test]
    fn every_reader_of_a_message_agrees_on_what_failed() {
        use crate::facts::MessageFacts;
        use crate::fallback::{classify_provider_error, ProviderError};
        use crate::message::AgentMessage;
        for text in [
            "stop", "toolUse", "error", "aborted", "deferred", "Error", "x",
        ] {
            let json = serde_json::json!({"role": "assistant", "content": [], "stopReason": text,
                "errorMessage": "503 overloaded", "timestamp": 1});
            let failed = StopReason::parse(text).is_failed();
            let facts = MessageFacts::from_json(&json.to_string(), "m").unwrap();
            assert_eq!(facts.is_failed(), failed, "{text}");
            let typed = AgentMessage::from_value(json, "m").unwrap();
            assert_eq!(typed.as_assistant().unwrap().is_failed(), failed, "{text}");
            // pi-ai's `isRetryableAssistantError` reads only `stopReason === "error"`
            let e = ProviderError {
                stop_reason: Some(text.into()),
                error_message: Some("503 overloaded".into()),
                ..Default::default()
            };
            assert_eq!(classify_provider_error(&e, None).retriable, text == "error");
        }
    }
}
