//! `TaskSnapshot`: what a host sees of a task, built from a `TaskRecord` as plain JSON.
use crate::json::{json, Value};

use crate::machine::pending::PendingCall;
use crate::machine::record::{CancelIntent, LocalEnd, TaskRecord};
use crate::machine::stored::StoredForm;
use crate::protocol::input::encode_input_requests;
use crate::protocol::task::StatusDetail;

/// How the client is reaching the server for this task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connectivity {
    /// Polling normally.
    Online,
    /// The runtime reports no network; nothing is sent.
    Offline,
    /// Recent exchanges failed; retrying with backoff.
    Backoff,
    /// Covered by a `subscriptions/listen` stream.
    Listening,
}

impl Connectivity {
    fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::Offline => "offline",
            Self::Backoff => "backoff",
            Self::Listening => "listening",
        }
    }
}

/// The snapshot of a task.
pub fn of_record(record: &TaskRecord, offline: bool, listening: bool, restored: bool) -> Value {
    let last = record.last();
    let task = &last.task;
    let (result, error) = match &last.detail {
        StatusDetail::Result(r) => (r.to_json(), Value::Null),
        StatusDetail::Error(e) => (Value::Null, e.to_json()),
        _ => (Value::Null, Value::Null),
    };
    let connectivity = if record.is_settled() {
        Connectivity::Online
    } else if offline {
        Connectivity::Offline
    } else if record.consecutive_failures() > 0 || record.last_failure().is_some() {
        Connectivity::Backoff
    } else if listening {
        Connectivity::Listening
    } else {
        Connectivity::Online
    };
    let expired = record.local_end().map(|end| match end {
        LocalEnd::TtlElapsed => json!({ "reason": "ttl" }),
        LocalEnd::UnknownToServer { message } => json!({ "reason": "unknown_to_server", "message": message }),
    });
    json!({
        "taskId": task.task_id,
        "toolName": record.tool_name(),
        "status": record.status().as_str(),
        "statusMessage": task.status_message,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttlMs": task.ttl_ms,
        "pollIntervalMs": task.poll_interval_ms,
        "inputRequests": encode_input_requests(&record.unanswered_requests()),
        "result": result,
        "error": error,
        "nextPollAt": record.next_poll_at(),
        "connectivity": connectivity.as_str(),
        "cancelRequested": record.cancel_intent() != CancelIntent::None,
        "expired": expired,
        "lastError": record.last_failure().map(StoredForm::to_json),
        "restored": restored,
    })
}

/// The snapshot of a call whose outcome is unknown (the page died before its answer).
pub fn of_unknown_call(call: &PendingCall) -> Value {
    json!({
        "taskId": null,
        "callId": call.call_id,
        "toolName": call.tool_name,
        "status": "outcome_unknown",
        "arguments": call.arguments,
        "startedAt": call.started_at,
        "statusMessage": "The page closed before the server answered this call; it may or may not have started.",
    })
}
