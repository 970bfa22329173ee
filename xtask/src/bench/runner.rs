//! What the figures that drive JavaScript share: the reference server binary, a Node script whose
//! last stdout line is its JSON result, the official requester bundled by esbuild, and the numbers
//! read from the environment.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::workspace;

/// Builds the reference server (profile `bench-server`: optimised for speed) and returns its path.
pub fn reference_server(root: &Path) -> Result<PathBuf> {
    let mut build = cmd::cargo();
    build.args(["build", "--profile", "bench-server", "-p", "mcp-tasks-server"]).current_dir(root);
    cmd::run(&mut build)?;
    Ok(workspace::target_dir(root)?.join("bench-server").join("mcp-tasks-server"))
}

/// A whole number from the environment, if set.
pub fn env_number(name: &str) -> Result<Option<u64>> {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| Error::msg(format!("{name}={text}: expected a whole number"))),
        Err(_) => Ok(None),
    }
}

/// Counts such as `1,100,1000` from the environment variable `name`, or `default` when it is unset.
pub fn env_counts(name: &str, default: &[u64]) -> Result<Vec<u64>> {
    match std::env::var(name) {
        Ok(text) => parse_counts(name, &text),
        Err(_) => Ok(default.to_vec()),
    }
}

fn parse_counts(name: &str, text: &str) -> Result<Vec<u64>> {
    let counts: Vec<u64> = text
        .split(',')
        .map(|s| s.trim().parse::<u64>().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| Error::msg(format!("{name}={text}: expected positive counts like 1,100,1000")))?;
    if counts.is_empty() {
        return Err(Error::msg(format!("{name} is empty")));
    }
    Ok(counts)
}

/// Shared by the figures' page probes, served at the root next to their pages.
const PAGE_WIRE: &str = "xtask/bench-fixtures/page-wire.js";

/// Copies a figure's host `pages` from `fixtures` into `www` (with the probes' shared
/// `page-wire.js`) and bundles its `official-entry.mjs` there as `official.js`; returns the esbuild
/// version.
pub fn stage_pages(root: &Path, fixtures: &str, pages: &[&str], www: &Path) -> Result<String> {
    let shared = root.join(PAGE_WIRE);
    std::fs::copy(&shared, www.join("page-wire.js")).context(format!("copying {}", shared.display()))?;
    for page in pages {
        let from = root.join(fixtures).join(page);
        std::fs::copy(&from, www.join(page)).context(format!("copying {}", from.display()))?;
    }
    Ok(esbuild(root, &root.join(fixtures).join("official-entry.mjs"), &www.join("official.js"))?.esbuild_version)
}

/// Whose result and for how many handles: `subject` and `n` of one entry of a browser runner's
/// `results` (`figure` names the runner in errors).
pub fn subject_and_n(entry: &serde_json::Value, figure: &str) -> Result<(super::Subject, u64)> {
    let subject = match entry["subject"].as_str() {
        Some("ours") => super::Subject::Ours,
        Some("official") => super::Subject::Official,
        other => return Err(Error::msg(format!("{figure} runner: unknown subject {other:?}"))),
    };
    let n = entry["n"].as_u64().ok_or_else(|| Error::msg(format!("{figure} runner: a result has no `n`")))?;
    Ok((subject, n))
}

/// Fails unless `pkg/` holds `files` (the figures measure the package as built).
pub fn require_pkg(root: &Path, files: &[&str]) -> Result<()> {
    match files.iter().find(|f| !root.join("pkg").join(f).is_file()) {
        Some(missing) => Err(Error::msg(format!("pkg/{missing} is missing; run `cargo xtask build` first"))),
        None => Ok(()),
    }
}

/// Runs `node script args…` (with `MCP_TASKS_SERVER` set when a `server` is given), its stderr passed
/// through, and parses the last non-empty line of its stdout as JSON.
pub fn node_json<S: AsRef<OsStr>>(
    root: &Path,
    server: Option<&Path>,
    script: &str,
    args: &[S],
) -> Result<serde_json::Value> {
    let mut node = Command::new("node");
    node.arg(script).args(args).current_dir(root).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::inherit());
    if let Some(server) = server {
        node.env("MCP_TASKS_SERVER", server);
    }
    eprintln!("$ {}", cmd::display(&node));
    let out = node.output().map_err(|e| Error::msg(format!("running {script}: could not start node: {e}")))?;
    if !out.status.success() {
        return Err(Error::msg(format!("{script} failed ({}); its output is above", out.status)));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
    serde_json::from_str(last).context(format!("parsing the last line of {script}"))
}

