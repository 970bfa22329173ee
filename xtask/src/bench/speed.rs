//! The `core` figure: the Rust core's speed, natively, from the criterion benches in
//! `benches/core.rs` (decoding a `tasks/get` response, one state-machine step, building and
//! validating a form model). Criterion writes each estimate to
//! `<target>/criterion/<group>/<bench>/new/estimates.json`; this reads `mean.point_estimate` (ns).
//! Ours only: the same decode in the browser beside the official requester's zod parse is the
//! `decode` figure (decode.rs).

use super::{Ctx, Row, Subject};
use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::workspace;

/// `(group, bench)` pairs the figure reports, in print order.
const BENCHES: &[(&str, &str)] = &[
    ("decode_tasks_get", "working"),
    ("decode_tasks_get", "input_required_form10"),
    ("decode_tasks_get", "completed_10kb"),
    ("machine_step", "poll_changed"),
    ("machine_step", "poll_unchanged"),
    ("machine_step", "poll_to_input_required"),
    ("form", "from_schema"),
    ("form", "validate_ok"),
    ("form", "validate_errors"),
];

/// Runs `cargo bench --bench core` and reads the mean time per operation of each benchmark.
pub fn run(ctx: &Ctx) -> Result<Vec<Row>> {
    let mut bench = cmd::cargo();
    bench.args(["bench", "-p", "mcp-tasks-web", "--bench", "core"]).current_dir(ctx.root);
    cmd::run(&mut bench)?;
    let criterion = workspace::target_dir(ctx.root)?.join("criterion");
    let mut rows = Vec::new();
    for (group, name) in BENCHES {
        let path = criterion.join(group).join(name).join("new").join("estimates.json");
        let text = std::fs::read_to_string(&path).context(format!("reading {}", path.display()))?;
        let estimates: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
        let ns = estimates
            .pointer("/mean/point_estimate")
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| Error::msg(format!("{}: no mean.point_estimate", path.display())))?;
        rows.push(
            Row::new("core", Subject::Ours, format!("{group}/{name}"), ns / 1000.0, "µs")
                .note("criterion mean per operation, native, release profile (opt-level z)"),
        );
    }
    Ok(rows)
}
