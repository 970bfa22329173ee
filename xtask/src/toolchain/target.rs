//! The `wasm32-unknown-unknown` Rust target: without its standard library, `cargo build
//! --target wasm32-unknown-unknown` fails with an obscure "can't find crate for `core`".

use std::path::PathBuf;

use crate::cmd;
use crate::error::{Error, Result};

/// The target the browser package is compiled for.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// Installs the target with rustup when it is missing.
pub fn ensure() -> Result<()> {
    match installed_per_rustup() {
        Ok(true) => {
            eprintln!("xtask: rust target {WASM_TARGET}: installed");
            Ok(())
        }
        Ok(false) => {
            eprintln!("xtask: rust target {WASM_TARGET} is missing; installing it with rustup");
            cmd::run(&mut cmd::command("rustup", ["target", "add", WASM_TARGET]))
        }
        // No rustup (e.g. a distro toolchain): we cannot install, but may already have it.
        Err(rustup_err) => {
            if installed_in_sysroot() {
                eprintln!("xtask: rust target {WASM_TARGET}: installed (no rustup)");
                Ok(())
            } else {
                Err(Error::msg(format!(
                    "the rust target {WASM_TARGET} is missing and rustup is unavailable ({rustup_err}); \
                     install rustup (https://rustup.rs) or your distribution's wasm32 Rust standard library"
                )))
            }
        }
    }
}

/// Asks rustup for the active toolchain's installed targets.
fn installed_per_rustup() -> Result<bool> {
    let list = cmd::stdout_of(&mut cmd::command("rustup", ["target", "list", "--installed"]))?;
    Ok(list.lines().any(|line| line.trim() == WASM_TARGET))
}

/// Whether the active rustc's sysroot has the target's libraries (the rustup-less check).
fn installed_in_sysroot() -> bool {
    cmd::stdout_of(&mut cmd::command("rustc", ["--print", "target-libdir", "--target", WASM_TARGET]))
        .map(|dir| PathBuf::from(dir.trim()).is_dir())
        .unwrap_or(false)
}
