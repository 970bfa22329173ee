//! `cargo xtask bench [figure...]`: side-by-side figures for mcp-tasks-web and the official
//! TypeScript requester (`@modelcontextprotocol/ext-tasks` 0.2.2 with `@modelcontextprotocol/client`).
//!
//! Each figure is a module with one function `fn(&Ctx) -> Result<Vec<Row>>`, listed in [`FIGURES`].
//! A figure measures both subjects in the same run, so the figures that matter are ratios, which
//! hold on a noisy machine. The framework runs the figures asked for (all by default), prints one
//! table (a median with its runs' range beside it), and writes `bench.json` (every row plus each figure's details), `bench.md` (the table as
//! Markdown, with the command and date: where docs/figures.md and the README's figures are copied from) and `bench.svg`
//! (ours beside the official requester for each metric both have) to `<target>/bench/`.
//!
//! Benchmarks print, they do not assert — except budgets: a row may carry a `budget` (its value
//! must not exceed it), and the bench exits non-zero when one is over, after writing everything.

mod breakdown;
mod cards;
mod decode;
mod poll;
mod resume;
mod runner;
mod scale;
mod size;
mod speed;
mod svg;

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};

use crate::error::{Context, Error, Result};
use crate::toolchain::{self, BuildTools};
use crate::workspace;

/// One figure: a name for the command line and a function that measures it.
pub struct Figure {
    /// What `cargo xtask bench NAME` calls it.
    pub name: &'static str,
    /// One line for the usage text and the JSON.
    pub about: &'static str,
    /// Measures the figure; rows in the order they should print.
    pub run: fn(&Ctx) -> Result<Vec<Row>>,
}

/// Every figure, in the order `cargo xtask bench` runs them.
pub const FIGURES: &[Figure] = &[
    Figure {
        name: "size",
        about: "bytes shipped: wasm + JS glue (client alone, with the element) vs the official requester bundled with esbuild",
        run: size::run,
    },
    Figure {
        name: "poll",
        about: "requests per task vs the ideal against the reference server: one tab, four tabs, with subscriptions/listen",
        run: poll::run,
    },
    Figure {
        name: "resume",
        about: "time from open() to the first tasks/get of a restored handle in Chromium, with 1, 100 and 1,000 stored handles",
        run: resume::run,
    },
    Figure {
        name: "cards",
        about: "a reload drawn: navigation → the visible cards of a <mcp-task-list> with 1, 100 and 1,000 stored tasks, and the list's own cost",
        run: cards::run,
    },
    Figure {
        name: "scale",
        about: "1,000 and 10,000 live tasks in Chromium: memory and main-thread time per task, a scheduling pass, IndexedDB writes per change, 100 cards",
        run: scale::run,
    },
    Figure {
        name: "core",
        about: "native speed of the core (criterion): decode a tasks/get response, a state-machine step, a form model",
        run: speed::run,
    },
    Figure {
        name: "decode",
        about: "a tasks/get body (working / 10-field form / 10 KB result) decoded from a JS string to a JS object in Chromium: our wasm vs the official requester's zod parse",
        run: decode::run,
    },
];

/// Whose figure a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// mcp-tasks-web.
    Ours,
    /// `@modelcontextprotocol/ext-tasks` 0.2.2 with `@modelcontextprotocol/client` 2.4.0.
    Official,
}

impl Subject {
    /// `"ours"` / `"official"`, as in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Subject::Ours => "ours",
            Subject::Official => "official",
        }
    }
}

/// One measured value.
#[derive(Clone, Debug)]
pub struct Row {
    /// The figure's name (a [`Figure::name`]).
    pub figure: &'static str,
    /// Whose value it is.
    pub subject: Subject,
    /// What was measured; rows of both subjects with the same figure and metric are compared.
    pub metric: String,
    /// The value, in `unit`.
    pub value: f64,
    /// `"B"`, `"ms"`, `"requests"`, …
    pub unit: &'static str,
    /// How it was measured, in a few words (printed once per figure and subject).
    pub note: String,
    /// The most `value` may be; the bench fails when it is over.
    pub budget: Option<f64>,
    /// The lowest and highest of the runs `value` is the median of, when it is one.
    pub spread: Option<[f64; 2]>,
}

