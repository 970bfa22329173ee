//! The Task object, its five statuses, and the detailed form `tasks/get` and `notifications/tasks` carry.
use crate::json::Value;

use super::fields::{self, Object};
use super::input::{decode_input_requests, encode_input_requests, InputRequests};
use super::jsonrpc::RpcError;
use super::result_type::{read_result_type, ResultType};
use super::tool_result::CallToolResult;
use super::DecodeError;

/// A task's status. The last three are terminal and never change once observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for answers to `inputRequests`.
    InputRequired,
    /// Finished with a result (possibly a tool error, `isError: true`).
    Completed,
    /// Finished with a JSON-RPC error.
    Failed,
    /// Stopped after `tasks/cancel`.
    Cancelled,
}

impl TaskStatus {
    /// All five statuses, in lifecycle order.
    pub const ALL: [TaskStatus; 5] =
        [Self::Working, Self::InputRequired, Self::Completed, Self::Failed, Self::Cancelled];

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Reads a wire value.
    pub fn parse(s: &str) -> Result<Self, DecodeError> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| DecodeError::UnknownStatus { found: s.to_owned() })
    }

    /// Whether the task is over.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// The Task fields common to a handle, a `tasks/get` result and a notification.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Server-minted opaque handle; a handle, not a credential.
    pub task_id: String,
    /// Current status.
    pub status: TaskStatus,
    /// Free text about the current state; the only progress channel tasks have.
    pub status_message: Option<String>,
    /// ISO 8601 creation time; the TTL counts from here.
    pub created_at: String,
    /// ISO 8601 time of the last change.
    pub last_updated_at: String,
    /// Lifetime from `created_at` in ms; `None` means unlimited. The key is always on the wire.
    pub ttl_ms: Option<u64>,
    /// Suggested spacing of polls in ms; may change between observations.
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// Reads the Task fields from an object. Legacy 2025-11-25 field names are reported as such.
    pub(crate) fn from_object(obj: &Object, what: &'static str) -> Result<Self, DecodeError> {
        if !obj.contains_key("ttlMs") && (obj.contains_key("ttl") || obj.contains_key("pollInterval")) {
            return Err(DecodeError::LegacyShape {
                detail: "`ttl`/`pollInterval` instead of `ttlMs`/`pollIntervalMs`",
            });
        }
        // With the `legacy` feature the shared reader serves both generations; without it, the 2026
        // fields are read here on their own (the reader's unfolded 2025-11-25 branches would cost
        // pkg/ 0.7 KB raw).
        if cfg!(feature = "legacy") {
            return Self::read(obj, what, false);
        }
        Ok(Self {
            task_id: fields::required_str(obj, what, "taskId")?.to_owned(),
            status: TaskStatus::parse(fields::required_str(obj, what, "status")?)?,
            status_message: fields::optional_str(obj, what, "statusMessage")?.map(str::to_owned),
            created_at: fields::required_str(obj, what, "createdAt")?.to_owned(),
            last_updated_at: fields::required_str(obj, what, "lastUpdatedAt")?.to_owned(),
            ttl_ms: fields::required_nullable_millis(obj, what, "ttlMs")?,
            poll_interval_ms: fields::optional_millis(obj, what, "pollIntervalMs")?,
        })
    }

    /// The Task fields of either generation, in one function rather than two near-copies in the .wasm.
    /// `legacy` (2025-11-25, see `legacy::task::task_from_object`): a non-empty `taskId`,
    /// `lastUpdatedAt` defaulting to `createdAt`, and `ttl`/`pollInterval` read before the 2026 names;
    /// otherwise `lastUpdatedAt` and `ttlMs` are required. Fields are checked in the order each
    /// generation's decoder always used, so a message with several faults reports the same one.
    pub(crate) fn read(obj: &Object, what: &'static str, legacy: bool) -> Result<Self, DecodeError> {
        let task_id = fields::required_str(obj, what, "taskId")?;
        if legacy && task_id.is_empty() {
            return Err(DecodeError::Invalid { what, detail: "taskId must not be empty".into() });
        }
        let status = TaskStatus::parse(fields::required_str(obj, what, "status")?)?;
        let mut status_message = None;
        if !legacy {
            status_message = fields::optional_str(obj, what, "statusMessage")?;
        }
        let created_at = fields::required_str(obj, what, "createdAt")?;
        let last_updated_at = if legacy {
            fields::optional_str(obj, what, "lastUpdatedAt")?.unwrap_or(created_at)
        } else {
            fields::required_str(obj, what, "lastUpdatedAt")?
        };
        if legacy {
            status_message = fields::optional_str(obj, what, "statusMessage")?;
        }
        let (ttl_ms, poll_interval_ms) = if legacy {
            (either_millis(obj, what, "ttl", "ttlMs")?, either_millis(obj, what, "pollInterval", "pollIntervalMs")?)
        } else {
            (
                fields::required_nullable_millis(obj, what, "ttlMs")?,
                fields::optional_millis(obj, what, "pollIntervalMs")?,
            )
        };
        Ok(Self {
            task_id: task_id.to_owned(),
            status,
            status_message: status_message.map(str::to_owned),
            created_at: created_at.to_owned(),
            last_updated_at: last_updated_at.to_owned(),
            ttl_ms,
            poll_interval_ms,
        })
    }

    /// Writes the Task fields into `obj` exactly as the spec names them.
    pub(crate) fn write_into(&self, obj: &mut Object) {
        obj.put("taskId", Value::from(self.task_id.as_str()));
        obj.put("status", Value::from(self.status.as_str()));
        if let Some(m) = &self.status_message {
            obj.put("statusMessage", Value::from(m.as_str()));
        }
        obj.put("createdAt", Value::from(self.created_at.as_str()));
        obj.put("lastUpdatedAt", Value::from(self.last_updated_at.as_str()));
        obj.put("ttlMs", self.ttl_ms.map_or(Value::Null, Value::from));
        if let Some(p) = self.poll_interval_ms {
            obj.put("pollIntervalMs", Value::from(p));
        }
    }

    /// The `CreateTaskResult` a server sends for this task: flat, `resultType: "task"`.
    pub fn to_create_result(&self) -> Value {
        let mut obj = Object::new();
        obj.put("resultType", Value::from(ResultType::Task.as_str()));
        self.write_into(&mut obj);
        Value::Object(obj)
    }
}

