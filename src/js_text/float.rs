//! A JSON number's text to the nearest double, ties to even: the value `f64::from_str`
//! (and JavaScript's `Number`) gives for the same text, without core's decimal-to-float
//! tables (issue 17 §7: about 17 KB of the module). Exact: a decimal `D × 10^e` is divided
//! out in integers (`u128` for the usual sizes, a small big integer otherwise) to 64
//! significant bits and a sticky bit, then rounded once.

/// At most this many significant digits are kept; a nonzero digit beyond them only
/// matters as a sticky bit (a double's halfway points have at most 767 of them).
const MAX_DIGITS: usize = 800;

/// The double nearest to `text`, a JSON number (`-?digits(.digits)?([eE][+-]?digits)?`);
/// ±infinity beyond the largest double (as `f64::from_str`), `None` for other text.
pub fn parse_f64(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let negative = b.first() == Some(&b'-');
    let mut i = usize::from(negative);
    let mut digits: Vec<u8> = Vec::new();
    let mut exp: i64 = 0;
    let mut sticky = false;
    let (mut seen, mut point) = (false, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                seen = true;
                if digits.is_empty() && c == b'0' {
                    exp -= i64::from(point); // a leading zero
                } else if digits.len() < MAX_DIGITS {
                    digits.push(c - b'0');
                    exp -= i64::from(point);
                } else {
                    sticky |= c != b'0';
                    exp += i64::from(!point);
                }
            }
            b'.' if !point => point = true,
            _ => break,
        }
        i += 1;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let minus = b.get(i) == Some(&b'-');
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let from = i;
        let mut e: i64 = 0;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
            i += 1;
        }
        if i == from {
            return None;
        }
        exp += if minus { -e } else { e };
    }
    if !seen || i != b.len() {
        return None;
    }
    let magnitude = unsigned(&mut digits, exp, sticky);
    Some(if negative { -magnitude } else { magnitude })
}

/// `D × 10^exp` (`D` the digits, `sticky`: a nonzero digit dropped after them).
fn unsigned(digits: &mut Vec<u8>, mut exp: i64, sticky: bool) -> f64 {
    if sticky {
        digits.push(1);
        exp -= 1;
    }
    let n = digits.len() as i64;
    if n == 0 {
        return 0.0;
    }
    if n + exp > 310 {
        return f64::INFINITY;
    }
    if n + exp < -330 {
        return 0.0;
    }
    // small enough for one correctly rounded operation on exact doubles
    if n <= 15 && (-22..=22).contains(&exp) {
        let d = digits.iter().fold(0u64, |d, &c| d * 10 + u64::from(c)) as f64;
        let p = POW10[exp.unsigned_abs() as usize];
        return if exp < 0 { d / p } else { d * p };
    }
    if n <= 19 && (-19..=19).contains(&exp) {
        let d = digits.iter().fold(0u128, |d, &c| d * 10 + u128::from(c));
        let p = 10u128.pow(exp.unsigned_abs() as u32);
        return if exp >= 0 {
            from_integer(d * p)
        } else {
            ratio_u128(d, p)
        };
    }
    let mut num = Big::from_digits(digits);
    let mut den = Big(vec![1]);
    if exp >= 0 {
        num.mul_pow10(exp as u32);
    } else {
        den.mul_pow10(exp.unsigned_abs() as u32);
    }
    ratio(&num, &den)
}

/// Exact powers of ten as doubles.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// An integer's nearest double.
fn from_integer(x: u128) -> f64 {
    let lead = 127 - x.leading_zeros() as i32; // x > 0
    if lead < 64 {
        return round(x as u64, false, 0);
    }
    let shift = lead - 63;
    let q = (x >> shift) as u64;
    let rest = x & ((1u128 << shift) - 1);
    round(q, rest != 0, shift)
}

/// `num / den` (`den` ≤ 10^19, `num` < 2^64) to the nearest double.
fn ratio_u128(num: u128, den: u128) -> f64 {
    // scale the quotient to 64 bits: num·2^s / den in [2^63, 2^64)
    let mut s = 63 - (127 - num.leading_zeros() as i32) + (127 - den.leading_zeros() as i32);
    loop {
        let q = (num << s) / den;
        if q >> 63 == 0 {
            s += 1;
            continue;
        }
        let r = (num << s) % den;
        return round(q as u64, r != 0, -s);
    }
}

/// `num / den` to the nearest double.
fn ratio(num: &Big, den: &Big) -> f64 {
    let mut s = 63 - num.bits() as i64 + den.bits() as i64;
    loop {
        let (mut n, mut d) = (num.clone(), den.clone());
        if s >= 0 {
            n.shl(s as usize);
        } else {
            d.shl(s.unsigned_abs() as usize);
        }
        let (q, rest) = n.div(&d);
        if q >> 63 == 0 {
            s += 1;
            continue;
        }
        return round(q, rest, (-s).clamp(-5000, 5000) as i32);
    }
}

/// `q × 2^e2` (q's top bit set, `sticky`: something nonzero below q) rounded to a double,
/// ties to even; subnormal and infinite results included.
fn round(q: u64, sticky: bool, e2: i32) -> f64 {
    if q == 0 {
        return 0.0;
    }
    let top = 63 - q.leading_zeros() as i32;
    let lead = top + e2; // the exponent of q's top bit
    if lead > 1023 {
        return f64::INFINITY;
    }
    // bits of q dropped: below the 53 a normal double keeps, more for a subnormal
    let drop = top - 52 + (-1022 - lead).max(0);
    if drop > 64 {
        return 0.0;
    }
    let (mut m, rest, half) = if drop <= 0 {
        (q << -drop, 0u128, 1u128)
    } else {
        let q = u128::from(q);
        (
            (q >> drop) as u64,
            q & ((1u128 << drop) - 1),
            1u128 << (drop - 1),
        )
    };
    if drop > 0 && (rest > half || (rest == half && (sticky || m & 1 == 1))) {
        m += 1;
    }
    let bits = if lead < -1022 {
        m // subnormal (a carry into bit 52 is the smallest normal's pattern)
    } else {
        let mut lead = lead;
        if m >> 53 != 0 {
            m >>= 1;
            lead += 1;
        }
        if lead > 1023 {
            return f64::INFINITY;
        }
        ((lead + 1023) as u64) << 52 | (m & ((1 << 52) - 1))
    };
    f64::from_bits(bits)
}

