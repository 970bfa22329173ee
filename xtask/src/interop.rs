//! The interop check with the official TypeScript requester (`@modelcontextprotocol/ext-tasks` 0.2.2):
//! `tests/interop/ext-tasks-interop.mjs` drives a build, an approval, a failure and a cancel against
//! the reference server.

use std::path::Path;
use std::process::Command;

use crate::cmd;
use crate::error::Result;

/// Runs the script with the system Node against `url`; its own output says what passed.
pub fn run(root: &Path, url: &str) -> Result<()> {
    let mut script = Command::new("node");
    script.arg(root.join("tests/interop/ext-tasks-interop.mjs")).arg(url).current_dir(root);
    cmd::run(&mut script)
}
