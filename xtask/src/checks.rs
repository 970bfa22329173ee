//! Tally of the checks `cargo xtask test` runs itself, ending in one plain summary line.
//!
//! CI tooling reads a final `N passed, M failed` line to know what ran, and people read the
//! per-check lines to know what broke; a failed check does not stop the later independent ones,
//! so one run reports every problem.

use std::fmt::Display;

/// Counts of passed, failed and skipped checks.
#[derive(Default)]
pub struct Checks {
    passed: usize,
    failed: usize,
    skipped: usize,
    known: usize,
}

impl Checks {
    /// Runs one named check, printing its outcome; returns its value when it passed.
    pub fn run<T, E: Display>(&mut self, name: &str, check: impl FnOnce() -> Result<T, E>) -> Option<T> {
        eprintln!("xtask: check: {name} ...");
        match check() {
            Ok(value) => {
                self.passed += 1;
                eprintln!("xtask: check: {name}: ok");
                Some(value)
            }
            Err(err) => {
                self.failed += 1;
                eprintln!("xtask: check: {name}: FAILED\n  {}", err.to_string().replace('\n', "\n  "));
                None
            }
        }
    }

    /// Records a check that could not run because one it depends on failed.
    pub fn skip(&mut self, name: &str, because: &str) {
        self.skipped += 1;
        eprintln!("xtask: check: {name}: skipped ({because})");
    }

    /// Records a check that failed and is listed as a known failure: printed, not counted as a pass,
    /// and not failing the run.
    pub fn known(&mut self, name: &str, why: &str) {
        self.known += 1;
        eprintln!("xtask: check: {name}: known failing, not counted as pass\n  {}", why.replace('\n', "\n  "));
    }

    /// Whether every check that ran passed and none was skipped.
    pub fn all_passed(&self) -> bool {
        self.failed == 0 && self.skipped == 0
    }

    /// The closing line, e.g. `xtask: 3 passed, 0 failed` (`, N skipped` only when some were).
    pub fn summary(&self) -> String {
        let mut line = format!("xtask: {} passed, {} failed", self.passed, self.failed);
        if self.skipped > 0 {
            line.push_str(&format!(", {} skipped", self.skipped));
        }
        if self.known > 0 {
            line.push_str(&format!(", {} known failing (not counted as pass)", self.known));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_outcomes() {
        let mut checks = Checks::default();
        assert_eq!(checks.run("ok", || Ok::<_, String>(1)), Some(1));
        assert_eq!(checks.summary(), "xtask: 1 passed, 0 failed");
        assert!(checks.all_passed());
        assert_eq!(checks.run("bad", || Err::<(), _>("boom")), None);
        checks.skip("later", "bad failed");
        assert_eq!(checks.summary(), "xtask: 1 passed, 1 failed, 1 skipped");
        assert!(!checks.all_passed());
        checks.known("client bug", "tracked");
        assert_eq!(checks.summary(), "xtask: 1 passed, 1 failed, 1 skipped, 1 known failing (not counted as pass)");
    }
}
