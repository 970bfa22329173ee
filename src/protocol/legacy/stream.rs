//! What a 2025-11-25 server sends on an SSE stream (the `tasks/result` stream or the session's GET
//! stream), and the client's JSON-RPC answers to the server's requests.
use crate::json::{json, Number, Value};

use super::super::fields::{self, Object};
use super::super::input::{ElicitRequest, InputRequest, InputResponse};
use super::super::jsonrpc::{codes, decode_message_value, Incoming, RequestId, Response, RpcError};
use super::super::task::Task;
use super::super::DecodeError;
use super::related_task;
use super::task::task_from_object;

/// An `elicitation/create` request from the server, mapped to the crate's input-request model.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyElicitation {
    /// The JSON-RPC id to answer.
    pub id: RequestId,
    /// The `inputRequests` key the host sees and answers by; see [`input_key`].
    pub key: String,
    /// `_meta["io.modelcontextprotocol/related-task"].taskId`: the task waiting for this answer.
    pub related_task: Option<String>,
    /// URL mode's `elicitationId` (used by `notifications/elicitation/complete`), if sent.
    pub elicitation_id: Option<String>,
    /// The request, as an `inputRequests` entry holds it (`{method: "elicitation/create", params}`).
    pub request: InputRequest,
}

/// `notifications/progress`. The numbers keep their wire text (the client neither parses nor formats
/// doubles; a host reads them as JSON numbers).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The token of the request it reports on (a string or an integer), as sent.
    pub token: Value,
    /// `_meta["io.modelcontextprotocol/related-task"].taskId`, when the server tagged it.
    pub related_task: Option<String>,
    /// Progress so far.
    pub progress: Number,
    /// The total, if known.
    pub total: Option<Number>,
    /// Text about the current step.
    pub message: Option<String>,
}

/// One message from a legacy server's stream.
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyServerMessage {
    /// The response to the request whose stream this is (or to any request, on the GET stream).
    Response(Response),
    /// `elicitation/create`: show it as an input request, answer with [`encode_input_answer`].
    Elicitation(LegacyElicitation),
    /// `notifications/tasks/status` (params = Task, no outcome).
    TaskStatus(Task),
    /// A server request this client does not serve (`sampling/createMessage`, `roots/list`, `ping`, …):
    /// answer with [`encode_method_not_found`] so the server does not wait for ever.
    Unsupported {
        /// The JSON-RPC id to answer.
        id: RequestId,
        /// The method asked for.
        method: String,
    },
    /// A request this client serves but whose params it cannot read: answer with
    /// [`encode_invalid_params`], which says why.
    InvalidRequest {
        /// The JSON-RPC id to answer.
        id: RequestId,
        /// The method asked for.
        method: String,
        /// What is wrong with the params.
        error: DecodeError,
    },
    /// Any other notification (progress, logging, `notifications/elicitation/complete`, list
    /// changes): nothing to answer; kept so a caller can log it (or read progress with
    /// [`decode_progress`]).
    Notification {
        /// The notification method.
        method: String,
        /// Its params.
        params: Value,
    },
}

/// Decodes one SSE `data` payload (or a JSON response body) of a legacy server.
pub fn decode_stream_message(text: &str) -> Result<LegacyServerMessage, DecodeError> {
    decode_stream_value(fields::parse_json(text)?)
}

/// Decodes one already parsed message. Envelope errors are errors; a server request with unreadable
/// params is not (it still needs an answer), it is [`LegacyServerMessage::InvalidRequest`].
pub fn decode_stream_value(value: Value) -> Result<LegacyServerMessage, DecodeError> {
    match decode_message_value(value)? {
        Incoming::Response(response) => Ok(LegacyServerMessage::Response(response)),
        Incoming::Notification { method, params } => match method.as_str() {
            "notifications/tasks/status" => {
                Ok(LegacyServerMessage::TaskStatus(task_from_object(fields::object(&params, "params")?, "params")?))
            }
            _ => Ok(LegacyServerMessage::Notification { method, params }),
        },
        Incoming::Request { id, method, params } => Ok(match method.as_str() {
            "elicitation/create" => match read_elicitation(&id, &params) {
                Ok(elicitation) => LegacyServerMessage::Elicitation(elicitation),
                Err(error) => LegacyServerMessage::InvalidRequest { id, method, error },
            },
            _ => LegacyServerMessage::Unsupported { id, method },
        }),
    }
}

