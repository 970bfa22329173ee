//! JSON-RPC 2.0 envelopes: request ids, responses, errors, and the error codes a task client tells apart.
use std::fmt;

use crate::json::Value;

use super::fields::{self, Object};
use super::DecodeError;

/// A request id: a string or an integer, never null (2026-07-28 forbids null ids).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    Text(String),
}

impl RequestId {
    /// The id as it goes on the wire.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Self::Number(n) => Value::from(*n),
            Self::Text(s) => Value::from(s.as_str()),
        }
    }

    /// Reads an id; `null`, fractions and other types are rejected.
    pub(crate) fn from_json(value: &Value) -> Result<Self, DecodeError> {
        match value {
            Value::String(s) => Ok(Self::Text(s.clone())),
            Value::Number(n) => n
                .as_i64()
                .map(Self::Number)
                .ok_or_else(|| DecodeError::InvalidEnvelope { detail: format!("request id {n} is not an integer") }),
            Value::Null => Err(DecodeError::InvalidEnvelope { detail: "request id must not be null".into() }),
            _ => Err(DecodeError::InvalidEnvelope { detail: "request id must be a string or an integer".into() }),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => f.write_str(&crate::text::signed(*n)),
            Self::Text(s) => write!(f, "{s}"),
        }
    }
}

/// Hands out request ids that never repeat within one client: every request, MRTR retries included,
/// gets a new one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestIds {
    next: i64,
}

impl RequestIds {
    /// Starts at `first` (e.g. a random offset, so ids differ across page loads).
    pub fn starting_at(first: i64) -> Self {
        Self { next: first }
    }

    /// The next unused id.
    pub fn next_id(&mut self) -> RequestId {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        RequestId::Number(id)
    }
}

/// JSON-RPC error codes this client distinguishes.
pub mod codes {
    /// The body was not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The envelope was not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist (e.g. `tasks/list`, `tasks/result` on a 2026 server).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid params; for `tasks/*` this is "unknown, expired or purged task".
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed internally.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// HTTP headers and body disagree (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request lacked a client capability the server needs; `data.requiredCapabilities` says which.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The protocol version is not supported; `data.supported` lists the ones that are.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC error object, as received or as a server sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The numeric code; see [`codes`].
    pub code: i64,
    /// The server's message. Non-normative: never branch on it.
    pub message: String,
    /// Extra data, passed through untouched.
    pub(crate) data: Option<Value>,
}

/// What an error code means to a task client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcErrorKind {
    /// -32700.
    ParseError,
    /// -32600.
    InvalidRequest,
    /// -32601: the method does not exist on this server.
    MethodNotFound,
    /// -32602: invalid params; on `tasks/*`, the server does not know (or no longer knows) the task.
    InvalidParams,
    /// -32603.
    Internal,
    /// -32020.
    HeaderMismatch,
    /// -32021.
    MissingRequiredClientCapability,
    /// -32022.
    UnsupportedProtocolVersion,
    /// Any other code, e.g. tool-defined codes in a failed task.
    Other,
}

impl RpcError {
    /// An error with no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// What the code means to a task client.
    pub fn kind(&self) -> RpcErrorKind {
        match self.code {
            codes::PARSE_ERROR => RpcErrorKind::ParseError,
            codes::INVALID_REQUEST => RpcErrorKind::InvalidRequest,
            codes::METHOD_NOT_FOUND => RpcErrorKind::MethodNotFound,
            codes::INVALID_PARAMS => RpcErrorKind::InvalidParams,
            codes::INTERNAL_ERROR => RpcErrorKind::Internal,
            codes::HEADER_MISMATCH => RpcErrorKind::HeaderMismatch,
            codes::MISSING_REQUIRED_CLIENT_CAPABILITY => RpcErrorKind::MissingRequiredClientCapability,
            codes::UNSUPPORTED_PROTOCOL_VERSION => RpcErrorKind::UnsupportedProtocolVersion,
            _ => RpcErrorKind::Other,
        }
    }

    /// For -32021: the capabilities the server requires (`data.requiredCapabilities`).
    pub(crate) fn required_capabilities(&self) -> Option<&Object> {
        if self.kind() != RpcErrorKind::MissingRequiredClientCapability {
            return None;
        }
        self.data.as_ref()?.get("requiredCapabilities")?.as_object()
    }

    /// For -32021: whether the missing capability is the Tasks extension.
    pub fn requires_tasks_extension(&self) -> bool {
        self.required_capabilities()
            .and_then(|caps| caps.get("extensions"))
            .and_then(Value::as_object)
            .is_some_and(|ext| ext.contains_key(super::TASKS_EXTENSION))
    }

