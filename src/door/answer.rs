//! An answer's body turned into the JSON-RPC result of the request it answers (the HTTP half is the
//! driver's `http.js`). A JSON body comes whole; an event stream comes chunk by chunk ([`Stream`]), so
//! an endless event is refused at the limit, not after the stream ends.
use crate::json::Value;
use crate::protocol::jsonrpc::{parse_answer_within, RequestId};
use crate::protocol::sse::SseParser;
use crate::protocol::DecodeError;
use crate::transport::reply::result_of;
use crate::transport::TransportError;

/// How an answer's HTTP status and `Retry-After` read, and how many questions it may ask.
#[derive(Debug, Clone, Copy)]
pub(super) struct Head {
    pub(super) status: u16,
    pub(super) retry_after_ms: Option<u64>,
    /// `maxInputRequests`: an answer asking more is refused as it is read ([`parse_answer_within`]).
    pub(super) questions: usize,
}

/// The result in a JSON body. A body that is no JSON is a protocol error on a 2xx and an HTTP failure
/// otherwise.
pub(super) fn from_body(head: Head, body: &[u8]) -> Result<Value, TransportError> {
    from_parsed(head, parse_answer_within(&crate::text::lossy_utf8(body), head.questions))
}

/// [`from_body`] for a body already parsed.
pub(super) fn from_parsed(head: Head, parsed: Result<Value, DecodeError>) -> Result<Value, TransportError> {
    let message = match parsed {
        Ok(message) => Some(message),
        Err(_) if !(200..300).contains(&head.status) => None,
        Err(e) => return Err(TransportError::BadResponse(e)),
    };
    result_of(head.status, head.retry_after_ms, message)
}

/// An event stream being read for the response to one request.
pub(super) struct Stream {
    head: Head,
    parser: SseParser,
}

impl Stream {
    /// A stream whose events are at most `limit` bytes each.
    pub(super) fn new(head: Head, limit: usize) -> Self {
        Self { head, parser: SseParser::with_limit(limit) }
    }

    /// Reads `chunk` (`None`: the stream ended). `None` while the response to `id` has not come; then
    /// its result, or why there is none. Every other message goes to `on_other` (a listen stream's
    /// notifications); an error it returns ends the reading with that error.
    pub(super) fn read(
        &mut self,
        id: &RequestId,
        chunk: Option<&[u8]>,
        on_other: &mut dyn FnMut(Value) -> Result<(), TransportError>,
    ) -> Option<Result<Value, TransportError>> {
        let events = match chunk {
            Some(bytes) => self.parser.push(bytes),
            None => self.parser.finish(),
        };
        let events = match events {
            Ok(events) => events,
            Err(e) => return Some(Err(TransportError::BadResponse(e))),
        };
        for event in events {
            let message = match parse_answer_within(&event.data, self.head.questions) {
                Ok(message) => message,
                // Too many questions: the stream is not read on (a listen's tasks are then polled).
                Err(e @ DecodeError::Invalid { .. }) => return Some(Err(TransportError::BadResponse(e))),
                Err(_) => continue,
            };
            let ours = message.get("id").and_then(|v| RequestId::from_json(v).ok()).is_some_and(|m| &m == id);
            if ours && message.get("method").is_none() {
                return Some(result_of(self.head.status, self.head.retry_after_ms, Some(message)));
            }
            if let Err(e) = on_other(message) {
                return Some(Err(e));
            }
        }
        chunk.is_none().then(|| Err(TransportError::Network("the event stream ended before the answer".into())))
    }
}
