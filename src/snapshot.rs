//! What a host sees of a task: [`TaskSnapshot`], built from a `TaskRecord`, and [`UnknownCallSnapshot`]
//! for a call the page closed on before its answer; [`Snapshot`] is either.
//!
//! One type, one JSON form: the client engine writes snapshots with `to_json` (the `task` and `call`
//! events, `snapshot()`, `tasks()`), the element reads them back with [`Snapshot::from_json`], and the
//! TypeScript declarations in `pkg-template/client.d.ts` name the same fields and status values (a test here
//! checks them). Pure: no wasm-bindgen, js-sys or web-sys.
use crate::json::{json, Map, Number, Value};

use crate::machine::pending::PendingCall;
use crate::machine::record::{CancelIntent, FailureNote, LocalEnd, LocalStatus, TaskRecord};
use crate::machine::stored::StoredForm;
use crate::protocol::input::{encode_input_requests, InputRequest, InputRequests};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::task::StatusDetail;
use crate::protocol::task_protocol::TaskProtocol;
use crate::protocol::tool_result::CallToolResult;
use crate::protocol::Object;

/// The status a snapshot states: a task's [`LocalStatus`], or `outcome_unknown` for a call that may
/// or may not have started a task. Written and read by name ([`SnapshotStatus::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SnapshotStatus {
    /// A task's status.
    Task(LocalStatus),
    /// A call the page closed on before its answer (an [`UnknownCallSnapshot`]).
    OutcomeUnknown,
}

impl SnapshotStatus {
    /// Every status a snapshot can state: the task statuses in lifecycle order, then `outcome_unknown`.
    pub const ALL: [SnapshotStatus; 7] = [
        Self::Task(LocalStatus::Working),
        Self::Task(LocalStatus::InputRequired),
        Self::Task(LocalStatus::Completed),
        Self::Task(LocalStatus::Failed),
        Self::Task(LocalStatus::Cancelled),
        Self::Task(LocalStatus::Expired),
        Self::OutcomeUnknown,
    ];

    /// The name in the snapshot's `status` field (and the element's `data-status`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Task(status) => status.as_str(),
            Self::OutcomeUnknown => "outcome_unknown",
        }
    }

    /// Reads a name written by [`SnapshotStatus::as_str`]; `None` for any other text.
    pub fn parse(name: &str) -> Option<SnapshotStatus> {
        if name == Self::OutcomeUnknown.as_str() {
            return Some(Self::OutcomeUnknown);
        }
        LocalStatus::parse(name).map(Self::Task)
    }

    /// Whether the task can still change (and may be answered or cancelled).
    pub fn is_live(self) -> bool {
        matches!(self, Self::Task(status) if !status.is_terminal())
    }

    /// Whether the task reached an end (a call of unknown outcome did not: nobody knows).
    pub fn is_settled(self) -> bool {
        matches!(self, Self::Task(status) if status.is_terminal())
    }
}

impl From<LocalStatus> for SnapshotStatus {
    fn from(status: LocalStatus) -> Self {
        Self::Task(status)
    }
}

/// How the client is reaching the server for this task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Connectivity {
    /// Polling normally.
    #[default]
    Online,
    /// The runtime reports no network; nothing is sent.
    Offline,
    /// Recent exchanges failed; retrying with backoff.
    Backoff,
    /// Covered by a `subscriptions/listen` stream.
    Listening,
}

impl Connectivity {
    /// Every value, in the order the TypeScript union lists them.
    pub const ALL: [Connectivity; 4] = [Self::Online, Self::Offline, Self::Backoff, Self::Listening];

