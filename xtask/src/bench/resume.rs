//! The resume figure: how long a reloaded page takes to be live again — in headless Chromium, the time
//! from opening the client to the first `tasks/get` of a restored handle, and until every handle had
//! its first, with 1, 100, 1,000 and 10,000 stored handles (`BENCH_RESUME_COUNTS`, e.g. `1,100`), median
//! of 5 runs (`BENCH_RESUME_RUNS`), the two subjects' runs alternating so a drifting load on a shared
//! machine weighs on both alike. One hard check: at 1,000 handles ours reaches its first `tasks/get`
//! no later than the official requester in the same run (the row `… ours ÷ official`, budget 1.0).
//!
//! - ours: `TaskClient.open()` on a namespace whose IndexedDB holds N live `long_job` handles, to the
//!   first `tasks/get` the page sends. `server/discover` and `subscriptions/listen` are answered -32601
//!   in the page, as a server without them would, so the client resumes by polling (its polls do not
//!   wait for discover either way);
//! - official: `@modelcontextprotocol/ext-tasks` 0.2.2 with `@modelcontextprotocol/client` 2.4.0 and the
//!   size figure's host code (`xtask/bench-fixtures/official-requester.mjs`), which keeps task
//!   references in localStorage: `connect()` (the client's open: it probes the server with
//!   `server/discover` and `tools/list`) then `resumeAll()` of N stored references, to the first
//!   `tasks/get`. Bundled for the browser with esbuild, as the size figure does.
//!
//! Loading the code (wasm fetch + instantiate, the bundle's evaluation) happens before t0 for both: the
//! figure is the client's own resume work. Times are `performance.now()` in the page, taken when the
//! page calls `fetch` (a wrapper installed before either client exists), so Playwright is on neither
//! path. The pages and the driver are in `xtask/bench-fixtures/resume/`; `runner.mjs` prints one JSON
//! object on its last stdout line and its progress on stderr. The server is built here
//! (`cargo build -p mcp-tasks-server`); pkg/ is used as it is (`cargo xtask build`, or the size figure
//! when it runs first). About 6 minutes with the defaults: each run waits one poll interval (2 s) first,
//! so every stored handle is due again when the next page opens, and storing 1,000 handles takes the
//! official host 15–40 s (its `run()` follows, so polls, every task it has started meanwhile; ours
//! stores them in step mode, which does not poll). 10,000 handles are seeded instead (one call, its
//! stored handle copied for tasks the server's light-mode `idle_seed` creates like it), and a run
//! waits up to 60 s for every handle's first poll; the official requester runs once at 10,000 (see runner.mjs).
//!
//! Then what a host pays per answer: at 100 handles (`STEADY_COUNT`, seeded as idle tasks like the
//! 10,000, so that no poll is a change to store or announce), once every handle was polled,
//! each measure page stays for a steady window of 10 s (`BENCH_STEADY_MS`) in which the runner reads
//! the renderer's main-thread time (CDP `Performance.getMetrics`, TaskDuration in thread ticks, so
//! time the thread was descheduled on a busy machine does not count) and the `tasks/get` answers the
//! page had. The second hard check: main thread per answered idle poll, ours ÷ official (medians of
//! the same interleaved runs), at most 1.0.

use super::runner::Spread;
use super::{group_thousands, runner, Ctx, Row, Subject};
use crate::error::{Error, Result};

const FIGURE: &str = "resume";
const FIXTURES: &str = "xtask/bench-fixtures/resume";
/// Copied as they are into the served directory, next to the bundled `official.js`.
const PAGES: &[&str] = &["ours.html", "ours.js", "probe.js", "official.html"];
const DEFAULT_COUNTS: &[u64] = &[1, 100, 1000, 10000];
/// The count of the hard check: ours no slower than the official requester to the first `tasks/get`.
const CHECKED_COUNT: u64 = 1000;
const DEFAULT_RUNS: u64 = 5;
/// The server's `pollIntervalMs`; the runner waits this long (plus 200 ms) before each run.
const POLL_MS: u64 = 2000;
/// The count whose measure pages also have the steady window (main thread per answered poll).
const STEADY_COUNT: u64 = 100;
const DEFAULT_STEADY_MS: u64 = 10_000;

