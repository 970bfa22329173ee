//! The pipeline that turns the Rust crate into the npm package in pkg/: pkg-template, then for the
//! door (`src/door/`) of the client alone and of the client with the element, each without and with
//! the 2025-11-25 flow: cargo (wasm32) → wasm-bindgen (`--target web`) → wasm-opt (-Os, rerelooped, -Oz,
//! functions sorted by name; see `optimise`) → short import and export names (see [`short_names`])
//! into [`DOORS_DIR`] → the JS driver (`js/driver/`) bundled with the first door's glue by esbuild (see
//! [`build`]).
//!
//! The JS sources import one another by relative paths, and what the build generates through the
//! root package.json's subpath imports (`imports`): `#door` and `#door-full` are the doors' glue in
//! [`DOORS_DIR`] (the card host's `#door`, whose glue drives both first doors), and `#pkg/<file>` a file
//! of the built package, beside which the module ships. esbuild resolves `#door` when it bundles, and
//! the modules shipped as files of their own have `#pkg/<file>` written `./<file>` (see [`copy_own`]).
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

/// How the driver imports the door with the 2025-11-25 flow, which stays out of the bundle: each
/// bundle imports its own build's, `./<out name>_full.js`, beside it.
const FULL_DOOR_IMPORT: &str = "#door-full";
/// Where the build writes each door's glue and module under the name it ships with (`client.js` and
/// `client_bg.wasm`, `client_full.js`, `mcp_tasks_web.js`, `mcp_tasks_web_full.js` and theirs), from
/// the repository root: the files the root package.json's `#door` and `#door-full` name.
pub(crate) const DOORS_DIR: &str = "target/js";

/// The specifier prefix of a file of the built package (the root package.json's `#pkg/<file>`).
const PKG_IMPORT: &str = "#pkg/";

/// The driver's module the client build bundles with its door's glue into `client.js`.
const CLIENT_ENTRY: &str = "js/driver/task_client.js";
/// `mcp_tasks_web.js` as it ships (not bundled): the API of element.js under the card host's name.
const CARD_HOST_ENTRY: &str = "js/driver/element_entry.js";
/// The elements' module, shipped as `element.js` over `client.js` (stylesheet and code minified).
const ELEMENT_SOURCE: &str = "js/element/element.js";
/// `mcp-tasks-web/app`, shipped as `app.js`: a task's MCP App, bundled with the official host bridge
/// (`@modelcontextprotocol/ext-apps`'s `app-bridge` and what it imports), loaded only when an app is met.
const APP_SOURCE: &str = "js/element/app.js";
/// The shipped JS that stays a file of its own in pkg/, as written (bar its `#pkg/` imports): the
/// entries over the client build (the Node, Deno and workerd ones, which load its full door too, and
/// `mcp-tasks-web/extension`), the edge runtimes' stores, the React types' runtime module and the MCP
/// App sandbox proxy's script (beside `sandbox.html`, from pkg-template/).
pub(crate) const OWN_FILES: [&str; 7] = [
    "js/entries/node.mjs",
    "js/entries/deno.mjs",
    "js/entries/workerd.mjs",
    "js/entries/extension.js",
    "js/store/stores.js",
    "js/element/react.js",
    "js/element/sandbox.js",
];
/// The folder of every JS source the package ships, bundled or not.
pub(crate) const JS_DIR: &str = "js";

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

/// The package in pkg/: the JS driver (`js/driver/`) over two builds of the door, so a host pays
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

    /// What a host that shows `<mcp-task>` cards downloads: the card host's .wasm, and element.js over
    /// the client's JS (`client.js`, whose glue drives that module).
    pub fn element_files(&self) -> [PathBuf; 3] {
        [self.element.wasm.clone(), self.client.js.clone(), self.dir.join("element.js")]
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

    /// What a page loads when it shows a task's MCP App (`mcp-tasks-web/app`, on demand): app.js.
    pub fn app_files(&self) -> [PathBuf; 1] {
        [self.dir.join(file_name(APP_SOURCE))]
    }

    /// What the host serves from the sandbox's own origin for an MCP App: sandbox.html and sandbox.js.
    pub fn sandbox_files(&self) -> [PathBuf; 2] {
        [self.dir.join("sandbox.html"), self.dir.join("sandbox.js")]
    }

    /// Every build's files, for the checks that read each module (its `env` imports).
    pub fn builds(&self) -> [&Pkg; 4] {
        [&self.client, &self.client_full, &self.element, &self.element_full]
    }
}

