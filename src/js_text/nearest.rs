//! The double nearest a decimal (host-contract §2: every number is a JavaScript double;
//! `Number(text)`, `JSON.parse` and Rust's `f64::from_str` all round a decimal to the
//! nearest double, and a decimal halfway between two to the one whose last bit is 0),
//! without `f64::from_str` (issue 17 §7: its Eisel–Lemire table of 128-bit powers of
//! five is 17 KB of data that gzip cannot shrink).
//!
//! [`parse_decimal`] reads a text and rounds it. Two paths:
//! - **Clinger's**: at most 15 significant digits and a power of ten within `10^±22`:
//!   the digits and the power are exact doubles, and one IEEE multiply or divide rounds
//!   their product correctly (`1.5`, `0.003`, `1733000000000`, most of what hosts write);
//! - **exact**: a guess from the first 19 digits, scaled by powers of ten in doubles
//!   (within a few units in the last place of the answer), then corrected by comparing
//!   the decimal with the two midpoints around the guess exactly, in big integers: the
//!   decimal's digits times a power of five against the midpoint's odd mantissa times a
//!   power of five, each shifted to a common power of two. A decimal above the upper
//!   midpoint moves the guess up a unit, below the lower one down; on a midpoint, the
//!   even one wins. Only a decimal of more than 15 significant digits (`0.1 + 0.2`'s
//!   `0.30000000000000004`) or a far exponent takes it.
//!
//! Digits past the 800th are replaced by one `1` when any of them is not zero: a
//! midpoint between two doubles has at most 767 significant digits, so no midpoint lies
//! between the decimal and the one read, and both round alike (`f64::from_str` keeps
//! 768 digits for the same reason); a text of a million digits costs a scan.

use std::cmp::Ordering;

/// `10^k` for `k` in `0..=22`: the powers a double holds exactly.
pub(super) const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The significant digits kept (see the module's note); one more is the sticky `1`.
const MAX_DIGITS: usize = 800;

/// The double a decimal text denotes, rounded to nearest, ties to even: `[-]digits[.digits]`
/// or `[-].digits`, then an optional `e`/`E`, sign and digits. Too large a value is an
/// infinity, too small a zero of the text's sign. `None` for any other text.
pub fn parse_decimal(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let negative = b.first() == Some(&b'-');
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int = digits_at(b, &mut i);
    let frac = match b.get(i) {
        Some(b'.') => {
            i += 1;
            digits_at(b, &mut i)
        }
        _ => &[],
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut exp: i64 = 0;
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let minus = b.get(i) == Some(&b'-');
        i += usize::from(matches!(b.get(i), Some(b'-' | b'+')));
        let digits = digits_at(b, &mut i);
        if digits.is_empty() {
            return None;
        }
        for &c in digits {
            // beyond a billion the answer is already 0 or infinity
            exp = (exp * 10 + i64::from(c - b'0')).min(1_000_000_000);
        }
        if minus {
            exp = -exp;
        }
    }
    if i != b.len() {
        return None;
    }
    let x = head_value(int, frac, exp).unwrap_or_else(|| {
        let mut digits = Digits::default();
        int.iter().for_each(|&c| digits.push(c, true));
        frac.iter().for_each(|&c| digits.push(c, false));
        digits.value(exp)
    });
    Some(if negative { -x } else { x })
}

/// The run of ASCII digits at `*i`, moving `*i` past it.
#[inline(never)]
fn digits_at<'a>(b: &'a [u8], i: &mut usize) -> &'a [u8] {
    let start = *i;
    while b.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    &b[start..*i]
}

/// `int.frac × 10^exp` without an allocation when its significant digits (trailing zeros
/// aside) are at most 19 and its power of ten within `10^-27..=10^22` (zero too): at most
/// 15 digits by Clinger's path, else a guess corrected in 128-bit integers. `None` for
/// the others.
fn head_value(int: &[u8], frac: &[u8], exp: i64) -> Option<f64> {
    // w: the digits up to the last that is not zero; n: significant digits so far
    let (mut w, mut w_at, mut n, mut last, mut point) = (0u64, 0u64, 0i64, 0i64, 0i64);
    for (digits, integral) in [(int, true), (frac, false)] {
        for &c in digits {
            if n == 0 && c == b'0' {
                point -= i64::from(!integral);
                continue;
            }
            n += 1;
            point += i64::from(integral);
            if c != b'0' {
                if n > 19 {
                    return None;
                }
                (last, w_at) = (n, w * 10 + u64::from(c - b'0'));
            }
            if n <= 19 {
                w = w * 10 + u64::from(c - b'0');
            }
        }
    }
    if last == 0 {
        return Some(0.0);
    }
    let (w, exp10) = (w_at, point + exp - last);
    let f = w as f64;
    let guess = match exp10 {
        0..=22 => f * POW10[exp10 as usize],
        -22..=-1 => f / POW10[exp10.unsigned_abs() as usize],
        -27..=-23 => f / 1e22 / POW10[(-22 - exp10) as usize],
        _ => return None,
    };
    if last <= 15 && exp10 >= -22 {
        return Some(guess); // exact operands, one rounding
    }
    small(w, exp10).map(|cmp| correct(guess, &cmp))
}

