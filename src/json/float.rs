//! `f64` to JSON number text, for numbers computed locally (native tools such as the reference server
//! build values from `f64`s). Nothing on the client's path to a server formats a double: numbers from
//! the wire and typed answers keep their text (see [`super::decimal`] for how they are compared), so
//! none of this is in the shipped `.wasm`, and the standard library's formatting tables that do the
//! work here cost it nothing.

/// The shortest text that reads back as exactly `x`, the text JavaScript's `String(x)` writes: the
/// fewest significant digits that round-trip, the nearest such when several do (a tie between two
/// goes to the even one), plain between 1e-7 and 1e21 and with an exponent outside. One difference:
/// `-0` keeps its sign, so JavaScript's `Number()` reads it back as `-0`. `x` must be finite.
pub(super) fn format_f64(x: f64) -> String {
    let (digits, exponent) = shortest(x.abs());
    layout(x.is_sign_negative(), &digits, exponent)
}

/// The shortest round-trip digits of `a` (≥ 0) and the power of ten of the last one. The standard
/// library's `{:e}` finds them (Grisu, with a Dragon fallback), but when `a` lies exactly halfway
/// between two shortest candidates it may take the odd one, where ECMAScript's Number::toString takes
/// the even one (`1000000000000000.25` is `…0.2` in JavaScript, `…0.3` from `{:e}`); both read back.
/// The test for that tie is in integers, not a full expansion of `a`, which is slow.
fn shortest(a: f64) -> (String, i64) {
    let (digits, exponent) = digits_of(&format!("{a:e}"));
    // Halfway means the exact value has one digit more, a 5: rounded to that many digits it ends in 5
    // (ruling out nine doubles in ten), and that decimal is exactly `a`.
    let (one_more, one_more_exponent) = digits_of(&format!("{a:.*e}", digits.len()));
    let tie = one_more.len() == digits.len() + 1
        && one_more.ends_with('5')
        && one_more.parse().is_ok_and(|n| is_exactly(a, n, one_more_exponent));
    let Some(lower) = one_more.get(..digits.len()).filter(|_| tie) else {
        return (digits, exponent);
    };
    let mut even = lower.as_bytes().to_vec();
    if even.last().is_some_and(|d| d % 2 == 1) {
        // The upper candidate: one more in the last digit, carrying (`…19` → `…20`, `99` → `100`).
        let mut at = even.len();
        while at > 0 && even[at - 1] == b'9' {
            even[at - 1] = b'0';
            at -= 1;
        }
        match at {
            0 => even.insert(0, b'1'),
            _ => even[at - 1] += 1,
        }
    }
    let mut even_exponent = one_more_exponent + 1;
    while even.len() > 1 && even.last() == Some(&b'0') {
        even.pop();
        even_exponent += 1;
    }
    let even = String::from_utf8(even).unwrap_or_default();
    let reads_back = format!("{even}e{even_exponent}").parse::<f64>().ok() == Some(a);
    if reads_back {
        (even, even_exponent)
    } else {
        (digits, exponent)
    }
}

/// Whether `a` (finite, ≥ 0) is exactly `n × 10^p`, in integers: `a` is `m × 2^e`, so the question is
/// whether `m × 5^max(-p, 0) × 2^(e - p)` equals `n × 5^max(p, 0)`.
fn is_exactly(a: f64, n: u64, p: i64) -> bool {
    let bits = a.to_bits();
    let (biased, fraction) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let (m, e) = if biased == 0 { (fraction, -1074) } else { (fraction | 1 << 52, biased - 1075) };
    let five = |k: i64| u32::try_from(k.max(0)).ok().and_then(|k| 5u128.checked_pow(k));
    let (Some(left), Some(right)) =
        (five(-p).and_then(|f| f.checked_mul(u128::from(m))), five(p).and_then(|f| f.checked_mul(u128::from(n))))
    else {
        return false;
    };
    let shift = e - p;
    if left == 0 || right == 0 {
        left == right
    } else if shift >= 0 {
        i64::from(left.leading_zeros()) >= shift && left << shift == right
    } else {
        i64::from(left.trailing_zeros()) >= -shift && left >> -shift == right
    }
}

/// `d.ddd…e±n` (the standard library's exponent form) as its significant digits, without trailing
/// zeros, and the power of ten of the last digit.
fn digits_of(exp_form: &str) -> (String, i64) {
    let (mantissa, e) = exp_form.split_once('e').unwrap_or((exp_form, "0"));
    let e: i64 = e.parse().unwrap_or(0);
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    // d.ddd × 10^e is digits × 10^(e - (len - 1)).
    let exponent = e - (digits.len() as i64 - 1);
    (digits, exponent)
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
    use super::format_f64;

    #[test]
    fn exactness_is_decided_in_integers() {
        use super::is_exactly;
        // 1e15 + 0.25, written so (a literal would be rounded to its shortest text in a reader's head).
        assert!(is_exactly(1e15 + 0.25, 100000000000000025, -2));
        assert!(is_exactly(0.5, 5, -1));
        assert!(is_exactly(1e22, 1, 22));
        assert!(!is_exactly(1e23, 1, 23), "5^23 needs more than 53 bits");
        assert!(is_exactly(9007199254740992.0, 9007199254740992, 0));
        assert!(is_exactly(0.0, 0, 0));
        assert!(!is_exactly(0.1, 1, -1), "0.1 is not a double");
        assert!(!is_exactly(1000000000000000.2, 10000000000000002, -1));
        assert!(!is_exactly(5e-324, 5, -324));
        assert!(!is_exactly(1.7976931348623157e308, 17976931348623157, 292));
    }

    #[test]
    fn formats_like_javascript_and_reads_back_exactly() {
        for (x, text) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (0.1, "0.1"),
            (-0.5, "-0.5"),
            (3.0, "3"),
            (0.30000000000000004, "0.30000000000000004"),
            (203.02700000000002, "203.02700000000002"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (2.5e25, "2.5e+25"),
            (99.99, "99.99"),
            (1234.5678, "1234.5678"),
            (9007199254740992.0, "9007199254740992"),
            (1e15 + 0.5, "1000000000000000.5"),
            (5e-324, "5e-324"),
            (-5e-324, "-5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (2.225073858507201e-308, "2.225073858507201e-308"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            // Halfway between two shortest candidates: the even one, as JavaScript writes it.
            (1e15 + 0.25, "1000000000000000.2"),
            (-(1904431712338029.0 + 0.25), "-1904431712338029.2"),
            (947207876907243.0 + 0.25, "947207876907243.2"),
            (1.5, "1.5"),
            (2.5, "2.5"),
        ] {
            assert_eq!(format_f64(x), text, "{x:e}");
            let back: f64 = text.parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{text}");
        }
    }
}
