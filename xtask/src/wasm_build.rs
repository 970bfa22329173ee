//! The pipeline that turns the Rust crate into the npm package in pkg/:
//! cargo (wasm32) → wasm-bindgen (`--target web`) → wasm-opt -Oz --converge → pkg-template.
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
    /// The module as cargo built it, before wasm-bindgen and wasm-opt (still with its `name`
    /// section); in cargo's target dir, so the next wasm32 release build overwrites it.
    pub raw_wasm: PathBuf,
}

/// Builds pkg/ from scratch (a stale file from an older build must never ship).
pub fn build(root: &Path, tools: &BuildTools) -> Result<Pkg> {
    let raw_wasm = compile(root, &[FEATURES])?;
    let pkg = assemble(root, tools, raw_wasm, &root.join("pkg"))?;
    template::install(&root.join("pkg-template"), &pkg.dir, &workspace::crate_version(root)?)?;
    template::install_licences(root, &pkg.dir)?;
    minify(tools, &pkg.dir.join("element.js"), Names::Shorten)?;
    Ok(pkg)
}

/// The same cargo → wasm-bindgen → wasm-opt pipeline as [`build`], with the given cargo
/// `features` (none: the client alone) and into `out_dir`, without the package template;
/// `cargo xtask bench` measures other builds than pkg/'s this way.
pub fn build_variant(root: &Path, tools: &BuildTools, features: &[&str], out_dir: &Path) -> Result<Pkg> {
    let raw_wasm = compile(root, features)?;
    assemble(root, tools, raw_wasm, out_dir)
}

/// wasm-bindgen then wasm-opt into a fresh `dir` (a stale file from an older build must never ship).
fn assemble(root: &Path, tools: &BuildTools, raw_wasm: PathBuf, dir: &Path) -> Result<Pkg> {
    let pkg = Pkg {
        dir: dir.to_path_buf(),
        wasm: dir.join(format!("{OUT_NAME}_bg.wasm")),
        js: dir.join(format!("{OUT_NAME}.js")),
        raw_wasm,
    };
    if pkg.dir.exists() {
        std::fs::remove_dir_all(&pkg.dir).context(format!("removing the old {}", pkg.dir.display()))?;
    }
    bindgen(root, tools, &pkg.raw_wasm, &pkg.dir)?;
    optimise(tools, &pkg.wasm)?;
    minify(tools, &pkg.js, Names::Keep)?;
    Ok(pkg)
}

/// What [`minify`] does with a module's local names.
#[derive(Clone, Copy, PartialEq)]
enum Names {
    /// Whitespace and syntax only, so names stay: the glue's classes and functions read as written in
    /// stack traces and the debugger.
    Keep,
    /// Local names shortened too (`--minify-identifiers`; exports and `#private` members keep theirs):
    /// element.js, the elements' DOM half, whose helpers are internal (795 B gzip of its 8.5 KB when measured).
    Shorten,
}

/// Minifies a shipped JS module in place with esbuild. The glue's first-line `@ts-self-types` comment,
/// which Deno reads to find the types, is kept. Whitespace and syntax alone saved 2.9 KB gzip on the
/// glue and 0.7 KB on the old element.js.
fn minify(tools: &BuildTools, js: &Path, names: Names) -> Result<()> {
    let source = workspace::read(js)?;
    let pragma = source.lines().next().filter(|line| line.starts_with("/* @ts-self-types="));
    let tmp = js.with_extension("min.js");
    let mut esbuild = std::process::Command::new(&tools.esbuild);
    esbuild
        .arg(js)
        .args(["--minify-whitespace", "--minify-syntax", "--format=esm", "--log-level=warning"])
        .args((names == Names::Shorten).then_some("--minify-identifiers"))
        .arg(format!("--outfile={}", tmp.display()));
    cmd::run(&mut esbuild)?;
    let minified = workspace::read(&tmp)?;
    let out = match pragma {
        Some(pragma) => format!("{pragma}\n{minified}"),
        None => minified,
    };
    std::fs::write(js, out).context(format!("writing {}", js.display()))?;
    std::fs::remove_file(&tmp).context(format!("removing {}", tmp.display()))
}

/// Cargo features of the shipped package: the client with both task generations (`legacy`: servers of
/// the 2025-11-25 generation) plus the `<mcp-task>` views (pkg/element.js needs them).
const FEATURES: &str = "element,legacy";

/// `cargo build --release` for wasm32 with `features` (no `--features` flag when empty);
/// returns the raw .wasm path.
fn compile(root: &Path, features: &[&str]) -> Result<PathBuf> {
    let mut build = cmd::cargo();
    build.args(["build", "-p", CRATE, "--lib", "--target", WASM_TARGET, "--release"]).current_dir(root);
    if !features.is_empty() {
        build.args(["--features", &features.join(",")]);
    }
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

/// `wasm-opt -Oz --converge` in place, via a temporary file so an interrupted run leaves no
/// half-written module. `--converge` repeats the passes while the module still shrinks (a few hundred
/// gzip bytes more than one `-Oz` on this module, for a few seconds of build). The `producers` and
/// `target_features` sections go too: engines read neither, and wasm-bindgen ran before (234 B gzip).
fn optimise(tools: &BuildTools, wasm: &Path) -> Result<()> {
    let tmp = wasm.with_extension("wasm.opt");
    let mut opt = tools.wasm_opt.command();
    opt.args(["--strip-producers", "--strip-target-features", "-Oz", "--converge"])
        .args(WASM_OPT_FEATURES)
        .arg(wasm)
        .arg("-o")
        .arg(&tmp);
    cmd::run(&mut opt)?;
    std::fs::rename(&tmp, wasm).context(format!("replacing {} with the optimised module", wasm.display()))
}
