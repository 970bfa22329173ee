//! A `tools/call` in flight, recorded before it is sent: if the page dies before the answer, the next
//! start finds it and reports "outcome unknown" instead of losing it silently.
use serde::{Deserialize, Serialize};

use crate::protocol::Object;

/// A call whose answer has not arrived yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingCall {
    /// A local id for the call (not a JSON-RPC id: those are per request).
    pub call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The arguments it was called with, so a host can offer to call again.
    pub arguments: Option<Object>,
    /// When the call was recorded (Unix ms).
    pub started_at: u64,
}
