//! The three answers to `tools/call`: a result, an MRTR request for input, or a task handle.
use crate::json::Value;

use super::fields::{self, Object};
use super::input::{decode_input_requests, encode_input_requests, InputRequests};
use super::result_type::{read_result_type, ResultType};
use super::task::Task;
use super::tool_result::CallToolResult;
use super::DecodeError;

/// What a `tools/call` (sent with the Tasks extension declared) may return.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallOutcome {
    /// The tool ran synchronously.
    Complete(CallToolResult),
    /// MRTR: answer these and retry the call (new id, same params).
    InputRequired(InputRequiredResult),
    /// A durable task: poll it with `tasks/get`.
    Task(Task),
}

/// `InputRequiredResult`: at least one of `inputRequests` and `requestState`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequiredResult {
    /// What the server asks; answer every key before retrying.
    pub input_requests: Option<InputRequests>,
    /// Opaque server state, echoed byte for byte on the retry and never parsed.
    pub request_state: Option<String>,
}

impl InputRequiredResult {
    /// The result as on the wire.
    pub(crate) fn to_json(&self) -> Value {
        let mut obj = Object::new();
        obj.put("resultType", Value::from(ResultType::InputRequired.as_str()));
        if let Some(r) = &self.input_requests {
            obj.put("inputRequests", encode_input_requests(r));
        }
        if let Some(s) = &self.request_state {
            obj.put("requestState", Value::from(s.as_str()));
        }
        Value::Object(obj)
    }

    fn from_object(obj: &Object) -> Result<Self, DecodeError> {
        const WHAT: &str = "InputRequiredResult";
        let input_requests = match obj.get("inputRequests") {
            None | Some(Value::Null) => None,
            Some(v) => Some(decode_input_requests(v)?),
        };
        let request_state = fields::optional_str(obj, WHAT, "requestState")?.map(str::to_owned);
        if input_requests.is_none() && request_state.is_none() {
            return Err(DecodeError::Invalid {
                what: WHAT,
                detail: "carries neither inputRequests nor requestState".into(),
            });
        }
        Ok(Self { input_requests, request_state })
    }
}

impl ToolCallOutcome {
    /// The result as on the wire (server side).
    pub fn to_json(&self) -> Value {
        match self {
            Self::Complete(r) => r.to_json(),
            Self::InputRequired(r) => r.to_json(),
            Self::Task(t) => t.to_create_result(),
        }
    }
}

/// Decodes a `tools/call` result.
///
/// Tolerant where real servers differ: a missing `resultType` reads as `complete`; a handle may be flat
/// (the spec) or nested under `task` (as some docs show), as long as it uses 2026 field names. A nested
/// handle without `resultType` is the 2025-11-25 shape and is reported as legacy.
pub fn decode_tool_call_result(value: &Value) -> Result<ToolCallOutcome, DecodeError> {
    const WHAT: &str = "tools/call result";
    let obj = fields::object(value, WHAT)?;
    let declared = obj.get("resultType").filter(|v| !v.is_null()).is_some();
    match read_result_type(obj)? {
        ResultType::Task => decode_task_handle(obj).map(ToolCallOutcome::Task),
        ResultType::InputRequired => InputRequiredResult::from_object(obj).map(ToolCallOutcome::InputRequired),
        ResultType::Complete => {
            if !declared && !obj.contains_key("content") {
                if let Some(Value::Object(_)) = obj.get("task") {
                    return Err(DecodeError::LegacyShape { detail: "a `task` object without resultType" });
                }
            }
            CallToolResult::from_object(obj).map(ToolCallOutcome::Complete)
        }
    }
}

/// Reads a `CreateTaskResult`, flat or nested under `task`.
fn decode_task_handle(obj: &Object) -> Result<Task, DecodeError> {
    const WHAT: &str = "CreateTaskResult";
    if !obj.contains_key("taskId") {
        if let Some(Value::Object(inner)) = obj.get("task") {
            return Task::from_object(inner, WHAT);
        }
    }
    Task::from_object(obj, WHAT)
}
