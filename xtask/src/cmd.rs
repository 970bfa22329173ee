//! Running external programs (cargo, rustup, wasm-bindgen, wasm-opt, npm, apt-get).
//!
//! Every run is echoed as `$ program args…` so a CI log shows exactly what happened, and every
//! failure — program not installed, or non-zero exit — becomes an [`Error`] naming the program,
//! instead of a panic or a bare exit code.

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::process::{Command, ExitStatus, Stdio};

use crate::error::{Error, Result};

/// A command line rendered for logs: `program arg1 arg2`.
pub fn display(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    parts.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// Explains why `cmd` could not be started, singling out "not installed".
fn spawn_error(cmd: &Command, err: std::io::Error) -> Error {
    let program = cmd.get_program().to_string_lossy();
    if err.kind() == ErrorKind::NotFound {
        Error::msg(format!("`{program}` was not found (is it installed and on PATH?)"))
    } else {
        Error::msg(format!("could not start `{}`: {err}", display(cmd)))
    }
}

/// Turns a non-zero exit into an error naming the command.
fn check_status(cmd: &Command, status: ExitStatus) -> Result<()> {
    if status.success() {
        Ok(())
    } else {
        Err(Error::msg(format!("`{}` failed ({status})", display(cmd))))
    }
}

/// Runs `cmd` with its output streamed straight to ours (so `cargo test` result lines and
/// compiler diagnostics stay visible), failing if it cannot start or exits non-zero.
pub fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {}", display(cmd));
    let status = cmd.status().map_err(|e| spawn_error(cmd, e))?;
    check_status(cmd, status)
}

/// Runs `cmd` quietly and returns its stdout as text; used for version probes, where a
/// failure is an answer ("not installed" / "wrong version"), not something to show the user.
pub fn stdout_of(cmd: &mut Command) -> Result<String> {
    let out = cmd.stdin(Stdio::null()).stderr(Stdio::null()).output().map_err(|e| spawn_error(cmd, e))?;
    check_status(cmd, out.status)?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Builds a [`Command`] for `program` with `args` — a small convenience for call sites.
pub fn command<I, S>(program: impl AsRef<OsStr>, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(program);
    cmd.args(args);
    cmd
}

/// The `cargo` that launched us (cargo sets `$CARGO` for `cargo run`), so nested builds use the
/// same toolchain as `cargo xtask`; falls back to `cargo` on PATH.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}
