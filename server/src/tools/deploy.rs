//! `deploy {service, environment}`: an approval gate. The task asks a form (boolean, text, bounded
//! integer, enum); `environment: "production"` asks a second round under a new key. Rejection fails the
//! task with a JSON-RPC error; cancel stops it.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::{ElicitRequest, InputRequest};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The deploy tool.
pub struct Deploy;

const APPROVAL: &str = "approval-1";
const SECOND: &str = "production-2";
const STRATEGIES: [(&str, &str); 3] =
    [("rolling", "Rolling update"), ("blue-green", "Blue/green"), ("canary", "Canary")];

fn approval_form(service: &str, environment: &str) -> InputRequest {
    let strategies: Vec<Value> = STRATEGIES.iter().map(|(v, t)| json!({ "const": v, "title": t })).collect();
    InputRequest::Elicitation(ElicitRequest::Form {
        message: format!("Approve deployment of {service} to {environment}?"),
        requested_schema: json!({
            "type": "object",
            "properties": {
                "confirm": { "type": "boolean", "title": "Approve", "description": "Approve this deployment", "default": false },
                "reason": { "type": "string", "title": "Reason", "description": "Why (shown in the audit log)", "maxLength": 200 },
                "replicas": { "type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10, "default": 2 },
                "strategy": { "type": "string", "title": "Strategy", "oneOf": strategies, "default": "rolling" }
            },
            "required": ["confirm", "strategy"]
        }),
    })
}

fn production_form(service: &str) -> InputRequest {
    InputRequest::Elicitation(ElicitRequest::Form {
        message: format!("Production deployment: type the service name ({service}) to confirm."),
        requested_schema: json!({
            "type": "object",
            "properties": {
                "service": { "type": "string", "title": "Service name", "minLength": 1 },
                "window": { "type": "string", "title": "When", "enum": ["now", "tonight"], "default": "now" }
            },
            "required": ["service"]
        }),
    })
}

/// `(accepted, content)` of an elicitation answer.
fn read_answer(answer: &Value) -> (bool, &Value) {
    (answer.get("action").and_then(Value::as_str) == Some("accept"), answer.get("content").unwrap_or(&Value::Null))
}

fn reject(row: &mut TaskRow, service: &str, environment: &str, reason: &str) {
    let error = RpcError::new(-32000, format!("Deployment rejected by approver: {reason}"))
        .with_data(json!({ "service": service, "environment": environment, "reason": reason }));
    row.fail(error, "Deployment rejected");
}

impl Tool for Deploy {
    fn name(&self) -> &'static str {
        "deploy"
    }
    fn description(&self) -> &'static str {
        "Deploys a service after a human approves a form; production asks a second confirmation."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "service": { "type": "string", "description": "Service to deploy" },
                "environment": { "type": "string", "enum": ["staging", "production"], "default": "staging" }
            }),
            &["service"],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let service = ctx.args.required_text("service")?;
        let environment = ctx.args.text("environment", "staging")?;
        if environment != "staging" && environment != "production" {
            return Err(super::args::invalid("`environment` must be \"staging\" or \"production\"".into()));
        }
        Ok(Begin::Task {
            message: format!("Preparing the plan to deploy {service} to {environment}"),
            data: Value::Null,
        })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, _env: &ToolEnv) {
        let args = row_args(row);
        let service = args.required_text("service").unwrap_or_default();
        let environment = args.text("environment", "staging").unwrap_or_else(|_| "staging".into());
        match row.phase.as_str() {
            "start" if row.in_phase_ms(now) >= 500 => {
                row.ask(
                    APPROVAL,
                    approval_form(&service, &environment),
                    format!("Waiting for approval to deploy {service} to {environment}"),
                );
                row.enter("approval", now);
            }
            "approval" => {
                let Some(answer) = row.answer(APPROVAL).cloned() else { return };
                let (accepted, content) = read_answer(&answer);
                let reason = content.get("reason").and_then(Value::as_str).unwrap_or("no reason given").to_owned();
                if !accepted || content.get("confirm") != Some(&Value::Bool(true)) {
                    return reject(row, &service, &environment, &reason);
                }
                row.data = content.clone();
                if environment == "production" {
                    row.ask(SECOND, production_form(&service), "Waiting for the production confirmation");
                    row.enter("second", now);
                } else {
                    row.enter("deploying", now);
                    row.working(format!("Deploying {service} to {environment}"));
                }
            }
            "second" => {
                let Some(answer) = row.answer(SECOND).cloned() else { return };
                let (accepted, content) = read_answer(&answer);
                if !accepted || content.get("service").and_then(Value::as_str) != Some(service.as_str()) {
                    return reject(row, &service, &environment, "the production confirmation did not match");
                }
                row.enter("deploying", now);
                row.working(format!("Deploying {service} to {environment}"));
            }
            "deploying" => {
                let strategy = row.data.get("strategy").and_then(Value::as_str).unwrap_or("rolling").to_owned();
                let replicas = row.data.get("replicas").and_then(Value::as_u64).unwrap_or(2);
                let elapsed = row.in_phase_ms(now);
                if elapsed >= 1_500 {
                    let reason = row.data.get("reason").and_then(Value::as_str).unwrap_or("").to_owned();
                    let mut result = CallToolResult::text(format!(
                        "Deployed {service} to {environment} with {replicas} replicas using {strategy}."
                    ));
                    result.structured_content = Some(json!({
                        "deployed": true, "service": service, "environment": environment,
                        "strategy": strategy, "replicas": replicas, "reason": reason
                    }));
                    row.complete(result, "Deployed");
                } else {
                    row.working(format!("Deploying {service} to {environment} ({strategy}) {}/3", elapsed / 500 + 1));
                }
            }
            _ => {}
        }
    }
}
