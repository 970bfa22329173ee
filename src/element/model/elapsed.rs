//! Elapsed time as the element shows it: short, language-neutral digits (`42s`, `3m 05s`, `2h 03m`).

/// Formats a duration in milliseconds; negative durations (clock skew) show as `0s`.
pub fn format_elapsed(ms: i64) -> String {
    let seconds = ms.max(0).unsigned_abs() / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let mut out = String::new();
    // `text::push_unsigned`, not `format!` (see `text::unsigned`).
    let mut put = |n: u64, width: usize, unit: &str| {
        crate::text::push_unsigned(&mut out, n, width);
        out.push_str(unit);
    };
    if h > 0 {
        put(h, 1, "h ");
        put(m, 2, "m");
    } else if m > 0 {
        put(m, 1, "m ");
        put(s, 2, "s");
    } else {
        put(s, 1, "s");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format_elapsed;

    #[test]
    fn formats_seconds_minutes_and_hours() {
        assert_eq!(format_elapsed(-5_000), "0s");
        assert_eq!(format_elapsed(999), "0s");
        assert_eq!(format_elapsed(42_000), "42s");
        assert_eq!(format_elapsed(185_000), "3m 05s");
        assert_eq!(format_elapsed(7_380_000), "2h 03m");
    }
}
