//! ADR 0279 clause 4 (the model a resumed run continues on), as a pure function.
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

use crate::error::{Error, Result};

/// Input of [`resolve_resume_binding`].
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
pub fn split_key(key: &str) -> Option<(&str, &str)> {
    let (p, m) = key.trim().split_once('/')?;
    (!p.trim().is_empty() && !m.trim().is_empty()).then_some((p.trim(), m.trim()))
}

fn resolved(key: &str, source: BindingSource, changed: Option<String>) -> Result<ResolvedBinding> {
    let (p, m) = split_key(key)
        .ok_or_else(|| Error::invalid("candidates", format!("bad binding key {key:?}")))?;
    Ok(ResolvedBinding {
        key: format!("{p}/{m}"),
        provider_id: p.into(),
        model_id: m.into(),
        source,
        model_changed_from: changed,
    })
}

/// Clause 4: the binding a resumed run continues on (see the module docs).
///
/// Errors: `INVALID_INPUT` (path `candidates.definitionBinding` / `candidates.allowed[i]`)
/// for a key that is not `providerId/modelId`.
pub fn resolve_resume_binding(c: &BindingCandidates) -> Result<ResolvedBinding> {
    if split_key(&c.definition_binding).is_none() {
        return Err(Error::invalid(
            "candidates.definitionBinding",
            format!(
                "expected providerId/modelId, got {:?}",
                c.definition_binding
            ),
        ));
    }
    for (i, k) in c.allowed.iter().enumerate() {
        if split_key(k).is_none() {
            return Err(Error::invalid(
                format!("candidates.allowed[{i}]"),
                format!("expected providerId/modelId, got {k:?}"),
            ));
        }
    }
    let norm = |k: &str| split_key(k).map(|(p, m)| format!("{p}/{m}"));
    let recorded_key = c.recorded_key.as_deref().and_then(norm);
    let recorded_id = c
        .recorded_model_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| {
            recorded_key
                .as_deref()
                .and_then(split_key)
                .map(|(_, m)| m.to_string())
        });
    if let Some(key) = &recorded_key {
        if c.allowed.iter().any(|k| norm(k).as_deref() == Some(key)) {
            return resolved(key, BindingSource::RecordedKey, None);
        }
    } else if let Some(id) = &recorded_id {
        if let Some(k) = c
            .allowed
            .iter()
            .find(|k| split_key(k).is_some_and(|(_, m)| m == id))
        {
            return resolved(k, BindingSource::ModelId, None);
        }
    }
    let def = resolved(&c.definition_binding, BindingSource::Definition, None)?;
    let changed = match (&recorded_key, &recorded_id) {
        (Some(k), id) if *k != def.key => id.clone(),
        (None, Some(id)) if *id != def.model_id => Some(id.clone()),
        _ => None,
    };
    Ok(ResolvedBinding {
        model_changed_from: changed,
        ..def
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
    }
}
