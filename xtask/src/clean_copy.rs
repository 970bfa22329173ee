//! The clean-copy check of `cargo xtask test`: the native tests again, from a copy of exactly the files
//! git tracks, in an empty temporary directory with nothing beside it.
//!
//! Why: a test can pass in a developer's checkout and still fail on a fresh clone, because it reads a
//! file beside the repository (the spec vectors once lived outside it), or one that is in the working
//! tree but was never added to git, or something left behind in `target/`. Running `cargo test` where only
//! the tracked files exist turns each of those into a failure here instead of on someone else's machine.
//! The copy reads the working tree, so uncommitted edits count and a new file counts once `git add`ed.
//!
//! To keep it quick, cargo builds into `<target>/clean-copy` of the real repository, so registry
//! dependencies are compiled once and reused by later runs; the temporary directory is deleted afterwards.

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::workspace;

/// The directory name of the copy inside its (otherwise empty) temporary parent.
const COPY_NAME: &str = "mcp-tasks-web";

/// Copies the tracked files to a fresh temporary directory and runs `cargo test --workspace
/// --no-fail-fast` there; fails if the copy cannot be made or any test fails.
pub fn run(root: &Path) -> Result<()> {
    let files = tracked_files(root)?;
    let target = workspace::target_dir(root)?.join("clean-copy");
    let temp = TempDir::create("mcp-tasks-web-clean-copy")?;
    let copy = temp.path().join(COPY_NAME);
    let copied = copy_files(root, &copy, &files)?;
    eprintln!("xtask: copied {copied} tracked files to {} (building into {})", copy.display(), target.display());
    let mut test = cmd::cargo();
    test.args(["test", "--workspace", "--no-fail-fast"])
        .current_dir(&copy)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("CARGO_MANIFEST_DIR");
    cmd::run(&mut test).map_err(|e| {
        Error::msg(format!(
            "{e}\nthe tests pass in the checkout but fail in a copy of only the files git tracks (output above): \
             a test reads something outside the repository, or a file it needs is not added to git"
        ))
    })
}

/// The files git tracks, relative to `root` (`git ls-files -z`: the index, so staged new files count).
fn tracked_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut ls = cmd::command("git", ["ls-files", "-z"]);
    ls.current_dir(root);
    let out = ls.output().context("running `git ls-files` (the clean-copy check needs git and a git checkout)")?;
    if !out.status.success() {
        return Err(Error::msg(format!(
            "`git ls-files` failed in {} ({}): {}",
            root.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let files = parse_ls_files(&out.stdout)?;
    if files.is_empty() {
        return Err(Error::msg(format!("git tracks no files in {}", root.display())));
    }
    Ok(files)
}

/// Splits `git ls-files -z` output into relative paths, refusing any that would leave the copy.
fn parse_ls_files(stdout: &[u8]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for raw in stdout.split(|&b| b == 0).filter(|s| !s.is_empty()) {
        let name = std::str::from_utf8(raw)
            .map_err(|_| Error::msg(format!("tracked file name is not UTF-8: {}", String::from_utf8_lossy(raw))))?;
        let path = PathBuf::from(name);
        if !path.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(Error::msg(format!("tracked path `{name}` is not a plain relative path")));
        }
        files.push(path);
    }
    Ok(files)
}

/// Copies each of `files` from `src` to the same relative place under `dst`, returning how many were
/// copied. A tracked file deleted from the working tree is left out, as a fresh clone of the next commit
/// would; symbolic links are copied as links; file permissions (the executable bit) are kept.
fn copy_files(src: &Path, dst: &Path, files: &[PathBuf]) -> Result<usize> {
    let mut copied = 0;
    for rel in files {
        let from = src.join(rel);
        let to = dst.join(rel);
        let meta = match std::fs::symlink_metadata(&from) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::msg(format!("reading {}: {e}", from.display()))),
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).context(format!("creating {}", parent.display()))?;
        }
        if meta.file_type().is_symlink() {
            copy_link(&from, &to)?;
        } else {
            std::fs::copy(&from, &to).context(format!("copying {} to {}", from.display(), to.display()))?;
        }
        copied += 1;
    }
    Ok(copied)
}

#[cfg(unix)]
fn copy_link(from: &Path, to: &Path) -> Result<()> {
    let link = std::fs::read_link(from).context(format!("reading the link {}", from.display()))?;
    std::os::unix::fs::symlink(&link, to).context(format!("creating the link {}", to.display()))
}

#[cfg(not(unix))]
fn copy_link(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to).map(drop).context(format!("copying {} to {}", from.display(), to.display()))
}

/// A new, empty directory under the system temp dir, deleted (with everything in it) when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn create(prefix: &str) -> Result<TempDir> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}-{n}", std::process::id()));
        std::fs::create_dir(&path).context(format!("creating {}", path.display()))?;
        Ok(TempDir(path))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            eprintln!("xtask: could not remove {}: {e}", self.0.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nul_separated_paths() {
        let files = parse_ls_files(b"Cargo.toml\0tests/fixtures/spec/wire-transcript.txt\0a b.txt\0").unwrap();
        assert_eq!(files, ["Cargo.toml", "tests/fixtures/spec/wire-transcript.txt", "a b.txt"].map(PathBuf::from));
        assert!(parse_ls_files(b"").unwrap().is_empty());
    }

    #[test]
    fn refuses_paths_that_leave_the_copy() {
        assert!(parse_ls_files(b"../beside/x.json\0").is_err());
        assert!(parse_ls_files(b"/etc/passwd\0").is_err());
        assert!(parse_ls_files(b"tests/../../x\0").is_err());
    }

    #[test]
    fn copies_listed_files_only_and_skips_deleted_ones() {
        let src = TempDir::create("xtask-clean-copy-test-src").unwrap();
        let dst = TempDir::create("xtask-clean-copy-test-dst").unwrap();
        std::fs::create_dir_all(src.path().join("tests/fixtures")).unwrap();
        std::fs::write(src.path().join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(src.path().join("tests/fixtures/v.json"), "{}").unwrap();
        std::fs::write(src.path().join("untracked.txt"), "not listed").unwrap();
        let listed = ["Cargo.toml", "tests/fixtures/v.json", "deleted.rs"].map(PathBuf::from);

        let copy = dst.path().join(COPY_NAME);
        assert_eq!(copy_files(src.path(), &copy, &listed).unwrap(), 2);
        assert_eq!(std::fs::read_to_string(copy.join("tests/fixtures/v.json")).unwrap(), "{}");
        assert_eq!(std::fs::read_to_string(copy.join("Cargo.toml")).unwrap(), "[package]\n");
        assert!(!copy.join("untracked.txt").exists());
        assert!(!copy.join("deleted.rs").exists());
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_executable_bit() {
        use std::os::unix::fs::PermissionsExt;
        let src = TempDir::create("xtask-clean-copy-test-src").unwrap();
        let dst = TempDir::create("xtask-clean-copy-test-dst").unwrap();
        std::fs::write(src.path().join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(src.path().join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        copy_files(src.path(), dst.path(), &[PathBuf::from("run.sh")]).unwrap();
        let mode = std::fs::metadata(dst.path().join("run.sh")).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111);
    }

    #[test]
    fn temp_dir_is_removed_on_drop() {
        let temp = TempDir::create("xtask-clean-copy-test-drop").unwrap();
        let path = temp.path().to_path_buf();
        std::fs::create_dir_all(path.join("a/b")).unwrap();
        std::fs::write(path.join("a/b/c"), "x").unwrap();
        drop(temp);
        assert!(!path.exists());
    }
}
