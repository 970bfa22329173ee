//! The demo tools. Each task-running tool is a small state machine over its `TaskRow`: `advance` is
//! called on every engine tick and after every update or cancel, reads the phase, the clock, the answers
//! and the cancel flag, and moves the row on. Nothing lives only in memory, so a restart resumes work.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::input::InputResponses;
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::tool_call::InputRequiredResult;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::protocol::Object;

use crate::row::TaskRow;
use crate::store::TaskStore;

mod args;
mod ask_first;
mod ask_model;
mod build;
mod conformance;
mod deploy;
pub mod login;
mod report;
pub mod scale;
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
    /// Work on many tasks at once, done by the engine under its lock; answered synchronously.
    Bulk(Bulk),
}

/// Work on many tasks at once (the light-mode scale tools).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bulk {
    /// Create `count` idle tasks for the caller.
    SeedIdle {
        /// How many.
        count: usize,
        /// A task of the caller whose timestamps the new tasks take.
        like: Option<String>,
    },
    /// Change every live idle task of the caller.
    SetIdle(IdleTarget),
}

/// What `idle_set` makes of each live idle task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdleTarget {
    /// Completed, with this status message (and a text result saying so).
    Completed(String),
    /// Still working, with this new status message.
    Working(String),
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
    /// The `ui://` resource of its MCP App, if it has one (`_meta.ui.resourceUri` in `tools/list`).
    fn ui(&self) -> Option<&'static str> {
        None
    }
    /// Whether `tasks/cancel` stops the task (cancel is cooperative: a tool may finish anyway).
    fn honours_cancel(&self) -> bool {
        true
    }
    /// Whether the engine tick advances its live tasks. `false` for a tool whose tasks change only on a
    /// request (an update, a cancel, `idle_set`): the tick then never reads their rows.
    fn ticks(&self) -> bool {
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
        &report::Report,
        &conformance::SlowCompute,
        &conformance::FailingJob,
        &conformance::ProtocolErrorJob,
        &conformance::ConfirmDelete,
        &conformance::MultiInput,
        &ask_first::AskFirst { name: "test_tool_with_task", key: "user_name", support: TaskSupport::Required },
    ]
}

/// The scale tools, offered only in light mode (`--light`), listed after [`all`].
pub fn scale() -> &'static [&'static dyn Tool] {
    &[&scale::IdleJob, &scale::IdleSeed, &scale::IdleSet]
}

/// The tool called `name`, the scale tools included (a stored row names its tool whatever the mode).
pub fn find(name: &str) -> Option<&'static dyn Tool> {
    all().iter().chain(scale()).copied().find(|t| t.name() == name)
}

/// The tool called `name` if this server offers it: the scale tools only in light mode.
pub fn offered(name: &str, light: bool) -> Option<&'static dyn Tool> {
    let tools = all().iter().chain(if light { scale() } else { &[] });
    tools.copied().find(|t| t.name() == name)
}

/// Whether the tick reads live tasks of `tool` (an unknown tool's still are, as before light mode).
pub fn ticks(tool: &str) -> bool {
    find(tool).is_none_or(|t| t.ticks())
}

/// The `tools/list` entry of a tool; one with an MCP App names its resource in `_meta.ui` (and
/// under the Apps spec's older flat key, which hosts still read).
pub fn describe(tool: &dyn Tool) -> Value {
    let mut meta = Object::new();
    meta.put("io.github.mcp-tasks-web/taskSupport", Value::from(tool.task_support().as_str()));
    if let Some(uri) = tool.ui() {
        meta.put("ui", json!({ "resourceUri": uri }));
        meta.put("ui/resourceUri", Value::from(uri));
    }
    json!({
        "name": tool.name(),
        "description": tool.description(),
        "inputSchema": tool.input_schema(),
        "_meta": Value::Object(meta)
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
