//! The pipeline that turns the Rust crate into the npm package in pkg/: pkg-template, then for the
//! door (`src/door/`) of the client alone and of the client with the element, each without and with
//! the 2025-11-25 flow: cargo (wasm32) → wasm-bindgen (`--target web`) → wasm-opt -Oz --converge (see
//! `optimise`) → short import and export names (see [`short_names`]) → the JS driver (`src/driver/`)
//! bundled with the first door's glue by esbuild (see [`build`]).
//!
//! `--target web` emits a plain ES module with an async `init()`, which works unbundled in
//! browsers, workers and edge runtimes — the hosts this package is for. wasm-opt runs after
//! wasm-bindgen because wasm-bindgen rewrites the module (removing its schema section and glue
//! shims), and optimising the final bytes is what shrinks the download.

use std::path::{Path, PathBuf};

use crate::cmd;
use crate::error::{Context, Result};
use crate::short_names;
use crate::template;
use crate::toolchain::{BuildTools, WASM_TARGET};
use crate::workspace;

/// The cargo package that becomes the npm package.
const CRATE: &str = "mcp-tasks-web";
/// wasm-bindgen's `--out-name` of the build with the element (what `mcp-tasks-web/element` loads), also
/// the stem of its generated files; [`build_variant`] uses it too.
const OUT_NAME: &str = "mcp_tasks_web";
/// wasm-bindgen's `--out-name` of the client alone (what `mcp-tasks-web` loads).
const CLIENT_OUT_NAME: &str = "client";

/// wasm-bindgen's `--out-name` of a door build, before its files take the entry's names.
const DOOR_OUT_NAME: &str = "door";
/// wasm-bindgen's `--out-name` of the door with the 2025-11-25 flow, which the driver loads when it
/// hands over (`src/driver/task_client.js` imports it as [`FULL_DOOR_IMPORT`]).
const FULL_DOOR_OUT_NAME: &str = "door_full";
/// How the driver's source names the full door's glue; kept out of the bundle, renamed per entry.
const FULL_DOOR_IMPORT: &str = "./door_full.js";
/// The JS the driver takes from the crate, beside the glue (bundled into each entry; the edge
/// entries stay files of their own and load the full door too).
pub(crate) const DRIVER_SOURCES: [&str; 8] = [
    "src/driver/task_client.js",
    "src/driver/element_entry.js",
    "src/driver/node.mjs",
    // The edge entries: the driver's own, which load its full door too.
    "src/driver/workerd.mjs",
    "src/driver/deno.mjs",
    "src/transport/http.js",
    "src/store/idb.js",
    "src/host/browser.js",
];

/// Features wasm-opt must accept: the ones rustc's wasm32 target enables by default (Rust 1.82+;
/// the last two since LLVM 20) and records in the module's `target_features` section, which is
/// what `wasm-opt --print-features` reports for our module. binaryen rejects instructions from
/// features that are not enabled, so we list them explicitly rather than rely on detection.
pub(crate) const WASM_OPT_FEATURES: [&str; 8] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
    "--enable-bulk-memory-opt",
    "--enable-call-indirect-overlong",
];

/// One build's files that the size report and checks look at.
pub struct Pkg {
    /// The folder it was written to (pkg/ for the shipped builds).
    pub dir: PathBuf,
    /// The optimised module, e.g. pkg/mcp_tasks_web_bg.wasm.
    pub wasm: PathBuf,
    /// The JS glue, e.g. pkg/mcp_tasks_web.js.
    pub js: PathBuf,
    /// The module as cargo built it, before wasm-bindgen and wasm-opt (still with its `name`
    /// section): a copy in cargo's wasm32 release folder named after the build, which the next
    /// build of the same name overwrites.
    pub raw_wasm: PathBuf,
    /// The old → new import and export names of `wasm` (see [`short_names`]), beside `raw_wasm`.
    pub names_map: PathBuf,
}

/// The package in pkg/: the JS driver (`src/driver/`) over two builds of the door, so a host pays
/// only for what it imports, each with its full door beside it.
pub struct Package {
    /// pkg/.
    pub dir: PathBuf,
    /// What a host that imports `TaskClient` downloads (`client_bg.wasm`, `client.js`: the driver
    /// bundled with the first door's glue); `mcp-tasks-web/extension` and the Node, Deno and workerd
    /// entries load it too.
    pub client: Pkg,
    /// What it loads when it meets a 2025-11-25 server (`client_full_bg.wasm`, `client_full.js`).
    pub client_full: Pkg,
    /// What a host that shows task cards downloads (`mcp_tasks_web_bg.wasm`, `mcp_tasks_web.js`, and
    /// `element.js` over them).
    pub element: Pkg,
    /// Its door with the 2025-11-25 flow (`mcp_tasks_web_full_bg.wasm`, `mcp_tasks_web_full.js`).
    pub element_full: Pkg,
}