/// Builds pkg/ from scratch (a stale file from an older build must never ship): the package
/// template and the JS shipped as files of their own, then the JS driver's two builds over it (the
/// client alone, and with the element), then element.js.
///
/// Two builds because one .wasm cannot leave out what some hosts import: the element's card and
/// form model is about a fifth of the card host's module, and a host that only uses `TaskClient` (a
/// worker, an edge function, a chat host with its own UI) would download it for nothing. Each has
/// its full door beside it, with the 2025-11-25 flow, fetched only when a server needs it.
pub fn build(root: &Path, tools: &BuildTools) -> Result<Package> {
    let dir = root.join("pkg");
    fresh_dir(&dir)?;
    let doors = root.join(DOORS_DIR);
    fresh_dir(&doors)?;
    std::fs::create_dir_all(&doors).context(format!("creating {}", doors.display()))?;
    template::install(&root.join("pkg-template"), &dir, &workspace::crate_version(root)?)?;
    template::install_licences(root, &dir)?;
    for source in OWN_FILES {
        copy_own(root, source, &dir.join(file_name(source)))?;
    }
    // The card host's first: its glue (`#door`) is the one client.js bundles, which drives either module.
    let (element, element_full) = build_card_host(root, tools, &dir)?;
    let (client, client_full) = build_driver_entry(root, tools, &[], &dir, CLIENT_ENTRY, CLIENT_OUT_NAME, None)?;
    same_names(&client, &element)?;
    // element.js: its stylesheet minified in a copy beside the doors (the source its map shows), then
    // its code into pkg/.
    let element_js = dir.join(file_name(ELEMENT_SOURCE));
    if element_js.exists() {
        return Err(crate::error::Error::msg(format!(
            "{} would be replaced by {ELEMENT_SOURCE} (pkg-template has a file of that name?); keep one of them",
            element_js.display()
        )));
    }
    let staged = doors.join(file_name(ELEMENT_SOURCE));
    copy_own(root, ELEMENT_SOURCE, &staged)?;
    minify_stylesheet(tools, &staged)?;
    let as_bundle = Minify { bundle: true, local_imports_external: true, source_map: true, ..Minify::default() };
    minify_into(tools, &staged, &element_js, &as_bundle)?;
    // app.js: the official host bridge and what it imports, bundled (no map: its sources are the SDK's).
    let app_js = dir.join(file_name(APP_SOURCE));
    minify_into(tools, &root.join(APP_SOURCE), &app_js, &Minify { bundle: true, ..Minify::default() })
        .context(format!("bundling {APP_SOURCE} with @modelcontextprotocol/ext-apps"))?;
    Ok(Package { dir, client, client_full, element, element_full })
}

/// The file name of `path` (its last `/`-separated part).
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Writes the shipped module `source` (a path from the repository root) to `to`, with each
/// `#pkg/<file>` it names written `./<file>`: that file of the package, beside it in pkg/. Any other
/// `#` import (`#door`) would not resolve in pkg/, so it is an error, and so is a file already at `to`
/// (pkg-template's, which one of the two would silently replace).
fn copy_own(root: &Path, source: &str, to: &Path) -> Result<()> {
    if to.exists() {
        return Err(crate::error::Error::msg(format!(
            "{} would be replaced by {source} (pkg-template has a file of that name?); keep one of them",
            to.display()
        )));
    }
    let text = as_in_package(source, &workspace::read(&root.join(source))?)?;
    std::fs::write(to, text).context(format!("writing {}", to.display()))
}

