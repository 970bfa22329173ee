//! The scale figure: one client carrying 100, 1,000 and 10,000 live tasks (`BENCH_SCALE_COUNTS`, e.g. `1000`)
//! in headless Chromium against the reference server in light mode (`--light`: an `idle_job` task costs
//! the server a stored row; `idle_seed` creates N of them in one call; `idle_set` completes them all).
//!
//! Per subject and N, `xtask/bench-fixtures/scale/runner.mjs` starts a fresh server (pollIntervalMs
//! N × 30 ms, at least 5 s, so that ours keeps up at 10,000) and browser profile, and stores N live
//! handles the server knows: the client starts one `idle_job` task, the server seeds N − 1 more with its
//! timestamps, and the page stores one copy of the first stored handle per seeded id (ours: IndexedDB
//! records marked as polled once; official: serialized references in localStorage). Then (details in the
//! runner and the pages beside it):
//!
//! - **reload** (both): a fresh page opens N handles that are all due — ours `open()`, the official
//!   requester `resumeTask()` 100 at a time — until every task was answered (or 90 s): the time, the
//!   `tasks/get` that failed, main-thread busy time per answered `tasks/get`, and memory per task (JS
//!   heap after GC, plus ours' wasm linear memory, over the page before open, ÷ N);
//! - ours only (the official requester has no equivalent; each row's note says why): wasm memory per
//!   task after `open()`; one scheduling pass with nothing due; `step()` with nothing due; IndexedDB
//!   writes per status change and per unchanged poll (handles whose polls are spread over an interval,
//!   30 s windows); main thread per answered idle poll (the same window's main-thread CPU time less the
//!   page's own, measured idling with nothing due right after open()); 100 `<mcp-task>` cards inserted →
//!   drawn.
//!
//! The one hard check: main thread per answered idle poll at 10,000 tasks at most
//! [`IDLE_POLL_GROWTH_MAX`] × the figure at 100 (a row with a budget; the bench fails when it is over), so
//! that an answered poll's cost does not grow with the number of tasks.
//!
//! The server is built here (`cargo build -p mcp-tasks-server`); pkg/ is used as it is (`cargo xtask
//! build`). About 8 minutes with the defaults on two shared cores, most of it at 10,000 tasks.

use super::runner::median;
use super::{group_thousands, runner, Ctx, Row, Subject};
use crate::error::{Error, Result};

const FIGURE: &str = "scale";
const FIXTURES: &str = "xtask/bench-fixtures/scale";
/// Copied as they are into the served directory, next to the bundled `official.js`.
const PAGES: &[&str] = &["ours.html", "ours.js", "probe.js", "official.html"];
const DEFAULT_COUNTS: &[u64] = &[100, 1000, 10_000];
/// How much more main thread an answered idle poll may cost at 10,000 tasks than at 100.
const IDLE_POLL_GROWTH_MAX: f64 = 1.5;
/// The runner's defaults, repeated for the notes.
const POLL_MS_PER_TASK: u64 = 30;
const MIN_POLL_MS: u64 = 5000;
const WINDOW_MS: u64 = 30_000;
const PASSES: u64 = 30;
const STEPS: u64 = 10;
const CARD_RUNS: u64 = 7;
const RELOAD_MS: u64 = 90_000;
const QUIET_MS: u64 = 3_000;