/// The midpoint comparison of `w × 10^exp10` in 128-bit integers, when `exp10` is within
/// `-27..=22`: `w × 5^exp10` (below 2^64 · 5^22 < 2^116) against a midpoint's `m`, or `w`
/// against `m × 5^-exp10` (`m` < 2^55, 5^27 < 2^63: below 2^118), each with its power of
/// two. `None` beyond.
#[inline(never)]
fn small(w: u64, exp10: i64) -> Option<impl Fn(u64, i32) -> Ordering> {
    if !(-27..=22).contains(&exp10) {
        return None;
    }
    let e = exp10 as i32;
    let (value, pow5) = match u32::try_from(e) {
        Ok(k) => (u128::from(w) * 5u128.pow(k), 1),
        Err(_) => (u128::from(w), 5u128.pow(e.unsigned_abs())),
    };
    Some(move |m: u64, s: i32| cmp_shifted(value, e, u128::from(m) * pow5, s))
}

/// `a × 2^ea` against `b × 2^eb` (neither zero): the one a shift would take past 128 bits
/// is the larger.
fn cmp_shifted(a: u128, ea: i32, b: u128, eb: i32) -> Ordering {
    let d = ea - eb;
    let up = |x: u128, by: u32| (x.leading_zeros() >= by).then(|| x << by); // x is not zero
    match u32::try_from(d) {
        Ok(by) => up(a, by).map_or(Ordering::Greater, |a| a.cmp(&b)),
        Err(_) => up(b, d.unsigned_abs()).map_or(Ordering::Less, |b| a.cmp(&b)),
    }
}

/// The significant digits of a decimal (from the first that is not zero), at most
/// [`MAX_DIGITS`] of them and a sticky `1`, and where the decimal point falls.
#[derive(Default)]
struct Digits {
    kept: Vec<u8>,
    /// Whether a digit past the kept ones is not zero.
    sticky: bool,
    /// Significant digits (kept or not) before the decimal point; a fraction's zeros
    /// before its first significant digit count down from 0.
    point: i64,
}

impl Digits {
    /// One more digit of the text, before (`integral`) or after the decimal point.
    #[inline(never)]
    fn push(&mut self, c: u8, integral: bool) {
        let started = !self.kept.is_empty();
        if started || c != b'0' {
            if self.kept.len() < MAX_DIGITS {
                self.kept.push(c - b'0');
            } else if c != b'0' {
                self.sticky = true;
            }
            if integral {
                self.point += 1;
            }
        } else if !integral {
            self.point -= 1; // a zero between the point and the first significant digit
        }
    }

    /// The double nearest `0.d₁d₂… × 10^(point + exp)`.
    fn value(mut self, exp: i64) -> f64 {
        while self.kept.last() == Some(&0) && !self.sticky {
            self.kept.pop();
        }
        if self.kept.is_empty() {
            return 0.0;
        }
        let point = self.point.saturating_add(exp);
        if point > 310 {
            return f64::INFINITY; // at least 10^310
        }
        if point < -323 {
            return 0.0; // below 10^-324, under half the least subnormal
        }
        let exp10 = point - self.kept.len() as i64; // the kept digits' integer × 10^exp10
        let guess = self.guess(exp10);
        match self.exact(exp) {
            Some(exact) => correct(guess, &|m, s| exact.cmp_midpoint(m, s)),
            None => 0.0,
        }
    }

    /// Within a few units in the last place of the answer: the first 19 digits as a
    /// double, scaled by exact powers of ten; a negative power scaled under `2^600` so
    /// that no step leaves the normal range (the answer may be subnormal).
    fn guess(&self, exp10: i64) -> f64 {
        let taken = self.kept.len().min(19);
        let w = self.kept[..taken]
            .iter()
            .fold(0u64, |w, &d| w * 10 + u64::from(d)) as f64;
        let mut e = exp10 + (self.kept.len() - taken) as i64;
        let mut g = w;
        if e >= 0 {
            while e > 22 {
                g *= 1e22;
                e -= 22;
            }
            g *= POW10[e as usize];
        } else {
            g *= f64::from_bits((1023 + 600) << 52);
            while e < -22 {
                g /= 1e22;
                e += 22;
            }
            g /= POW10[(-e) as usize];
            g *= f64::from_bits((1023 - 600) << 52);
        }
        if g.is_finite() {
            g
        } else {
            f64::MAX
        }
    }

