//! Exports of the resumable delegations (ADR 0279, ADR 0299 clause 7): the
//! `DelegationRegistry` class (the core [`Registry`], kept in wasm memory behind a
//! handle) and the pure functions. Each export decodes, calls the core, encodes.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::convert::{
    from_js, js_error, js_to_value, optional, state_mut_of, state_of, string_arg, throw, to_js,
};
use super::host::{is_array, is_object, prop, split_field, split_list, HostArray};
use crate::delegation::{
    self as core, BindingCandidates, ChainSelector, Registry, ResumeRequest, SeedInput,
    SettleDelegation, StartDelegation,
};
use crate::error::Error;
use crate::message::{decode_at, kind_of};
use crate::transcript::{CallIds, HeadField, ProviderBinding, RowFilter, RowHead, UiMessage};

// Boundary cost: a transcript holds thousands of rows and most of them are the parent's
// own, which no delegation function reads. Rows are therefore decoded one at a time, only
// when the core's row rule ([`RowFilter`]) says the core reads them, judged from the few
// fields of the row head that rule looks at; each decoded row crosses as one
// `JSON.stringify` string (not one crossing per property). Rows that are skipped are not
// validated. Every read of a host value goes through `super::host`, so what a getter or
// a revoked Proxy throws becomes `INVALID_INPUT` with the path of the value.

/// The fields of the host row `row` that `filter` looks at (those that are strings),
/// read safely; the others stay `None`.
fn row_head_fields(
    row: &JsValue,
    path: &str,
    filter: &RowFilter,
) -> Result<[Option<String>; HeadField::COUNT], JsValue> {
    filter.head_fields(|name| Ok(prop(row, name, path).map_err(js_error)?.as_string()))
}

fn decode_row(row: JsValue, path: &str) -> Result<UiMessage, JsValue> {
    if !is_object(&row) || is_array(&row) {
        let value = js_to_value(row, path)?;
        return Err(js_error(Error::invalid(
            path,
            format!("expected a row object, got {}", kind_of(&value)),
        )));
    }
    decode_at(js_to_value(row, path)?, path).map_err(js_error)
}

/// The rows of `value` (an array) that the core's rule `filter` reads, decoded, with
/// their indices in `value`; `path[i]` names a bad row.
fn rows_where(
    value: &JsValue,
    path: &str,
    filter: RowFilter,
) -> Result<(Vec<UiMessage>, Vec<usize>), JsValue> {
    let array = HostArray::new(value, path, "rows").map_err(js_error)?;
    let mut rows = Vec::new();
    let mut positions = Vec::new();
    for i in 0..array.len() {
        let row = array.get(i).map_err(js_error)?;
        let row_path = array.path_of(i);
        let fields = row_head_fields(&row, &row_path, &filter)?;
        if filter.accepts(&RowHead::from_fields(&fields)) {
            rows.push(decode_row(row, &row_path)?);
            positions.push(i);
        }
    }
    Ok((rows, positions))
}

/// Every row of `value`, decoded.
fn all_rows(value: &JsValue, path: &str) -> Result<Vec<UiMessage>, JsValue> {
    let array = HostArray::new(value, path, "rows").map_err(js_error)?;
    (0..array.len())
        .map(|i| decode_row(array.get(i).map_err(js_error)?, &array.path_of(i)))
        .collect()
}

/// Rows a delegate wrote during one of `calls`, plus the Task rows of `calls`.
fn chain_rows(value: &JsValue, path: &str, calls: &[String]) -> Result<Vec<UiMessage>, JsValue> {
    let calls: CallIds = calls.iter().map(String::as_str).collect();
    let (rows, _) = rows_where(value, path, RowFilter::WrittenDuringOrTaskRowOf(&calls))?;
    Ok(rows)
}

/// `input` without its `rows` (decoded separately), and the rows value (`undefined`
/// when absent).
fn split_rows(input: &JsValue) -> Result<(JsValue, JsValue), JsValue> {
    split_field(input, "rows", "input").map_err(js_error)
}

/// The rows of `value` that belong to the chain `delegation_id` is on (see
/// [`chain_rows`]): what every method that reads one chain decodes, and no more.
fn rows_of_chain(
    registry: &Registry,
    value: &JsValue,
    path: &str,
    delegation_id: &str,
) -> Result<Vec<UiMessage>, JsValue> {
    let calls = registry
        .resolve(delegation_id)
        .map(|chain| chain.tool_call_ids)
        .unwrap_or_default();
    chain_rows(value, path, &calls)
}

