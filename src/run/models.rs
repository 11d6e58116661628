//! ADR 0299 clause 2 and clause 6's ordering: which models a run may use, in which
//! order. "The window and output cap come from the model the run actually resolved — a
//! Task.model override, a definition pin, or the inherited session model"; the
//! definition's other models are its fallbacks, in order, duplicates skipped.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::budget::{context_budget, validate_model, BudgetModel, ContextBudget};
use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::js_whitespace;
use crate::text_build::Owned;

/// A model a delegate may run on, as the host configured it (pi's `Model` has these
/// fields; other fields are ignored).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RunModel {
    /// The model id (`modelId` is accepted too).
    #[serde(alias = "modelId")]
    pub id: String,
    /// The provider id (`providerId` is accepted too).
    #[serde(default, alias = "providerId", skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub provider: Option<String>,
    /// pi's `api` (the binding of a resumed run's seeded messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub api: Option<String>,
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
}

decode_struct!(RunModel "RunModel" {
    id: "id" | "modelId" => req,
    provider: "provider" | "providerId" => default,
    api: "api" => default,
    context_window: "contextWindow" => default,
    max_tokens: "maxTokens" => default,
    definition_max_tokens: "definitionMaxTokens" => default,
});

impl RunModel {
    /// `providerId/modelId` (the id alone when there is no provider): how the run names
    /// the model (`modelId` of its events, `modelFailures`, the overflow's message).
    #[inline(never)]
    pub fn key(&self) -> String {
        match self.provider.as_deref().filter(|p| !p.is_empty()) {
            Some(p) => format!("{p}/{}", self.id),
            None => self.id.clone(),
        }
    }

    /// The budget of this model (ADR 0299 clauses 1–2).
    pub fn budget(&self) -> ContextBudget {
        context_budget(&self.budget_model())
    }

    pub(crate) fn budget_model(&self) -> BudgetModel {
        BudgetModel {
            context_window: self.context_window,
            max_tokens: self.max_tokens,
            definition_max_tokens: self.definition_max_tokens,
        }
    }

    /// Whether `name` (`Task.model`) names this model: its key, or its id.
    fn is_named(&self, name: &str) -> bool {
        self.key() == name || self.id == name
    }
}

/// Input of `resolveDelegateModels`: `Task.model` and what the delegate may run on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    /// `Task.model` of a new run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model: Option<String>,
    /// The delegate's models: its own first, then its fallbacks.
    #[serde(default)]
    #[tsify(optional)]
    pub models: Vec<RunModel>,
    /// The session's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub session_model: Option<RunModel>,
}

decode_struct!(ModelChoice "ModelChoice" {
    model: "model" => default,
    models: "models" => default,
    session_model: "sessionModel" => default,
});

impl ModelChoice {
    /// [`resolve_models`] of this choice, the models' numbers checked first.
    pub fn resolve(&self) -> Result<Vec<RunModel>> {
        validate_models(&self.models, "input.models")?;
        if let Some(session) = &self.session_model {
            validate_models(std::slice::from_ref(session), "input.sessionModel")?;
        }
        resolve_models(
            self.model.as_deref(),
            &self.models,
            self.session_model.as_ref(),
        )
    }
}

/// Check every model's numbers (`INVALID_INPUT` at `path[i].field`).
pub fn validate_models(models: &[RunModel], path: &str) -> Result<()> {
    for (i, m) in models.iter().enumerate() {
        if js_whitespace::is_blank(&m.id) {
            return Err(Error::invalid(
                format!("{path}[{i}].id"),
                "must not be blank",
            ));
        }
        validate_model(&m.budget_model()).map_err(|e| match e {
            Error::InvalidInput {
                path: inner,
                message,
            } => Error::invalid(
                // validate_model names `model.field`
                format!(
                    "{path}[{i}]{}",
                    inner.strip_prefix("model").unwrap_or(&inner)
                ),
                message,
            ),
            other => other,
        })?;
    }
    Ok(())
}

