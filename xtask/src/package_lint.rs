//! publint and @arethetypeswrong/cli (attw) on the packed tarball, failing on any finding.
//!
//! Both read the tarball a host installs, so a file `files` leaves out, an `exports` condition whose
//! types do not resolve, or metadata a registry wants shows here rather than in a user's build.
//! publint exits 0 on suggestions even with `--strict`, so its report is read: any section heading
//! is a finding. attw runs with its `esm-only` profile, because the package is ES modules only on
//! purpose (top-level await in `deno.mjs`, `import.meta.url` in the glue): `require()` from
//! CommonJS is not offered, and every other rule stays on.

use std::path::Path;
use std::process::Command;

use crate::cmd;
use crate::error::{Context, Error, Result};

/// The headings publint prints before its findings.
const PUBLINT_SECTIONS: [&str; 3] = ["Errors:", "Warnings:", "Suggestions:"];

/// Runs both linters on `tarball`; `Err` lists what they reported.
pub fn run(root: &Path, tarball: &Path) -> Result<()> {
    let bin = root.join("node_modules").join(".bin");
    let mut publint = Command::new(bin.join("publint"));
    publint.arg("run").arg(tarball).args(["--level", "suggestion", "--strict"]).current_dir(root);
    let report = output(&mut publint)?;
    if let Some(section) = publint_findings(&report) {
        return Err(Error::msg(format!("publint reported {section}\n{report}")));
    }
    let mut attw = Command::new(bin.join("attw"));
    attw.arg(tarball).args(["--profile", "esm-only", "--no-emoji", "--no-color"]).current_dir(root);
    output(&mut attw).map(|_| ())
}

/// The first findings heading in a publint report, if any.
fn publint_findings(report: &str) -> Option<&'static str> {
    PUBLINT_SECTIONS.into_iter().find(|heading| report.lines().any(|line| line.trim() == *heading))
}

/// Runs `cmd`, echoes its output, and returns it; a non-zero exit is an error carrying the output.
fn output(cmd: &mut Command) -> Result<String> {
    eprintln!("$ {}", cmd::display(cmd));
    let out = cmd.output().context(format!("starting `{}`", cmd::display(cmd)))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprint!("{text}");
    if out.status.success() {
        Ok(text)
    } else {
        Err(Error::msg(format!("`{}` failed ({})", cmd::display(cmd), out.status)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_publint_suggestion_is_a_finding() {
        assert_eq!(publint_findings("Linting...\nAll good!\n"), None);
        let report = "Linting...\nSuggestions:\n1. The package does not specify the \"engines.node\" field.\n";
        assert_eq!(publint_findings(report), Some("Suggestions:"));
        assert_eq!(publint_findings("Errors:\n1. pkg.exports[\".\"] is missing\n"), Some("Errors:"));
    }
}