/// The registry of resumable delegation chains of one session (ADR 0279), kept in wasm
/// memory. Call `free()` when the session closes.
///
/// @example
/// ```js
/// const reg = DelegationRegistry.fromTranscript(session.rows);
/// systemPrompt += "\n\n" + reg.resumablePrompt();
/// const run = reg.start({ toolCallId, agent, task, resume }, session.rows);
/// // ... run the delegate, seeded with seedDelegateMessages(...) on a resume ...
/// reg.settle({ delegationId: run.delegationId, status: "completed", rows: runRows });
/// reg.free();
/// ```
#[wasm_bindgen(js_name = DelegationRegistry)]
pub struct DelegationRegistry {
    /// Behind a `RefCell`, so that a getter of an input that calls the registry again
    /// gets `INVALID_STATE` (methods take `&self`: wasm-bindgen's own borrow never fails);
    /// shared with the runs started on it (`DelegateRun`).
    inner: Rc<RefCell<Registry>>,
}

impl DelegationRegistry {
    /// The registry, for a run started on it.
    pub(super) fn shared(&self) -> Rc<RefCell<Registry>> {
        self.inner.clone()
    }

    #[inline(never)]
    fn state(&self) -> Result<Ref<'_, Registry>, JsValue> {
        state_of(&self.inner, "DelegationRegistry")
    }

    #[inline(never)]
    fn state_mut(&self) -> Result<RefMut<'_, Registry>, JsValue> {
        state_mut_of(&self.inner, "DelegationRegistry")
    }
}

#[wasm_bindgen(js_class = DelegationRegistry)]
impl DelegationRegistry {
    /// An empty registry; delegationIds are random UUID v4s.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> DelegationRegistry {
        DelegationRegistry {
            inner: Rc::new(RefCell::new(Registry::new())),
        }
    }

    /// Clause 12: the registry rebuilt from the session's persisted rows alone.
    ///
    /// @param rows - the session transcript (`UiMessage[]`)
    /// @throws DelegateContextError `INVALID_INPUT` (with `path`) for malformed rows
    #[wasm_bindgen(js_name = fromTranscript)]
    pub fn from_transcript(
        #[wasm_bindgen(unchecked_param_type = "UiMessage[]")] rows: JsValue,
    ) -> Result<DelegationRegistry, JsValue> {
        let (rows, positions) = rows_where(&rows, "rows", RowFilter::DelegateOrTaskRows)?;
        Ok(DelegationRegistry {
            inner: Rc::new(RefCell::new(Registry::from_transcript_rows(
                &rows,
                Some(&positions),
                Box::new(core::random_uuid_v4),
            ))),
        })
    }

    /// Start a run when the Task tool executes. With `resume`, the clause-4 checks run
    /// first (as `validateResume`); `rows` (the transcript) make `NO_HISTORY` exact.
    ///
    /// @returns the new `delegationId`, the chain's `toolCallIds` and `brief`, the model
    /// binding (`modelChangedFrom` when a resume could not keep it) and `diagnostics`
    /// @throws DelegateContextError with a clause-4 `code`, `INVALID_INPUT` or `INVALID_STATE`
    #[wasm_bindgen(unchecked_return_type = "StartedDelegation")]
    pub fn start(
        &self,
        #[wasm_bindgen(unchecked_param_type = "StartDelegation")] input: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "UiMessage[]")] rows: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let input: StartDelegation = from_js(input, "input")?;
        // rows only matter on a resume, and only the chain's
        let rows = match input.resume.as_deref() {
            Some(resume) => optional(rows, |rows| {
                rows_of_chain(&*self.state()?, &rows, "rows", resume)
            })?,
            None => None,
        };
        let started = throw(self.state_mut()?.start(&input, rows.as_deref()))?;
        to_js(&started)
    }

    /// Settle the chain's running run with its status and reads, then apply the
    /// per-agent bound (clause 7): the 2 most recently used reusable chains of the agent
    /// stay, and apart the 2 most recent that cannot be resumed; the rest are evicted.
    ///
    /// @returns `{delegationId, status, resumable, evicted}`
    /// @throws DelegateContextError `INVALID_STATE` for an id that is not running
    #[wasm_bindgen(unchecked_return_type = "SettledDelegation")]
    pub fn settle(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SettleDelegation")] input: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (rest, rows) = split_rows(&input)?;
        let mut input: SettleDelegation = from_js(rest, "input")?;
        if let Some(rows) = optional(Some(rows), |rows| {
            rows_of_chain(&*self.state()?, &rows, "input.rows", &input.delegation_id)
        })? {
            input.rows = Some(rows);
        }
        let settled = throw(self.state_mut()?.settle(&input))?;
        to_js(&settled)
    }

    /// Clause 4: check a resume without starting it, in this order: `UNKNOWN_DELEGATION`,
    /// `AGENT_MISMATCH`, `DELEGATION_RUNNING`, `NOT_RESUMABLE`, `MODEL_ON_RESUME`,
    /// `READ_BUDGET_EXCEEDED`, `NO_HISTORY`. `rows` (the transcript) make the
    /// `NO_HISTORY` check exact; a chain found empty is dropped at once (the next resume
    /// of its ids is `UNKNOWN_DELEGATION`). The unknown-id and no-history errors carry
    /// `resumable` (at most 20 ids) and `resumableOmitted`.
    ///
    /// @returns what the resume continues (`toolCallIds`, `brief`, `recordedModel`, ...)
    /// @throws DelegateContextError with one of the codes above
    #[wasm_bindgen(js_name = validateResume, unchecked_return_type = "ResumeTarget")]
    pub fn validate_resume(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ResumeRequest")] request: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "UiMessage[]")] rows: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let request: ResumeRequest = from_js(request, "request")?;
        let rows = optional(rows, |rows| {
            rows_of_chain(&*self.state()?, &rows, "rows", &request.delegation_id)
        })?;
        let target = throw(self.state_mut()?.validate_resume(&request, rows.as_deref()))?;
        to_js(&target)
    }

    /// The chain any delegationId belongs to (middle ids too), or `undefined`.
    #[wasm_bindgen(unchecked_return_type = "ChainInfo | undefined")]
    pub fn resolve(
        &self,
        #[wasm_bindgen(js_name = delegationId, unchecked_param_type = "string")]
        delegation_id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let delegation_id = string_arg(delegation_id, "delegationId")?;
        match self.state()?.resolve(&delegation_id) {
            Some(info) => to_js(&info),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Clause 9: the resumable chains, newest activity first.
    #[wasm_bindgen(js_name = resumableList, unchecked_return_type = "ResumableChain[]")]
    pub fn resumable_list(&self) -> Result<JsValue, JsValue> {
        to_js(&self.state()?.resumable_list())
    }

    /// Clause 9: the block to append to the parent's system prompt (host-contract §8
    /// format); `""` when no chain is resumable.
    #[wasm_bindgen(js_name = resumablePrompt)]
    pub fn resumable_prompt(&self) -> Result<String, JsValue> {
        Ok(self.state()?.resumable_prompt())
    }

    /// Clause 13: the chain of `delegationId` as one conversation (task → reply → ...).
    ///
    /// @throws DelegateContextError `UNKNOWN_DELEGATION`
    #[wasm_bindgen(js_name = chainConversation, unchecked_return_type = "ChainConversation")]
    pub fn chain_conversation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "UiMessage[]")] rows: JsValue,
        #[wasm_bindgen(js_name = delegationId, unchecked_param_type = "string")]
        delegation_id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let delegation_id = string_arg(delegation_id, "delegationId")?;
        let delegation_id = delegation_id.as_str();
        let rows = rows_of_chain(&*self.state()?, &rows, "rows", delegation_id)?;
        let conversation = throw(self.state()?.chain_conversation(&rows, delegation_id))?;
        to_js(&conversation)
    }

    /// Task rows the rebuild (`fromTranscript`) skipped, and why.
    #[wasm_bindgen(js_name = rebuildSkips, unchecked_return_type = "RebuildSkip[]")]
    pub fn rebuild_skips(&self) -> Result<JsValue, JsValue> {
        to_js(self.state()?.rebuild_skips())
    }

    /// Number of chains held (listed or not).
    #[wasm_bindgen(getter, js_name = chainCount)]
    pub fn chain_count(&self) -> Result<u32, JsValue> {
        Ok(self.state()?.chain_count() as u32)
    }
}

