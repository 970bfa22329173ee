//! `cargo xtask pack`: the npm tarball of pkg/, made by `npm pack` as a registry would receive it.
//!
//! Hosts install the tarball, not pkg/ as it lies: `files` decides what is in it, and the host apps
//! (tests/hosts) and the package linters test exactly that. The tarball always goes to
//! `<repo>/target/pack/mcp-tasks-web.tgz` (not `$CARGO_TARGET_DIR`, and no version in the name): the
//! host apps name it by that relative path in their package.json.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use crate::cmd;
use crate::error::{Context, Error, Result};

/// Where the tarball is written, relative to the repository root.
pub const TARBALL: &str = "target/pack/mcp-tasks-web.tgz";

/// What pkg/ is built from: when any of these is newer than pkg/package.json, pkg/ is rebuilt first.
/// (`package.json`'s subpath imports are how the JS in `js` names the doors.)
const PKG_INPUTS: [&str; 9] = [
    "src",
    "js",
    "pkg-template",
    "package.json",
    "Cargo.toml",
    "Cargo.lock",
    "clippy.toml",
    "LICENSE-MIT",
    "LICENSE-APACHE",
];

/// Whether pkg/ is missing or older than something it is built from (`Some(why)`).
pub fn pkg_is_stale(root: &Path) -> Option<String> {
    let Some(built) = modified(&root.join("pkg").join("package.json")) else {
        return Some("pkg/ has not been built".into());
    };
    PKG_INPUTS
        .iter()
        .find(|input| newest(&root.join(input)).is_some_and(|t| t > built))
        .map(|input| format!("{input} changed since pkg/ was built"))
}

/// Runs `npm pack` on `pkg_dir` into `target/pack/`, names the tarball [`TARBALL`], prints its path
/// and size, and returns the path.
pub fn pack(root: &Path, pkg_dir: &Path) -> Result<PathBuf> {
    let tarball = root.join(TARBALL);
    let dest = tarball.parent().ok_or_else(|| Error::msg("the tarball path has no folder"))?;
    std::fs::create_dir_all(dest).context(format!("creating {}", dest.display()))?;
    let mut npm = cmd::command("npm", ["pack", "--json", "--pack-destination"]);
    npm.arg(dest).current_dir(pkg_dir);
    eprintln!("$ {} (in {})", cmd::display(&npm), pkg_dir.display());
    let report: Value = serde_json::from_str(&cmd::stdout_of(&mut npm)?).context("reading `npm pack --json`")?;
    let entry = report.get(0).ok_or_else(|| Error::msg("`npm pack --json` listed no tarball"))?;
    let name = entry.get("filename").and_then(Value::as_str).ok_or_else(|| Error::msg("`npm pack` named no file"))?;
    let files = entry.get("files").and_then(Value::as_array).map_or(0, Vec::len);
    std::fs::rename(dest.join(name), &tarball).context(format!("renaming {name} to {}", tarball.display()))?;
    let size = std::fs::metadata(&tarball).context(format!("reading {}", tarball.display()))?.len();
    println!("xtask: packed {} ({size} B, {files} files)", tarball.display());
    Ok(tarball)
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time of `path` or anything under it.
fn newest(path: &Path) -> Option<SystemTime> {
    let own = modified(path);
    let Ok(entries) = std::fs::read_dir(path) else { return own };
    entries.filter_map(|e| e.ok()).filter_map(|e| newest(&e.path())).chain(own).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_looks_inside_folders() {
        let dir = std::env::temp_dir().join(format!("xtask-pack-newest-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).expect("temp dir");
        let file = dir.join("a").join("f");
        std::fs::write(&file, "x").expect("write");
        let later = SystemTime::now() + std::time::Duration::from_secs(3600);
        std::fs::File::options().write(true).open(&file).and_then(|f| f.set_modified(later)).expect("touch");
        assert_eq!(newest(&dir), Some(later));
        assert_eq!(newest(&dir.join("missing")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
