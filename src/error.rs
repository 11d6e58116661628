//! One error enum for the whole library, a stable `code` per variant.
//!
//! The binding layer turns every variant into a JavaScript `Error` whose `name` is
//! `DelegateContextError`, whose `code` is [`Error::code`] and whose other properties are
//! [`Error::fields`]. Codes are part of the public API: never rename one.

use crate::text_build::Joined;
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

    /// ADR 0299 clause 2: `Task.model` names no model the delegate is configured with.
    #[error("Model \"{model}\" is not configured for this delegate. Use one of: {configured}, or omit model to run on the delegate's own model.", configured = .configured.joined(", "))]
    UnknownModel {
        model: String,
        configured: Vec<String>,
    },
}

/// A property of a thrown `DelegateContextError` besides `name`, `code`, `message` and
/// `retriable`: its name, its TypeScript type, whether it can be absent, what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub ts: &'static str,
    pub optional: bool,
    pub doc: &'static str,
}

/// One code and the properties its errors carry, in the order [`Error::field_values`]
/// gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorKind {
    pub code: &'static str,
    pub doc: &'static str,
    pub fields: &'static [FieldSpec],
}

const fn req(name: &'static str, ts: &'static str, doc: &'static str) -> FieldSpec {
    FieldSpec {
        name,
        ts,
        optional: false,
        doc,
    }
}
const fn opt(name: &'static str, ts: &'static str, doc: &'static str) -> FieldSpec {
    FieldSpec {
        name,
        ts,
        optional: true,
        doc,
    }
}

const DELEGATION_ID: FieldSpec = req("delegationId", "string", "the delegation concerned");
const RESUMABLE: FieldSpec = req(
    "resumable",
    "string[]",
    "the ids still resumable (at most 20)",
);
const RESUMABLE_OMITTED: FieldSpec = req(
    "resumableOmitted",
    "number",
    "how many resumable ids `resumable` leaves out",
);

/// The one table of codes and their fields: the thrower ([`Error::fields`]) names the
/// properties from it and the `.d.ts` declaration ([`TS_DECLARATION`]) is written from it,
/// so the two cannot drift. Codes are public API: never rename one.
pub const KINDS: [ErrorKind; 12] = [
    ErrorKind {
        code: "INVALID_INPUT",
        doc: "input of the wrong shape",
        fields: &[req("path", "string", "the path of the bad value (`rows[12].toolArgs`)")],
    },
    ErrorKind {
        code: "SUBAGENT_CONTEXT_OVERFLOW",
        doc: "ADR 0299 clause 5: even the degraded context does not fit (a provider overflow once the fallbacks are exhausted)",
        fields: &[
            req("modelId", "string", "the delegate's model"),
            opt("tokens", "number", "the context's size, when known"),
            opt("hardLimit", "number", "the delegate's hardLimit, when known"),
        ],
    },
    ErrorKind {
        code: "ABORTED",
        doc: "the host's AbortSignal fired during a boundary step; nothing was changed",
        fields: &[],
    },
    ErrorKind {
        code: "UNKNOWN_DELEGATION",
        doc: "ADR 0279 clause 4: an unknown or evicted delegation id",
        fields: &[DELEGATION_ID, RESUMABLE, RESUMABLE_OMITTED],
    },
    ErrorKind {
        code: "DELEGATION_RUNNING",
        doc: "ADR 0279 clauses 4 and 6: a resume while the chain still runs",
        fields: &[DELEGATION_ID],
    },
    ErrorKind {
        code: "NOT_RESUMABLE",
        doc: "ADR 0279 clause 5: a stopped, aborted or interrupted chain",
        fields: &[DELEGATION_ID, req("status", "string", "the chain's status")],
    },
    ErrorKind {
        code: "AGENT_MISMATCH",
        doc: "ADR 0279 clause 4: Task.agent differs from the chain's agent",
        fields: &[
            DELEGATION_ID,
            req("expected", "string", "the chain's agent"),
            req("actual", "string", "the agent asked for"),
        ],
    },
    ErrorKind {
        code: "MODEL_ON_RESUME",
        doc: "ADR 0279 clause 4: Task.model given on a resume",
        fields: &[DELEGATION_ID],
    },
    ErrorKind {
        code: "READ_BUDGET_EXCEEDED",
        doc: "ADR 0279 clause 8: the chain has read too much to resume cheaply",
        fields: &[DELEGATION_ID, req("lines", "number", "the lines the chain has read")],
    },
    ErrorKind {
        code: "NO_HISTORY",
        doc: "ADR 0279 clause 4: the chain has no rows left to replay",
        fields: &[DELEGATION_ID, RESUMABLE, RESUMABLE_OMITTED],
    },
    ErrorKind {
        code: "INVALID_STATE",
        doc: "a registry operation that does not fit its state, or a handle called from inside its own call",
        fields: &[],
    },
    ErrorKind {
        code: "UNKNOWN_MODEL",
        doc: "ADR 0299 clause 2: Task.model names no model the delegate is configured with",
        fields: &[
            req("model", "string", "the model asked for"),
            req("configured", "string[]", "the models the delegate may run on (`providerId/modelId`)"),
        ],
    },
];

