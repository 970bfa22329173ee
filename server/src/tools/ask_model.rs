//! `ask_model {}`: asks the host two non-elicitation things at once, `sampling/createMessage` and
//! `roots/list`, so a client's handlers for both (and partial answers) can be tested and shown. It
//! completes with both answers as the host sent them.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::InputRequest;
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The ask-model tool.
pub struct AskModel;

const SAMPLING: &str = "sampling-1";
const ROOTS: &str = "roots-1";
const PROMPT: &str = "Summarize the build log in one sentence.";

fn sampling_request() -> InputRequest {
    InputRequest::Sampling {
        params: json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": PROMPT } }],
            "maxTokens": 100
        }),
    }
}

/// The first text block of a `CreateMessageResult` (`content` is one block or an array of blocks).
fn sampled_text(answer: &Value) -> Option<&str> {
    fn text_of(block: &Value) -> Option<&str> {
        block.get("text").and_then(Value::as_str)
    }
    match answer.get("content")? {
        Value::Array(blocks) => blocks.iter().find_map(text_of),
        block => text_of(block),
    }
}

/// One line for people: what the model said and which roots the host shared. Answers are the host's,
/// so every field is read defensively.
fn summary(sampling: &Value, roots: &Value) -> String {
    let model = sampling.get("model").and_then(Value::as_str).unwrap_or("an unnamed model");
    let said = sampled_text(sampling).unwrap_or("(no text)");
    let uris: Vec<&str> = roots
        .get("roots")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(|r| r.get("uri").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let shared = if uris.is_empty() { "no roots".to_owned() } else { uris.join(", ") };
    format!("{model} said: {said} The host shared {} root(s): {shared}", uris.len())
}

impl Tool for AskModel {
    fn name(&self) -> &'static str {
        "ask_model"
    }
    fn description(&self) -> &'static str {
        "Asks the host to run a model (sampling/createMessage) and list its roots (roots/list) at once."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, _ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        Ok(Begin::Task { message: "Preparing questions for the host".into(), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        match row.phase.as_str() {
            "start" if row.in_phase_ms(now) >= 200 => {
                let message = "Waiting for the host to run a model and list roots";
                row.ask(SAMPLING, sampling_request(), message);
                row.ask(ROOTS, InputRequest::Roots { params: None }, message);
                row.enter("asked", now);
            }
            "asked" => {
                // A partial answer leaves the other key outstanding; the engine keeps the task input_required.
                let (Some(sampling), Some(roots)) = (row.answer(SAMPLING), row.answer(ROOTS)) else { return };
                let (sampling, roots) = (sampling.clone(), roots.clone());
                let mut result = CallToolResult::text(summary(&sampling, &roots));
                result.structured_content = Some(json!({ "sampling": sampling, "roots": roots }));
                row.complete(result, "The host answered both");
            }
            _ => {}
        }
    }
}
