//! The `wasm-bindgen` CLI, at exactly the version of the `wasm-bindgen` crate in Cargo.lock.
//!
//! The CLI reads a schema that the library embeds in the .wasm, and that schema changes between
//! releases without notice, so "close enough" versions fail at build time with a version-mismatch
//! error. We therefore pin with `=` and check `wasm-bindgen --version` every time.

use std::path::{Path, PathBuf};

use crate::cmd;
use crate::error::{Error, Result};
use crate::workspace;

/// Returns the path of a matching `wasm-bindgen`, installing it with `cargo install` if needed.
pub fn ensure(root: &Path) -> Result<PathBuf> {
    let want = workspace::locked_wasm_bindgen(root)?;
    let found = probe_all();
    if let Some((path, _)) = found.iter().find(|(_, version)| *version == want) {
        eprintln!("xtask: wasm-bindgen-cli {want}: installed ({})", path.display());
        return Ok(path.clone());
    }
    match found.first() {
        Some((path, have)) => eprintln!(
            "xtask: wasm-bindgen-cli {have} at {} does not match wasm-bindgen {want} in Cargo.lock; \
             installing {want} with cargo install (several minutes)",
            path.display()
        ),
        None => eprintln!(
            "xtask: wasm-bindgen-cli is missing; installing {want} (the version in Cargo.lock) with cargo install (several minutes)"
        ),
    }
    cargo_install_pinned("wasm-bindgen-cli", &want)?;
    probe_all().into_iter().find(|(_, version)| *version == want).map(|(path, _)| path).ok_or_else(|| {
        Error::msg(format!(
            "installed wasm-bindgen-cli {want}, but no `wasm-bindgen --version` reports {want}; \
                 is {} on PATH?",
            cargo_bin_dir().map(|d| d.display().to_string()).unwrap_or_else(|| "~/.cargo/bin".into())
        ))
    })
}

/// The `wasm-bindgen-test-runner` that `cargo install wasm-bindgen-cli` put next to `wasm_bindgen`
/// (the path [`ensure`] returned), checked to report the same version; reinstalled with `--force`
/// when it is missing or differs (an interrupted or partial install).
///
/// The runner embeds the same schema reader as the CLI, so it must match the `wasm-bindgen` crate
/// in Cargo.lock exactly, like the CLI itself.
pub fn ensure_test_runner(root: &Path, wasm_bindgen: &Path) -> Result<PathBuf> {
    let want = workspace::locked_wasm_bindgen(root)?;
    let runner = wasm_bindgen.with_file_name(format!("wasm-bindgen-test-runner{}", std::env::consts::EXE_SUFFIX));
    let probe = |runner: &Path| {
        cmd::stdout_of(&mut cmd::command(runner, ["--version"]))
            .ok()
            .and_then(|out| parse_tool_version(&out, "wasm-bindgen-test-runner"))
    };
    match probe(&runner) {
        Some(have) if have == want => {
            eprintln!("xtask: wasm-bindgen-test-runner {want}: installed ({})", runner.display());
            return Ok(runner);
        }
        Some(have) => eprintln!(
            "xtask: {} is {have}, not {want} like wasm-bindgen beside it; reinstalling wasm-bindgen-cli {want}",
            runner.display()
        ),
        None => eprintln!(
            "xtask: no working {} beside wasm-bindgen {want}; reinstalling wasm-bindgen-cli {want}",
            runner.display()
        ),
    }
    let pinned = format!("={want}");
    let mut reinstall = cmd::cargo();
    reinstall.args(["install", "wasm-bindgen-cli", "--version", &pinned, "--locked", "--force"]);
    cmd::run(&mut reinstall)?;
    match probe(&runner) {
        Some(have) if have == want => Ok(runner),
        other => Err(Error::msg(format!(
            "after reinstalling wasm-bindgen-cli {want}, {} reports {}",
            runner.display(),
            other.as_deref().unwrap_or("no version")
        ))),
    }
}

/// `cargo install` of `krate` at exactly `version`, with `--locked` first (the crate's own tested
/// dependency set), then without: some registry mirrors lack index entries that an old lockfile names.
pub(super) fn cargo_install_pinned(krate: &str, version: &str) -> Result<()> {
    let pinned = format!("={version}");
    let mut locked = cmd::cargo();
    locked.args(["install", krate, "--version", &pinned, "--locked"]);
    match cmd::run(&mut locked) {
        Ok(()) => Ok(()),
        Err(err) => {
            eprintln!("xtask: {err}; retrying without --locked");
            let mut unlocked = cmd::cargo();
            unlocked.args(["install", krate, "--version", &pinned]);
            cmd::run(&mut unlocked)
        }
    }
}

/// `$CARGO_HOME/bin` (default `~/.cargo/bin`): where `cargo install` puts binaries, checked even
/// when it is not on PATH.
pub(super) fn cargo_bin_dir() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .or_else(|| std::env::var_os("USERPROFILE"))
                .map(|h| PathBuf::from(h).join(".cargo"))
        })
        .map(|home| home.join("bin"))
}

/// Every reachable `wasm-bindgen` with the version it reports, cargo's bin dir first.
fn probe_all() -> Vec<(PathBuf, String)> {
    let exe = format!("wasm-bindgen{}", std::env::consts::EXE_SUFFIX);
    let mut candidates: Vec<PathBuf> =
        cargo_bin_dir().map(|d| d.join(&exe)).into_iter().filter(|p| p.is_file()).collect();
    candidates.push(PathBuf::from("wasm-bindgen"));
    candidates
        .into_iter()
        .filter_map(|path| {
            let out = cmd::stdout_of(&mut cmd::command(&path, ["--version"])).ok()?;
            Some((path, parse_version(&out)?))
        })
        .collect()
}

/// `"wasm-bindgen 0.2.130"` → `"0.2.130"`.
fn parse_version(output: &str) -> Option<String> {
    parse_tool_version(output, "wasm-bindgen")
}

/// `"<tool> 0.2.130"` → `"0.2.130"`, for the CLI and the test runner alike.
fn parse_tool_version(output: &str, tool: &str) -> Option<String> {
    let mut words = output.split_whitespace();
    (words.next()? == tool).then_some(())?;
    words.next().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::{parse_tool_version, parse_version};

    #[test]
    fn parses_cli_version_line() {
        assert_eq!(parse_version("wasm-bindgen 0.2.130\n").as_deref(), Some("0.2.130"));
        assert_eq!(parse_version("something else 1.0"), None);
        assert_eq!(parse_version(""), None);
    }

    #[test]
    fn parses_test_runner_version_line() {
        let line = "wasm-bindgen-test-runner 0.2.130\n";
        assert_eq!(parse_tool_version(line, "wasm-bindgen-test-runner").as_deref(), Some("0.2.130"));
        assert_eq!(parse_tool_version(line, "wasm-bindgen"), None);
    }
}
