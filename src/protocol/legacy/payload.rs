//! `tasks/result` and the step that turns a legacy terminal observation into the crate's
//! [`DetailedTask`], so the record machine settles legacy and 2026 tasks alike.
use crate::json::Value;

use super::super::fields;
use super::super::input::InputRequests;
use super::super::jsonrpc::RpcError;
use super::super::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use super::super::tool_result::CallToolResult;
use super::super::DecodeError;
use super::related_task;

/// What `tasks/result` answered: the original `tools/call` outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPayload {
    /// The `CallToolResult` (a tool error has `isError: true`), or the JSON-RPC error the call ended with.
    pub outcome: Result<CallToolResult, RpcError>,
    /// `_meta["io.modelcontextprotocol/related-task"].taskId` of the result, when the server set it.
    pub related_task: Option<String>,
}

/// Decodes the answer to `tasks/result` for task `asked`. A result tagged with another task is
/// refused; an untagged one is accepted (the tag is a SHOULD for servers).
pub fn decode_task_payload(outcome: &Result<Value, RpcError>, asked: &str) -> Result<TaskPayload, DecodeError> {
    const WHAT: &str = "tasks/result result";
    let result = match outcome {
        Err(error) => return Ok(TaskPayload { outcome: Err(error.clone()), related_task: None }),
        Ok(result) => result,
    };
    let related_task = related_task(fields::object(result, WHAT)?, WHAT)?;
    if let Some(id) = &related_task {
        if id != asked {
            return Err(DecodeError::Invalid {
                what: WHAT,
                detail: format!("is tagged with task \"{id}\" but \"{asked}\" was asked"),
            });
        }
    }
    Ok(TaskPayload { outcome: Ok(CallToolResult::from_json(result)?), related_task })
}

/// Turns the last Task seen and its `tasks/result` payload into the terminal [`DetailedTask`] the
/// record machine settles with. The server's status is the task's status; the payload gives the detail:
///
/// * a result stays the detail of either end: a `completed` task's result, or the tool error a
///   `failed` task ends with (the TypeScript SDK's `storeTaskResult(id, "failed", result)`), kept
///   whole with `isError` set if the server left it out, since the task did fail.
/// * a JSON-RPC error makes the task `failed` with it as [`StatusDetail::Error`].
/// * a `cancelled` task stays cancelled with no detail, whatever the payload.
///
/// The Task's status message, timestamps, TTL and poll interval are kept. A payload tagged with another
/// task is refused.
pub fn settle(task: Task, payload: TaskPayload) -> Result<DetailedTask, DecodeError> {
    if let Some(id) = &payload.related_task {
        if *id != task.task_id {
            return Err(DecodeError::Invalid {
                what: "tasks/result result",
                detail: format!("belongs to task \"{id}\", not \"{}\"", task.task_id),
            });
        }
    }
    if task.status == TaskStatus::Cancelled {
        return Ok(DetailedTask { task, detail: StatusDetail::None });
    }
    let (status, detail) = match payload.outcome {
        Ok(mut result) if task.status == TaskStatus::Failed => {
            result.is_error = Some(true);
            (TaskStatus::Failed, StatusDetail::Result(result))
        }
        Ok(result) => (TaskStatus::Completed, StatusDetail::Result(result)),
        Err(error) => (TaskStatus::Failed, StatusDetail::Error(error)),
    };
    Ok(DetailedTask { task: Task { status, ..task }, detail })
}

/// What a non-terminal legacy observation (`tasks/get`, `notifications/tasks/status`) becomes for the
/// record machine, or `None` for `completed` and `failed`: their outcome is not in the Task, so the
/// caller fetches it with `tasks/result` and feeds [`settle`]'s answer instead (feeding a bare terminal
/// Task would settle the record without an outcome).
///
/// `input_required` carries `pending`: the server's input requests received so far on the
/// `tasks/result` stream, keyed as [`input_key`](super::stream::input_key) makes them (empty until the
/// stream delivers one). `cancelled` carries nothing and may be fed as is.
pub fn live_observation(task: Task, pending: &InputRequests) -> Option<DetailedTask> {
    let detail = match task.status {
        TaskStatus::Working | TaskStatus::Cancelled => StatusDetail::None,
        TaskStatus::InputRequired => StatusDetail::InputRequests(pending.clone()),
        TaskStatus::Completed | TaskStatus::Failed => return None,
    };
    Some(DetailedTask { task, detail })
}

/// [`live_observation`] of a task that waits for input, with the questions its stream delivered so
/// far: until it delivered one there is nothing to answer, so the task is shown working, not asking
/// with an empty form.
pub fn waiting_observation(task: Task, pending: &InputRequests) -> Option<DetailedTask> {
    let task = if pending.is_empty() { Task { status: TaskStatus::Working, ..task } } else { task };
    live_observation(task, pending)
}
