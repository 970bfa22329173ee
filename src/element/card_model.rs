//! What a task card shows, computed from a `TaskSnapshot` (plain JSON) with no DOM: the status and its
//! label key, connectivity, times, the questions to ask, the result and the error. The DOM layer
//! (`card`) only draws this, so the decisions are tested natively.
use crate::json::Value;

use super::url_check::{self, UrlCheck};
use crate::protocol::form::{FormModel, SchemaError};
use crate::protocol::input::{ElicitRequest, InputRequest};
use crate::protocol::timestamp::parse_millis;

/// A task's status as the card shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `working`.
    Working,
    /// `input_required`.
    InputRequired,
    /// `completed`.
    Completed,
    /// `failed`.
    Failed,
    /// `cancelled`.
    Cancelled,
    /// `expired` (TTL elapsed, or unknown to the server).
    Expired,
    /// A call the page closed on before it knew whether a task started.
    OutcomeUnknown,
    /// A status this version does not know (a newer client wrote the record).
    Unknown,
}

impl Status {
    /// Reads the snapshot's `status`.
    pub fn parse(s: &str) -> Status {
        match s {
            "working" => Status::Working,
            "input_required" => Status::InputRequired,
            "completed" => Status::Completed,
            "failed" => Status::Failed,
            "cancelled" => Status::Cancelled,
            "expired" => Status::Expired,
            "outcome_unknown" => Status::OutcomeUnknown,
            _ => Status::Unknown,
        }
    }

    /// The value of the card's `data-status` attribute (for CSS and tests).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
            Status::Expired => "expired",
            Status::OutcomeUnknown => "outcome_unknown",
            Status::Unknown => "unknown",
        }
    }

    /// The label key of the status words.
    pub fn label_key(self) -> &'static str {
        match self {
            Status::Working => "status.working",
            Status::InputRequired => "status.input_required",
            Status::Completed => "status.completed",
            Status::Failed => "status.failed",
            Status::Cancelled => "status.cancelled",
            Status::Expired => "status.expired",
            Status::OutcomeUnknown => "status.outcome_unknown",
            Status::Unknown => "status.unknown",
        }
    }

    /// Whether the task can still change (and may be cancelled).
    pub fn is_live(self) -> bool {
        matches!(self, Status::Working | Status::InputRequired)
    }

    /// Whether the task reached an end.
    pub fn is_settled(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled | Status::Expired)
    }
}

/// One question the card asks, or declines to ask.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// A form-mode elicitation; the model, or why the schema cannot be shown.
    Form {
        /// The server's message above the form.
        message: String,
        /// The fields, or the schema problem.
        form: Result<FormModel, SchemaError>,
    },
    /// A URL-mode elicitation.
    Url {
        /// The server's message.
        message: String,
        /// The checked address.
        url: UrlCheck,
    },
    /// A request the card does not answer (sampling, roots, an unknown method); the host may.
    Unsupported {
        /// The label key of the note shown.
        note: &'static str,
        /// The method, for the note's `{method}` placeholder.
        method: String,
    },
}

/// One piece of a result's `content`, as the card can show it (never as HTML).
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// `text` content.
    Text(String),
    /// A content type that is named, not rendered: label key and its `{placeholder}` value.
    Named {
        /// The label key (`result.image`, `result.resource`…).
        key: &'static str,
        /// The placeholder name in that label.
        slot: &'static str,
        /// Its value (a MIME type, a URI, a type name).
        value: String,
    },
}

/// A result to show.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultView {
    /// `isError: true`: the tool ran and reported a failure.
    pub is_error: bool,
    /// The content pieces in order.
    pub pieces: Vec<Piece>,
    /// `structuredContent` as key/value rows when it is an object (values as display text).
    pub fields: Vec<(String, String)>,
    /// The whole result as indented JSON, for the collapsible view.
    pub json: String,
}

/// Why a task ended badly, as the card explains it.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// `failed` with a JSON-RPC error.
    Failed {
        /// The error message.
        message: String,
        /// The error code.
        code: Option<i64>,
    },
    /// `expired` past its TTL.
    ExpiredTtl,
    /// `expired`: the server no longer knows the task.
    ExpiredUnknown,
    /// `cancelled`.
    Cancelled,
}

