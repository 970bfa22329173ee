//! The decode figure: the browser half of core speed. In headless Chromium, what a host pays
//! per `tasks/get` response body, from the body as a JS string to the decoded task as a JS object, for
//! the three bodies `benches/core.rs` decodes natively (working; input_required with the ten-field form;
//! completed with a ~10 KB result):
//!
//! - ours: `benchDecodeTasksGetBytes` of a build with the `bench` feature (`src/bindings/bench.rs`; the
//!   shipped pkg/ is built without it): the package's path since the JS driver replaced the Rust one.
//!   The body goes in as bytes, as the driver hands a fetch body to the door, and is decoded as the
//!   door does (JSON parse, envelope, `tasks/get` result with its taskId check); the task comes out as
//!   JSON text that JS parses, as the door's effects cross;
//! - official: what `@modelcontextprotocol/ext-tasks` 0.2.2 does with the same body under 2026-07-28:
//!   `JSON.parse` (the host's `response.json()`), then its `responseResult` + `parseResult` with
//!   `GetTaskResultV2Schema` (zod 4 `safeParse`) and the taskId check
//!   (`xtask/bench-fixtures/decode/official-entry.mjs`, bundled with esbuild as the size figure does).
//!
//! The page (`xtask/bench-fixtures/decode/`) warms each subject up, then times batches of 20–40 ms
//! (a count fixed by doubling) and reports µs per decode, median of 21 batches (`BENCH_DECODE_BATCHES`, `BENCH_DECODE_BATCH_MS`), the subjects' batches
//! interleaved in one page, so the ratio is of one run. Beside the rows, the details show, measured in
//! the same page, the official side from the body's bytes, our decode with only the status string handed
//! back, and `JSON.parse` alone. Ours ÷ official is printed
//! per body, without a budget: micro-seconds a host never feels beside the rest of an answer, whose
//! whole cost is the resume figure's hard check (main thread per answered poll). The bodies come from
//! `benches/core.rs` itself (`CORE_BENCH_WRITE_DECODE_INPUTS`), so both halves decode the same bytes.
//! About a minute after the builds; no server: the runner serves the files on 127.0.0.1.

use std::path::Path;

use super::{runner, Ctx, Row, Subject};
use crate::cmd;
use crate::error::{Error, Result};
use crate::wasm_build;

const FIGURE: &str = "decode";
const FIXTURES: &str = "xtask/bench-fixtures/decode";
/// Copied as they are into the served directory, next to the bundled `official.js` and `inputs.json`.
const PAGES: &[&str] = &["decode.html", "decode.js"];
const DEFAULT_BATCHES: u64 = 21;
const DEFAULT_BATCH_MS: u64 = 20;
/// The page's subjects: the two the rows compare, then the ones the details add.
const SUBJECTS: [(&str, &str); 5] = [
    ("ours", "ours (the package's path: bytes into the door)"),
    ("official", "official"),
    ("officialBytes", "official, bytes in"),
    ("oursDecodeOnly", "ours (the package's path), status string out"),
    ("jsonParse", "JSON.parse alone"),
];