/// The text of module `source` (a file one folder under js/) as it ships beside the package's files:
/// each `#pkg/<file>` written `./<file>`, and the driver's two bundled entries, imported from the
/// source tree, written as the bundles they become (`../driver/task_client.js` → `./client.js`,
/// `../driver/element_entry.js` → `./mcp_tasks_web.js`). An error if it imports any other `#`
/// specifier or any other file of the source tree: neither would resolve in pkg/.
fn as_in_package(source: &str, text: &str) -> Result<String> {
    let bundled = |entry: &str| format!("\"../{}\"", entry.trim_start_matches(&format!("{JS_DIR}/")));
    let text = text
        .replace(&format!("\"{PKG_IMPORT}"), "\"./")
        .replace(&bundled(CLIENT_ENTRY), &format!("\"./{CLIENT_OUT_NAME}.js\""))
        .replace(&bundled(CARD_HOST_ENTRY), &format!("\"./{OUT_NAME}.js\""))
        .replace(&bundled(ELEMENT_SOURCE), &format!("\"./{}\"", file_name(ELEMENT_SOURCE)));
    // A JSDoc `@import` names types only: the minifier drops it with its comment.
    let stray = ["from \"#", "import(\"#", "from \"../", "import(\"../"];
    let code = |line: &&str| !line.trim_start().starts_with(['*', '/']);
    let found = text
        .lines()
        .enumerate()
        .filter(|(_, line)| code(line))
        .find(|(_, line)| stray.iter().any(|s| line.contains(s)));
    if let Some((at, _)) = found {
        let line = at + 1;
        return Err(crate::error::Error::msg(format!(
            "{source}:{line} imports a `#` specifier other than {PKG_IMPORT}<file>, or a source file other than \
             the driver's entries, which pkg/ cannot resolve"
        )));
    }
    Ok(text)
}

/// The same cargo → wasm-bindgen → wasm-opt pipeline as [`build`], with the given cargo
/// `features` and into a fresh `out_dir`, without the package template or the driver;
/// `cargo xtask bench` measures other builds than pkg/'s this way.
pub fn build_variant(root: &Path, tools: &BuildTools, features: &[&str], out_dir: &Path) -> Result<Pkg> {
    fresh_dir(out_dir)?;
    emit(root, tools, compile(root, features)?, out_dir, OUT_NAME)
}

/// One of the driver's builds into `dir`: the door with cargo `features`, its glue (`#door`, under
/// `condition` if any) bundled with the driver module `entry` into `<out_name>.js`, with its module
/// `<out_name>_bg.wasm`; and the door with the 2025-11-25 flow as well (`features` and `legacy`), its
/// glue a module of its own, `<out_name>_full.js` with `<out_name>_full_bg.wasm`, which the bundle
/// imports (`#door-full`) only when it hands over to it. Both doors are emitted into [`DOORS_DIR`]
/// under those names, and copied from there.
fn build_driver_entry(
    root: &Path,
    tools: &BuildTools,
    features: &[&str],
    dir: &Path,
    entry: &str,
    out_name: &str,
    condition: Option<&str>,
) -> Result<(Pkg, Pkg)> {
    let doors = root.join(DOORS_DIR);
    let full_name = format!("{out_name}_full");
    let full_features: Vec<&str> = features.iter().copied().chain(["legacy"]).collect();
    let full = emit(root, tools, compile(root, &full_features)?, &doors, &full_name)?;
    let full = ship(full, dir)?;

    let door = emit(root, tools, compile(root, features)?, &doors, out_name)?;
    let full_import = format!("./{full_name}.js");
    let minify = Minify {
        bundle: true,
        condition,
        external: Some((FULL_DOOR_IMPORT, &full_import)),
        source_map: true,
        ..Minify::default()
    };
    let bundled = dir.join(format!("{out_name}.js"));
    minify_into(tools, &root.join(entry), &bundled, &minify)
        .context(format!("bundling {entry} with {}", door.js.display()))?;
    let wasm = copy_into(&door.wasm, dir)?;
    Ok((Pkg { dir: dir.to_path_buf(), js: bundled, wasm, ..door }, full))
}

/// The card host's doors into `dir`: its module (`mcp_tasks_web_bg.wasm`, with the element's model),
/// which the client's glue in `client.js` drives (see [`same_names`]), and its full door (glue and
/// module, with the 2025-11-25 flow). `mcp_tasks_web.js` is [`CARD_HOST_ENTRY`] as it ships: the API of
/// element.js under that name, not a second driver.
fn build_card_host(root: &Path, tools: &BuildTools, dir: &Path) -> Result<(Pkg, Pkg)> {
    let doors = root.join(DOORS_DIR);
    let full_name = format!("{OUT_NAME}_full");
    let full = emit(root, tools, compile(root, &["element", "legacy"])?, &doors, &full_name)?;
    let full = ship(full, dir)?;
    let door = emit(root, tools, compile(root, &["element"])?, &doors, OUT_NAME)?;
    let wasm = copy_into(&door.wasm, dir)?;
    let js = dir.join(format!("{OUT_NAME}.js"));
    copy_own(root, CARD_HOST_ENTRY, &js)?;
    Ok((Pkg { dir: dir.to_path_buf(), js, wasm, ..door }, full))
}

