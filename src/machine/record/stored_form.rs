//! The stored form of a [`TaskRecord`] and the parts only it holds (format 1).
use crate::json::{json, Value};
use crate::machine::stored::{opt_json, Fields, StoredForm};
use crate::protocol::task::DetailedTask;
use crate::protocol::task_protocol::TaskProtocol;

use super::{CancelIntent, FailureNote, InFlight, LocalEnd, TaskRecord};

/// Stored as `{"reason": "ttlElapsed"}` / `{"reason": "unknownToServer", "message": …}`.
impl StoredForm for LocalEnd {
    fn to_json(&self) -> Value {
        match self {
            Self::TtlElapsed => json!({ "reason": "ttlElapsed" }),
            Self::UnknownToServer { message } => json!({ "reason": "unknownToServer", "message": message }),
        }
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "end")?;
        Ok(match f.str("reason")? {
            "ttlElapsed" => Self::TtlElapsed,
            "unknownToServer" => Self::UnknownToServer { message: f.str("message")?.to_owned() },
            other => return Err(format!("end: unknown reason \"{other}\"")),
        })
    }
}

/// Stored as its protocol version, `"2025-11-25"` or `"2026-07-28"`.
impl StoredForm for TaskProtocol {
    fn to_json(&self) -> Value {
        Value::from(self.version())
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value
            .as_str()
            .and_then(TaskProtocol::from_version)
            .ok_or_else(|| "protocol: expected \"2025-11-25\" or \"2026-07-28\"".to_owned())
    }
}

/// Stored as `"none"`, `"requested"` or `"acknowledged"`.
impl StoredForm for CancelIntent {
    fn to_json(&self) -> Value {
        Value::from(match self {
            Self::None => "none",
            Self::Requested => "requested",
            Self::Acknowledged => "acknowledged",
        })
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        match value.as_str() {
            Some("none") => Ok(Self::None),
            Some("requested") => Ok(Self::Requested),
            Some("acknowledged") => Ok(Self::Acknowledged),
            _ => Err("cancel: expected \"none\", \"requested\" or \"acknowledged\"".to_owned()),
        }
    }
}

impl StoredForm for FailureNote {
    fn to_json(&self) -> Value {
        json!({ "at": self.at, "failure": self.failure.to_json() })
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "lastFailure")?;
        Ok(Self { at: f.u64("at")?, failure: f.read("failure")? })
    }
}

/// camelCase fields; `last` in its wire form; `sendLeaseUntil` only while a lease is held; `protocol`
/// only for a 2025-11-25 task (a record without it, as every record before it, is a 2026-07-28 one);
/// `progressToken` only when the call sent one; `ui` only when the tool named an MCP App; what is in flight, the outbox recheck and the latest
/// progress are not stored.
impl StoredForm for TaskRecord {
    fn to_json(&self) -> Value {
        let mut value = json!({
            "taskId": self.task_id,
            "toolName": self.tool_name,
            "receivedAt": self.received_at,
            "last": self.last.to_json(),
            "detailsKnown": self.details_known,
            "end": opt_json(self.end.as_ref()),
            "ledger": self.ledger.to_json(),
            "cancel": self.cancel.to_json(),
            "poll": self.poll.to_json(),
            "outboxRetry": self.outbox_retry.to_json(),
            "cancelRetry": self.cancel_retry.to_json(),
            "observedAt": self.observed_at,
            "lastFailure": opt_json(self.last_failure.as_ref()),
            "jitter": self.jitter.to_json(),
        });
        if let Some(until) = self.send_lease_until {
            value["sendLeaseUntil"] = Value::from(until);
        }
        if self.protocol != TaskProtocol::Extension {
            value["protocol"] = self.protocol.to_json();
        }
        if let Some(token) = &self.progress_token {
            value["progressToken"] = Value::from(token.as_str());
        }
        if let Some(ui) = &self.ui {
            value["ui"] = ui.clone();
        }
        value
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "record")?;
        let last: DetailedTask = f.wire("last", DetailedTask::from_json_lenient)?;
        Ok(Self {
            created_ms: crate::protocol::timestamp::parse_millis(&last.task.created_at),
            protocol: f.read_opt("protocol")?.unwrap_or_default(),
            task_id: f.str("taskId")?.to_owned(),
            tool_name: f.str("toolName")?.to_owned(),
            received_at: f.u64("receivedAt")?,
            last,
            details_known: f.bool("detailsKnown")?,
            end: f.read_opt("end")?,
            ledger: f.read("ledger")?,
            cancel: f.read("cancel")?,
            poll: f.read("poll")?,
            outbox_retry: f.read("outboxRetry")?,
            cancel_retry: f.read("cancelRetry")?,
            observed_at: f.u64("observedAt")?,
            last_failure: f.read_opt("lastFailure")?,
            jitter: f.read("jitter")?,
            send_lease_until: f.opt_u64("sendLeaseUntil")?,
            recheck_outbox: false,
            in_flight: InFlight::default(),
            progress_token: f.opt("progressToken").map(|_| f.str("progressToken").map(str::to_owned)).transpose()?,
            progress: None,
            ui: f.opt("ui").cloned(),
        })
    }
}