    /// The name in the snapshot's `connectivity` field.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::Offline => "offline",
            Self::Backoff => "backoff",
            Self::Listening => "listening",
        }
    }

    /// Reads a name written by [`Connectivity::as_str`]; `None` for any other text.
    pub fn parse(name: &str) -> Option<Connectivity> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// The snapshot of a task (TypeScript `TaskSnapshot`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSnapshot {
    /// `taskId`: the server's task id.
    pub task_id: String,
    /// `toolName`: the tool whose call created the task.
    pub tool_name: String,
    /// `status`.
    pub status: LocalStatus,
    /// `statusMessage`: the server's free text about the current state.
    pub status_message: Option<String>,
    /// `createdAt`, as the server wrote it (ISO 8601).
    pub created_at: String,
    /// `lastUpdatedAt`, as the server wrote it (ISO 8601).
    pub last_updated_at: String,
    /// `ttlMs`; `None` is unlimited.
    pub ttl_ms: Option<u64>,
    /// `pollIntervalMs`, the server's latest advice.
    pub poll_interval_ms: Option<u64>,
    /// `inputRequests`: only the requests still unanswered.
    pub input_requests: InputRequests,
    /// `result` of a completed task.
    pub result: Option<CallToolResult>,
    /// `error` of a failed task.
    pub error: Option<RpcError>,
    /// `nextPollAt` (Unix ms), while the task is live.
    pub next_poll_at: Option<u64>,
    /// `connectivity`.
    pub connectivity: Connectivity,
    /// `cancelRequested`: the host asked to cancel.
    pub cancel_requested: bool,
    /// `expired`: why an `expired` task ended on the client's side.
    pub expired: Option<LocalEnd>,
    /// `lastError`: the last failed exchange since the last success.
    pub last_error: Option<FailureNote>,
    /// `restored`: the task was read back from the store when the client opened.
    pub restored: bool,
    /// `protocol`: the task design the task lives under, `"2026-07-28"` or `"2025-11-25"`.
    pub protocol: TaskProtocol,
    /// `progress`: the latest progress and total of a live 2025-11-25 task, as the server wrote them.
    pub progress: Option<(Number, Option<Number>)>,
    /// `ui`: the tool's `_meta.ui` (its MCP App's `resourceUri`, …), as its listing or call gave it.
    pub ui: Option<Value>,
}

