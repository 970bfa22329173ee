//! A `tools/call` in flight, recorded before it is sent: if the page dies before the answer, the next
//! start finds it and reports "outcome unknown" instead of losing it silently.
use crate::json::{json, Value};
use crate::protocol::Object;

use super::stored::{Fields, StoredForm};

/// A call whose answer has not arrived yet.
#[derive(Debug, Clone, PartialEq)]
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

impl StoredForm for PendingCall {
    fn to_json(&self) -> Value {
        json!({
            "callId": self.call_id,
            "toolName": self.tool_name,
            "arguments": self.arguments.clone(),
            "startedAt": self.started_at,
        })
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "call")?;
        let arguments = match f.opt("arguments") {
            None => None,
            Some(v) => Some(v.as_object().cloned().ok_or_else(|| "call.arguments: expected an object".to_owned())?),
        };
        Ok(Self {
            call_id: f.str("callId")?.to_owned(),
            tool_name: f.str("toolName")?.to_owned(),
            arguments,
            started_at: f.u64("startedAt")?,
        })
    }
}
