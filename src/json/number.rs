//! JSON numbers kept as their literal text.
use std::fmt;

/// A JSON number. Holds the literal text (valid JSON number grammar), so what was read is written back
/// byte for byte and integers beyond `f64` precision survive a round trip.
#[derive(Clone, Debug)]
pub struct Number {
    text: String,
}

impl Number {
    /// Wraps text the parser has already checked against the JSON number grammar.
    pub(super) fn from_checked(text: String) -> Number {
        Number { text }
    }

    /// A number from text in the JSON grammar, or from an HTML "valid floating-point number" (which
    /// also allows leading zeros and a bare fraction such as `.5`), normalised to the JSON grammar.
    /// `None` for anything else.
    pub(crate) fn parse_literal(text: &str) -> Option<Number> {
        let (sign, unsigned) = match text.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", text),
        };
        let mantissa_end = unsigned.find(['e', 'E']).unwrap_or(unsigned.len());
        let (mantissa, exponent) = unsigned.split_at_checked(mantissa_end)?;
        let (int, frac) = match mantissa.split_once('.') {
            Some((int, frac)) => (int, Some(frac)),
            None => (mantissa, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_none()) || (!int.is_empty() && !digits(int)) || frac.is_some_and(|f| !digits(f)) {
            return None;
        }
        if !exponent.is_empty() {
            let exp = exponent.get(1..)?;
            if !digits(exp.strip_prefix(['+', '-']).unwrap_or(exp)) {
                return None;
            }
        }
        let int = int.trim_start_matches('0');
        let mut out = String::with_capacity(text.len() + 1);
        out.push_str(sign);
        out.push_str(if int.is_empty() { "0" } else { int });
        if let Some(frac) = frac {
            out.push('.');
            out.push_str(frac);
        }
        out.push_str(exponent);
        Some(Number { text: out })
    }

    /// A finite `f64` as a number; `None` for NaN and infinities, which JSON cannot hold.
    /// Written as its shortest round-trip text (`3`, `0.1`, `1.5e-7`), as JavaScript writes numbers.
    pub(crate) fn from_f64(value: f64) -> Option<Number> {
        value.is_finite().then(|| Number { text: super::float::format_f64(value) })
    }

    /// The literal text.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    fn is_integer_text(&self) -> bool {
        !self.text.contains(['.', 'e', 'E'])
    }

    /// The value as `f64`: exact for the numbers forms and progress use (see `float`), as JavaScript
    /// reads them.
    pub fn as_f64(&self) -> Option<f64> {
        super::float::parse_f64(&self.text)
    }

    /// The value as `i64` when it is written as an integer in range (`1.0` is not).
    pub fn as_i64(&self) -> Option<i64> {
        self.is_integer_text().then(|| self.text.parse().ok()).flatten()
    }

    /// The value as `u64` when it is written as a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        self.is_integer_text().then(|| self.text.parse().ok()).flatten()
    }

    /// Whether [`Number::as_i64`] succeeds.
    pub(crate) fn is_i64(&self) -> bool {
        self.as_i64().is_some()
    }

    /// Whether [`Number::as_u64`] succeeds.
    pub(crate) fn is_u64(&self) -> bool {
        self.as_u64().is_some()
    }

    /// Whether the number is written with a fraction or exponent.
    pub(crate) fn is_f64(&self) -> bool {
        !self.is_integer_text()
    }
}

/// Numbers are equal when they denote the same value: integers by their digits, others as `f64`.
impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        if self.is_integer_text() && other.is_integer_text() {
            let ((a_neg, a), (b_neg, b)) = (split_sign(&self.text), split_sign(&other.text));
            return a == b && (a_neg == b_neg || a == "0");
        }
        self.as_f64() == other.as_f64()
    }
}

/// Whether the text is negative, and its digits.
fn split_sign(text: &str) -> (bool, &str) {
    text.strip_prefix('-').map_or((false, text), |digits| (true, digits))
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(n: $t) -> Number {
                Number { text: n.to_string() }
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_normalise_to_the_json_grammar() {
        assert_eq!(Number::parse_literal("007").unwrap().as_str(), "7");
        assert_eq!(Number::parse_literal(".5").unwrap().as_str(), "0.5");
        assert_eq!(Number::parse_literal("-0.25e+3").unwrap().as_str(), "-0.25e+3");
        assert_eq!(Number::parse_literal("0").unwrap().as_str(), "0");
        for bad in ["", "-", "1.", "e3", "1e", "1e+", "0x10", "1,5", " 1", "NaN", "Infinity"] {
            assert!(Number::parse_literal(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn integers_and_floats_read_like_serde_json() {
        let n = Number::parse_literal("42").unwrap();
        assert_eq!((n.as_i64(), n.as_u64(), n.as_f64()), (Some(42), Some(42), Some(42.0)));
        let f = Number::parse_literal("1.0").unwrap();
        assert_eq!((f.as_i64(), f.as_f64()), (None, Some(1.0)));
        let neg = Number::parse_literal("-3").unwrap();
        assert_eq!((neg.as_i64(), neg.as_u64()), (Some(-3), None));
        assert_eq!(Number::parse_literal("18446744073709551615").unwrap().as_u64(), Some(u64::MAX));
    }

    #[test]
    fn from_f64_writes_integers_plainly_and_refuses_non_finite() {
        assert_eq!(Number::from_f64(3.0).unwrap().as_str(), "3");
        assert_eq!(Number::from_f64(-0.5).unwrap().as_f64(), Some(-0.5));
        assert!(Number::from_f64(f64::NAN).is_none());
        assert!(Number::from_f64(f64::INFINITY).is_none());
    }

    #[test]
    fn equality_is_by_value() {
        let n = |s| Number::parse_literal(s).unwrap();
        assert_eq!(n("1"), n("1"));
        assert_eq!(n("1.0"), n("1e0"));
        assert_ne!(n("1"), n("-1"));
        assert_eq!(n("0"), n("-0"));
        assert_ne!(n("2"), n("3"));
    }
}
