//! The wasm test binaries (tests/wasm_store_*.rs), each run in the real runtime it is built for:
//! a Chromium page, a Chromium dedicated worker, and Node.js.
//!
//! Each runtime is its own test binary because wasm-bindgen-test reads the runtime from a custom
//! section that `wasm_bindgen_test_configure!` compiles in (see tests/wasm_common/mod.rs). Cargo
//! runs a wasm32 test binary through the program named by
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER`; that is wasm-bindgen-test-runner, which generates
//! the JS glue and either spawns `node` or serves a test page and drives Chromium over WebDriver
//! (`CHROMEDRIVER`). To reproduce one run by hand (from the repository root):
//!
//! ```text
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=~/.cargo/bin/wasm-bindgen-test-runner \
//! CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON=target/wasm-tests/webdriver.json \
//!   cargo test -p mcp-tasks-web --target wasm32-unknown-unknown --test wasm_store_page
//! ```
//!
//! (`target/wasm-tests/webdriver.json` is written by `cargo xtask test`; without it the runner
//! still works, with its own headless defaults and whatever Chromium chromedriver finds.)
//!
//! Never with `cargo test -q`: the runner's output parsing breaks under it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::checks::Checks;
use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::toolchain::{self, Browser, BuildTools, WASM_TARGET};
use crate::workspace;

/// The cargo package whose tests/ hold the wasm test binaries.
const CRATE: &str = "mcp-tasks-web";

/// One runtime: the xtask check it is reported as, and the test binaries built for it (one per
/// concern; add a `tests/wasm_<concern>_<runtime>.rs` here to have it run).
struct Runtime {
    check: &'static str,
    test_targets: &'static [&'static str],
    in_browser: bool,
}

/// Every runtime, in the order they run. A runtime whose setup failed (no browser) fails its own
/// check only; the others still run.
const RUNTIMES: [Runtime; 3] = [
    Runtime { check: "wasm tests: Chromium page", test_targets: &["wasm_store_page"], in_browser: true },
    Runtime { check: "wasm tests: Chromium dedicated worker", test_targets: &["wasm_store_worker"], in_browser: true },
    Runtime { check: "wasm tests: Node", test_targets: &["wasm_store_node"], in_browser: false },
];

/// Command-line switches for Chromium, passed through WebDriver's `goog:chromeOptions`:
/// headless as root (no sandbox: Chromium refuses to sandbox as root), no GPU, `/tmp` instead of a
/// small `/dev/shm` in containers, and nothing that reaches for the network (CI has none beyond
/// package registries, and waiting for it slows every start).
const CHROMIUM_ARGS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
];

/// Variables that would override the runtime a test binary was built for, or point the runner at
/// another browser or driver; cleared so the runs mean what their names say.
const OVERRIDING_ENV: [&str; 12] = [
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
    "CHROMEDRIVER_REMOTE",
];

/// How long the runner may wait for one binary's tests, in seconds (its default, 20, is tight for a
/// cold Chromium start on a busy two-core CI machine). An explicit setting in the environment wins.
const TEST_TIMEOUT_SECS: &str = "120";

