//! What passed in which engine: every engine check is recorded here as well as in [`crate::checks::Checks`],
//! and `cargo xtask test` prints one line per engine before its closing line, so a run shows at a glance
//! that Chromium, Firefox and WebKit were each tested, and with what result.

use super::Engine;

/// Engine checks and their outcomes, in the order they ran.
#[derive(Default)]
pub struct EngineTally {
    rows: Vec<(Engine, String, bool)>,
}

impl EngineTally {
    /// Records that `check` ran in `engine` and whether it passed.
    pub fn record(&mut self, engine: Engine, check: &str, passed: bool) {
        self.rows.push((engine, check.to_owned(), passed));
    }

    /// One line per engine that ran checks: `xtask: engine Firefox ESR: 5 passed, 0 failed`, then the
    /// checks that passed and those that failed. (`cargo xtask test` records every engine, so a missing
    /// line there means a check forgot to record; `cargo xtask engines` runs only those named.)
    pub fn lines(&self) -> Vec<String> {
        Engine::ALL
            .iter()
            .filter(|&&engine| self.rows.iter().any(|(e, _, _)| *e == engine))
            .map(|&engine| {
                let of = |passed: bool| -> Vec<&str> {
                    self.rows
                        .iter()
                        .filter(|(e, _, p)| *e == engine && *p == passed)
                        .map(|(_, c, _)| c.as_str())
                        .collect()
                };
                let (passed, failed) = (of(true), of(false));
                let mut line =
                    format!("xtask: engine {}: {} passed, {} failed", engine.name(), passed.len(), failed.len());
                if !passed.is_empty() {
                    line.push_str(&format!("\n  passed: {}", passed.join("; ")));
                }
                if !failed.is_empty() {
                    line.push_str(&format!("\n  FAILED: {}", failed.join("; ")));
                }
                line
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_engine_with_its_checks() {
        let mut tally = EngineTally::default();
        tally.record(Engine::Firefox, "wasm tests: Firefox ESR page", true);
        tally.record(Engine::Firefox, "end to end in Firefox ESR", false);
        tally.record(Engine::WebKit, "wasm tests: WebKitGTK page", true);
        let lines = tally.lines();
        assert_eq!(lines.len(), 2, "Chromium ran nothing, so it has no line");
        assert_eq!(
            lines[0],
            "xtask: engine Firefox ESR: 1 passed, 1 failed\n  passed: wasm tests: Firefox ESR page\n  FAILED: end to end in Firefox ESR"
        );
        assert_eq!(lines[1], "xtask: engine WebKitGTK: 1 passed, 0 failed\n  passed: wasm tests: WebKitGTK page");
    }
}
