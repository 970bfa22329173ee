//! The source gates `cargo xtask test` runs before any test: formatting, then clippy natively and for
//! wasm32, each one counted check with `-D warnings`, so a warning fails it as CI would.
//!
//! Clippy also enforces the library's size rules (the standard sorts, `join`, text-pattern searches,
//! B-trees, `&s[a..b]`, `write!` with `{:?}`): they are listed with their measured cost in clippy.toml
//! and turned on in src/lib.rs, for the shipped library only.

use std::path::Path;

use crate::checks::Checks;
use crate::cmd;
use crate::error::Error;
use crate::toolchain::{self, WASM_TARGET};
use crate::wasm_tests;

/// What each check is reported as (the exact command is echoed when it runs).
const FMT: &str = "formatting: cargo fmt --all --check";
const CLIPPY_NATIVE: &str = "clippy, native: every package and target, -D warnings";
const CLIPPY_WASM: &str =
    "clippy, wasm32: the first door with the element (the library) and the wasm test binaries, -D warnings";
const CLIPPY_LEGACY: &str =
    "clippy, wasm32: the full door (element, legacy) and the decode bench's build (bench), the library, -D warnings";
const CLIPPY_DOOR: &str =
    "clippy, native: the library and its unit tests with the 2025-11-25 flow (legacy), -D warnings";

/// Runs the five checks. Without rustfmt or clippy (and no rustup to add them) the checks that need
/// the missing one fail, saying so; the others still run.
pub fn run(root: &Path, checks: &mut Checks) {
    let tools = toolchain::ensure_lint_tools().map_err(|e| e.to_string());
    let available = || tools.as_ref().map(|_| ()).map_err(|e| Error::msg(format!("rustfmt / clippy unavailable: {e}")));

    checks.run(FMT, || {
        available()?;
        let mut fmt = cmd::cargo();
        fmt.args(["fmt", "--all", "--check"]).current_dir(root);
        cmd::run(&mut fmt).map_err(|e| {
            Error::msg(format!(
                "{e}\nthe diff above is what `cargo fmt --all` changes: run it (settings in rustfmt.toml)"
            ))
        })
    });

    checks.run(CLIPPY_NATIVE, || {
        available()?;
        let mut clippy = cmd::cargo();
        clippy.args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]).current_dir(root);
        cmd::run(&mut clippy).map_err(clippy_failed)
    });

    // The first door as `cargo xtask build` compiles it (wasm32, with the element), and the wasm test
    // binaries, which are `cfg(target_arch = "wasm32")` and so invisible to the native run. Not
    // `--all-targets`: the property tests and benches depend on crates that do not build for wasm32.
    checks.run(CLIPPY_WASM, || {
        available()?;
        let mut clippy = cmd::cargo();
        clippy.args(["clippy", "-p", "mcp-tasks-web", "--target", WASM_TARGET, "--features", "element", "--lib"]);
        for target in wasm_tests::test_targets() {
            clippy.args(["--test", target]);
        }
        clippy.args(["--", "-D", "warnings"]).current_dir(root);
        cmd::run(&mut clippy).map_err(clippy_failed)
    });

    // The `legacy` and `bench` features' code is in no default cargo build: lint it as `cargo xtask
    // build` (the full door) and `cargo xtask bench decode` compile it.
    checks.run(CLIPPY_LEGACY, || {
        available()?;
        for features in ["element,legacy", "bench"] {
            let mut clippy = cmd::cargo();
            clippy.args(["clippy", "-p", "mcp-tasks-web", "--target", WASM_TARGET, "--features", features, "--lib"]);
            clippy.args(["--", "-D", "warnings"]).current_dir(root);
            cmd::run(&mut clippy).map_err(clippy_failed)?;
        }
        Ok::<(), Error>(())
    });

    // The door's native tests of the 2025-11-25 flow, which only a build with `legacy` has.
    checks.run(CLIPPY_DOOR, || {
        available()?;
        let mut native = cmd::cargo();
        native.args(["clippy", "-p", "mcp-tasks-web", "--lib", "--tests", "--features", "legacy"]);
        native.args(["--", "-D", "warnings"]).current_dir(root);
        cmd::run(&mut native).map_err(clippy_failed)
    });
}

/// The failure of a clippy run, with where to look.
fn clippy_failed(e: Error) -> Error {
    Error::msg(format!(
        "{e}\nfix the warnings above (`-D warnings` makes each one fail this check); for a size rule, \
         clippy.toml says what it costs and what to use instead"
    ))
}