/// Writes the inputs, builds our bench variant, bundles the official side, runs the page.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    let batches = runner::env_number("BENCH_DECODE_BATCHES")?.unwrap_or(DEFAULT_BATCHES).max(1);
    let batch_ms = runner::env_number("BENCH_DECODE_BATCH_MS")?.unwrap_or(DEFAULT_BATCH_MS).max(1);

    let www = ctx.dir("decode/www")?;
    write_inputs(ctx.root, &www.join("inputs.json"))?;
    let ours = wasm_build::build_variant(ctx.root, ctx.tools()?, &["bench"], &ctx.out.join("decode").join("ours"))?;
    let esbuild_version = runner::stage_pages(ctx.root, FIXTURES, PAGES, &www)?;

    let script = format!("{FIXTURES}/runner.mjs");
    let (www_arg, ours_arg) = (www.display().to_string(), ours.dir.display().to_string());
    let (batches_arg, batch_ms_arg) = (batches.to_string(), batch_ms.to_string());
    let args = ["--www", &www_arg, "--ours", &ours_arg, "--batches", &batches_arg, "--batch-ms", &batch_ms_arg];
    let json = runner::node_json(ctx.root, None, &script, &args)?;

    let cases = summarise(&json)?;
    let chromium = json["chromium"].as_str().unwrap_or("?");
    let setting = format!(
        "µs per decode in headless Chromium {chromium}, median of {batches} interleaved batches of ≥ {batch_ms} ms, same page"
    );
    let ours_note = format!(
        "benchDecodeTasksGetBytes (feature `bench`, release + the package's wasm-opt passes): the body's bytes into wasm, as the JS \
         driver hands them to the door, decoded as the door does (JSON parse, envelope, tasks/get result, taskId check) → task \
         as JSON text that JS parses, as the door's effects cross; {setting}"
    );
    let official_note = format!(
        "JSON.parse + ext-tasks 0.2.2 responseResult/parseResult(GetTaskResultV2Schema) (zod safeParse) + taskId check \
         ({FIXTURES}/official-entry.mjs, esbuild {esbuild_version} bundle; no CSP, so zod may compile its validators); {setting}"
    );
    let mut rows = Vec::new();
    for case in &cases {
        for (subject, key, note) in
            [(Subject::Ours, "ours", &ours_note), (Subject::Official, "official", &official_note)]
        {
            let [_, min, max] = case.spread(key).unwrap_or_default();
            let row = Row::new(FIGURE, subject, metric(case), case.median(key)?, "µs");
            rows.push(row.spread(runner::round(min, 3), runner::round(max, 3)).note(note.clone()));
        }
    }
    for case in &cases {
        rows.push(ratio_row(case)?);
    }
    let text = details_text(&cases, batches);
    ctx.detail(FIGURE, format!("µs per tasks/get body, median (min–max) of {batches} batches"), text, json);
    Ok(rows)
}

/// Has `benches/core.rs` write its three `tasks/get` bodies to `path` (it measures nothing then).
fn write_inputs(root: &Path, path: &Path) -> Result<()> {
    let mut bench = cmd::cargo();
    bench
        .args(["bench", "-p", "mcp-tasks-web", "--bench", "core"])
        .env("CORE_BENCH_WRITE_DECODE_INPUTS", path)
        .current_dir(root);
    cmd::run(&mut bench)?;
    if path.is_file() {
        Ok(())
    } else {
        Err(Error::msg(format!("benches/core.rs did not write {}", path.display())))
    }
}

/// `working (224 B): response body → task in JS`.
fn metric(case: &Case) -> String {
    format!("{} ({} B): response body → task in JS", case.name, super::group_thousands(case.bytes as i64))
}

/// Ours ÷ official on one body (printed, not a budget).
fn ratio_row(case: &Case) -> Result<Row> {
    let (ours, official) = (case.median("ours")?, case.median("official")?);
    if official <= 0.0 {
        return Err(Error::msg(format!("decode runner: official took no time on {}", case.name)));
    }
    let metric = format!("{}: ours ÷ official", case.name);
    Ok(Row::new(FIGURE, Subject::Ours, metric, runner::round(ours / official, 3), "×")
        .note("median ÷ median of the same page run"))
}

/// One body: its name in benches/core.rs, its size, and each subject's (median, min, max) µs.
struct Case {
    name: String,
    bytes: u64,
    subjects: Vec<(String, [f64; 3])>,
}

impl Case {
    fn spread(&self, subject: &str) -> Option<[f64; 3]> {
        self.subjects.iter().find(|(s, _)| s == subject).map(|(_, v)| *v)
    }

    fn median(&self, subject: &str) -> Result<f64> {
        self.spread(subject)
            .map(|v| runner::round(v[0], 3))
            .ok_or_else(|| Error::msg(format!("decode runner: no `{subject}` for {}", self.name)))
    }
}

/// The runner's `results`.
fn summarise(json: &serde_json::Value) -> Result<Vec<Case>> {
    let results = json["results"].as_array().ok_or_else(|| Error::msg("decode runner: no `results` in its JSON"))?;
    results
        .iter()
        .map(|r| {
            let name = r["name"].as_str().ok_or_else(|| Error::msg("decode runner: a result has no `name`"))?;
            let subjects = r["subjects"]
                .as_object()
                .ok_or_else(|| Error::msg(format!("decode runner: no `subjects` for {name}")))?
                .iter()
                .filter_map(|(s, v)| {
                    let n = |k: &str| v[k].as_f64();
                    Some((s.clone(), [n("median")?, n("min")?, n("max")?]))
                })
                .collect();
            Ok(Case { name: name.to_owned(), bytes: r["bytes"].as_u64().unwrap_or(0), subjects })
        })
        .collect()
}

