use super::*;

/// Rust's `f64::from_str` (correctly rounded, ties to even: the oracle) and ours agree.
fn check(text: &str) {
    let theirs = text.parse::<f64>().ok();
    let ours = parse_decimal(text);
    assert_eq!(
        ours.map(f64::to_bits),
        theirs.map(f64::to_bits),
        "{text}: {ours:?} vs {theirs:?}"
    );
}

/// A test-data generator (xorshift64), fixed seeds.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The exact decimal digits of `m × 2^q` (m > 0), and its power of ten.
fn exact_text(m: u64, q: i32) -> String {
    let mut big = Big(vec![m as u32, (m >> 32) as u32]);
    big.trim();
    let (mut digits, exp10) = if q >= 0 {
        big.shl(q as u32);
        (to_decimal(&big), 0)
    } else {
        big.mul_pow5(q.unsigned_abs());
        (to_decimal(&big), q)
    };
    digits.push_str(&format!("e{exp10}"));
    digits
}

/// Base 10 of a big number, by repeated division by 10^9.
fn to_decimal(big: &Big) -> String {
    let mut limbs = big.0.clone();
    let mut parts = Vec::new();
    while !limbs.is_empty() {
        let mut rem = 0u64;
        for limb in limbs.iter_mut().rev() {
            let v = (rem << 32) | u64::from(*limb);
            *limb = (v / 1_000_000_000) as u32;
            rem = v % 1_000_000_000;
        }
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        parts.push(rem);
    }
    let mut text = parts
        .pop()
        .map(|p| p.to_string())
        .unwrap_or_else(|| "0".into());
    for p in parts.iter().rev() {
        text.push_str(&format!("{p:09}"));
    }
    text
}

#[test]
fn texts_as_rust_reads_them() {
    for text in [
        "0",
        "-0",
        "0.0",
        "1",
        "-1",
        "1.5",
        "0.1",
        "0.3",
        "0.30000000000000004",
        "1e21",
        "1e22",
        "1e23",
        "1e-7",
        "123.456e2",
        "5e-324",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.470328229206232720882e-324",
        "2.2250738585072014e-308",
        "2.2250738585072011e-308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "179769313486231580793728971405301e276",
        "9007199254740993",
        "9007199254740992.5",
        "9007199254740993.0000000000000001",
        "1e400",
        "-1e400",
        "1e-400",
        "-1e-400",
        "0e999999999999999999999",
        "1e-999999999999999999",
        "1e999999999999999999",
        "0.000000000000000000000000000001",
        "1733000000000",
        "0.003",
        ".5",
        "5.",
        "+2",
        "00012.50",
        "1E5",
        "1e+5",
        "1e-5",
        "123456789012345678901234567890",
        "7.2057594037927933e16",
        "1234567890123456789",
    ] {
        check(text);
    }
    for bad in [
        "", "-", ".", "e5", "1e", "1e+", "1.2.3", "1x", "inf", "NaN", "--1", " 1", "1 ",
    ] {
        assert_eq!(parse_decimal(bad), None, "{bad}");
    }
    assert!(parse_decimal("-0").is_some_and(|x| x == 0.0 && x.is_sign_negative()));
    assert!(parse_decimal("-1e-400").is_some_and(|x| x == 0.0 && x.is_sign_negative()));
}

/// Random doubles written in several ways (shortest, every precision from 1 to 25
/// significant digits: many lie near a midpoint), and random digit strings with
/// random exponents, across the whole range.
#[test]
fn random_texts_as_rust_reads_them() {
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        let x = f64::from_bits(r.next() >> 1);
        if !x.is_finite() {
            continue;
        }
        check(&format!("{x:e}"));
        check(&format!("{x}"));
        let p = r.below(25) as usize;
        check(&format!("{x:.p$e}"));
        let sub = f64::from_bits(r.next() >> 12); // subnormals and tiny doubles
        check(&format!("{sub:e}"));
        check(&format!("{:.p$e}", sub));
    }
    for _ in 0..20_000 {
        let len = 1 + r.below(40) as usize;
        let digits: String = (0..len)
            .map(|_| char::from(b'0' + r.below(10) as u8))
            .collect();
        let e = r.below(700) as i64 - 350;
        check(&format!("{digits}e{e}"));
        let cut = r.below(len as u64) as usize;
        check(&format!("{}.{}e{e}", &digits[..cut], &digits[cut..]));
    }
}

