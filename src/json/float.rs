//! Decimal text to `f64` without the standard library's parser and its 10 KB table of powers of five.
//!
//! Exact (correctly rounded) when the significant digits fit in 2^53 and the power of ten is within
//! ±22 — every number a form bound, a progress value or a typed answer realistically has (Clinger's fast
//! path). Beyond that, within a few units in the last place (near the ends of the range, a value may
//! round to zero or infinity); the literal text is still what is stored and sent, so only local
//! comparisons ever see the difference.

/// Powers of ten that `f64` holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

/// Parses text in the JSON number grammar (as [`super::Number`] holds). `None` for anything else.
pub(super) fn parse_f64(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let (negative, mut i) = if bytes.first() == Some(&b'-') { (true, 1) } else { (false, 0) };
    let mut mantissa: u64 = 0;
    let mut exponent: i64 = 0;
    let mut seen_dot = false;
    let mut any_digit = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'0'..=b'9' => {
                any_digit = true;
                if mantissa < 1_000_000_000_000_000_000 {
                    mantissa = mantissa * 10 + u64::from(b - b'0');
                    if seen_dot {
                        exponent -= 1;
                    }
                } else if !seen_dot {
                    // Digits past 19 only scale the value (the rest is below f64 precision).
                    exponent += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        i += 1;
    }
    if !any_digit {
        return None;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        let rest = text.get(i + 1..)?;
        let (sign, body) = match rest.as_bytes().first() {
            Some(b'-') => (-1, &rest[1..]),
            Some(b'+') => (1, &rest[1..]),
            _ => (1, rest),
        };
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // Saturate: 1e999999999999 is infinity and 1e-999999999999 zero either way.
        let e = body.bytes().fold(0i64, |acc, b| (acc * 10 + i64::from(b - b'0')).min(100_000));
        exponent += sign * e;
    }
    let value = scale(mantissa, exponent);
    Some(if negative { -value } else { value })
}

/// `mantissa × 10^exponent`.
fn scale(mantissa: u64, exponent: i64) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let m = mantissa as f64;
    let exact = mantissa < (1 << 53);
    if exact && (0..=22).contains(&exponent) {
        return m * EXACT_POWERS[exponent as usize];
    }
    if exact && (-22..0).contains(&exponent) {
        return m / EXACT_POWERS[(-exponent) as usize];
    }
    if exponent > 308 + 20 {
        return f64::INFINITY;
    }
    if exponent < -343 - 20 {
        return 0.0;
    }
    // Outside the exact range: scale in steps of 10^22 (each step exact, the product rounded once per step).
    let mut value = m;
    let mut e = exponent;
    while e > 22 {
        value *= 1e22;
        e -= 22;
    }
    while e < -22 {
        value /= 1e22;
        e += 22;
    }
    if e >= 0 {
        value * EXACT_POWERS[e as usize]
    } else {
        value / EXACT_POWERS[(-e) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    #[test]
    fn the_fast_path_is_exactly_what_std_parses() {
        for text in [
            "0", "-0", "1", "-1", "0.1", "0.2", "0.3", "3.14159", "-2.5e3", "1e22", "1e-22", "123456789012345",
            "9007199254740991", "0.000001", "1.5E+2", "2e-5", "99.99", "42.0", "1000000", "0.5",
        ] {
            assert_eq!(parse_f64(text), text.parse::<f64>().ok(), "{text}");
        }
    }

    #[test]
    fn beyond_the_fast_path_it_is_within_a_few_ulps() {
        for text in ["1e300", "5e-324", "2.2250738585072014e-308", "123456789012345678901234567890", "0.1e-100", "6.02214076e23"] {
            let ours = parse_f64(text).unwrap();
            let std = text.parse::<f64>().unwrap();
            let ulps = (ours.to_bits() as i64 - std.to_bits() as i64).abs();
            assert!(ulps <= 4 || (ours - std).abs() <= f64::MIN_POSITIVE, "{text}: {ours} vs {std} ({ulps} ulps)");
        }
        assert_eq!(parse_f64("1e400"), Some(f64::INFINITY));
        assert_eq!(parse_f64("-1e400"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64("1e-400"), Some(0.0));
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        for text in ["", "-", "e5", "1e", "1e+", "abc", "1.2.3", "0x1"] {
            assert_eq!(parse_f64(text), None, "{text:?}");
        }
    }
}