    /// The decimal as an exact value, `None` for zero.
    fn exact(&self, exp: i64) -> Option<Exact> {
        let mut digits: Vec<u8> = self.kept.clone();
        if self.sticky {
            digits.push(1);
        }
        while digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.is_empty() {
            return None;
        }
        let exp10 = self.point.saturating_add(exp) - digits.len() as i64;
        let mut d = Big::default();
        for chunk in digits.chunks(9) {
            let scale = 10u32.pow(chunk.len() as u32);
            let n = chunk.iter().fold(0u32, |n, &c| n * 10 + u32::from(c));
            d.mul_add(scale, n);
        }
        // far exponents are answered before this; clamped so a caller's cannot overflow
        let exp10 = exp10.clamp(-2_000, 2_000) as i32;
        let mut left = d;
        let mut right_pow5 = Big::one();
        if exp10 >= 0 {
            left.mul_pow5(exp10 as u32);
        } else {
            right_pow5.mul_pow5(exp10.unsigned_abs());
        }
        Some(Exact {
            left,
            right_pow5,
            exp2: exp10,
        })
    }
}

/// A decimal `D × 10^e` held as `left × 2^exp2` against midpoints `M × right_pow5 × 2^s`:
/// for `e >= 0`, `left = D × 5^e` and `right_pow5 = 1`; else `left = D` and
/// `right_pow5 = 5^-e` (moved to the midpoint's side). `exp2 = e` either way.
struct Exact {
    left: Big,
    right_pow5: Big,
    exp2: i32,
}

impl Exact {
    /// The decimal against the midpoint `m × 2^s`.
    fn cmp_midpoint(&self, m: u64, s: i32) -> Ordering {
        let mut right = self.right_pow5.clone();
        right.mul_add(m as u32, 0);
        let mut high = self.right_pow5.clone();
        high.mul_add((m >> 32) as u32, 0);
        high.shl(32);
        right.add(&high);
        let mut left = self.left.clone();
        let low = self.exp2.min(s);
        left.shl((self.exp2 - low) as u32);
        right.shl((s - low) as u32);
        left.cmp(&right)
    }
}

/// `x` (finite, not negative) as `m × 2^q`: its integer significand (the hidden bit
/// included when `x` is normal) and the power of two of its last bit.
pub(super) fn significand(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let (biased, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    }
}

/// Compares the decimal with the midpoint `m × 2^s` between two neighbouring doubles.
type Midpoints<'a> = &'a dyn Fn(u64, i32) -> Ordering;

/// Where a decimal lies against the decimals that round to `x` (finite, not negative):
/// `Less` below them, `Equal` among them, `Greater` above.
#[inline(never)]
fn place(x: f64, cmp: Midpoints) -> Ordering {
    let (m, q) = significand(x);
    let even = m % 2 == 0;
    match cmp(2 * m + 1, q - 1) {
        Ordering::Greater => return Ordering::Greater,
        Ordering::Equal if !even => return Ordering::Greater,
        _ => {}
    }
    if m == 0 {
        return Ordering::Equal; // zero: nothing below it here
    }
    // the double below is half a unit nearer when x is a power of two above the least
    let (lm, ls) = if m == 1 << 52 && q > -1074 {
        (4 * m - 1, q - 2)
    } else {
        (2 * m - 1, q - 1)
    };
    match cmp(lm, ls) {
        Ordering::Less => Ordering::Less,
        Ordering::Equal if !even => Ordering::Less,
        _ => Ordering::Equal,
    }
}

/// The double nearest a decimal, from a guess within a few units of it.
fn correct(mut g: f64, cmp: Midpoints) -> f64 {
    loop {
        match place(g, cmp) {
            Ordering::Equal => return g,
            Ordering::Greater if g == f64::MAX => return f64::INFINITY,
            Ordering::Greater => g = f64::from_bits(g.to_bits() + 1),
            Ordering::Less => g = f64::from_bits(g.to_bits() - 1),
        }
    }
}

/// A natural number in base 2^32, least significant limb first, no zero limb on top.
#[derive(Clone, Default)]
struct Big(Vec<u32>);

impl Big {
    fn one() -> Big {
        Big(vec![1])
    }

    /// `self = self × f + a`.
    #[inline(never)]
    fn mul_add(&mut self, f: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in self.0.iter_mut() {
            let v = u64::from(*limb) * u64::from(f) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    /// `self × 5^k`.
    fn mul_pow5(&mut self, mut k: u32) {
        while k > 0 {
            let s = k.min(13); // 5^13 < 2^32
            self.mul_add(5u32.pow(s), 0);
            k -= s;
        }
    }

    /// `self += other`.
    fn add(&mut self, other: &Big) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut carry = 0u64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = u64::from(*limb) + u64::from(other.0.get(i).copied().unwrap_or(0)) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self × 2^bits`.
    fn shl(&mut self, bits: u32) {
        if self.0.is_empty() {
            return;
        }
        let (limbs, bits) = ((bits / 32) as usize, bits % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in self.0.iter_mut() {
                let v = (u64::from(*limb) << bits) | u64::from(carry);
                *limb = v as u32;
                carry = (v >> 32) as u32;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests;
