//! JSON numbers kept as their literal text.
use std::cmp::Ordering;
use std::fmt;

use super::decimal::Decimal;

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
        // By byte, as below: a `char` set or `trim_start_matches` brings the standard library's char
        // searchers (250 B gzip of the card host's module).
        let mantissa_end = unsigned.bytes().position(|b| b == b'e' || b == b'E').unwrap_or(unsigned.len());
        let (mantissa, exponent) = unsigned.split_at_checked(mantissa_end)?;
        let (int, frac) = match crate::text::split_once(mantissa, b'.') {
            Some((int, frac)) => (int, Some(frac)),
            None => (mantissa, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_none()) || (!int.is_empty() && !digits(int)) || frac.is_some_and(|f| !digits(f)) {
            return None;
        }
        if !exponent.is_empty() {
            let exp = exponent.get(1..)?;
            let unsigned_exp = match exp.as_bytes().first() {
                Some(b'+' | b'-') => exp.get(1..).unwrap_or_default(),
                _ => exp,
            };
            if !digits(unsigned_exp) {
                return None;
            }
        }
        let int = int.get(int.bytes().take_while(|&b| b == b'0').count()..).unwrap_or_default();
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
    /// For numbers computed locally (native tools): the client itself never builds one, since a
    /// number that came as text goes back as that text.
    pub(crate) fn from_f64(value: f64) -> Option<Number> {
        value.is_finite().then(|| Number { text: super::float::format_f64(value) })
    }

    /// The literal text.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    fn is_integer_text(&self) -> bool {
        !self.text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
    }

    /// The value as the nearest `f64` (correctly rounded, so exactly what JavaScript's `Number()`
    /// reads; `1e400` is infinity). The client compares and sends numbers as text and never calls
    /// this: the standard library's parser it uses is 10 KB of `.wasm`.
    pub fn as_f64(&self) -> Option<f64> {
        self.text.parse().ok()
    }

    /// The exact value, for comparisons.
    fn decimal(&self) -> Decimal<'_> {
        Decimal::read(&self.text)
    }

    /// Whether the value is a whole number, exactly (`3.0` and `1e3` are; `3.0000000000000001` is not,
    /// though it reads as the double `3`).
    pub(crate) fn is_whole(&self) -> bool {
        self.decimal().is_whole()
    }

    /// The same value written as a plain integer (`3.0` → `3`, `1.5e2` → `150`), for receivers that
    /// want integers without a fraction or exponent. `None` when the value is not whole, or when the
    /// integer would be longer than both the text and 20 digits (`1e400`: better sent as written than
    /// as 401 digits).
    pub(crate) fn to_integer(&self) -> Option<Number> {
        if self.is_integer_text() {
            return Some(self.clone());
        }
        self.decimal().integer_text(self.text.len().max(20)).map(|text| Number { text })
    }

    /// The value as `u64` when it is exactly a whole number in range, however written (`3`, `3.0`,
    /// `3e0`, `-0`), for counts and durations JSON Schema calls `integer`.
    pub(crate) fn as_whole_u64(&self) -> Option<u64> {
        // Written as an integer (as counts nearly always are): read in place, no copy.
        let rewritten;
        let whole = if self.is_integer_text() {
            self
        } else {
            rewritten = self.to_integer()?;
            &rewritten
        };
        if whole.text == "-0" {
            return Some(0);
        }
        whole.as_u64()
    }

    /// The value as `i64` when it is written as an integer in range (`1.0` is not).
    pub fn as_i64(&self) -> Option<i64> {
        integer_value(&self.text)
    }

    /// The value as `u64` when it is written as a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        digits_value(&self.text)
    }

    /// Whether the number is written with a fraction or exponent.
    pub(crate) fn is_f64(&self) -> bool {
        !self.is_integer_text()
    }
}

/// Numbers are equal when they denote exactly the same value (`1.0` = `1e0`, `0` = `-0`), whatever their
/// text; `9007199254740993` and `9007199254740992`, one double apart, are not.
impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Number {}

/// Numbers in the order of their exact values: what a form's `minimum` and `maximum` are checked with.
impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        if self.text == other.text {
            return Ordering::Equal;
        }
        self.decimal().cmp(&other.decimal())
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A number from its text in the JSON number grammar (`"1e400".parse::<Number>()`), kept as written;
/// an error for anything else, including text a browser would accept but JSON does not (`007`, `.5`).
impl std::str::FromStr for Number {
    type Err = NotANumber;

    fn from_str(text: &str) -> Result<Number, NotANumber> {
        Number::parse_literal(text).filter(|n| n.text == text).ok_or(NotANumber)
    }
}

/// Text that is not a JSON number, from `Number`'s `FromStr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotANumber;

impl fmt::Display for NotANumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a JSON number")
    }
}

impl std::error::Error for NotANumber {}

/// The value of `text` when it is an optional `-` and ASCII digits ([`digits_value`]) that fit an `i64`.
pub(crate) fn integer_value(text: &str) -> Option<i64> {
    match text.strip_prefix('-') {
        Some(digits) => digits_value(digits).and_then(|magnitude| 0i64.checked_sub_unsigned(magnitude)),
        None => digits_value(text).and_then(|value| i64::try_from(value).ok()),
    }
}

