//! ADR 0279 clause 4 (the model a resumed run continues on): every rule of the model
//! binding lives here, as pure functions.
//!
//! [`resolve_resume_binding`] chooses among candidates the host lists; [`bind_resumed_run`]
//! is what the registry applies on a resume (the host's candidates, else a binding the
//! host resolved itself, else the chain's own).
//!
//! Keys are `providerId/modelId` (split at the first `/`: a model id may contain `/`).
//! In order:
//! 1. the key the chain recorded, when it is among the `allowed` candidates (the host
//!    lists the definition's pin and fallbacks, the session binding and the currently
//!    authorized overrides, after reauthorizing an expired grant; never another
//!    definition's private pin). A recorded key that is not allowed was denied: it does
//!    not go on to select another account by model id;
//! 2. a chain with no key (rebuilt from the transcript) is matched by model id: the first
//!    allowed key with that model id (two accounts offering the same id are
//!    indistinguishable here, so the host's candidate order decides);
//! 3. otherwise the binding the definition resolves to now, with `modelChangedFrom` set to
//!    the recorded model id when the run does not continue on the recorded binding.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use super::text::non_blank;
use crate::decode::decode_struct;
use crate::error::{Error, Result};
use crate::js_text::json_quote;
use crate::js_whitespace;
use crate::text_build::Owned;

/// The model binding a run used: the `providerId/modelId` key and/or the model id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ModelBinding {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_id: Option<String>,
}

decode_struct!(ModelBinding "ModelBinding" {
    key: "key" => default,
    model_id: "modelId" => default,
});

impl ModelBinding {
    /// The model id: `modelId`, else the model part of `key`.
    #[inline(never)]
    pub fn effective_model_id(&self) -> Option<String> {
        self.model_id.clone().or_else(|| {
            self.key
                .as_deref()
                .and_then(split_key)
                .map(|(_, model)| model.owned())
        })
    }

    /// How a diagnostic names the binding: the key, else the model id.
    pub fn label(&self) -> String {
        self.key
            .clone()
            .or_else(|| self.model_id.clone())
            .unwrap_or_default()
    }
}

/// What the host resolves a resumed run's model among (clause 4).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResumeCandidates {
    /// Keys the run may use now, in the host's priority order.
    #[serde(default)]
    pub allowed: Vec<String>,
    /// The key the agent definition resolves to now.
    pub definition_binding: String,
}

decode_struct!(ResumeCandidates "ResumeCandidates" {
    allowed: "allowed" => default,
    definition_binding: "definitionBinding" => req,
});

/// Input of `resolveResumeBinding`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct BindingCandidates {
    /// The `providerId/modelId` key the chain recorded (live chains).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub recorded_key: Option<String>,
    /// The model id the chain recorded (all chains; the only record after a rebuild).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub recorded_model_id: Option<String>,
    /// Keys the run may use now, in the host's priority order.
    #[serde(default)]
    pub allowed: Vec<String>,
    /// The key the agent definition resolves to now.
    pub definition_binding: String,
}

decode_struct!(BindingCandidates "BindingCandidates" {
    recorded_key: "recordedKey" => default,
    recorded_model_id: "recordedModelId" => default,
    allowed: "allowed" => default,
    definition_binding: "definitionBinding" => req,
});

/// Which rule chose the binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum BindingSource {
    RecordedKey,
    ModelId,
    Definition,
}

/// The binding a resumed run uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedBinding {
    /// `providerId/modelId`.
    pub key: String,
    pub provider_id: String,
    pub model_id: String,
    pub source: BindingSource,
    /// The recorded model id, when the run does not continue on the recorded binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub model_changed_from: Option<String>,
}

/// Split a `providerId/modelId` key; `None` unless both parts are non-blank.
#[inline(never)]
pub fn split_key(key: &str) -> Option<(&str, &str)> {
    let (provider, model) = crate::text_at::split_once_byte(js_whitespace::trim(key), b'/')?;
    let (provider, model) = (js_whitespace::trim(provider), js_whitespace::trim(model));
    (!provider.is_empty() && !model.is_empty()).then_some((provider, model))
}

fn resolved(key: &str, source: BindingSource) -> Result<ResolvedBinding> {
    let (provider, model) = split_key(key).ok_or_else(|| {
        Error::invalid("candidates", format!("bad binding key {}", json_quote(key)))
    })?;
    Ok(ResolvedBinding {
        key: format!("{provider}/{model}"),
        provider_id: provider.into(),
        model_id: model.into(),
        source,
        model_changed_from: None,
    })
}