impl Row {
    /// A row without a budget.
    pub fn new(
        figure: &'static str,
        subject: Subject,
        metric: impl Into<String>,
        value: f64,
        unit: &'static str,
    ) -> Row {
        Row { figure, subject, metric: metric.into(), value, unit, note: String::new(), budget: None, spread: None }
    }

    /// Adds the note.
    pub fn note(mut self, note: impl Into<String>) -> Row {
        self.note = note.into();
        self
    }

    /// Adds a budget: the value must be at most `max`.
    pub fn budget(mut self, max: f64) -> Row {
        self.budget = Some(max);
        self
    }

    /// Adds the spread: `value` is the median of runs from `min` to `max`.
    pub fn spread(mut self, min: f64, max: f64) -> Row {
        self.spread = Some([min, max]);
        self
    }

    /// Whether the row is within its budget (true when it has none).
    pub fn within_budget(&self) -> bool {
        self.budget.is_none_or(|max| self.value <= max)
    }
}

/// Extra output of a figure beyond its rows (e.g. where the bytes go): printed after the table and
/// stored in the JSON under `details`.
struct Detail {
    figure: &'static str,
    title: String,
    text: String,
    data: serde_json::Value,
}

/// What a figure gets to work with.
pub struct Ctx<'a> {
    /// The repository root.
    pub root: &'a Path,
    /// `<cargo target dir>/bench`, where every output goes.
    pub out: PathBuf,
    tools: OnceCell<BuildTools>,
    details: RefCell<Vec<Detail>>,
}

impl<'a> Ctx<'a> {
    fn new(root: &'a Path, out: PathBuf) -> Ctx<'a> {
        Ctx { root, out, tools: OnceCell::new(), details: RefCell::new(Vec::new()) }
    }

    /// The wasm build tools, ensured (installed if missing) on first use only, so figures that
    /// need no build do not pay for the check.
    pub fn tools(&self) -> Result<&BuildTools> {
        if let Some(tools) = self.tools.get() {
            return Ok(tools);
        }
        let tools = toolchain::ensure_build_tools(self.root)?;
        Ok(self.tools.get_or_init(|| tools))
    }

    /// `<target>/bench/<sub>`, created if missing.
    pub fn dir(&self, sub: &str) -> Result<PathBuf> {
        let dir = self.out.join(sub);
        std::fs::create_dir_all(&dir).context(format!("creating {}", dir.display()))?;
        Ok(dir)
    }

    /// Records a detail section of `figure`: `text` is printed after the table, `data` goes to the JSON.
    pub fn detail(&self, figure: &'static str, title: impl Into<String>, text: String, data: serde_json::Value) {
        self.details.borrow_mut().push(Detail { figure, title: title.into(), text, data });
    }
}

/// Whether `name` is a figure (for argument checking in `main`).
pub fn is_figure(name: &str) -> bool {
    FIGURES.iter().any(|f| f.name == name)
}

/// The figure names, for messages: `size, poll, …`.
pub fn figure_names() -> String {
    FIGURES.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
}

/// Runs the named figures (all when `names` is empty), prints the table, writes bench.json and
/// bench.svg; fails when a figure failed or a budget is over — after writing what was measured.
pub fn run(root: &Path, names: &[String]) -> Result<()> {
    let selected: Vec<&Figure> = if names.is_empty() {
        FIGURES.iter().collect()
    } else {
        FIGURES.iter().filter(|f| names.iter().any(|n| n == f.name)).collect()
    };
    let out = workspace::target_dir(root)?.join("bench");
    std::fs::create_dir_all(&out).context(format!("creating {}", out.display()))?;
    let ctx = Ctx::new(root, out);

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for figure in &selected {
        eprintln!("xtask: bench: {} — {}", figure.name, figure.about);
        match (figure.run)(&ctx) {
            Ok(mut figure_rows) => rows.append(&mut figure_rows),
            Err(err) => {
                eprintln!("xtask: bench: figure `{}` failed: {err}", figure.name);
                failures.push(format!("figure `{}` failed: {err}", figure.name));
            }
        }
    }

    let details = ctx.details.take();
    println!("\n{}", table(&rows));
    for detail in &details {
        println!("{} — {}\n{}", detail.figure, detail.title, detail.text);
    }
    let budgets = budget_report(&rows);
    if !budgets.is_empty() {
        println!("{budgets}");
    }

    let json_path = ctx.out.join("bench.json");
    let json = to_json(&selected, &rows, &details);
    let text = serde_json::to_string_pretty(&json).context("serialising bench.json")?;
    std::fs::write(&json_path, text + "\n").context(format!("writing {}", json_path.display()))?;
    let md_path = ctx.out.join("bench.md");
    std::fs::write(&md_path, markdown(names, &rows)).context(format!("writing {}", md_path.display()))?;
    let svg_path = ctx.out.join("bench.svg");
    std::fs::write(&svg_path, svg::chart(&rows)).context(format!("writing {}", svg_path.display()))?;
    eprintln!("xtask: bench: wrote {}, {} and {}", json_path.display(), md_path.display(), svg_path.display());

    let over: Vec<&Row> = rows.iter().filter(|r| !r.within_budget()).collect();
    if !over.is_empty() {
        failures.push(format!(
            "{} budget(s) over: {}",
            over.len(),
            over.iter().map(|r| format!("{} {}", r.figure, r.metric)).collect::<Vec<_>>().join(", ")
        ));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Error::msg(failures.join("; ")))
    }
}

