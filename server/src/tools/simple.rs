//! The small tools: `flaky`, `tool_error`, `long_job`, `stubborn_job` (tasks) and `echo` (synchronous).
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::{codes, RpcError};
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

fn seconds_schema(default: f64, what: &str) -> Value {
    object_schema(
        json!({ "seconds": { "type": "number", "minimum": 0, "maximum": 3600, "default": default, "description": what } }),
        &[],
    )
}

/// `flaky {seconds=1}`: fails with a JSON-RPC error (the task ends `failed`).
pub struct Flaky;

impl Tool for Flaky {
    fn name(&self) -> &'static str {
        "flaky"
    }
    fn description(&self) -> &'static str {
        "Runs for `seconds`, then fails with a JSON-RPC error (-32603)."
    }
    fn input_schema(&self) -> Value {
        seconds_schema(1.0, "How long before it fails")
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Optional
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        ctx.args.seconds("seconds", 1.0, 3600.0)?;
        Ok(Begin::Task { message: "Attempting the build with a flaky cache".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let seconds = row_args(row).seconds("seconds", 1.0, 3600.0).unwrap_or(1.0);
        if row.in_phase_ms(now) >= (seconds * 1000.0) as i64 {
            let error = RpcError::new(codes::INTERNAL_ERROR, "Internal error: build cache unavailable")
                .with_data(json!({ "retryable": true }));
            row.fail(error, "The build cache is unavailable");
        }
    }
}

/// `tool_error {}`: completes with `isError: true` (a tool-level failure, not a protocol error).
pub struct ToolError;

impl Tool for ToolError {
    fn name(&self) -> &'static str {
        "tool_error"
    }
    fn description(&self) -> &'static str {
        "Completes with a tool error result (isError: true)."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Optional
    }
    fn begin(&self, _ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        Ok(Begin::Task { message: "Pushing the image".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        if row.in_phase_ms(now) >= 300 {
            let mut result = CallToolResult::text("The image registry rejected the push: quota exceeded.");
            result.is_error = Some(true);
            row.complete(result, "The tool reported an error");
        }
    }
}

/// `long_job {seconds=300}`: runs long and honours cancel.
pub struct LongJob;

impl Tool for LongJob {
    fn name(&self) -> &'static str {
        "long_job"
    }
    fn description(&self) -> &'static str {
        "A long task (default 300 s) that stops when cancelled."
    }
    fn input_schema(&self) -> Value {
        seconds_schema(300.0, "How long the job runs")
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        ctx.args.seconds("seconds", 300.0, 3600.0)?;
        Ok(Begin::Task { message: "Starting the long job".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let seconds = row_args(row).seconds("seconds", 300.0, 3600.0).unwrap_or(300.0);
        let elapsed = row.in_phase_ms(now);
        if elapsed >= (seconds * 1000.0) as i64 {
            let mut result = CallToolResult::text(format!("The long job finished after {seconds}s"));
            result.structured_content = Some(json!({ "seconds": seconds }));
            row.complete(result, "Finished");
        } else {
            row.working(format!("Working: {}s of {seconds}s", elapsed / 1000));
        }
    }
}

/// `stubborn_job {seconds=3}`: acknowledges cancel but completes anyway (cancel is cooperative).
pub struct StubbornJob;

impl Tool for StubbornJob {
    fn name(&self) -> &'static str {
        "stubborn_job"
    }
    fn description(&self) -> &'static str {
        "A task that acknowledges tasks/cancel but completes anyway."
    }
    fn input_schema(&self) -> Value {
        seconds_schema(3.0, "How long the job runs")
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        ctx.args.seconds("seconds", 3.0, 3600.0)?;
        Ok(Begin::Task { message: "Starting a job that cannot be stopped".into(), data: Value::Null })
    }
    fn honours_cancel(&self) -> bool {
        false
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let seconds = row_args(row).seconds("seconds", 3.0, 3600.0).unwrap_or(3.0);
        if row.in_phase_ms(now) >= (seconds * 1000.0) as i64 {
            row.complete(CallToolResult::text("The stubborn job completed"), "Completed despite any cancel request");
        } else if row.cancel_requested {
            row.working("Cancel requested, but this job finishes anyway");
        } else {
            row.working("Running");
        }
    }
}

/// `echo {text}`: a plain synchronous result, never a task.
pub struct Echo;

impl Tool for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "Echoes `text` synchronously (never a task)."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({ "text": { "type": "string", "description": "Text to echo" } }), &["text"])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let text = ctx.args.text("text", "")?;
        let mut result = CallToolResult::text(text.clone());
        result.structured_content = Some(json!({ "echo": text, "length": text.chars().count() }));
        Ok(Begin::Result(result))
    }
    fn advance(&self, _row: &mut TaskRow, _now: i64, _env: &ToolEnv) {}
}
