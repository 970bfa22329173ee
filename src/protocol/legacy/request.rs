//! The requests a client sends in the 2025-11-25 flow after `initialize`, as JSON-RPC envelopes.
use crate::json::{json, Value};

use super::super::fields::Object;
use super::super::jsonrpc::RequestId;

/// `params.task` of a `tools/call`: the client asks for a task, optionally with a lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskParams {
    /// Requested retention from creation, in ms; the server may grant another (its `ttl` is the truth).
    pub ttl_ms: Option<u64>,
}

impl TaskParams {
    /// The object as on the wire: `{}` or `{ttl}`.
    fn to_json(self) -> Value {
        let mut obj = Object::new();
        if let Some(ttl) = self.ttl_ms {
            obj.put("ttl", Value::from(ttl));
        }
        Value::Object(obj)
    }
}

/// `tools/call` params in the legacy flow.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyCallTool {
    /// The tool to call.
    pub name: String,
    /// Tool arguments.
    pub arguments: Option<Object>,
    /// `params.task`: present only when [`attach_task`](super::tools::attach_task) says so.
    pub task: Option<TaskParams>,
    /// `params._meta.progressToken`: in 2025-11-25 it stays valid for the whole task.
    pub progress_token: Option<Value>,
}

/// A request of the legacy flow (the handshake has its own encoders in [`super::handshake`]).
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyRequest {
    /// `tools/list`: one page of tools, with their `taskSupport` flags.
    ListTools {
        /// The page to read.
        cursor: Option<String>,
    },
    /// `tools/call`, with or without `params.task`.
    CallTool(LegacyCallTool),
    /// `tasks/get`: the Task only, never its outcome.
    GetTask {
        /// The task to read.
        task_id: String,
    },
    /// `tasks/result`: blocks until the task is terminal, then answers with its outcome; its SSE stream
    /// also carries the server's requests for input.
    TaskResult {
        /// The task whose outcome to fetch.
        task_id: String,
    },
    /// `tasks/cancel`.
    CancelTask {
        /// The task to cancel.
        task_id: String,
    },
    /// `tasks/list` (only when the server declared `tasks.list`).
    ListTasks {
        /// The page to read.
        cursor: Option<String>,
    },
    /// `resources/read`.
    ReadResource {
        /// The resource's URI.
        uri: String,
    },
}

impl LegacyRequest {
    /// The JSON-RPC method.
    pub fn method(&self) -> &'static str {
        match self {
            Self::ListTools { .. } => "tools/list",
            Self::CallTool(_) => "tools/call",
            Self::GetTask { .. } => "tasks/get",
            Self::TaskResult { .. } => "tasks/result",
            Self::CancelTask { .. } => "tasks/cancel",
            Self::ListTasks { .. } => "tasks/list",
            Self::ReadResource { .. } => "resources/read",
        }
    }

    /// `params` (always an object; `{}` when there is nothing to say, as the SDK sends).
    pub fn params(&self) -> Value {
        let mut obj = Object::new();
        match self {
            Self::ListTools { cursor } | Self::ListTasks { cursor } => {
                if let Some(c) = cursor {
                    obj.put("cursor", Value::from(c.as_str()));
                }
            }
            Self::CallTool(call) => {
                obj.put("name", Value::from(call.name.as_str()));
                if let Some(args) = &call.arguments {
                    obj.put("arguments", Value::Object(args.clone()));
                }
                if let Some(task) = call.task {
                    obj.put("task", task.to_json());
                }
                if let Some(token) = &call.progress_token {
                    obj.put("_meta", json!({ "progressToken": token }));
                }
            }
            Self::GetTask { task_id } | Self::TaskResult { task_id } | Self::CancelTask { task_id } => {
                obj.put("taskId", Value::from(task_id.as_str()));
            }
            Self::ReadResource { uri } => obj.put("uri", Value::from(uri.as_str())),
        }
        Value::Object(obj)
    }

    /// The whole JSON-RPC request.
    pub fn envelope(&self, id: &RequestId) -> Value {
        // Plain inserts, not `json!`, which would copy the params it borrows.
        let mut message = Object::new();
        message.put("jsonrpc", Value::from("2.0"));
        message.put("id", id.to_json());
        message.put("method", Value::from(self.method()));
        message.put("params", self.params());
        Value::Object(message)
    }
}