/// `1234567.0, "B"` → `1,234,567 B`; a fraction keeps about three digits: `3307.8` → `3,308`,
/// `14.83` → `14.8`, `2.018` → `2.02`.
pub fn format_value(value: f64, unit: &str) -> String {
    let whole = value.fract() == 0.0 || value.abs() >= 100.0;
    let number = match value.abs() {
        _ if whole && value.abs() < 1e15 => group_thousands(value.round() as i64),
        size if size >= 10.0 => format!("{value:.1}"),
        _ => format!("{value:.2}"),
    };
    if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    }
}

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// One line per (figure, metric), ours beside official and their ratio; then each distinct note.
/// An aligned text table for a figure's details: two spaces of indent, the first `left` columns
/// left-aligned, the rest right-aligned.
pub fn aligned<R: AsRef<[String]>>(header: &[&str], rows: &[R], left: usize) -> String {
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let lines: Vec<&[String]> = std::iter::once(header.as_slice()).chain(rows.iter().map(AsRef::as_ref)).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| lines.iter().filter_map(|l| l.get(i)).map(|c| c.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for cells in lines {
        let line: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, width))| {
                let fill = " ".repeat(width.saturating_sub(cell.chars().count()));
                if i < left {
                    format!("{cell}{fill}")
                } else {
                    format!("{fill}{cell}")
                }
            })
            .collect();
        out.push_str("  ");
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn table(rows: &[Row]) -> String {
    if rows.is_empty() {
        return "(no figures measured)\n".into();
    }
    let mut lines: Vec<[String; 5]> =
        vec![["figure".into(), "metric".into(), "ours".into(), "official".into(), "ours ÷ official".into()]];
    for [figure, metric, ours, official, ratio, _] in compared(rows) {
        lines.push([figure, metric, ours, official, ratio]);
    }
    let width = |i: usize| lines.iter().map(|l| l[i].chars().count()).max().unwrap_or(0);
    let widths = [width(0), width(1), width(2), width(3), width(4)];
    let mut out = String::new();
    for line in &lines {
        let pad = |i: usize, right: bool| {
            let fill = " ".repeat(widths[i] - line[i].chars().count());
            if right {
                format!("{fill}{}", line[i])
            } else {
                format!("{}{fill}", line[i])
            }
        };
        out.push_str(&format!(
            "{}  {}  {}  {}  {}\n",
            pad(0, false),
            pad(1, false),
            pad(2, true),
            pad(3, true),
            pad(4, true)
        ));
    }
    let mut notes: Vec<(&str, &str, &str)> = Vec::new();
    for row in rows.iter().filter(|r| !r.note.is_empty()) {
        let key = (row.figure, row.subject.as_str(), row.note.as_str());
        if !notes.contains(&key) {
            notes.push(key);
        }
    }
    if !notes.is_empty() {
        out.push_str("\nnotes:\n");
        for (figure, subject, note) in notes {
            out.push_str(&format!("  {figure}, {subject}: {note}\n"));
        }
    }
    out
}

