//! A double's shortest decimal digits (host-contract §2: numbers printed as ECMAScript's
//! `Number::toString` prints them), without Rust's float formatter (issue 17 §7: `{}` of
//! an `f64` brought Grisu, Dragon and their exact-precision twins, about 20 KB, into the
//! module for these digits and a few messages).
//!
//! [`shortest_digits`]: the fewest significant digits that read back as `x` (correctly
//! rounded, as `f64::from_str` and `Number(text)` read), the closest of them, and when
//! `x` lies exactly halfway between two, the even one (ECMAScript: "if there are two such
//! possible values of n, choose the one that is even"; zmij, serde_json's formatter,
//! does the same). [`rust_display`]: the text of Rust's `{}` for an `f64`, for messages.

use super::nearest::POW10;
use crate::text_build::Append;
use crate::text_build::Owned;

/// The shortest digits of `x` (finite, not zero; the sign ignored) and the exponent of
/// the first: `x = d.ddd × 10^e`.
pub fn shortest_digits(x: f64) -> (String, i32) {
    let x = x.abs();
    few_decimals(x).unwrap_or_else(|| from_exact(x))
}

/// The digits of `x` when some integer `c` over `10^k` (`k <= 22`, `x × 10^k < 2^52`)
/// reads back as `x` (most doubles a program writes: `0.003`, `1.5`, `1733000000000`).
/// Both `c` and `10^k` are exact doubles and division rounds correctly, so `c / 10^k ==
/// x` is the read-back test. Below 2^52, `x`'s ulp times `10^k` is under twice the ulp of
/// `x × 10^k`, so under 1: `x`'s rounding interval scaled by `10^k` is narrower than 1
/// and holds at most one integer. So at the first `k` that has such a `c` it is the only
/// one (the closest), and no shorter candidate exists (it would have fewer decimals, a
/// smaller `k`). It lies within 0.75 of `x × 10^k` as computed (off by at most a quarter,
/// the candidate by under half), so `round(x × 10^k)` and its two neighbours find it.
/// None from `2^52` on: the exact path decides.
fn few_decimals(x: f64) -> Option<(String, i32)> {
    for (k, &p) in POW10.iter().enumerate() {
        let y = x * p;
        if y >= 4_503_599_627_370_496.0 {
            return None;
        }
        let r = y.round();
        for c in [r - 1.0, r, r + 1.0] {
            if c >= 1.0 && c / p == x {
                let digits = (c as u64).to_string();
                let e = digits.len() as i32 - 1 - k as i32;
                return Some((digits.trim_end_matches('0').owned(), e));
            }
        }
    }
    None
}

/// The shortest digits read from `x`'s exact decimal expansion: at precision `p`, the
/// two `p`-digit decimals around `x` (the expansion cut, and one unit above), the one
/// that reads back as `x`; when both do, the closer (the cut-off digits against `5000…`),
/// and the even one in a tie. Any `p`-digit decimal that reads back has one of the two
/// between it and `x`, and they read back too; a `p`-digit one that reads back is a
/// `p + 1`-digit one, so the smallest `p` is found by halving (17 digits always read
/// back; the whole expansion does too).
fn from_exact(x: f64) -> (String, i32) {
    let (exact, fraction_digits) = exact_decimal(x);
    let exact = exact.as_bytes();
    let e = exact.len() as i32 - 1 - fraction_digits;
    let reads_back =
        |digits: &[u8], p: usize| super::nearest::rounds_to(digits, i64::from(e) - p as i64 + 1, x);
    // (whether the cut or the one above reads back, the one above when it does)
    let at = |p: usize| {
        let up = increment(&exact[..p]);
        (reads_back(&exact[..p], p), reads_back(&up, p), up)
    };
    let (mut lo, mut hi) = (1, exact.len().min(17));
    while lo < hi {
        let mid = (lo + hi) / 2;
        match at(mid) {
            (false, false, _) => lo = mid + 1,
            _ => hi = mid,
        }
    }
    let p = lo;
    let (cut, rest) = exact.split_at(p);
    let take_up = match at(p) {
        (true, false, _) => false,
        (false, true, _) => true,
        _ => {
            let half = rest.first() == Some(&b'5') && rest[1..].iter().all(|&b| b == b'0');
            if half {
                cut[p - 1] % 2 == 1 // the even one (b'0' is even)
            } else {
                rest.first().is_some_and(|&b| b >= b'5')
            }
        }
    };
    let (digits, first_e) = match increment(cut) {
        up if take_up && up.len() > p => (up, e + 1),
        up if take_up => (up, e),
        _ => (cut.to_vec(), e),
    };
    // ASCII digits, without the trailing zeros
    let kept = digits
        .iter()
        .rposition(|&d| d != b'0')
        .map_or(0, |last| last + 1);
    (
        digits.iter().take(kept).map(|&d| char::from(d)).collect(),
        first_e,
    )
}

/// `digits` plus one unit of the last (`99` → `100`).
fn increment(digits: &[u8]) -> Vec<u8> {
    let mut out = digits.to_vec();
    for d in out.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return out;
        }
    }
    out.insert(0, b'1');
    out
}