/// Everything a card shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CardModel {
    /// The task id (absent for a call of unknown outcome).
    pub task_id: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The status.
    pub status: Status,
    /// The server's `statusMessage`.
    pub message: Option<String>,
    /// The label key of the connectivity note, if there is something to say.
    pub connectivity: Option<&'static str>,
    /// Creation time (Unix ms), if readable.
    pub created_at: Option<i64>,
    /// Last update time (Unix ms), if readable.
    pub updated_at: Option<i64>,
    /// The user asked to cancel and the server has not settled the task yet.
    pub cancel_requested: bool,
    /// The unanswered questions by key, in key order.
    pub questions: Vec<(String, Question)>,
    /// The result of a completed task.
    pub result: Option<ResultView>,
    /// The problem of a failed, expired or cancelled task.
    pub problem: Option<Problem>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl CardModel {
    /// Reads a `TaskSnapshot` or `UnknownCallSnapshot`. Never fails: missing parts are left out.
    pub fn from_snapshot(s: &Value) -> CardModel {
        let status = Status::parse(s.get("status").and_then(Value::as_str).unwrap_or(""));
        let connectivity = match s.get("connectivity").and_then(Value::as_str) {
            _ if !status.is_live() => None,
            Some("offline") => Some("conn.offline"),
            Some("backoff") => Some("conn.backoff"),
            _ if s.get("restored").and_then(Value::as_bool) == Some(true) => Some("conn.restored"),
            Some("listening") => Some("conn.listening"),
            _ => None,
        };
        let questions = match s.get("inputRequests").and_then(Value::as_object) {
            Some(requests) if status.is_live() => {
                requests.iter().map(|(key, request)| (key.clone(), question(request))).collect()
            }
            _ => Vec::new(),
        };
        let result = match s.get("result") {
            Some(r) if r.is_object() => Some(result_view(r)),
            _ => None,
        };
        let problem = match status {
            Status::Failed => s.get("error").filter(|e| e.is_object()).map(|e| Problem::Failed {
                message: text(e, "message").unwrap_or_default(),
                code: e.get("code").and_then(Value::as_i64),
            }),
            Status::Expired => Some(match s.pointer("/expired/reason").and_then(Value::as_str) {
                Some("unknown_to_server") => Problem::ExpiredUnknown,
                _ => Problem::ExpiredTtl,
            }),
            Status::Cancelled => Some(Problem::Cancelled),
            _ => None,
        };
        let created_at = text(s, "createdAt").and_then(|t| parse_millis(&t)).or_else(|| s.get("startedAt")?.as_i64());
        CardModel {
            task_id: text(s, "taskId"),
            tool: text(s, "toolName").unwrap_or_default(),
            status,
            message: text(s, "statusMessage").filter(|m| !m.is_empty()),
            connectivity,
            created_at,
            updated_at: text(s, "lastUpdatedAt").and_then(|t| parse_millis(&t)),
            cancel_requested: status.is_live() && s.get("cancelRequested").and_then(Value::as_bool) == Some(true),
            questions,
            result,
            problem,
        }
    }
}

/// Sorts snapshots for a list: tasks needing input first, then newest first (by creation time).
/// Reads only `status` and the start time, once per snapshot (a list re-sorts on every change).
pub fn list_order(snapshots: &mut Vec<Value>) {
    let keys: Vec<(bool, std::cmp::Reverse<i64>)> = snapshots
        .iter()
        .map(|s| {
            let needs_input = s.get("status").and_then(Value::as_str) == Some("input_required");
            let created = text(s, "createdAt").and_then(|t| parse_millis(&t)).or_else(|| s.get("startedAt")?.as_i64());
            (!needs_input, std::cmp::Reverse(created.unwrap_or(i64::MAX)))
        })
        .collect();
    let order = crate::collections::sorted_order(keys.len(), &mut |a, b| keys[a] < keys[b]);
    crate::collections::reorder(snapshots, order);
}

