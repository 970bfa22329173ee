//! Exact decimal arithmetic on the text of a JSON number: order, wholeness, the plain integer form.
//!
//! Why not `f64`: reading a number as a double rounds it, so `9007199254740993` would equal
//! `9007199254740992`, `0.10000000000000000001` would not be above a maximum of `0.1`, and an integer
//! field's `3.0000000000000001` would pass as `3`. Working on the digits is exact for every number the
//! grammar allows, needs no tables of powers (the `.wasm` size budget), and never formats a double. It
//! is also never looser than a server that compares doubles: rounding is monotonic, so a value within
//! its bounds here is within them as doubles too.

use std::cmp::Ordering;

/// Exponents are read up to this magnitude; beyond it (`1e99999999999999999`) they saturate, so two
/// such numbers of the same digits compare equal. Far past anything `f64` or a person can mean, and
/// small enough that adding the digit count can never overflow.
const MAX_EXPONENT: i64 = 1 << 50;

/// A number's exact value, `0.DIGITS × 10^point` with the sign apart, read in place from its text.
#[derive(Debug)]
pub(super) struct Decimal<'a> {
    negative: bool,
    /// The text from the first significant digit to the last non-zero one: the digits, perhaps with
    /// the point among them. Empty for zero.
    significant: &'a [u8],
    /// Where the decimal point goes, counted in digits from the left of `significant` (0 for zero).
    point: i64,
}

impl<'a> Decimal<'a> {
    /// Reads text in the JSON number grammar (what [`super::Number`] holds), in one pass over its bytes
    /// and without allocating (comparisons are frequent). Only that grammar is meant; other text still
    /// reads as some value, without panicking.
    pub(super) fn read(text: &'a str) -> Decimal<'a> {
        let bytes = text.as_bytes();
        let negative = bytes.first() == Some(&b'-');
        let mut at = usize::from(negative);
        let (mut first, mut last) = (None, 0);
        let mut point: i64 = 0;
        let mut after_dot = false;
        while let Some(&b) = bytes.get(at) {
            match b {
                b'.' => after_dot = true,
                b'0' if first.is_none() => point -= i64::from(after_dot),
                b'0'..=b'9' => {
                    first = first.or(Some(at));
                    point += i64::from(!after_dot);
                    if b != b'0' {
                        last = at;
                    }
                }
                _ => break,
            }
            at += 1;
        }
        let Some(significant) = first.and_then(|first| bytes.get(first..=last)) else {
            return Decimal { negative, significant: &[], point: 0 };
        };
        // The exponent, after the `e`/`E`; saturated rather than overflowing.
        let (mut sign, mut e) = (1, 0i64);
        for &b in bytes.get(at + 1..).unwrap_or_default() {
            match b {
                b'-' => sign = -1,
                b'+' => {}
                _ => e = (e * 10 + i64::from(b.wrapping_sub(b'0') % 10)).min(MAX_EXPONENT),
            }
        }
        Decimal { negative, significant, point: point + sign * e }
    }

    fn is_zero(&self) -> bool {
        self.significant.is_empty()
    }

    /// The significant digits, as ASCII.
    fn digits(&self) -> impl Iterator<Item = u8> + 'a {
        self.significant.iter().copied().filter(|&b| b != b'.')
    }

    /// How many significant digits there are.
    fn digit_count(&self) -> usize {
        self.significant.len() - usize::from(self.significant.contains(&b'.'))
    }

    /// Whether the value is a whole number (`3`, `3.0`, `1e3`, `-0`; not `3.5` or `1e-3`).
    pub(super) fn is_whole(&self) -> bool {
        self.is_zero() || self.digit_count() as i64 <= self.point
    }