/// Builds the server, bundles the official page, runs the driver, and turns its JSON into rows.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    runner::require_pkg(ctx.root, &["mcp_tasks_web.js", "mcp_tasks_web_bg.wasm"])?;
    let runs = runner::env_number("BENCH_RESUME_RUNS")?.unwrap_or(DEFAULT_RUNS).max(1);
    let counts = runner::env_counts("BENCH_RESUME_COUNTS", DEFAULT_COUNTS)?;
    let steady_ms = runner::env_number("BENCH_STEADY_MS")?.unwrap_or(DEFAULT_STEADY_MS);

    let server = runner::reference_server(ctx.root)?;

    let www = ctx.dir("resume/www")?;
    let esbuild_version = runner::stage_pages(ctx.root, FIXTURES, PAGES, &www)?;

    let counts_arg = counts.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let script = format!("{FIXTURES}/runner.mjs");
    let www_arg = www.display().to_string();
    let pkg_arg = ctx.root.join("pkg").display().to_string();
    let (runs_arg, poll_arg) = (runs.to_string(), POLL_MS.to_string());
    let (steady_arg, steady_n_arg) = (steady_ms.to_string(), STEADY_COUNT.to_string());
    let args = [
        "--www",
        &www_arg,
        "--pkg",
        &pkg_arg,
        "--counts",
        &counts_arg,
        "--runs",
        &runs_arg,
        "--poll-ms",
        &poll_arg,
        "--steady-ms",
        &steady_arg,
        "--steady-n",
        &steady_n_arg,
    ];
    let json = runner::node_json(ctx.root, Some(&server), &script, &args)?;

    let (results, crashed) = summarise(&json)?;
    let chromium = json["chromium"].as_str().unwrap_or("?");
    let ours_note = format!(
        "TaskClient.open() on N live handles in IndexedDB → the page's first tasks/get fetch (performance.now() in the page); \
         server/discover and subscriptions/listen answered -32601 in the page so it polls; wasm load + init before t0; \
         median of {runs} runs, headless Chromium {chromium}, reference server pollIntervalMs {POLL_MS}"
    );
    let official_note = format!(
        "connect() (probes server/discover, tools/list) + resumeAll() of N references in localStorage \
         ({FIXTURES}/official-entry.mjs with the host code of official-requester.mjs, esbuild {esbuild_version} bundle) \
         → the first tasks/get fetch; bundle evaluated before t0; median of {runs} runs, same browser and server"
    );
    let mut rows = Vec::new();
    for &n in &counts {
        for (subject, note) in [(Subject::Ours, &ours_note), (Subject::Official, &official_note)] {
            if let Some(r) = results.iter().find(|r| r.n == n && r.subject == subject) {
                let (median, min, max) = (r.first_get.median, r.first_get.min, r.first_get.max);
                rows.push(Row::new(FIGURE, subject, metric(n), median, "ms").spread(min, max).note(note.clone()));
            }
        }
        for subject in [Subject::Ours, Subject::Official] {
            let all = results.iter().find(|r| r.n == n && r.subject == subject).and_then(|r| r.all_polled);
            if let (Some(all), true) = (all, n > 1) {
                rows.push(Row::new(FIGURE, subject, every_metric(n), all.median, "ms").spread(all.min, all.max));
            }
        }
    }
    rows.extend(checked_ratio(&results));
    for subject in [Subject::Ours, Subject::Official] {
        if let Some(steady) =
            results.iter().find(|r| r.n == STEADY_COUNT && r.subject == subject).and_then(|r| r.steady)
        {
            let note = format!(
                "renderer main thread (CDP TaskDuration, thread ticks) ÷ tasks/get answers over {steady_ms} ms once every \
                 handle was polled; median (min–max) of {runs} interleaved runs"
            );
            let row = Row::new(FIGURE, subject, steady_metric(), steady.median, "ms");
            rows.push(row.spread(steady.min, steady.max).note(note));
        }
    }
    rows.extend(steady_ratio(&results));
    let mut text = details_text(&results, runs);
    text.extend(crashed);
    ctx.detail(FIGURE, format!("open → tasks/get in ms, median (min–max) of {runs} runs"), text, json);
    Ok(rows)
}

/// `1 handle: open → first tasks/get`, `1,000 handles: …`.
fn metric(n: u64) -> String {
    let handles = if n == 1 { "handle" } else { "handles" };
    format!("{} {handles}: open → first tasks/get", group_thousands(n as i64))
}

/// `1,000 handles: open → every handle polled`.
fn every_metric(n: u64) -> String {
    format!("{} handles: open → every handle polled", group_thousands(n as i64))
}

