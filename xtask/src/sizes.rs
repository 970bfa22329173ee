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
    fn budget_sums_the_files_and_names_the_excess() {
        assert!(check_budget("pkg", &[file(600), file(400)], 1000).is_ok());
        let over = check_budget("pkg", &[file(600), file(401)], 1000).unwrap_err().to_string();
        assert!(over.contains("1001 B") && over.contains("by 1 B"), "{over}");
    }
}