/// One line per body: each subject's median (min–max), and ours ÷ official.
fn details_text(cases: &[Case], batches: u64) -> String {
    let mut header = vec!["body", "bytes"];
    header.extend(SUBJECTS.iter().map(|(_, label)| *label));
    header.extend(["ours ÷ official", "ours ÷ official, both bytes in"]);
    let rows: Vec<Vec<String>> = cases
        .iter()
        .map(|case| {
            let mut line = vec![case.name.clone(), super::group_thousands(case.bytes as i64)];
            for (key, _) in SUBJECTS {
                line.push(case.spread(key).map_or("—".into(), |[m, lo, hi]| format!("{m:.2} ({lo:.2}–{hi:.2})")));
            }
            for reference in ["official", "officialBytes"] {
                line.push(match (case.spread("ours"), case.spread(reference)) {
                    (Some(o), Some(t)) if t[0] > 0.0 => format!("{:.2}×", o[0] / t[0]),
                    _ => "—".into(),
                });
            }
            line
        })
        .collect();
    let mut out = super::aligned(&header, &rows, 1);
    out.push_str(&format!(
        "  µs per decode, median (min–max) of {batches} batches. \"official, bytes in\": the official decode from the body's \
         bytes through TextDecoder, the step its transport's response.json() takes and \"official\" (the ratio's \
         reference, from a JS string) is not charged; ours always starts from the bytes, as the transport \
         reads them. \"status string out\": our wasm decode handing back only the \
         status (the rest of \"ours\" is the task's way out to a JS object). \"JSON.parse alone\": the floor for handing JS an \
         object, nothing checked.\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner_json() -> serde_json::Value {
        let s = |m: f64| serde_json::json!({ "median": m, "min": m - 0.5, "max": m + 1.0, "perOpUs": [m] });
        serde_json::json!({
            "chromium": "1.0",
            "results": [
                { "name": "working", "bytes": 1234, "subjects": {
                    "ours": s(2.0), "official": s(4.0), "officialBytes": s(5.0), "oursDecodeOnly": s(1.0), "jsonParse": s(0.5) } },
            ]
        })
    }

    #[test]
    fn reads_the_runner_and_prints_every_subject() {
        let cases = summarise(&runner_json()).expect("valid runner JSON");
        assert_eq!(cases.len(), 1);
        assert_eq!(metric(&cases[0]), "working (1,234 B): response body → task in JS");
        assert_eq!(cases[0].median("official").expect("official"), 4.0);
        assert!(cases[0].median("nobody").is_err());
        let text = details_text(&cases, 21);
        let line = text.lines().nth(1).expect("one line per body");
        assert!(line.contains("2.00 (1.50–3.00)") && line.contains("0.50 (0.00–1.50)"), "{text}");
        let ratios: Vec<&str> = line.split_whitespace().rev().take(2).collect();
        assert_eq!(ratios, ["0.40×", "0.50×"], "ours ÷ official, then ÷ official from bytes: {text}");
    }

    #[test]
    fn the_ratio_row_holds_ours_to_the_official_time() {
        let mut cases = summarise(&runner_json()).expect("valid runner JSON");
        let row = ratio_row(&cases[0]).expect("both subjects");
        assert_eq!((row.metric.as_str(), row.value, row.unit), ("working: ours ÷ official", 0.5, "×"));
        assert_eq!(row.budget, None, "printed, not checked");
        let slow = Case { subjects: vec![("ours".into(), [4.4; 3]), ("official".into(), [4.0; 3])], ..cases.remove(0) };
        assert_eq!(ratio_row(&slow).expect("both subjects").value, 1.1);
        let missing = Case { name: "x".into(), bytes: 1, subjects: vec![("ours".into(), [1.0; 3])] };
        assert!(ratio_row(&missing).is_err());
    }

    #[test]
    fn rejects_a_runner_without_results() {
        assert!(summarise(&serde_json::json!({ "error": "x" })).is_err());
    }
}
