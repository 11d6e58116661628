//! ADR 0299 clause 6: when a delegate's request fails, each fallback model is
//! re-evaluated against its own window before the run moves to it; a model the carried
//! context does not fit is skipped with `SUBAGENT_CONTEXT_OVERFLOW` in `modelFailures`.
//!
//! The two neighbouring rules the fallback path uses live beside it, one file each:
//! [`provider_error`] (host-contract §5: is a provider's failure a context overflow,
//! `CONTEXT_TOO_LARGE`; ADR 0299 §5: it becomes `SUBAGENT_CONTEXT_OVERFLOW`) and
//! [`inherited_tools`] (ADR 0299 §8: the tools a delegate never inherits).

pub mod inherited_tools;
pub mod provider_error;

pub use inherited_tools::{filter_inherited_tools, ToolEntry, SUBAGENT_INHERIT_DENY_TOOLS};
pub use provider_error::{
    classify_provider_error, overflow_for_provider_error, OverflowModel, ProviderError,
};

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::budget::{context_budget, validate_model, BudgetModel, ContextBudget};
use crate::compaction::assess::boundary_tokens;
use crate::compaction::context::DelegateContext;
use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::message::Extra;
use crate::text_build::Owned;

// ---------------------------------------------------------------- clause 6

/// An alternative model, as the host resolved it. Unknown fields are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FallbackCandidate {
    /// The model id (`modelId` is accepted too).
    #[serde(alias = "modelId")]
    pub id: String,
    /// The provider id (`providerId` is accepted too).
    #[serde(default, alias = "providerId", skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub context_window: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub max_tokens: Option<f64>,
    /// A per-definition output cap (ADR 0210).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub definition_max_tokens: Option<f64>,
    #[serde(flatten)]
    #[tsify(type = "{}")]
    pub extra: Extra,
}

decode_struct!(FallbackCandidate "FallbackCandidate" {
    id: "id" | "modelId" => req,
    provider: "provider" | "providerId" => default,
    context_window: "contextWindow" => default,
    max_tokens: "maxTokens" => default,
    definition_max_tokens: "definitionMaxTokens" => default,
} extra extra);

impl FallbackCandidate {
    /// `"providerId/modelId"` (just the id when there is no provider).
    #[inline(never)]
    pub fn label(&self) -> String {
        match self.provider.as_deref().filter(|p| !p.is_empty()) {
            Some(p) => format!("{p}/{}", self.id),
            None => self.id.clone(),
        }
    }
    fn budget_model(&self) -> BudgetModel {
        BudgetModel {
            context_window: self.context_window,
            max_tokens: self.max_tokens,
            definition_max_tokens: self.definition_max_tokens,
        }
    }
}

/// A `modelFailures` entry: `{model: "providerId/modelId", code, message}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ModelFailure {
    pub model: String,
    pub code: String,
    pub message: String,
}

decode_struct!(ModelFailure "ModelFailure" {
    model: "model" => req,
    code: "code" => req,
    message: "message" => req,
});

/// The code a `modelFailures` entry records for an alternative skipped because its
/// window cannot hold the carried context (as the host app records it).
pub const SKIPPED_FOR_WINDOW: &str = "SUBAGENT_CONTEXT_OVERFLOW";

/// The result of [`select_fallback_model`].
#[derive(Clone, Debug, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FallbackSelection {
    /// The first alternative whose budget fits the carried context (as given), or null.
    pub model: Option<FallbackCandidate>,
    /// Its position in the list, or null.
    pub index: Option<usize>,
    /// Its budget, or null.
    pub budget: Option<ContextBudget>,
    /// The carried context's size.
    pub tokens: u64,
    /// One entry per alternative skipped because it cannot fit.
    pub model_failures: Vec<ModelFailure>,
}

/// Clause 6: the first alternative, in order, whose own budget fits the carried context
/// (`tokens < hardLimit`, the same test as a turn boundary); a `modelFailures` entry for
/// every one skipped before it. Ordering, duplicate skipping and retry budgets stay the
/// host's (ADR subagent-model-fallback); `overhead_tokens` is the request's non-message
/// size (system prompt, tools), already saturated (see [`crate::tokens::tokens_from_f64`]).
pub fn select_fallback_model(
    context: &DelegateContext,
    candidates: &[FallbackCandidate],
    overhead_tokens: u64,
) -> Result<FallbackSelection> {
    for (i, c) in candidates.iter().enumerate() {
        validate_model(&c.budget_model()).map_err(|e| match e {
            Error::InvalidInput { path, message } => Error::invalid(
                // validate_model names `model.field`: the candidate is the model here
                format!(
                    "candidates[{i}]{}",
                    path.strip_prefix("model").unwrap_or(&path)
                ),
                message,
            ),
            other => other,
        })?;
    }
    let tokens = boundary_tokens(context, overhead_tokens);
    let mut failures = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        let budget = context_budget(&c.budget_model());
        if tokens < budget.hard_limit {
            return Ok(FallbackSelection {
                model: Some(c.clone()),
                index: Some(i),
                budget: Some(budget),
                tokens,
                model_failures: failures,
            });
        }
        failures.push(ModelFailure {
            model: c.label(),
            code: SKIPPED_FOR_WINDOW.owned(),
            message: format!(
                "Skipped fallback model \"{}\": the carried context (about {tokens} tokens) does not fit its context budget (hardLimit {} of a {}-token window).",
                c.label(),
                budget.hard_limit,
                budget.context_window
            ),
        });
    }
    Ok(FallbackSelection {
        model: None,
        index: None,
        budget: None,
        tokens,
        model_failures: failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::AgentMessage;

    #[test]
    fn fallback_skips_models_that_cannot_fit() {
        let ms =
            DelegateContext::from_messages(&[AgentMessage::user_text("x".repeat(40_000), None)])
                .unwrap(); // 10,000 tokens
        let cand = |id: &str, w: f64| FallbackCandidate {
            id: id.into(),
            provider: Some("p".into()),
            context_window: Some(w),
            max_tokens: Some(4096.0),
            definition_max_tokens: None,
            extra: Extra::new(),
        };
        let r = select_fallback_model(&ms, &[cand("small", 16_000.0), cand("big", 64_000.0)], 0)
            .unwrap();
        assert_eq!(r.index, Some(1));
        assert_eq!(r.model_failures.len(), 1);
        assert_eq!(r.model_failures[0].model, "p/small");
        assert_eq!(r.model_failures[0].code, "SUBAGENT_CONTEXT_OVERFLOW");
        let none = select_fallback_model(&ms, &[cand("small", 16_000.0)], 0).unwrap();
        assert!(none.model.is_none());
    }
}
