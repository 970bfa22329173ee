//! CORS for browser hosts on loopback origins: the preflight, and the headers on every answer.
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};

/// Request headers a browser client may send.
const ALLOWED_HEADERS: &str = "content-type, accept, authorization, mcp-protocol-version, mcp-method, mcp-name";
/// Response headers a browser client may read.
const EXPOSED_HEADERS: &str = "MCP-Protocol-Version, WWW-Authenticate, Retry-After, Content-Type";

/// Adds the CORS answer headers for an allowed `origin`.
pub fn decorate(headers: &mut HeaderMap, origin: Option<&HeaderValue>) {
    if let Some(origin) = origin {
        headers.insert("access-control-allow-origin", origin.clone());
        headers.insert("vary", HeaderValue::from_static("Origin"));
        headers.insert("access-control-expose-headers", HeaderValue::from_static(EXPOSED_HEADERS));
    }
}

/// The preflight answer: the standard MCP headers plus any `Mcp-Param-*` the browser asks for.
pub fn preflight(request: &HeaderMap) -> Response<Body> {
    let mut allowed = ALLOWED_HEADERS.to_owned();
    if let Some(asked) = request.get("access-control-request-headers").and_then(|v| v.to_str().ok()) {
        for name in asked.split(',').map(str::trim).filter(|n| n.to_ascii_lowercase().starts_with("mcp-param-")) {
            allowed.push_str(", ");
            allowed.push_str(&name.to_ascii_lowercase());
        }
    }
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    decorate(headers, request.get("origin"));
    headers.insert("access-control-allow-methods", HeaderValue::from_static("POST, OPTIONS"));
    if let Ok(v) = HeaderValue::from_str(&allowed) {
        headers.insert("access-control-allow-headers", v);
    }
    headers.insert("access-control-max-age", HeaderValue::from_static("600"));
    response
}
