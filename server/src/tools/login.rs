//! `login {provider, url}`: URL-mode elicitation. The task asks the user to open the server's own
//! sign-in page; visiting it completes the task. Declining fails it. `url` asks for another address
//! instead, verbatim, so tests can see how a client shows and opens a hostile one (a task asking for
//! it completes only when its own sign-in page is visited).
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::{ElicitRequest, InputRequest};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

use super::{object_schema, row_args, Begin, CallContext, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The login tool.
pub struct Login;

const KEY: &str = "login-1";

/// The path of the sign-in page the task points at.
pub const LOGIN_PATH: &str = "/fake-login";

impl Tool for Login {
    fn name(&self) -> &'static str {
        "login"
    }
    fn description(&self) -> &'static str {
        "Signs in to a provider through a URL the user opens (URL-mode elicitation)."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({ "provider": { "type": "string", "default": "example-idp" }, "url": { "type": "string" } }),
            &[],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let provider = ctx.args.text("provider", "example-idp")?;
        ctx.args.text("url", "")?; // A wrong type is refused now, not ignored later.
        Ok(Begin::Task { message: format!("Preparing sign-in with {provider}"), data: json!({ "visited": false }) })
    }
    fn advance(&self, row: &mut TaskRow, now: i64, env: &ToolEnv) {
        let args = row_args(row);
        let provider = args.text("provider", "example-idp").unwrap_or_else(|_| "example-idp".into());
        let url = match args.text("url", "") {
            Ok(url) if !url.is_empty() => url,
            _ => format!("{}{LOGIN_PATH}?task={}", env.base_url, row.id),
        };
        if row.data.get("visited") == Some(&Value::Bool(true)) {
            let mut result = CallToolResult::text(format!("Signed in to {provider} as demo-user"));
            result.structured_content = Some(json!({ "user": "demo-user", "provider": provider }));
            row.complete(result, "Signed in");
            return;
        }
        match row.phase.as_str() {
            "start" => {
                let request = InputRequest::Elicitation(ElicitRequest::Url {
                    message: format!("Sign in to {provider} to continue"),
                    url,
                });
                row.ask(KEY, request, format!("Waiting for the user to open the {provider} sign-in page"));
                row.enter("asked", now);
            }
            "asked" => match row.answer(KEY).and_then(|a| a.get("action")).and_then(Value::as_str) {
                Some("accept") => {
                    row.enter("waiting", now);
                    row.working(format!("Waiting for sign-in at {url}"));
                }
                Some(_) => row.fail(RpcError::new(-32000, "Sign-in was declined"), "Sign-in declined"),
                None => {}
            },
            _ => {}
        }
    }
}