/// The rows as a Markdown table (ours, official, the ratio, the budget), under the command that
/// measured them and its date.
fn markdown(names: &[String], rows: &[Row]) -> String {
    let unix_time =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let command = if names.is_empty() {
        "cargo xtask bench".to_owned()
    } else {
        format!("cargo xtask bench {}", names.join(" "))
    };
    let mut out = format!("`{command}`, finished at Unix time {unix_time}.\n\n");
    out.push_str(
        "| figure | metric | ours | official | ours ÷ official | budget |\n| --- | --- | ---: | ---: | ---: | --- |\n",
    );
    for cells in compared(rows) {
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// Each (figure, metric) in first-seen order, as text: ours, the official requester's, their ratio
/// and our budget (`—` or empty where there is none).
fn compared(rows: &[Row]) -> Vec<[String; 6]> {
    let mut out = Vec::new();
    for (figure, metric) in metrics(rows) {
        let find = |subject| rows.iter().find(|r| r.figure == figure && r.metric == metric && r.subject == subject);
        let (ours, official) = (find(Subject::Ours), find(Subject::Official));
        let cell = |row: Option<&Row>| row.map(with_spread).unwrap_or_else(|| "—".into());
        let ratio = match (ours, official) {
            (Some(o), Some(t)) if t.value != 0.0 => format!("{:.2}×", o.value / t.value),
            _ => "—".into(),
        };
        let budget =
            ours.and_then(|r| r.budget.map(|max| format!("≤ {}", format_value(max, r.unit)))).unwrap_or_default();
        out.push([figure.to_owned(), metric.to_owned(), cell(ours), cell(official), ratio, budget]);
    }
    out
}

/// A row's value, and its runs' range when it is a median: `1.35 ms (1.27–1.60)`.
fn with_spread(row: &Row) -> String {
    let value = format_value(row.value, row.unit);
    match row.spread {
        Some([min, max]) => format!("{value} ({}–{})", format_value(min, ""), format_value(max, "")),
        None => value,
    }
}

/// The distinct (figure, metric) pairs in first-seen order.
fn metrics(rows: &[Row]) -> Vec<(&'static str, &str)> {
    let mut seen: Vec<(&'static str, &str)> = Vec::new();
    for row in rows {
        let key = (row.figure, row.metric.as_str());
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen
}

/// `budgets:` and one PASS / OVER line per row with a budget; empty when none has one.
fn budget_report(rows: &[Row]) -> String {
    let with_budget: Vec<&Row> = rows.iter().filter(|r| r.budget.is_some()).collect();
    if with_budget.is_empty() {
        return String::new();
    }
    let mut out = String::from("budgets:\n");
    for row in with_budget {
        let max = row.budget.unwrap_or(f64::INFINITY);
        let verdict = if row.within_budget() {
            "PASS".to_owned()
        } else {
            format!("OVER by {} ({:.2}× the budget)", format_value(row.value - max, row.unit), row.value / max)
        };
        out.push_str(&format!(
            "  {} {} ({}): {} ≤ {}  {verdict}\n",
            row.figure,
            row.metric,
            row.subject.as_str(),
            format_value(row.value, row.unit),
            format_value(max, row.unit)
        ));
    }
    out
}

/// Everything a later tool (or the README's figures table) needs: the rows, which figures
/// ran, their details, and when.
fn to_json(figures: &[&Figure], rows: &[Row], details: &[Detail]) -> serde_json::Value {
    let unix_time =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "figure": r.figure,
                "subject": r.subject.as_str(),
                "metric": r.metric,
                "value": r.value,
                "unit": r.unit,
                "note": r.note,
                "budget": r.budget,
                "spread": r.spread,
                "within_budget": r.within_budget(),
            })
        })
        .collect();
    let details: Vec<serde_json::Value> =
        details.iter().map(|d| serde_json::json!({ "figure": d.figure, "title": d.title, "data": d.data })).collect();
    serde_json::json!({
        "generated_by": "cargo xtask bench",
        "unix_time": unix_time,
        "figures": figures.iter().map(|f| serde_json::json!({ "name": f.name, "about": f.about })).collect::<Vec<_>>(),
        "rows": rows,
        "details": details,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_table_pads_columns() {
        let text = aligned(&["a", "n"], &[["xyz".to_owned(), "1".to_owned()], ["q".to_owned(), "100".to_owned()]], 1);
        assert_eq!(text, "  a      n\n  xyz    1\n  q    100\n");
    }

    fn row(subject: Subject, metric: &str, value: f64) -> Row {
        Row::new("size", subject, metric, value, "B")
    }

    #[test]
    fn formats_values_with_thousands_separators() {
        assert_eq!(format_value(1_234_567.0, "B"), "1,234,567 B");
        assert_eq!(format_value(999.0, "B"), "999 B");
        assert_eq!(format_value(1.5, "ms"), "1.50 ms");
        assert_eq!(format_value(3307.8, "ms"), "3,308 ms");
        assert_eq!(format_value(14.83, "ms"), "14.8 ms");
        assert_eq!(group_thousands(-1000), "-1,000");
    }

    #[test]
    fn a_median_prints_with_its_runs_range_in_the_table_and_the_json() {
        let rows = [
            Row::new("resume", Subject::Ours, "steady", 1.35, "ms").spread(1.27, 1.6),
            Row::new("resume", Subject::Official, "steady", 1.24, "ms"),
        ];
        let text = table(&rows);
        assert!(
            text.lines().nth(1).is_some_and(|l| l.contains("1.35 ms (1.27–1.60)") && l.contains("1.24 ms  ")),
            "{text}"
        );
        let json = to_json(&[], &rows, &[]);
        assert_eq!(json["rows"][0]["spread"], serde_json::json!([1.27, 1.6]), "{json}");
        assert_eq!(json["rows"][1]["spread"], serde_json::Value::Null, "{json}");
    }

    #[test]
    fn table_pairs_subjects_and_prints_ratio() {
        let rows =
            [row(Subject::Ours, "gzip", 200.0), row(Subject::Official, "gzip", 100.0), row(Subject::Ours, "raw", 5.0)];
        let text = table(&rows);
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].contains("200 B") && lines[1].contains("100 B") && lines[1].ends_with("2.00×"), "{text}");
        assert!(lines[2].ends_with("—"), "{text}");
    }

    #[test]
    fn budgets_pass_and_fail() {
        let pass = row(Subject::Ours, "gzip", 10.0).budget(10.0);
        let over = row(Subject::Ours, "gzip", 11.0).budget(10.0);
        assert!(pass.within_budget() && !over.within_budget());
        let report = budget_report(&[pass, over]);
        assert!(report.contains("PASS") && report.contains("OVER by 1 B"), "{report}");
        assert!(budget_report(&[row(Subject::Ours, "gzip", 1.0)]).is_empty());
    }

    #[test]
    fn every_figure_name_is_known() {
        assert!(is_figure("size"));
        assert!(is_figure("scale"));
        assert!(!is_figure("sizes"));
    }
}