/// Every code [`Error::code`] returns, in [`KINDS`] order.
pub const CODES: [&str; KINDS.len()] = {
    let mut codes = [""; KINDS.len()];
    let mut i = 0;
    while i < KINDS.len() {
        codes[i] = KINDS[i].code;
        i += 1;
    }
    codes
};

/// The most fields a code carries.
const MAX_FIELDS: usize = 3;

/// The field names of each code, in [`KINDS`] order: what the thrower reads at run time
/// (written from [`KINDS`] at compile time, so the module holds the names only, not the
/// declaration's types and documentation).
const FIELD_NAMES: [[&str; MAX_FIELDS]; KINDS.len()] = {
    let mut names = [[""; MAX_FIELDS]; KINDS.len()];
    let mut k = 0;
    while k < KINDS.len() {
        let mut f = 0;
        while f < KINDS[k].fields.len() {
            names[k][f] = KINDS[k].fields[f].name;
            f += 1;
        }
        k += 1;
    }
    names
};

// ---------------------------------------------------------------- the declaration

/// The TypeScript declaration of the thrown error, written from [`KINDS`] at compile time
/// (the binding puts it in the `.d.ts`): `DelegateContextErrorCode`, the fields of each code
/// (`DelegateContextErrorFields`) and `DelegateContextError` with every field once.
pub const TS_DECLARATION: &str = match std::str::from_utf8(&TS_TEXT.buf) {
    Ok(text) => text,
    Err(_) => panic!("the error declaration is not UTF-8"),
};

const TS_LEN: usize = declaration(Text::<0>::new()).len;
const TS_TEXT: Text<TS_LEN> = declaration(Text::<TS_LEN>::new());

/// Text written in a const context: `Text<0>` only counts, `Text<N>` writes.
struct Text<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    const fn new() -> Self {
        Text {
            buf: [0; N],
            len: 0,
        }
    }
    const fn s(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if N > 0 {
                self.buf[self.len] = bytes[i];
            }
            self.len += 1;
            i += 1;
        }
        self
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether field `name` appears in a row of [`KINDS`] before row `row`.
const fn seen_before(name: &str, row: usize) -> bool {
    let mut k = 0;
    while k < row {
        let mut f = 0;
        while f < KINDS[k].fields.len() {
            if same(KINDS[k].fields[f].name, name) {
                return true;
            }
            f += 1;
        }
        k += 1;
    }
    false
}

