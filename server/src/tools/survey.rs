//! `survey {label?}`: one elicitation form with every field kind the spec allows (formatted strings,
//! bounded numbers, a boolean, titled single selects short and long, a titled multi select), for the
//! `<mcp-task>` element's form tests and demo. The answer comes back verbatim in `structuredContent`, so a
//! test can compare what a browser form sent with what the server received. `label` lands unescaped in the
//! message, a title and a description: escaping is the renderer's job.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::{ElicitRequest, InputRequest};
use mcp_tasks_web::protocol::jsonrpc::{codes, RpcError};
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The survey tool.
pub struct Survey;

const KEY: &str = "survey-1";
const DEFAULT_LABEL: &str = "Survey";
/// Three options render as radios.
const SIZES: [(&str, &str); 3] = [("s", "Small"), ("m", "Medium"), ("l", "Large")];
/// Eight options render as a select.
const COUNTRIES: [(&str, &str); 8] = [
    ("th", "Thailand"),
    ("jp", "Japan"),
    ("de", "Germany"),
    ("br", "Brazil"),
    ("ke", "Kenya"),
    ("ca", "Canada"),
    ("in", "India"),
    ("au", "Australia"),
];
const TOPICS: [(&str, &str); 4] = [("rust", "Rust"), ("wasm", "WebAssembly"), ("web", "The web"), ("mcp", "MCP")];

fn titled(options: &[(&str, &str)]) -> Vec<Value> {
    options.iter().map(|(value, title)| json!({ "const": value, "title": title })).collect()
}

/// The form's schema; `label` is the caller's text, carried as is.
fn schema(label: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "email": { "type": "string", "format": "email", "title": "Email", "description": "Where we send the summary" },
            "website": { "type": "string", "format": "uri", "title": "Website" },
            "birthday": { "type": "string", "format": "date", "title": "Birthday" },
            "nickname": {
                "type": "string", "minLength": 2, "maxLength": 20, "default": "sam",
                "title": label, "description": format!("What should {label} call you?")
            },
            "rating": { "type": "number", "minimum": 0, "maximum": 5, "title": "Rating" },
            "count": { "type": "integer", "minimum": 1, "maximum": 10, "default": 3, "title": "How many" },
            "subscribe": { "type": "boolean", "default": false, "title": "Subscribe" },
            "size": { "type": "string", "oneOf": titled(&SIZES), "default": "m", "title": "Size" },
            "country": { "type": "string", "oneOf": titled(&COUNTRIES), "title": "Country" },
            "topics": {
                "type": "array", "items": { "anyOf": titled(&TOPICS) },
                "minItems": 1, "maxItems": 3, "title": "Topics"
            }
        },
        "required": ["email", "size", "topics"]
    })
}

fn label_of(row: &TaskRow) -> String {
    row_args(row).text("label", DEFAULT_LABEL).unwrap_or_else(|_| DEFAULT_LABEL.into())
}

impl Tool for Survey {
    fn name(&self) -> &'static str {
        "survey"
    }
    fn description(&self) -> &'static str {
        "Asks one form with every field kind (formats, bounds, radios, a select, a multi select) and returns the answer verbatim."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({ "label": { "type": "string", "default": DEFAULT_LABEL, "description": "Shown in the form's message, a title and a description" } }),
            &[],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let label = ctx.args.text("label", DEFAULT_LABEL)?;
        Ok(Begin::Task { message: format!("{label}: preparing the questions"), data: Value::Null })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let label = label_of(row);
        match row.phase.as_str() {
            "start" if row.in_phase_ms(now) >= 300 => {
                let form = InputRequest::Elicitation(ElicitRequest::Form {
                    message: format!("{label}: tell us about yourself"),
                    requested_schema: schema(&label),
                });
                row.ask(KEY, form, format!("{label}: waiting for your answers"));
                row.enter("asked", now);
            }
            "asked" => {
                let Some(answer) = row.answer(KEY) else { return };
                // The engine takes any answer shape under a key it issued; only an ElicitResult has `action`.
                let Some(action) = answer.get("action").and_then(Value::as_str).map(str::to_owned) else {
                    let error =
                        RpcError::new(codes::INVALID_PARAMS, format!("The answer to {KEY} is not an ElicitResult"))
                            .with_data(json!({ "answer": answer }));
                    return row.fail(error, format!("{label}: the answer was not a form result"));
                };
                let content = answer.get("content").cloned().unwrap_or(Value::Null);
                let mut result = CallToolResult::text(format!("Survey answered: {action}"));
                result.structured_content = Some(json!({ "action": action, "content": content }));
                row.complete(result, format!("{label}: answered ({action})"));
            }
            _ => {}
        }
    }
}
