//! Method dispatch for validated requests: discover, tools, the three task methods, and listen.
use std::sync::Arc;

use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::discover::DiscoverResult;
use mcp_tasks_web::protocol::jsonrpc::{codes, RequestId, RpcError};
use mcp_tasks_web::protocol::meta::{Implementation, RequestMeta};
use mcp_tasks_web::protocol::request::{CallToolParams, ClientRequest};
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::protocol::{PROTOCOL_VERSION, TASKS_EXTENSION};

use crate::engine::Engine;
use crate::ids::now_ms;
use crate::tools::{self, Args, Begin, Bulk, CallContext, TaskSupport};

/// What a request produced.
pub enum Reply {
    /// A JSON-RPC result.
    Result(Value),
    /// An SSE stream (subscriptions/listen).
    Listen(crate::listen::ListenStream),
}

/// The error a tool or task method sends when the Tasks extension was not declared.
pub fn tasks_required(what: &str) -> RpcError {
    RpcError::new(
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("{what} requires the {TASKS_EXTENSION} extension; declare it in _meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions"),
    )
    .with_data(json!({ "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } } }))
}

/// This server's self-description.
pub fn server_info() -> Implementation {
    Implementation::new("mcp-tasks-server", env!("CARGO_PKG_VERSION"))
}

fn ack() -> Value {
    json!({ "resultType": "complete" })
}

/// Runs one request that passed the transport checks.
pub async fn dispatch(
    engine: &Arc<Engine>,
    owner: &str,
    meta: &RequestMeta,
    id: &RequestId,
    request: ClientRequest,
) -> Result<Reply, RpcError> {
    let declared = meta.client_capabilities.declares_tasks();
    if !declared
        && matches!(
            request,
            ClientRequest::GetTask { .. } | ClientRequest::UpdateTask { .. } | ClientRequest::CancelTask { .. }
        )
    {
        return Err(tasks_required(request.method()));
    }
    match request {
        ClientRequest::Discover => Ok(Reply::Result(discover().to_json())),
        ClientRequest::ListTools { .. } => Ok(Reply::Result(list_tools(engine.light()))),
        ClientRequest::ReadResource { uri } => crate::apps::read(&uri).map(Reply::Result),
        ClientRequest::CallTool(params) => {
            call_tool(engine, owner, declared, params).await.map(|o| Reply::Result(o.to_json()))
        }
        ClientRequest::GetTask { task_id } => {
            Ok(Reply::Result(engine.get(owner, &task_id)?.to_detailed().to_get_result()))
        }
        ClientRequest::UpdateTask { task_id, input_responses } => {
            engine.update(owner, &task_id, &input_responses)?;
            Ok(Reply::Result(ack()))
        }
        ClientRequest::CancelTask { task_id } => {
            engine.cancel(owner, &task_id)?;
            Ok(Reply::Result(ack()))
        }
        ClientRequest::Listen(filter) => {
            if filter.task_ids.is_some() && !declared {
                return Err(tasks_required("subscriptions/listen with taskIds"));
            }
            Ok(Reply::Listen(crate::listen::open(engine.clone(), owner.to_owned(), id.clone(), filter)))
        }
    }
}

/// `server/discover`: versions, capabilities (with the Tasks extension), instructions.
pub fn discover() -> DiscoverResult {
    let capabilities = json!({ "tools": {}, "resources": {}, "extensions": { TASKS_EXTENSION: {} } });
    DiscoverResult {
        supported_versions: vec![PROTOCOL_VERSION.to_owned()],
        capabilities: capabilities.as_object().cloned().unwrap_or_default(),
        instructions: Some(
            "Reference MCP Tasks server. Task tools: build, deploy, flaky, tool_error, long_job, stubborn_job, login, ask_first, survey, ask_model, report (with an MCP App); \
             echo is synchronous. Declare io.modelcontextprotocol/tasks in each request's client capabilities to receive tasks."
                .into(),
        ),
        ttl_ms: 60_000,
        cache_scope: "private".into(),
        server_info: Some(server_info()),
    }
}

/// `tools/list`; in light mode the scale tools too.
pub fn list_tools(light: bool) -> Value {
    let scale = if light { tools::scale() } else { &[] };
    let tools: Vec<Value> = tools::all().iter().chain(scale).map(|t| tools::describe(*t)).collect();
    json!({ "resultType": "complete", "tools": tools, "ttlMs": 60_000, "cacheScope": "public" })
}

async fn call_tool(
    engine: &Arc<Engine>,
    owner: &str,
    declared: bool,
    params: CallToolParams,
) -> Result<ToolCallOutcome, RpcError> {
    let tool = tools::offered(&params.name, engine.light())
        .ok_or_else(|| RpcError::new(codes::INVALID_PARAMS, format!("Unknown tool: {}", params.name)))?;
    if tool.task_support() == TaskSupport::Required && !declared {
        return Err(tasks_required(&format!("Tool \"{}\"", tool.name())));
    }
    let arguments = params.arguments.unwrap_or_default();
    let ctx = CallContext {
        owner,
        args: Args(&arguments),
        input_responses: params.input_responses.as_ref(),
        request_state: params.request_state.as_deref(),
        store: engine.store(),
        now: now_ms(),
    };
    match tool.begin(&ctx)? {
        Begin::Result(result) => Ok(ToolCallOutcome::Complete(result)),
        Begin::InputRequired(round) => Ok(ToolCallOutcome::InputRequired(round)),
        Begin::Task { message, data } if declared => {
            let row = engine.create(owner, tool, arguments, message, data)?;
            Ok(ToolCallOutcome::Task(row.to_detailed().task))
        }
        Begin::Task { data, .. } => engine.run_inline(tool, arguments, data).await.map(ToolCallOutcome::Complete),
        Begin::Bulk(bulk) => bulk_result(engine, owner, &bulk).map(ToolCallOutcome::Complete),
    }
}

/// Runs a scale tool's work on many tasks; the result says what it did.
fn bulk_result(engine: &Engine, owner: &str, bulk: &Bulk) -> Result<CallToolResult, RpcError> {
    match bulk {
        Bulk::SeedIdle { count, like } => {
            let ids = engine.seed_idle(owner, *count, like.as_deref())?;
            let mut result = CallToolResult::text(format!("Created {} idle tasks", ids.len()));
            result.structured_content = Some(json!({ "taskIds": ids }));
            Ok(result)
        }
        Bulk::SetIdle(target) => {
            let changed = engine.set_idle(owner, target)?;
            let mut result = CallToolResult::text(format!("Changed {changed} idle tasks"));
            result.structured_content = Some(json!({ "changed": changed }));
            Ok(result)
        }
    }
}
