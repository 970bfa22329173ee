//! The door of `/admin/*` (behind `--faults`): a loopback origin, an answered host, then the admin token.
//!
//! The admin endpoints change what every client of the server sees (faults, expiries, a store
//! restart), so the origin check alone is not enough: any local process, and any page on any
//! loopback origin, could still drive them. Each request must also carry
//! `Authorization: Bearer <admin token>`. `Authorization` rather than a header of our own because
//! these are routes of their own: `/mcp`'s bearer tokens (`--auth`) never reach them, and the
//! standard header is what every HTTP client already knows how to send (and redacts from its logs).
//!
//! The token is `--admin-token-file`'s, `MCP_TASKS_SERVER_ADMIN_TOKEN`'s or `--admin-token`'s, or,
//! without any of them, 256 random bits generated at start and printed on the server's first stdout
//! line, where the test harnesses read the URL too. A generated token is the better choice for tests: a
//! flag's value is visible to every local user in the process list, a pipe to the parent is not.
//!
//! Browser tests send the token from a page on another loopback port, and a browser sends
//! `Authorization` cross-origin only after a CORS preflight, so `/admin/*` answers preflights and adds
//! CORS headers for loopback origins (foreign ones are refused before any of this). That opens
//! nothing: a page still needs the token.
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, Response, StatusCode};
use axum::middleware::Next;
use mcp_tasks_web::json::json;

use super::{cors, json_response, origin, secret};

/// What the door checks against.
#[derive(Clone)]
pub struct AdminGate {
    /// The admin token; `None` refuses every request (a server started without one fails closed).
    pub token: Option<String>,
    /// Which `Host`s are answered.
    pub hosts: origin::HostPolicy,
}

/// A fresh admin token: 32 bytes of OS randomness as 64 hex digits. An error, not a weaker token,
/// when the OS has no randomness to give.
pub fn generate_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no OS randomness for the admin token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The token of `Authorization: Bearer <token>` (the scheme is case-insensitive, RFC 9110 §11.1).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get("authorization")?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Whether the request carries the admin token.
fn authorized(gate: &AdminGate, headers: &HeaderMap) -> bool {
    match (&gate.token, bearer(headers)) {
        (Some(expected), Some(sent)) => secret::same_token(sent, expected),
        _ => false,
    }
}

/// The preflight answer for `/admin/*`: its methods, and the two headers its callers send.
fn preflight(request: &HeaderMap) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    cors::decorate(headers, request.get("origin"));
    headers.insert("access-control-allow-methods", HeaderValue::from_static("GET, POST, OPTIONS"));
    headers.insert("access-control-allow-headers", HeaderValue::from_static("authorization, content-type"));
    headers.insert("access-control-max-age", HeaderValue::from_static("600"));
    response
}

/// Middleware on every `/admin/*` route: 403 for a foreign origin or host, the preflight for
/// `OPTIONS`, 401 (JSON, `WWW-Authenticate: Bearer`) without the admin token, else the handler.
/// Answers to an allowed origin carry CORS headers, so a test page can read them.
pub async fn gate(State(gate): State<AdminGate>, request: Request, next: Next) -> Response<Body> {
    if let Err(refusal) = origin::check(request.headers(), &gate.hosts) {
        return json_response(StatusCode::FORBIDDEN, &json!({ "error": refusal.message() }));
    }
    if request.method() == Method::OPTIONS {
        return preflight(request.headers());
    }
    let origin = request.headers().get("origin").cloned();
    let mut response = if authorized(&gate, request.headers()) {
        next.run(request).await
    } else {
        let error = "Unauthorized: /admin/* needs `Authorization: Bearer <admin token>` (--admin-token, or the \
                     token the server printed at start)";
        let mut response = json_response(StatusCode::UNAUTHORIZED, &json!({ "error": error }));
        response.headers_mut().insert("www-authenticate", HeaderValue::from_static("Bearer realm=\"admin\""));
        response
    };
    cors::decorate(response.headers_mut(), origin.as_ref());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_str(value).expect("header value"));
        headers
    }

    #[test]
    fn only_the_exact_token_passes() {
        let gate =
            AdminGate { token: Some("s3cret".into()), hosts: origin::HostPolicy::new([127, 0, 0, 1].into(), &[]) };
        assert!(authorized(&gate, &with_authorization("Bearer s3cret")));
        assert!(authorized(&gate, &with_authorization("bearer  s3cret ")));
        for wrong in ["Bearer s3cre", "Bearer s3cret2", "Bearer S3CRET", "Basic s3cret", "s3cret", "Bearer "] {
            assert!(!authorized(&gate, &with_authorization(wrong)), "{wrong}");
        }
        assert!(!authorized(&gate, &HeaderMap::new()));
        let closed = AdminGate { token: None, hosts: origin::HostPolicy::new([127, 0, 0, 1].into(), &[]) };
        assert!(!authorized(&closed, &with_authorization("Bearer s3cret")), "no token configured: fail closed");
    }

    #[test]
    fn generated_tokens_are_long_and_fresh() {
        let (a, b) = (generate_token().expect("randomness"), generate_token().expect("randomness"));
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
