//! `POST /mcp`: the transport checks (headers against body, `_meta`, auth, extension), then dispatch.
//! JSON-RPC errors carry the HTTP status the spec gives: 400 for -32020/-32021/-32022 and missing
//! `_meta`, 404 for unknown methods.
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::headers::{decode_header_value, METHOD_HEADER, NAME_HEADER, PROTOCOL_VERSION_HEADER};
use mcp_tasks_web::protocol::jsonrpc::{
    codes, decode_message_value, Incoming, RequestId, Response as RpcResponse, RpcError,
};
use mcp_tasks_web::protocol::meta::RequestMeta;
use mcp_tasks_web::protocol::request::ClientRequest;
use mcp_tasks_web::protocol::{DecodeError, PROTOCOL_VERSION};

use super::{cors, json_response, origin, secret, AppState};
use crate::faults::Fault;
use crate::rpc::{self, Reply};

/// A failed request: the JSON-RPC error and the HTTP status it travels with.
struct Rejection {
    id: Option<RequestId>,
    status: StatusCode,
    error: RpcError,
}

fn reject(id: Option<&RequestId>, status: StatusCode, error: RpcError) -> Rejection {
    Rejection { id: id.cloned(), status, error }
}

fn header_mismatch(id: &RequestId, detail: String) -> Rejection {
    let error =
        RpcError::new(codes::HEADER_MISMATCH, format!("Bad Request: the request headers and body disagree: {detail}"));
    reject(Some(id), StatusCode::BAD_REQUEST, error)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The HTTP status for an error from dispatch.
fn status_for(error: &RpcError) -> StatusCode {
    match error.code {
        codes::HEADER_MISMATCH | codes::MISSING_REQUIRED_CLIENT_CAPABILITY | codes::UNSUPPORTED_PROTOCOL_VERSION => {
            StatusCode::BAD_REQUEST
        }
        codes::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

fn unsupported_version(id: &RequestId, requested: &str) -> Rejection {
    let error =
        RpcError::new(codes::UNSUPPORTED_PROTOCOL_VERSION, format!("Unsupported protocol version: {requested}"))
            .with_data(json!({ "supported": [PROTOCOL_VERSION], "requested": requested }));
    reject(Some(id), StatusCode::BAD_REQUEST, error)
}

/// A header value with optional whitespace (OWS) trimmed and the `=?base64?…?=` form decoded.
fn routing_header(headers: &HeaderMap, name: &str) -> Option<Result<String, String>> {
    let raw = headers.get(name)?;
    let text = match raw.to_str() {
        Ok(t) => t.trim_matches([' ', '\t']),
        Err(_) => return Some(Err(format!("{name} is not visible ASCII"))),
    };
    Some(decode_header_value(text).map_err(|e| format!("{name}: {e}")))
}

/// Whether routing header `name` is present and equals `expected`; otherwise what is wrong, after
/// `body_says` (the body's side of the disagreement).
fn routing_matches(headers: &HeaderMap, name: &str, expected: &str, body_says: &str) -> Result<(), String> {
    match routing_header(headers, name) {
        Some(Ok(sent)) if sent == expected => Ok(()),
        Some(Ok(sent)) => Err(format!("{body_says} but the {name} header names {sent:?}")),
        Some(Err(e)) => Err(e),
        None => Err(format!("{body_says} but the required {name} header is absent")),
    }
}

/// The body field `Mcp-Name` must repeat, for the methods that have one.
fn name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// Checks, in order: `Mcp-Method` and `Mcp-Name` against the body (-32020), `_meta` (-32602),
/// `MCP-Protocol-Version` against `_meta` (-32020) and support for it (-32022), then the params.
fn check_request(
    headers: &HeaderMap,
    id: &RequestId,
    method: &str,
    params: &Value,
) -> Result<(RequestMeta, Option<ClientRequest>), Rejection> {
    routing_matches(headers, METHOD_HEADER, method, &format!("the body's method is {method:?}"))
        .map_err(|detail| header_mismatch(id, detail))?;
    if let Some(field) = name_field(method) {
        if let Some(expected) = params.get(field).and_then(Value::as_str) {
            routing_matches(headers, NAME_HEADER, expected, &format!("the body carries params.{field}={expected:?}"))
                .map_err(|detail| header_mismatch(id, detail))?;
        }
    }
    let meta = RequestMeta::from_params(params).map_err(|e| {
        let error = RpcError::new(codes::INVALID_PARAMS, format!("Invalid params: {e}"));
        reject(Some(id), StatusCode::BAD_REQUEST, error)
    })?;
    match header(headers, PROTOCOL_VERSION_HEADER).map(|v| v.trim_matches([' ', '\t'])) {
        None => return Err(header_mismatch(id, "the required MCP-Protocol-Version header is absent".into())),
        Some(v) if v != meta.protocol_version => {
            return Err(header_mismatch(
                id,
                format!("MCP-Protocol-Version is {v:?} but _meta says {:?}", meta.protocol_version),
            ))
        }
        Some(_) => {}
    }
    if meta.protocol_version != PROTOCOL_VERSION {
        return Err(unsupported_version(id, &meta.protocol_version));
    }
    let request = ClientRequest::decode(method, params).map_err(|e: DecodeError| {
        reject(Some(id), StatusCode::OK, RpcError::new(codes::INVALID_PARAMS, format!("Invalid params: {e}")))
    })?;
    Ok((meta, request))
}

/// A 2025-11-25 `initialize`: answered with the version this server speaks, as that era's negotiation
/// says, so an older client learns what it is talking to (and can switch) instead of a bare 4xx.
fn legacy_initialize(id: RequestId) -> Response<Body> {
    let result = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": { "tools": {}, "extensions": { mcp_tasks_web::protocol::TASKS_EXTENSION: {} } },
        "serverInfo": rpc::server_info().to_json(),
        "instructions": "This server speaks MCP 2026-07-28 only: no initialize handshake; send per-request _meta instead."
    });
    json_response(StatusCode::OK, &RpcResponse::result(id, result).to_json())
}

/// What one POST did, for the log line.
struct Outcome {
    response: Response<Body>,
    method: String,
    name: String,
    code: Option<i64>,
}

fn error_response(r: Rejection) -> Response<Body> {
    json_response(r.status, &RpcResponse::error(r.id, r.error).to_json())
}

async fn handle(state: &AppState, owner: &str, headers: &HeaderMap, body: &Bytes) -> Outcome {
    let mut outcome =
        Outcome { response: Response::new(Body::empty()), method: "-".into(), name: String::new(), code: None };
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            outcome.code = Some(codes::PARSE_ERROR);
            let error = RpcError::new(codes::PARSE_ERROR, format!("Parse error: {e}"));
            outcome.response = error_response(reject(None, StatusCode::BAD_REQUEST, error));
            return outcome;
        }
    };
    let (id, method, params) = match decode_message_value(value) {
        Ok(Incoming::Request { id, method, params }) => (id, method, params),
        Ok(Incoming::Notification { method, .. }) => {
            // Notifications need no answer; a 2026 server has none it acts on from clients over HTTP.
            outcome.method = method;
            outcome.response = Response::builder().status(StatusCode::ACCEPTED).body(Body::empty()).unwrap_or_default();
            return outcome;
        }
        Ok(Incoming::Response(_)) | Err(_) => {
            outcome.code = Some(codes::INVALID_REQUEST);
            let error = RpcError::new(codes::INVALID_REQUEST, "Invalid Request: expected a JSON-RPC request");
            outcome.response = error_response(reject(None, StatusCode::BAD_REQUEST, error));
            return outcome;
        }
    };
    outcome.method = method.clone();
    outcome.name = params.get("taskId").or_else(|| params.get("name")).and_then(Value::as_str).unwrap_or("").to_owned();
    if method == "initialize" && params.get("_meta").is_none() {
        outcome.response = legacy_initialize(id);
        return outcome;
    }
    let (meta, request) = match check_request(headers, &id, &method, &params) {
        Ok(checked) => checked,
        Err(rejection) => {
            outcome.code = Some(rejection.error.code);
            outcome.response = error_response(rejection);
            return outcome;
        }
    };
    let result = match request {
        Some(request) => rpc::dispatch(&state.engine, owner, &meta, &id, request).await,
        None => Err(RpcError::new(codes::METHOD_NOT_FOUND, "Method not found")),
    };
    outcome.response = match result {
        Ok(Reply::Result(result)) => json_response(StatusCode::OK, &RpcResponse::result(id, result).to_json()),
        Ok(Reply::Listen(stream)) => Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache, no-transform")
            .header("x-accel-buffering", "no")
            .body(Body::from_stream(stream))
            .unwrap_or_default(),
        Err(error) => {
            outcome.code = Some(error.code);
            error_response(reject(Some(&id), status_for(&error), error))
        }
    };
    outcome
}

