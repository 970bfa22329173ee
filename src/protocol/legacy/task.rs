//! The 2025-11-25 `Task` and the answers that carry one: `tools/call` (nested `CreateTaskResult`),
//! `tasks/get`, `tasks/cancel`, `tasks/list`.
use crate::json::Value;

use super::super::fields::{self, Object};
use super::super::jsonrpc::{RpcError, RpcErrorKind};
use super::super::result_type::expect_complete;
use super::super::task::Task;
use super::super::tool_result::CallToolResult;
use super::super::DecodeError;
use super::IMMEDIATE_RESPONSE_META;

/// Reads a Task written by a 2025-11-25 server into the crate's [`Task`].
///
/// Postel: the legacy names (`ttl`, `pollInterval`) and the 2026 names (`ttlMs`, `pollIntervalMs`) are
/// both read, the legacy one first; unknown fields and `resultType` are ignored. A missing
/// `lastUpdatedAt` reads as `createdAt` (nothing has changed that we know of), and a missing `ttl`
/// as unlimited (the client then never predicts expiry; the server still reports it). Types, the
/// status and whole milliseconds are checked as strictly as in 2026.
pub(crate) fn task_from_object(obj: &Object, what: &'static str) -> Result<Task, DecodeError> {
    Task::read(obj, what, true)
}

/// Reads a Task from a JSON value (a `notifications/tasks/status` params object, a `tasks/list` item).
pub fn decode_task(value: &Value) -> Result<Task, DecodeError> {
    task_from_object(fields::object(value, "task")?, "task")
}

/// The Task as a 2025-11-25 server writes it (`ttl`, always present; `pollInterval`).
pub fn encode_task(task: &Task) -> Value {
    let mut obj = Object::new();
    obj.put("taskId", Value::from(task.task_id.as_str()));
    obj.put("status", Value::from(task.status.as_str()));
    if let Some(m) = &task.status_message {
        obj.put("statusMessage", Value::from(m.as_str()));
    }
    obj.put("createdAt", Value::from(task.created_at.as_str()));
    obj.put("lastUpdatedAt", Value::from(task.last_updated_at.as_str()));
    obj.put("ttl", task.ttl_ms.map_or(Value::Null, Value::from));
    if let Some(p) = task.poll_interval_ms {
        obj.put("pollInterval", Value::from(p));
    }
    Value::Object(obj)
}

/// A task the server created for a `tools/call` sent with `params.task`.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyTaskHandle {
    /// The task, with `working` as its first status (the legacy spec requires it; not enforced).
    pub task: Task,
    /// `_meta["io.modelcontextprotocol/model-immediate-response"]`: text a host may show at once.
    pub immediate_response: Option<String>,
}

/// What a legacy `tools/call` returns.
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyCallOutcome {
    /// The tool ran synchronously (no `params.task`, or the server chose to answer directly).
    Complete(CallToolResult),
    /// `CreateTaskResult`: poll with `tasks/get`, fetch the outcome with `tasks/result`.
    Task(LegacyTaskHandle),
}

/// Decodes a `tools/call` result: a `CreateTaskResult` when it holds a `task` object with a `taskId`,
/// otherwise an ordinary `CallToolResult` (no `resultType` needed; a declared one must be `complete`).
pub fn decode_call_result(value: &Value) -> Result<LegacyCallOutcome, DecodeError> {
    const WHAT: &str = "CreateTaskResult";
    let obj = fields::object(value, "tools/call result")?;
    if let Some(Value::Object(inner)) = obj.get("task") {
        if inner.contains_key("taskId") {
            let task = task_from_object(inner, WHAT)?;
            // Advisory text: a value of another type is ignored rather than failing the whole handle.
            let immediate_response = obj
                .get("_meta")
                .and_then(|m| m.get(IMMEDIATE_RESPONSE_META))
                .and_then(Value::as_str)
                .map(str::to_owned);
            return Ok(LegacyCallOutcome::Task(LegacyTaskHandle { task, immediate_response }));
        }
    }
    CallToolResult::from_json(value).map(LegacyCallOutcome::Complete)
}

/// Reads a Task answer to a request about `asked` (a `tasks/get` or `tasks/cancel` result), refusing
/// an answer about another task so a misrouted reply never moves the wrong record.
fn task_answer(value: &Value, what: &'static str, method: &'static str, asked: &str) -> Result<Task, DecodeError> {
    let obj = fields::object(value, what)?;
    expect_complete(obj, method)?;
    let task = task_from_object(obj, what)?;
    if task.task_id != asked {
        return Err(DecodeError::Invalid {
            what,
            detail: format!("answers for task \"{}\" but \"{asked}\" was asked", task.task_id),
        });
    }
    Ok(task)
}

/// Decodes a `tasks/get` result for task `asked`: the Task alone (no outcome; that comes from `tasks/result`).
pub fn decode_get_result(value: &Value, asked: &str) -> Result<Task, DecodeError> {
    task_answer(value, "tasks/get result", "tasks/get", asked)
}

/// Decodes a `tasks/cancel` result for task `asked`. 2025-11-25 answers with the Task (status
/// `cancelled`); an empty acknowledgement, as a 2026 server sends, reads as `None`.
pub fn decode_cancel_result(value: &Value, asked: &str) -> Result<Option<Task>, DecodeError> {
    let obj = fields::object(value, "tasks/cancel result")?;
    if !obj.contains_key("taskId") && !obj.contains_key("status") {
        expect_complete(obj, "tasks/cancel")?;
        return Ok(None);
    }
    task_answer(value, "tasks/cancel result", "tasks/cancel", asked).map(Some)
}

/// Why a `tasks/cancel` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelRefusal {
    /// -32602: the task is already terminal, or the server does not know it. The code is the same for
    /// both, so read the task with `tasks/get` to learn which.
    NotCancellable,
    /// Any other error: the cancel may be retried.
    Other,
}

/// Classifies a JSON-RPC error answering `tasks/cancel`.
pub fn cancel_refusal(error: &RpcError) -> CancelRefusal {
    match error.kind() {
        RpcErrorKind::InvalidParams => CancelRefusal::NotCancellable,
        _ => CancelRefusal::Other,
    }
}

/// One page of `tasks/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyTaskPage {
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// The cursor of the next page, if there is one.
    pub next_cursor: Option<String>,
}

/// Decodes a `tasks/list` result. A malformed task fails the page: the list is a recovery aid, and a
/// silently shortened one would read as "those tasks are gone".
pub fn decode_list_result(value: &Value) -> Result<LegacyTaskPage, DecodeError> {
    const WHAT: &str = "tasks/list result";
    let obj = fields::object(value, WHAT)?;
    expect_complete(obj, "tasks/list")?;
    let tasks = match obj.get("tasks") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| task_from_object(fields::object(item, "task")?, "task"))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(fields::wrong_type(WHAT, "tasks", "an array")),
        None => return Err(DecodeError::MissingField { what: WHAT, field: "tasks" }),
    };
    Ok(LegacyTaskPage { tasks, next_cursor: fields::optional_str(obj, WHAT, "nextCursor")?.map(str::to_owned) })
}
