//! Wire types and codecs for servers of the previous generation: MCP 2025-11-25 with its
//! "experimental tasks" in core. I/O-free, like the rest of `protocol`.
//!
//! The legacy flow differs from the extension at every step (digest §9): a session opened with
//! `initialize`, a per-tool `execution.taskSupport` flag, a task the *client* asks for with
//! `params.task`, a nested `CreateTaskResult`, `tasks/get` without the outcome, `tasks/result` to fetch
//! it, and input asked for with real JSON-RPC requests on an SSE stream. Decoders map what they can onto
//! the crate's own [`Task`](super::task::Task) and [`DetailedTask`](super::task::DetailedTask), so the
//! record machine drives both generations; [`negotiate`] picks the generation for a server.
//!
//! Decoding follows the same habits as the 2026 decoders: tolerant of what real servers vary in (extra
//! fields, a missing `resultType`, the 2026 field names), strict about types and statuses, and never a
//! panic on input.

pub mod handshake;
pub mod headers;
pub mod link;
pub mod negotiate;
pub mod payload;
pub mod request;
pub mod stream;
pub mod task;
pub mod tools;

/// The protocol version of the legacy flow, sent in `initialize` and in `MCP-Protocol-Version`.
pub const LEGACY_PROTOCOL_VERSION: &str = "2025-11-25";

/// `_meta` key tying a result, request or notification to a task (`{taskId}`).
pub(crate) const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// `_meta` key of `CreateTaskResult` carrying text a host may show the model right away.
pub(crate) const IMMEDIATE_RESPONSE_META: &str = "io.modelcontextprotocol/model-immediate-response";

use crate::json::Value;

use super::fields::{self, Object};
use super::DecodeError;

/// The `taskId` in `_meta["io.modelcontextprotocol/related-task"]` of `obj`, if any. A present but
/// malformed entry is an error: it would tie a message to the wrong task.
fn related_task(obj: &Object, what: &'static str) -> Result<Option<String>, DecodeError> {
    let Some(meta) = fields::optional_object(obj, what, "_meta")? else { return Ok(None) };
    match meta.get(RELATED_TASK_META) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            let entry = fields::object(v, "related-task metadata")?;
            Ok(Some(fields::required_str(entry, "related-task metadata", "taskId")?.to_owned()))
        }
    }
}