    /// For -32022: the versions the server supports (`data.supported`), strings only.
    pub fn supported_versions(&self) -> Option<Vec<String>> {
        if self.kind() != RpcErrorKind::UnsupportedProtocolVersion {
            return None;
        }
        let list = self.data.as_ref()?.get("supported")?.as_array()?;
        Some(crate::json::string_values(list))
    }

    /// The error object as on the wire.
    pub fn to_json(&self) -> Value {
        let mut obj = Object::new();
        obj.put("code", Value::from(self.code));
        obj.put("message", Value::from(self.message.as_str()));
        if let Some(data) = &self.data {
            obj.put("data", data.clone());
        }
        Value::Object(obj)
    }

    /// Reads an error object: `code` must be an integer and `message` a string.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "JSON-RPC error";
        let obj = fields::object(value, WHAT)?;
        let code = match obj.get("code") {
            None => return Err(DecodeError::MissingField { what: WHAT, field: "code" }),
            Some(v) => v.as_i64().ok_or_else(|| fields::wrong_type(WHAT, "code", "an integer"))?,
        };
        let message = fields::required_str(obj, WHAT, "message")?.to_owned();
        Ok(Self { code, message, data: obj.get("data").cloned() })
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.message, crate::text::signed(self.code))
    }
}

impl std::error::Error for RpcError {}

/// A JSON-RPC response: the id it answers and either a result or an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request it answers; absent only when the server could not parse the request.
    pub(crate) id: Option<RequestId>,
    /// The result object, or the error.
    pub outcome: Result<Value, RpcError>,
}

impl Response {
    /// A success response.
    pub fn result(id: RequestId, result: Value) -> Self {
        Self { id: Some(id), outcome: Ok(result) }
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, error: RpcError) -> Self {
        Self { id, outcome: Err(error) }
    }

    /// The response envelope as on the wire.
    pub fn to_json(&self) -> Value {
        // Plain inserts, not `json!`, which would copy the id and error it borrows.
        let mut message = crate::json::Map::new();
        message.put("jsonrpc", Value::from("2.0"));
        message.put("id", self.id.as_ref().map_or(Value::Null, RequestId::to_json));
        match &self.outcome {
            Ok(result) => message.insert("result".into(), result.clone()),
            Err(error) => message.insert("error".into(), error.to_json()),
        };
        Value::Object(message)
    }
}

/// Any message a client may receive on an HTTP response body or SSE stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A response to one of our requests.
    Response(Response),
    /// A notification (e.g. `notifications/tasks`, `notifications/progress`).
    Notification {
        /// The notification method.
        method: String,
        /// Its params (an empty object when absent).
        params: Value,
    },
    /// A request from the server. 2026-07-28 servers never send these over HTTP; kept so it can be reported.
    Request {
        /// The request id.
        id: RequestId,
        /// The method.
        method: String,
        /// Its params.
        params: Value,
    },
}

/// Where the parts the client hands on unread sit, in a `tasks/get` answer (`result.…`) and a
/// `notifications/tasks` (`params.…`): a task's tool result (its blocks, structured content and
/// `_meta`) and each question's params (a form's `requestedSchema`, which only the element reads). The
/// client keeps them as text; an MRTR `tools/call` answer's questions sit at the same place.
const PASSED_ON: &[&[&str]] = &[
    &["result", "result"],
    &["params", "result"],
    &["result", "inputRequests", "*", "params"],
    &["params", "inputRequests", "*", "params"],
];

/// Parses the text of an answer or a stream's event as the client reads every message: a task's tool
/// result keeps its parts as [`RawJson`](crate::json::RawJson) text.
pub fn parse_answer(text: &str) -> Result<Value, crate::json::ParseError> {
    crate::json::from_str_keeping(text, PASSED_ON)
}

/// [`parse_answer`] for a client that takes at most `max_questions` at once (`maxInputRequests`): an
/// answer or event whose `inputRequests` hold more is refused at the first question past the limit,
/// before the rest is read, let alone decoded (`DecodeError::Invalid` on `inputRequests`); one whose
/// tree (what is not kept as text) would hold more than 262,144 values stops there too
/// (`DecodeError::Invalid` on `message`); text that is not JSON is `DecodeError::NotJson`.
pub fn parse_answer_within(text: &str, max_questions: usize) -> Result<Value, DecodeError> {
    crate::json::parse::from_str_capped(text, PASSED_ON, max_questions).map_err(|e| {
        if e.what == crate::json::parse::TOO_MANY_MEMBERS {
            DecodeError::Invalid {
                what: "inputRequests",
                detail: format!("more requests at once than the {max_questions} this client takes"),
            }
        } else if e.what == crate::json::parse::TOO_MANY_VALUES {
            // The number is `MAX_TREE_VALUES`, which a test holds this text to.
            let detail = "more than 262144 JSON values outside a tool result, which this client does not read";
            DecodeError::Invalid { what: "message", detail: detail.into() }
        } else {
            DecodeError::NotJson { detail: crate::text::display(&e) }
        }
    })
}