/// Every midpoint between two neighbouring doubles, written exactly, goes to the even
/// one; a digit more or less decides the other way; long texts keep their sticky digit.
#[test]
fn midpoints_and_long_texts() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..3_000 {
        let fraction_bits = r.next() & ((1 << 52) - 1);
        let biased = match i % 3 {
            0 => r.below(0x7FF),
            1 => r.below(2),         // subnormal, or the least normal exponent
            _ => 0x7FE - r.below(2), // near the top
        };
        let bits = biased << 52 | fraction_bits;
        let x = f64::from_bits(bits);
        if !x.is_finite() {
            continue;
        }
        let biased = (bits >> 52) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (m, q) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, biased - 1075)
        };
        let mut mids = vec![exact_text(2 * m + 1, q - 1)];
        if biased > 1 {
            // below a power of two the neighbour is half a unit nearer
            mids.push(exact_text(4 * (1 << 52) - 1, biased - 1075 - 2));
        }
        for mid in mids {
            let (digits, exp) = mid.split_once('e').unwrap();
            let zeros = digits.len() - digits.trim_end_matches('0').len();
            let (digits, exp) = (
                &digits[..digits.len() - zeros],
                exp.parse::<i64>().unwrap() + zeros as i64,
            );
            check(&mid);
            check(&format!("{digits}0000000000001e{}", exp - 13));
            check(&format!("{digits}{}1e{}", "0".repeat(900), exp - 901));
            check(&format!("{digits}{}e{}", "0".repeat(900), exp - 900));
            let below = format!(
                "{}{}",
                &digits[..digits.len() - 1],
                digits.as_bytes()[digits.len() - 1] - b'1'
            );
            check(&format!("{below}{}e{}", "9".repeat(900), exp - 900)); // just below
            check(&format!("{}e{}", &digits[..digits.len() - 1], exp + 1)); // a digit fewer
        }
    }
    // the least normal power of two has a subnormal neighbour a whole unit below; the
    // next power, one half a unit nearer
    for (m, q) in [
        ((1u64 << 53) - 1, -1075),
        ((1 << 54) - 1, -1075),
        ((1 << 54) - 1, -1074),
    ] {
        let mid = exact_text(m, q);
        let (digits, exp) = mid.split_once('e').unwrap();
        let exp: i64 = exp.parse().unwrap();
        check(&mid);
        check(&format!("{digits}1e{}", exp - 1));
        let x: f64 = mid.parse().unwrap();
        assert!(rounds_to(digits.as_bytes(), exp, x), "{mid}");
    }
    check(&format!("0.{}1", "0".repeat(2000)));
    check(&format!("1{}e-2000", "0".repeat(2000)));
    check(&"9".repeat(5000));
    check(&format!("{}e-5000", "3".repeat(5000)));
}

/// The 128-bit path (16 to 19 digits, powers 10^-27 to 10^22): integers from 2^53 on
/// (every odd one up to 2^54 a midpoint), each under every power of that range, and
/// the midpoints `M / 2^j` (`M` odd, 2^53 < M < 2^54) written exactly.
#[test]
fn nineteen_digits_and_their_ties() {
    let mut r = Rng(0xA076_1D64_78BD_642F);
    for _ in 0..20_000 {
        let w = (1u64 << 53) + r.below(10_000_000_000_000_000_000 - (1 << 53));
        check(&w.to_string());
        let e = r.below(50) as i64 - 27;
        check(&format!("{w}e{e}"));
        check(&format!("{}e{e}", w % 100_000_000_000_000_000)); // 17 digits or fewer
        let m = (1u64 << 53) + (r.below(1 << 52) | 1);
        let j = 1 + r.below(4) as u32;
        check(&format!("{}e-{j}", u128::from(m) * 5u128.pow(j)));
    }
    for text in [
        "9007199254740993",
        "9007199254740995",
        "18014398509481985",
        "9223372036854775808",
        "9999999999999999999",
        "1000000000000000001e-27",
        "9999999999999999999e22",
        "4503599627370496.5",
        "4503599627370497.5",
        "2251799813685248.25",
    ] {
        check(text);
    }
}

