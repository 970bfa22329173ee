//! Which task protocol a server speaks, decided from its answers alone (pure: the caller sends
//! `server/discover`, then maybe `initialize`, and feeds the outcomes here).
//!
//! Digest §1.4: send a modern request first; a 4xx without a recognisable modern JSON-RPC error means
//! an older server, so try `initialize`. Observed: a TypeScript SDK v1 server answers any request
//! without a session with HTTP 400 and `-32000` ("Bad Request: No valid session ID provided", id
//! `null`); a FastMCP 4 server answers an unknown method with HTTP 404 and `-32601`.
use super::super::discover::DiscoverResult;
use super::super::jsonrpc::{RpcError, RpcErrorKind};
use super::super::{DecodeError, PROTOCOL_VERSION};
use super::handshake::LegacyServer;
use super::LEGACY_PROTOCOL_VERSION;

/// The task protocol to drive a server with. Store it with each task id: the same id must be driven
/// with the same flow after a restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// MCP 2026-07-28 with the Tasks extension.
    Extension2026,
    /// MCP 2025-11-25 experimental tasks (`initialize`, `params.task`, `tasks/result`).
    Legacy2025,
    /// Neither: tools are called plainly and no task is ever created.
    NoTasks,
}

/// What came back from `server/discover`.
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoverOutcome {
    /// A decoded `DiscoverResult`.
    Result(DiscoverResult),
    /// A JSON-RPC error, with the HTTP status it came with.
    Error {
        /// The HTTP status of the response.
        http_status: u16,
        /// The error.
        error: RpcError,
    },
    /// An HTTP status without a readable JSON-RPC body (a proxy page, an empty 405, bytes that do not
    /// decode as a discover result).
    Http {
        /// The HTTP status of the response.
        status: u16,
    },
}

/// The decision after `server/discover`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoverVerdict {
    /// A 2026 server offering the Tasks extension.
    Extension2026,
    /// Not a 2026 task server, but maybe a 2025-11-25 one: send `initialize`.
    TryInitialize,
    /// A server that offers no task protocol this client speaks.
    NoTasks,
    /// No answer about the protocol (authorization, rate limit, server failure): report it, decide
    /// nothing, and ask again later.
    Unresolved,
}

/// Decides from the `server/discover` outcome.
///
/// * A result listing 2026-07-28 with the Tasks extension: [`DiscoverVerdict::Extension2026`]. A result
///   without it still tries `initialize` when it lists 2025-11-25 (a server may keep legacy tasks),
///   otherwise [`DiscoverVerdict::NoTasks`].
/// * `-32601`, or any other error or bare status in the 4xx range that says "not this era" (400, 404,
///   405, 406, 415, …): [`DiscoverVerdict::TryInitialize`]. `-32022` tries `initialize` unless its
///   `supported` list rules 2025-11-25 out.
/// * Modern errors about our request (`-32020`, `-32021`), `-32603`, 401/403/407/408/429, 5xx and
///   2xx without a result: [`DiscoverVerdict::Unresolved`].
pub fn after_discover(outcome: &DiscoverOutcome) -> DiscoverVerdict {
    match outcome {
        DiscoverOutcome::Result(result) => {
            let lists = |v: &str| result.supported_versions.iter().any(|s| s == v);
            if lists(PROTOCOL_VERSION) && result.supports_tasks() {
                DiscoverVerdict::Extension2026
            } else if lists(LEGACY_PROTOCOL_VERSION) {
                DiscoverVerdict::TryInitialize
            } else {
                DiscoverVerdict::NoTasks
            }
        }
        DiscoverOutcome::Error { http_status, error } => match error.kind() {
            RpcErrorKind::MethodNotFound => DiscoverVerdict::TryInitialize,
            RpcErrorKind::UnsupportedProtocolVersion => match error.supported_versions() {
                Some(list) if !list.is_empty() && !list.iter().any(|v| v == LEGACY_PROTOCOL_VERSION) => {
                    DiscoverVerdict::NoTasks
                }
                _ => DiscoverVerdict::TryInitialize,
            },
            RpcErrorKind::HeaderMismatch | RpcErrorKind::MissingRequiredClientCapability | RpcErrorKind::Internal => {
                DiscoverVerdict::Unresolved
            }
            _ if (200..300).contains(http_status) || is_era_status(*http_status) => DiscoverVerdict::TryInitialize,
            _ => DiscoverVerdict::Unresolved,
        },
        DiscoverOutcome::Http { status } if is_era_status(*status) => DiscoverVerdict::TryInitialize,
        DiscoverOutcome::Http { .. } => DiscoverVerdict::Unresolved,
    }
}

/// A 4xx that can mean "this server does not know the request", as opposed to authorization (401,
/// 403, 407), a timeout (408) or a rate limit (429), which say nothing about the protocol.
fn is_era_status(status: u16) -> bool {
    (400..500).contains(&status) && !matches!(status, 401 | 403 | 407 | 408 | 429)
}

/// Decides from the `initialize` answer: [`Generation::Legacy2025`] when the server speaks 2025-11-25
/// and declares `tasks.requests.tools.call`; [`Generation::NoTasks`] otherwise (another version, which
/// decodes as [`DecodeError::UnknownProtocolVersion`], a malformed answer, no `capabilities.tasks`, or
/// tasks without `tools/call`, since a tool client could then never ask for a task).
pub fn after_initialize(answer: &Result<LegacyServer, DecodeError>) -> Generation {
    match answer {
        Ok(server) if server.tasks.is_some_and(|t| t.tools_call) => Generation::Legacy2025,
        _ => Generation::NoTasks,
    }
}