/// `Ok` when the client's module and the card host's have the same imports and exports under the
/// same short names: then the card host's glue, bundled in `client.js`, drives either, and a page
/// with cards loads one driver. The client's build exports the element's names too (functions that do
/// nothing) so that the names line up.
fn same_names(client: &Pkg, card_host: &Pkg) -> Result<()> {
    let read =
        |pkg: &Pkg| -> Result<short_names::NameMap> { short_names::NameMap::parse(&workspace::read(&pkg.names_map)?) };
    let (a, b) = (read(client)?, read(card_host)?);
    // The import module is named after the build before it is shortened; compare names only.
    let imports = |m: &short_names::NameMap| -> Vec<(String, String)> {
        m.imports.iter().map(|(_, old, new)| (old.clone(), new.clone())).collect()
    };
    if imports(&a) != imports(&b) || a.exports != b.exports {
        return Err(crate::error::Error::msg(format!(
            "the client's module and the card host's differ in their imports or exports ({} and {}), so \
             the glue in client.js cannot drive both modules: give both builds the same #[wasm_bindgen] \
             export names (src/bindings/door.rs)",
            client.names_map.display(),
            card_host.names_map.display()
        )));
    }
    Ok(())
}

/// `built`'s glue and module copied into `dir` under the same names; the copies' paths.
fn ship(built: Pkg, dir: &Path) -> Result<Pkg> {
    let (js, wasm) = (copy_into(&built.js, dir)?, copy_into(&built.wasm, dir)?);
    Ok(Pkg { dir: dir.to_path_buf(), js, wasm, ..built })
}

/// `file` copied into `dir` under the same name; the copy's path.
fn copy_into(file: &Path, dir: &Path) -> Result<PathBuf> {
    let to = dir.join(file.file_name().unwrap_or_default());
    std::fs::copy(file, &to).context(format!("copying {} to {}", file.display(), to.display()))?;
    Ok(to)
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
    // The glue now holds the JS snippets it imported, if any: one file to fetch.
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

/// How [`minify_into`] runs esbuild, beyond minifying.
#[derive(Default)]
struct Minify<'a> {
    /// Bundle the modules the source imports into it (else its imports stay as written).
    bundle: bool,
    /// The package.json condition under which `#door` and `#door-full` resolve, if any.
    condition: Option<&'a str>,
    /// `(specifier, as)`: the module the source imports as `specifier` stays out of the bundle, and the
    /// bundle imports it as `as`.
    external: Option<(&'a str, &'a str)>,
    /// With `bundle`: the source's relative imports stay imports (esbuild writes them as they are). A
    /// module bundled alone is minified as a bundle's scope, which a module's is not to esbuild
    /// (`const` becomes `let`, top-level names are shortened): 38 B gzip off element.js.
    local_imports_external: bool,
    /// Write `<out>.map` beside the output, with the sources' text in it, named by the output's last
    /// line (`//# sourceMappingURL=`): a stack trace or a debugger then shows the source, not a
    /// column of one long line. Not a download of a page: a browser fetches it only for its devtools.
    source_map: bool,
}

/// The comment that names a module's source map, on its last line.
const SOURCE_MAP_COMMENT: &str = "//# sourceMappingURL=";

/// Minifies a shipped JS module in place with esbuild; with `bundle`, the local modules it imports go
/// into it (the glue's `snippets/`). The glue's first-line `@ts-self-types` comment,
/// which Deno reads to find the types, is kept. Whitespace and syntax saved 2.9 KB gzip on the glue
/// and 0.7 KB on the old element.js; shortening local names (exports and `#private` members keep
/// theirs) 644 B more on the glue and 795 B on element.js. An exported class keeps its `name`
/// ([`keep_class_names`]): `TaskClient` in the debugger, not `w`.
fn minify(tools: &BuildTools, js: &Path, bundle: bool) -> Result<()> {
    minify_into(tools, js, js, &Minify { bundle, ..Minify::default() })
}

