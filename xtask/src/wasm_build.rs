//! The pipeline that turns the Rust crate into the npm package in pkg/:
//! cargo (wasm32) → wasm-bindgen (`--target web`) → wasm-opt -Oz → pkg-template.
//!
//! `--target web` emits a plain ES module with an async `init()`, which works unbundled in
//! browsers, workers and edge runtimes — the hosts this package is for. wasm-opt runs after
//! wasm-bindgen because wasm-bindgen rewrites the module (removing its schema section and glue
//! shims), and optimising the final bytes is what shrinks the download.

use std::path::{Path, PathBuf};

use crate::cmd;
use crate::error::{Context, Result};
use crate::template;
use crate::toolchain::{BuildTools, WASM_TARGET};
use crate::workspace;

/// The cargo package that becomes the npm package.
const CRATE: &str = "mcp-tasks-web";
/// wasm-bindgen's `--out-name`, also the stem of every generated file.
const OUT_NAME: &str = "mcp_tasks_web";

/// Features wasm-opt must accept: the ones rustc's wasm32 target enables by default (Rust 1.82+;
/// the last two since LLVM 20) and records in the module's `target_features` section, which is
/// what `wasm-opt --print-features` reports for our module. binaryen rejects instructions from
/// features that are not enabled, so we list them explicitly rather than rely on detection.
const WASM_OPT_FEATURES: [&str; 8] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
    "--enable-bulk-memory-opt",
    "--enable-call-indirect-overlong",
];

/// The files a built package is made of that the size report and checks look at.
pub struct Pkg {
    /// pkg/ itself.
    pub dir: PathBuf,
    /// The optimised module, pkg/mcp_tasks_web_bg.wasm.
    pub wasm: PathBuf,
    /// The JS glue, pkg/mcp_tasks_web.js.
    pub js: PathBuf,
}

/// Builds pkg/ from scratch (a stale file from an older build must never ship).
pub fn build(root: &Path, tools: &BuildTools) -> Result<Pkg> {
    let raw_wasm = compile(root)?;
    let pkg = Pkg {
        dir: root.join("pkg"),
        wasm: root.join("pkg").join(format!("{OUT_NAME}_bg.wasm")),
        js: root.join("pkg").join(format!("{OUT_NAME}.js")),
    };
    if pkg.dir.exists() {
        std::fs::remove_dir_all(&pkg.dir).context(format!("removing the old {}", pkg.dir.display()))?;
    }
    bindgen(root, tools, &raw_wasm, &pkg.dir)?;
    optimise(tools, &pkg.wasm)?;
    template::install(&root.join("pkg-template"), &pkg.dir, &workspace::crate_version(root)?)?;
    Ok(pkg)
}

/// Cargo features of the shipped package: the client plus the `<mcp-task>` views (pkg/element.js needs them).
const FEATURES: &str = "element";

/// `cargo build --release` for wasm32; returns the raw .wasm path.
fn compile(root: &Path) -> Result<PathBuf> {
    let mut build = cmd::cargo();
    build
        .args(["build", "-p", CRATE, "--lib", "--target", WASM_TARGET, "--release", "--features", FEATURES])
        .current_dir(root);
    cmd::run(&mut build)?;
    let wasm = workspace::target_dir(root)?.join(WASM_TARGET).join("release").join(format!("{OUT_NAME}.wasm"));
    if wasm.is_file() {
        Ok(wasm)
    } else {
        Err(crate::error::Error::msg(format!("cargo build succeeded but {} does not exist", wasm.display())))
    }
}

/// Generates the JS glue and TypeScript types next to the processed .wasm.
fn bindgen(root: &Path, tools: &BuildTools, raw_wasm: &Path, out_dir: &Path) -> Result<()> {
    let mut bindgen = cmd::command(&tools.wasm_bindgen, ["--target", "web", "--out-name", OUT_NAME, "--out-dir"]);
    bindgen.arg(out_dir).arg(raw_wasm).current_dir(root);
    cmd::run(&mut bindgen)
}

/// `wasm-opt -Oz` in place, via a temporary file so an interrupted run leaves no half-written module.
fn optimise(tools: &BuildTools, wasm: &Path) -> Result<()> {
    let tmp = wasm.with_extension("wasm.opt");
    let mut opt = tools.wasm_opt.command();
    opt.arg("-Oz").args(WASM_OPT_FEATURES).arg(wasm).arg("-o").arg(&tmp);
    cmd::run(&mut opt)?;
    std::fs::rename(&tmp, wasm).context(format!("replacing {} with the optimised module", wasm.display()))
}
