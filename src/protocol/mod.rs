//! Wire types and codecs for MCP 2026-07-28 and the Tasks extension, and (in [`legacy`]) for the
//! 2025-11-25 experimental tasks of older servers. I/O-free.
//!
//! Decoding is tolerant where real servers differ (a missing `resultType` is `complete`, a handle may be
//! nested under `task`, unknown fields are ignored) and strict where the spec is (unknown `resultType`,
//! a `task` result where none may appear, a terminal status without its `result`/`error`, fractional
//! milliseconds). Encoding is exact.

mod error;
pub(crate) mod fields;

pub mod discover;
pub mod form;
pub mod headers;
pub mod input;
pub mod jsonrpc;
pub mod legacy;
pub mod meta;
pub mod param_headers;
pub mod request;
pub(crate) mod result_type;
pub mod sse;
pub mod subscriptions;
pub mod task;
pub mod task_protocol;
pub mod timestamp;
pub mod tool_call;
pub mod tool_result;

pub use error::DecodeError;
pub use fields::Object;

/// The protocol version this crate speaks and sends on every request.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// The Tasks extension identifier, declared in every request's client capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