/// The owner of a request: the bearer token it carries, when tokens are configured; `None` when it
/// carries no known token.
pub(super) fn authenticate(state: &AppState, headers: &HeaderMap) -> Option<String> {
    if state.config.auth_tokens.is_empty() {
        return Some("anonymous".into());
    }
    let token = header(headers, "authorization").and_then(|v| v.strip_prefix("Bearer ")).map(str::trim)?;
    secret::one_of(token, &state.config.auth_tokens).then(|| owner_of_token(token))
}

/// The owner a token's tasks are bound to: a SHA-256 of it, so the store (and whoever reads its file)
/// never holds a usable token.
pub(crate) fn owner_of_token(token: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(token.as_bytes());
    let mut owner = String::from("token-sha256:");
    for byte in digest {
        owner.push_str(&format!("{byte:02x}"));
    }
    owner
}

/// 401 with `WWW-Authenticate: Bearer`.
fn unauthorized() -> Response<Body> {
    let error = RpcError::new(-32001, "Unauthorized: send Authorization: Bearer <token>");
    let mut response = json_response(StatusCode::UNAUTHORIZED, &RpcResponse::error(None, error).to_json());
    response.headers_mut().insert("www-authenticate", HeaderValue::from_static("Bearer"));
    response
}

/// A response whose body fails at once: the connection is cut before any answer arrives.
fn dropped() -> Response<Body> {
    let failing = futures_util::stream::once(async {
        Err::<Bytes, _>(std::io::Error::other("fault injection: dropped connection"))
    });
    Response::new(Body::from_stream(failing))
}

