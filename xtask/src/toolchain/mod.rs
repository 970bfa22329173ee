//! Makes sure the tools the wasm build needs are present, installing what is missing.
//!
//! A fresh CI machine or a newcomer's laptop has only Rust and Node; everything else
//! (the wasm target, the exact wasm-bindgen CLI, binaryen, a browser) is installed here on
//! demand, with one line per tool saying what was missing and what we are doing about it.
//! Each tool lives in its own module because each has its own notion of "right version".

mod apt;
mod bindgen;
mod browser;
mod components;
mod engines;
mod geckodriver;
mod npm;
mod target;

use std::path::{Path, PathBuf};

use crate::error::Result;

pub use engines::{Firefox, WebKit};
pub use npm::WASM_OPT_FEATURES;
pub use target::WASM_TARGET;

/// Where the build tools ended up, so the build runs exactly the binaries we checked.
pub struct BuildTools {
    /// The `wasm-bindgen` CLI whose version matches Cargo.lock.
    pub wasm_bindgen: PathBuf,
    /// binaryen's `wasm-opt` from node_modules, run through `node`.
    pub wasm_opt: npm::NodeScript,
    /// `esbuild` from node_modules (same lockfile), which minifies the shipped JS. Run as is: its
    /// install step replaces the JS launcher with the native binary.
    pub esbuild: PathBuf,
}

/// Ensures the rust target, the wasm-bindgen CLI and the npm packages: everything
/// `cargo xtask build` needs.
pub fn ensure_build_tools(root: &Path) -> Result<BuildTools> {
    target::ensure()?;
    let wasm_bindgen = bindgen::ensure(root)?;
    let wasm_opt = npm::ensure(root)?;
    let esbuild = root.join("node_modules/esbuild/bin/esbuild");
    Ok(BuildTools { wasm_bindgen, wasm_opt, esbuild })
}

/// Ensures rustfmt and clippy, for the source checks.
pub fn ensure_lint_tools() -> Result<()> {
    components::ensure()
}

/// Ensures headless Chromium and its WebDriver, for the browser tests.
pub fn ensure_browser() -> Result<Browser> {
    browser::ensure()?;
    Ok(Browser { chromium: PathBuf::from(browser::CHROMIUM), chromedriver: PathBuf::from(browser::CHROMEDRIVER) })
}

/// Ensures Firefox ESR and geckodriver, for the browser tests in Firefox.
pub fn ensure_firefox() -> Result<Firefox> {
    engines::ensure_firefox()
}

/// Ensures WebKitGTK's WebDriver (with MiniBrowser) and xvfb-run, for the browser tests in WebKit.
pub fn ensure_webkit() -> Result<WebKit> {
    engines::ensure_webkit()
}

/// Where the browser tests' binaries are, once [`ensure_browser`] has made sure they exist.
pub struct Browser {
    /// Chromium itself, named in the WebDriver capabilities so chromedriver never guesses.
    pub chromium: PathBuf,
    /// chromedriver, handed to wasm-bindgen-test-runner as `CHROMEDRIVER`.
    pub chromedriver: PathBuf,
}

/// Ensures the `wasm-bindgen-test-runner` beside the build's `wasm-bindgen` (same directory, same
/// version as the `wasm-bindgen` crate in Cargo.lock), for the wasm tests; returns its path.
pub fn ensure_test_runner(root: &Path, tools: &BuildTools) -> Result<PathBuf> {
    bindgen::ensure_test_runner(root, &tools.wasm_bindgen)
}
