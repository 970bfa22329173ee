//! The cards figure: what a reload costs a page that shows its tasks — in headless Chromium (1280×720),
//! a page with 1, 100 and 1,000 stored tasks (`BENCH_CARDS_COUNTS`, e.g. `100,1000`) in a
//! `<mcp-task-list>`, median (min–max) of 5 runs (`BENCH_CARDS_RUNS`), every time from navigation start:
//!
//! - (a) to the frame in which every card in the viewport shows its stored state;
//! - (b) to the first frame after each of those cards' tasks had its first `tasks/get` answered;
//! - (c) the same page's first contentful paint without the list.
//!
//! a − c is the list's own cost (loading the package and opening the client included). One hard
//! check: the list's own cost at 1,000 tasks is at most 2× its cost at 100 (what is off screen costs
//! (almost) nothing). The store is seeded as the resume figure seeds many handles (one `idle_job` call
//! copied for the tasks the server's `idle_seed` creates like it); `server/discover` and
//! `subscriptions/listen` are answered -32601 in the page, so the client polls. The pages and the
//! driver are in `xtask/bench-fixtures/cards/` (with the resume figure's `ours.html` for the seeding).

use super::runner::Spread;
use super::{group_thousands, runner, Ctx, Row, Subject};
use crate::error::{Error, Result};

const FIGURE: &str = "cards";
const DEFAULT_COUNTS: &[u64] = &[1, 100, 1000];
const DEFAULT_RUNS: u64 = 5;
const POLL_MS: u64 = 2000;
/// The check: the list's own cost at `CHECKED.1` tasks is at most `BUDGET` × its cost at `CHECKED.0`.
const CHECKED: (u64, u64) = (100, 1000);
const BUDGET: f64 = 2.0;

/// Stages the pages, runs the driver, and turns its JSON into rows.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    runner::require_pkg(ctx.root, &["mcp_tasks_web.js", "mcp_tasks_web_bg.wasm"])?;
    let runs = runner::env_number("BENCH_CARDS_RUNS")?.unwrap_or(DEFAULT_RUNS).max(1);
    let counts = runner::env_counts("BENCH_CARDS_COUNTS", DEFAULT_COUNTS)?;
    let server = runner::reference_server(ctx.root)?;
    let www = ctx.dir("cards/www")?;
    for (from, page) in [
        ("xtask/bench-fixtures", "page-wire.js"),
        ("xtask/bench-fixtures/resume", "ours.html"),
        ("xtask/bench-fixtures/resume", "ours.js"),
        ("xtask/bench-fixtures/resume", "probe.js"),
        ("xtask/bench-fixtures/cards", "cards.html"),
        ("xtask/bench-fixtures/cards", "cards.js"),
    ] {
        let source = ctx.root.join(from).join(page);
        std::fs::copy(&source, www.join(page)).map_err(|e| Error::msg(format!("copying {}: {e}", source.display())))?;
    }
    let counts_arg = counts.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let (www_arg, pkg_arg) = (www.display().to_string(), ctx.root.join("pkg").display().to_string());
    let (runs_arg, poll_arg) = (runs.to_string(), POLL_MS.to_string());
    let args =
        ["--www", &www_arg, "--pkg", &pkg_arg, "--counts", &counts_arg, "--runs", &runs_arg, "--poll-ms", &poll_arg];
    let json = runner::node_json(ctx.root, Some(&server), "xtask/bench-fixtures/cards/runner.mjs", &args)?;
    let measured = summarise(&json)?;
    let chromium = json["chromium"].as_str().unwrap_or("?");
    let note = format!(
        "ms from navigation start, median of {runs} runs, headless Chromium {chromium} at 1280×720; the package's load and \
         TaskClient.open() included; tasks seeded in IndexedDB, reference server pollIntervalMs {POLL_MS}"
    );
    let mut rows = Vec::new();
    for m in &measured {
        let tasks = tasks(m.n);
        let row = |metric: &str, s: Spread| {
            Row::new(FIGURE, Subject::Ours, format!("{tasks}: {metric}"), s.median, "ms").spread(s.min, s.max)
        };
        rows.push(row("→ visible cards drawn", m.drawn).note(&note));
        rows.push(row("→ fresh answers shown", m.fresh));
        rows.push(row("first paint without the list", m.paint));
        rows.push(Row::new(FIGURE, Subject::Ours, format!("{tasks}: the list's own cost"), m.own(), "ms"));
    }
    rows.extend(checked(&measured));
    ctx.detail(
        FIGURE,
        format!("navigation → frame in ms, median (min–max) of {runs} runs"),
        details_text(&measured),
        json,
    );
    Ok(rows)
}

