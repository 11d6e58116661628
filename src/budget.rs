//! ADR 0299 clauses 1–2: one budget formula, derived from the model the delegate
//! actually runs on (host-contract §4, the parent's formula moved verbatim).
//!
//! Pure: a resolved model's window and output cap in, the budget out. No runtime state,
//! so the parent and every delegate compute the same numbers.

use serde::{Deserialize, Serialize};
use tsify::Tsify;

use crate::decode::decode_struct;

/// Window used when the model reports none (or 0).
pub const DEFAULT_CONTEXT_WINDOW: f64 = 128_000.0;
/// Output cap used when the model reports none (or 0).
pub const DEFAULT_MAX_TOKENS: f64 = 8_192.0;

/// The resolved model a budget is derived from. Extra fields (id, provider, ...) are ignored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct BudgetModel {
    /// The model's context window in tokens (missing or 0: 128,000).
    #[serde(default)]
    #[tsify(optional)]
    pub context_window: Option<f64>,
    /// The model's output cap in tokens (missing or 0: 8,192).
    #[serde(default)]
    #[tsify(optional)]
    pub max_tokens: Option<f64>,
    /// A per-definition `maxTokens` cap (ADR 0210); when set it is the output budget.
    #[serde(default)]
    #[tsify(optional)]
    pub definition_max_tokens: Option<f64>,
}

decode_struct!(BudgetModel "BudgetModel" {
    context_window: "contextWindow" => default,
    max_tokens: "maxTokens" => default,
    definition_max_tokens: "definitionMaxTokens" => default,
});

/// How many tokens a delegate may send, and the thresholds derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ContextBudget {
    /// The window the budget was derived from (after defaults and rounding).
    pub context_window: u64,
    /// The output budget reserved for the response (capped at a quarter of the window).
    pub max_output_tokens: u64,
    /// What is kept free for the response and request overhead.
    pub request_headroom: u64,
    /// `contextWindow − requestHeadroom`: a context at or above it must be compacted.
    pub hard_limit: u64,
    /// How many recent tokens a compaction keeps verbatim.
    pub keep_recent_tokens: u64,
    /// 90% of hardLimit: the optional earlier compaction trigger.
    pub compaction_trigger: u64,
    /// Tokens of recent user messages a compaction retains.
    pub retained_user_budget: u64,
}

decode_struct!(ContextBudget "ContextBudget" {
    context_window: "contextWindow" => req,
    max_output_tokens: "maxOutputTokens" => req,
    request_headroom: "requestHeadroom" => req,
    hard_limit: "hardLimit" => req,
    keep_recent_tokens: "keepRecentTokens" => req,
    compaction_trigger: "compactionTrigger" => req,
    retained_user_budget: "retainedUserBudget" => req,
});