const fn declaration<const N: usize>(t: Text<N>) -> Text<N> {
    let mut t = t
        .s("\n/** The stable code of a `DelegateContextError`. */\n")
        .s("export type DelegateContextErrorCode =");
    let mut k = 0;
    while k < KINDS.len() {
        t = t
            .s(if k == 0 { " \"" } else { " | \"" })
            .s(KINDS[k].code)
            .s("\"");
        k += 1;
    }
    t = t
        .s(";\n/** The properties a `DelegateContextError` of each code carries besides `name`, `code`, `message` and `retriable` (an optional one only when known). */\n")
        .s("export interface DelegateContextErrorFields {\n");
    k = 0;
    while k < KINDS.len() {
        t = t
            .s("  /** ")
            .s(KINDS[k].doc)
            .s(" */\n  ")
            .s(KINDS[k].code)
            .s(": {");
        let mut f = 0;
        while f < KINDS[k].fields.len() {
            let spec = KINDS[k].fields[f];
            t = t
                .s(" /** ")
                .s(spec.doc)
                .s(" */ ")
                .s(spec.name)
                .s(if spec.optional { "?: " } else { ": " })
                .s(spec.ts)
                .s(";");
            f += 1;
        }
        t = t.s(if KINDS[k].fields.is_empty() {
            "};\n"
        } else {
            " };\n"
        });
        k += 1;
    }
    t = t
        .s("}\n/** Every failure of this library: a real `Error` whose `name` is \"DelegateContextError\", with a stable `code` and the fields of its code (`DelegateContextErrorFields`). */\n")
        .s("export interface DelegateContextError extends Error {\n")
        .s("  name: \"DelegateContextError\";\n  code: DelegateContextErrorCode;\n")
        .s("  /** Whether retrying the same call can succeed (never, for this library's errors). */\n  retriable: boolean;\n");
    k = 0;
    while k < KINDS.len() {
        let mut f = 0;
        while f < KINDS[k].fields.len() {
            let spec = KINDS[k].fields[f];
            if !seen_before(spec.name, k) {
                // every code that carries it, then what it holds
                t = t.s("  /** ");
                let mut first = true;
                let mut j = k;
                while j < KINDS.len() {
                    let mut g = 0;
                    while g < KINDS[j].fields.len() {
                        if same(KINDS[j].fields[g].name, spec.name) {
                            t = t.s(if first { "" } else { ", " }).s(KINDS[j].code);
                            first = false;
                        }
                        g += 1;
                    }
                    j += 1;
                }
                t = t
                    .s(": ")
                    .s(spec.doc)
                    .s(" */\n  ")
                    .s(spec.name)
                    .s("?: ")
                    .s(spec.ts)
                    .s(";\n");
            }
            f += 1;
        }
        k += 1;
    }
    t.s("}\n")
}

