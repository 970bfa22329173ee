//! The size figure: bytes a host ships, raw, gzip -9 and brotli 11.
//!
//! - ours, client alone: what a host that imports only `TaskClient` (`mcp-tasks-web`) downloads, pkg/'s
//!   client build (`client_bg.wasm` + `client.js`);
//! - ours, the client's full door: what that host loads beside it when it meets a 2025-11-25
//!   server or record (`client_full_bg.wasm` + `client_full.js`: the door with that flow, which the
//!   first hands over to); printed beside the others, without a budget of its own;
//! - ours, client + element: what a host with `<mcp-task>` cards (`mcp-tasks-web/element`) downloads,
//!   pkg/'s element build (`mcp_tasks_web_bg.wasm`) with element.js over `client.js`;
//!
//!   pkg/ is rebuilt here as `cargo xtask build` makes it, so the figure is never stale;
//! - official: `@modelcontextprotocol/ext-tasks` with `@modelcontextprotocol/client`, bundled by
//!   esbuild (minified, platform browser, ESM, tree-shaken) from
//!   `xtask/bench-fixtures/official-requester.mjs`, a host doing the same job.
//!
//! Each file is compressed on its own, as a server sends it; a variant's figure is the sum of its
//! files. gzip is flate2 at level 9 (as `cargo xtask build` prints); brotli is Node's zlib at
//! quality 11, Node being a build tool we already require.
//!
//! Then where the bytes go ([`super::breakdown`]): the modules cargo built, by function and group.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::breakdown::{self, Breakdown};
use super::runner;
use super::{aligned, format_value, group_thousands, Ctx, Row, Subject};
use crate::error::{Context, Error, Result};
use crate::{sizes, wasm_build};

const FIGURE: &str = "size";
/// The door with the 2025-11-25 flow, loaded on demand.
const FULL_DOOR: &str = "client's full door";
/// `mcp-tasks-web/app`, loaded when a task's MCP App is shown.
const APP: &str = "MCP App bridge";
/// The sandbox proxy the host serves from another origin for an MCP App.
const SANDBOX: &str = "MCP App sandbox";

/// The host program bundled as the official requester.
const OFFICIAL_ENTRY: &str = "xtask/bench-fixtures/official-requester.mjs";

/// How many groups and functions the breakdown prints (the JSON has more).
const TOP: usize = 15;

/// One measured file.
struct Measured {
    /// `client`, `client + element` or `official`.
    variant: &'static str,
    path: PathBuf,
    raw: usize,
    gzip: usize,
    brotli: usize,
}

