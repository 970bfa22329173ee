//! Why an exchange with the server failed, as data a host can act on.
use std::fmt;

use crate::error::{ClientError, ErrorKind};
use crate::machine::backoff::Failure;
use crate::protocol::jsonrpc::{RpcError, RpcErrorKind};
use crate::protocol::DecodeError;

/// A failed request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TransportError {
    /// No answer: offline, DNS, refused, reset, or a CORS refusal (browsers hide which).
    Network(String),
    /// The request timed out (its own timeout, not the host's signal).
    Timeout,
    /// The host's `AbortSignal` fired.
    Aborted,
    /// An HTTP failure without a JSON-RPC error body (5xx, 429, a proxy page…).
    Http {
        /// The status.
        status: u16,
        /// `Retry-After`, in ms, when the server sent one.
        retry_after_ms: Option<u64>,
    },
    /// The server answered something this client cannot read.
    BadResponse(DecodeError),
    /// The server answered with a JSON-RPC error (whatever the HTTP status).
    Rpc(RpcError),
    /// The host's `headers` callback failed; nothing was sent.
    Headers(String),
    /// The server redirected the request somewhere this client does not follow (`http.js`).
    Redirect {
        /// The redirect's status (0 when a browser hid it).
        status: u16,
        /// The target's origin, when it could be read.
        to: Option<String>,
    },
}

impl TransportError {
    /// The kind of failure a host sees.
    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            Self::Network(_) => ErrorKind::Network,
            Self::Timeout => ErrorKind::Timeout,
            Self::Aborted => ErrorKind::Aborted,
            Self::Http { status: 401 | 403, .. } => ErrorKind::Auth,
            Self::Http { .. } => ErrorKind::Http,
            Self::BadResponse(_) => ErrorKind::Protocol,
            Self::Rpc(_) => ErrorKind::Rpc,
            Self::Headers(_) => ErrorKind::Headers,
            Self::Redirect { .. } => ErrorKind::Redirect,
        }
    }

    /// Whether trying again later may succeed.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            Self::Network(_) | Self::Timeout => true,
            Self::Http { status, .. } => *status == 429 || *status >= 500,
            Self::Rpc(e) => e.kind() == RpcErrorKind::Internal,
            Self::Aborted | Self::BadResponse(_) | Self::Headers(_) | Self::Redirect { .. } => false,
        }
    }

    /// The JSON-RPC code, where there is one.
    pub(crate) fn code(&self) -> Option<i64> {
        match self {
            Self::Rpc(e) => Some(e.code),
            _ => None,
        }
    }

    /// How the state machine should schedule after this failure.
    pub(crate) fn as_failure(&self) -> Failure {
        match self {
            Self::Network(_) | Self::Headers(_) | Self::Aborted => Failure::Network,
            Self::Timeout => Failure::Timeout,
            Self::Http { status, retry_after_ms } => Failure::Http { status: *status, retry_after_ms: *retry_after_ms },
            Self::Redirect { status, .. } => Failure::Http { status: *status, retry_after_ms: None },
            Self::BadResponse(_) => Failure::BadResponse,
            Self::Rpc(e) => Failure::Rpc { code: e.code },
        }
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Network(detail) => {
                write!(f, "could not reach the MCP server ({detail}); check the connection and the server URL")
            }
            Self::Timeout => f.write_str("the MCP server did not answer in time"),
            Self::Aborted => f.write_str("the request was aborted"),
            Self::Http { status, retry_after_ms } => {
                write!(f, "the MCP server answered HTTP {}", crate::text::unsigned((*status).into()))?;
                match retry_after_ms {
                    Some(ms) => write!(f, "; retry in {} s", crate::text::unsigned(ms.div_ceil(1000))),
                    None => Ok(()),
                }
            }
            Self::BadResponse(e) => write!(f, "the MCP server's answer could not be read: {e}"),
            Self::Rpc(e) => fmt::Display::fmt(e, f),
            Self::Headers(detail) => write!(f, "the headers callback failed: {detail}"),
            Self::Redirect { status, to } => {
                f.write_str("the MCP server redirected the request")?;
                match (status, to) {
                    (0, _) => f.write_str(" (the browser hides where)")?,
                    (status, to) => {
                        write!(f, " (HTTP {})", crate::text::unsigned((*status).into()))?;
                        if let Some(to) = to {
                            write!(f, " to {to}")?;
                        }
                    }
                }
                f.write_str(", which this client does not follow: it sends only to the server's own origin, keeping the method (307, 308); open the client with the server's final URL")
            }
        }
    }
}

impl std::error::Error for TransportError {}

impl From<&TransportError> for ClientError {
    fn from(e: &TransportError) -> Self {
        ClientError { kind: e.kind(), message: crate::text::display(e), code: e.code(), retryable: e.retryable() }
    }
}

/// `Retry-After` as seconds (HTTP dates are rare from MCP servers and read as absent).
pub(crate) fn parse_retry_after(value: &str) -> Option<u64> {
    crate::json::digits_value(value.trim_ascii()).map(|s| s.saturating_mul(1000))
}

#[cfg(test)]
mod tests {
    use super::{parse_retry_after, RpcError, TransportError};

    #[test]
    fn http_redirect_and_rpc_failures_read_as_written() {
        let text = |e: TransportError| e.to_string();
        assert_eq!(
            text(TransportError::Http { status: 503, retry_after_ms: None }),
            "the MCP server answered HTTP 503"
        );
        assert_eq!(
            text(TransportError::Http { status: 429, retry_after_ms: Some(1_500) }),
            "the MCP server answered HTTP 429; retry in 2 s"
        );
        let follow = ", which this client does not follow: it sends only to the server's own origin, keeping the method (307, 308); open the client with the server's final URL";
        let redirect = |status, to: Option<&str>| text(TransportError::Redirect { status, to: to.map(str::to_owned) });
        assert_eq!(
            redirect(0, Some("https://x")),
            format!("the MCP server redirected the request (the browser hides where){follow}")
        );
        assert_eq!(redirect(302, None), format!("the MCP server redirected the request (HTTP 302){follow}"));
        assert_eq!(
            redirect(307, Some("https://other.example")),
            format!("the MCP server redirected the request (HTTP 307) to https://other.example{follow}")
        );
        assert_eq!(text(TransportError::Rpc(RpcError::new(-32603, "boom"))), "boom (JSON-RPC error -32603)");
    }

    #[test]
    fn retry_after_is_whole_seconds_of_digits_only() {
        assert_eq!(parse_retry_after(" 120 "), Some(120_000));
        assert_eq!(parse_retry_after("0"), Some(0));
        for not_seconds in ["+5", "-5", "1.5", "", "Wed, 21 Oct 2026 07:28:00 GMT", "99999999999999999999"] {
            assert_eq!(parse_retry_after(not_seconds), None, "{not_seconds}");
        }
    }
}