fn read_elicitation(id: &RequestId, params: &Value) -> Result<LegacyElicitation, DecodeError> {
    const WHAT: &str = "elicitation params";
    let obj = fields::object(params, WHAT)?;
    let request = InputRequest::Elicitation(ElicitRequest::from_json(params)?);
    Ok(LegacyElicitation {
        id: id.clone(),
        key: input_key(id),
        related_task: related_task(obj, WHAT)?,
        elicitation_id: fields::optional_str(obj, WHAT, "elicitationId")?.map(str::to_owned),
        request,
    })
}

/// Reads the params of `notifications/progress`.
pub fn decode_progress(params: &Value) -> Result<Progress, DecodeError> {
    const WHAT: &str = "progress params";
    let obj = fields::object(params, WHAT)?;
    let token = match obj.get("progressToken") {
        None => return Err(DecodeError::MissingField { what: WHAT, field: "progressToken" }),
        Some(t @ Value::String(_)) => t.clone(),
        Some(t @ Value::Number(n)) if n.as_i64().is_some() => t.clone(),
        Some(_) => return Err(fields::wrong_type(WHAT, "progressToken", "a string or an integer")),
    };
    let number = |field: &'static str| match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(fields::wrong_type(WHAT, field, "a number")),
    };
    let progress = number("progress")?.ok_or(DecodeError::MissingField { what: WHAT, field: "progress" })?;
    Ok(Progress {
        token,
        related_task: related_task(obj, WHAT)?,
        progress,
        total: number("total")?,
        message: fields::optional_str(obj, WHAT, "message")?.map(str::to_owned),
    })
}

const KEY_PREFIX: &str = "jsonrpc-id:";

/// The `inputRequests` key of a server request: `jsonrpc-id:n:<integer>` or `jsonrpc-id:s:<string>`.
/// It depends on the id alone, so the same request always gets the same key (a resent request replaces
/// its entry instead of doubling it), an integer and a string that print alike never collide, and the
/// host's answer by key leads back to the id with [`request_id_for_key`].
pub fn input_key(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => format!("{KEY_PREFIX}n:{}", crate::text::signed(*n)),
        RequestId::Text(s) => format!("{KEY_PREFIX}s:{s}"),
    }
}

/// The request id behind a key made by [`input_key`]; `None` for any other text (including an integer
/// written in a form `input_key` never produces, such as `007`).
pub fn request_id_for_key(key: &str) -> Option<RequestId> {
    let rest = key.strip_prefix(KEY_PREFIX)?;
    if let Some(text) = rest.strip_prefix("s:") {
        return Some(RequestId::Text(text.to_owned()));
    }
    let digits = rest.strip_prefix("n:")?;
    let n = crate::json::integer_value(digits)?;
    (crate::text::signed(n) == digits).then_some(RequestId::Number(n))
}

/// The elicitation as an `inputRequests` entry: its key and the request.
impl LegacyElicitation {
    /// `(key, request)`, ready to insert into the task's `InputRequests`.
    pub fn input_entry(&self) -> (String, InputRequest) {
        (self.key.clone(), self.request.clone())
    }
}

/// A success response from the client to server request `id`.
pub fn encode_result_response(id: &RequestId, result: Value) -> Value {
    Response::result(id.clone(), result).to_json()
}