impl Error {
    /// Shorthand for [`Error::InvalidInput`]. Never inlined: one copy per pair of
    /// argument types, not the two `String`s' allocation at each of its callers.
    #[inline(never)]
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
            Error::UnknownModel { .. } => "UNKNOWN_MODEL",
        }
    }

    /// The thrown `Error`'s `retriable`: whether making the same call again, unchanged,
    /// can succeed. A host's retry loop reads this one property of whatever failed (a
    /// provider's failure answers it through `classifyProviderError`), so every error of
    /// this library carries it. It is false for every code: each call is a pure decision
    /// over its input and the state it was given, so the same call fails the same way.
    /// `ABORTED` is the run's own signal (the caller chose to stop); `DELEGATION_RUNNING`,
    /// `READ_BUDGET_EXCEEDED` and the rest need a different call or a changed state, which
    /// is not a retry.
    pub fn retriable(&self) -> bool {
        false
    }

    /// This error's row in [`KINDS`] (and [`CODES`]).
    fn row(&self) -> usize {
        let code = self.code();
        let mut i = 0;
        while i + 1 < CODES.len() && CODES[i] != code {
            i += 1;
        }
        i
    }

    /// This error's row of [`KINDS`].
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn kind(&self) -> &'static ErrorKind {
        &KINDS[self.row()]
    }

    /// Extra properties for the JS `Error` (besides `name`, `code`, `message`, `retriable`):
    /// named by [`KINDS`], valued by [`Error::field_values`]; an absent optional one is left out.
    pub fn fields(&self) -> Vec<(&'static str, Field)> {
        FIELD_NAMES[self.row()]
            .iter()
            .zip(self.field_values())
            .filter_map(|(&name, value)| value.map(|v| (name, v)))
            .collect()
    }

    /// The values of this error's fields, in the order of its [`KINDS`] row (`None`: an
    /// optional field not known).
    pub fn field_values(&self) -> Vec<Option<Field>> {
        use Field::*;
        let s = |v: &String| Some(Str(v.clone()));
        let n = |v: f64| Some(Num(v));
        match self {
            Error::InvalidInput { path, .. } => vec![s(path)],
            Error::SubagentContextOverflow {
                model_id,
                tokens,
                hard_limit,
            } => vec![
                s(model_id),
                tokens.map(|t| Num(t as f64)),
                hard_limit.map(|h| Num(h as f64)),
            ],
            Error::Aborted | Error::InvalidState { .. } => vec![],
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
            } => vec![
                s(id),
                Some(List(resumable.clone())),
                n(*resumable_omitted as f64),
            ],
            Error::DelegationRunning { id } | Error::ModelOnResume { id } => vec![s(id)],
            Error::NotResumable { id, status, .. } => vec![s(id), s(status)],
            Error::AgentMismatch {
                id,
                expected,
                actual,
                ..
            } => vec![s(id), s(expected), s(actual)],
            Error::ReadBudgetExceeded { id, lines } => vec![s(id), n(*lines as f64)],
            Error::UnknownModel { model, configured } => {
                vec![s(model), Some(List(configured.clone()))]
            }
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Str(s) => f.write_str(s),
            Field::Num(n) => f.write_str(&crate::js_text::js_number_to_string(*n)),
            Field::List(l) => f.write_str(&l.joined(", ")),
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// One error of every code, with every optional field known.
    fn one_of_each() -> Vec<Error> {
        let id = || "d1".to_string();
        vec![
            Error::invalid("rows[1]", "bad"),
            Error::SubagentContextOverflow {
                model_id: "m".into(),
                tokens: Some(9),
                hard_limit: Some(8),
            },
            Error::Aborted,
            Error::UnknownDelegation {
                id: id(),
                listing: String::new(),
                resumable: vec!["d2".into()],
                resumable_omitted: 0,
            },
            Error::DelegationRunning { id: id() },
            Error::NotResumable {
                id: id(),
                status: "stopped".into(),
                message: "m".into(),
            },
            Error::AgentMismatch {
                id: id(),
                expected: "a".into(),
                actual: "b".into(),
                message: "m".into(),
            },
            Error::ModelOnResume { id: id() },
            Error::ReadBudgetExceeded { id: id(), lines: 3 },
            Error::NoHistory {
                id: id(),
                listing: String::new(),
                resumable: vec![],
                resumable_omitted: 2,
            },
            Error::InvalidState {
                message: "m".into(),
            },
            Error::UnknownModel {
                model: "x".into(),
                configured: vec!["p/a".into()],
            },
        ]
    }

    #[test]
    fn every_variant_has_its_row_and_gives_every_field_of_it() {
        let errors = one_of_each();
        let codes: Vec<&str> = errors.iter().map(Error::code).collect();
        assert_eq!(codes, CODES, "one error per code, in KINDS order");
        for e in &errors {
            let names: Vec<&str> = e.fields().iter().map(|(n, _)| *n).collect();
            let declared: Vec<&str> = e.kind().fields.iter().map(|f| f.name).collect();
            assert_eq!(names, declared, "{}", e.code());
            assert_eq!(
                e.field_values().len(),
                e.kind().fields.len(),
                "{}",
                e.code()
            );
        }
        // an unknown optional field is left out; a required one never is
        let e = Error::SubagentContextOverflow {
            model_id: "m".into(),
            tokens: None,
            hard_limit: None,
        };
        assert_eq!(e.fields(), vec![("modelId", Field::Str("m".into()))]);
    }

    #[test]
    fn no_error_is_retriable_and_the_declaration_says_so() {
        for e in one_of_each() {
            assert!(!e.retriable(), "{}", e.code());
        }
        assert!(TS_DECLARATION.contains(
            "/** Whether retrying the same call can succeed (never, for this library's errors). */\n  retriable: boolean;"
        ));
    }

    #[test]
    fn the_declaration_is_written_from_the_table() {
        let d = TS_DECLARATION;
        assert!(d.contains("export type DelegateContextErrorCode = \"INVALID_INPUT\" | \"SUBAGENT_CONTEXT_OVERFLOW\" | "), "{d}");
        assert!(d.contains("  UNKNOWN_DELEGATION: { /** the delegation concerned */ delegationId: string; /** the ids still resumable (at most 20) */ resumable: string[]; /** how many resumable ids `resumable` leaves out */ resumableOmitted: number; };\n"), "{d}");
        assert!(d.contains("  ABORTED: {};\n"), "{d}");
        assert!(d.contains("tokens?: number; /** the delegate's hardLimit, when known */ hardLimit?: number; };"), "{d}");
        assert!(d.contains("  /** UNKNOWN_DELEGATION, NO_HISTORY: how many resumable ids `resumable` leaves out */\n  resumableOmitted?: number;\n"), "{d}");
        assert!(!d.contains("omitted?: number;\n  status"), "{d}");
        assert_eq!(d.matches("  delegationId?: string;").count(), 1, "{d}");
        for code in CODES {
            assert!(d.contains(&format!("  {code}: {{")), "{code}");
        }
    }

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
