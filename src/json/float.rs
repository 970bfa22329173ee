//! Decimal text to `f64` without the standard library's parser and its 10 KB table of powers of five.
//!
//! Exact (correctly rounded) when the significant digits fit in 2^53 and the power of ten is within
//! ±22 — every number a form bound, a progress value or a typed answer realistically has (Clinger's fast
//! path). Beyond that, within a few units in the last place (near the ends of the range, a value may
//! round to zero or infinity); the literal text is still what is stored and sent, so only local
//! comparisons ever see the difference.

/// Powers of ten that `f64` holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
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
            Some(b'-') => (-1, rest.get(1..)?),
            Some(b'+') => (1, rest.get(1..)?),
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

/// The shortest decimal text (up to 17 digits) that [`parse_f64`] reads back as `x`, in the JSON
/// number grammar and laid out the way JavaScript's `String(x)` does (plain between 1e-7 and 1e21, an
/// exponent outside). `x` must be finite. Replaces `f64`'s `Display`, whose formatting tables are
/// several KB of the `.wasm`.
pub(super) fn format_f64(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return (x as i64).to_string();
    }
    let a = x.abs();
    // 10^lead ≤ a < 10^(lead + 1), approximately; the search below corrects an off-by-one.
    let mut lead: i64 = 0;
    let mut p = 1.0f64;
    if a >= 1.0 {
        while p * 10.0 <= a {
            p *= 10.0;
            lead += 1;
        }
    } else {
        while p > a {
            p /= 10.0;
            lead -= 1;
        }
    }
    let mut best = None;
    for digits in 1..=17i64 {
        let exponent = lead - digits + 1;
        let m = (scale(1, -exponent) * a).round();
        if !(1.0..1e18).contains(&m) {
            continue;
        }
        let m = m as u64;
        best = Some((m, exponent));
        if scale(m, exponent) == a {
            break;
        }
    }
    let (mut m, mut exponent) = best.unwrap_or((0, 0));
    while m != 0 && m % 10 == 0 {
        m /= 10;
        exponent += 1;
    }
    layout(x < 0.0, &m.to_string(), exponent)
}

/// Any `f64` as a person reads it: [`format_f64`] for finite values, `NaN` / `Infinity` / `-Infinity`
/// otherwise (as JavaScript's `String(x)`).
pub(crate) fn display_f64(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        format_f64(x)
    }
}

/// `digits × 10^exponent` as text, plain or with an exponent as JavaScript would.
fn layout(negative: bool, digits: &str, exponent: i64) -> String {
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    let point = digits.len() as i64 + exponent; // position of the decimal point after the first digit group
    if (-5..=21).contains(&point) {
        if exponent >= 0 {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', exponent as usize));
        } else if point > 0 {
            out.push_str(digits.get(..point as usize).unwrap_or_default());
            out.push('.');
            out.push_str(digits.get(point as usize..).unwrap_or_default());
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        }
    } else {
        out.push_str(digits.get(..1).unwrap_or_default());
        if digits.len() > 1 {
            out.push('.');
            out.push_str(digits.get(1..).unwrap_or_default());
        }
        out.push('e');
        let e = point - 1;
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.unsigned_abs().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{format_f64, parse_f64};

    #[test]
    fn formats_like_javascript_and_reads_back() {
        for (x, text) in [
            (0.1, "0.1"),
            (-0.5, "-0.5"),
            (3.0, "3"),
            (0.30000000000000004, "0.30000000000000004"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
            (1e21, "1e+21"),
            (2.5e25, "2.5e+25"),
            (99.99, "99.99"),
            (1234.5678, "1234.5678"),
        ] {
            assert_eq!(format_f64(x), text, "{x:e}");
            assert_eq!(parse_f64(text), Some(x), "{text}");
        }
        // Past 2^53 significant units the digits are approximate (within a couple of ulps).
        let near = 1e15 + 0.5;
        let back = parse_f64(&format_f64(near)).unwrap();
        assert!((back - near).abs() <= 0.25, "{back}");
        let huge = format_f64(1.7976931348623157e308);
        assert!(huge.starts_with("1.797693134862315") && huge.ends_with("e+308"), "{huge}");
    }

    #[test]
    fn the_fast_path_is_exactly_what_std_parses() {
        for text in [
            "0",
            "-0",
            "1",
            "-1",
            "0.1",
            "0.2",
            "0.3",
            "3.14159",
            "-2.5e3",
            "1e22",
            "1e-22",
            "123456789012345",
            "9007199254740991",
            "0.000001",
            "1.5E+2",
            "2e-5",
            "99.99",
            "42.0",
            "1000000",
            "0.5",
        ] {
            assert_eq!(parse_f64(text), text.parse::<f64>().ok(), "{text}");
        }
    }

    #[test]
    fn beyond_the_fast_path_it_is_within_a_few_ulps() {
        for text in [
            "1e300",
            "5e-324",
            "2.2250738585072014e-308",
            "123456789012345678901234567890",
            "0.1e-100",
            "6.02214076e23",
        ] {
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