/// The run's models in the order it uses them: the model it resolved first, then the
/// fallbacks in their order, each key once (clause 6: duplicates skipped).
///
/// - `task_model` (`Task.model` of a new run) names one of `models` or the session model
///   by `providerId/modelId` or by id (the first that matches); one that names none is
///   `UNKNOWN_MODEL`, a refused Task call. The other `models` stay its fallbacks.
/// - else `models[0]`, the definition's model (its pin, or the model the host resolved
///   for it), then `models[1..]`;
/// - else the session's model.
///
/// `INVALID_INPUT` when there is no model at all.
pub fn resolve_models(
    task_model: Option<&str>,
    models: &[RunModel],
    session: Option<&RunModel>,
) -> Result<Vec<RunModel>> {
    let mut first: Option<&RunModel> = None;
    if let Some(name) = task_model
        .map(js_whitespace::trim)
        .filter(|n| !n.is_empty())
    {
        first = models.iter().chain(session).find(|m| m.is_named(name));
        if first.is_none() {
            let mut configured: Vec<String> = Vec::new();
            for m in models.iter().chain(session) {
                let key = m.key();
                if !configured.contains(&key) {
                    configured.push(key);
                }
            }
            return Err(Error::UnknownModel {
                model: name.owned(),
                configured,
            });
        }
    }
    let mut order: Vec<RunModel> = Vec::new();
    let candidates = first
        .into_iter()
        .chain(models)
        .chain(session.filter(|_| models.is_empty()));
    for m in candidates {
        if !order.iter().any(|o| o.key() == m.key()) {
            order.push(m.clone());
        }
    }
    if order.is_empty() {
        return Err(Error::invalid(
            "options.models",
            "give the delegate's model (models[0]) or the session's model",
        ));
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(provider: &str, id: &str) -> RunModel {
        RunModel {
            id: id.into(),
            provider: Some(provider.into()),
            context_window: Some(8192.0),
            max_tokens: Some(1024.0),
            ..RunModel::default()
        }
    }

    fn keys(models: &[RunModel]) -> Vec<String> {
        models.iter().map(RunModel::key).collect()
    }

    #[test]
    fn task_model_then_definition_then_session() {
        let models = [m("a", "small"), m("a", "tiny"), m("b", "big")];
        let session = m("s", "session");
        let r = |task: Option<&str>, models: &[RunModel], session: Option<&RunModel>| {
            resolve_models(task, models, session).map(|o| keys(&o))
        };
        assert_eq!(
            r(None, &models, Some(&session)).unwrap(),
            ["a/small", "a/tiny", "b/big"]
        );
        assert_eq!(
            r(Some("b/big"), &models, None).unwrap(),
            ["b/big", "a/small", "a/tiny"]
        );
        assert_eq!(
            r(Some(" tiny "), &models, None).unwrap(),
            ["a/tiny", "a/small", "b/big"]
        );
        assert_eq!(
            r(Some("s/session"), &models, Some(&session)).unwrap(),
            ["s/session", "a/small", "a/tiny", "b/big"]
        );
        assert_eq!(r(None, &[], Some(&session)).unwrap(), ["s/session"]);
        assert_eq!(
            r(Some(""), &models, None).unwrap(),
            ["a/small", "a/tiny", "b/big"]
        );
        // duplicates skipped
        let twice = [m("a", "small"), m("a", "small"), m("b", "big")];
        assert_eq!(r(None, &twice, None).unwrap(), ["a/small", "b/big"]);
        // nothing configured
        assert_eq!(r(None, &[], None).unwrap_err().code(), "INVALID_INPUT");
    }

    #[test]
    fn a_model_not_configured_is_refused_by_name() {
        let e = resolve_models(
            Some("no-such-model"),
            &[m("a", "small"), m("a", "small")],
            Some(&m("s", "x")),
        )
        .unwrap_err();
        assert_eq!(e.code(), "UNKNOWN_MODEL");
        assert_eq!(
            e.to_string(),
            "Model \"no-such-model\" is not configured for this delegate. Use one of: a/small, s/x, or omit model to run on the delegate's own model."
        );
    }

    #[test]
    fn a_choice_resolves_after_its_numbers_are_checked() {
        let choice = ModelChoice {
            model: Some("b/big".into()),
            models: vec![m("a", "small"), m("b", "big")],
            session_model: Some(m("s", "session")),
        };
        assert_eq!(keys(&choice.resolve().unwrap()), ["b/big", "a/small"]);
        let session_only = ModelChoice {
            session_model: Some(m("s", "session")),
            ..ModelChoice::default()
        };
        assert_eq!(keys(&session_only.resolve().unwrap()), ["s/session"]);
        let path = |c: &ModelChoice| match c.resolve() {
            Err(Error::InvalidInput { path, .. }) => path,
            other => panic!("{other:?}"),
        };
        let mut bad = choice.clone();
        bad.models[1].context_window = Some(-1.0);
        assert_eq!(path(&bad), "input.models[1].contextWindow");
        let mut bad = choice;
        if let Some(s) = bad.session_model.as_mut() {
            s.max_tokens = Some(f64::INFINITY);
        }
        assert_eq!(path(&bad), "input.sessionModel[0].maxTokens");
    }

    #[test]
    fn bad_numbers_are_named_by_path() {
        let mut bad = m("a", "x");
        bad.max_tokens = Some(f64::NAN);
        let e = validate_models(&[m("a", "ok"), bad], "options.models").unwrap_err();
        assert!(
            matches!(e, Error::InvalidInput { ref path, .. } if path == "options.models[1].maxTokens"),
            "{e:?}"
        );
        let blank = RunModel {
            id: " ".into(),
            ..RunModel::default()
        };
        assert!(
            matches!(validate_models(&[blank], "m").unwrap_err(), Error::InvalidInput { ref path, .. } if path == "m[0].id")
        );
    }
}
