//! ADR 0279 clauses 4 and 11: whether a resume may go ahead, and what it records.

use super::{vanished, Registry};
use crate::delegation::binding::ModelBinding;
use crate::delegation::chain::Chain;
use crate::delegation::history::run_replays_anything;
use crate::delegation::text::non_blank;
use crate::delegation::types::{
    Diagnostic, DiagnosticCode, ResumeRequest, ResumeTarget, RunStatus,
};
use crate::delegation::wording;
use crate::error::{Error, Result};
use crate::js_whitespace;
use crate::text_build::Owned;
use crate::transcript::{normalize_agent_name, UiMessage};

impl Registry {
    // ---------------------------------------------------------------------- clause 4

    /// Clause 4: every check a resume must pass, in the module docs' order.
    ///
    /// `rows` (the session transcript, or at least the chain's rows) make the
    /// `NO_HISTORY` check exact; without them only what settle / rebuild learnt is used.
    /// A `NO_HISTORY` answer drops the chain.
    pub fn validate_resume(
        &mut self,
        request: &ResumeRequest,
        rows: Option<&[UiMessage]>,
    ) -> Result<ResumeTarget> {
        let id = js_whitespace::trim(&request.delegation_id).owned();
        let Some(chain) = self.chain_of(&id) else {
            return Err(self.unknown_delegation(&id));
        };
        let latest = chain.latest_id().owned();
        let agent = normalize_agent_name(&request.agent);
        if agent != chain.agent {
            let listing = self.reusable_listing();
            return Err(Error::AgentMismatch {
                message: wording::agent_mismatch(&id, &chain.agent, &agent, &listing),
                id,
                expected: chain.agent.clone(),
                actual: agent,
            });
        }
        if chain.is_running() {
            return Err(Error::DelegationRunning { id: latest });
        }
        let status = chain
            .latest_status()
            .cloned()
            .unwrap_or(RunStatus::Unrecorded);
        if !status.is_resumable() {
            return Err(Error::NotResumable {
                message: wording::not_resumable(&latest, &status),
                id: latest,
                status: status.as_text().unwrap_or_default().owned(),
            });
        }
        if non_blank(request.model.as_deref()).is_some() {
            return Err(Error::ModelOnResume { id });
        }
        if chain.is_over_read_budget() {
            return Err(Error::ReadBudgetExceeded {
                id,
                lines: chain.reads.lines,
            });
        }
        let key = chain.key.clone();
        if let Some(rows) = rows {
            self.learn_replays(&key, rows);
        }
        let Some(chain) = self.chains.get(&key) else {
            return Err(vanished(&id));
        };
        if chain.is_known_empty() {
            self.drop_chain(&key);
            let listing = self.reusable_listing();
            return Err(Error::NoHistory {
                id,
                listing: listing.text,
                resumable: listing.ids,
                resumable_omitted: listing.omitted,
            });
        }
        Ok(ResumeTarget {
            delegation_id: id,
            latest_delegation_id: latest,
            agent: chain.agent.clone(),
            brief: chain.brief.clone(),
            objective: chain.objective.clone(),
            tool_call_ids: chain.tool_call_ids(),
            status: status.clone(),
            reads: chain.reads.clone(),
            recorded_model: chain.model.clone(),
        })
    }

    /// Whether each run of the chain `key` replays anything, from `rows`.
    pub(super) fn learn_replays(&mut self, key: &str, rows: &[UiMessage]) {
        let Some(chain) = self.chains.get_mut(key) else {
            return;
        };
        for run in &mut chain.runs {
            run.replayable = Some(run_replays_anything(
                rows,
                &run.tool_call_id,
                &chain.agent,
                &chain.brief,
            ));
        }
    }
}

/// Clauses 4 and 11: what a resume records in the delegation's lifecycle details.
pub(super) fn resume_diagnostics(
    chain: &Chain,
    target: &ResumeTarget,
    model_changed_from: Option<&str>,
    binding: &ModelBinding,
    definition: Option<&str>,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    if let Some(old) = model_changed_from {
        diagnostics.push(Diagnostic {
            code: DiagnosticCode::ModelChanged,
            message: wording::model_changed(old, &binding.label()),
        });
    }
    if let (Some(old), Some(new)) = (chain.definition.as_deref(), definition) {
        if old != new {
            diagnostics.push(Diagnostic {
                code: DiagnosticCode::DefinitionChanged,
                message: wording::definition_changed(
                    &target.agent,
                    &target.latest_delegation_id,
                    old,
                    new,
                ),
            });
        }
    }
    diagnostics
}