/// The answer to an `elicitation/create` (`{action, content?}`), tagged with the related task when the
/// request named one (2025-11-25 tags every task-related message).
pub fn encode_input_answer(id: &RequestId, related_task: Option<&str>, answer: &InputResponse) -> Value {
    let mut result = answer.to_json();
    if let (Some(task_id), Value::Object(obj)) = (related_task, &mut result) {
        let mut meta = Object::new();
        meta.put(super::RELATED_TASK_META, json!({ "taskId": task_id }));
        obj.put("_meta", Value::Object(meta));
    }
    encode_result_response(id, result)
}

/// An error response from the client to server request `id` (`null` id when the request had none).
pub fn encode_error_response(id: Option<&RequestId>, error: &RpcError) -> Value {
    Response::error(id.cloned(), error.clone()).to_json()
}

/// `-32601` for a server request this client does not serve.
pub fn encode_method_not_found(id: &RequestId, method: &str) -> Value {
    let error = RpcError::new(codes::METHOD_NOT_FOUND, format!("Method not found: {method}"));
    encode_error_response(Some(id), &error)
}

/// `-32602` for a server request whose params could not be read.
pub fn encode_invalid_params(id: &RequestId, why: &DecodeError) -> Value {
    encode_error_response(Some(id), &RpcError::new(codes::INVALID_PARAMS, crate::text::display(why)))
}

/// What a client does with one message of a 2025-11-25 stream other than the response it waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamRoute {
    /// A question for task `task` of this client: shown as one of its input requests.
    Ask {
        /// The task it is for.
        task: String,
        /// The question as the server sent it.
        elicitation: LegacyElicitation,
    },
    /// `notifications/tasks/status`.
    Status(Task),
    /// `notifications/progress`.
    Progress(Progress),
    /// A JSON-RPC response to POST back at once (a refusal, or `ping`'s empty result).
    Reply(Value),
    /// Nothing to do (a response, another notification, a message that is not JSON-RPC).
    Nothing,
}

/// Routes `message`, read on the `tasks/result` stream of task `stream` (`None`: the session's GET
/// stream, or a call's answer). A question goes to the task it names, else the stream's; one for no
/// task of this client (`ours` says which are) is refused, so the server does not wait for an answer
/// that cannot come.
pub fn route(message: Value, stream: Option<&str>, ours: &dyn Fn(&str) -> bool) -> StreamRoute {
    match decode_stream_value(message) {
        Ok(LegacyServerMessage::Elicitation(elicitation)) => {
            let target = elicitation.related_task.as_deref().or(stream).filter(|id| ours(id)).map(str::to_owned);
            match target {
                Some(task) => StreamRoute::Ask { task, elicitation },
                None => StreamRoute::Reply(encode_method_not_found(&elicitation.id, "elicitation/create")),
            }
        }
        Ok(LegacyServerMessage::TaskStatus(task)) => StreamRoute::Status(task),
        Ok(LegacyServerMessage::Notification { method, params }) if method == "notifications/progress" => {
            decode_progress(&params).map_or(StreamRoute::Nothing, StreamRoute::Progress)
        }
        Ok(LegacyServerMessage::Unsupported { id, method }) if method == "ping" => {
            StreamRoute::Reply(encode_result_response(&id, json!({})))
        }
        Ok(LegacyServerMessage::Unsupported { id, method }) => {
            StreamRoute::Reply(encode_method_not_found(&id, &method))
        }
        Ok(LegacyServerMessage::InvalidRequest { id, error, .. }) => {
            StreamRoute::Reply(encode_invalid_params(&id, &error))
        }
        _ => StreamRoute::Nothing,
    }
}

/// The refusal of a question past the `limit` open questions a task may have: as many as a 2026-07-28
/// answer may carry, so a flood costs the server a refusal each rather than the client more each time.
pub fn too_many_questions(id: &RequestId, task: &str, limit: usize) -> Value {
    let why = DecodeError::Invalid {
        what: "elicitation/create",
        detail: format!("task {task} already has {limit} open questions, the most this client takes"),
    };
    encode_invalid_params(id, &why)
}