/// Builds and bundles the three variants, measures them, and records the breakdowns.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    let tools = ctx.tools()?;
    let cargo_dir = ctx.dir("size/cargo")?;

    let package = wasm_build::build(ctx.root, tools)?;
    let client_cargo = copy(&package.client.raw_wasm, &cargo_dir.join("client.wasm"))?;
    let element_cargo = copy(&package.element.raw_wasm, &cargo_dir.join("client+element.wasm"))?;
    let official = bundle_official(ctx)?;

    let mut files: Vec<(&'static str, PathBuf)> = Vec::new();
    files.extend(package.client_files().into_iter().map(|f| ("client", f)));
    files.extend([&package.client_full.wasm, &package.client_full.js].map(|f| (FULL_DOOR, f.clone())));
    files.extend(package.element_files().into_iter().map(|f| ("client + element", f)));
    files.extend(package.app_files().into_iter().map(|f| (APP, f)));
    files.extend(package.sandbox_files().into_iter().map(|f| (SANDBOX, f)));
    files.push(("official", official.bundle.clone()));
    let measured = measure(&files)?;

    let versions = format!(
        "ext-tasks {} + client {}",
        npm_version(ctx.root, "@modelcontextprotocol/ext-tasks")?,
        npm_version(ctx.root, "@modelcontextprotocol/client")?
    );
    let notes = [
        ("client", Subject::Ours, "client: what `import \"mcp-tasks-web\"` loads, pkg/client_bg.wasm + client.js (the door: cargo → wasm-bindgen → wasm-opt -Os, rerelooped and -Oz, no cargo features; the JS driver bundled with its glue); each file compressed on its own"),
        (FULL_DOOR, Subject::Ours, "the client's full door: what it loads when a 2025-11-25 server or record is met, pkg/client_full_bg.wasm + client_full.js (feature `legacy`); not a budget, a 2026-07-28 host never loads it"),
        ("client + element", Subject::Ours, "client + element: what `mcp-tasks-web/element` loads, pkg/mcp_tasks_web_bg.wasm + client.js + element.js (feature `element`)"),
        (APP, Subject::Ours, "the MCP App bridge: what `mcp-tasks-web/app` loads when a task's app is shown, pkg/app.js (@modelcontextprotocol/ext-apps AppBridge with its imports, bundled); no budget, never part of the base download"),
        (SANDBOX, Subject::Ours, "the MCP App sandbox: pkg/sandbox.html + sandbox.js, served by the host from the sandbox's own origin; no budget"),
    ];
    let official_note = format!(
        "{versions} + the host code in {OFFICIAL_ENTRY}, one esbuild {} bundle (minified, browser, ESM, tree-shaken)",
        official.esbuild_version
    );
    let mut rows = Vec::new();
    for (variant, subject, note) in
        notes.iter().map(|(v, s, n)| (*v, *s, (*n).to_owned())).chain([("official", Subject::Official, official_note)])
    {
        let of_variant: Vec<&Measured> = measured.iter().filter(|m| m.variant == variant).collect();
        let label = if variant == "official" { "client" } else { variant };
        let sum = |f: fn(&Measured) -> usize| of_variant.iter().map(|m| f(m)).sum::<usize>() as f64;
        let gzip_row = Row::new(FIGURE, subject, format!("{label}: gzip -9"), sum(|m| m.gzip), "B").note(note.clone());
        let gzip_row = match (subject, label) {
            (Subject::Ours, "client") => gzip_row.budget(sizes::CLIENT_GZIP_TARGET as f64),
            (Subject::Ours, "client + element") => gzip_row.budget(sizes::ELEMENT_GZIP_TARGET as f64),
            _ => gzip_row,
        };
        rows.push(Row::new(FIGURE, subject, format!("{label}: raw"), sum(|m| m.raw), "B").note(note.clone()));
        rows.push(gzip_row);
        rows.push(Row::new(FIGURE, subject, format!("{label}: brotli 11"), sum(|m| m.brotli), "B").note(note));
    }
    // The official requester has no cards and speaks one generation, so the same bundle stands beside
    // our other two builds too: the bar a host would otherwise ship before writing any UI.
    let beside: Vec<Row> = [FULL_DOOR, "client + element"]
        .iter()
        .flat_map(|variant| {
            rows.iter()
                .filter(|r| r.subject == Subject::Official)
                .map(move |r| Row { metric: r.metric.replacen("client:", &format!("{variant}:"), 1), ..r.clone() })
        })
        .collect();
    rows.extend(beside);
    // Table order: every metric of the client (both subjects), then client + element.
    rows.sort_by_key(|r| !r.metric.starts_with("client:"));

    ctx.detail(FIGURE, "files", files_table(ctx.root, &measured), files_json(ctx.root, &measured));
    ctx.detail(
        FIGURE,
        "official bundle by package (minified bytes, before compression)",
        packages_table(&official.packages),
        serde_json::json!(official
            .packages
            .iter()
            .map(|(k, v)| serde_json::json!({ "package": k, "bytes": v }))
            .collect::<Vec<_>>()),
    );
    let client_breakdown = analyse(&client_cargo)?;
    let element_breakdown = analyse(&element_cargo)?;
    ctx.detail(
        FIGURE,
        "where the bytes go (the modules cargo built, before wasm-bindgen and wasm-opt)",
        breakdown_text(&client_breakdown, &element_breakdown),
        serde_json::json!({
            "note": "function body bytes in the module cargo built (name section kept), before wasm-bindgen and wasm-opt; shares guide cuts, absolute sizes shrink after wasm-opt",
            "client": breakdown_json(&client_breakdown, &client_cargo),
            "client_element": breakdown_json(&element_breakdown, &element_cargo),
        }),
    );
    Ok(rows)
}