/// `1 task`, `1,000 tasks`.
fn tasks(n: u64) -> String {
    format!("{} task{}", group_thousands(n as i64), if n == 1 { "" } else { "s" })
}

/// The hard check: the list's own cost at 1,000 tasks ÷ at 100, at most 2. None without both counts.
fn checked(measured: &[Measured]) -> Option<Row> {
    let own = |n| measured.iter().find(|m| m.n == n).map(Measured::own);
    let (few, many) = (own(CHECKED.0)?, own(CHECKED.1)?);
    let metric = format!("the list's own cost, {} ÷ {}", tasks(CHECKED.1), tasks(CHECKED.0));
    let note = "a − c (visible cards drawn − first paint without the list), medians; the bench fails above 2.0";
    let ratio = (many / few.max(1.0) * 100.0).round() / 100.0;
    Some(Row::new(FIGURE, Subject::Ours, metric, ratio, "×").note(note).budget(BUDGET))
}

/// One count's runs.
struct Measured {
    n: u64,
    drawn: Spread,
    fresh: Spread,
    paint: Spread,
    /// Cards made by the time the visible ones were drawn, median (the list makes the ones near the viewport).
    built: f64,
}

impl Measured {
    /// a − c: the list's own cost.
    fn own(&self) -> f64 {
        ((self.drawn.median - self.paint.median) * 10.0).round() / 10.0
    }
}

fn summarise(json: &serde_json::Value) -> Result<Vec<Measured>> {
    let results = json["results"].as_array().ok_or_else(|| Error::msg("cards runner: no `results` in its JSON"))?;
    let mut out = Vec::new();
    for r in results {
        let n = r["n"].as_u64().ok_or_else(|| Error::msg("cards runner: a result without `n`"))?;
        let runs = r["runs"].as_array().map(Vec::as_slice).unwrap_or_default();
        let values = |key: &str| runs.iter().filter_map(|run| run[key].as_f64()).collect::<Vec<_>>();
        let spread = |key: &str| {
            Spread::of(&values(key), 1).ok_or_else(|| Error::msg(format!("cards runner: no {key} at n={n}")))
        };
        let built = Spread::of(&values("built"), 1).map_or(f64::NAN, |s| s.median);
        out.push(Measured {
            n,
            drawn: spread("drawnMs")?,
            fresh: spread("freshMs")?,
            paint: spread("paintMs")?,
            built,
        });
    }
    Ok(out)
}

fn details_text(measured: &[Measured]) -> String {
    let header = [
        "tasks",
        "(a) visible cards drawn",
        "(b) fresh answers shown",
        "(c) first paint, no list",
        "a − c",
        "cards made",
    ];
    let rows: Vec<Vec<String>> = measured
        .iter()
        .map(|m| {
            vec![
                group_thousands(m.n as i64),
                m.drawn.text(),
                m.fresh.text(),
                m.paint.text(),
                format!("{:.1}", m.own()),
                format!("{:.0}", m.built),
            ]
        })
        .collect();
    let mut out = super::aligned(&header, &rows, 1);
    out.push_str(
        "  ms from navigation start; median (min–max). (a): the frame in which every card in the viewport shows its stored \
         state; (b): the first frame after each of those cards' tasks had its first tasks/get answered; (c): the same page \
         without the list, its first contentful paint. \"cards made\": <mcp-task> elements the list built (the rest are \
         empty items until they come near the viewport).\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(n: u64, drawn: f64, paint: f64) -> Measured {
        let s = |v| Spread { median: v, min: v, max: v };
        Measured { n, drawn: s(drawn), fresh: s(drawn), paint: s(paint), built: 10.0 }
    }

    #[test]
    fn the_check_is_the_lists_own_cost_at_1000_over_100_within_2() {
        let row = checked(&[at(100, 150.0, 50.0), at(1000, 230.0, 50.0)]).expect("both counts");
        assert_eq!((row.value, row.budget), (1.8, Some(2.0)));
        assert!(row.within_budget());
        assert!(!checked(&[at(100, 150.0, 50.0), at(1000, 400.0, 50.0)]).expect("both").within_budget());
        assert!(checked(&[at(1000, 400.0, 50.0)]).is_none(), "no 100, no check");
    }
}
