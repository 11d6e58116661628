//! ADR 0299 clauses 1–2 as tables (issue 20: boundaries no test noticed when a mutant
//! changed them). Clause 2: "A per-definition maxTokens cap (ADR 0210) participates as
//! the output budget it already is"; host-contract §4: "a per-definition `maxTokens` cap,
//! when set, is the output budget. Defaults when missing or 0: window 128,000, maxTokens
//! 8,192", with JavaScript's `||` (so NaN, which is falsy, is missing too). A model's
//! numbers are checked first: a negative or non-finite size is `INVALID_INPUT` with the
//! path of the bad field; 0 is allowed (it means the default).
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::budget::{context_budget, validate_model, BudgetModel};
use delegate_context::Error;

fn model(window: Option<f64>, max: Option<f64>, definition: Option<f64>) -> BudgetModel {
    BudgetModel {
        context_window: window,
        max_tokens: max,
        definition_max_tokens: definition,
    }
}

/// Each field on its own: which values are a size JavaScript could have meant.
#[test]
fn a_model_size_is_a_finite_number_at_or_above_zero() {
    let ok = [0.0, -0.0, 0.4, 1.0, 8_192.0, 1e15];
    let bad = [
        -1.0,
        -0.5,
        -1e-9,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    type Field = (&'static str, fn(f64) -> BudgetModel);
    let fields: [Field; 3] = [
        ("contextWindow", |x| model(Some(x), None, None)),
        ("maxTokens", |x| model(None, Some(x), None)),
        ("definitionMaxTokens", |x| model(None, None, Some(x))),
    ];
    for (name, with) in fields {
        for x in ok {
            assert_eq!(validate_model(&with(x)), Ok(()), "{name} = {x}");
        }
        for x in bad {
            match validate_model(&with(x)) {
                Err(Error::InvalidInput { path, .. }) => {
                    assert_eq!(path, format!("model.{name}"), "{name} = {x}")
                }
                other => panic!("{name} = {x}: expected INVALID_INPUT, got {other:?}"),
            }
        }
    }
    assert_eq!(
        validate_model(&model(None, None, None)),
        Ok(()),
        "every field missing"
    );
}

/// The definition's cap is the output budget when set; 0 and NaN are JavaScript-falsy, so
/// the model's own maxTokens applies (then its default, 8,192). Expected values:
/// host-contract §4's formula, `out = min(max(1, round(cap)), max(1, floor(window/4)))`.
#[test]
fn the_definition_cap_is_the_output_budget_when_set() {
    // (window, model maxTokens, definition cap, output budget)
    let rows: &[(f64, Option<f64>, Option<f64>, u64)] = &[
        (200_000.0, Some(64_000.0), Some(4_000.0), 4_000),
        (200_000.0, Some(64_000.0), None, 50_000), // a quarter of the window
        (200_000.0, Some(64_000.0), Some(0.0), 50_000), // 0: not set
        (200_000.0, Some(64_000.0), Some(f64::NAN), 50_000), // NaN: not set
        (200_000.0, Some(6_000.0), Some(0.0), 6_000),
        (200_000.0, None, Some(0.0), 8_192), // then the default
        (200_000.0, Some(0.0), Some(f64::NAN), 8_192),
        (200_000.0, Some(6_000.0), Some(90_000.0), 50_000), // still at most a quarter
        (200_000.0, Some(6_000.0), Some(2.5), 3),           // Math.round, half up
    ];
    for &(w, max, def, out) in rows {
        let b = context_budget(&model(Some(w), max, def));
        assert_eq!(b.max_output_tokens, out, "{w}/{max:?}/{def:?}");
        // the headroom reserves at least the output budget (host-contract §4)
        assert!(b.request_headroom >= out, "{b:?}");
    }
}

/// A window that is missing, 0 or NaN is 128,000 (host-contract §4's "defaults" row:
/// hardLimit 111,616, headroom 16,384, keepRecent 22,323).
#[test]
fn a_missing_window_is_the_default_window() {
    for w in [None, Some(0.0), Some(f64::NAN)] {
        let b = context_budget(&model(w, None, None));
        assert_eq!(
            (
                b.context_window,
                b.hard_limit,
                b.request_headroom,
                b.keep_recent_tokens
            ),
            (128_000, 111_616, 16_384, 22_323),
            "{w:?}"
        );
        // compactionTrigger = floor(hardLimit * 0.9), retainedUserBudget = min(20000, hardLimit / 2)
        assert_eq!(
            (b.compaction_trigger, b.retained_user_budget),
            (100_454, 20_000)
        );
    }
}

/// host-contract §4's formula at windows where each clamp decides (the expected values are
/// the formula evaluated by hand, as the host computes it in JavaScript).
#[test]
fn each_clamp_of_the_formula() {
    // (window, maxTokens) -> (out, headroom, hardLimit, keepRecent, trigger, retainedUser)
    type Row = (f64, f64, [u64; 6]);
    let rows: &[Row] = &[
        // reserve floor 16,384 wins over out and 5%
        (
            64_000.0,
            16_000.0,
            [16_000, 16_384, 47_616, 9_523, 42_854, 20_000],
        ),
        // 5% of the window wins: ceil(1,000,000 * 0.05) = 50,000 > 16,384 and > out
        (
            1_000_000.0,
            32_000.0,
            [32_000, 50_000, 950_000, 64_000, 855_000, 20_000],
        ),
        // out wins: a quarter of 400,000 is 100,000 > 20,000 (5%) and > 16,384
        (
            400_000.0,
            128_000.0,
            [100_000, 100_000, 300_000, 60_000, 270_000, 20_000],
        ),
        // half the window is the floor below 32,768; keepRecent at most half of hardLimit
        (
            10_000.0,
            1_000.0,
            [1_000, 5_000, 5_000, 2_500, 4_500, 2_500],
        ),
        // window − 1 caps the headroom: a 1-token window still has a 1-token hardLimit
        (1.0, 1.0, [1, 0, 1, 1, 1, 1]),
        (3.0, 1.0, [1, 1, 2, 1, 1, 1]),
    ];
    for &(w, m, want) in rows {
        let b = context_budget(&model(Some(w), Some(m), None));
        let got = [
            b.max_output_tokens,
            b.request_headroom,
            b.hard_limit,
            b.keep_recent_tokens,
            b.compaction_trigger,
            b.retained_user_budget,
        ];
        assert_eq!(got, want, "{w}/{m}");
    }
}