/// The official requester bundled the way a host would ship it.
pub struct Bundle {
    /// esbuild's version.
    pub esbuild_version: String,
    /// Minified bytes in the bundle by npm package (host code under its file name), largest first.
    pub packages: Vec<(String, u64)>,
}

/// Bundles `entry` into `outfile` with esbuild's JS API (works whether or not esbuild's install
/// script swapped its bin shim for the native binary): minified, platform browser, ESM, tree-shaken.
pub fn esbuild(root: &Path, entry: &Path, outfile: &Path) -> Result<Bundle> {
    if !root.join("node_modules/esbuild/package.json").is_file() {
        return Err(Error::msg(
            "node_modules/esbuild is missing; run `npm ci` (package.json lists esbuild as a devDependency)",
        ));
    }
    const SCRIPT: &str = "const esbuild = require('esbuild'); const [entry, outfile] = process.argv.slice(1);\
        const r = esbuild.buildSync({ entryPoints: [entry], outfile, bundle: true, minify: true, platform: 'browser',\
        format: 'esm', treeShaking: true, legalComments: 'none', metafile: true, logLevel: 'warning' });\
        const output = Object.values(r.metafile.outputs).find((o) => o.entryPoint !== undefined);\
        const packages = {};\
        for (const [path, input] of Object.entries(output.inputs)) {\
          const m = path.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/);\
          const key = m ? m[1] : `(host code: ${path.split('/').pop()})`;\
          packages[key] = (packages[key] ?? 0) + input.bytesInOutput; }\
        console.log(JSON.stringify({ version: esbuild.version, packages }));";
    let mut node = Command::new("node");
    node.arg("-e").arg(SCRIPT).arg(entry).arg(outfile).current_dir(root);
    eprintln!(
        "xtask: bench: esbuild (JS API) {} → {}: bundle, minify, platform browser, format esm, tree shaking",
        entry.display(),
        outfile.display()
    );
    let out = node.output().map_err(|e| Error::msg(format!("bundling with esbuild: could not start node: {e}")))?;
    if !out.status.success() {
        return Err(Error::msg(format!(
            "bundling with esbuild failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let json: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim())
        .context("reading esbuild's metafile summary")?;
    let mut packages: Vec<(String, u64)> = json["packages"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0))).collect())
        .unwrap_or_default();
    packages.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(Bundle { esbuild_version: json["version"].as_str().unwrap_or("?").to_owned(), packages })
}

/// `x` rounded to `decimals`.
pub fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

/// The median of the finite `values`; None when there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    Spread::sorted(values).map(|v| {
        let mid = v.len() / 2;
        if v.len() % 2 == 1 {
            v[mid]
        } else {
            (v[mid - 1] + v[mid]) / 2.0
        }
    })
}

/// Median, min and max of some runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The finite `values`' spread, each figure rounded to `decimals`; None when there are none.
    pub fn of(values: &[f64], decimals: i32) -> Option<Spread> {
        let v = Spread::sorted(values)?;
        let at = |x: f64| round(x, decimals);
        Some(Spread { median: at(median(&v)?), min: at(v[0]), max: at(v[v.len() - 1]) })
    }

    /// The finite `values` in order; None when there are none.
    fn sorted(values: &[f64]) -> Option<Vec<f64>> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        (!v.is_empty()).then_some(v)
    }

    /// `12.3 (11.0–14.5)`, for a figure's details.
    pub fn text(self) -> String {
        format!("{:.1} ({:.1}–{:.1})", self.median, self.min, self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::{median, Spread};

    #[test]
    fn counts_are_positive_whole_numbers() {
        assert_eq!(super::parse_counts("N", "1, 100,1000").unwrap(), vec![1, 100, 1000]);
        assert!(super::parse_counts("N", "1,x").is_err());
        assert!(super::parse_counts("N", "0").is_err());
        assert!(super::parse_counts("N", "10k").is_err());
    }

    #[test]
    fn a_spread_is_the_median_and_the_range_of_the_finite_values() {
        assert_eq!(Spread::of(&[3.0, 1.0, f64::NAN, 2.0], 2), Some(Spread { median: 2.0, min: 1.0, max: 3.0 }));
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0], 2).map(|s| s.median), Some(2.5));
        assert_eq!(Spread::of(&[1.23456], 3).map(|s| s.median), Some(1.235));
        assert_eq!(Spread::of(&[], 1), None);
        assert_eq!(median(&[f64::NAN]), None);
    }
}
