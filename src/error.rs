//! One error enum for the whole library, a stable `code` per variant.
//!
//! The binding layer turns every variant into a JavaScript `Error` whose `name` is
//! `DelegateContextError`, whose `code` is [`Error::code`] and whose other properties are
//! [`Error::fields`]. Codes are part of the public API: never rename one.

use std::fmt;

/// A value attached to an error as a property of the JS `Error`.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    Str(String),
    Num(f64),
    List(Vec<String>),
}

/// Every failure the library reports.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// Input of the wrong shape: `path` names the bad value (`rows[12].toolArgs`).
    #[error("invalid input at {path}: {message}")]
    InvalidInput { path: String, message: String },

    /// ADR 0299 clause 5: even the degraded context does not fit.
    #[error("The delegated task does not fit in the context window of model \"{model_id}\", even after compaction and history reduction. Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once.")]
    SubagentContextOverflow {
        model_id: String,
        /// The context's size (in the provider's terms), when known.
        tokens: Option<u64>,
        /// The delegate's hardLimit, when known.
        hard_limit: Option<u64>,
    },

    /// The host's AbortSignal fired during a boundary step; nothing was changed.
    #[error("the delegate turn was aborted")]
    Aborted,

    /// ADR 0279 clause 4: unknown or evicted delegation id (the message lists what is
    /// resumable, at most 20 ids, and how many it left out).
    #[error("Unknown delegation \"{id}\". {listing}")]
    UnknownDelegation {
        id: String,
        listing: String,
        resumable: Vec<String>,
        resumable_omitted: usize,
    },

    /// ADR 0279 clause 4/6: a resume while the chain still runs.
    #[error("Delegation {id} is still running, call TaskWait first")]
    DelegationRunning { id: String },

    /// ADR 0279 clause 5: stopped, aborted or interrupted chains are not resumable.
    #[error("{message}")]
    NotResumable {
        id: String,
        status: String,
        message: String,
    },

    /// ADR 0279 clause 4: Task.agent differs from the chain's agent.
    #[error("{message}")]
    AgentMismatch {
        id: String,
        expected: String,
        actual: String,
        message: String,
    },

    /// ADR 0279 clause 4: Task.model given on a resume.
    #[error("Task.model is not allowed on a resumed run (delegation {id}); start a new delegation to change models")]
    ModelOnResume { id: String },

    /// ADR 0279 clause 8: the chain has read more than MAX_RESUMABLE_READ_LINES.
    #[error("Delegation {id} has read too much to resume cheaply ({lines} lines read); start a new delegation")]
    ReadBudgetExceeded { id: String, lines: u64 },

    /// ADR 0279 clause 4: the chain resolves but has no rows left to replay; it is dropped
    /// (the message lists what remains resumable, like [`Error::UnknownDelegation`]).
    #[error(
        "Delegation {id} has no recorded history to resume; start a new delegation. {listing}"
    )]
    NoHistory {
        id: String,
        listing: String,
        resumable: Vec<String>,
        resumable_omitted: usize,
    },

    /// A registry operation that does not fit its state (settling an unknown run, a second live run).
    #[error("{message}")]
    InvalidState { message: String },
}

/// Every code [`Error::code`] returns (the `.d.ts` declares them as
/// `DelegateContextErrorCode`; a test keeps the two equal).
pub const CODES: [&str; 11] = [
    "INVALID_INPUT",
    "SUBAGENT_CONTEXT_OVERFLOW",
    "ABORTED",
    "UNKNOWN_DELEGATION",
    "DELEGATION_RUNNING",
    "NOT_RESUMABLE",
    "AGENT_MISMATCH",
    "MODEL_ON_RESUME",
    "READ_BUDGET_EXCEEDED",
    "NO_HISTORY",
    "INVALID_STATE",
];

