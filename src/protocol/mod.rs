//! Wire types and codecs for MCP 2026-07-28 and the Tasks extension. I/O-free.

/// The protocol version this crate speaks and sends on every request.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// The Tasks extension identifier, declared in every request's client capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
