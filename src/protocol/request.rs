//! Every request a task client sends: its method, routing name, params, envelope and HTTP headers —
//! and, for servers, the decoder that reads them back.
use crate::json::Value;

use super::fields::{self, Object};
use super::headers::request_headers;
use super::input::{decode_input_responses, encode_input_responses, InputResponses};
use super::jsonrpc::RequestId;
use super::meta::RequestMeta;
use super::subscriptions::ListenFilter;
use super::task::DetailedTask;
use super::DecodeError;

/// `tools/call` params.
#[derive(Debug, Clone, PartialEq)]
pub struct CallToolParams {
    /// The tool to call; also the `Mcp-Name` header.
    pub name: String,
    /// Tool arguments.
    pub arguments: Option<Object>,
    /// MRTR retry only: answers to the previous round's `inputRequests`.
    pub input_responses: Option<InputResponses>,
    /// MRTR retry only: the previous round's `requestState`, byte for byte.
    pub request_state: Option<String>,
}

impl CallToolParams {
    /// A first call (no MRTR fields).
    pub fn new(name: impl Into<String>, arguments: Option<Object>) -> Self {
        Self { name: name.into(), arguments, input_responses: None, request_state: None }
    }
}

/// A request from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientRequest {
    /// `server/discover`.
    Discover,
    /// `tools/call`, the only method that may become a task.
    CallTool(CallToolParams),
    /// `tasks/get`: a pure read, safe to repeat.
    GetTask {
        /// The task to read.
        task_id: String,
    },
    /// `tasks/update`: answers to outstanding `inputRequests`.
    UpdateTask {
        /// The task to answer.
        task_id: String,
        /// Answers keyed as the task's `inputRequests`.
        input_responses: InputResponses,
    },
    /// `tasks/cancel`: a cooperative request, not a guarantee.
    CancelTask {
        /// The task to cancel.
        task_id: String,
    },
    /// `subscriptions/listen`: a long-lived SSE stream of notifications.
    Listen(ListenFilter),
    /// `tools/list`: one page of the server's tools.
    ListTools {
        /// The page to read (`nextCursor` of the previous page).
        cursor: Option<String>,
    },
    /// `resources/read`: one resource (an MCP App's `ui://` document, say).
    ReadResource {
        /// The resource's URI; also the `Mcp-Name` header.
        uri: String,
    },
}

impl ClientRequest {
    /// The JSON-RPC method (also the `Mcp-Method` header).
    pub fn method(&self) -> &'static str {
        match self {
            Self::Discover => "server/discover",
            Self::CallTool(_) => "tools/call",
            Self::GetTask { .. } => "tasks/get",
            Self::UpdateTask { .. } => "tasks/update",
            Self::CancelTask { .. } => "tasks/cancel",
            Self::Listen(_) => "subscriptions/listen",
            Self::ListTools { .. } => "tools/list",
            Self::ReadResource { .. } => "resources/read",
        }
    }

    /// The `Mcp-Name` value: the tool name for `tools/call`, the taskId for `tasks/*`, the URI for
    /// `resources/read`.
    pub fn routing_name(&self) -> Option<&str> {
        match self {
            Self::CallTool(p) => Some(&p.name),
            Self::ReadResource { uri } => Some(uri),
            Self::GetTask { task_id } | Self::UpdateTask { task_id, .. } | Self::CancelTask { task_id } => {
                Some(task_id)
            }
            Self::Discover | Self::Listen(_) | Self::ListTools { .. } => None,
        }
    }

    /// The HTTP headers this request needs, values encoded for the wire.
    pub fn http_headers(&self) -> Vec<(&'static str, String)> {
        request_headers(self.method(), self.routing_name())
    }

    /// `params`, including `_meta`.
    pub fn params(&self, meta: &RequestMeta) -> Value {
        let mut obj = Object::new();
        match self {
            Self::Discover => {}
            Self::CallTool(p) => {
                obj.put("name", Value::from(p.name.as_str()));
                if let Some(args) = &p.arguments {
                    obj.put("arguments", Value::Object(args.clone()));
                }
                if let Some(r) = &p.input_responses {
                    obj.put("inputResponses", encode_input_responses(r));
                }
                if let Some(s) = &p.request_state {
                    obj.put("requestState", Value::from(s.as_str()));
                }
            }
            Self::GetTask { task_id } | Self::CancelTask { task_id } => {
                obj.put("taskId", Value::from(task_id.as_str()));
            }
            Self::UpdateTask { task_id, input_responses } => {
                obj.put("taskId", Value::from(task_id.as_str()));
                obj.put("inputResponses", encode_input_responses(input_responses));
            }
            Self::Listen(filter) => {
                obj.put("notifications", filter.to_json());
            }
            Self::ListTools { cursor } => {
                if let Some(c) = cursor {
                    obj.put("cursor", Value::from(c.as_str()));
                }
            }
            Self::ReadResource { uri } => obj.put("uri", Value::from(uri.as_str())),
        }
        obj.put("_meta", meta.to_json());
        Value::Object(obj)
    }

    /// The whole JSON-RPC request.
    pub fn envelope(&self, id: &RequestId, meta: &RequestMeta) -> Value {
        super::jsonrpc::request(id, self.method(), self.params(meta))
    }

    /// Reads a request's method and params (server side). `_meta` is read separately with
    /// [`RequestMeta::from_params`], so a server can tell a missing `_meta` (-32602, HTTP 400) apart.
    /// Returns `Ok(None)` for a method this crate does not model.
    pub fn decode(method: &str, params: &Value) -> Result<Option<Self>, DecodeError> {
        let what: &'static str = "params";
        let empty = Value::Object(Object::new());
        let params = if params.is_null() { &empty } else { params };
        let obj = fields::object(params, what)?;
        let task_id = || fields::required_str(obj, what, "taskId").map(str::to_owned);
        let request = match method {
            "server/discover" => Self::Discover,
            "tools/call" => {
                let arguments = fields::optional_object(obj, what, "arguments")?.cloned();
                let input_responses = match obj.get("inputResponses") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(decode_input_responses(v)?),
                };
                Self::CallTool(CallToolParams {
                    name: fields::required_str(obj, what, "name")?.to_owned(),
                    arguments,
                    input_responses,
                    request_state: fields::optional_str(obj, what, "requestState")?.map(str::to_owned),
                })
            }
            "tasks/get" => Self::GetTask { task_id: task_id()? },
            "tasks/cancel" => Self::CancelTask { task_id: task_id()? },
            "tasks/update" => {
                let responses =
                    obj.get("inputResponses").ok_or(DecodeError::MissingField { what, field: "inputResponses" })?;
                Self::UpdateTask { task_id: task_id()?, input_responses: decode_input_responses(responses)? }
            }
            "tools/list" => Self::ListTools { cursor: fields::optional_str(obj, what, "cursor")?.map(str::to_owned) },
            "resources/read" => Self::ReadResource { uri: fields::required_str(obj, what, "uri")?.to_owned() },
            "subscriptions/listen" => {
                let filter =
                    obj.get("notifications").ok_or(DecodeError::MissingField { what, field: "notifications" })?;
                Self::Listen(ListenFilter::from_json(filter)?)
            }
            _ => return Ok(None),
        };
        Ok(Some(request))
    }
}