impl Package {
    /// What a host that imports only `TaskClient` downloads: the client's .wasm and its JS.
    pub fn client_files(&self) -> [PathBuf; 2] {
        [self.client.wasm.clone(), self.client.js.clone()]
    }

    /// What a host that shows `<mcp-task>` cards downloads: the element build's .wasm and JS, and
    /// element.js.
    pub fn element_files(&self) -> [PathBuf; 3] {
        [self.element.wasm.clone(), self.element.js.clone(), self.dir.join("element.js")]
    }

    /// What either loads beside those when a 2025-11-25 server or record is met: the full doors.
    pub fn full_door_files(&self) -> [PathBuf; 4] {
        [
            self.client_full.wasm.clone(),
            self.client_full.js.clone(),
            self.element_full.wasm.clone(),
            self.element_full.js.clone(),
        ]
    }

    /// Every build's files, for the checks that read each module (its `env` imports).
    pub fn builds(&self) -> [&Pkg; 4] {
        [&self.client, &self.client_full, &self.element, &self.element_full]
    }
}

/// Builds pkg/ from scratch (a stale file from an older build must never ship): the package
/// template, then the JS driver's two builds over it (the client alone, and with the element).
///
/// Two builds because one .wasm cannot leave out what some hosts import: the element's card and
/// form model is about a fifth of the card host's module, and a host that only uses `TaskClient` (a
/// worker, an edge function, a chat host with its own UI) would download it for nothing. Each has
/// its full door beside it, with the 2025-11-25 flow, fetched only when a server needs it.
pub fn build(root: &Path, tools: &BuildTools) -> Result<Package> {
    let dir = root.join("pkg");
    fresh_dir(&dir)?;
    template::install(&root.join("pkg-template"), &dir, &workspace::crate_version(root)?)?;
    template::install_licences(root, &dir)?;
    for source in DRIVER_SOURCES {
        let name = source.rsplit('/').next().unwrap_or(source);
        if dir.join(name).exists() {
            return Err(crate::error::Error::msg(format!(
                "pkg-template/{name} would be replaced by {source}; keep one of them"
            )));
        }
        std::fs::copy(root.join(source), dir.join(name)).context(format!("copying {source}"))?;
    }
    let (client, client_full) = build_driver_entry(root, tools, &[], &dir, "task_client.js", CLIENT_OUT_NAME)?;
    let (element, element_full) = build_driver_entry(root, tools, &["element"], &dir, "element_entry.js", OUT_NAME)?;
    let element_js = dir.join("element.js");
    minify_stylesheet(tools, &element_js)?;
    minify(tools, &element_js, false)?;
    // The glue and the driver's modules are in the entries now.
    for name in [
        "door.js",
        "door.d.ts",
        "door_bg.wasm.d.ts",
        "door_full.d.ts",
        "door_full_bg.wasm.d.ts",
        "task_client.js",
        "element_entry.js",
        "http.js",
        "idb.js",
        "browser.js",
    ] {
        std::fs::remove_file(dir.join(name)).context(format!("removing {name}"))?;
    }
    Ok(Package { dir, client, client_full, element, element_full })
}

/// The same cargo → wasm-bindgen → wasm-opt pipeline as [`build`], with the given cargo
/// `features` and into a fresh `out_dir`, without the package template or the driver;
/// `cargo xtask bench` measures other builds than pkg/'s this way.
pub fn build_variant(root: &Path, tools: &BuildTools, features: &[&str], out_dir: &Path) -> Result<Pkg> {
    fresh_dir(out_dir)?;
    emit(root, tools, compile(root, features)?, out_dir, OUT_NAME)
}

