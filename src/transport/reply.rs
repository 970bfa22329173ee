//! What an answer's status and JSON-RPC message mean, and when a refused protocol version is worth one
//! more try: pure decisions that the Rust transport and the JS driver's door share.
use crate::client_state::ExchangeOutcome;
use crate::json::Value;
use crate::protocol::jsonrpc::{codes, decode_message_value, Incoming, RpcError, RpcErrorKind};
use crate::protocol::request::RequestResult;
use crate::protocol::DecodeError;

use super::TransportError;

/// The JSON-RPC result of an answer, or why there is none: the server's JSON-RPC error whatever the
/// status; an HTTP failure for a non-2xx answer without one, and for any non-2xx answer with
/// `Retry-After` (a gateway's 503 or 429 comes with a plain-text body or a JSON-RPC error; either way
/// its delay holds for the whole server); a protocol error for a 2xx that is no response. `message`:
/// the JSON-RPC message the body held, if any.
pub(crate) fn result_of(
    status: u16,
    retry_after_ms: Option<u64>,
    message: Option<Value>,
) -> Result<Value, TransportError> {
    let ok = (200..300).contains(&status);
    let Some(message) = message.filter(|_| ok || retry_after_ms.is_none()) else {
        return Err(TransportError::Http { status, retry_after_ms });
    };
    match decode_message_value(message) {
        Ok(Incoming::Response(r)) => match r.outcome {
            Err(e) => Err(TransportError::Rpc(e)),
            Ok(_) if !ok => Err(TransportError::Http { status, retry_after_ms }),
            Ok(result) => Ok(result),
        },
        // A non-2xx body that is not a JSON-RPC response (a proxy's JSON, say) is an HTTP failure.
        _ if !ok => Err(TransportError::Http { status, retry_after_ms }),
        Ok(_) => {
            Err(TransportError::BadResponse(DecodeError::InvalidEnvelope { detail: "expected a response".into() }))
        }
        Err(e) => Err(TransportError::BadResponse(e)),
    }
}

/// What to do after a failed request when it may be a -32022 (unsupported protocol version).
#[derive(Debug, PartialEq)]
pub(crate) enum VersionRetry {
    /// Not a -32022, or one that lists nothing: the failure stands.
    No,
    /// The server lists the version this client speaks: send the request once more, under a new id.
    Again,
    /// The server lists only other versions: this failure, naming both sides.
    Refused(TransportError),
}

/// [`VersionRetry`] for `error`.
pub(crate) fn version_retry(error: &TransportError) -> VersionRetry {
    let TransportError::Rpc(e) = error else { return VersionRetry::No };
    if e.code != codes::UNSUPPORTED_PROTOCOL_VERSION {
        return VersionRetry::No;
    }
    match e.supported_versions() {
        Some(versions) if versions.iter().any(|v| v == crate::protocol::PROTOCOL_VERSION) => VersionRetry::Again,
        Some(versions) => VersionRetry::Refused(TransportError::Rpc(RpcError::new(
            e.code,
            format!(
                "the server supports {}; this client speaks {}",
                crate::text::comma_list(&versions),
                crate::protocol::PROTOCOL_VERSION
            ),
        ))),
        None => VersionRetry::No,
    }
}

/// What the state needs to know of a `tasks/*` request's end.
pub(crate) fn exchange_outcome(result: Result<RequestResult, TransportError>) -> ExchangeOutcome {
    match result {
        Ok(RequestResult::Task(task)) => ExchangeOutcome::Answered(Some(Box::new(task))),
        Ok(_) => ExchangeOutcome::Answered(None),
        Err(e) => failure_outcome(e),
    }
}

/// What a failed `tasks/*` request means to the state: `-32602` says the server does not know the task.
pub(crate) fn failure_outcome(error: TransportError) -> ExchangeOutcome {
    match error {
        TransportError::Rpc(e) if e.kind() == RpcErrorKind::InvalidParams => ExchangeOutcome::UnknownTask(e.message),
        e => ExchangeOutcome::Failed(e.as_failure()),
    }
}

/// Whether a failed 2026-07-28 request may mean the server speaks an older protocol: an HTTP 4xx that
/// is not about authorization or rate limits, or a JSON-RPC error a 2026-07-28 server would not use
/// for a well-formed request (a TypeScript SDK v1 server answers `-32000` "No valid session ID").
pub(crate) fn may_be_older_server(error: &TransportError) -> bool {
    match error {
        TransportError::Http { status, .. } => {
            (400..500).contains(status) && !matches!(status, 401 | 403 | 407 | 408 | 429)
        }
        TransportError::Rpc(e) => {
            matches!(e.kind(), RpcErrorKind::InvalidRequest | RpcErrorKind::MethodNotFound | RpcErrorKind::Other)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    #[test]
    fn a_refusal_with_retry_after_is_an_http_failure_whatever_its_body_says() {
        let error = json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32000, "message": "Service unavailable" } });
        let paused = TransportError::Http { status: 503, retry_after_ms: Some(1_000) };
        assert_eq!(result_of(503, Some(1_000), Some(error.clone())), Err(paused.clone()), "a gateway's JSON-RPC words");
        assert_eq!(result_of(503, Some(1_000), None), Err(paused), "a plain-text body");
        assert!(matches!(result_of(503, None, Some(error.clone())), Err(TransportError::Rpc(e)) if e.code == -32000));
        assert!(matches!(result_of(200, Some(1_000), Some(error)), Err(TransportError::Rpc(_))), "a 2xx is read");
    }
}
