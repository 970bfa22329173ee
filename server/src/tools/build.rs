//! `build {seconds=5, target}`: a task whose status message changes every second, then completes with
//! text and `structuredContent`. Honours cancel.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The build tool.
pub struct Build;

const STEPS: [&str; 5] = ["resolving dependencies", "compiling", "linking", "optimizing", "packaging"];

/// `5` rather than `5.0` when the seconds are whole.
fn whole_or_fraction(seconds: f64) -> Value {
    if seconds.fract() == 0.0 && seconds.abs() < 1e15 {
        Value::from(seconds as i64)
    } else {
        Value::from(seconds)
    }
}

impl Tool for Build {
    fn name(&self) -> &'static str {
        "build"
    }
    fn description(&self) -> &'static str {
        "Builds a target. Runs as a task for `seconds` seconds; the status message changes every second."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "seconds": { "type": "number", "minimum": 0, "maximum": 600, "default": 5, "description": "How long the build runs" },
                "target": { "type": "string", "default": "app", "description": "Build target name" }
            }),
            &[],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Optional
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        ctx.args.seconds("seconds", 5.0, 600.0)?;
        let target = ctx.args.text("target", "app")?;
        Ok(Begin::Task { message: format!("Queued build of {target}"), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let args = row_args(row);
        let seconds = args.seconds("seconds", 5.0, 600.0).unwrap_or(5.0);
        let target = args.text("target", "app").unwrap_or_else(|_| "app".into());
        let duration_ms = (seconds * 1000.0) as i64;
        let elapsed = row.in_phase_ms(now);
        let steps = (seconds.ceil() as i64).max(1);
        if elapsed >= duration_ms {
            let mut result =
                CallToolResult::text(format!("Built {target} in {}s ({steps} steps)", whole_or_fraction(seconds)));
            result.structured_content = Some(json!({
                "target": target, "seconds": whole_or_fraction(seconds), "steps": steps,
                "artifact": format!("dist/{target}.wasm"), "elapsedMs": elapsed, "ok": true
            }));
            row.complete(result, format!("Build of {target} finished"));
            return;
        }
        let step = (elapsed / 1000 + 1).min(steps);
        let name = STEPS[((step - 1) as usize) % STEPS.len()];
        row.working(format!("[{step}/{steps}] {name} {target}"));
    }
}