/// The value of `text` when it is one or more ASCII digits and fits a `u64`: no sign, point or exponent.
/// What the client reads integers with instead of `str::parse`, whose general parser (any radix, a
/// sign) was 850 B of .wasm for `i64` and `u64`.
pub(crate) fn digits_value(text: &str) -> Option<u64> {
    if text.is_empty() {
        return None;
    }
    text.bytes().try_fold(0u64, |value, digit| {
        if digit.is_ascii_digit() {
            value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
        } else {
            None
        }
    })
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

// Written with `text::signed` / `text::unsigned`, not `to_string()` (see there). The `as` casts widen:
// every listed type fits `i64` or `u64` on every target.
macro_rules! from_integer {
    ($write:path, $wide:ty: $($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(n: $t) -> Number {
                Number { text: $write(n as $wide) }
            }
        }
    )*};
}
from_integer!(crate::text::signed, i64: i8, i16, i32, i64, isize);
from_integer!(crate::text::unsigned, u64: u8, u16, u32, u64, usize);

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
    fn from_str_takes_the_json_grammar_only_and_keeps_the_text() {
        for text in ["0", "-0", "1e400", "5e-324", "9007199254740993", "1.50", "-2.5E+3"] {
            assert_eq!(text.parse::<Number>().map(|n| n.as_str().to_owned()), Ok(text.to_owned()));
        }
        for bad in ["007", ".5", "+1", "1.", "", "NaN", " 1"] {
            assert_eq!(bad.parse::<Number>().map(|n| n.as_str().to_owned()), Err(NotANumber), "{bad:?}");
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
        // Each literal read as the standard library's parser reads it, at and past every edge.
        for text in [
            "0",
            "-0",
            "7",
            "-7",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "-18446744073709551616",
            "99999999999999999999",
            "1.5",
            "-2.0",
            "1e3",
            "-1E3",
            "0.0",
        ] {
            let n = Number::parse_literal(text).unwrap();
            let whole = !text.contains(['.', 'e', 'E']);
            assert_eq!(n.as_i64(), text.parse().ok().filter(|_| whole), "{text}");
            assert_eq!(n.as_u64(), text.parse().ok().filter(|_| whole), "{text}");
        }
        assert_eq!((digits_value(""), digits_value("+1"), digits_value("1 ")), (None, None, None));
    }

    #[test]
    fn from_f64_writes_integers_plainly_and_refuses_non_finite() {
        assert_eq!(Number::from_f64(3.0).unwrap().as_str(), "3");
        assert_eq!(Number::from_f64(-0.5).unwrap().as_f64(), Some(-0.5));
        assert!(Number::from_f64(f64::NAN).is_none());
        assert!(Number::from_f64(f64::INFINITY).is_none());
    }

    #[test]
    fn equality_and_order_are_by_exact_value() {
        let n = |s| Number::parse_literal(s).unwrap();
        assert_eq!(n("1"), n("1"));
        assert_eq!(n("1.0"), n("1e0"));
        assert_ne!(n("1"), n("-1"));
        assert_eq!(n("0"), n("-0"));
        assert_ne!(n("2"), n("3"));
        // One double apart, or the same double: still different numbers.
        assert_ne!(n("9007199254740993"), n("9007199254740992"));
        assert_ne!(n("0.1"), n("0.10000000000000000001"));
        assert!(n("0.1") < n("0.10000000000000000001"));
        assert!(n("-1e400") < n("-1.7976931348623157e308"));
        assert!(n("5e-324") > n("-0"));
    }

    #[test]
    fn to_integer_writes_whole_values_plainly() {
        let int = |s| Number::parse_literal(s).unwrap().to_integer().map(|n| n.as_str().to_owned());
        assert_eq!(int("3.0").as_deref(), Some("3"));
        assert_eq!(int("-0.0").as_deref(), Some("-0"));
        assert_eq!(int("1.5e2").as_deref(), Some("150"));
        assert_eq!(int("9007199254740993.0").as_deref(), Some("9007199254740993"));
        assert_eq!(int("123456789012345678901234567890").as_deref(), Some("123456789012345678901234567890"));
        assert_eq!(int("3.0000000000000001"), None);
        assert_eq!(int("0.5"), None);
        // Whole, but 401 digits plainly: None (the caller sends it as written).
        assert_eq!(int("1e400"), None);
        assert!(Number::parse_literal("1e400").unwrap().is_whole());
    }

    #[test]
    fn whole_u64_reads_any_spelling_of_a_count() {
        let whole = |s| Number::parse_literal(s).unwrap().as_whole_u64();
        for (text, n) in [("3", Some(3)), ("3.0", Some(3)), ("3e0", Some(3)), ("-0", Some(0)), ("-0.0", Some(0))] {
            assert_eq!(whole(text), n, "{text}");
        }
        assert_eq!(whole("18446744073709551615.0"), Some(u64::MAX));
        for text in ["-1", "3.5", "2000.0000000000001", "18446744073709551616", "1e400"] {
            assert_eq!(whole(text), None, "{text}");
        }
    }

    #[test]
    fn as_f64_is_correctly_rounded() {
        for (text, x) in [
            ("0.1", 0.1),
            ("203.02700000000002", 203.02700000000002),
            ("5e-324", 5e-324),
            ("2.4703282292062328e-324", 5e-324),
            ("2.2250738585072011e-308", 2.225073858507201e-308),
            ("9007199254740993", 9007199254740992.0),
            ("1e400", f64::INFINITY),
            ("-0", -0.0),
        ] {
            let ours = Number::parse_literal(text).unwrap().as_f64().unwrap();
            assert_eq!(ours.to_bits(), x.to_bits(), "{text}");
        }
    }
}
