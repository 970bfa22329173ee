//! The HTTP headers of a 2025-11-25 Streamable HTTP request, and the session id the server hands out.
//!
//! Unlike 2026 there is no `Mcp-Method`/`Mcp-Name` and no per-request `_meta`: the session carries the
//! version and capabilities, so every request after `initialize` names the session and the version.
use super::super::headers::{ACCEPT, ACCEPT_VALUE, CONTENT_TYPE, PROTOCOL_VERSION_HEADER};
use super::super::DecodeError;
use super::LEGACY_PROTOCOL_VERSION;

/// The session header: set by the server on the `initialize` answer, echoed on every later request.
pub const SESSION_ID_HEADER: &str = "Mcp-Session-Id";

/// Longest session id accepted. The spec sets no bound; a UUID or JWT fits easily, a megabyte does not.
pub const MAX_SESSION_ID_LEN: usize = 1024;

/// Headers of the `initialize` POST: content negotiation only. The version travels in the body and no
/// session exists yet (the SDK's client sends exactly these).
pub fn initialize_headers() -> Vec<(&'static str, String)> {
    vec![(CONTENT_TYPE, "application/json".to_owned()), (ACCEPT, ACCEPT_VALUE.to_owned())]
}

/// Headers of every POST after `initialize` (requests, notifications and responses to server requests):
/// the negotiated version and, when the server issued one, the session.
pub fn session_headers(session_id: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = initialize_headers();
    headers.push((PROTOCOL_VERSION_HEADER, LEGACY_PROTOCOL_VERSION.to_owned()));
    if let Some(id) = session_id {
        headers.push((SESSION_ID_HEADER, id.to_owned()));
    }
    headers
}

/// Headers of the GET that opens the session's server-to-client SSE stream.
pub fn stream_headers(session_id: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers =
        vec![(ACCEPT, "text/event-stream".to_owned()), (PROTOCOL_VERSION_HEADER, LEGACY_PROTOCOL_VERSION.to_owned())];
    if let Some(id) = session_id {
        headers.push((SESSION_ID_HEADER, id.to_owned()));
    }
    headers
}

/// Checks an `Mcp-Session-Id` response header before it is stored and echoed: the spec allows only
/// visible ASCII (0x21–0x7E); anything else could not be sent back as a header value.
pub fn read_session_id(value: &str) -> Result<String, DecodeError> {
    const WHAT: &str = "Mcp-Session-Id header";
    if value.is_empty() {
        return Err(DecodeError::Invalid { what: WHAT, detail: "the session id is empty".into() });
    }
    if value.len() > MAX_SESSION_ID_LEN {
        return Err(DecodeError::Invalid {
            what: WHAT,
            detail: format!("the session id is {} bytes long; at most {MAX_SESSION_ID_LEN} are accepted", value.len()),
        });
    }
    if !value.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(DecodeError::Invalid { what: WHAT, detail: "the session id must be visible ASCII only".into() });
    }
    Ok(value.to_owned())
}