/// Clause 2/3: the rows a chain's delegate wrote (`parentToolCallId` in the chain, same
/// normalised agent), in order, duplicate row ids collapsed (later copy wins).
#[wasm_bindgen(js_name = selectChainRows, unchecked_return_type = "UiMessage[]")]
pub fn select_chain_rows(
    #[wasm_bindgen(unchecked_param_type = "UiMessage[]")] rows: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ChainSelector")] chain: JsValue,
) -> Result<JsValue, JsValue> {
    let chain: ChainSelector = from_js(chain, "chain")?;
    let calls: CallIds = chain.tool_call_ids.iter().map(String::as_str).collect();
    let (rows, _) = rows_where(&rows, "rows", RowFilter::WrittenDuring(&calls))?;
    to_js(&core::select_chain_rows(&rows, &chain))
}

/// Clause 3: chain rows → `AgentMessage[]` on the delegate's own binding (failed
/// assistants dropped, orphan tool rows carried, interrupted tools answered).
#[wasm_bindgen(js_name = chainRowsToMessages, unchecked_return_type = "AgentMessage[]")]
pub fn chain_rows_to_messages(
    #[wasm_bindgen(unchecked_param_type = "UiMessage[]")] rows: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ProviderBinding")] binding: JsValue,
) -> Result<JsValue, JsValue> {
    let binding: ProviderBinding = from_js(binding, "binding")?;
    let rows = all_rows(&rows, "rows")?;
    let rows: Vec<&UiMessage> = rows.iter().collect();
    to_js(&crate::transcript::rows_to_messages(&rows, &binding))
}

