//! Copies pkg-template/ into pkg/, filling in the version.
//!
//! wasm-bindgen's generated files are the package's code, but its metadata (exports map,
//! `sideEffects`, the npm README) is ours: it lives as plain files in pkg-template/ so it can be
//! reviewed like any source, and `{{version}}` there is replaced with the root crate's version so
//! the npm and Rust versions can never drift apart. Anything wasm-bindgen wrote under the same
//! name (e.g. its own package.json) is overwritten.

use std::path::Path;

use crate::error::{Context, Error, Result};
use crate::workspace;

/// The placeholder replaced by the crate version in every template file.
pub const VERSION_PLACEHOLDER: &str = "{{version}}";

/// The licence texts at the repository root that ship in the package: it is "MIT OR Apache-2.0",
/// and both licences require their text to travel with every copy.
pub const LICENCE_FILES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// Copies every file of `template_dir` (recursively) into `out_dir`, substituting the version,
/// then checks that the resulting package.json is valid JSON carrying that version.
pub fn install(template_dir: &Path, out_dir: &Path, version: &str) -> Result<()> {
    if !template_dir.join("package.json").is_file() {
        return Err(Error::msg(format!(
            "{} is missing; it defines the npm package",
            template_dir.join("package.json").display()
        )));
    }
    copy_dir(template_dir, out_dir, version)?;
    let manifest_path = out_dir.join("package.json");
    let manifest: serde_json::Value = serde_json::from_str(&workspace::read(&manifest_path)?)
        .context(format!("{} is not valid JSON", manifest_path.display()))?;
    match manifest.get("version").and_then(|v| v.as_str()) {
        Some(v) if v == version => Ok(()),
        other => Err(Error::msg(format!(
            "pkg-template/package.json must say \"version\": \"{VERSION_PLACEHOLDER}\" (got {other:?} after substitution)"
        ))),
    }
}

/// Copies [`LICENCE_FILES`] from the repository root into `out_dir`.
pub fn install_licences(root: &Path, out_dir: &Path) -> Result<()> {
    for name in LICENCE_FILES {
        let (from, to) = (root.join(name), out_dir.join(name));
        std::fs::copy(&from, &to).context(format!("copying {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// Recursive copy with placeholder substitution in text files.
fn copy_dir(from: &Path, to: &Path, version: &str) -> Result<()> {
    std::fs::create_dir_all(to).context(format!("creating {}", to.display()))?;
    let entries = std::fs::read_dir(from).context(format!("listing {}", from.display()))?;
    for entry in entries {
        let entry = entry.context(format!("listing {}", from.display()))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if src.is_dir() {
            copy_dir(&src, &dst, version)?;
            continue;
        }
        let bytes = std::fs::read(&src).context(format!("reading {}", src.display()))?;
        let out = match String::from_utf8(bytes) {
            Ok(text) => text.replace(VERSION_PLACEHOLDER, version).into_bytes(),
            Err(binary) => binary.into_bytes(),
        };
        std::fs::write(&dst, out).context(format!("writing {}", dst.display()))?;
    }
    Ok(())
}