/// Builds the server, bundles the official page, runs the driver, and turns its JSON into rows.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    runner::require_pkg(ctx.root, &["mcp_tasks_web.js", "mcp_tasks_web_bg.wasm", "element.js"])?;
    let counts = runner::env_counts("BENCH_SCALE_COUNTS", DEFAULT_COUNTS)?;
    let server = runner::reference_server(ctx.root)?;

    let www = ctx.dir("scale/www")?;
    let esbuild_version = runner::stage_pages(ctx.root, FIXTURES, PAGES, &www)?;

    let counts_arg = counts.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let script = format!("{FIXTURES}/runner.mjs");
    let www_arg = www.display().to_string();
    let pkg_arg = ctx.root.join("pkg").display().to_string();
    let numbers = [
        POLL_MS_PER_TASK.to_string(),
        MIN_POLL_MS.to_string(),
        WINDOW_MS.to_string(),
        RELOAD_MS.to_string(),
        PASSES.to_string(),
        STEPS.to_string(),
        CARD_RUNS.to_string(),
        QUIET_MS.to_string(),
    ];
    let args = [
        "--www",
        &www_arg,
        "--pkg",
        &pkg_arg,
        "--counts",
        &counts_arg,
        "--poll-ms-per-task",
        &numbers[0],
        "--min-poll-ms",
        &numbers[1],
        "--window-ms",
        &numbers[2],
        "--reload-ms",
        &numbers[3],
        "--passes",
        &numbers[4],
        "--steps",
        &numbers[5],
        "--card-runs",
        &numbers[6],
        "--quiet-ms",
        &numbers[7],
    ];
    let json = runner::node_json(ctx.root, Some(&server), &script, &args)?;
    let results = results(&json)?;
    let chromium = json["chromium"].as_str().unwrap_or("?");
    let rows = rows(&results, chromium, &esbuild_version);
    ctx.detail(FIGURE, "per subject and N", details_text(&results), json);
    Ok(rows)
}

/// One subject at one N, as the runner reported it.
struct Measured {
    subject: Subject,
    n: u64,
    json: serde_json::Value,
}

impl Measured {
    /// A number at `pointer` (e.g. `/steady/answered`), NaN when absent.
    fn num(&self, pointer: &str) -> f64 {
        self.json.pointer(pointer).and_then(serde_json::Value::as_f64).unwrap_or(f64::NAN)
    }

    fn n_f(&self) -> f64 {
        self.n as f64
    }

    /// Bytes per task the reload page holds over its baseline: JS heap, plus wasm for ours.
    fn reload_memory_per_task(&self) -> f64 {
        let heap = self.num("/reload/after/heap") - self.num("/reload/before/heap");
        let wasm = match self.subject {
            Subject::Ours => self.num("/reload/after/wasm") - self.num("/reload/before/wasm"),
            Subject::Official => 0.0,
        };
        ((heap + wasm) / self.n_f()).round()
    }

    /// Reload: open → every task answered (NaN when the window ended first).
    fn reload_ms(&self) -> f64 {
        match self.json.pointer("/reload/complete").and_then(serde_json::Value::as_bool) {
            Some(true) => self.num("/reload/ms").round(),
            _ => f64::NAN,
        }
    }

    /// Reload: main-thread busy µs per answered tasks/get.
    fn reload_busy_us_per_get(&self) -> f64 {
        (self.num("/reload/busyMs") * 1000.0 / self.num("/reload/answered")).round()
    }

    /// Main-thread CPU µs per answered poll that changed nothing: the window's CPU time less the page's
    /// own over as long (its rate idling with nothing due), ÷ answered.
    fn idle_poll_us(&self) -> f64 {
        let page = self.num("/quiet/busyMs") / self.num("/quiet/ms") * self.num("/steady/ms");
        ((self.num("/steady/busyMs") - page) * 1000.0 / self.num("/steady/answered")).round()
    }

    /// Wasm linear memory per task right after open (ours).
    fn wasm_per_task_open(&self) -> f64 {
        ((self.num("/open/wasmBytes") - self.num("/open/wasmBase")) / self.n_f()).round()
    }

    /// The median of the card runs' insert → drawn times.
    fn cards_ms(&self) -> Option<f64> {
        let runs = self.json["cards"].as_array()?;
        median(&runs.iter().filter_map(|r| r["drawnMs"].as_f64()).collect::<Vec<_>>())
    }
}

/// The runner's `results`.
fn results(json: &serde_json::Value) -> Result<Vec<Measured>> {
    let results = json["results"].as_array().ok_or_else(|| Error::msg("scale runner: no `results` in its JSON"))?;
    results
        .iter()
        .map(|r| {
            let (subject, n) = runner::subject_and_n(r, "scale")?;
            Ok(Measured { subject, n, json: r.clone() })
        })
        .collect()
}

