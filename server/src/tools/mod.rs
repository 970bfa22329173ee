//! The demo tools. Each task-running tool is a small state machine over its `TaskRow`: `advance` is
//! called on every engine tick and after every update or cancel, reads the phase, the clock, the answers
//! and the cancel flag, and moves the row on. Nothing lives only in memory, so a restart resumes work.
use mcp_tasks_web::protocol::input::InputResponses;
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_call::InputRequiredResult;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::protocol::Object;
use mcp_tasks_web::json::{json, Value};

use crate::row::TaskRow;
use crate::store::TaskStore;

mod args;
mod ask_first;
mod ask_model;
mod build;
mod conformance;
mod deploy;
pub mod login;
mod simple;
mod survey;

pub use args::Args;

/// Whether a tool may, must or must not run as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answers synchronously.
    Forbidden,
    /// A task when the client declared the extension, inline otherwise.
    Optional,
    /// Only as a task; -32021 when the client did not declare the extension.
    Required,
}

impl TaskSupport {
    /// The name shown in `tools/list`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

/// What a `tools/call` knows when a tool begins.
pub struct CallContext<'a> {
    /// The caller's identity.
    pub owner: &'a str,
    /// The tool's arguments.
    pub args: Args<'a>,
    /// MRTR answers on a retry.
    pub input_responses: Option<&'a InputResponses>,
    /// MRTR state on a retry.
    pub request_state: Option<&'a str>,
    /// For tools that keep MRTR state server-side.
    pub store: &'a TaskStore,
    /// Server clock (Unix ms).
    pub now: i64,
}

/// How a call begins.
pub enum Begin {
    /// A synchronous result.
    Result(CallToolResult),
    /// MRTR: ask before anything runs.
    InputRequired(InputRequiredResult),
    /// Run as a task, starting in `phase` with `data`.
    Task {
        /// First status message.
        message: String,
        /// Tool data for the row.
        data: Value,
    },
}

/// Server facts a tool may need while advancing.
pub struct ToolEnv {
    /// The server's own base URL (for the login page).
    pub base_url: String,
}

/// A demo tool.
pub trait Tool: Send + Sync {
    /// Its name in `tools/call`.
    fn name(&self) -> &'static str;
    /// One sentence for `tools/list`.
    fn description(&self) -> &'static str;
    /// JSON Schema of its arguments.
    fn input_schema(&self) -> Value;
    /// Whether it runs as a task.
    fn task_support(&self) -> TaskSupport;
    /// Starts a call: validate arguments, maybe ask first (MRTR), or describe the task to create.
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError>;
    /// Moves a task on; called often, must be cheap and idempotent for the same inputs. Not called
    /// once a cancel arrived for a tool that honours cancel: the engine cancels the task itself.
    fn advance(&self, row: &mut TaskRow, now: i64, env: &ToolEnv);
    /// Whether `tasks/cancel` stops the task (cancel is cooperative: a tool may finish anyway).
    fn honours_cancel(&self) -> bool {
        true
    }
}

/// Advances `row` with `tool`, or ends it as cancelled when a cancel arrived and the tool honours it.
pub fn step(tool: &dyn Tool, row: &mut TaskRow, now: i64, env: &ToolEnv) {
    if row.cancel_requested && tool.honours_cancel() {
        row.cancelled();
    } else {
        tool.advance(row, now, env);
    }
}

/// Every tool this server offers: `greet` first (the conformance suite calls the first listed tool with
/// `{}` and no Tasks extension), then the demo tools, then the other conformance fixtures.
pub fn all() -> &'static [&'static dyn Tool] {
    &[
        &conformance::Greet,
        &build::Build,
        &deploy::Deploy,
        &simple::Flaky,
        &simple::ToolError,
        &simple::LongJob,
        &simple::StubbornJob,
        &login::Login,
        &simple::Echo,
        &ask_first::AskFirst { name: "ask_first", key: "name-1", support: TaskSupport::Optional },
        &survey::Survey,
        &ask_model::AskModel,
        &conformance::SlowCompute,
        &conformance::FailingJob,
        &conformance::ProtocolErrorJob,
        &conformance::ConfirmDelete,
        &conformance::MultiInput,
        &ask_first::AskFirst { name: "test_tool_with_task", key: "user_name", support: TaskSupport::Required },
    ]
}

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static dyn Tool> {
    all().iter().copied().find(|t| t.name() == name)
}

/// The `tools/list` entry of a tool.
pub fn describe(tool: &dyn Tool) -> Value {
    json!({
        "name": tool.name(),
        "description": tool.description(),
        "inputSchema": tool.input_schema(),
        "_meta": { "io.github.mcp-tasks-web/taskSupport": tool.task_support().as_str() }
    })
}

/// A plain `{type: object, properties}` schema.
fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// The arguments a row was created with.
fn row_args(row: &TaskRow) -> Args<'_> {
    Args(&row.arguments)
}

/// An empty argument object.
pub fn no_args() -> Object {
    Object::new()
}