/// The 128-bit comparison when a shift would leave 128 bits: the shifted side is larger.
#[test]
fn shifted_past_128_bits() {
    use Ordering::*;
    for (a, ea, b, eb, want) in [
        (1, 0, 1, 0, Equal),
        (3, 1, 6, 0, Equal),
        (1, 127, u128::MAX, 0, Less),
        (1, 128, u128::MAX, 0, Greater),
        (2, 127, u128::MAX, 0, Greater),
        (u128::MAX, 0, 1, 128, Less),
        (u128::MAX, 0, 1, 127, Greater),
        (5, -200, 1, 0, Less),
        (1, 0, 5, -200, Greater),
    ] {
        assert_eq!(cmp_shifted(a, ea, b, eb), want, "{a} {ea} {b} {eb}");
    }
}

/// The 128-bit comparison answers across its whole range (`10^-27..=10^22`, up to 19
/// digits), and as the big-integer one does: the decimal against random midpoints near it.
#[test]
fn the_128_bit_path_is_the_big_one() {
    let mut r = Rng(0xBF58_476D_1CE4_E5B9);
    for _ in 0..20_000 {
        let digits = 1 + r.below(19) as u32;
        let w = 10u64.pow(digits - 1) + r.below(9 * 10u64.pow(digits - 1));
        let exp10 = r.below(50) as i64 - 27;
        let small = small(w, exp10).expect("the 128-bit range");
        let mut d = Digits::default();
        w.to_string().bytes().for_each(|c| d.push(c, true));
        let exact = d.exact(exp10).unwrap();
        let x = parse_decimal(&format!("{w}e{exp10}")).unwrap();
        let (m, q) = significand(x);
        for (mm, s) in [
            (2 * m + 1, q - 1),
            (2 * m - 1, q - 1),
            (4 * m - 1, q - 2),
            (m, q),
        ] {
            assert_eq!(
                small(mm, s),
                exact.cmp_midpoint(mm, s),
                "{w}e{exp10} vs {mm}·2^{s}"
            );
        }
    }
    assert!(small(1, -28).is_none() && small(1, 23).is_none());
}

/// `rounds_to` is the read-back test: a decimal rounds to x exactly when Rust reads x.
#[test]
fn rounds_to_is_reading_back() {
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..20_000 {
        let x = f64::from_bits(r.next() >> 2);
        if !(x.is_finite() && x > 0.0) {
            continue;
        }
        let p = 1 + r.below(18) as usize;
        let text = format!("{x:.p$e}");
        let (mantissa, exp) = text.split_once('e').unwrap();
        let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        let exp10 = exp.parse::<i64>().unwrap() - (digits.len() as i64 - 1);
        let read = text.parse::<f64>().unwrap();
        assert!(rounds_to(&digits, exp10, read), "{text}");
        assert_eq!(rounds_to(&digits, exp10, x), read == x, "{text} vs {x:e}");
    }
}

/// Whether `digits × 10^exp10` reads back as `x` (finite, positive), through the
/// reader's own midpoint comparisons (`small`, `Digits::exact`, `place`): whether it lies
/// between the midpoints around `x`, a midpoint counting when `x`'s last bit is 0.
fn rounds_to(digits: &[u8], exp10: i64, x: f64) -> bool {
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    let end = digits
        .iter()
        .rposition(|&c| c != b'0')
        .map_or(start, |i| i + 1);
    let (significant, exp10) = (&digits[start..end], exp10 + (digits.len() - end) as i64);
    if significant.is_empty() {
        return x == 0.0;
    }
    if significant.len() <= 19 {
        let w = significant
            .iter()
            .fold(0u64, |w, &c| w * 10 + u64::from(c - b'0'));
        if let Some(cmp) = small(w, exp10) {
            return place(x, &cmp) == Ordering::Equal;
        }
    }
    let mut d = Digits::default();
    significant.iter().for_each(|&c| d.push(c, true));
    match d.exact(exp10) {
        Some(exact) => place(x, &|m, s| exact.cmp_midpoint(m, s)) == Ordering::Equal,
        None => x == 0.0,
    }
}