/// [`minify`] of `source` into `out` (which may be `source`), as `how` says.
fn minify_into(tools: &BuildTools, source: &Path, out: &Path, how: &Minify) -> Result<()> {
    let text = workspace::read(source)?;
    let pragma = text.lines().next().filter(|line| line.starts_with("/* @ts-self-types="));
    if how.source_map && (pragma.is_some() || source == out) {
        return Err(crate::error::Error::msg(format!(
            "{}: a source map needs esbuild's lines as they are: a new file, without the glue's pragma line",
            source.display()
        )));
    }
    let written = if source == out { out.with_extension("min.js") } else { out.to_path_buf() };
    let mut esbuild = std::process::Command::new(&tools.esbuild);
    esbuild
        .arg(source)
        .args(["--minify", "--format=esm", "--log-level=warning"])
        .arg(format!("--outfile={}", written.display()));
    if how.bundle {
        esbuild.arg("--bundle");
    }
    if how.local_imports_external {
        esbuild.arg("--external:./*");
    }
    if let Some(condition) = how.condition {
        esbuild.arg(format!("--conditions={condition}"));
    }
    if let Some((specifier, to)) = how.external {
        // The alias names the module as the bundle imports it, and that name is external: esbuild
        // writes it as it is, without looking for the file.
        esbuild.arg(format!("--alias:{specifier}={to}")).arg(format!("--external:{to}"));
    }
    if how.source_map {
        esbuild.arg("--sourcemap");
    }
    if let Some(parent) = out.parent() {
        esbuild.current_dir(parent);
    }
    cmd::run(&mut esbuild)?;
    let minified = workspace::read(&written)?;
    let (code, map_comment) = match minified.trim_end().rsplit_once('\n') {
        Some((code, last)) if how.source_map && last.starts_with(SOURCE_MAP_COMMENT) => (code, Some(last)),
        _ if how.source_map => {
            return Err(crate::error::Error::msg(format!("esbuild named no source map in {}", written.display())));
        }
        _ => (minified.as_str(), None),
    };
    if how.source_map {
        sources_in_package(&out.with_extension("js.map"))?;
    }
    let mut minified = keep_class_names(code);
    if let Some(comment) = map_comment {
        minified.push_str(comment);
        minified.push('\n');
    }
    let minified = match pragma {
        Some(pragma) => format!("{pragma}\n{minified}"),
        None => minified,
    };
    std::fs::write(out, minified).context(format!("writing {}", out.display()))?;
    if written != out {
        std::fs::remove_file(&written).context(format!("removing {}", written.display()))?;
    }
    Ok(())
}

/// Names the sources of the map `map` from the repository root (`js/driver/task_client.js`, not
/// esbuild's `../js/driver/task_client.js` from pkg/), so that where the package is served or installed
/// they stay under its own path rather than beside it. Their text is in the map.
fn sources_in_package(map: &Path) -> Result<()> {
    let text = workspace::read(map)?;
    let mut json: serde_json::Value = serde_json::from_str(&text).context(format!("parsing {}", map.display()))?;
    let Some(sources) = json.get_mut("sources").and_then(serde_json::Value::as_array_mut) else {
        return Err(crate::error::Error::msg(format!("{} has no `sources`", map.display())));
    };
    for source in sources {
        if let Some(inside) = source.as_str().and_then(|s| s.strip_prefix("../")) {
            *source = serde_json::Value::String(inside.to_owned());
        }
    }
    let text = serde_json::to_string(&json).context(format!("writing {}", map.display()))?;
    std::fs::write(map, text).context(format!("writing {}", map.display()))
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
    let minified = tighten_custom_properties(minified?.trim_end());
    let minified = minified.as_str();
    if minified.is_empty() || minified.contains(['`', '\\']) || minified.contains("${") {
        return Err(crate::error::Error::msg(format!(
            "esbuild's minified stylesheet cannot go back into a template literal: {minified:?}"
        )));
    }
    std::fs::write(js, format!("{before}{minified}{after}")).context(format!("writing {}", js.display()))
}

/// esbuild keeps a custom property's value as written (`--_bg: var(--mcp-task-bg, #fff)`), spaces
/// included; in CSS a space after a declaration's `:` or a value's `,` means nothing, so outside quoted
/// strings they go (10 B gzip off element.js). esbuild's own output has no other `: ` or `, `.
fn tighten_custom_properties(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut quote = None;
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, ':' | ',') => {
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
            }
            _ => {}
        }
    }
    out
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