impl TaskSnapshot {
    /// The snapshot of `record`, given whether the runtime is offline, whether a listen stream covers the
    /// task, and whether it was restored from the store.
    pub fn of_record(record: &TaskRecord, offline: bool, listening: bool, restored: bool) -> TaskSnapshot {
        let last = record.last();
        let task = &last.task;
        let (result, error) = match &last.detail {
            StatusDetail::Result(r) => (Some(r.clone()), None),
            StatusDetail::Error(e) => (None, Some(e.clone())),
            _ => (None, None),
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
        TaskSnapshot {
            task_id: task.task_id.clone(),
            tool_name: record.tool_name().to_owned(),
            status: record.status(),
            status_message: task.status_message.clone(),
            created_at: task.created_at.clone(),
            last_updated_at: task.last_updated_at.clone(),
            ttl_ms: task.ttl_ms,
            poll_interval_ms: task.poll_interval_ms,
            input_requests: record.unanswered_requests(),
            result,
            error,
            next_poll_at: record.next_poll_at(),
            connectivity,
            cancel_requested: record.cancel_intent() != CancelIntent::None,
            expired: record.local_end().cloned(),
            last_error: record.last_failure().cloned(),
            restored,
            protocol: record.protocol(),
            progress: record.progress().map(|(p, t)| (p.clone(), t.cloned())),
            ui: record.ui().cloned(),
        }
    }

    /// The JSON a host receives: every field, in this order, absent values as `null`.
    pub fn to_json(&self) -> Value {
        let status = self.status.as_str();
        let input_requests = encode_input_requests(&self.input_requests);
        let result = self.result.as_ref().map_or(Value::Null, CallToolResult::to_json);
        let error = self.error.as_ref().map_or(Value::Null, RpcError::to_json);
        let connectivity = self.connectivity.as_str();
        let expired = self.expired.as_ref().map_or(Value::Null, expired_to_json);
        let last_error = self.last_error.as_ref().map_or(Value::Null, StoredForm::to_json);
        let progress = self.progress.as_ref().map_or(Value::Null, |(progress, total)| {
            let mut value = Map::new();
            value.put("progress", Value::Number(progress.clone()));
            value.put("total", total.clone().map_or(Value::Null, Value::Number));
            Value::Object(value)
        });
        json!({
            "taskId": self.task_id,
            "toolName": self.tool_name,
            "status": status,
            "statusMessage": self.status_message,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_interval_ms,
            "inputRequests": input_requests,
            "result": result,
            "error": error,
            "nextPollAt": self.next_poll_at,
            "connectivity": connectivity,
            "cancelRequested": self.cancel_requested,
            "expired": expired,
            "lastError": last_error,
            "restored": self.restored,
            "protocol": self.protocol.version(),
            "progress": progress,
            "ui": self.ui,
        })
    }

    /// Reads a task snapshot back (see [`Snapshot::from_json`] for what is tolerated); `None` for a
    /// call's snapshot too.
    pub fn from_json(value: &Value) -> Option<TaskSnapshot> {
        match Snapshot::from_json(value)? {
            Snapshot::Task(task) => Some(*task),
            Snapshot::UnknownCall(_) => None,
        }
    }

    fn read(obj: &Object, status: LocalStatus) -> Option<TaskSnapshot> {
        let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_owned);
        let millis = |key: &str| obj.get(key).and_then(Value::as_u64);
        let flag = |key: &str| obj.get(key).and_then(Value::as_bool).unwrap_or(false);
        let part = |key: &str| obj.get(key).filter(|v| !v.is_null());
        Some(TaskSnapshot {
            task_id: text("taskId")?,
            tool_name: text("toolName").unwrap_or_default(),
            status,
            status_message: text("statusMessage"),
            created_at: text("createdAt").unwrap_or_default(),
            last_updated_at: text("lastUpdatedAt").unwrap_or_default(),
            ttl_ms: millis("ttlMs"),
            poll_interval_ms: millis("pollIntervalMs"),
            input_requests: part("inputRequests").map(read_requests).unwrap_or_default(),
            result: part("result").and_then(|r| CallToolResult::from_json(r).ok()),
            error: part("error").and_then(|e| RpcError::from_json(e).ok()),
            next_poll_at: millis("nextPollAt"),
            connectivity: obj
                .get("connectivity")
                .and_then(Value::as_str)
                .and_then(Connectivity::parse)
                .unwrap_or_default(),
            cancel_requested: flag("cancelRequested"),
            expired: part("expired").map(expired_from_json),
            last_error: part("lastError").and_then(|e| FailureNote::from_json(e).ok()),
            restored: flag("restored"),
            protocol: text("protocol").and_then(|v| TaskProtocol::from_version(&v)).unwrap_or_default(),
            progress: part("progress").and_then(|p| {
                let number = |key: &str| match p.get(key) {
                    Some(Value::Number(n)) => Some(n.clone()),
                    _ => None,
                };
                Some((number("progress")?, number("total")))
            }),
            // Not read back: the card, which reads snapshots, draws no app.
            ui: None,
        })
    }
}

/// What a call of unknown outcome says, in the snapshot's `statusMessage`.
const UNKNOWN_CALL_MESSAGE: &str =
    "The page closed before the server answered this call; it may or may not have started.";

/// The snapshot of a call the page closed on before its answer arrived (TypeScript
/// `UnknownCallSnapshot`): it may or may not have started a task. Its `status` is `outcome_unknown` and
/// its `taskId` `null`.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownCallSnapshot {
    /// `callId`: the client's id for the call.
    pub call_id: String,
    /// `toolName`.
    pub tool_name: String,
    /// `arguments` the tool was called with, so a host can offer to call again.
    pub arguments: Option<Object>,
    /// `startedAt` (Unix ms).
    pub started_at: u64,
    /// `statusMessage`: what the outcome being unknown means.
    pub status_message: String,
}