/// A millisecond field under its legacy name, else its 2026 name; absent or `null` under both is `None`.
fn either_millis(
    obj: &Object,
    what: &'static str,
    legacy: &'static str,
    modern: &'static str,
) -> Result<Option<u64>, DecodeError> {
    match fields::optional_millis(obj, what, legacy)? {
        Some(ms) => Ok(Some(ms)),
        None => fields::optional_millis(obj, what, modern),
    }
}

/// What accompanies a status: `inputRequests`, `result` or `error`, as the status requires.
#[derive(Debug, Clone, PartialEq)]
pub enum StatusDetail {
    /// `working` and `cancelled` carry nothing.
    None,
    /// `input_required`: every request still outstanding.
    InputRequests(InputRequests),
    /// `completed`: the tool's result (may be a tool error).
    Result(CallToolResult),
    /// `failed`: the JSON-RPC error the underlying request ended with.
    Error(RpcError),
}

/// A `DetailedTask`: the Task plus its status detail, as `tasks/get` and `notifications/tasks` carry it.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailedTask {
    /// The Task fields.
    pub task: Task,
    /// The status-specific field.
    pub detail: StatusDetail,
}

impl DetailedTask {
    /// Reads the Task fields and the detail its status requires. Details a status does not call for
    /// are ignored (unknown-field tolerance); a missing required detail is an error.
    pub(crate) fn from_object(obj: &Object, what: &'static str) -> Result<Self, DecodeError> {
        let task = Task::from_object(obj, what)?;
        let detail = match task.status {
            TaskStatus::Working | TaskStatus::Cancelled => StatusDetail::None,
            TaskStatus::InputRequired => match obj.get("inputRequests") {
                None | Some(Value::Null) => {
                    return Err(DecodeError::MissingStatusDetail { status: "input_required", field: "inputRequests" })
                }
                Some(v) => StatusDetail::InputRequests(decode_input_requests(v)?),
            },
            TaskStatus::Completed => match obj.get("result") {
                None | Some(Value::Null) => {
                    return Err(DecodeError::MissingStatusDetail { status: "completed", field: "result" })
                }
                Some(v) => StatusDetail::Result(CallToolResult::from_json(v)?),
            },
            // A task that failed with the tool's own error result (a 2025-11-25 server's `failed` with
            // its `tasks/result`, stored as such) carries `result` instead.
            TaskStatus::Failed => match (obj.get("error"), obj.get("result")) {
                (Some(v), _) if !v.is_null() => StatusDetail::Error(RpcError::from_json(v)?),
                (_, Some(v)) if !v.is_null() => StatusDetail::Result(CallToolResult::from_json(v)?),
                _ => return Err(DecodeError::MissingStatusDetail { status: "failed", field: "error" }),
            },
        };
        Ok(Self { task, detail })
    }