/// The rows, metric by metric, each N in turn; ours beside the official requester where it has the figure.
fn rows(results: &[Measured], chromium: &str, esbuild: &str) -> Vec<Row> {
    let setting = format!(
        "headless Chromium {chromium}; reference server --light, pollIntervalMs N × {POLL_MS_PER_TASK} ms (at least {MIN_POLL_MS} \
         ms); N live handles stored as copies of one handle the client stored (the other N − 1 tasks from idle_seed)"
    );
    let ours_note = format!(
        "{setting}. Reload: a fresh page, open() on N stored handles all due (ours polls: server/discover and \
         subscriptions/listen answered -32601 in the page) until every task was answered or {} s; failed = fetch calls \
         that rejected; busy = DevTools TaskDuration − DevToolsCommandDuration ÷ answered tasks/get; memory = wasm linear \
         memory + JS heap after GC at the end, minus the page before open() (a client opened and closed), ÷ N",
        RELOAD_MS / 1000
    );
    let official_note = format!(
        "same browser, server and reload; the session official-requester.mjs builds (esbuild {esbuild} bundle), its N \
         references read from localStorage and resumed 100 at a time with session.resumeTask() + settle() (all at once, \
         Chromium refuses the requests beyond its per-page limit and resumeTask rejects); memory = JS heap after GC, minus \
         the page after one session was opened and closed, ÷ N"
    );
    let wasm_note = "wasm linear memory (memory.buffer.byteLength: 64 KiB pages, the high-water mark) right after open() \
                     restored N handles, minus with 0, ÷ N; no official figure: the official requester is JavaScript (its \
                     heap is in the reload memory row)";
    let pass_note = format!(
        "scheduling pass: an `online` event (while online) runs the client's pump synchronously with nothing due — every \
         record's expiry tick and next action, the live set, the earliest wake-up, one timer; wall time in the page, median \
         of {PASSES}, no request sent. step(): a step-mode client (autoPoll: false) on N stored handles none due, after its \
         first step; each re-reads every record from IndexedDB; median of {STEPS}. No official figure: ext-tasks keeps one \
         timer per task and has no step mode"
    );
    let writes_note = format!(
        "N handles polled once each, their next polls spread over one interval; IndexedDB writes = calls of IDBObjectStore \
         put/add/delete/clear and IDBCursor update/delete in the page. Per unchanged poll: writes ÷ answered tasks/get over \
         {w} s; per status change: idle_set completes every task on the server, then writes ÷ tasks seen ending over {w} s \
         (then drained). No official figure: ext-tasks keeps no store (its host keeps serialized references)",
        w = WINDOW_MS / 1000
    );
    let idle_poll_note = format!(
        "N handles polled once each, their next polls spread over one interval; main-thread CPU time (DevTools \
         TaskDuration − DevToolsCommandDuration, timeDomain threadTicks: other processes on the two shared cores do not \
         inflate it) over a whole {w} s window of polls that change nothing, less the page's own rate (the same page \
         idling {q} s with nothing due right after open()) over the window, ÷ answered tasks/get. \
         Budget: at 10,000 tasks at most {IDLE_POLL_GROWTH_MAX}× the figure at 100 (the bench fails when over). No \
         official figure: its polls are one timer per task, with no pass over the others",
        w = WINDOW_MS / 1000,
        q = QUIET_MS / 1000
    );
    let cards_note = format!(
        "create 100 <mcp-task> elements (client, task-id of live tasks) and append them → the first frame after all 100 \
         reported their task (mcp-task-change): requestAnimationFrame, then a task; median of {CARD_RUNS}. No official \
         figure: ext-tasks has no UI"
    );

    let counts: Vec<u64> = {
        let mut c: Vec<u64> = results.iter().map(|r| r.n).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let find = |n: u64, subject: Subject| results.iter().find(|r| r.n == n && r.subject == subject);
    let tasks = |n: u64| group_thousands(n as i64);
    let mut rows = Vec::new();
    let mut push = |row: Row| {
        if row.value.is_finite() {
            rows.push(row);
        }
    };
    type Value = fn(&Measured) -> f64;
    let compared: [(&str, Value, &'static str); 4] = [
        ("open → every task answered", Measured::reload_ms, "ms"),
        ("tasks/get failed", |r| r.num("/reload/failed"), "requests"),
        ("main-thread busy per tasks/get", Measured::reload_busy_us_per_get, "µs"),
        ("memory per task (ours: wasm + JS heap)", Measured::reload_memory_per_task, "B"),
    ];
    for (what, value, unit) in compared {
        for &n in &counts {
            let metric = format!("reload, {} handles: {what}", tasks(n));
            if let Some(r) = find(n, Subject::Ours) {
                push(Row::new(FIGURE, Subject::Ours, metric.clone(), value(r), unit).note(ours_note.clone()));
            }
            if let Some(r) = find(n, Subject::Official) {
                push(Row::new(FIGURE, Subject::Official, metric, value(r), unit).note(official_note.clone()));
            }
        }
    }
    let idle_poll_at_100 = find(100, Subject::Ours).map(Measured::idle_poll_us).filter(|v| v.is_finite());
    for &n in &counts {
        if let Some(r) = find(n, Subject::Ours) {
            let metric = format!("{} live tasks: main thread per answered idle poll", tasks(n));
            let mut row = Row::new(FIGURE, Subject::Ours, metric, r.idle_poll_us(), "µs").note(idle_poll_note.clone());
            if let (10_000, Some(base)) = (n, idle_poll_at_100) {
                row = row.budget((base * IDLE_POLL_GROWTH_MAX).round());
            }
            push(row);
        }
    }
    let ours: [(&str, Value, &'static str, &str); 6] = [
        ("wasm memory per task after open()", Measured::wasm_per_task_open, "B", wasm_note),
        ("scheduling pass, nothing due", |r| runner::round(r.num("/passes/medianMs"), 2), "ms", &pass_note),
        ("step(), nothing due", |r| runner::round(r.num("/step/medianMs"), 2), "ms", &pass_note),
        (
            "IndexedDB writes per status change",
            |r| runner::round(r.num("/changed/writes") / r.num("/changed/ended"), 2),
            "writes",
            &writes_note,
        ),
        (
            "IndexedDB writes per unchanged poll",
            |r| runner::round(r.num("/steady/writes") / r.num("/steady/answered"), 2),
            "writes",
            &writes_note,
        ),
        (
            "100 <mcp-task> cards, insert → drawn",
            |r| r.cards_ms().map_or(f64::NAN, |ms| runner::round(ms, 2)),
            "ms",
            &cards_note,
        ),
    ];
    for (what, value, unit, note) in ours {
        for &n in &counts {
            if let Some(r) = find(n, Subject::Ours) {
                let metric = format!("{} live tasks: {what}", tasks(n));
                push(Row::new(FIGURE, Subject::Ours, metric, value(r), unit).note(note));
            }
        }
    }
    rows
}

/// One block per result: what the rows summarise, and the rest of what was measured.
fn details_text(results: &[Measured]) -> String {
    let mut out = String::new();
    let kib = |bytes: f64| format!("{:.0} KiB", bytes / 1024.0);
    let line = |out: &mut String, text: String| {
        out.push_str("    ");
        out.push_str(&text);
        out.push('\n');
    };
    for r in results {
        let n = group_thousands(r.n as i64);
        out.push_str(&format!("  {} — {n} tasks, pollIntervalMs {}\n", r.subject.as_str(), r.num("/pollMs")));
        let wasm = match r.subject {
            Subject::Ours => format!(", wasm +{}", kib(r.num("/reload/after/wasm") - r.num("/reload/before/wasm"))),
            Subject::Official => String::new(),
        };
        line(
            &mut out,
            format!(
                "reload: {} of {n} answered in {:.1} s (open {:.0}); {} tasks/get sent, {} failed; {} IndexedDB writes; \
                 main thread busy {:.1} s; JS heap +{}{wasm}",
                r.num("/reload/covered"),
                r.num("/reload/ms") / 1000.0,
                r.num("/reload/openMs"),
                r.num("/reload/sent"),
                r.num("/reload/failed"),
                r.num("/reload/writes"),
                r.num("/reload/busyMs") / 1000.0,
                kib(r.num("/reload/after/heap") - r.num("/reload/before/heap")),
            ),
        );
        if r.subject != Subject::Ours {
            continue;
        }
        line(
            &mut out,
            format!(
                "open {:.0} (wasm +{}); scheduling pass {:.2} (min {:.2}, max {:.2}); step(): first {:.0} (parses every \
                 record), then {:.1} (min {:.1}, max {:.1})",
                r.num("/open/openMs"),
                kib(r.num("/open/wasmBytes") - r.num("/open/wasmBase")),
                r.num("/passes/medianMs"),
                r.num("/passes/minMs"),
                r.num("/passes/maxMs"),
                r.num("/step/firstMs"),
                r.num("/step/medianMs"),
                r.num("/step/minMs"),
                r.num("/step/maxMs"),
            ),
        );
        if let Some(runs) = r.json["cards"].as_array() {
            let drawn: Vec<String> =
                runs.iter().filter_map(|c| c["drawnMs"].as_f64()).map(|v| format!("{v:.0}")).collect();
            let reported: Vec<f64> = runs.iter().filter_map(|c| c["reportedMs"].as_f64()).collect();
            line(
                &mut out,
                format!(
                    "100 cards: drawn after {} (each run); every card had reported its task after {:.0} (median)",
                    drawn.join(", "),
                    median(&reported).unwrap_or(f64::NAN)
                ),
            );
        }
        line(
            &mut out,
            format!(
                "polls that change nothing, {:.0} s: {} answered, {} failed, {} IndexedDB writes, main thread CPU {:.1} s \
                 ({:.0} µs per answered tasks/get; the page idling with nothing due: {:.0} ms in {:.1} s, so {:.0} µs per \
                 answered poll beyond it)",
                r.num("/steady/ms") / 1000.0,
                r.num("/steady/answered"),
                r.num("/steady/failed"),
                r.num("/steady/writes"),
                r.num("/steady/busyMs") / 1000.0,
                r.num("/steady/busyMs") * 1000.0 / r.num("/steady/answered"),
                r.num("/quiet/busyMs"),
                r.num("/quiet/ms") / 1000.0,
                r.idle_poll_us(),
            ),
        );
        line(
            &mut out,
            format!(
                "after idle_set, {:.0} s: {} of {n} tasks seen ending, {} tasks/get answered, {} failed, {} IndexedDB writes",
                r.num("/changed/ms") / 1000.0,
                r.num("/changed/ended"),
                r.num("/changed/answered"),
                r.num("/changed/failed"),
                r.num("/changed/writes"),
            ),
        );
    }
    out.push_str("  (ms unless marked; memory over the page's baseline)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(subject: Subject, n: u64, json: serde_json::Value) -> Measured {
        Measured { subject, n, json }
    }

    #[test]
    fn rows_put_ours_beside_official_and_mark_ours_only_figures() {
        let ours = measured(
            Subject::Ours,
            1000,
            serde_json::json!({
                "reload": { "complete": true, "ms": 7100.4, "failed": 0, "busyMs": 6000.0, "answered": 1000,
                            "before": { "heap": 1_000_000, "wasm": 1_048_576 }, "after": { "heap": 1_500_000, "wasm": 5_242_880 } },
                "open": { "wasmBase": 1_048_576, "wasmBytes": 5_242_880 },
                "steady": { "writes": 0, "answered": 900 },
                "changed": { "writes": 1000, "ended": 1000 },
                "passes": { "medianMs": 1.234 },
                "step": { "medianMs": 40.0 },
                "cards": [{ "drawnMs": 100.0 }, { "drawnMs": 120.0 }, { "drawnMs": 90.0 }],
            }),
        );
        let official = measured(
            Subject::Official,
            10_000,
            serde_json::json!({
                "reload": { "complete": false, "ms": 90000.0, "failed": 3, "busyMs": 30000.0, "answered": 10000,
                            "before": { "heap": 1_000_000 }, "after": { "heap": 81_000_000 } },
            }),
        );
        let rows = rows(&[ours, official], "1", "0.1");
        let find = |metric: &str, subject: Subject| {
            rows.iter().find(|r| r.metric == metric && r.subject == subject).map(|r| r.value)
        };
        assert_eq!(find("reload, 1,000 handles: open → every task answered", Subject::Ours), Some(7100.0));
        assert_eq!(find("reload, 10,000 handles: open → every task answered", Subject::Official), None, "incomplete");
        assert_eq!(find("reload, 10,000 handles: tasks/get failed", Subject::Official), Some(3.0));
        assert_eq!(find("reload, 1,000 handles: main-thread busy per tasks/get", Subject::Ours), Some(6000.0));
        let memory = "reload, 1,000 handles: memory per task (ours: wasm + JS heap)";
        assert_eq!(find(memory, Subject::Ours), Some(((500_000.0 + 4_194_304.0) / 1000.0_f64).round()));
        assert_eq!(
            find("reload, 10,000 handles: memory per task (ours: wasm + JS heap)", Subject::Official),
            Some(8000.0)
        );
        assert_eq!(find("1,000 live tasks: wasm memory per task after open()", Subject::Ours), Some(4194.0));
        assert_eq!(find("1,000 live tasks: IndexedDB writes per status change", Subject::Ours), Some(1.0));
        assert_eq!(find("1,000 live tasks: IndexedDB writes per unchanged poll", Subject::Ours), Some(0.0));
        assert_eq!(find("1,000 live tasks: scheduling pass, nothing due", Subject::Ours), Some(1.23));
        assert_eq!(find("1,000 live tasks: 100 <mcp-task> cards, insert → drawn", Subject::Ours), Some(100.0));
        assert!(rows.iter().filter(|r| r.subject == Subject::Ours).all(|r| !r.note.is_empty()));
        assert!(details_text(&results(&serde_json::json!({ "results": [] })).unwrap()).contains("ms unless marked"));
    }

    #[test]
    fn the_idle_poll_figure_at_10_000_is_held_to_one_and_a_half_times_the_figure_at_100() {
        // 2,000 ms busy over 30 s with 500 answered; idling, the page costs 30 ms/s: 900 ms of the window.
        let at = |n: u64, busy: f64| {
            measured(
                Subject::Ours,
                n,
                serde_json::json!({
                    "steady": { "busyMs": busy, "ms": 30_000.0, "answered": 500 },
                    "quiet": { "busyMs": 90.0, "ms": 3_000.0 },
                }),
            )
        };
        let three = rows(&[at(100, 2_000.0), at(1000, 2_500.0), at(10_000, 2_550.0)], "1", "0.1");
        let row = |metric: &str| three.iter().find(|r| r.metric == metric).expect(metric);
        let small = row("100 live tasks: main thread per answered idle poll");
        assert_eq!((small.value, small.budget), (2200.0, None), "(2,000 − 900) ms ÷ 500");
        assert_eq!(row("1,000 live tasks: main thread per answered idle poll").budget, None);
        let large = row("10,000 live tasks: main thread per answered idle poll");
        assert_eq!((large.value, large.budget), (3300.0, Some(3300.0)));
        assert!(large.within_budget());
        let over = rows(&[at(100, 2_000.0), at(10_000, 2_600.0)], "1", "0.1");
        let large = over.iter().find(|r| r.metric.starts_with("10,000 live tasks: main thread per")).expect("row");
        assert!(!large.within_budget(), "{} µs against a budget of {:?}", large.value, large.budget);
    }
}
