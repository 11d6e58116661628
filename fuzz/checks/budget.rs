//! Target `budget`: any model numbers → `context_budget` never panics, equals host-contract
//! §4's formula computed independently (JavaScript `||`, `Math.round`, `Math.floor`,
//! `Math.ceil` on doubles), and satisfies its invariants.

use arbitrary::{Arbitrary, Result, Unstructured};
use delegate_context::budget::{context_budget, validate_model, BudgetModel, ContextBudget};

use super::js::JsNum;

/// A model number: absent, an odd or ordinary one, or any bit pattern.
#[derive(Clone, Copy, Debug)]
struct N(Option<f64>);

impl<'a> Arbitrary<'a> for N {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(N(match u.int_in_range(0..=5u8)? {
            0 => None,
            1 => Some(JsNum::arbitrary(u)?.0),
            2 => Some(u.int_in_range(0..=2_000_000u32)? as f64),
            3 => Some(
                u.int_in_range(0..=64u32)? as f64
                    + *u.choose(&[0.0, 0.5, 0.49999999999999994, -0.5, 0.25])?,
            ),
            4 => Some(*u.choose(&[
                4503599627370497.0, // 2^52 + 1
                9007199254740991.0, // 2^53 - 1
                9007199254740992.0,
                4096.0,
                8192.0,
                16384.0,
                32768.0,
                128000.0,
                1.0,
                2.0,
                3.0,
                f64::MIN_POSITIVE,
            ])?),
            _ => Some(f64::from_bits(u64::arbitrary(u)?)),
        }))
    }
}

#[derive(Arbitrary, Clone, Copy, Debug)]
struct Input {
    window: N,
    max_tokens: N,
    definition_max_tokens: N,
}

pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    if let Ok(input) = Input::arbitrary(&mut u) {
        super::debug(&input);
        check_model(&BudgetModel {
            context_window: input.window.0,
            max_tokens: input.max_tokens.0,
            definition_max_tokens: input.definition_max_tokens.0,
        });
    }
}

/// JavaScript's `Math.round`: the nearest integer, ties toward +∞ (not `floor(x + 0.5)`,
/// which is wrong for 0.49999999999999994 and for odd integers from 2^52 on).
fn js_round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let f = x.floor();
    if x - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// `x || default` (0, NaN, undefined are falsy).
fn or(x: Option<f64>, default: f64) -> f64 {
    match x {
        Some(v) if v != 0.0 && !v.is_nan() => v,
        _ => default,
    }
}

/// host-contract §4, line by line, in doubles.
fn reference(m: &BudgetModel) -> [f64; 7] {
    let cap = match m.definition_max_tokens {
        Some(v) if v != 0.0 && !v.is_nan() => Some(v),
        _ => m.max_tokens,
    };
    let window = 1f64.max(js_round(or(m.context_window, 128_000.0)));
    let out = 1f64
        .max(js_round(or(cap, 8192.0)))
        .min(1f64.max((window * 0.25).floor()));
    let floor = 16384f64.min(1f64.max((window * 0.5).floor()));
    let headroom = (window - 1.0).min(floor.max(out).max((window * 0.05).ceil()));
    let hard = 1f64.max(window - headroom);
    let keep = 8000f64
        .max(64000f64.min((hard * 0.2).floor()))
        .min(1f64.max((hard * 0.5).floor()));
    let trigger = 1f64.max((hard * 0.9).floor());
    let retained = 1f64.max(20000f64.min((hard * 0.5).floor()));
    [window, out, headroom, hard, keep, trigger, retained]
}

fn fields(b: &ContextBudget) -> [u64; 7] {
    [
        b.context_window,
        b.max_output_tokens,
        b.request_headroom,
        b.hard_limit,
        b.keep_recent_tokens,
        b.compaction_trigger,
        b.retained_user_budget,
    ]
}

const NAMES: [&str; 7] = [
    "contextWindow",
    "maxOutputTokens",
    "requestHeadroom",
    "hardLimit",
    "keepRecentTokens",
    "compactionTrigger",
    "retainedUserBudget",
];

/// 2^53: above it a double no longer holds every integer (and a number of the result
/// cannot reach JavaScript exactly).
const SAFE: f64 = 9007199254740992.0;

fn check_model(m: &BudgetModel) {
    let valid = validate_model(m).is_ok();
    let b = context_budget(m);
    let got = fields(&b);
    let want = reference(m);
    if valid && want[0] < SAFE {
        for k in 0..7 {
            // the library's conversion: finite and positive, else 0 (never reached: all >= 1)
            assert_eq!(
                got[k] as f64, want[k],
                "{}: library {} vs formula {} for {m:?}",
                NAMES[k], got[k], want[k]
            );
        }
        let [window, out, headroom, hard, keep, trigger, retained] = got;
        assert_eq!(
            headroom as u128 + hard as u128,
            window as u128,
            "headroom + hardLimit == window"
        );
        assert!(hard >= 1 && keep >= 1 && trigger >= 1 && retained >= 1 && out >= 1);
        assert!(keep <= hard, "keepRecent <= hardLimit");
        assert!(trigger <= hard, "compactionTrigger <= hardLimit");
        assert!(retained <= hard.max(1), "retainedUserBudget <= hardLimit");
        assert!(out <= window, "maxOutputTokens <= window");
        if window >= 2 {
            assert!(headroom < window && headroom >= 1);
            assert!(
                headroom >= out.min(window - 1),
                "the output budget fits the headroom"
            );
        }
    }
    // every number but the headroom (0 for a 1-token window) is positive; input the binding
    // rejects (negative, NaN, infinite) only must not panic
    if valid {
        assert!(
            got.iter().enumerate().all(|(k, &x)| x >= 1 || k == 2),
            "{got:?} for {m:?}"
        );
    }
}
