//! Size report for the shipped files: raw bytes and gzip -9 bytes.
//!
//! Download size is the figure users feel, and gzip at level 9 is a stable, tool-independent
//! stand-in for what a CDN serves. Printing it on every build makes size regressions visible in
//! review and in CI logs. Compression is pure Rust (flate2/miniz_oxide), so no `gzip` binary.

use std::io::Write;
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

use crate::error::{Context, Result};

/// The budget of the client alone, gzip -9 (96 KB; the official requester bundles to 166.8 KB for the
/// same job). `cargo xtask build` (so `cargo xtask test`) and `cargo xtask bench size` fail over it:
/// growth has to be paid for. The sans-IO core alone (protocol, machine, JSON; no fetch, IndexedDB,
/// locks, timers) measured 63.6 KB.
pub const CLIENT_GZIP_TARGET: usize = 96_000;

/// The budget of the client with the element, gzip -9 (128 KB), checked like
/// [`CLIENT_GZIP_TARGET`]. The client's code is the card host's minus the element, so what grows in
/// one shows in both.
pub const ELEMENT_GZIP_TARGET: usize = 128_000;

/// `Err` naming the excess when `rows` together are over `budget` bytes gzip -9.
pub fn check_budget(what: &str, rows: &[FileSize], budget: usize) -> Result<()> {
    let gzip: usize = rows.iter().map(|r| r.gzip).sum();
    if gzip <= budget {
        eprintln!("xtask: {what}: {gzip} B gzip -9, within its budget of {budget} B");
        return Ok(());
    }
    Err(crate::error::Error::msg(format!(
        "{what}: {gzip} B gzip -9 is over its budget of {budget} B by {} B (xtask/src/sizes.rs); \
         `cargo xtask bench size` shows where the bytes go",
        gzip - budget
    )))
}

/// The package files a page loads through the static imports of `entries` (files in `dir`), each
/// once however many modules import it, in the order first met, followed by `wasm`: what a page
/// whose modules import several of the package's entries downloads.
pub fn page_files(dir: &Path, entries: &[&str], wasm: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut seen: Vec<std::path::PathBuf> = Vec::new();
    let mut todo: Vec<std::path::PathBuf> = entries.iter().rev().map(|e| dir.join(e)).collect();
    while let Some(file) = todo.pop() {
        if seen.contains(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).context(format!("reading {}", file.display()))?;
        let mut found = static_imports(&text).into_iter().map(|name| dir.join(name)).collect::<Vec<_>>();
        found.reverse();
        seen.push(file);
        todo.extend(found);
    }
    seen.push(wasm.to_path_buf());
    Ok(seen)
}

/// The files beside it that a module imports statically (`import … from "./x.js"`, `export … from
/// "./x.js"`, `import "./x.js"`), minified or not; `import("./x.js")` is loaded later, if at all.
fn static_imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for keyword in ["from", "import"] {
        for quote in ['"', '\''] {
            for space in ["", " "] {
                let marker = format!("{keyword}{space}{quote}./");
                let mut rest = text;
                while let Some(at) = rest.find(&marker) {
                    rest = &rest[at + marker.len()..];
                    if let Some(end) = rest.find(quote) {
                        let name = &rest[..end];
                        if !out.iter().any(|n: &String| n == name) {
                            out.push(name.to_owned());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Raw and gzip -9 size of one file.
pub struct FileSize {
    /// The file name as shown in the table.
    pub name: String,
    /// Bytes on disk.
    pub raw: usize,
    /// Bytes after gzip at level 9.
    pub gzip: usize,
}

/// Measures `path`.
pub fn measure(path: &Path) -> Result<FileSize> {
    let bytes = std::fs::read(path).context(format!("reading {}", path.display()))?;
    Ok(FileSize {
        name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        raw: bytes.len(),
        gzip: gzip_len(&bytes)?,
    })
}

/// Length of `bytes` gzip-compressed at the best level (gzip -9).
pub fn gzip_len(bytes: &[u8]) -> Result<usize> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).context("gzip-compressing")?;
    Ok(encoder.finish().context("gzip-compressing")?.len())
}

/// A small aligned table with a total row, e.g.
/// ```text
/// file                      raw   gzip -9
/// mcp_tasks_web_bg.wasm   20511      9123
/// ```
pub fn table(rows: &[FileSize]) -> String {
    let total = FileSize {
        name: "total".into(),
        raw: rows.iter().map(|r| r.raw).sum(),
        gzip: rows.iter().map(|r| r.gzip).sum(),
    };
    let width = rows.iter().chain([&total]).map(|r| r.name.len()).max().unwrap_or(0).max(4);
    let mut out = format!("{:<width$}  {:>9}  {:>9}\n", "file", "raw B", "gzip -9 B");
    for row in rows.iter().chain([&total]) {
        out.push_str(&format!("{:<width$}  {:>9}  {:>9}\n", row.name, row.raw, row.gzip));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_shrinks_repetitive_input() {
        let input = vec![b'a'; 10_000];
        let len = gzip_len(&input).expect("in-memory gzip");
        assert!(len > 18 && len < 200, "gzip of 10k 'a' was {len} bytes");
    }

    #[test]
    fn table_has_header_rows_and_total() {
        let rows = [
            FileSize { name: "a.wasm".into(), raw: 100, gzip: 50 },
            FileSize { name: "a.js".into(), raw: 10, gzip: 5 },
        ];
        let text = table(&rows);
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[3].starts_with("total") && lines[3].ends_with("55"));
    }

    fn file(gzip: usize) -> FileSize {
        FileSize { name: "f".into(), raw: gzip * 3, gzip }
    }

    #[test]
    fn a_module_imported_by_two_entries_is_counted_once() {
        let dir = std::env::temp_dir().join(format!("xtask-page-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("client.js"), "export const a=1;").unwrap();
        std::fs::write(
            dir.join("element.js"),
            "import{a}from\"./client.js\";export*from\"./client.js\";import(\"./full.js\")",
        )
        .unwrap();
        let files = page_files(&dir, &["client.js", "element.js"], &dir.join("x.wasm")).unwrap();
        let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(names, ["client.js", "element.js", "x.wasm"]);
    }

    #[test]
    fn budget_sums_the_files_and_names_the_excess() {
        assert!(check_budget("pkg", &[file(600), file(400)], 1000).is_ok());
        let over = check_budget("pkg", &[file(600), file(401)], 1000).unwrap_err().to_string();
        assert!(over.contains("1001 B") && over.contains("by 1 B"), "{over}");
    }
}