/// Decodes a `tasks/update` or `tasks/cancel` acknowledgement: an empty `complete` result. It says
/// "received", not "applied": the next `tasks/get` may still show the old state.
pub fn decode_ack(value: &Value, method: &'static str) -> Result<(), DecodeError> {
    let obj = fields::object(value, "acknowledgement")?;
    super::result_type::expect_complete(obj, method)
}

/// A decoded result, typed by the request it answers.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestResult {
    /// Answer to `server/discover`.
    Discover(super::discover::DiscoverResult),
    /// Answer to `tools/call`.
    ToolCall(super::tool_call::ToolCallOutcome),
    /// Answer to `tasks/get`.
    Task(super::task::DetailedTask),
    /// Answer to `tasks/update` or `tasks/cancel`: received, not necessarily applied.
    Ack,
    /// Graceful end of a `subscriptions/listen` stream, with the subscription it closes.
    ListenClosed(Option<RequestId>),
    /// A `tools/list` page, kept as sent (tools pass through untouched: schemas are never rewritten).
    ToolList(Object),
    /// A `resources/read` result (`contents`, each as sent).
    Resource(Object),
}

impl RequestResult {
    /// The questions this answer asks, if any: an MRTR round's, or an `input_required` task's.
    pub fn input_requests(&self) -> Option<&super::input::InputRequests> {
        match self {
            Self::ToolCall(super::tool_call::ToolCallOutcome::InputRequired(round)) => round.input_requests.as_ref(),
            Self::Task(task) => task.input_requests(),
            _ => None,
        }
    }
}

impl ClientRequest {
    /// `task`, decoded from the answer to this `tasks/get` (by [`Self::decode_result`]), as its
    /// result: refused when it is another task than the one asked for,
    /// so a misrouted reply can never settle the wrong task.
    pub(crate) fn accept_task(&self, task: DetailedTask) -> Result<RequestResult, DecodeError> {
        match self {
            Self::GetTask { task_id } if task.task.task_id != *task_id => Err(DecodeError::Invalid {
                what: "tasks/get result",
                detail: format!("answers for task \"{}\" but \"{task_id}\" was asked", task.task.task_id),
            }),
            _ => Ok(RequestResult::Task(task)),
        }
    }

    /// Decodes the `result` of a response to this request. A `task` result for anything but
    /// `tools/call` is an error, and a `tasks/get` answer for a different taskId is refused so a
    /// misrouted reply can never settle the wrong task.
    pub fn decode_result(&self, result: &Value) -> Result<RequestResult, DecodeError> {
        match self {
            Self::Discover => super::discover::DiscoverResult::from_json(result).map(RequestResult::Discover),
            Self::CallTool(_) => super::tool_call::decode_tool_call_result(result).map(RequestResult::ToolCall),
            Self::GetTask { .. } => self.accept_task(super::task::decode_get_task_result(result)?),
            Self::UpdateTask { .. } | Self::CancelTask { .. } => {
                decode_ack(result, self.method()).map(|()| RequestResult::Ack)
            }
            Self::Listen(_) => super::subscriptions::decode_listen_closed(result).map(RequestResult::ListenClosed),
            // A page of tools or a resource: an object whose `tools` or `contents` is an array.
            Self::ListTools { .. } | Self::ReadResource { .. } => {
                let listing = matches!(self, Self::ListTools { .. });
                let (what, field) =
                    if listing { ("tools/list result", "tools") } else { ("resources/read result", "contents") };
                let obj = fields::object(result, what)?;
                super::result_type::expect_complete(obj, self.method())?;
                match obj.get(field) {
                    Some(Value::Array(_)) if listing => Ok(RequestResult::ToolList(obj.clone())),
                    Some(Value::Array(_)) => Ok(RequestResult::Resource(obj.clone())),
                    Some(_) => Err(fields::wrong_type(what, field, "an array")),
                    None => Err(DecodeError::MissingField { what, field }),
                }
            }
        }
    }
}