/// JavaScript `x || default`, then `Math.round` (half up), for a count.
///
/// Not `floor(v + 0.5)`: in [2^52, 2^53) `v + 0.5` is not representable and rounds an
/// odd integer up by one (found by the `budget` fuzz target).
fn js_round_or(x: Option<f64>, default: f64) -> f64 {
    let v = match x {
        Some(v) if v != 0.0 && !v.is_nan() => v,
        _ => default,
    };
    let f = v.floor();
    if v - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// Reject numbers JavaScript could not have meant: negative or non-finite sizes.
pub fn validate_model(model: &BudgetModel) -> crate::Result<()> {
    for (name, v) in [
        ("contextWindow", model.context_window),
        ("maxTokens", model.max_tokens),
        ("definitionMaxTokens", model.definition_max_tokens),
    ] {
        if let Some(x) = v {
            if !x.is_finite() || x < 0.0 {
                return Err(crate::Error::invalid(
                    format!("model.{name}"),
                    format!(
                        "expected a finite number >= 0, got {}",
                        crate::js_text::js_number_to_string(x)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The budget of a resolved model (host-contract §4).
#[inline(never)]
pub fn context_budget(model: &BudgetModel) -> ContextBudget {
    let output_cap = match model.definition_max_tokens {
        Some(v) if v != 0.0 && !v.is_nan() => Some(v),
        _ => model.max_tokens,
    };
    let window = js_round_or(model.context_window, DEFAULT_CONTEXT_WINDOW).max(1.0);
    let out = js_round_or(output_cap, DEFAULT_MAX_TOKENS)
        .max(1.0)
        .min((window * 0.25).floor().max(1.0));
    let reserve_floor = 16384f64.min((window * 0.5).floor().max(1.0));
    let headroom = (window - 1.0).min(reserve_floor.max(out).max((window * 0.05).ceil()));
    let hard_limit = (window - headroom).max(1.0);
    let keep_recent = (8000f64.max(64000f64.min((hard_limit * 0.2).floor())))
        .min((hard_limit * 0.5).floor().max(1.0));
    let trigger = (hard_limit * 0.9).floor().max(1.0);
    let retained_user = 20000f64.min((hard_limit * 0.5).floor()).max(1.0);
    let u = |x: f64| {
        if x.is_finite() && x > 0.0 {
            x as u64
        } else {
            0
        }
    };
    ContextBudget {
        context_window: u(window),
        max_output_tokens: u(out),
        request_headroom: u(headroom),
        hard_limit: u(hard_limit),
        keep_recent_tokens: u(keep_recent),
        compaction_trigger: u(trigger),
        retained_user_budget: u(retained_user),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(window: Option<f64>, max: Option<f64>) -> ContextBudget {
        context_budget(&BudgetModel {
            context_window: window,
            max_tokens: max,
            definition_max_tokens: None,
        })
    }

    /// host-contract §4's table, row for row.
    #[test]
    fn host_contract_table() {
        type Row = (Option<f64>, Option<f64>, u64, u64, u64);
        let rows: &[Row] = &[
            (Some(256_000.0), Some(32_000.0), 224_000, 32_000, 44_800),
            (Some(32_000.0), Some(8_000.0), 16_000, 16_000, 8_000),
            (Some(64_000.0), Some(16_000.0), 47_616, 16_384, 9_523),
            (None, None, 111_616, 16_384, 22_323),
            (Some(4_096.0), Some(1_024.0), 2_048, 2_048, 1_024),
        ];
        for &(w, m, hard, head, keep) in rows {
            let got = b(w, m);
            assert_eq!(
                (got.hard_limit, got.request_headroom, got.keep_recent_tokens),
                (hard, head, keep),
                "{w:?}/{m:?}"
            );
            assert_eq!(got.context_window, got.hard_limit + got.request_headroom);
        }
    }

    /// `Math.round` itself, not `floor(x + 0.5)` (the `budget` fuzz target's
    /// `crash-js-round-2p52`): 2^52 + 1 stays 2^52 + 1, halves go up, negatives too.
    #[test]
    fn rounds_like_math_round() {
        let two52 = 4_503_599_627_370_496.0;
        for (x, want) in [
            (two52 + 1.0, two52 + 1.0),
            (two52 + 3.0, two52 + 3.0),
            (2.5, 3.0),
            (2.4999999999999996, 2.0),
            (0.49999999999999994, 0.0),
            (-2.5, -2.0),
            (-2.6, -3.0),
        ] {
            assert_eq!(js_round_or(Some(x), 1.0), want, "Math.round({x})");
        }
        assert_eq!(
            b(Some(two52 + 1.0), None).context_window,
            4_503_599_627_370_497
        );
    }

    #[test]
    fn zero_means_default_and_definition_cap_wins() {
        assert_eq!(b(Some(0.0), Some(0.0)), b(None, None));
        let capped = context_budget(&BudgetModel {
            context_window: Some(200_000.0),
            max_tokens: Some(64_000.0),
            definition_max_tokens: Some(4_000.0),
        });
        assert_eq!(capped.max_output_tokens, 4_000);
        let uncapped = b(Some(200_000.0), Some(64_000.0));
        assert_eq!(uncapped.max_output_tokens, 50_000); // a quarter of the window
        assert_eq!(uncapped.request_headroom, 50_000);
    }

    #[test]
    fn tiny_windows_stay_positive() {
        for w in [1.0, 2.0, 3.0, 10.0, 0.4, 1.5] {
            let got = b(Some(w), Some(1.0));
            assert!(
                got.hard_limit >= 1 && got.keep_recent_tokens >= 1 && got.compaction_trigger >= 1,
                "{w}: {got:?}"
            );
        }
    }
}