/// Copies `from` to `to` (cargo's output is overwritten by the next build); returns `to`.
fn copy(from: &Path, to: &Path) -> Result<PathBuf> {
    std::fs::copy(from, to).context(format!("copying {} to {}", from.display(), to.display()))?;
    Ok(to.to_path_buf())
}

/// Raw, gzip -9 and brotli 11 sizes of every file.
fn measure(files: &[(&'static str, PathBuf)]) -> Result<Vec<Measured>> {
    let paths: Vec<&Path> = files.iter().map(|(_, p)| p.as_path()).collect();
    let brotli = brotli_lens(&paths)?;
    files
        .iter()
        .zip(brotli)
        .map(|((variant, path), brotli)| {
            let size = sizes::measure(path)?;
            Ok(Measured { variant, path: path.clone(), raw: size.raw, gzip: size.gzip, brotli })
        })
        .collect()
}

/// Node's `zlib.brotliCompressSync` at quality 11 over each file; lengths in order.
fn brotli_lens(paths: &[&Path]) -> Result<Vec<usize>> {
    const SCRIPT: &str = "const z = require('zlib'), fs = require('fs');\
        const sizes = process.argv.slice(1).map((f) => { const b = fs.readFileSync(f);\
        return z.brotliCompressSync(b, { params: { [z.constants.BROTLI_PARAM_QUALITY]: 11,\
        [z.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length; });\
        console.log(sizes.join(' '));";
    let mut node = Command::new("node");
    node.arg("-e").arg(SCRIPT).args(paths);
    let out = node_output(&mut node, "brotli-compressing with node")?;
    let lens: Vec<usize> = out.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    if lens.len() == paths.len() {
        Ok(lens)
    } else {
        Err(Error::msg(format!("brotli-compressing with node: expected {} sizes, got `{}`", paths.len(), out.trim())))
    }
}

/// Runs a node command, returning stdout; a failure carries its stderr.
fn node_output(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd.output().map_err(|e| Error::msg(format!("{what}: could not start node: {e}")))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(Error::msg(format!(
            "{what}: node failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// The official requester's bundle and what is in it.
struct Official {
    bundle: PathBuf,
    esbuild_version: String,
    /// Minified bytes in the bundle by npm package (host code under its file name), largest first.
    packages: Vec<(String, u64)>,
}

/// Bundles [`OFFICIAL_ENTRY`] as a host would ship it.
fn bundle_official(ctx: &Ctx) -> Result<Official> {
    let bundle = ctx.dir("size/official")?.join("official-requester.min.js");
    let built = runner::esbuild(ctx.root, &ctx.root.join(OFFICIAL_ENTRY), &bundle)?;
    Ok(Official { bundle, esbuild_version: built.esbuild_version, packages: built.packages })
}

/// The `version` of an installed npm package.
fn npm_version(root: &Path, package: &str) -> Result<String> {
    let path = root.join("node_modules").join(package).join("package.json");
    let text = std::fs::read_to_string(&path).context(format!("reading {}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text).context(format!("parsing {}", path.display()))?;
    json["version"].as_str().map(str::to_owned).ok_or_else(|| Error::msg(format!("{} has no version", path.display())))
}

/// `path` relative to the repository root when inside it.
fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

fn files_table(root: &Path, measured: &[Measured]) -> String {
    let rows: Vec<[String; 5]> = measured
        .iter()
        .map(|m| {
            [
                m.variant.to_owned(),
                shown(root, &m.path),
                group_thousands(m.raw as i64),
                group_thousands(m.gzip as i64),
                group_thousands(m.brotli as i64),
            ]
        })
        .collect();
    aligned(&["variant", "file", "raw B", "gzip -9 B", "brotli 11 B"], &rows, 2)
}

fn files_json(root: &Path, measured: &[Measured]) -> serde_json::Value {
    serde_json::json!(measured
        .iter()
        .map(|m| serde_json::json!({
            "variant": m.variant,
            "file": shown(root, &m.path),
            "raw": m.raw,
            "gzip9": m.gzip,
            "brotli11": m.brotli,
        }))
        .collect::<Vec<_>>())
}

fn packages_table(packages: &[(String, u64)]) -> String {
    let total: u64 = packages.iter().map(|(_, b)| b).sum();
    let rows: Vec<[String; 3]> = packages
        .iter()
        .map(|(name, bytes)| [name.clone(), group_thousands(*bytes as i64), percent(*bytes, total)])
        .collect();
    aligned(&["package", "bytes", "share"], &rows, 1)
}

fn analyse(path: &Path) -> Result<Breakdown> {
    let bytes = std::fs::read(path).context(format!("reading {}", path.display()))?;
    breakdown::analyse(&bytes).map_err(|e| Error::msg(format!("parsing {}: {e}", path.display())))
}

/// Summary lines, the top groups of both modules side by side, and the top functions of pkg/'s.
fn breakdown_text(client: &Breakdown, element: &Breakdown) -> String {
    let mut out = String::new();
    for (label, b) in [("client", client), ("client + element", element)] {
        let name_section = b.custom_sections.iter().filter(|(n, _)| n == "name").map(|(_, s)| *s).sum::<u64>();
        out.push_str(&format!(
            "{label}: module {} (code {}, data {}, name section {}); {} wasm-bindgen descriptor functions ({}) left out, as wasm-bindgen removes them\n",
            format_value(b.module_bytes as f64, "B"),
            format_value(b.code_bytes as f64, "B"),
            format_value(b.data_bytes as f64, "B"),
            format_value(name_section as f64, "B"),
            b.descriptors.0,
            format_value(b.descriptors.1 as f64, "B"),
        ));
    }
    let code = |b: &Breakdown| b.code_bytes - b.descriptors.1;
    let client_groups = client.groups();
    let rows: Vec<[String; 5]> = element
        .groups()
        .iter()
        .take(TOP)
        .map(|g| {
            let alone = client_groups.iter().find(|c| c.key == g.key);
            [
                g.key.clone(),
                alone.map(|c| group_thousands(c.size as i64)).unwrap_or_else(|| "—".into()),
                alone.map(|c| percent(c.size, code(client))).unwrap_or_default(),
                group_thousands(g.size as i64),
                percent(g.size, code(element)),
            ]
        })
        .collect();
    out.push_str(&format!("\ntop {TOP} groups by function bytes (share of code):\n"));
    out.push_str(&aligned(&["group", "client B", "share", "+ element B", "share"], &rows, 1));
    let rows: Vec<[String; 4]> = element
        .by_name()
        .iter()
        .take(TOP)
        .map(|f| {
            [clip(&f.key, 110), f.count.to_string(), group_thousands(f.size as i64), percent(f.size, code(element))]
        })
        .collect();
    out.push_str(&format!("\ntop {TOP} functions of client + element (n = instances with that name):\n"));
    out.push_str(&aligned(&["function", "n", "bytes", "share"], &rows, 1));
    out
}

fn breakdown_json(b: &Breakdown, path: &Path) -> serde_json::Value {
    let totals = |list: Vec<breakdown::Total>, limit: usize| {
        list.into_iter()
            .take(limit)
            .map(|t| serde_json::json!({ "name": t.key, "bytes": t.size, "count": t.count }))
            .collect::<Vec<_>>()
    };
    serde_json::json!({
        "module": path.display().to_string(),
        "module_bytes": b.module_bytes,
        "code_bytes": b.code_bytes,
        "data_bytes": b.data_bytes,
        "custom_sections": b.custom_sections.iter().map(|(n, s)| serde_json::json!({ "name": n, "bytes": s })).collect::<Vec<_>>(),
        "descriptor_functions": { "count": b.descriptors.0, "bytes": b.descriptors.1 },
        "groups": totals(b.groups(), usize::MAX),
        "functions": totals(b.by_name(), 100),
    })
}

/// `part` as a percentage of `whole`, one decimal.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return String::new();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// At most `max` characters, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(max - 1).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_and_clip() {
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent(1, 0), "");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
