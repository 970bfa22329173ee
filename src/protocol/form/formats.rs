//! Checks for the string `format`s a text field may declare: email, uri, date, date-time.
//!
//! The calendar rules (leap years, month lengths) are shared with [`crate::protocol::timestamp`];
//! the date-time grammar is the form's own (stricter: `T` is required as the separator).

use crate::protocol::timestamp::days_in_month;

fn has_space_or_control(s: &str) -> bool {
    s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// One `@`, non-empty local part, a domain with a dot between non-empty labels, no spaces.
pub(super) fn is_email(s: &str) -> bool {
    if has_space_or_control(s) {
        return false;
    }
    let Some((local, domain)) = crate::text::split_once(s, b'@') else {
        return false;
    };
    !local.is_empty()
        && !domain.bytes().any(|b| b == b'@')
        && domain.bytes().any(|b| b == b'.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && crate::text::find(domain, "..").is_none()
}

/// `scheme:rest` with scheme `[A-Za-z][A-Za-z0-9+.-]*`, non-empty rest, no spaces.
pub(super) fn is_uri(s: &str) -> bool {
    if has_space_or_control(s) {
        return false;
    }
    let Some((scheme, rest)) = crate::text::split_once(s, b':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let starts_alpha = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    starts_alpha && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')) && !rest.is_empty()
}

/// Reads `len` (≤ 4) ASCII digits at `start`.
fn digits(b: &[u8], start: usize, len: usize) -> Option<u32> {
    let slice = b.get(start..start.checked_add(len)?)?;
    let mut n = 0u32;
    for &c in slice {
        // ASCII digits only (`to_digit` would also refuse others); at most 4 of them, so
        // this never saturates; saturating keeps it obviously panic-free.
        let d = char::from(c).to_digit(10)?;
        n = n.saturating_mul(10).saturating_add(d);
    }
    Some(n)
}

/// Checks `YYYY-MM-DD` at the start of `b` (exactly 10 bytes are read).
fn date_prefix_ok(b: &[u8]) -> bool {
    let (Some(y), Some(m), Some(d)) = (digits(b, 0, 4), digits(b, 5, 2), digits(b, 8, 2)) else {
        return false;
    };
    // The month is range-checked here: the shared `days_in_month` answers 31 for any month outside 1..=12.
    b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && (1..=12).contains(&m)
        && d >= 1
        && i64::from(d) <= days_in_month(i64::from(y), i64::from(m))
}

pub(super) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && date_prefix_ok(b)
}

/// RFC 3339 date-time; `T`/`Z` may be lower case (RFC 3339 §5.6 note); seconds may be 60 (leap second).
pub(super) fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if !date_prefix_ok(b) || !matches!(b.get(10), Some(b'T' | b't')) {
        return false;
    }
    let (Some(hh), Some(mm), Some(ss)) = (digits(b, 11, 2), digits(b, 14, 2), digits(b, 17, 2)) else {
        return false;
    };
    if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') || hh > 23 || mm > 59 || ss > 60 {
        return false;
    }
    let Some(mut rest) = b.get(19..) else {
        return false;
    };
    if let Some((b'.', frac)) = rest.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        match frac.get(n..) {
            Some(after) if n > 0 => rest = after,
            _ => return false,
        }
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2], 0, 2), digits(&[*m1, *m2], 0, 2)),
                (Some(oh), Some(om)) if oh <= 23 && om <= 59)
        }
        _ => false,
    }
}