fn question(request: &Value) -> Question {
    let method = request.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
    match InputRequest::from_json(request) {
        Ok(InputRequest::Elicitation(ElicitRequest::Form { message, requested_schema })) => {
            Question::Form { message, form: FormModel::from_schema(&requested_schema) }
        }
        Ok(InputRequest::Elicitation(ElicitRequest::Url { message, url })) => {
            Question::Url { message, url: url_check::check(&url) }
        }
        Ok(InputRequest::Sampling { .. }) => Question::Unsupported { note: "note.sampling", method },
        Ok(InputRequest::Roots { .. }) => Question::Unsupported { note: "note.roots", method },
        Ok(InputRequest::Other { .. }) | Err(_) => Question::Unsupported { note: "note.other", method },
    }
}

fn result_view(r: &Value) -> ResultView {
    let pieces = r.get("content").and_then(Value::as_array).map(|items| items.iter().map(piece).collect());
    let fields = match r.get("structuredContent") {
        Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.clone(), display(v))).collect(),
        _ => Vec::new(),
    };
    ResultView {
        is_error: r.get("isError").and_then(Value::as_bool) == Some(true),
        pieces: pieces.unwrap_or_default(),
        fields,
        json: crate::json::to_string_pretty(r),
    }
}

fn piece(item: &Value) -> Piece {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    let named = |key, slot, value: Option<String>| Piece::Named { key, slot, value: value.unwrap_or_default() };
    match kind {
        "text" => Piece::Text(text(item, "text").unwrap_or_default()),
        "image" => named("result.image", "mime", text(item, "mimeType")),
        "audio" => named("result.audio", "mime", text(item, "mimeType")),
        "resource_link" => named("result.resource", "uri", text(item, "uri")),
        "resource" => named("result.resource", "uri", item.get("resource").and_then(|r| text(r, "uri"))),
        other => named("result.other", "type", Some(other.to_owned())),
    }
}

