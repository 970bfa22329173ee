//! Input the server asks for (`inputRequests`) and the client's answers (`inputResponses`), shared by
//! MRTR rounds before a task and by `input_required` during one.
use crate::collections::SortedMap;

use crate::json::{json, Value};

use super::fields::{self, Object};
use super::form::{FormLimit, TOO_LARGE_SCHEMA};
use super::DecodeError;

/// Server-chosen key → embedded request. Keys are unique for the life of a task.
pub type InputRequests = SortedMap<String, InputRequest>;

/// The most `inputRequests` one answer may carry unless the host says otherwise (`maxInputRequests`).
/// Each is a question a person answers, so real servers ask a handful; a hostile one asking 10,000
/// would make every poll, write and draw of the task slow. More is refused like any unreadable answer
/// (a `ProtocolError`, then backoff).
pub const DEFAULT_MAX_INPUT_REQUESTS: usize = 256;
/// The range a host may set `maxInputRequests` in.
pub const MAX_INPUT_REQUESTS_RANGE: (usize, usize) = (1, 4_096);
/// Key → the client's answer, with the same keys as the requests they answer.
pub type InputResponses = SortedMap<String, InputResponse>;

/// One embedded request `{method, params}` (no id, no jsonrpc).
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`: ask the user through a form or a URL.
    Elicitation(ElicitRequest),
    /// `sampling/createMessage` (deprecated feature); params kept as sent for a host handler.
    Sampling {
        /// `CreateMessageRequestParams`, untouched.
        params: Value,
    },
    /// `roots/list` (deprecated feature).
    Roots {
        /// Params, if any were sent.
        params: Option<Value>,
    },
    /// A method this client does not know; kept so it can be shown and left unanswered, never dropped.
    Other {
        /// The method name.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
}

/// `elicitation/create` params.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitRequest {
    /// Form mode (`mode` absent or `"form"`).
    Form {
        /// Text shown above the form.
        message: String,
        /// The flat JSON schema of the form; see [`super::form`] to turn it into fields.
        requested_schema: Value,
    },
    /// URL mode: the user opens `url` outside the app after consenting.
    Url {
        /// Why the page must be opened.
        message: String,
        /// The page to open; never fetched before consent.
        url: String,
    },
}

impl InputRequest {
    /// The embedded request's method name.
    pub(crate) fn method(&self) -> &str {
        match self {
            Self::Elicitation(_) => "elicitation/create",
            Self::Sampling { .. } => "sampling/createMessage",
            Self::Roots { .. } => "roots/list",
            Self::Other { method, .. } => method,
        }
    }

    /// The request as on the wire.
    pub fn to_json(&self) -> Value {
        let params = match self {
            Self::Elicitation(ElicitRequest::Form { message, requested_schema }) => {
                Some(json!({ "mode": "form", "message": message, "requestedSchema": requested_schema }))
            }
            Self::Elicitation(ElicitRequest::Url { message, url }) => {
                Some(json!({ "mode": "url", "message": message, "url": url }))
            }
            Self::Sampling { params } => Some(params.clone()),
            Self::Roots { params } | Self::Other { params, .. } => params.clone(),
        };
        let mut obj = Object::new();
        obj.put("method", Value::from(self.method()));
        if let Some(p) = params {
            obj.put("params", p);
        }
        Value::Object(obj)
    }

    /// Reads one embedded request.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "input request";
        let obj = fields::object(value, WHAT)?;
        let method = fields::required_str(obj, WHAT, "method")?;
        let params = obj.get("params").filter(|p| !p.is_null());
        match method {
            "elicitation/create" => {
                let params = params.ok_or(DecodeError::MissingField { what: WHAT, field: "params" })?;
                Ok(Self::Elicitation(ElicitRequest::from_json(params)?))
            }
            "sampling/createMessage" => {
                let params = params.ok_or(DecodeError::MissingField { what: WHAT, field: "params" })?;
                fields::object(params, "sampling params")?;
                Ok(Self::Sampling { params: params.clone() })
            }
            "roots/list" => Ok(Self::Roots { params: params.cloned() }),
            other => Ok(Self::Other { method: other.to_owned(), params: params.cloned() }),
        }
    }
}

impl ElicitRequest {
    /// Reads `elicitation/create` params; a missing `mode` means form.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "elicitation params";
        let obj = fields::object(value, WHAT)?;
        let message = fields::required_str(obj, WHAT, "message")?.to_owned();
        match fields::optional_str(obj, WHAT, "mode")? {
            None | Some("form") => {
                let schema = obj
                    .get("requestedSchema")
                    .ok_or(DecodeError::MissingField { what: WHAT, field: "requestedSchema" })?;
                // The client reads answers with the schema kept as text (`json::RawJson`).
                if !matches!(schema, Value::Raw(raw) if raw.is_object()) {
                    fields::object(schema, "requestedSchema")?;
                }
                // A schema past what a form may hold is not kept: the question is, so the person can
                // still decline or cancel, without megabytes in every snapshot, write and draw.
                if let Value::Raw(raw) = schema {
                    if raw.as_str().len() > FormLimit::Bytes.max() {
                        let mut kept = Object::new();
                        kept.put(TOO_LARGE_SCHEMA, Value::from(raw.as_str().len()));
                        return Ok(Self::Form { message, requested_schema: Value::Object(kept) });
                    }
                }
                Ok(Self::Form { message, requested_schema: schema.clone() })
            }
            Some("url") => Ok(Self::Url { message, url: fields::required_str(obj, WHAT, "url")?.to_owned() }),
            Some(other) => {
                Err(DecodeError::Invalid { what: WHAT, detail: format!("unknown elicitation mode \"{other}\"") })
            }
        }
    }
}

/// Reads an `inputRequests` map, in key order: each insert appends, so the cost is n log n in the
/// entries whatever order their keys come in. How many a client takes is its host's limit, held as the
/// answer is read ([`super::jsonrpc::parse_answer_within`]).
pub fn decode_input_requests(value: &Value) -> Result<InputRequests, DecodeError> {
    let obj = fields::object(value, "inputRequests")?;
    let mut requests = InputRequests::new();
    for (k, v) in obj.sorted() {
        requests.insert(k.to_owned(), InputRequest::from_json(v)?);
    }
    Ok(requests)
}

/// The `inputRequests` map as on the wire.
pub fn encode_input_requests(requests: &InputRequests) -> Value {
    let mut obj = Object::new();
    for (k, v) in requests.iter() {
        obj.push_new(k.clone(), v.to_json());
    }
    Value::Object(obj)
}

/// The user's choice on an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitAction {
    /// The user submitted (form content, or consent to open a URL).
    Accept,
    /// The user explicitly refused.
    Decline,
    /// The user dismissed without choosing.
    Cancel,
}

impl ElicitAction {
    /// The wire value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// `ElicitResult`: the answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitResult {
    /// What the user chose.
    pub(crate) action: ElicitAction,
    /// Form values (only for an accepted form): string, number, boolean or string array.
    pub content: Option<Object>,
}

/// One answer in `inputResponses`: a result object of the method it answers (no `resultType`).
#[derive(Debug, Clone, PartialEq)]
pub enum InputResponse {
    /// Answers `elicitation/create`.
    Elicitation(ElicitResult),
    /// Answers `sampling/createMessage` (`CreateMessageResult`), as the host produced it.
    Sampling(Value),
    /// Answers `roots/list` (`ListRootsResult`), as the host produced it.
    Roots(Value),
    /// An object of no known answer shape. Kept as sent (never dropped) so a server can ignore it
    /// the way it ignores keys it did not issue, and a client can pass a newer kind of answer through.
    Other(Value),
}

impl InputResponse {
    /// An accepted form with `content`.
    pub fn accept(content: Object) -> Self {
        Self::Elicitation(ElicitResult { action: ElicitAction::Accept, content: Some(content) })
    }

    /// An elicitation answer without content (URL consent, decline, cancel).
    pub fn action(action: ElicitAction) -> Self {
        Self::Elicitation(ElicitResult { action, content: None })
    }

    /// The answer as on the wire.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Elicitation(r) => {
                let mut obj = Object::new();
                obj.put("action", Value::from(r.action.as_str()));
                if let Some(content) = &r.content {
                    obj.put("content", Value::Object(content.clone()));
                }
                Value::Object(obj)
            }
            Self::Sampling(v) | Self::Roots(v) | Self::Other(v) => v.clone(),
        }
    }

    /// Reads an answer, telling the kinds apart by shape: `action` (elicitation), `roots` (roots),
    /// `role` + `content` + `model` (sampling); any other object is kept as [`InputResponse::Other`].
    /// A malformed answer of a known kind (an unknown `action`, say) is an error.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "input response";
        let obj = fields::object(value, WHAT)?;
        if obj.contains_key("action") {
            return decode_elicit_result(obj).map(Self::Elicitation);
        }
        if let Some(roots) = obj.get("roots") {
            if !roots.is_array() {
                return Err(fields::wrong_type(WHAT, "roots", "an array"));
            }
            return Ok(Self::Roots(value.clone()));
        }
        if obj.contains_key("role") && obj.contains_key("content") && obj.contains_key("model") {
            return Ok(Self::Sampling(value.clone()));
        }
        Ok(Self::Other(value.clone()))
    }
}

fn decode_elicit_result(obj: &Object) -> Result<ElicitResult, DecodeError> {
    const WHAT: &str = "ElicitResult";
    let action = match fields::required_str(obj, WHAT, "action")? {
        "accept" => ElicitAction::Accept,
        "decline" => ElicitAction::Decline,
        "cancel" => ElicitAction::Cancel,
        other => return Err(DecodeError::Invalid { what: WHAT, detail: format!("unknown action \"{other}\"") }),
    };
    let content = fields::optional_object(obj, WHAT, "content")?.cloned();
    if let Some(content) = &content {
        for (key, v) in content {
            let ok = match v {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
                Value::Array(items) => items.iter().all(Value::is_string),
                _ => false,
            };
            if !ok {
                return Err(DecodeError::Invalid {
                    what: WHAT,
                    detail: format!("content `{key}` must be a string, number, boolean or array of strings"),
                });
            }
        }
    }
    Ok(ElicitResult { action, content })
}

/// Reads an `inputResponses` map.
pub fn decode_input_responses(value: &Value) -> Result<InputResponses, DecodeError> {
    let obj = fields::object(value, "inputResponses")?;
    let mut responses = InputResponses::new();
    for (k, v) in obj.iter() {
        responses.insert(k.to_owned(), InputResponse::from_json(v)?);
    }
    Ok(responses)
}

/// The `inputResponses` map as on the wire.
pub fn encode_input_responses(responses: &InputResponses) -> Value {
    let mut obj = Object::new();
    for (k, v) in responses.iter() {
        obj.push_new(k.clone(), v.to_json());
    }
    Value::Object(obj)
}
