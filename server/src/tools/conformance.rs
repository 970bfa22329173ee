//! Fixture tools the official conformance suite calls by name (`@modelcontextprotocol/conformance`,
//! server scenarios `tasks-*` and `http-header-validation`); see `server/CONFORMANCE-NOTES.md`.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::{ElicitRequest, InputRequest};
use mcp_tasks_web::protocol::jsonrpc::{codes, RpcError};
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// `greet {name}`: `Hello, {name}!`, synchronously (exact text checked by the suite).
pub struct Greet;

impl Tool for Greet {
    fn name(&self) -> &'static str {
        "greet"
    }
    fn description(&self) -> &'static str {
        "Greets `name` synchronously (never a task)."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({ "name": { "type": "string", "default": "World" } }), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let name = ctx.args.text("name", "World")?;
        Ok(Begin::Result(CallToolResult::text(format!("Hello, {name}!"))))
    }
    fn advance(&self, _row: &mut TaskRow, _now: i64, _env: &ToolEnv) {}
}

/// `slow_compute {seconds, label}`: a task for `seconds > 0` (synchronous for 0); cancel stops it.
pub struct SlowCompute;

impl Tool for SlowCompute {
    fn name(&self) -> &'static str {
        "slow_compute"
    }
    fn description(&self) -> &'static str {
        "Computes for `seconds`; a task when the client declared the extension and seconds > 0."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({ "seconds": { "type": "number", "minimum": 0, "maximum": 3600 }, "label": { "type": "string" } }),
            &[],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Optional
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let seconds = ctx.args.seconds("seconds", 1.0, 3600.0)?;
        let label = ctx.args.text("label", "compute")?;
        if seconds == 0.0 {
            return Ok(Begin::Result(CallToolResult::text(format!("Computed {label} at once"))));
        }
        Ok(Begin::Task { message: format!("Computing {label}"), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let args = row_args(row);
        let seconds = args.seconds("seconds", 1.0, 3600.0).unwrap_or(1.0);
        let label = args.text("label", "compute").unwrap_or_default();
        if row.in_phase_ms(now) >= (seconds * 1000.0) as i64 {
            row.complete(CallToolResult::text(format!("Computed {label} in {seconds}s")), "Computed");
        }
    }
}

/// `failing_job {}`: a task that completes with a tool error (`isError: true`), never `failed`.
pub struct FailingJob;

impl Tool for FailingJob {
    fn name(&self) -> &'static str {
        "failing_job"
    }
    fn description(&self) -> &'static str {
        "A task that completes with a tool error result after about a second."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, _ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        Ok(Begin::Task { message: "Running a job that will report an error".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        if row.in_phase_ms(now) >= 1_000 {
            let mut result = CallToolResult::text("The job ran and reported an error.");
            result.is_error = Some(true);
            row.complete(result, "Completed with a tool error");
        }
    }
}

/// `protocol_error_job {}`: a task that fails with a JSON-RPC error.
pub struct ProtocolErrorJob;

impl Tool for ProtocolErrorJob {
    fn name(&self) -> &'static str {
        "protocol_error_job"
    }
    fn description(&self) -> &'static str {
        "A task that fails with a JSON-RPC error after half a second."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, _ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        Ok(Begin::Task { message: "Running a job that will fail".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        if row.in_phase_ms(now) >= 500 {
            row.fail(RpcError::new(codes::INTERNAL_ERROR, "Internal error: the job crashed"), "Failed");
        }
    }
}

fn form(message: String, properties: Value, required: &[&str]) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::Form { message, requested_schema: object_schema(properties, required) })
}

fn accepted(row: &TaskRow, key: &str) -> Option<bool> {
    row.answer(key).map(|a| a.get("action").and_then(Value::as_str) == Some("accept"))
}

/// `confirm_delete {filename}`: asks one boolean confirmation, then completes.
pub struct ConfirmDelete;

impl Tool for ConfirmDelete {
    fn name(&self) -> &'static str {
        "confirm_delete"
    }
    fn description(&self) -> &'static str {
        "Asks to confirm deleting `filename` (one form during the task), then completes."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({ "filename": { "type": "string" } }), &["filename"])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let filename = ctx.args.text("filename", "file.txt")?;
        Ok(Begin::Task { message: format!("Preparing to delete {filename}"), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let filename = row_args(row).text("filename", "file.txt").unwrap_or_default();
        match (row.phase.as_str(), accepted(row, "confirm-1")) {
            ("start", _) => {
                let request =
                    form(format!("Delete '{filename}'?"), json!({ "confirm": { "type": "boolean" } }), &["confirm"]);
                row.ask("confirm-1", request, format!("Waiting for confirmation to delete {filename}"));
                row.enter("asked", now);
            }
            ("asked", Some(true)) => row.complete(CallToolResult::text(format!("Deleted {filename}")), "Deleted"),
            ("asked", Some(false)) => row.complete(CallToolResult::text(format!("Kept {filename}")), "Not deleted"),
            _ => {}
        }
    }
}

/// `multi_input {}`: asks two things at once; partial answers keep it waiting for the rest.
pub struct MultiInput;

impl Tool for MultiInput {
    fn name(&self) -> &'static str {
        "multi_input"
    }
    fn description(&self) -> &'static str {
        "Asks for a name and a confirmation at the same time, then completes."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, _ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        Ok(Begin::Task { message: "Preparing two questions".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        match row.phase.as_str() {
            "start" => {
                row.ask(
                    "name-1",
                    form("Your name?".into(), json!({ "name": { "type": "string" } }), &["name"]),
                    "Waiting for answers",
                );
                row.ask(
                    "confirm-2",
                    form("Proceed?".into(), json!({ "confirm": { "type": "boolean" } }), &["confirm"]),
                    "Waiting for answers",
                );
                row.enter("asked", now);
            }
            "asked" if row.answer("name-1").is_some() && row.answer("confirm-2").is_some() => {
                let name = row
                    .answer("name-1")
                    .and_then(|a| a.pointer("/content/name"))
                    .and_then(Value::as_str)
                    .unwrap_or("nobody");
                row.complete(CallToolResult::text(format!("Thanks, {name}")), "Both answers received");
            }
            _ => {}
        }
    }
}
