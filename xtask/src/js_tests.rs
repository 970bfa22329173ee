//! JavaScript test suites run with Node's built-in test runner: the `TaskClient` tests in Node
//! (`tests/js/`) and the end-to-end tests in headless Chromium (`tests/e2e/`). They start reference
//! servers themselves from the binary named in `MCP_TASKS_SERVER`.

use std::path::Path;
use std::process::Command;

use crate::cmd;
use crate::error::{Error, Result};

/// Runs every `*.test.mjs` under `dir` with `node --test`.
pub fn run(root: &Path, dir: &str, server_exe: &Path) -> Result<()> {
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
    let mut node = Command::new("node");
    node.arg("--test").args(&files).env("MCP_TASKS_SERVER", server_exe).current_dir(root);
    cmd::run(&mut node)
}
