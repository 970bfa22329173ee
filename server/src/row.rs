//! `TaskRow`: a task as the server keeps it — the wire fields plus what its tool needs to carry on
//! after a restart (phase, tool data, answers received, cancel intent).
use mcp_tasks_web::json::Value;
use mcp_tasks_web::protocol::input::{decode_input_requests, encode_input_requests, InputRequest, InputRequests};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::protocol::Object;
use serde::{Deserialize, Serialize};

/// One stored task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRow {
    /// The task id (also the `Mcp-Name` of task requests).
    pub id: String,
    /// The principal it belongs to (a bearer token's identity, or `anonymous`).
    pub owner: String,
    /// The tool that runs it.
    pub tool: String,
    /// The call's arguments.
    pub arguments: Object,
    /// Current status, as on the wire.
    pub status: String,
    /// Current status message.
    pub status_message: Option<String>,
    /// Creation time (Unix ms); the TTL counts from here.
    pub created_at: i64,
    /// Last change (Unix ms).
    pub updated_at: i64,
    /// TTL in ms (`None` = unlimited).
    pub ttl_ms: Option<u64>,
    /// Suggested poll interval in ms.
    pub poll_interval_ms: u64,
    /// Outstanding input requests, in wire form.
    pub input_requests: Value,
    /// Answers received so far, by key, in wire form.
    pub answers: Object,
    /// The result of a completed task, in wire form.
    pub result: Option<Value>,
    /// The error of a failed task, in wire form.
    pub error: Option<Value>,
    /// Whether `tasks/cancel` was received.
    pub cancel_requested: bool,
    /// The tool's current phase.
    pub phase: String,
    /// When the current phase began (Unix ms).
    pub phase_started_at: i64,
    /// Tool-specific data.
    pub data: Value,
}

impl TaskRow {
    /// A new working task.
    pub fn new(
        id: String,
        owner: String,
        tool: &str,
        arguments: Object,
        now: i64,
        ttl_ms: Option<u64>,
        poll_interval_ms: u64,
    ) -> Self {
        Self {
            id,
            owner,
            tool: tool.to_owned(),
            arguments,
            status: TaskStatus::Working.as_str().to_owned(),
            status_message: None,
            created_at: now,
            updated_at: now,
            ttl_ms,
            poll_interval_ms,
            input_requests: Value::Object(Object::new()),
            answers: Object::new(),
            result: None,
            error: None,
            cancel_requested: false,
            phase: "start".into(),
            phase_started_at: now,
            data: Value::Null,
        }
    }

    /// The status, read back from its wire name (an unreadable one counts as failed: never live forever).
    pub fn status(&self) -> TaskStatus {
        TaskStatus::parse(&self.status).unwrap_or(TaskStatus::Failed)
    }

    /// Whether the task is over.
    pub fn is_terminal(&self) -> bool {
        self.status().is_terminal()
    }

    /// Whether the engine tick advances it: not over, and its tool has work to do on a clock (an
    /// `idle_job` task has none). Stored as the `live` column, so the tick reads only these rows.
    pub fn ticks(&self) -> bool {
        !self.is_terminal() && crate::tools::ticks(&self.tool)
    }

    /// When the task expires (Unix ms), if it has a TTL.
    pub fn expires_at(&self) -> Option<i64> {
        self.ttl_ms.map(|ttl| self.created_at.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX)))
    }

    /// Enters `phase` now.
    pub fn enter(&mut self, phase: &str, now: i64) {
        self.phase = phase.to_owned();
        self.phase_started_at = now;
    }

    /// Milliseconds spent in the current phase.
    pub fn in_phase_ms(&self, now: i64) -> i64 {
        now.saturating_sub(self.phase_started_at)
    }

    /// Sets a live status and message.
    pub fn working(&mut self, message: impl Into<String>) {
        self.status = TaskStatus::Working.as_str().into();
        self.status_message = Some(message.into());
        self.input_requests = Value::Object(Object::new());
    }

    /// Asks for input under `key` (keys are never reused within a task).
    pub fn ask(&mut self, key: &str, request: InputRequest, message: impl Into<String>) {
        let mut requests = self.requests();
        requests.insert(key.to_owned(), request);
        self.input_requests = encode_input_requests(&requests);
        self.status = TaskStatus::InputRequired.as_str().into();
        self.status_message = Some(message.into());
    }

    /// The outstanding input requests.
    pub fn requests(&self) -> InputRequests {
        decode_input_requests(&self.input_requests).unwrap_or_default()
    }

    /// The answer received for `key`, if any.
    pub fn answer(&self, key: &str) -> Option<&Value> {
        self.answers.get(key)
    }

    /// Ends the task with a result.
    pub fn complete(&mut self, result: CallToolResult, message: impl Into<String>) {
        self.status = TaskStatus::Completed.as_str().into();
        self.status_message = Some(message.into());
        self.result = Some(result.to_json());
        self.input_requests = Value::Object(Object::new());
    }

    /// Ends the task with a JSON-RPC error.
    pub fn fail(&mut self, error: RpcError, message: impl Into<String>) {
        self.status = TaskStatus::Failed.as_str().into();
        self.status_message = Some(message.into());
        self.error = Some(error.to_json());
        self.input_requests = Value::Object(Object::new());
    }

    /// Ends the task as cancelled.
    pub fn cancelled(&mut self) {
        self.status = TaskStatus::Cancelled.as_str().into();
        self.status_message = Some("Cancelled at the client's request".into());
        self.input_requests = Value::Object(Object::new());
    }

    /// The task as `tasks/get` and `notifications/tasks` show it.
    pub fn to_detailed(&self) -> DetailedTask {
        let status = self.status();
        let task = Task {
            task_id: self.id.clone(),
            status,
            status_message: self.status_message.clone(),
            created_at: format_millis(self.created_at),
            last_updated_at: format_millis(self.updated_at),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: Some(self.poll_interval_ms),
        };
        let detail = match status {
            TaskStatus::InputRequired => StatusDetail::InputRequests(self.requests()),
            TaskStatus::Completed => StatusDetail::Result(
                self.result
                    .as_ref()
                    .and_then(|r| CallToolResult::from_json(r).ok())
                    .unwrap_or_else(|| CallToolResult::text("")),
            ),
            TaskStatus::Failed => StatusDetail::Error(
                self.error
                    .as_ref()
                    .and_then(|e| RpcError::from_json(e).ok())
                    .unwrap_or_else(|| RpcError::new(-32603, "the task failed")),
            ),
            TaskStatus::Working | TaskStatus::Cancelled => StatusDetail::None,
        };
        DetailedTask { task, detail }
    }

    /// Whether a client-visible field differs from `other` (used to bump `updatedAt` and notify).
    pub fn visible_change(&self, other: &TaskRow) -> bool {
        self.status != other.status
            || self.status_message != other.status_message
            || self.input_requests != other.input_requests
            || self.result != other.result
            || self.error != other.error
            || self.ttl_ms != other.ttl_ms
    }
}
