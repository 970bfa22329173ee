//! The messages tabs of one namespace exchange over their `BroadcastChannel`, and their JSON (the one
//! place it is written and read). The polling tab shares every record change; the others forward
//! answers and cancels to it; `forget` and `clear` are applied by every tab.
use crate::error::{ClientError, ErrorKind};
use crate::json::{json, Value};

/// A message between tabs.
#[derive(Debug, Clone, PartialEq)]
pub enum TabMessage {
    /// The poller's copy of a record after a change (its stored form).
    Record {
        /// The task.
        id: String,
        /// The record as stored (`machine::stored`).
        stored: Value,
    },
    /// A new handle from a tab's `callTool`: the poller adopts it.
    Adopt {
        /// The task.
        id: String,
        /// The record as stored.
        stored: Value,
    },
    /// These tasks or calls were forgotten (by `forget` or retention): every tab drops them.
    Forget {
        /// The tasks or calls.
        ids: Vec<String>,
    },
    /// `clear()`: every tab drops every task and call of the namespace.
    Clear,
    /// A forwarded `respond`, for the polling tab to apply.
    Respond {
        /// Pairs the reply with the request.
        req: String,
        /// The task.
        id: String,
        /// The host's answers, as given.
        answers: Value,
    },
    /// A forwarded `cancel`, for the polling tab to apply.
    Cancel {
        /// Pairs the reply with the request.
        req: String,
        /// The task.
        id: String,
    },
    /// A tab met a `Retry-After` on a request of no task: every tab pauses too.
    Pause {
        /// When the pause ends (Unix ms).
        until: u64,
    },
    /// A tab's request was refused for sign-in (the `auth` event's detail), or one succeeded again
    /// (`resolved`): every tab pauses or resumes.
    Auth {
        /// The `auth` event's detail.
        detail: Value,
    },
    /// The polling tab's reply to a forwarded request: `None` when it was applied.
    Reply {
        /// The request answered.
        req: String,
        /// Why it was refused, with its kind, code and retryability.
        error: Option<ClientError>,
    },
}

fn text(message: &Value, key: &str) -> Option<String> {
    message.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl TabMessage {
    /// The message as posted.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Record { id, stored } => json!({ "t": "record", "id": id, "stored": stored }),
            Self::Adopt { id, stored } => json!({ "t": "adopt", "id": id, "stored": stored }),
            Self::Forget { ids } => json!({ "t": "forget", "ids": ids }),
            Self::Clear => json!({ "t": "clear" }),
            Self::Respond { req, id, answers } => json!({ "t": "respond", "req": req, "id": id, "answers": answers }),
            Self::Cancel { req, id } => json!({ "t": "cancel", "req": req, "id": id }),
            Self::Pause { until } => json!({ "t": "pause", "until": until }),
            Self::Auth { detail } => json!({ "t": "auth", "detail": detail }),
            Self::Reply { req, error } => {
                let error = error.as_ref().map(|e| {
                    json!({ "kind": e.kind.code(), "message": e.message, "code": e.code, "retryable": e.retryable })
                });
                json!({ "t": "reply", "req": req, "error": error })
            }
        }
    }

    /// Reads a posted message; `None` for anything this release does not send (another release's
    /// tab, or a stray message on the channel).
    pub fn from_json(message: &Value) -> Option<TabMessage> {
        let kind = message.get("t").and_then(Value::as_str)?;
        Some(match kind {
            "record" | "adopt" => {
                let id = text(message, "id")?;
                let stored = message.get("stored")?.clone();
                if kind == "record" {
                    Self::Record { id, stored }
                } else {
                    Self::Adopt { id, stored }
                }
            }
            "forget" => {
                let ids = match message.get("ids") {
                    Some(Value::Array(ids)) => crate::json::string_values(ids),
                    _ => vec![text(message, "id")?],
                };
                Self::Forget { ids }
            }
            "clear" => Self::Clear,
            "respond" => Self::Respond {
                req: text(message, "req")?,
                id: text(message, "id")?,
                answers: message.get("answers").cloned().unwrap_or(Value::Null),
            },
            "cancel" => Self::Cancel { req: text(message, "req")?, id: text(message, "id")? },
            "pause" => Self::Pause { until: message.get("until")?.as_u64()? },
            "auth" => Self::Auth { detail: message.get("detail")?.clone() },
            "reply" => Self::Reply { req: text(message, "req")?, error: read_error(message.get("error")) },
            _ => return None,
        })
    }
}

fn read_error(error: Option<&Value>) -> Option<ClientError> {
    let error = error.filter(|e| !e.is_null())?;
    Some(ClientError {
        kind: error.get("kind").and_then(Value::as_str).and_then(ErrorKind::from_code).unwrap_or(ErrorKind::Usage),
        message: text(error, "message").unwrap_or_else(|| "the polling tab refused the request".to_owned()),
        code: error.get("code").and_then(Value::as_i64),
        retryable: error.get("retryable").and_then(Value::as_bool).unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back_as_written() {
        let messages = vec![
            TabMessage::Record { id: "t1".into(), stored: json!({ "v": 1 }) },
            TabMessage::Adopt { id: "t2".into(), stored: json!({ "v": 1 }) },
            TabMessage::Forget { ids: vec!["t1".into(), "call-9".into()] },
            TabMessage::Clear,
            TabMessage::Respond { req: "r1".into(), id: "t1".into(), answers: json!({ "k": { "action": "accept" } }) },
            TabMessage::Cancel { req: "r2".into(), id: "t1".into() },
            TabMessage::Pause { until: 1_785_574_805_000 },
            TabMessage::Reply { req: "r1".into(), error: None },
            TabMessage::Reply {
                req: "r2".into(),
                error: Some(ClientError {
                    kind: ErrorKind::Rpc,
                    message: "no such task".into(),
                    code: Some(-32602),
                    retryable: false,
                }),
            },
            TabMessage::Reply {
                req: "r3".into(),
                error: Some(ClientError {
                    kind: ErrorKind::Timeout,
                    message: "slow".into(),
                    code: None,
                    retryable: true,
                }),
            },
        ];
        for message in messages {
            let text = crate::json::to_string(&message.to_json());
            let read = TabMessage::from_json(&crate::json::from_str(&text).unwrap());
            assert_eq!(read, Some(message), "{text}");
        }
    }

    #[test]
    fn stray_messages_are_not_read() {
        for text in [r#"{}"#, r#"{"t":"what"}"#, r#"{"t":"record"}"#, r#"{"t":"respond","id":"t1"}"#, r#"[1]"#] {
            assert_eq!(TabMessage::from_json(&crate::json::from_str(text).unwrap()), None, "{text}");
        }
    }

    #[test]
    fn a_single_forget_of_the_previous_release_is_read() {
        let old = crate::json::from_str(r#"{"t":"forget","id":"t1"}"#).unwrap();
        assert_eq!(TabMessage::from_json(&old), Some(TabMessage::Forget { ids: vec!["t1".into()] }));
    }
}
