//! The HTTP headers a Streamable HTTP request carries, and the `=?base64?…?=` form for values that
//! cannot travel as plain visible ASCII.
use std::fmt;

use super::PROTOCOL_VERSION;

/// `Content-Type` of every POST.
pub(crate) const CONTENT_TYPE: &str = "Content-Type";
/// `Accept`: both JSON and SSE, since the server picks one per response.
pub(crate) const ACCEPT: &str = "Accept";
/// Protocol version header; must equal `_meta` protocolVersion.
pub const PROTOCOL_VERSION_HEADER: &str = "MCP-Protocol-Version";
/// The JSON-RPC method, for routing without parsing the body.
pub const METHOD_HEADER: &str = "Mcp-Method";
/// Tool name for `tools/call`, taskId for `tasks/get|update|cancel`.
pub const NAME_HEADER: &str = "Mcp-Name";

/// The `Accept` value the spec requires.
pub(crate) const ACCEPT_VALUE: &str = "application/json, text/event-stream";

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// Every header a request with `method` (and, where defined, routing `name`) must carry, in send order.
/// Values are already encoded for the wire.
pub fn request_headers(method: &str, name: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        (CONTENT_TYPE, "application/json".to_owned()),
        (ACCEPT, ACCEPT_VALUE.to_owned()),
        (PROTOCOL_VERSION_HEADER, PROTOCOL_VERSION.to_owned()),
        (METHOD_HEADER, encode_header_value(method)),
    ];
    if let Some(name) = name {
        headers.push((NAME_HEADER, encode_header_value(name)));
    }
    headers
}

/// Whether `value` can travel as is: visible ASCII and inner spaces, no leading or trailing whitespace,
/// and not something that would read back as the base64 sentinel.
fn is_plain(value: &str) -> bool {
    let bytes = value.as_bytes();
    let visible_or_space = bytes.iter().all(|b| (0x20..=0x7e).contains(b));
    let trimmed = bytes.first().is_none_or(|b| *b != b' ') && bytes.last().is_none_or(|b| *b != b' ');
    visible_or_space && trimmed && !looks_like_sentinel(value)
}

fn looks_like_sentinel(value: &str) -> bool {
    value.starts_with(SENTINEL_PREFIX)
        && value.ends_with(SENTINEL_SUFFIX)
        && value.len() >= SENTINEL_PREFIX.len() + SENTINEL_SUFFIX.len()
}

/// Encodes a header value: plain values pass through, anything else becomes `=?base64?<base64 UTF-8>?=`.
pub fn encode_header_value(value: &str) -> String {
    if is_plain(value) {
        value.to_owned()
    } else {
        format!("{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}", base64_encode(value.as_bytes()))
    }
}

/// Why a header value could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderValueError {
    /// The sentinel wraps text that is not valid base64.
    BadBase64,
    /// The base64 decodes to bytes that are not UTF-8.
    NotUtf8,
}

impl fmt::Display for HeaderValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadBase64 => f.write_str("the =?base64?…?= header value is not valid base64"),
            Self::NotUtf8 => f.write_str("the =?base64?…?= header value is not UTF-8"),
        }
    }
}

impl std::error::Error for HeaderValueError {}

/// Decodes a header value as received (server side): the sentinel form is unwrapped, others pass through.
pub fn decode_header_value(value: &str) -> Result<String, HeaderValueError> {
    // What `looks_like_sentinel` accepts, without slicing (the prefix and suffix cannot overlap).
    let Some(inner) = value.strip_prefix(SENTINEL_PREFIX).and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX)) else {
        return Ok(value.to_owned());
    };
    let bytes = base64_decode(inner).ok_or(HeaderValueError::BadBase64)?;
    String::from_utf8(bytes).map_err(|_| HeaderValueError::NotUtf8)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64; padding is optional. `None` for any character outside the alphabet.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    if text.len() - trimmed.len() > 2 || trimmed.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in trimmed.bytes() {
        let v = ALPHABET.iter().position(|a| *a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}