/// `100 handles: main thread per answered idle poll`.
fn steady_metric() -> String {
    format!("{} handles: main thread per answered idle poll", group_thousands(STEADY_COUNT as i64))
}

/// The second hard check: at [`STEADY_COUNT`] handles, ours ÷ official main thread per answered poll
/// (medians of the same runs), at most 1.0. None when either subject has no steady window.
fn steady_ratio(results: &[Measured]) -> Option<Row> {
    let steady = |subject| results.iter().find(|r| r.n == STEADY_COUNT && r.subject == subject)?.steady;
    let (ours, official) = (steady(Subject::Ours)?, steady(Subject::Official)?);
    if official.median <= 0.0 {
        return None;
    }
    let metric = format!("{} ours ÷ official", steady_metric());
    let note = "medians of the same interleaved runs; the bench fails above 1.0 (ours costs a host more per answer)";
    Some(
        Row::new(FIGURE, Subject::Ours, metric, runner::round(ours.median / official.median, 3), "×")
            .note(note)
            .budget(1.0),
    )
}

/// The hard check: at [`CHECKED_COUNT`] handles, ours ÷ official to the first `tasks/get` (medians of
/// the same run), at most 1.0. None when either subject was not measured at that count.
fn checked_ratio(results: &[Measured]) -> Option<Row> {
    let median = |subject| results.iter().find(|r| r.n == CHECKED_COUNT && r.subject == subject);
    let (ours, official) = (median(Subject::Ours)?, median(Subject::Official)?);
    let ratio = runner::round(ours.first_get.median / official.first_get.median, 2);
    let metric = format!("{} handles: first tasks/get, ours ÷ official", group_thousands(CHECKED_COUNT as i64));
    let note = "medians of the same run; the bench fails above 1.0 (ours slower than the official requester)";
    Some(Row::new(FIGURE, Subject::Ours, metric, ratio, "×").note(note).budget(1.0))
}

/// One subject at one count.
struct Measured {
    subject: Subject,
    n: u64,
    setup_ms: f64,
    first_get: Spread,
    /// Until every stored handle had its first tasks/get (None if a run did not see them all).
    all_polled: Option<Spread>,
    /// Until open() / connect() resolved.
    open: Option<Spread>,
    /// Main-thread ms per answered `tasks/get` in the steady window (unrounded spread), if it had one.
    steady: Option<Spread>,
}

/// The runner's `results` as spreads over the runs that did not crash, and a line for each subject and
/// count whose every page crashed (left out of the rows).
fn summarise(json: &serde_json::Value) -> Result<(Vec<Measured>, Vec<String>)> {
    let results = json["results"].as_array().ok_or_else(|| Error::msg("resume runner: no `results` in its JSON"))?;
    let (mut measured, mut crashed) = (Vec::new(), Vec::new());
    for r in results {
        let (subject, n) = runner::subject_and_n(r, "resume")?;
        let all_runs = r["runs"].as_array().map(Vec::as_slice).unwrap_or_default();
        let runs: Vec<&serde_json::Value> = all_runs.iter().filter(|run| run["crashed"] != true).collect();
        let values = |key: &str| runs.iter().filter_map(|run| run[key].as_f64()).collect::<Vec<_>>();
        let Some(first_get) = Spread::of(&values("firstGetMs"), 2) else {
            if all_runs.is_empty() || !runs.is_empty() {
                return Err(Error::msg(format!("resume runner: no runs for {} n={n}", subject.as_str())));
            }
            crashed.push(format!(
                "  {} at {} handles: the page crashed in each of its {} run(s); not measured\n",
                subject.as_str(),
                group_thousands(n as i64),
                all_runs.len()
            ));
            continue;
        };
        let all = values("allGetMs");
        measured.push(Measured {
            subject,
            n,
            setup_ms: r["setupMs"].as_f64().unwrap_or(f64::NAN),
            first_get,
            all_polled: if all.len() == runs.len() { Spread::of(&all, 2) } else { None },
            open: Spread::of(&values("openMs"), 2),
            steady: Spread::of(&values("steadyPerAnswerMs"), 3),
        });
    }
    Ok((measured, crashed))
}

