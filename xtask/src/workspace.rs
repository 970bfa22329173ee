//! Facts about the repository xtask works on: where it is, what version it is, which
//! `wasm-bindgen` it is locked to, and where cargo puts build output.
//!
//! The manifests are read with small line-based parsers rather than a TOML crate: we need two
//! values from files whose shape cargo itself controls, and fewer dependencies keep
//! `cargo xtask` quick to compile on a fresh CI machine.

use std::path::{Path, PathBuf};

use crate::cmd;
use crate::error::{Context, Error, Result};

/// The repository root: the parent of the xtask crate.
///
/// Read from `$CARGO_MANIFEST_DIR` at run time (set by `cargo run`) before the compile-time
/// value, so a copied checkout that reuses a built xtask still works on its own files.
pub fn root() -> Result<PathBuf> {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.join("Cargo.toml").is_file())
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let root = manifest_dir
        .parent()
        .ok_or_else(|| Error::msg(format!("xtask crate at {} has no parent directory", manifest_dir.display())))?
        .to_path_buf();
    if !root.join("Cargo.toml").is_file() {
        return Err(Error::msg(format!(
            "expected the workspace Cargo.toml at {}; run xtask via `cargo xtask` from the repository",
            root.join("Cargo.toml").display()
        )));
    }
    Ok(root)
}

/// Reads a text file, naming it in the error.
pub fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).context(format!("reading {}", path.display()))
}

/// The value of a `key = "value"` line, if `line` is one.
fn string_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
    rest.strip_prefix('"')?.strip_suffix('"')
}

/// `version` from the `[package]` table of a Cargo.toml; the npm package version follows it.
pub fn package_version(cargo_toml: &str) -> Option<String> {
    let mut in_package = false;
    for line in cargo_toml.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_package = trimmed == "[package]";
        } else if in_package {
            if let Some(v) = string_value(trimmed, "version") {
                return Some(v.to_owned());
            }
        }
    }
    None
}

/// Every version of package `name` recorded in a Cargo.lock (one `[[package]]` block each).
pub fn locked_versions(cargo_lock: &str, name: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current_name: Option<&str> = None;
    for line in cargo_lock.lines() {
        let trimmed = line.trim();
        if trimmed == "[[package]]" {
            current_name = None;
        } else if let Some(n) = string_value(trimmed, "name") {
            current_name = Some(n);
        } else if let Some(v) = string_value(trimmed, "version") {
            if current_name == Some(name) {
                found.push(v.to_owned());
            }
        }
    }
    found
}

/// The root crate's version, for the npm package.json.
pub fn crate_version(root: &Path) -> Result<String> {
    let path = root.join("Cargo.toml");
    package_version(&read(&path)?)
        .ok_or_else(|| Error::msg(format!("no `version = \"…\"` in the [package] table of {}", path.display())))
}

/// The single `wasm-bindgen` version in Cargo.lock: the CLI must match it exactly, because the
/// CLI and the library share an unstable schema embedded in the .wasm.
pub fn locked_wasm_bindgen(root: &Path) -> Result<String> {
    let path = root.join("Cargo.lock");
    let versions = locked_versions(&read(&path)?, "wasm-bindgen");
    match versions.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::msg(format!(
            "{} records no `wasm-bindgen` package; run `cargo generate-lockfile` first",
            path.display()
        ))),
        many => Err(Error::msg(format!(
            "{} records several wasm-bindgen versions ({}); the CLI can match only one — unify them",
            path.display(),
            many.join(", ")
        ))),
    }
}

/// Cargo's target directory as cargo itself resolves it (honours `CARGO_TARGET_DIR` and
/// `build.target-dir` in config), so we find the .wasm wherever it was written.
pub fn target_dir(root: &Path) -> Result<PathBuf> {
    let mut metadata = cmd::cargo();
    metadata.args(["metadata", "--format-version", "1", "--no-deps"]).current_dir(root);
    let json = cmd::stdout_of(&mut metadata).context("asking cargo for the target directory")?;
    let value: serde_json::Value = serde_json::from_str(&json).context("parsing `cargo metadata` output")?;
    value
        .get("target_directory")
        .and_then(|v| v.as_str())
        .map(PathBuf::from)
        .ok_or_else(|| Error::msg("`cargo metadata` output has no target_directory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_package_version_not_dependency_versions() {
        let toml = "[workspace]\nmembers = [\".\"]\n\n[package]\nname = \"x\"\nversion = \"1.2.3\"\n\n[dependencies]\nserde = { version = \"1\" }\n";
        assert_eq!(package_version(toml).as_deref(), Some("1.2.3"));
        assert_eq!(package_version("[dependencies]\nversion = \"9\"\n"), None);
    }

    #[test]
    fn finds_locked_versions_by_name() {
        let lock = "version = 4\n\n[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\n\n[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"0.2.130\"\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\n";
        assert_eq!(locked_versions(lock, "wasm-bindgen"), vec!["0.2.130".to_owned()]);
        assert!(locked_versions(lock, "flate2").is_empty());
    }
}
