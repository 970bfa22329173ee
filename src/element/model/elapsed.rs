//! Elapsed time as the element shows it: short, language-neutral digits (`42s`, `3m 05s`, `2h 03m`).

/// Formats a duration in milliseconds; negative durations (clock skew) show as `0s`.
pub fn format_elapsed(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}h {m:02}m")
    } else if m > 0 {
        format!("{m}m {s:02}s")
    } else {
        format!("{s}s")
    }
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