/// One of the driver's builds into `dir`: the door with cargo `features`, its glue bundled into the
/// driver module `entry` as `<out_name>.js` with its module `<out_name>_bg.wasm`; and the door with
/// the 2025-11-25 flow as well (`features` and `legacy`), its glue a module of its own,
/// `<out_name>_full.js` with `<out_name>_full_bg.wasm`, which the entry imports only when it hands
/// over to it. The names each file gives the other are rewritten from the build's to these.
fn build_driver_entry(
    root: &Path,
    tools: &BuildTools,
    features: &[&str],
    dir: &Path,
    entry: &str,
    out_name: &str,
) -> Result<(Pkg, Pkg)> {
    let full_features: Vec<&str> = features.iter().copied().chain(["legacy"]).collect();
    let full = emit(root, tools, compile(root, &full_features)?, dir, FULL_DOOR_OUT_NAME)?;
    let full_name = format!("{out_name}_full");
    let full_js = dir.join(format!("{full_name}.js"));
    let full_wasm = dir.join(format!("{full_name}_bg.wasm"));
    std::fs::rename(&full.js, &full_js).context("renaming the full door's glue")?;
    std::fs::rename(&full.wasm, &full_wasm).context("renaming the full door's .wasm")?;
    rename_reference(&full_js, &format!("\"{FULL_DOOR_OUT_NAME}_bg.wasm\""), &format!("\"{full_name}_bg.wasm\""))?;

    let door = emit(root, tools, compile(root, features)?, dir, DOOR_OUT_NAME)?;
    let bundled = dir.join(format!("{out_name}.js"));
    std::fs::copy(dir.join(entry), &bundled).context("copying the driver's entry")?;
    minify_with(tools, &bundled, true, Some(FULL_DOOR_IMPORT))?;
    let wasm = dir.join(format!("{out_name}_bg.wasm"));
    std::fs::rename(&door.wasm, &wasm).context("renaming the door's .wasm")?;
    rename_reference(&bundled, &format!("\"{DOOR_OUT_NAME}_bg.wasm\""), &format!("\"{out_name}_bg.wasm\""))?;
    rename_reference(&bundled, &format!("\"{FULL_DOOR_IMPORT}\""), &format!("\"./{full_name}.js\""))?;
    Ok((Pkg { wasm, js: bundled, ..door }, Pkg { wasm: full_wasm, js: full_js, ..full }))
}

/// Replaces `quoted` in `file` by `with`, where it occurs exactly once.
fn rename_reference(file: &Path, quoted: &str, with: &str) -> Result<()> {
    let text = workspace::read(file)?;
    if text.matches(quoted).count() != 1 {
        return Err(crate::error::Error::msg(format!("{} names {quoted} other than once", file.display())));
    }
    std::fs::write(file, text.replace(quoted, with)).context(format!("writing {}", file.display()))
}

/// Removes `dir` if it exists (a stale file from an older build must never ship).
fn fresh_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).context(format!("removing the old {}", dir.display()))?;
    }
    Ok(())
}

/// wasm-bindgen then wasm-opt into `dir`, files named after `out_name`. The module cargo built is
/// copied to `<out_name>.raw.wasm` in cargo's wasm32 release folder first, since the next build of
/// other features overwrites cargo's own copy (the size figure reads both builds' name sections).
fn emit(root: &Path, tools: &BuildTools, built: PathBuf, dir: &Path, out_name: &str) -> Result<Pkg> {
    let raw_wasm = built.with_file_name(format!("{out_name}.raw.wasm"));
    std::fs::copy(&built, &raw_wasm).context(format!("copying {} to {}", built.display(), raw_wasm.display()))?;
    let pkg = Pkg {
        dir: dir.to_path_buf(),
        wasm: dir.join(format!("{out_name}_bg.wasm")),
        js: dir.join(format!("{out_name}.js")),
        names_map: raw_wasm.with_extension("names.json"),
        raw_wasm,
    };
    bindgen(root, tools, &pkg.raw_wasm, &pkg.dir, out_name)?;
    optimise(tools, &pkg.wasm)?;
    let wasm_types = dir.join(format!("{out_name}_bg.wasm.d.ts"));
    short_names::shorten(tools, &pkg.wasm, &pkg.js, &wasm_types, &pkg.names_map)?;
    minify(tools, &pkg.js, true)?;
    // The glue now holds the JS snippets it imported (src/transport/http.js, src/store/idb.js): one
    // file to fetch, not three.
    fresh_dir(&dir.join("snippets"))?;
    Ok(pkg)
}