    /// The value as plain integer text (`3.0` → `3`, `1.5e2` → `150`, `-0.0` → `-0`: the sign is kept,
    /// so JavaScript still reads `-0`), when it is whole and that text is at most `limit` digits long.
    pub(super) fn integer_text(&self, limit: usize) -> Option<String> {
        if !self.is_whole() {
            return None;
        }
        // Compared as i64: on wasm32 a saturated exponent (`1e999…`) does not fit a usize.
        let len = self.point.max(1);
        if len > i64::try_from(limit).unwrap_or(i64::MAX) {
            return None;
        }
        let len = usize::try_from(len).ok()?;
        let mut out = String::with_capacity(len + 1);
        if self.negative {
            out.push('-');
        }
        if self.is_zero() {
            out.push('0');
        } else {
            out.extend(self.digits().map(char::from));
            out.extend(std::iter::repeat_n('0', len - self.digit_count()));
        }
        Some(out)
    }
}

/// The numeric order, exactly; `-0` equals `0`.
impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Self| {
            if d.is_zero() {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        let (a, b) = (sign(self), sign(other));
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        // Same sign, both non-zero: a larger point is a larger magnitude; at the same point, the digits
        // decide as text (no trailing zeros, so a prefix is the smaller number: 0.12 < 0.123).
        let magnitude = self.point.cmp(&other.point).then_with(|| self.digits().cmp(other.digits()));
        if a < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialEq for Decimal<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal<'_> {}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;
    use std::cmp::Ordering::{self, Equal, Greater, Less};

    fn cmp(a: &str, b: &str) -> Ordering {
        Decimal::read(a).cmp(&Decimal::read(b))
    }

    #[test]
    fn orders_exactly_where_doubles_round() {
        for (a, b, order) in [
            ("0", "-0", Equal),
            ("0.0e5", "-0e-3", Equal),
            ("1", "1.0", Equal),
            ("1e3", "1000", Equal),
            ("0.001", "1e-3", Equal),
            ("120", "1.2e2", Equal),
            ("9007199254740993", "9007199254740992", Greater),
            ("0.10000000000000000001", "0.1", Greater),
            ("0.12", "0.123", Less),
            ("2", "123", Less),
            ("-2", "-123", Greater),
            ("-0.5", "0", Less),
            ("5e-324", "0", Greater),
            ("1e400", "1.7976931348623157e308", Greater),
            ("-1e400", "-1e399", Less),
            ("1e-400", "0", Greater),
            ("00012", "12", Equal),
        ] {
            assert_eq!(cmp(a, b), order, "{a} vs {b}");
            assert_eq!(cmp(b, a), order.reverse(), "{b} vs {a}");
        }
    }

    #[test]
    fn wholeness_and_integer_text() {
        for (text, whole) in [
            ("3", Some("3")),
            ("3.0", Some("3")),
            ("-0.0", Some("-0")),
            ("0e7", Some("0")),
            ("1.5e2", Some("150")),
            ("1E+3", Some("1000")),
            ("12300e-2", Some("123")),
            ("9007199254740993.000", Some("9007199254740993")),
            ("3.5", None),
            ("1e-3", None),
            ("3.0000000000000001", None),
        ] {
            assert_eq!(Decimal::read(text).integer_text(20).as_deref(), whole, "{text}");
            assert_eq!(Decimal::read(text).is_whole(), whole.is_some(), "{text}");
        }
        // Whole, but longer than the limit: no text (the caller keeps the original).
        assert!(Decimal::read("1e400").is_whole());
        assert_eq!(Decimal::read("1e400").integer_text(20), None);
        assert_eq!(Decimal::read("1e20").integer_text(20), None);
        assert_eq!(Decimal::read("1e19").integer_text(20).as_deref(), Some("10000000000000000000"));
    }

    #[test]
    fn huge_exponents_saturate_without_panicking() {
        let big = "1e999999999999999999999999999999";
        assert_eq!(cmp(big, "1e400"), Greater);
        assert_eq!(cmp(&format!("-{big}"), "-1e400"), Less);
        assert_eq!(cmp("1e-999999999999999999999999999999", "0"), Greater);
        assert_eq!(Decimal::read(big).integer_text(64), None);
        assert_eq!(Decimal::read("1e999999999999999999999").integer_text(23), None);
    }
}