impl UnknownCallSnapshot {
    /// The snapshot of `call`.
    pub fn of_call(call: &PendingCall) -> UnknownCallSnapshot {
        UnknownCallSnapshot {
            call_id: call.call_id.clone(),
            tool_name: call.tool_name.clone(),
            arguments: call.arguments.clone(),
            started_at: call.started_at,
            status_message: UNKNOWN_CALL_MESSAGE.to_owned(),
        }
    }

    /// The JSON a host receives.
    pub fn to_json(&self) -> Value {
        let status = SnapshotStatus::OutcomeUnknown.as_str();
        json!({
            "taskId": null,
            "callId": self.call_id,
            "toolName": self.tool_name,
            "status": status,
            "arguments": self.arguments,
            "startedAt": self.started_at,
            "statusMessage": self.status_message,
        })
    }

    fn read(obj: &Object) -> Option<UnknownCallSnapshot> {
        let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(UnknownCallSnapshot {
            call_id: text("callId")?,
            tool_name: text("toolName").unwrap_or_default(),
            arguments: obj.get("arguments").and_then(Value::as_object).cloned(),
            started_at: obj.get("startedAt").and_then(Value::as_u64).unwrap_or_default(),
            status_message: text("statusMessage").unwrap_or_default(),
        })
    }
}

/// A task's or a call's snapshot, as the client's `tasks()` lists them.
#[derive(Debug, Clone, PartialEq)]
pub enum Snapshot {
    /// A task (boxed: it is several times the size of a call's).
    Task(Box<TaskSnapshot>),
    /// A call of unknown outcome.
    UnknownCall(UnknownCallSnapshot),
}

impl Snapshot {
    /// Reads a snapshot a host or an event handed over. Tolerant: `None` only when `value` is not an
    /// object, its `status` is not one of [`SnapshotStatus::ALL`], or it has no id (`taskId`, or `callId`
    /// for a call); any other field that is missing or unreadable takes its empty value (`""`, `null`,
    /// `false`, no requests), and an input request this version cannot read is kept as
    /// [`InputRequest::Other`] under its method.
    pub fn from_json(value: &Value) -> Option<Snapshot> {
        let obj = value.as_object()?;
        match SnapshotStatus::parse(obj.get("status")?.as_str()?)? {
            SnapshotStatus::Task(status) => TaskSnapshot::read(obj, status).map(|task| Snapshot::Task(Box::new(task))),
            SnapshotStatus::OutcomeUnknown => UnknownCallSnapshot::read(obj).map(Snapshot::UnknownCall),
        }
    }

    /// The JSON a host receives.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Task(task) => task.to_json(),
            Self::UnknownCall(call) => call.to_json(),
        }
    }

    /// The status stated.
    pub fn status(&self) -> SnapshotStatus {
        match self {
            Self::Task(task) => SnapshotStatus::Task(task.status),
            Self::UnknownCall(_) => SnapshotStatus::OutcomeUnknown,
        }
    }

    /// The id a list keys it by: the task id, or the call id.
    pub fn id(&self) -> &str {
        match self {
            Self::Task(task) => &task.task_id,
            Self::UnknownCall(call) => &call.call_id,
        }
    }

    /// The tool's name.
    pub fn tool_name(&self) -> &str {
        match self {
            Self::Task(task) => &task.tool_name,
            Self::UnknownCall(call) => &call.tool_name,
        }
    }
}

/// `{"reason": "ttl"}` or `{"reason": "unknown_to_server", "message": …}` (the stored form of
/// [`LocalEnd`] spells its reasons differently; this is the host's).
fn expired_to_json(end: &LocalEnd) -> Value {
    match end {
        LocalEnd::TtlElapsed => json!({ "reason": "ttl" }),
        LocalEnd::UnknownToServer { message } => json!({ "reason": "unknown_to_server", "message": message }),
    }
}

/// Any `expired` object other than `unknown_to_server` reads as past its TTL.
fn expired_from_json(value: &Value) -> LocalEnd {
    match value.get("reason").and_then(Value::as_str) {
        Some("unknown_to_server") => LocalEnd::UnknownToServer {
            message: value.get("message").and_then(Value::as_str).unwrap_or_default().to_owned(),
        },
        _ => LocalEnd::TtlElapsed,
    }
}