/// `x` (finite, positive) written out exactly: its decimal digits (no leading zero) and
/// how many of them follow the decimal point. `x = m × 2^q` is the integer `m × 2^q`
/// when `q >= 0`, else `m × 5^-q` with `-q` decimals.
fn exact_decimal(x: f64) -> (String, i32) {
    let (m, q) = super::nearest::significand(x);
    // base 10^9, least significant first
    const BASE: u64 = 1_000_000_000;
    let mut limbs = vec![
        (m % BASE) as u32,
        (m / BASE % BASE) as u32,
        (m / BASE / BASE) as u32,
    ];
    let (factor, step, mut n) = if q >= 0 { (2u64, 29, q) } else { (5, 13, -q) };
    while n > 0 {
        let s = n.min(step);
        n -= s;
        let f = factor.pow(s as u32);
        let mut carry = 0u64;
        for limb in limbs.iter_mut() {
            let v = u64::from(*limb) * f + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        while carry > 0 {
            limbs.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut text = String::new();
    for (i, limb) in limbs.iter().rev().enumerate() {
        let digits = limb.to_string();
        if i > 0 {
            text.extend(std::iter::repeat_n('0', 9 - digits.len()));
        }
        text.append(&digits);
    }
    (text, q.min(0).abs())
}

/// Rust's `{}` of an `f64`: `NaN`, `inf`, `-inf`, `-0`, and otherwise the shortest digits
/// without an exponent (`1`, `-2.5`, `0.0000001`, `1000000000000000000000`).
pub fn rust_display(x: f64) -> String {
    if x.is_nan() {
        return "NaN".owned();
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.append_char('-');
    }
    if x.is_infinite() {
        out.append("inf");
        return out;
    }
    if x == 0.0 {
        out.append_char('0');
        return out;
    }
    let (digits, e) = shortest_digits(x);
    super::push_plain(&mut out, &digits, e, "");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rust's own `{}` (Grisu with Dragon's fallback, the formatter this module replaces)
    /// on random doubles, short decimals, integers, subnormals and the extremes; its
    /// digits are the shortest and closest, as these are (ties aside: it takes the upper
    /// candidate, `js_text`'s tests hold Node's even one).
    #[test]
    fn as_rust_displays_them() {
        let check = |x: f64| {
            let (ours, rust) = (rust_display(x), format!("{x}"));
            if ours != rust && x.is_finite() {
                // a tie: Rust takes the upper candidate, we the even one, as long
                let (d, r) = (digits_of(&ours), digits_of(&rust));
                assert_eq!(d.len(), r.len(), "{x:e}");
                assert_eq!(ours.parse::<f64>(), Ok(x), "{x:e}");
                assert!(d.ends_with(['0', '2', '4', '6', '8']), "{x:e}: {ours}");
                assert!(r.ends_with(['1', '3', '5', '7', '9']), "{x:e}: {rust}");
            } else {
                assert_eq!(ours, rust, "{x:e}");
            }
        };
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            0.1,
            0.3,
            0.1 + 0.2,
            1e21,
            1e22,
            1e23,
            1e-7,
            5e-324,
            2.2250738585072014e-308,
            f64::MAX,
            f64::MIN_POSITIVE,
            9007199254740993.0,
            4503599627370497.5,
            123456789012345680.0,
            0.003,
            1733000000000.0,
        ] {
            check(x);
        }
        check(f64::NAN);
        check(f64::INFINITY);
        check(f64::NEG_INFINITY);
        let mut s: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            check(f64::from_bits(s));
            check((s % 100_000_000) as f64 / 10f64.powi((s >> 40) as i32 % 20));
            check((s >> 11) as f64);
            check(f64::from_bits(s >> 12)); // subnormals and small doubles
        }
    }

    /// The short path answers for the doubles programs write, and as the exact one does.
    #[test]
    fn few_decimals_agrees_with_the_exact_expansion() {
        for (x, digits, e) in [
            (0.003, "3", -3),
            (1.5, "15", 0),
            (1733000000000.0, "1733", 12),
            (0.1, "1", -1),
            (123.456, "123456", 2),
            (1e-7, "1", -7),
            (4503599627370495.0, "4503599627370495", 15),
        ] {
            assert_eq!(few_decimals(x), Some((digits.to_string(), e)), "{x:e}");
        }
        assert_eq!(few_decimals(0.1 + 0.2), None); // 17 digits: the exact path
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut answered = 0;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            for x in [
                (s % 100_000_000) as f64 / 10f64.powi((s >> 40) as i32 % 20),
                f64::from_bits(s) % 1e6,
            ] {
                if x > 0.0 {
                    if let Some(short) = few_decimals(x) {
                        answered += 1;
                        assert_eq!(short, from_exact(x), "{x:e}");
                    }
                }
            }
        }
        assert!(answered > 90_000, "{answered}");
    }

    /// The significant digits of a plain decimal text.
    fn digits_of(text: &str) -> String {
        let all: String = text.chars().filter(char::is_ascii_digit).collect();
        all.trim_start_matches('0')
            .trim_end_matches('0')
            .to_string()
    }
}
