//! The wasm test binary (tests/wasm_numbers_node.rs): the library compiled to wasm32 as the package
//! is, run in Node.js by wasm-bindgen-test-runner, checking every path a number takes against
//! JavaScript's own reading of it.
//!
//! The browser runtimes of the package (a page, a dedicated worker, in Chromium, Firefox ESR and
//! WebKitGTK) are the JS suites' (tests/e2e, tests/engines): the client there is the JS driver over
//! the door, which the Rust tests cannot drive. Cargo runs a wasm32 test binary through the program
//! named by `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER`; that is wasm-bindgen-test-runner, which
//! generates the JS glue and spawns `node`. To reproduce the run by hand (from the repository root):
//!
//! ```text
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=~/.cargo/bin/wasm-bindgen-test-runner \
//!   cargo test -p mcp-tasks-web --target wasm32-unknown-unknown --test wasm_numbers_node
//! ```
//!
//! Never with `cargo test -q`: the runner's output parsing breaks under it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::checks::Checks;
use crate::cmd;
use crate::error::{Error, Result};
use crate::toolchain::{self, BuildTools, WASM_TARGET};

/// The cargo package whose tests/ hold the wasm test binaries.
const CRATE: &str = "mcp-tasks-web";

/// The check's name.
const CHECK: &str = "wasm tests: Node";

/// The wasm test binaries (`tests/<name>.rs`), all for Node (no `wasm_bindgen_test_configure!`).
const TEST_TARGETS: [&str; 1] = ["wasm_numbers_node"];

/// Every wasm test binary, for the wasm32 clippy check (xtask/src/lints.rs).
pub fn test_targets() -> impl Iterator<Item = &'static str> {
    TEST_TARGETS.into_iter()
}

/// Variables that would override the runtime a test binary was built for, or point the runner at a
/// browser or driver; cleared so the run means what its name says.
const OVERRIDING_ENV: [&str; 20] = [
    "WASM_BINDGEN_USE_BROWSER",
    "WASM_BINDGEN_USE_DEDICATED_WORKER",
    "WASM_BINDGEN_USE_SHARED_WORKER",
    "WASM_BINDGEN_USE_SERVICE_WORKER",
    "WASM_BINDGEN_USE_NODE_EXPERIMENTAL",
    "WASM_BINDGEN_USE_DENO",
    "WASM_BINDGEN_TEST_ONLY_NODE",
    "WASM_BINDGEN_TEST_ONLY_WEB",
    "NO_HEADLESS",
    "GECKODRIVER",
    "GECKODRIVER_REMOTE",
    "GECKODRIVER_ARGS",
    "SAFARIDRIVER",
    "SAFARIDRIVER_REMOTE",
    "SAFARIDRIVER_ARGS",
    "CHROMEDRIVER",
    "CHROMEDRIVER_REMOTE",
    "CHROMEDRIVER_ARGS",
    "MSEDGEDRIVER",
    "MSEDGEDRIVER_REMOTE",
];

/// How long the runner may wait for one binary's tests, in seconds (its default, 20, is tight for a
/// cold Chromium start on a busy two-core CI machine). An explicit setting in the environment wins.
const TEST_TIMEOUT_SECS: &str = "120";

/// Runs the wasm test binaries in Node as one check. Setup failures (no runner, a compile error)
/// fail the check, with the reason, rather than stopping `cargo xtask test`.
pub fn run(root: &Path, tools: &BuildTools, checks: &mut Checks) {
    checks.run(CHECK, || -> Result<()> {
        let runner =
            toolchain::ensure_test_runner(root, tools).map_err(|e| Error::msg(format!("no test runner: {e}")))?;
        let mut test = test_command(root, &runner, &TEST_TARGETS);
        if let Ok(version) = cmd::stdout_of(&mut cmd::command("node", ["--version"])) {
            eprintln!("xtask: Node.js for the wasm tests: {}", version.trim());
        }
        eprintln!("xtask: with {}", environment(&test));
        let started = Instant::now();
        let outcome = cmd::run(&mut test);
        eprintln!("xtask: {CHECK}: {:.1}s", started.elapsed().as_secs_f64());
        outcome.map_err(|e| Error::msg(format!("{e}; the failing tests are listed above")))
    });
}

/// `cargo test --target wasm32-unknown-unknown --test <target>…`, run through the pinned runner.
/// `--no-fail-fast`: a failing binary must not hide the results of the others.
fn test_command(root: &Path, runner: &Path, test_targets: &[&str]) -> Command {
    let mut test = cmd::cargo();
    test.args(["test", "-p", CRATE, "--target", WASM_TARGET, "--no-fail-fast"]).current_dir(root);
    for target in test_targets {
        test.args(["--test", target]);
    }
    test.env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", runner);
    for name in OVERRIDING_ENV {
        test.env_remove(name);
    }
    if std::env::var_os("WASM_BINDGEN_TEST_TIMEOUT").is_none() {
        test.env("WASM_BINDGEN_TEST_TIMEOUT", TEST_TIMEOUT_SECS);
    }
    test
}

/// The variables a command sets (not those it clears), as `NAME=value …`, so the log shows
/// everything needed to rerun it by hand.
fn environment(command: &Command) -> String {
    let set: Vec<String> = command
        .get_envs()
        .filter_map(|(name, value)| Some(format!("{}={}", name.to_string_lossy(), value?.to_string_lossy())))
        .collect();
    set.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_binary_exists() {
        for target in test_targets() {
            let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join(format!("{target}.rs"));
            assert!(file.is_file(), "{} is missing", file.display());
        }
    }
}