impl Error {
    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::InvalidInput {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidInput { .. } => "INVALID_INPUT",
            Error::SubagentContextOverflow { .. } => "SUBAGENT_CONTEXT_OVERFLOW",
            Error::Aborted => "ABORTED",
            Error::UnknownDelegation { .. } => "UNKNOWN_DELEGATION",
            Error::DelegationRunning { .. } => "DELEGATION_RUNNING",
            Error::NotResumable { .. } => "NOT_RESUMABLE",
            Error::AgentMismatch { .. } => "AGENT_MISMATCH",
            Error::ModelOnResume { .. } => "MODEL_ON_RESUME",
            Error::ReadBudgetExceeded { .. } => "READ_BUDGET_EXCEEDED",
            Error::NoHistory { .. } => "NO_HISTORY",
            Error::InvalidState { .. } => "INVALID_STATE",
        }
    }

    /// Whether retrying the same request can succeed. Only a few failures are transient;
    /// none of this library's are.
    pub fn retriable(&self) -> bool {
        false
    }

    /// Extra properties for the JS `Error` (besides `name`, `code`, `message`, `retriable`).
    pub fn fields(&self) -> Vec<(&'static str, Field)> {
        use Field::*;
        match self {
            Error::InvalidInput { path, .. } => vec![("path", Str(path.clone()))],
            Error::SubagentContextOverflow {
                model_id,
                tokens,
                hard_limit,
            } => {
                let mut f = vec![("modelId", Str(model_id.clone()))];
                if let Some(t) = tokens {
                    f.push(("tokens", Num(*t as f64)));
                }
                if let Some(h) = hard_limit {
                    f.push(("hardLimit", Num(*h as f64)));
                }
                f
            }
            Error::Aborted => vec![],
            Error::UnknownDelegation {
                id,
                resumable,
                resumable_omitted,
                ..
            }
            | Error::NoHistory {
                id,
                resumable,
                resumable_omitted,
                ..
            } => {
                vec![
                    ("delegationId", Str(id.clone())),
                    ("resumable", List(resumable.clone())),
                    ("resumableOmitted", Num(*resumable_omitted as f64)),
                ]
            }
            Error::DelegationRunning { id } | Error::ModelOnResume { id } => {
                vec![("delegationId", Str(id.clone()))]
            }
            Error::NotResumable { id, status, .. } => {
                vec![
                    ("delegationId", Str(id.clone())),
                    ("status", Str(status.clone())),
                ]
            }
            Error::AgentMismatch {
                id,
                expected,
                actual,
                ..
            } => vec![
                ("delegationId", Str(id.clone())),
                ("expected", Str(expected.clone())),
                ("actual", Str(actual.clone())),
            ],
            Error::ReadBudgetExceeded { id, lines } => {
                vec![
                    ("delegationId", Str(id.clone())),
                    ("lines", Num(*lines as f64)),
                ]
            }
            Error::InvalidState { .. } => vec![],
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Str(s) => f.write_str(s),
            Field::Num(n) => write!(f, "{n}"),
            Field::List(l) => f.write_str(&l.join(", ")),
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_message_is_the_adr_guidance() {
        let e = Error::SubagentContextOverflow {
            model_id: "m1".into(),
            tokens: Some(10),
            hard_limit: Some(5),
        };
        assert_eq!(e.code(), "SUBAGENT_CONTEXT_OVERFLOW");
        assert_eq!(
            e.to_string(),
            "The delegated task does not fit in the context window of model \"m1\", even after compaction and history reduction. Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once."
        );
        assert!(!e.retriable());
    }

    #[test]
    fn invalid_input_carries_its_path() {
        let e = Error::invalid("rows[12].toolArgs", "expected an object");
        assert_eq!(e.code(), "INVALID_INPUT");
        assert_eq!(
            e.fields(),
            vec![("path", Field::Str("rows[12].toolArgs".into()))]
        );
        assert!(e.to_string().contains("rows[12].toolArgs"));
    }
}