/// A non-negative integer, little-endian 32-bit limbs.
#[derive(Clone)]
struct Big(Vec<u32>);

impl Big {
    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let v = chunk.iter().fold(0u32, |v, &c| v * 10 + u32::from(c));
            b.mul_add(10u32.pow(chunk.len() as u32), v);
        }
        b
    }

    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let x = u64::from(*limb) * u64::from(m) + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut e: u32) {
        while e > 0 {
            let k = e.min(9);
            self.mul_add(10u32.pow(k), 0);
            e -= k;
        }
    }

    fn bits(&self) -> usize {
        match self.0.iter().rposition(|&l| l != 0) {
            Some(i) => i * 32 + 32 - self.0[i].leading_zeros() as usize,
            None => 0,
        }
    }

    fn shl(&mut self, n: usize) {
        let (limbs, bits) = (n / 32, n % 32);
        if bits != 0 {
            let mut carry = 0;
            for limb in &mut self.0 {
                let x = (u64::from(*limb) << bits) | carry;
                *limb = x as u32;
                carry = x >> 32;
            }
            if carry != 0 {
                self.0.push(carry as u32);
            }
        }
        self.0.splice(0..0, std::iter::repeat(0).take(limbs));
    }

    fn bit(&self, i: usize) -> bool {
        self.0.get(i / 32).is_some_and(|l| l >> (i % 32) & 1 == 1)
    }

    fn at_least(&self, other: &Big) -> bool {
        let len = self.0.len().max(other.0.len());
        for i in (0..len).rev() {
            let (a, b) = (self.0.get(i).copied(), other.0.get(i).copied());
            let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
            if a != b {
                return a > b;
            }
        }
        true
    }

    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let x = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(x < 0);
            *limb = x.rem_euclid(1 << 32) as u32;
        }
    }

    /// `self / d` (known to fit 64 bits, leading zero bits aside) and whether a remainder
    /// is left: long division one bit at a time.
    fn div(&self, d: &Big) -> (u64, bool) {
        let mut rest = Big(Vec::with_capacity(d.0.len() + 1));
        let mut q = 0u64;
        for i in (0..self.bits()).rev() {
            rest.shl(1);
            if self.bit(i) {
                match rest.0.first_mut() {
                    Some(l) => *l |= 1,
                    None => rest.0.push(1),
                }
            }
            q <<= 1;
            if rest.at_least(d) {
                rest.sub(d);
                q |= 1;
            }
        }
        (q, rest.bits() != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_f64;
    use proptest::prelude::*;

    fn same(text: &str) {
        let ours = parse_f64(text).map(f64::to_bits);
        let core = text.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, core, "{text}");
    }

    /// Halfway points (ties to even), the ends of the range, subnormals, long digits.
    #[test]
    fn hard_cases_round_as_core_does() {
        for t in [
            "0",
            "-0",
            "0.0",
            "-0.0e5",
            "1",
            "1.5",
            "0.1",
            "0.3",
            "1e22",
            "1e23",
            "123456789012345678",
            "9007199254740993",
            "9007199254740995",
            "9007199254740993.000000000001",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "2e308",
            "1e309",
            "1e400",
            "1e99999999999999",
            "-1e400",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "2.225073858507201e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "5e-324",
            "3e-324",
            "2e-324",
            "1e-330",
            "1e-400",
            "1e-99999999999999",
            "0.000000000000000000000000000000000000000001",
            "100000000000000000000000000000",
            "3.0000000000000004",
            "0.30000000000000004",
            "17976931348623157e292",
            "4.4501477170144023e-308",
            "2.22507385850720113605740979670913197593481954635164564e-308",
        ] {
            same(t);
        }
        let long = format!("0.{}1", "0".repeat(900));
        same(&long);
        let long = format!("1{}e-900", "0".repeat(900));
        same(&long);
        let mid = format!("9007199254740993{}", "0".repeat(850));
        same(&mid);
        let mid = format!("9007199254740993{}1", "0".repeat(850));
        same(&mid);
        for t in ["1.", ".5", "e5", "1e", "1e+", "-", "", "1x", "--1", "1.2.3"] {
            same(t);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20000, ..ProptestConfig::default() })]

        /// Every double printed as JavaScript and Rust print it reads back as itself.
        #[test]
        fn printed_doubles_read_back(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            for t in [format!("{x}"), format!("{x:e}"), format!("{x:.20e}"), format!("{x:.16e}"), format!("{x:.17e}"), format!("{x:.25e}")] {
                same(&t);
            }
        }

        /// Random digits at random exponents (near halfway points too: long mantissas).
        #[test]
        fn random_decimals_round_as_core_does(
            int in "[0-9]{1,30}",
            frac in proptest::option::of("[0-9]{1,30}"),
            exp in proptest::option::of(-400i32..400),
            neg in any::<bool>(),
        ) {
            let mut t = String::new();
            if neg { t.push('-'); }
            t.push_str(&int);
            if let Some(f) = frac { t.push('.'); t.push_str(&f); }
            if let Some(e) = exp { t.push_str(&format!("e{e}")); }
            same(&t);
        }
    }
}
