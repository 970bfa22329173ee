//! The 2025-11-25 session handshake: `initialize`, its answer, and `notifications/initialized`.
use crate::json::{json, Value};

use super::super::fields::{self, Object};
use super::super::jsonrpc::RequestId;
use super::super::meta::Implementation;
use super::super::DecodeError;
use super::LEGACY_PROTOCOL_VERSION;

/// The `initialize` request. The capabilities name only elicitation: task-related input arrives as
/// ordinary `elicitation/create` requests, so the client needs no `tasks` capability of its own (that
/// one declares client-hosted tasks, which this client does not run).
pub fn encode_initialize(id: &RequestId, client_info: &Implementation, form: bool, url: bool) -> Value {
    let mut modes = Object::new();
    if form || !url {
        // An elicitation capability with no mode means form; say so explicitly, as the SDK does.
        modes.put("form", Value::Object(Object::new()));
    }
    if url {
        modes.put("url", Value::Object(Object::new()));
    }
    let mut capabilities = Object::new();
    capabilities.put("elicitation", Value::Object(modes));
    // Plain inserts, not `json!`: one short run of calls.
    let mut params = Object::new();
    params.put("protocolVersion", Value::from(LEGACY_PROTOCOL_VERSION));
    params.put("capabilities", Value::Object(capabilities));
    params.put("clientInfo", client_info.to_json());
    let mut message = Object::new();
    message.put("jsonrpc", Value::from("2.0"));
    message.put("id", id.to_json());
    message.put("method", Value::from("initialize"));
    message.put("params", Value::Object(params));
    Value::Object(message)
}

/// `notifications/initialized`, sent once the `initialize` answer is accepted.
pub fn encode_initialized() -> Value {
    // No params: the SDK omits the member, so this does not go through `jsonrpc::notification`.
    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
}

/// `capabilities.tasks` of a 2025-11-25 server: which task features it offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LegacyTaskCapabilities {
    /// `tasks.list`: `tasks/list` is served.
    pub list: bool,
    /// `tasks.cancel`: `tasks/cancel` is served.
    pub cancel: bool,
    /// `tasks.requests.tools.call`: a `tools/call` may carry `params.task`.
    pub tools_call: bool,
}

/// What a 2025-11-25 server said about itself in its `initialize` answer.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyServer {
    /// The negotiated version; always [`LEGACY_PROTOCOL_VERSION`] (others are refused).
    pub protocol_version: String,
    /// `serverInfo`; required by the schema, tolerated when absent.
    pub server_info: Option<Implementation>,
    /// `capabilities.tasks`, or `None` when the server declares no tasks at all.
    pub tasks: Option<LegacyTaskCapabilities>,
    /// `instructions`, if any.
    pub instructions: Option<String>,
}

/// Decodes an `initialize` result. The version is checked first: a server that chose a version this
/// client cannot speak gets [`DecodeError::UnknownProtocolVersion`], and the caller offers no tasks.
pub fn decode_initialize_result(value: &Value) -> Result<LegacyServer, DecodeError> {
    const WHAT: &str = "initialize result";
    let obj = fields::object(value, WHAT)?;
    let protocol_version = fields::required_str(obj, WHAT, "protocolVersion")?;
    if protocol_version != LEGACY_PROTOCOL_VERSION {
        return Err(DecodeError::UnknownProtocolVersion { found: protocol_version.to_owned() });
    }
    let capabilities = match obj.get("capabilities") {
        Some(v) => fields::object(v, "capabilities")?,
        None => return Err(DecodeError::MissingField { what: WHAT, field: "capabilities" }),
    };
    let tasks =
        fields::optional_object(capabilities, "capabilities", "tasks")?.map(read_task_capabilities).transpose()?;
    let server_info = match obj.get("serverInfo") {
        None | Some(Value::Null) => None,
        Some(v) => Some(Implementation::from_json(v)?),
    };
    Ok(LegacyServer {
        protocol_version: protocol_version.to_owned(),
        server_info,
        tasks,
        instructions: fields::optional_str(obj, WHAT, "instructions")?.map(str::to_owned),
    })
}

/// Reads `capabilities.tasks`; each flag is an object whose presence is the promise.
fn read_task_capabilities(tasks: &Object) -> Result<LegacyTaskCapabilities, DecodeError> {
    const WHAT: &str = "capabilities.tasks";
    let list = fields::optional_object(tasks, WHAT, "list")?.is_some();
    let cancel = fields::optional_object(tasks, WHAT, "cancel")?.is_some();
    let tools_call = match fields::optional_object(tasks, WHAT, "requests")? {
        None => false,
        Some(requests) => match fields::optional_object(requests, "capabilities.tasks.requests", "tools")? {
            None => false,
            Some(tools) => fields::optional_object(tools, "capabilities.tasks.requests.tools", "call")?.is_some(),
        },
    };
    Ok(LegacyTaskCapabilities { list, cancel, tools_call })
}