/// After `--minify-identifiers`, an exported class is declared under a short local name (`class w`,
/// `export{w as TaskClient}`), so its `name` would be the short one; this gives each exported class
/// its exported name back with one `Object.defineProperty` per class.
fn keep_class_names(minified: &str) -> String {
    let mut out = minified.trim_end().to_owned();
    let exports = minified.rfind("export{").and_then(|start| {
        let list = &minified[start + "export{".len()..];
        list.find('}').map(|end| &list[..end])
    });
    for pair in exports.unwrap_or_default().split(',') {
        let Some((local, exported)) = pair.split_once(" as ") else { continue };
        let is_class = |rest: &str| minified.contains(&format!("class {local}{rest}"));
        // A bundled module declares it as an expression: `var w=class r{…}` (named `r`).
        let is_class_expression = minified.contains(&format!("{local}=class"));
        if exported.starts_with(|c: char| c.is_ascii_uppercase())
            && (is_class("{") || is_class(" extends") || is_class_expression)
        {
            out.push_str(&format!("\nObject.defineProperty({local},\"name\",{{value:\"{exported}\"}});"));
        }
    }
    out.push('\n');
    out
}

/// Minifies a shipped JS module in place with esbuild; with `bundle`, the local modules it imports go
/// into it (the glue's `snippets/`: the Rust crate's own JS). The glue's first-line `@ts-self-types` comment,
/// which Deno reads to find the types, is kept. Whitespace and syntax saved 2.9 KB gzip on the glue
/// and 0.7 KB on the old element.js; shortening local names (exports and `#private` members keep
/// theirs) 644 B more on the glue and 795 B on element.js. An exported class keeps its `name`
/// ([`keep_class_names`]): `TaskClient` in the debugger, not `w`.
fn minify(tools: &BuildTools, js: &Path, bundle: bool) -> Result<()> {
    minify_with(tools, js, bundle, None)
}

/// [`minify`], leaving the module `external` out of the bundle (imported as it is named).
fn minify_with(tools: &BuildTools, js: &Path, bundle: bool, external: Option<&str>) -> Result<()> {
    let source = workspace::read(js)?;
    let pragma = source.lines().next().filter(|line| line.starts_with("/* @ts-self-types="));
    let tmp = js.with_extension("min.js");
    let mut esbuild = std::process::Command::new(&tools.esbuild);
    esbuild
        .arg(js)
        .args(["--minify", "--format=esm", "--log-level=warning"])
        .arg(format!("--outfile={}", tmp.display()));
    if bundle {
        esbuild.arg("--bundle");
    }
    if let Some(external) = external {
        esbuild.arg(format!("--external:{external}"));
    }
    cmd::run(&mut esbuild)?;
    let minified = keep_class_names(&workspace::read(&tmp)?);
    let out = match pragma {
        Some(pragma) => format!("{pragma}\n{minified}"),
        None => minified,
    };
    std::fs::write(js, out).context(format!("writing {}", js.display()))?;
    std::fs::remove_file(&tmp).context(format!("removing {}", tmp.display()))
}

/// Where element.js declares the elements' stylesheet: a template literal of plain CSS.
const STYLESHEET: &str = "const CSS = `";

/// Minifies the elements' stylesheet in `js` in place with esbuild's CSS minifier: esbuild leaves the
/// text of a JS string as written, and the sheet's spacing and `#ffffff`-style colours were 101 B of
/// element.js's gzip size.
fn minify_stylesheet(tools: &BuildTools, js: &Path) -> Result<()> {
    let source = workspace::read(js)?;
    let (before, css, after) = split_stylesheet(&source)?;
    let css_file = js.with_file_name("element.css");
    std::fs::write(&css_file, css).context(format!("writing {}", css_file.display()))?;
    let mut esbuild = std::process::Command::new(&tools.esbuild);
    esbuild.arg(&css_file).args(["--minify", "--log-level=warning"]);
    let minified = cmd::stdout_of(&mut esbuild);
    std::fs::remove_file(&css_file).context(format!("removing {}", css_file.display()))?;
    let minified = minified?;
    let minified = minified.trim_end();
    if minified.is_empty() || minified.contains(['`', '\\']) || minified.contains("${") {
        return Err(crate::error::Error::msg(format!(
            "esbuild's minified stylesheet cannot go back into a template literal: {minified:?}"
        )));
    }
    std::fs::write(js, format!("{before}{minified}{after}")).context(format!("writing {}", js.display()))
}