/// Generates the JS glue and TypeScript types next to the processed .wasm. `--no-demangle` keeps rustc's
/// symbol names in the module's `name` section, which [`optimise`] sorts the functions by (and then
/// drops): in that order the card host's .wasm is 71 B gzip smaller and the client's 121 B than in the
/// order of the demangled names. The glue is the same either way.
fn bindgen(root: &Path, tools: &BuildTools, raw_wasm: &Path, out_dir: &Path, out_name: &str) -> Result<()> {
    let mut bindgen =
        cmd::command(&tools.wasm_bindgen, ["--target", "web", "--no-demangle", "--out-name", out_name, "--out-dir"]);
    bindgen.arg(out_dir).arg(raw_wasm).current_dir(root);
    cmd::run(&mut bindgen)
}

/// `wasm-opt -ocimfs=14 -aimfs=4 -Os --flatten --rereloop -Oz -Oz --converge --reorder-functions-by-name` in place, via a
/// temporary file so an interrupted run leaves no half-written module. `--converge` repeats the passes
/// while the module still shrinks (a few hundred gzip bytes more than one `-Oz` on this module, for a few
/// seconds of build). The `producers` and `target_features` sections go too: engines read neither, and
/// wasm-bindgen ran before (234 B gzip).
/// `--low-memory-unused` lets wasm-opt fold a constant added to an address into the load's or store's
/// offset (the two differ only when the sum wraps below 1 KiB): true of rustc's wasm32 layout, whose
/// stack comes first and grows down from 1 MiB to 0 with the data and the heap above it, so only a stack
/// already 1,023 KiB deep could reach the first KiB (1,016 B gzip). `-ocimfs=14`
/// (`--one-caller-inline-max-function-size`): a function with one caller is inlined into it only when
/// it is small, where the default inlines every one whatever its size; the big async state machines
/// and the views it made from many such functions compressed worse than the calls (at 20, the .wasm
/// grew by 5.4 KB raw and lost 6.4 KB gzip). The best size moves with the code: with the passes
/// below, 14 took 56 B gzip off the card host's .wasm against 15 (which had beaten 20 by 35 B), and
/// 8, 10 to 13 and 16 measured worse than 14; the client's .wasm grew 37 B, which its budget has room for.
/// `-aimfs=4` (`--always-inline-max-function-size`, 2 by default) inlines functions of up to 4 bytes of
/// code wherever they are called: the module grows (0.4 KB raw) but the calls it spares compressed
/// worse (83 B gzip off the client's .wasm, 56 B off the card host's; 3, 5 and 6 measured 15, 48 and
/// 196 B worse than 4).
/// After a first pass, `--flatten --rereloop` rebuilds each function's control flow from its basic
/// blocks, and the second `-Oz --converge` shrinks that again: the door's big event and effect matches
/// come out as smaller branch tables (534 B gzip off the card host's .wasm, 504 B off the client's;
/// rerelooping before the first pass saved less, 337 B, and twice no more). The decode figure in
/// Chromium did not move (6.75 / 19.70 / 24.17 µs with it, 6.63 / 19.79 / 24.70 µs without). The first
/// pass is `-Os`, not `-Oz`: it leaves the second more to fold (103 B gzip off the client's .wasm,
/// 110 B off the card host's; `-O1` and `-O2` first saved less, and `-Os` for both lost 189 B). `-Oz`
/// twice before `--converge` took 53 B more off the card host's (a third, 6 B).
/// Last, `--reorder-functions-by-name` puts the functions in the order of their symbol names, which
/// wasm-bindgen's output keeps ([`bindgen`]): a module's functions, and the copies of one generic
/// function, end up side by side, within reach of each other in gzip's 32 KiB window. Only the order of
/// the code section changes (calls, the table and the exports follow their functions); it took 409 B
/// gzip off the client's .wasm and 336 B off the card host's (as `cargo xtask build` measures; 844 and
/// 448 B with zlib's `gzip -9`). Sorting first, before the passes, saved less; `--reorder-functions`
/// (by call count) added 1.7 KB, and sorting by the demangled names 121 B (client) and 71 B (card host).
fn optimise(tools: &BuildTools, wasm: &Path) -> Result<()> {
    let tmp = wasm.with_extension("wasm.opt");
    let mut opt = tools.wasm_opt.command();
    opt.args([
        "--strip-producers",
        "--strip-target-features",
        "--low-memory-unused",
        "-ocimfs=14",
        "-aimfs=4",
        "-Os",
        "--flatten",
        "--rereloop",
        "-Oz",
        "-Oz",
        "--converge",
        "--reorder-functions-by-name",
    ])
    .args(crate::toolchain::WASM_OPT_FEATURES)
    .arg(wasm)
    .arg("-o")
    .arg(&tmp);
    cmd::run(&mut opt)?;
    std::fs::rename(&tmp, wasm).context(format!("replacing {} with the optimised module", wasm.display()))
}

