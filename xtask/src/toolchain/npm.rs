//! npm packages from the committed package-lock.json — today just binaryen's `wasm-opt`.
//!
//! We take wasm-opt from npm rather than the OS because distro binaryen lags far behind what
//! current wasm-bindgen output needs, and a lockfile pins the exact release (with its integrity
//! hash) on every machine. `npm ci` is used, never `npm install`, so the lockfile is never
//! rewritten by a build.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::workspace;

/// A JavaScript CLI from node_modules, run as `node <script>` so it works without relying on
/// the script's `#!/usr/bin/env node` line or on node_modules/.bin shims.
pub struct NodeScript {
    /// The script file (e.g. node_modules/binaryen/bin/wasm-opt).
    pub script: PathBuf,
}

impl NodeScript {
    /// A `Command` that runs the script; callers add arguments.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new("node");
        cmd.arg(&self.script);
        cmd
    }
}

/// Features wasm-opt must accept: the ones rustc's wasm32 target enables by default (Rust 1.82+;
/// the last two since LLVM 20) and records in the module's `target_features` section, which is
/// what `wasm-opt --print-features` reports for our module. binaryen rejects instructions from
/// features that are not enabled, so we list them explicitly rather than rely on detection.
pub const WASM_OPT_FEATURES: [&str; 8] = [
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
    "--enable-bulk-memory-opt",
    "--enable-call-indirect-overlong",
];

/// The npm package that provides wasm-opt, and the binary inside it.
const BINARYEN: &str = "binaryen";
const WASM_OPT: &str = "wasm-opt";

/// Runs `npm ci` when node_modules is missing, older than package-lock.json, or lacks the right
/// wasm-opt; returns that wasm-opt.
pub fn ensure(root: &Path) -> Result<NodeScript> {
    let lock_path = root.join("package-lock.json");
    let locked = LockedBin::read(&lock_path, BINARYEN, WASM_OPT)?;
    let wasm_opt = NodeScript { script: root.join("node_modules").join(BINARYEN).join(&locked.bin_path) };

    let reason = if !root.join("node_modules").is_dir() {
        Some("node_modules is missing".to_owned())
    } else if install_is_older_than(root, &lock_path) {
        Some("node_modules is older than package-lock.json".to_owned())
    } else if !reports_major(&wasm_opt, &locked.major()) {
        Some(format!("node_modules has no working {WASM_OPT} from {BINARYEN} {}", locked.version))
    } else {
        None
    };
    match reason {
        None => eprintln!("xtask: npm packages ({BINARYEN} {}): installed", locked.version),
        Some(reason) => {
            eprintln!("xtask: {reason}; installing npm packages from package-lock.json with `npm ci`");
            let mut npm_ci = cmd::command("npm", ["ci", "--no-audit", "--no-fund"]);
            cmd::run(npm_ci.current_dir(root)).map_err(|e| {
                Error::msg(format!("{e}\n  (npm comes with Node.js 20+; Debian: apt-get install nodejs npm)"))
            })?;
            if !reports_major(&wasm_opt, &locked.major()) {
                return Err(Error::msg(format!(
                    "`npm ci` finished but `node {} --version` does not report version {}",
                    wasm_opt.script.display(),
                    locked.major()
                )));
            }
        }
    }
    Ok(wasm_opt)
}

/// npm writes node_modules/.package-lock.json on every install; if it is older than the
/// committed lockfile, someone changed the lockfile since the last install.
fn install_is_older_than(root: &Path, lock_path: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let hidden = root.join("node_modules").join(".package-lock.json");
    let installed = modified(&hidden).or_else(|| modified(&root.join("node_modules")));
    match (installed, modified(lock_path)) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    }
}

/// Whether `wasm-opt --version` runs and names the expected major version ("version 132").
fn reports_major(tool: &NodeScript, major: &str) -> bool {
    if !tool.script.is_file() {
        return false;
    }
    cmd::stdout_of(tool.command().arg("--version"))
        .map(|out| out.split_whitespace().collect::<Vec<_>>().windows(2).any(|w| w[0] == "version" && w[1] == major))
        .unwrap_or(false)
}

/// What package-lock.json says about one binary of one package.
struct LockedBin {
    version: String,
    bin_path: String,
}

impl LockedBin {
    /// Reads `packages["node_modules/<package>"]` from an npm v2/v3 lockfile.
    fn read(lock_path: &Path, package: &str, bin: &str) -> Result<Self> {
        let text = workspace::read(lock_path).map_err(|e| {
            Error::msg(format!("{e}\n  (package-lock.json is committed at the repository root; restore it with git)"))
        })?;
        let json: serde_json::Value =
            serde_json::from_str(&text).context(format!("parsing {}", lock_path.display()))?;
        let entry = json
            .get("packages")
            .and_then(|p| p.get(format!("node_modules/{package}")))
            .ok_or_else(|| Error::msg(format!("{} does not lock the npm package `{package}`", lock_path.display())))?;
        let field = |value: Option<&serde_json::Value>, what: &str| {
            value
                .and_then(|v| v.as_str())
                .map(str::to_owned)
                .ok_or_else(|| Error::msg(format!("{}: `{package}` entry has no {what}", lock_path.display())))
        };
        Ok(LockedBin {
            version: field(entry.get("version"), "version")?,
            bin_path: field(entry.get("bin").and_then(|b| b.get(bin)), &format!("bin.{bin}"))?,
        })
    }

    /// binaryen numbers releases by major only ("132.0.0" is `wasm-opt version 132`).
    fn major(&self) -> String {
        self.version.split('.').next().unwrap_or(&self.version).to_owned()
    }
}
