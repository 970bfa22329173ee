//! `ask_first {}` (and the conformance fixture `test_tool_with_task`): asks for the user's name with MRTR
//! `input_required` before any task exists, then creates a task that greets them. The request state
//! stays on the server, bound to the caller; the client only holds a token.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::{ElicitRequest, InputRequest, InputResponse};
use mcp_tasks_web::protocol::jsonrpc::{codes, RpcError};
use mcp_tasks_web::protocol::tool_call::InputRequiredResult;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::ids::random_id;
use crate::row::TaskRow;

/// An ask-first tool: its name, the MRTR key it asks under, and whether it needs a task.
pub struct AskFirst {
    /// Tool name.
    pub name: &'static str,
    /// The `inputRequests` key of the MRTR round.
    pub key: &'static str,
    /// Task support.
    pub support: TaskSupport,
}

fn ask(tool: &AskFirst, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
    let token = random_id("rs_");
    ctx.store
        .put_state(&token, ctx.owner, ctx.now, &json!({ "tool": tool.name }))
        .map_err(|e| RpcError::new(codes::INTERNAL_ERROR, e.to_string()))?;
    let request = InputRequest::Elicitation(ElicitRequest::Form {
        message: "What is your name?".into(),
        requested_schema: object_schema(
            json!({ "name": { "type": "string", "title": "Your name", "minLength": 1 } }),
            &["name"],
        ),
    });
    Ok(Begin::InputRequired(InputRequiredResult {
        input_requests: Some([(tool.key.to_owned(), request)].into_iter().collect()),
        request_state: Some(token),
    }))
}

impl Tool for AskFirst {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "Asks for your name (MRTR input_required) before it creates a task that greets you."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        self.support
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let state_ok = match ctx.request_state {
            Some(token) => ctx
                .store
                .get_state(token, ctx.owner, ctx.now)
                .map_err(|e| RpcError::new(codes::INTERNAL_ERROR, e.to_string()))?
                .is_some_and(|s| s.get("tool") == Some(&json!(self.name))),
            None => false,
        };
        let answer = ctx.input_responses.and_then(|r| r.get(self.key));
        match (state_ok, answer) {
            (true, Some(InputResponse::Elicitation(result))) => {
                let name = result
                    .content
                    .as_ref()
                    .and_then(|c| c.get("name"))
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty());
                match name {
                    Some(name) => {
                        Ok(Begin::Task { message: format!("Greeting {name}"), data: json!({ "name": name }) })
                    }
                    None => {
                        let mut result = CallToolResult::text("No name was given, so there is nobody to greet.");
                        result.is_error = Some(true);
                        Ok(Begin::Result(result))
                    }
                }
            }
            // No answer yet, an answer of the wrong kind, or an unknown state: ask (again), as MRTR says.
            _ => ask(self, ctx),
        }
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let name = row.data.get("name").and_then(Value::as_str).unwrap_or("friend").to_owned();
        if row.in_phase_ms(now) >= 500 {
            row.complete(CallToolResult::text(format!("Hello, {name}! (asked before the task existed)")), "Greeted");
        }
    }
}