/// Builds the wasm test binaries once, then runs each runtime as one check. Setup failures (no
/// runner, no browser, a compile error) fail the checks that need them, with the reason, rather
/// than stopping `cargo xtask test`.
pub fn run(root: &Path, tools: &BuildTools, checks: &mut Checks) {
    let runner = toolchain::ensure_test_runner(root, tools).map_err(|e| e.to_string());
    let browser = toolchain::ensure_browser()
        .and_then(|browser| write_webdriver_json(root, &browser).map(|json| (browser, json)))
        .map_err(|e| e.to_string());
    let built = runner.clone().and_then(|_| build(root).map_err(|e| e.to_string()));

    for runtime in &RUNTIMES {
        checks.run(runtime.check, || -> Result<()> {
            let runner = runner.as_ref().map_err(|e| Error::msg(format!("no test runner: {e}")))?;
            built.as_ref().map_err(|e| Error::msg(format!("the wasm test binaries did not build: {e}")))?;
            let mut test = test_command(root, runner, runtime.test_targets);
            if runtime.in_browser {
                let (browser, webdriver_json) =
                    browser.as_ref().map_err(|e| Error::msg(format!("no browser to test in: {e}")))?;
                test.env("CHROMEDRIVER", &browser.chromedriver).env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", webdriver_json);
            } else if let Ok(version) = cmd::stdout_of(&mut cmd::command("node", ["--version"])) {
                eprintln!("xtask: Node.js for the wasm tests: {}", version.trim());
            }
            eprintln!("xtask: with {}", environment(&test));
            let started = Instant::now();
            let outcome = cmd::run(&mut test);
            eprintln!("xtask: {}: {:.1}s", runtime.check, started.elapsed().as_secs_f64());
            outcome.map_err(|e| Error::msg(format!("{e}; the failing tests are listed above")))
        });
    }
}

/// `cargo test --no-run` for all the wasm test binaries at once, so each runtime's check times
/// only its own run, and a compile error is reported once.
fn build(root: &Path) -> Result<()> {
    let mut build = cmd::cargo();
    build.args(["test", "-p", CRATE, "--target", WASM_TARGET, "--no-run"]).current_dir(root);
    for target in RUNTIMES.iter().flat_map(|runtime| runtime.test_targets) {
        build.args(["--test", target]);
    }
    let started = Instant::now();
    cmd::run(&mut build)?;
    eprintln!("xtask: wasm test binaries built in {:.1}s", started.elapsed().as_secs_f64());
    Ok(())
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

/// The WebDriver capabilities wasm-bindgen-test-runner sends to chromedriver, written to
/// `<target dir>/wasm-tests/webdriver.json` (generated here rather than committed, so the Chromium
/// path and switches live in one place, this file); returns the path.
fn write_webdriver_json(root: &Path, browser: &Browser) -> Result<PathBuf> {
    let dir = workspace::target_dir(root)?.join("wasm-tests");
    std::fs::create_dir_all(&dir).context(format!("creating {}", dir.display()))?;
    let path = dir.join("webdriver.json");
    let text = serde_json::to_string_pretty(&capabilities(&browser.chromium)).context("encoding webdriver.json")?;
    std::fs::write(&path, text + "\n").context(format!("writing {}", path.display()))?;
    Ok(path)
}

/// `{"goog:chromeOptions": {"binary": …, "args": [...]}}`. The runner appends its own `headless`,
/// `no-sandbox` and `disable-dev-shm-usage`; repeating them is harmless and keeps this complete.
fn capabilities(chromium: &Path) -> serde_json::Value {
    serde_json::json!({
        "goog:chromeOptions": {
            "binary": chromium.to_string_lossy(),
            "args": CHROMIUM_ARGS,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_name_the_binary_and_every_switch() {
        let caps = capabilities(Path::new("/usr/bin/chromium"));
        let options = &caps["goog:chromeOptions"];
        assert_eq!(options["binary"], "/usr/bin/chromium");
        let args: Vec<&str> = options["args"].as_array().unwrap().iter().filter_map(|a| a.as_str()).collect();
        assert_eq!(args, CHROMIUM_ARGS);
    }

    #[test]
    fn every_test_binary_exists_and_belongs_to_one_runtime() {
        let mut targets: Vec<&str> = RUNTIMES.iter().flat_map(|r| r.test_targets.iter().copied()).collect();
        let count = targets.len();
        targets.sort_unstable();
        targets.dedup();
        assert_eq!(targets.len(), count, "a test binary is listed under two runtimes");
        for target in targets {
            let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join(format!("{target}.rs"));
            assert!(file.is_file(), "{} is missing", file.display());
        }
    }
}