/// A structured value as one line of text: strings as written, everything else as compact JSON.
fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn snapshot(status: &str) -> Value {
        json!({
            "taskId": "t1", "toolName": "deploy", "status": status, "statusMessage": "Deploying <b>api</b>",
            "createdAt": "2026-12-02T10:00:00Z", "lastUpdatedAt": "2026-12-02T10:01:05Z",
            "inputRequests": {}, "result": null, "error": null, "connectivity": "online",
            "cancelRequested": false, "expired": null, "restored": false
        })
    }

    #[test]
    fn reads_status_times_and_message() {
        let m = CardModel::from_snapshot(&snapshot("working"));
        assert_eq!(m.status, Status::Working);
        assert_eq!(m.tool, "deploy");
        assert_eq!(m.message.as_deref(), Some("Deploying <b>api</b>"));
        assert_eq!(m.updated_at.unwrap() - m.created_at.unwrap(), 65_000);
        assert_eq!(m.connectivity, None);
        assert_eq!(Status::parse("weird"), Status::Unknown);
    }

    #[test]
    fn connectivity_is_said_only_while_live_offline_first() {
        let mut s = snapshot("working");
        s["connectivity"] = json!("offline");
        s["restored"] = json!(true);
        assert_eq!(CardModel::from_snapshot(&s).connectivity, Some("conn.offline"));
        s["connectivity"] = json!("online");
        assert_eq!(CardModel::from_snapshot(&s).connectivity, Some("conn.restored"));
        s["status"] = json!("completed");
        assert_eq!(CardModel::from_snapshot(&s).connectivity, None);
    }

    #[test]
    fn questions_by_kind_with_bad_schemas_kept_as_errors() {
        let mut s = snapshot("input_required");
        s["inputRequests"] = json!({
            "a": { "method": "elicitation/create", "params": { "message": "Approve?", "requestedSchema":
                { "type": "object", "properties": { "ok": { "type": "boolean" } } } } },
            "b": { "method": "elicitation/create", "params": { "mode": "url", "message": "Pay", "url": "https://pay.example/x" } },
            "c": { "method": "sampling/createMessage", "params": { "messages": [], "maxTokens": 5 } },
            "d": { "method": "roots/list" },
            "e": { "method": "elicitation/create", "params": { "message": "bad", "requestedSchema": { "type": "array" } } },
            "f": { "method": "future/thing" }
        });
        let q = CardModel::from_snapshot(&s).questions;
        assert_eq!(q.len(), 6);
        assert!(matches!(&q[0].1, Question::Form { form: Ok(f), .. } if f.fields().len() == 1));
        assert!(matches!(&q[1].1, Question::Url { url, .. } if url.openable && url.host == "pay.example"));
        assert!(matches!(&q[2].1, Question::Unsupported { note: "note.sampling", .. }));
        assert!(matches!(&q[3].1, Question::Unsupported { note: "note.roots", .. }));
        assert!(matches!(&q[4].1, Question::Form { form: Err(_), .. }));
        assert!(matches!(&q[5].1, Question::Unsupported { note: "note.other", method } if method == "future/thing"));
        s["status"] = json!("completed");
        assert!(CardModel::from_snapshot(&s).questions.is_empty(), "a settled task asks nothing");
    }

    #[test]
    fn results_show_text_named_content_and_structured_rows() {
        let mut s = snapshot("completed");
        s["result"] = json!({
            "content": [ { "type": "text", "text": "<img src=x>" }, { "type": "image", "data": "AA==", "mimeType": "image/png" },
                         { "type": "resource_link", "uri": "file:///a", "name": "a" }, { "type": "mystery" } ],
            "structuredContent": { "replicas": 3, "service": "api", "tags": ["a"] },
            "isError": true
        });
        let r = CardModel::from_snapshot(&s).result.unwrap();
        assert!(r.is_error);
        assert_eq!(r.pieces[0], Piece::Text("<img src=x>".into()));
        assert_eq!(r.pieces[1], Piece::Named { key: "result.image", slot: "mime", value: "image/png".into() });
        assert_eq!(r.pieces[2], Piece::Named { key: "result.resource", slot: "uri", value: "file:///a".into() });
        assert_eq!(r.pieces[3], Piece::Named { key: "result.other", slot: "type", value: "mystery".into() });
        assert_eq!(
            r.fields,
            vec![("replicas".into(), "3".into()), ("service".into(), "api".into()), ("tags".into(), "[\"a\"]".into())]
        );
        assert!(r.json.contains("\"structuredContent\""));
    }

    #[test]
    fn problems_of_failed_expired_and_cancelled_tasks() {
        let mut s = snapshot("failed");
        s["error"] = json!({ "code": -32000, "message": "Deployment rejected" });
        assert_eq!(
            CardModel::from_snapshot(&s).problem,
            Some(Problem::Failed { message: "Deployment rejected".into(), code: Some(-32000) })
        );
        s["status"] = json!("expired");
        s["expired"] = json!({ "reason": "unknown_to_server" });
        assert_eq!(CardModel::from_snapshot(&s).problem, Some(Problem::ExpiredUnknown));
        s["expired"] = json!({ "reason": "ttl" });
        assert_eq!(CardModel::from_snapshot(&s).problem, Some(Problem::ExpiredTtl));
        s["status"] = json!("cancelled");
        assert_eq!(CardModel::from_snapshot(&s).problem, Some(Problem::Cancelled));
    }

    #[test]
    fn list_order_puts_input_first_then_newest() {
        let at = |id: &str, status: &str, t: &str| {
            let mut s = snapshot(status);
            s["taskId"] = json!(id);
            s["createdAt"] = json!(t);
            s
        };
        let mut list = vec![
            at("old", "completed", "2026-12-02T09:00:00Z"),
            at("new", "working", "2026-12-02T11:00:00Z"),
            at("ask", "input_required", "2026-12-02T08:00:00Z"),
            at("mid", "failed", "2026-12-02T10:00:00Z"),
        ];
        list_order(&mut list);
        let ids: Vec<&str> = list.iter().map(|s| s["taskId"].as_str().unwrap()).collect();
        assert_eq!(ids, ["ask", "new", "mid", "old"]);
    }

    #[test]
    fn unknown_call_snapshots_read_without_task_id() {
        let s = json!({ "taskId": null, "callId": "c1", "toolName": "build", "status": "outcome_unknown",
                        "startedAt": 1_700_000_000_000i64, "statusMessage": "The page closed" });
        let m = CardModel::from_snapshot(&s);
        assert_eq!((m.task_id, m.status, m.created_at), (None, Status::OutcomeUnknown, Some(1_700_000_000_000)));
    }
}