/// ADR 0299 clause 7: the brief, the chain's history, truncated so that the messages
/// plus the request overhead (`overheadTokens`, or derived from `systemPrompt` and
/// `tools` as the turn-boundary hook derives it) are below `hardLimit` (tool pairs
/// oldest first, then whole messages; the brief is never dropped).
///
/// @returns `{messages, tokens, hardLimit, overheadTokens, truncated, briefOverLimit, dropped}`
/// @throws DelegateContextError `INVALID_INPUT` (with `path`) for a blank brief, a bad
/// `hardLimit` / `overheadTokens`, `overheadTokens` together with `systemPrompt` / `tools`,
/// or a malformed row
#[wasm_bindgen(js_name = seedDelegateMessages, unchecked_return_type = "SeedResult")]
pub fn seed_delegate_messages(
    #[wasm_bindgen(unchecked_param_type = "SeedInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    // `rows` is decoded below, row by row
    let (rest, rows) = split_list(&input, "rows", "input").map_err(js_error)?;
    let mut input: SeedInput = from_js(rest, "input")?;
    input.rows = match &input.chain {
        Some(chain) => {
            let calls: CallIds = chain.tool_call_ids.iter().map(String::as_str).collect();
            rows_where(&rows, "input.rows", RowFilter::WrittenDuring(&calls))?.0
        }
        None => all_rows(&rows, "input.rows")?,
    };
    to_js(&throw(core::seed_delegate_messages(&input))?)
}

/// Clause 8: files and lines the read-only tools (`read`, `glob`, `grep`,
/// `browser_preview`) read among `rows`.
#[wasm_bindgen(js_name = countChainReads, unchecked_return_type = "ChainReads")]
pub fn count_chain_reads(
    #[wasm_bindgen(unchecked_param_type = "UiMessage[]")] rows: JsValue,
) -> Result<JsValue, JsValue> {
    let (rows, _) = rows_where(&rows, "rows", RowFilter::ReadRows)?;
    let rows: Vec<&UiMessage> = rows.iter().collect();
    to_js(&core::count_chain_reads(&rows))
}

/// Clause 4: the binding a resumed run continues on: the recorded key if allowed, else
/// (rebuilt chains) a match by model id, else the definition's binding with
/// `modelChangedFrom`.
#[wasm_bindgen(js_name = resolveResumeBinding, unchecked_return_type = "ResolvedBinding")]
pub fn resolve_resume_binding(
    #[wasm_bindgen(unchecked_param_type = "BindingCandidates")] candidates: JsValue,
) -> Result<JsValue, JsValue> {
    let candidates: BindingCandidates = from_js(candidates, "candidates")?;
    to_js(&throw(core::resolve_resume_binding(&candidates))?)
}

/// Clause 9: the resumable-list block for `chains` (as `resumableList()` returns them).
#[wasm_bindgen(js_name = formatResumableList)]
pub fn format_resumable_list(
    #[wasm_bindgen(unchecked_param_type = "ResumableChain[]")] chains: JsValue,
) -> Result<String, JsValue> {
    let chains: Vec<core::ResumableChain> = from_js(chains, "chains")?;
    Ok(core::format_resumable_list(&chains))
}

/// Clause 9: the JSON schema of the Task tool's `resume` parameter, `{type: "string",
/// description}`: put it in the Task tool's parameter schema as it is, so the model reads
/// the library's words (reuse requires the id; prose resumes nothing; no `model` on a
/// resume).
#[wasm_bindgen(js_name = resumeParameterSchema, unchecked_return_type = "ResumeParameterSchema")]
pub fn resume_parameter_schema() -> Result<JsValue, JsValue> {
    to_js(&core::resume_parameter_schema())
}

/// host-contract §6: an agent name as the registry keys it (basename, no `.md`, trimmed,
/// lower-cased, spaces and underscores → `-`). The resumable list, `resolve` and the Task
/// rows' `details.agent` name agents this way: key your agent definitions by it, so the
/// name the parent reads back finds its definition.
///
/// @example
/// ```js
/// const definitions = new Map(agents.map((a) => [normalizeAgentName(a.name), a]));
/// definitions.get(normalizeAgentName("agents/Code_Reviewer.md")); // the "code_reviewer" definition
/// ```
#[wasm_bindgen(js_name = normalizeAgentName)]
pub fn normalize_agent_name(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
) -> Result<String, JsValue> {
    let name = string_arg(name, "name")?;
    Ok(crate::transcript::normalize_agent_name(&name))
}
