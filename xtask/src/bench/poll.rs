//! The poll figure: `tasks/get` requests per task against the reference server
//! (`--poll-interval-ms 500`) over a window W (default 60 s; `BENCH_POLL_WINDOW_MS` shortens it)
//! while N `long_job` tasks (default 5; `BENCH_POLL_TASKS`) stay live, ours beside the official
//! requester, and the ideal W / 500 ms in each metric's name:
//!
//! - **1 client**: a TaskClient in Node (pkg/node.mjs, default options) with `server/discover` and
//!   `subscriptions/listen` answered -32601 so it polls, vs one official requester instance
//!   (`xtask/bench-fixtures/official-requester.mjs`) following the tasks with `settle()`;
//! - **4 tabs** on one namespace: 4 Chromium pages of one context (the e2e host page, polling forced
//!   the same way) where the Web Lock holder polls, vs 4 official instances in one Node process
//!   sharing localStorage, each polling every task;
//! - **with subscriptions/listen**: our TaskClient in Node as is; the official requester (ext-tasks
//!   0.2.2) has no listen support, so its figure is its 1-client polling.
//!
//! The work is `xtask/bench-fixtures/poll/run.mjs` (and its helpers beside it), which counts what the
//! server's request log shows per task id and prints one JSON object as its last stdout line; its
//! readable summary goes to stderr as it runs and into the figure's details. The server is built
//! here (`cargo build -p mcp-tasks-server`); pkg/ is used as it is (`cargo xtask build`, or the size
//! figure when it runs first). Two phases of W each, so about 2 × W + 20 s in all.

use super::{runner, Ctx, Row, Subject};
use crate::error::{Error, Result};

const FIGURE: &str = "poll";
const SCRIPT: &str = "xtask/bench-fixtures/poll/run.mjs";

/// Builds the server, runs the script, and turns its JSON into rows and a detail.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    runner::require_pkg(ctx.root, &["node.mjs", "client_bg.wasm"])?;
    let server = runner::reference_server(ctx.root)?;
    let json = runner::node_json::<&str>(ctx.root, Some(&server), SCRIPT, &[])?;
    let rows = rows(&json)?;
    let summary = json.get("summary").and_then(|s| s.as_str()).unwrap_or_default().to_owned();
    ctx.detail(FIGURE, "requests per task, by case", summary, json);
    Ok(rows)
}

/// `json.cases.<case>.<subject>.perTask`.
fn per_task(json: &serde_json::Value, case: &str, subject: &str) -> Result<f64> {
    json.pointer(&format!("/cases/{case}/{subject}/perTask"))
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| Error::msg(format!("{SCRIPT}: no cases.{case}.{subject}.perTask in its JSON")))
}

/// Three metrics, ours and official each, the ideal in the metric's name.
fn rows(json: &serde_json::Value) -> Result<Vec<Row>> {
    let number = |key: &str| {
        json.get(key)
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| Error::msg(format!("{SCRIPT}: no `{key}` in its JSON")))
    };
    let (window_ms, tasks, interval, ideal) =
        (number("windowMs")?, number("tasks")?, number("pollIntervalMs")?, number("ideal")?);
    let setting = format!(
        "W = {} s, {tasks} live long_job tasks per subject, server pollIntervalMs {interval}; requests counted in the server log per task id",
        window_ms / 1000.0
    );
    let ours_note = format!(
        "{setting}. 1 client: TaskClient in Node (default options; a fetch wrapper answers server/discover and subscriptions/listen with -32601, so it polls). \
         4 tabs: 4 Chromium pages, one context and namespace, the same fetch wrapper injected by Playwright (one tab polls). \
         listen: TaskClient in Node as is"
    );
    let official_note = format!(
        "{setting}. ext-tasks 0.2.2 + client 2.4.0 via official-requester.mjs, settle() polling. \
         4 tabs: 4 instances in one Node process sharing a stand-in localStorage (2-4 resumeAll() what 1 started), each polling. \
         listen: ext-tasks has no subscriptions/listen, so its 1-client polling figure"
    );
    let ideal = super::format_value(ideal, "");
    let metrics = [
        ("one", format!("1 client: tasks/get per task (ideal {ideal})")),
        ("tabs", format!("4 tabs: tasks/get per task, all tabs (ideal {ideal})")),
        ("listen", "with subscriptions/listen: tasks/get per task (ideal 0)".to_owned()),
    ];
    let mut rows = Vec::new();
    for (case, metric) in metrics {
        rows.push(
            Row::new(FIGURE, Subject::Ours, metric.clone(), per_task(json, case, "ours")?, "requests")
                .note(ours_note.clone()),
        );
        rows.push(
            Row::new(FIGURE, Subject::Official, metric, per_task(json, case, "official")?, "requests")
                .note(official_note.clone()),
        );
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_from_script_json() {
        let json = serde_json::json!({
            "windowMs": 60000, "tasks": 5, "pollIntervalMs": 500, "ideal": 120,
            "cases": {
                "one": { "ours": { "perTask": 118 }, "official": { "perTask": 117.4 } },
                "tabs": { "ours": { "perTask": 118 }, "official": { "perTask": 470 } },
                "listen": { "ours": { "perTask": 0 }, "official": { "perTask": 117.4 } },
            },
        });
        let made = rows(&json).expect("rows");
        assert_eq!(made.len(), 6);
        assert_eq!(made[0].metric, "1 client: tasks/get per task (ideal 120)");
        assert_eq!((made[3].subject, made[3].value), (Subject::Official, 470.0));
        assert!(made[0].note.contains("W = 60 s"), "{}", made[0].note);
        assert!(rows(&serde_json::json!({ "windowMs": 1 })).is_err());
    }
}