/// One line per count and subject: first tasks/get, every handle polled, open resolved, setup.
fn details_text(results: &[Measured], runs: u64) -> String {
    let header =
        ["handles", "subject", "→ first tasks/get", "→ every handle polled", "→ open()/connect() resolved", "setup"];
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            vec![
                group_thousands(r.n as i64),
                r.subject.as_str().to_owned(),
                r.first_get.text(),
                r.all_polled.map(Spread::text).unwrap_or_else(|| "—".into()),
                r.open.map(Spread::text).unwrap_or_else(|| "—".into()),
                format!("{:.1} s", r.setup_ms / 1000.0),
            ]
        })
        .collect();
    let mut out = super::aligned(&header, &rows, 2);
    out.push_str(&format!(
        "  ms from just before open() (ours) / connect() (official) in the page; median (min–max) of {runs} runs. \
         \"every handle polled\": until the last stored handle had its first tasks/get. \
         \"setup\": storing the N handles in a first page (N long_job calls; above 1,000, one call and copies of its handle for tasks idle_seed made).\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(subject: Subject, n: u64, first_get: f64) -> Measured {
        let spread = Spread { median: first_get, min: first_get, max: first_get };
        Measured { subject, n, setup_ms: 0.0, first_get: spread, all_polled: None, open: None, steady: None }
    }

    #[test]
    fn the_check_is_ours_over_theirs_at_1000_within_1() {
        let faster = [measured(Subject::Ours, 1000, 30.0), measured(Subject::Official, 1000, 40.0)];
        let row = checked_ratio(&faster).expect("both measured");
        assert_eq!((row.value, row.budget), (0.75, Some(1.0)));
        assert!(row.within_budget());
        let slower = [measured(Subject::Ours, 1000, 50.0), measured(Subject::Official, 1000, 40.0)];
        assert!(!checked_ratio(&slower).expect("both measured").within_budget());
        assert!(checked_ratio(&[measured(Subject::Ours, 1000, 30.0)]).is_none(), "no official run, no check");
    }

    #[test]
    fn a_subject_whose_pages_all_crashed_is_named_and_left_out_and_a_crashed_run_is_not_a_value() {
        let json = serde_json::json!({ "results": [
            { "subject": "ours", "n": 10000, "setupMs": 1.0,
              "runs": [{ "firstGetMs": 80.0, "allGetMs": 1.0, "openMs": 2.0 }, { "crashed": true }, { "firstGetMs": 20.0, "allGetMs": 1.0, "openMs": 2.0 }] },
            { "subject": "official", "n": 10000, "setupMs": 1.0, "runs": [{ "crashed": true }] },
        ]});
        let (measured, crashed) = summarise(&json).expect("a crash is a result");
        assert_eq!(measured.len(), 1);
        assert_eq!((measured[0].subject, measured[0].first_get.median), (Subject::Ours, 50.0));
        assert_eq!(crashed, ["  official at 10,000 handles: the page crashed in each of its 1 run(s); not measured\n"]);
        let none = serde_json::json!({ "results": [{ "subject": "ours", "n": 1, "runs": [] }] });
        assert!(summarise(&none).is_err(), "no runs at all is still an error");
    }

    #[test]
    fn the_per_answer_check_is_ours_over_theirs_at_100_within_1() {
        let with = |subject, per_answer: f64| {
            let mut m = measured(subject, STEADY_COUNT, 1.0);
            m.steady = Some(Spread { median: per_answer, min: per_answer, max: per_answer });
            m
        };
        let cheaper = [with(Subject::Ours, 0.3), with(Subject::Official, 0.4)];
        let row = steady_ratio(&cheaper).expect("both measured");
        assert_eq!((row.value, row.budget), (0.75, Some(1.0)));
        assert!(
            steady_ratio(&[with(Subject::Ours, 0.5), with(Subject::Official, 0.4)]).is_some_and(|r| !r.within_budget())
        );
        assert!(steady_ratio(&[with(Subject::Ours, 0.5), measured(Subject::Official, STEADY_COUNT, 1.0)]).is_none());
        let json = serde_json::json!({ "results": [{ "subject": "ours", "n": 100, "setupMs": 1.0,
            "runs": [{ "firstGetMs": 1.0, "steadyPerAnswerMs": 0.25 }, { "firstGetMs": 1.0, "steadyPerAnswerMs": 0.3125 }] }] });
        let (measured, _) = summarise(&json).expect("runs");
        assert_eq!(measured[0].steady.map(|s| s.median), Some(0.281));
    }

    #[test]
    fn metric_names_and_counts() {
        assert_eq!(metric(1), "1 handle: open → first tasks/get");
        assert_eq!(metric(1000), "1,000 handles: open → first tasks/get");
    }
}
