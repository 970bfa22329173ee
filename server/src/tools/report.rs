//! `report {seconds=1, title}`: a task that completes with a short report, and declares an MCP App
//! (`ui://mcp-tasks-server/report.html`, served by `resources/read`) that shows the task's result.
//! Honours cancel.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The report tool.
pub struct Report;

impl Tool for Report {
    fn name(&self) -> &'static str {
        "report"
    }
    fn description(&self) -> &'static str {
        "Writes a short report as a task for `seconds` seconds; its MCP App shows the result."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "seconds": { "type": "number", "minimum": 0, "maximum": 600, "default": 1, "description": "How long the report takes" },
                "title": { "type": "string", "default": "Weekly report", "description": "The report's title" }
            }),
            &[],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Optional
    }
    fn ui(&self) -> Option<&'static str> {
        Some(crate::apps::REPORT_URI)
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        ctx.args.seconds("seconds", 1.0, 600.0)?;
        let title = ctx.args.text("title", "Weekly report")?;
        Ok(Begin::Task { message: format!("Writing {title}"), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let args = row_args(row);
        let seconds = args.seconds("seconds", 1.0, 600.0).unwrap_or(1.0);
        let title = args.text("title", "Weekly report").unwrap_or_else(|_| "Weekly report".into());
        if row.in_phase_ms(now) < (seconds * 1000.0) as i64 {
            return row.working(format!("Writing {title}"));
        }
        let mut result = CallToolResult::text(format!("{title}: 3 tasks done, 1 open"));
        result.structured_content = Some(json!({ "title": title, "done": 3, "open": 1 }));
        row.complete(result, format!("{title} written"));
    }
}
