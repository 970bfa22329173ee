//! Builds and runs the reference server (`server/`) for the demo and for the suites that need a real
//! peer. A started server is an RAII value: dropping it kills the process we started, by its PID.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::cmd;
use crate::error::{Context, Error, Result};

/// The server binary's package and file name.
const PACKAGE: &str = "mcp-tasks-server";

/// Builds the server (dev profile, shared with `cargo test`) and returns the binary's path.
pub fn build(root: &Path) -> Result<PathBuf> {
    let mut build = cmd::cargo();
    build.args(["build", "--package", PACKAGE, "--bin", PACKAGE]).current_dir(root);
    cmd::run(&mut build)?;
    let exe = root.join("target").join("debug").join(format!("{PACKAGE}{}", std::env::consts::EXE_SUFFIX));
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(Error::msg(format!("the build finished but {} is missing", exe.display())))
    }
}

/// A server process we started; killed when dropped.
#[must_use = "dropping the server stops it"]
pub struct ServerProcess {
    child: Child,
    /// The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`.
    pub url: String,
}

impl ServerProcess {
    /// Starts `exe` on a free loopback port with `args`, and waits for its "listening on" line.
    pub fn start(exe: &Path, args: &[&str]) -> Result<Self> {
        let mut command = Command::new(exe);
        command.args(["--listen", "127.0.0.1:0"]).args(args).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().context(format!("starting {}", exe.display()))?;
        match read_first_line(&mut child) {
            Some(url) => Ok(Self { child, url }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(Error::msg(format!("{} did not report its address", exe.display())))
            }
        }
    }
}

/// Reads the first stdout line, "… listening on <url> (…)": the URL.
fn read_first_line(child: &mut Child) -> Option<String> {
    let stdout = child.stdout.take()?;
    let mut lines = BufReader::new(stdout).lines();
    let line = lines.next()?.ok()?;
    let url = line.split_whitespace().find(|w| w.starts_with("http://"))?.to_owned();
    // Keep draining stdout in the background so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Some(url)
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `cargo xtask demo`: the server with the demo page and the built package, in the foreground, and a
/// second reference server in the background (a chat host talks to several MCP servers: the page
/// opens one client for each, and its list shows both servers' tasks).
pub fn run_demo(root: &Path, exe: &Path, pkg: &Path) -> Result<()> {
    let second = ServerProcess::start(exe, &[])?;
    let mut demo = Command::new(exe);
    demo.args(["--www", "www", "--pkg"]).arg(pkg).current_dir(root);
    eprintln!(
        "xtask: starting the reference server with the demo page, and a second one at {}; open http://127.0.0.1:8787/?second={} (Ctrl-C stops both)",
        second.url, second.url
    );
    let outcome = cmd::run(&mut demo);
    drop(second);
    outcome
}