#[cfg(test)]
mod tests {
    use super::{
        as_in_package, file_name, keep_class_names, split_stylesheet, tighten_custom_properties, APP_SOURCE,
        CARD_HOST_ENTRY, CLIENT_ENTRY, ELEMENT_SOURCE, JS_DIR, OWN_FILES,
    };

    #[test]
    fn a_custom_propertys_spaces_go_but_not_a_quoted_strings() {
        let css = r#":host{font:var(--f, system-ui, "Segoe UI", sans-serif);--_bg: var(--bg, #fff)}p::before{content:": , x"}"#;
        assert_eq!(
            tighten_custom_properties(css),
            r#":host{font:var(--f,system-ui,"Segoe UI",sans-serif);--_bg:var(--bg,#fff)}p::before{content:": , x"}"#
        );
    }

    #[test]
    fn a_module_shipped_as_a_file_imports_the_package_beside_it() {
        let source = "import init from \"#pkg/client.js\";\n/** @import { A } from \"#pkg/stores.js\" */\nconst g = await import(\"#pkg/client_full.js\");\nnew URL(\"./client_bg.wasm\", import.meta.url);\nthis.#private;\n";
        let shipped = as_in_package("js/entries/x.mjs", source).unwrap();
        assert_eq!(
            shipped,
            "import init from \"./client.js\";\n/** @import { A } from \"./stores.js\" */\nconst g = await import(\"./client_full.js\");\nnew URL(\"./client_bg.wasm\", import.meta.url);\nthis.#private;\n"
        );
        let door = as_in_package("js/entries/x.mjs", "// one\nimport init from \"#door\";\n").unwrap_err().to_string();
        assert!(door.contains("js/entries/x.mjs:2"), "{door}");
        assert!(as_in_package("x.js", "await import(\"#door-full\")").is_err());
    }

    #[test]
    fn a_module_shipped_as_a_file_imports_the_driver_as_its_bundle() {
        let source = "import init from \"../driver/task_client.js\";\nexport * from \"../driver/element_entry.js\";\n";
        let shipped = as_in_package("js/element/x.js", source).unwrap();
        assert_eq!(shipped, "import init from \"./client.js\";\nexport * from \"./mcp_tasks_web.js\";\n");
        let other = as_in_package("js/element/x.js", "import { send } from \"../transport/http.js\";\n");
        assert!(other.unwrap_err().to_string().contains("js/element/x.js:1"));
    }

    /// Every module under js/ reaches pkg/: bundled from a driver entry (imported by a relative path
    /// from a module under js/driver/) or into app.js (imported by it), or shipped as a file of its own.
    #[test]
    fn every_module_under_js_is_shipped() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ is in the repository");
        let driver: String = std::fs::read_dir(root.join(JS_DIR).join("driver"))
            .unwrap()
            .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
            .collect();
        let app = std::fs::read_to_string(root.join(APP_SOURCE)).unwrap();
        let mut folders = vec![root.join(JS_DIR)];
        let mut modules = 0;
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                modules += 1;
                let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                let in_js = relative.strip_prefix("js/").unwrap_or(&relative);
                let shipped = [CLIENT_ENTRY, CARD_HOST_ENTRY, ELEMENT_SOURCE, APP_SOURCE].contains(&relative.as_str())
                    || OWN_FILES.contains(&relative.as_str())
                    || driver.contains(&format!("\"../{in_js}\""))
                    || driver.contains(&format!("\"./{}\"", file_name(&relative)))
                    || (relative.starts_with("js/element/")
                        && app.contains(&format!("\"./{}\"", file_name(&relative))));
                assert!(shipped, "{relative} is neither bundled nor shipped (xtask/src/wasm_build.rs)");
            }
        }
        assert!(modules >= 12, "{modules} modules under js/");
    }

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