/// Clause 4: the binding a resumed run continues on (see the module docs).
///
/// Errors: `INVALID_INPUT` (path `candidates.definitionBinding` / `candidates.allowed[i]`)
/// for a key that is not `providerId/modelId`.
pub fn resolve_resume_binding(candidates: &BindingCandidates) -> Result<ResolvedBinding> {
    if split_key(&candidates.definition_binding).is_none() {
        return Err(Error::invalid(
            "candidates.definitionBinding",
            format!(
                "expected providerId/modelId, got {}",
                json_quote(&candidates.definition_binding)
            ),
        ));
    }
    for (i, key) in candidates.allowed.iter().enumerate() {
        if split_key(key).is_none() {
            return Err(Error::invalid(
                format!("candidates.allowed[{i}]"),
                format!("expected providerId/modelId, got {}", json_quote(key)),
            ));
        }
    }
    let canonical =
        |key: &str| split_key(key).map(|(provider, model)| format!("{provider}/{model}"));
    let recorded_key = candidates.recorded_key.as_deref().and_then(canonical);
    let recorded_id = non_blank(candidates.recorded_model_id.as_deref()).or_else(|| {
        recorded_key
            .as_deref()
            .and_then(split_key)
            .map(|(_, model)| model.owned())
    });
    if let Some(key) = &recorded_key {
        if candidates
            .allowed
            .iter()
            .any(|allowed| canonical(allowed).as_deref() == Some(key))
        {
            return resolved(key, BindingSource::RecordedKey);
        }
    } else if let Some(model_id) = &recorded_id {
        if let Some(allowed) = candidates
            .allowed
            .iter()
            .find(|allowed| split_key(allowed).is_some_and(|(_, model)| model == model_id))
        {
            return resolved(allowed, BindingSource::ModelId);
        }
    }
    let definition = resolved(&candidates.definition_binding, BindingSource::Definition)?;
    let changed = match (&recorded_key, &recorded_id) {
        (Some(key), model_id) if *key != definition.key => model_id.clone(),
        (None, Some(model_id)) if *model_id != definition.model_id => Some(model_id.clone()),
        _ => None,
    };
    Ok(ResolvedBinding {
        model_changed_from: changed,
        ..definition
    })
}

/// The binding a resumed run uses, and the model id it could not keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResumedRunBinding {
    pub binding: ModelBinding,
    /// The chain's previous model id, when the run does not continue on it.
    pub model_changed_from: Option<String>,
}

/// Clause 4 as the registry applies it on a resume of a chain that recorded `recorded`:
/// - with `candidates`: [`resolve_resume_binding`];
/// - else with a binding the host resolved itself (`host_binding`): that one, with
///   `modelChangedFrom` when its model id differs from the recorded one;
/// - else the chain's own binding.
///
/// Errors: `INVALID_INPUT` for malformed candidate keys.
pub fn bind_resumed_run(
    recorded: &ModelBinding,
    candidates: Option<&ResumeCandidates>,
    host_binding: Option<&ModelBinding>,
) -> Result<ResumedRunBinding> {
    if let Some(candidates) = candidates {
        let resolved = resolve_resume_binding(&BindingCandidates {
            recorded_key: recorded.key.clone(),
            recorded_model_id: recorded.model_id.clone(),
            allowed: candidates.allowed.clone(),
            definition_binding: candidates.definition_binding.clone(),
        })?;
        return Ok(ResumedRunBinding {
            binding: ModelBinding {
                key: Some(resolved.key),
                model_id: Some(resolved.model_id),
            },
            model_changed_from: resolved.model_changed_from,
        });
    }
    if let Some(host_binding) = host_binding {
        let changed = match (
            recorded.effective_model_id(),
            host_binding.effective_model_id(),
        ) {
            (Some(old), Some(new)) if old != new => Some(old),
            _ => None,
        };
        return Ok(ResumedRunBinding {
            binding: host_binding.clone(),
            model_changed_from: changed,
        });
    }
    Ok(ResumedRunBinding {
        binding: recorded.clone(),
        model_changed_from: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(key: Option<&str>, id: Option<&str>, allowed: &[&str], def: &str) -> BindingCandidates {
        BindingCandidates {
            recorded_key: key.map(Into::into),
            recorded_model_id: id.map(Into::into),
            allowed: allowed.iter().map(|s| s.to_string()).collect(),
            definition_binding: def.into(),
        }
    }

    #[test]
    fn recorded_key_first() {
        let r = resolve_resume_binding(&c(
            Some("acct2/gpt-5"),
            Some("gpt-5"),
            &["acct1/gpt-5", "acct2/gpt-5"],
            "acct1/o3",
        ))
        .unwrap();
        assert_eq!(
            (r.key.as_str(), r.source),
            ("acct2/gpt-5", BindingSource::RecordedKey)
        );
        assert_eq!(r.model_changed_from, None);
    }

    #[test]
    fn denied_key_never_selects_by_model_id() {
        let r = resolve_resume_binding(&c(Some("acct2/gpt-5"), None, &["acct1/gpt-5"], "acct1/o3"))
            .unwrap();
        assert_eq!(
            (r.key.as_str(), r.source),
            ("acct1/o3", BindingSource::Definition)
        );
        assert_eq!(r.model_changed_from.as_deref(), Some("gpt-5"));
    }

    #[test]
    fn rebuilt_chain_matches_by_model_id() {
        let r = resolve_resume_binding(&c(
            None,
            Some("or/claude"),
            &["a/gpt", "openrouter/or/claude", "b/or/claude"],
            "a/gpt",
        ))
        .unwrap();
        assert_eq!(r.key, "openrouter/or/claude");
        assert_eq!(r.model_id, "or/claude");
        assert_eq!(r.source, BindingSource::ModelId);
        let r = resolve_resume_binding(&c(None, Some("gone"), &["a/gpt"], "a/gpt")).unwrap();
        assert_eq!(r.model_changed_from.as_deref(), Some("gone"));
        let r = resolve_resume_binding(&c(None, None, &[], "a/gpt")).unwrap();
        assert_eq!(
            (r.source, r.model_changed_from),
            (BindingSource::Definition, None)
        );
    }

    #[test]
    fn malformed_keys() {
        let e = resolve_resume_binding(&c(None, None, &[], "nokey")).unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT");
        let e = resolve_resume_binding(&c(None, None, &["a/b", "/x"], "a/b")).unwrap_err();
        assert!(e.to_string().contains("candidates.allowed[1]"), "{e}");
        // the key quoted as JSON.stringify quotes it
        let e = resolve_resume_binding(&c(None, None, &[], "no\tkey\"")).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("expected providerId/modelId, got \"no\\tkey\\\"\""),
            "{e}"
        );
    }
}
