//! An answer's body, as the driver read it whole, turned into the JSON-RPC result of the request it
//! answers: the same decisions as the Rust transport's (`transport::fetch`), from bytes.
use crate::json::Value;
use crate::protocol::jsonrpc::{parse_answer, RequestId};
use crate::protocol::sse::SseParser;
use crate::protocol::DecodeError;
use crate::transport::reply::result_of;
use crate::transport::TransportError;

/// The result answering request `id`: from a JSON body, or from the event stream (`sse`) whose
/// events are at most `limit` bytes each. A body that is no JSON is a protocol error on a 2xx and an
/// HTTP failure otherwise.
pub(super) fn read(
    id: &RequestId,
    status: u16,
    retry_after_ms: Option<u64>,
    sse: bool,
    body: &[u8],
    limit: usize,
) -> Result<Value, TransportError> {
    let message = if sse {
        Some(from_stream(id, body, limit)?)
    } else {
        match parse_answer(&crate::text::lossy_utf8(body)) {
            Ok(message) => Some(message),
            Err(_) if !(200..300).contains(&status) => None,
            Err(e) => return Err(TransportError::BadResponse(DecodeError::NotJson { detail: e.to_string() })),
        }
    };
    result_of(status, retry_after_ms, message)
}

/// The response to `id` among a stream's events (the others, such as progress, are not read yet).
fn from_stream(id: &RequestId, body: &[u8], limit: usize) -> Result<Value, TransportError> {
    let mut parser = SseParser::with_limit(limit);
    let mut events = parser.push(body).map_err(TransportError::BadResponse)?;
    events.extend(parser.finish().map_err(TransportError::BadResponse)?);
    for event in events {
        let Ok(message) = parse_answer(&event.data) else { continue };
        let ours = message.get("id").and_then(|v| RequestId::from_json(v).ok()).is_some_and(|m| &m == id);
        if ours && message.get("method").is_none() {
            return Ok(message);
        }
    }
    Err(TransportError::Network("the event stream ended before the answer".into()))
}