/// `source` cut around the stylesheet's text: before it, the CSS, and from its closing backtick on.
/// The literal must be plain (no `${}` and no escapes), so that its text is the CSS itself.
fn split_stylesheet(source: &str) -> Result<(&str, &str, &str)> {
    let start = source.find(STYLESHEET).map(|at| at + STYLESHEET.len());
    let end = start.and_then(|start| source[start..].find('`').map(|len| start + len));
    let (Some(start), Some(end)) = (start, end) else {
        return Err(crate::error::Error::msg(format!("element.js has no stylesheet literal `{STYLESHEET}…`;`")));
    };
    let css = &source[start..end];
    if css.contains("${") || css.contains('\\') {
        return Err(crate::error::Error::msg(
            "element.js's stylesheet literal must be plain CSS: no ${} and no escapes",
        ));
    }
    Ok((&source[..start], css, &source[end..]))
}

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
fn bindgen(root: &Path, tools: &BuildTools, raw_wasm: &Path, out_dir: &Path, out_name: &str) -> Result<()> {
    let mut bindgen = cmd::command(&tools.wasm_bindgen, ["--target", "web", "--out-name", out_name, "--out-dir"]);
    bindgen.arg(out_dir).arg(raw_wasm).current_dir(root);
    cmd::run(&mut bindgen)
}

/// `wasm-opt -Oz --converge` in place, via a temporary file so an interrupted run leaves no
/// half-written module. `--converge` repeats the passes while the module still shrinks (a few hundred
/// gzip bytes more than one `-Oz` on this module, for a few seconds of build). The `producers` and
/// `target_features` sections go too: engines read neither, and wasm-bindgen ran before (234 B gzip).
/// `--low-memory-unused` lets wasm-opt fold a constant added to an address into the load's or store's
/// offset (the two differ only when the sum wraps below 1 KiB): true of rustc's wasm32 layout, whose
/// stack comes first and grows down from 1 MiB to 0 with the data and the heap above it, so only a stack
/// already 1,023 KiB deep could reach the first KiB (1,016 B gzip). `-ocimfs=20`
/// (`--one-caller-inline-max-function-size`): a function with one caller is inlined into it only when
/// it is small, where the default inlines every one whatever its size; the big async state machines
/// and the views it made from many such functions compressed worse than the calls (the .wasm grows by
/// 5.4 KB raw and loses 6.4 KB gzip; 10, 30 and 50 measured within 0.1, 0.1 and 1.4 KB gzip of 20).
fn optimise(tools: &BuildTools, wasm: &Path) -> Result<()> {
    let tmp = wasm.with_extension("wasm.opt");
    let mut opt = tools.wasm_opt.command();
    opt.args([
        "--strip-producers",
        "--strip-target-features",
        "--low-memory-unused",
        "-ocimfs=20",
        "-Oz",
        "--converge",
    ])
    .args(WASM_OPT_FEATURES)
    .arg(wasm)
    .arg("-o")
    .arg(&tmp);
    cmd::run(&mut opt)?;
    std::fs::rename(&tmp, wasm).context(format!("replacing {} with the optimised module", wasm.display()))
}

#[cfg(test)]
mod tests {
    use super::{keep_class_names, split_stylesheet};

    #[test]
    fn the_stylesheet_is_cut_out_of_its_literal_whole() {
        let source = "const A = 1;\nconst CSS = `:host { color: red; }\n.x { }`;\nlet sheet;";
        let (before, css, after) = split_stylesheet(source).unwrap();
        assert_eq!(
            (before, css, after),
            ("const A = 1;\nconst CSS = `", ":host { color: red; }\n.x { }", "`;\nlet sheet;")
        );
        assert!(split_stylesheet("const CSS = `a { b: ${c} }`;").is_err(), "a substitution is refused");
        assert!(split_stylesheet("const CSS = `a { content: \"\\2014\" }`;").is_err(), "an escape is refused");
        assert!(split_stylesheet("const STYLE = `a {}`;").is_err(), "no literal is an error");
    }

    #[test]
    fn exported_classes_get_their_names_back_and_nothing_else_changes() {
        let minified = "class w{constructor(){}}class y extends w{}function q(){}export{w as TaskClient,y as Sub,q as Helper,w as default};\n";
        let out = keep_class_names(minified);
        assert!(out.starts_with(minified.trim_end()), "{out}");
        assert!(out.contains(r#"Object.defineProperty(w,"name",{value:"TaskClient"});"#), "{out}");
        assert!(out.contains(r#"Object.defineProperty(y,"name",{value:"Sub"});"#), "{out}");
        assert!(!out.contains(r#"value:"Helper""#), "a function is not a class: {out}");
        assert!(!out.contains(r#"value:"default""#), "only names that read as class names: {out}");
        assert_eq!(keep_class_names("var a=1;"), "var a=1;\n", "nothing exported: unchanged");
        let bundled = "var M=class r{static f(){}};export{M as TaskClient};";
        assert!(keep_class_names(bundled).contains(r#"Object.defineProperty(M,"name",{value:"TaskClient"});"#));
    }
}