/// Decodes one JSON-RPC message from text.
pub fn decode_message(text: &str) -> Result<Incoming, DecodeError> {
    decode_message_value(fields::parse_json(text)?)
}

/// Decodes one JSON-RPC message from an already parsed value, taking `params` / `result` out of it
/// rather than copying them (a 10 KB result is a tree of many small allocations).
pub fn decode_message_value(value: Value) -> Result<Incoming, DecodeError> {
    let Value::Object(mut obj) = value else {
        return Err(DecodeError::InvalidEnvelope {
            detail: "a JSON-RPC message must be a JSON object (batches are not part of 2026-07-28)".into(),
        });
    };
    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => {
            return Err(DecodeError::InvalidEnvelope { detail: format!("jsonrpc must be \"2.0\", got {other}") })
        }
        None => return Err(DecodeError::InvalidEnvelope { detail: "the `jsonrpc: \"2.0\"` member is missing".into() }),
    }
    if let Some(method) = obj.get("method") {
        let method = method
            .as_str()
            .ok_or_else(|| DecodeError::InvalidEnvelope { detail: "method must be a string".into() })?
            .to_owned();
        let id = obj.get("id").map(RequestId::from_json).transpose()?;
        let params = obj.remove("params").unwrap_or_else(|| Value::Object(Object::new()));
        return Ok(match id {
            None => Incoming::Notification { method, params },
            Some(id) => Incoming::Request { id, method, params },
        });
    }
    let id = match obj.get("id") {
        None | Some(Value::Null) => None,
        Some(id) => Some(RequestId::from_json(id)?),
    };
    match (obj.remove("result"), obj.get("error")) {
        (Some(_), Some(_)) => {
            Err(DecodeError::InvalidEnvelope { detail: "a response must not carry both result and error".into() })
        }
        (Some(result), None) => {
            if id.is_none() {
                return Err(DecodeError::InvalidEnvelope { detail: "a successful response must carry an id".into() });
            }
            if !result.is_object() {
                return Err(DecodeError::NotAnObject { what: "result" });
            }
            Ok(Incoming::Response(Response { id, outcome: Ok(result) }))
        }
        (None, Some(error)) => Ok(Incoming::Response(Response { id, outcome: Err(RpcError::from_json(error)?) })),
        (None, None) => {
            Err(DecodeError::InvalidEnvelope { detail: "the message has neither method, result nor error".into() })
        }
    }
}

/// Decodes text that must be a response (not a notification or request).
pub fn decode_response(text: &str) -> Result<Response, DecodeError> {
    match decode_message(text)? {
        Incoming::Response(r) => Ok(r),
        Incoming::Notification { method, .. } | Incoming::Request { method, .. } => {
            Err(DecodeError::InvalidEnvelope { detail: format!("expected a response, got a `{method}` message") })
        }
    }
}

/// A request envelope as on the wire (both generations' requests), built with plain inserts, not
/// `json!`, which would copy the params it borrows.
pub(crate) fn request(id: &RequestId, method: &str, params: Value) -> Value {
    let mut message = crate::json::Map::new();
    message.put("jsonrpc", Value::from("2.0"));
    message.put("id", id.to_json());
    message.put("method", Value::from(method));
    message.put("params", params);
    Value::Object(message)
}

/// A notification envelope as on the wire.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    // Plain inserts, not `json!`, which would copy the params it borrows.
    let mut message = crate::json::Map::new();
    message.put("jsonrpc", Value::from("2.0"));
    message.put("method", Value::from(method));
    message.put("params", params);
    Value::Object(message)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_refusal_of_too_many_values_names_the_limit() {
        let zeros = vec!["0"; crate::json::parse::MAX_TREE_VALUES + 1].join(",");
        let error = super::parse_answer_within(&format!("[{zeros}]"), 1).unwrap_err().to_string();
        let limit = crate::json::parse::MAX_TREE_VALUES.to_string();
        assert!(error.contains(&format!("more than {limit} JSON values")), "{error}");
    }
}