    /// The questions of an `input_required` task.
    pub fn input_requests(&self) -> Option<&InputRequests> {
        match &self.detail {
            StatusDetail::InputRequests(requests) => Some(requests),
            _ => None,
        }
    }

    /// Writes the Task fields and detail into `obj`.
    pub(crate) fn write_into(&self, obj: &mut Object) {
        self.task.write_into(obj);
        match &self.detail {
            StatusDetail::None => {}
            StatusDetail::InputRequests(r) => {
                obj.put("inputRequests", encode_input_requests(r));
            }
            StatusDetail::Result(r) => {
                obj.put("result", r.to_json());
            }
            StatusDetail::Error(e) => {
                obj.put("error", e.to_json());
            }
        }
    }

    /// The `tasks/get` result a server sends: `resultType: "complete"` plus the detailed task.
    pub fn to_get_result(&self) -> Value {
        let mut obj = Object::new();
        obj.put("resultType", Value::from(ResultType::Complete.as_str()));
        self.write_into(&mut obj);
        Value::Object(obj)
    }

    /// The plain detailed-task object (no `resultType`), as stored and as notifications carry it.
    pub(crate) fn to_json(&self) -> Value {
        let mut obj = Object::new();
        self.write_into(&mut obj);
        Value::Object(obj)
    }

    /// Reads a plain detailed-task object (the inverse of `DetailedTask::to_json`).
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        Self::from_object(fields::object(value, "task")?, "task")
    }

    /// Like [`DetailedTask::from_json`], but a status whose detail is absent reads as having none: a
    /// stored record may hold a bare handle (which never carries `result`/`error`/`inputRequests`).
    pub(crate) fn from_json_lenient(value: &Value) -> Result<Self, DecodeError> {
        match Self::from_json(value) {
            Err(DecodeError::MissingStatusDetail { .. }) => {
                let task = Task::from_object(fields::object(value, "task")?, "task")?;
                Ok(Self { task, detail: StatusDetail::None })
            }
            other => other,
        }
    }
}

/// Decodes a `tasks/get` result. `resultType` must be `complete` (or absent); `task` is rejected, since
/// only `tools/call` may return a handle.
pub fn decode_get_task_result(value: &Value) -> Result<DetailedTask, DecodeError> {
    const WHAT: &str = "tasks/get result";
    let obj = fields::object(value, WHAT)?;
    match read_result_type(obj)? {
        ResultType::Complete => DetailedTask::from_object(obj, WHAT),
        other => Err(DecodeError::UnexpectedResultType { method: "tasks/get", found: other.as_str().to_owned() }),
    }
}