fn read_requests(value: &Value) -> InputRequests {
    let mut read = InputRequests::new();
    let Some(requests) = value.as_object() else { return read };
    for (key, request) in requests.iter() {
        let request = InputRequest::from_json(request).unwrap_or_else(|_| InputRequest::Other {
            method: request.get("method").and_then(Value::as_str).unwrap_or_default().to_owned(),
            params: request.get("params").filter(|p| !p.is_null()).cloned(),
        });
        read.insert(key.to_owned(), request);
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::backoff::{Failure, PollPolicy};
    use crate::protocol::input::{ElicitRequest, InputResponse, InputResponses};
    use crate::protocol::task::{DetailedTask, Task, TaskStatus};

    /// 2026-08-01T09:00:00Z.
    const T0: u64 = 1_785_574_800_000;

    fn policy() -> PollPolicy {
        PollPolicy {
            min_interval_ms: 250,
            default_interval_ms: 1_000,
            backoff_base_ms: 1_000,
            max_backoff_ms: 8_000,
            expiry_grace_ms: 60_000,
            pushed_backstop_ms: 60_000,
        }
    }

    fn task(status: TaskStatus, message: Option<&str>, updated: &str) -> Task {
        Task {
            task_id: "tsk-1".into(),
            status,
            status_message: message.map(str::to_owned),
            created_at: "2026-08-01T09:00:00Z".into(),
            last_updated_at: updated.into(),
            ttl_ms: Some(600_000),
            poll_interval_ms: Some(500),
        }
    }

    fn record() -> TaskRecord {
        TaskRecord::from_handle(T0, "deploy", task(TaskStatus::Working, None, "2026-08-01T09:00:00Z"), 7, &policy())
    }

    fn observe(r: &mut TaskRecord, status: TaskStatus, message: Option<&str>, detail: StatusDetail) {
        let seen = DetailedTask { task: task(status, message, "2026-08-01T09:00:05Z"), detail };
        let _ = r.on_poll_result(T0 + 500, seen, &policy());
    }

    /// Sample records in every state a snapshot shows, with the `(offline, listening, restored)` flags
    /// their snapshots are taken with.
    fn samples() -> Vec<(&'static str, TaskRecord, [bool; 3])> {
        let mut asking = record();
        let form = ElicitRequest::Form {
            message: "Approve?".into(),
            requested_schema: json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } }),
        };
        let url = ElicitRequest::Url { message: "Pay".into(), url: "https://pay.example/x".into() };
        let requests: InputRequests = [
            ("a".to_owned(), InputRequest::Elicitation(form)),
            ("b".to_owned(), InputRequest::Elicitation(url)),
            ("c".to_owned(), InputRequest::Other { method: "future/thing".into(), params: None }),
        ]
        .into_iter()
        .collect();
        observe(&mut asking, TaskStatus::InputRequired, Some("Waiting"), StatusDetail::InputRequests(requests));
        let content = json!({ "ok": true }).as_object().cloned().unwrap_or_default();
        let answers: InputResponses = [("a".to_owned(), InputResponse::accept(content))].into_iter().collect();
        assert!(asking.answer(answers).is_ok());

        let mut backing_off = record();
        let _ = backing_off.on_poll_failure(
            T0 + 500,
            Failure::Http { status: 503, retry_after_ms: Some(2_000) },
            &policy(),
        );

        let mut failed = record();
        let error =
            RpcError { code: -32000, message: "Deployment rejected".into(), data: Some(json!({ "why": "quota" })) };
        observe(&mut failed, TaskStatus::Failed, Some("Stopped"), StatusDetail::Error(error));

        let mut completed = record();
        let result = CallToolResult {
            content: vec![json!({ "type": "text", "text": "done <b>ok</b>" })],
            structured_content: Some(json!({ "replicas": 3 })),
            is_error: Some(false),
            meta: Some(json!({ "trace": "x" })),
        };
        observe(&mut completed, TaskStatus::Completed, None, StatusDetail::Result(result));
        completed.ui = Some(json!({ "resourceUri": "ui://deploy/app.html", "visibility": ["model", "app"] }));

        let mut unknown = record();
        let _ = unknown.on_poll_failure(T0 + 500, Failure::Timeout, &policy());
        let _ = unknown.on_task_unknown("Task not found");

        let mut ttl = record();
        let _ = ttl.tick(T0 + 3_600_000, &policy());

        let mut cancelling = record();
        assert!(cancelling.request_cancel().is_ok());

        let mut reporting = record().with_protocol(TaskProtocol::Legacy);
        reporting.set_progress_token("call-1".into());
        let number = |text: &str| text.parse::<Number>().unwrap();
        assert!(reporting.on_progress(number("1"), Some(number("3"))));
        assert!(reporting.on_progress(number("2.50"), Some(number("3"))));
        assert!(!reporting.on_progress(number("2"), Some(number("3"))), "an older progress arriving late is ignored");

        vec![
            ("input_required, one answer queued, restored and listening", asking, [false, true, true]),
            ("working, backing off", backing_off, [false; 3]),
            ("failed", failed, [false, true, false]),
            ("completed", completed, [true, false, false]),
            ("expired, unknown to the server", unknown, [false; 3]),
            ("expired, past its TTL", ttl, [false; 3]),
            ("working, cancel requested, offline", cancelling, [true, false, false]),
            ("working, 2025-11-25, 2.50 of 3 reported", reporting, [false; 3]),
        ]
    }

    fn calls() -> Vec<PendingCall> {
        let arguments = json!({ "seconds": 1 }).as_object().cloned();
        vec![
            PendingCall { call_id: "c1".into(), tool_name: "build".into(), arguments, started_at: T0 },
            PendingCall { call_id: "c2".into(), tool_name: "lint".into(), arguments: None, started_at: T0 + 1 },
        ]
    }

    /// The JSON the client wrote for the samples before the snapshot had a type, byte for byte: hosts and
    /// the browser tests read these keys, in this order.
    const PINNED: [&str; 10] = [
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"input_required","statusMessage":"Waiting","createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:05Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{"b":{"method":"elicitation/create","params":{"mode":"url","message":"Pay","url":"https://pay.example/x"}},"c":{"method":"future/thing"}},"result":null,"error":null,"nextPollAt":1785574801000,"connectivity":"listening","cancelRequested":false,"expired":null,"lastError":null,"restored":true,"protocol":"2026-07-28","progress":null,"ui":null}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"working","statusMessage":null,"createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":null,"error":null,"nextPollAt":1785574802500,"connectivity":"backoff","cancelRequested":false,"expired":null,"lastError":{"at":1785574800500,"failure":{"kind":"http","status":503,"retryAfterMs":2000}},"restored":false,"protocol":"2026-07-28","progress":null,"ui":null}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"failed","statusMessage":"Stopped","createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:05Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":null,"error":{"code":-32000,"message":"Deployment rejected","data":{"why":"quota"}},"nextPollAt":null,"connectivity":"online","cancelRequested":false,"expired":null,"lastError":null,"restored":false,"protocol":"2026-07-28","progress":null,"ui":null}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"completed","statusMessage":null,"createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:05Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":{"resultType":"complete","content":[{"type":"text","text":"done <b>ok</b>"}],"structuredContent":{"replicas":3},"isError":false,"_meta":{"trace":"x"}},"error":null,"nextPollAt":null,"connectivity":"online","cancelRequested":false,"expired":null,"lastError":null,"restored":false,"protocol":"2026-07-28","progress":null,"ui":{"resourceUri":"ui://deploy/app.html","visibility":["model","app"]}}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"expired","statusMessage":null,"createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":null,"error":null,"nextPollAt":null,"connectivity":"online","cancelRequested":false,"expired":{"reason":"unknown_to_server","message":"Task not found"},"lastError":{"at":1785574800500,"failure":{"kind":"timeout"}},"restored":false,"protocol":"2026-07-28","progress":null,"ui":null}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"expired","statusMessage":null,"createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":null,"error":null,"nextPollAt":null,"connectivity":"online","cancelRequested":false,"expired":{"reason":"ttl"},"lastError":null,"restored":false,"protocol":"2026-07-28","progress":null,"ui":null}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"working","statusMessage":null,"createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":null,"error":null,"nextPollAt":1785574800500,"connectivity":"offline","cancelRequested":true,"expired":null,"lastError":null,"restored":false,"protocol":"2026-07-28","progress":null,"ui":null}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","status":"working","statusMessage":null,"createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:00Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{},"result":null,"error":null,"nextPollAt":1785574800500,"connectivity":"online","cancelRequested":false,"expired":null,"lastError":null,"restored":false,"protocol":"2025-11-25","progress":{"progress":2.50,"total":3},"ui":null}"#,
        r#"{"taskId":null,"callId":"c1","toolName":"build","status":"outcome_unknown","arguments":{"seconds":1},"startedAt":1785574800000,"statusMessage":"The page closed before the server answered this call; it may or may not have started."}"#,
        r#"{"taskId":null,"callId":"c2","toolName":"lint","status":"outcome_unknown","arguments":null,"startedAt":1785574800001,"statusMessage":"The page closed before the server answered this call; it may or may not have started."}"#,
    ];

    fn all_snapshots() -> Vec<(&'static str, Snapshot)> {
        let tasks = samples().into_iter().map(|(name, record, [offline, listening, restored])| {
            (name, Snapshot::Task(Box::new(TaskSnapshot::of_record(&record, offline, listening, restored))))
        });
        let calls =
            calls().into_iter().map(|call| ("call", Snapshot::UnknownCall(UnknownCallSnapshot::of_call(&call))));
        tasks.chain(calls).collect()
    }

    #[test]
    fn the_json_is_what_the_client_always_wrote() {
        let snapshots = all_snapshots();
        assert_eq!(snapshots.len(), PINNED.len());
        for ((name, snapshot), pinned) in snapshots.iter().zip(PINNED) {
            assert_eq!(snapshot.to_json().to_string(), pinned, "{name}");
        }
    }

    #[test]
    fn every_snapshot_reads_back_as_itself() {
        for (name, mut snapshot) in all_snapshots() {
            // `ui` is written for hosts and not read back: the card, which reads snapshots, draws no app.
            if let Snapshot::Task(task) = &mut snapshot {
                task.ui = None;
            }
            let json = snapshot.to_json();
            let read = Snapshot::from_json(&json);
            assert_eq!(read.as_ref(), Some(&snapshot), "{name}");
            assert_eq!(read.map(|s| s.to_json()), Some(json), "{name}");
        }
    }

    #[test]
    fn reading_is_tolerant_but_needs_a_known_status_and_an_id() {
        let bare = json!({ "taskId": "t", "status": "working" });
        let Some(Snapshot::Task(t)) = Snapshot::from_json(&bare) else { panic!("a bare task snapshot reads") };
        assert_eq!((t.tool_name.as_str(), t.connectivity, t.result, t.expired), ("", Connectivity::Online, None, None));
        let odd = json!({ "taskId": "t", "status": "expired", "connectivity": "warp", "expired": { "reason": "?" },
                          "inputRequests": { "x": { "method": "elicitation/create", "params": { "mode": "fax" } } },
                          "result": { "content": "not a list" }, "error": { "message": "no code" } });
        let Some(Snapshot::Task(t)) = Snapshot::from_json(&odd) else { panic!("an odd task snapshot reads") };
        assert_eq!(
            (t.connectivity, t.expired, t.result, t.error),
            (Connectivity::Online, Some(LocalEnd::TtlElapsed), None, None)
        );
        let kept = InputRequest::Other { method: "elicitation/create".into(), params: Some(json!({ "mode": "fax" })) };
        assert_eq!(t.input_requests.get("x"), Some(&kept));
        for refused in [
            json!([]),
            json!({ "taskId": "t" }),
            json!({ "taskId": "t", "status": "paused" }),
            json!({ "status": "working" }),
            json!({ "taskId": null, "status": "outcome_unknown" }),
        ] {
            assert_eq!(Snapshot::from_json(&refused), None, "{refused}");
        }
        let call = json!({ "callId": "c", "status": "outcome_unknown" });
        assert_eq!(
            Snapshot::from_json(&call).map(|s| (s.status(), s.id().to_owned())),
            Some((SnapshotStatus::OutcomeUnknown, "c".into()))
        );
    }

    #[test]
    fn statuses_read_back_by_name_and_say_live_or_settled() {
        for status in SnapshotStatus::ALL {
            assert_eq!(SnapshotStatus::parse(status.as_str()), Some(status));
        }
        for status in LocalStatus::ALL {
            assert_eq!(LocalStatus::parse(status.as_str()), Some(status));
        }
        let live: Vec<&str> =
            SnapshotStatus::ALL.into_iter().filter(|s| s.is_live()).map(SnapshotStatus::as_str).collect();
        let settled: Vec<&str> =
            SnapshotStatus::ALL.into_iter().filter(|s| s.is_settled()).map(SnapshotStatus::as_str).collect();
        assert_eq!(live, ["working", "input_required"]);
        assert_eq!(settled, ["completed", "failed", "cancelled", "expired"]);
        assert_eq!(SnapshotStatus::parse("unknown"), None);
    }

    /// The quoted strings of the first `marker …;` (a TypeScript union or field) in `source`.
    fn quoted_after<'a>(source: &'a str, marker: &str) -> Vec<&'a str> {
        let start = source.find(marker).unwrap_or_else(|| panic!("`{marker}` is declared")) + marker.len();
        let rest = &source[start..];
        let declaration = &rest[..rest.find(';').unwrap_or(rest.len())];
        declaration.split('"').skip(1).step_by(2).collect()
    }

    #[test]
    fn the_typescript_declarations_name_the_same_values() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/client.d.ts");
        let ts = std::fs::read_to_string(path).expect("pkg-template/client.d.ts is readable");
        let statuses: Vec<&str> = LocalStatus::ALL.into_iter().map(LocalStatus::as_str).collect();
        assert_eq!(quoted_after(&ts, "export type TaskStatus ="), statuses);
        let connectivity: Vec<&str> = Connectivity::ALL.into_iter().map(Connectivity::as_str).collect();
        assert_eq!(quoted_after(&ts, "export type Connectivity ="), connectivity);
        let call = &ts[ts.find("export interface UnknownCallSnapshot").expect("UnknownCallSnapshot is declared")..];
        assert_eq!(quoted_after(call, "status:"), [SnapshotStatus::OutcomeUnknown.as_str()]);
        let reasons: Vec<String> = [LocalEnd::TtlElapsed, LocalEnd::UnknownToServer { message: String::new() }]
            .iter()
            .filter_map(|end| expired_to_json(end)["reason"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(quoted_after(&ts, "expired: { reason:"), reasons);
    }

    #[test]
    fn the_typescript_task_snapshot_has_every_field_in_order() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/client.d.ts");
        let ts = std::fs::read_to_string(path).expect("pkg-template/client.d.ts is readable");
        let start = ts.find("export interface TaskSnapshot {").expect("TaskSnapshot is declared");
        let body = &ts[start..start + ts[start..].find("\n}").unwrap_or(0)];
        let declared: Vec<&str> = body
            .lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| !l.starts_with("/**") && !l.starts_with('*'))
            .filter_map(|l| l.split(':').next())
            .collect();
        let Some(Snapshot::Task(task)) = all_snapshots().into_iter().map(|(_, s)| s).next() else { panic!("a task") };
        let written: Vec<String> = match task.to_json() {
            Value::Object(map) => map.keys().map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        assert_eq!(declared, written);
    }
}