fn fault_response(fault: Fault) -> Response<Body> {
    match fault {
        Fault::Drop => dropped(),
        Fault::Status(status) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
            Response::builder().status(status).body(Body::from("fault injection: server error")).unwrap_or_default()
        }
        Fault::RateLimited(seconds) => Response::builder()
            .status(StatusCode::TOO_MANY_REQUESTS)
            .header("retry-after", seconds.to_string())
            .body(Body::from("fault injection: slow down"))
            .unwrap_or_default(),
    }
}

/// The `POST /mcp` handler.
pub async fn post(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response<Body> {
    let started = Instant::now();
    let origin_header = headers.get("origin").cloned();
    let mut outcome =
        Outcome { response: Response::new(Body::empty()), method: "-".into(), name: String::new(), code: None };
    if let Err(refusal) = origin::check(&headers, &state.hosts) {
        let error = RpcError::new(-32000, refusal.message());
        outcome.response = json_response(StatusCode::FORBIDDEN, &RpcResponse::error(None, error).to_json());
        state.log(&outcome.method, &outcome.name, outcome.response.status(), Some(-32000), started);
        return outcome.response;
    }
    let faults = state.faults.read().map(|f| f.clone()).unwrap_or_default();
    if faults.latency_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(faults.latency_ms)).await;
    }
    if let Some(fault) = state.dice.decide(&faults) {
        outcome.response = fault_response(fault);
        state.log("(fault)", &format!("{fault:?}"), outcome.response.status(), None, started);
    } else {
        match authenticate(&state, &headers) {
            Some(owner) => outcome = handle(&state, &owner, &headers, &body).await,
            None => outcome.response = unauthorized(),
        }
        state.log(&outcome.method, &outcome.name, outcome.response.status(), outcome.code, started);
    }
    cors::decorate(outcome.response.headers_mut(), origin_header.as_ref());
    outcome.response
}
