//! What a task card shows, computed from a [`Snapshot`] with no DOM: the status and its label key,
//! connectivity, times, the questions to ask, the result and the error. The DOM half (`pkg/element.js`)
//! only draws this, as [`super::view`] writes it, so the decisions are tested natively.
use crate::json::{Number, Value};

use crate::machine::backoff::Failure;
use crate::machine::record::{LocalEnd, LocalStatus};
use crate::protocol::form::{FormModel, SchemaError};
use crate::protocol::input::{ElicitRequest, InputRequest};
use crate::protocol::timestamp::parse_millis;
use crate::protocol::tool_result::CallToolResult;
use crate::snapshot::{Connectivity, Snapshot, SnapshotStatus, TaskSnapshot, UnknownCallSnapshot};

/// One question the card asks, or declines to ask.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// A form-mode elicitation; the model, or why the schema cannot be shown.
    Form {
        /// The server's message above the form.
        message: String,
        /// The fields, or the schema problem.
        form: Result<FormModel, SchemaError>,
        /// The `requestedSchema` as sent: the DOM half hands it back with the answers to check.
        schema: Value,
    },
    /// A URL-mode elicitation.
    Url {
        /// The server's message.
        message: String,
        /// The address as sent. Checked when drawn ([`super::view`] with [`super::url_check`]): the
        /// check needs the platform's URL parser, the one that decides what `window.open` opens, which
        /// only the browser has (`bindings::element` hands it over).
        url: String,
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
    /// `text` content, and the text of an embedded resource.
    Text(String),
    /// A content type that is named, not rendered, or media refused: label key and its `{placeholder}` value.
    Named {
        /// The label key (`result.other`, `result.badType`…).
        key: &'static str,
        /// The placeholder name in that label.
        slot: &'static str,
        /// Its value (a MIME type, a type name).
        value: String,
    },
    /// Bytes to draw or offer: an image or audio (`image` and `audio` content, an embedded resource of
    /// such a type) of an allowed type ([`IMAGE_TYPES`], [`AUDIO_TYPES`]) within [`MEDIA_CAP`], or an
    /// embedded binary resource of any other type, offered as a download.
    Bytes {
        /// `img`, `audio` or `file` (a download).
        tag: &'static str,
        /// The MIME type (for a download as sent, else one of the allowed ones).
        mime: String,
        /// The bytes, base64 as sent (checked: standard alphabet, padded).
        data: String,
        /// The alt text of an image or the name of a download, when the server gave one.
        name: Option<String>,
    },
    /// A `resource_link`: its name (else its URI) and its URI, checked when drawn like a URL-mode
    /// address ([`super::view`] with [`super::url_check`]).
    Link {
        /// The name shown.
        name: String,
        /// The address as sent.
        uri: String,
    },
}

/// The image types a card draws (as written, without parameters). Not SVG: an SVG image is a document that can carry script and
/// reference other resources.
pub const IMAGE_TYPES: [&str; 5] = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"];
/// The audio types a card plays.
pub const AUDIO_TYPES: [&str; 5] = ["audio/mpeg", "audio/ogg", "audio/wav", "audio/webm", "audio/mp4"];
/// The most bytes (decoded) of one image, audio or download a card makes a `blob:` URL of: counted
/// from the base64 length, before anything is decoded.
pub const MEDIA_CAP: usize = 4 << 20;

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

/// The card's status name when there is no snapshot it can read (`data-status`, label `status.unknown`).
pub const UNKNOWN_STATUS: &str = "unknown";

/// Why a task ended badly, as the card explains it.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskProblem {
    /// `failed` with a JSON-RPC error.
    Failed {
        /// The error message.
        message: String,
        /// The error code.
        code: i64,
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
    /// The status; `None` for a snapshot this version cannot read.
    pub status: Option<SnapshotStatus>,
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
    pub problem: Option<TaskProblem>,
    /// A working task's progress and total, as the server wrote them (2025-11-25 progress).
    pub progress: Option<(Number, Option<Number>)>,
}

impl CardModel {
    /// Reads a snapshot as a host or an event handed it over ([`Snapshot::from_json`]); one this version
    /// cannot read shows as an unknown state. Never fails.
    pub fn from_json(snapshot: &Value) -> CardModel {
        Snapshot::from_json(snapshot).map_or_else(CardModel::unreadable, |s| CardModel::from_snapshot(&s))
    }

    /// What a card shows of `snapshot`.
    pub fn from_snapshot(snapshot: &Snapshot) -> CardModel {
        match snapshot {
            Snapshot::Task(task) => CardModel::of_task(task),
            Snapshot::UnknownCall(call) => CardModel::of_unknown_call(call),
        }
    }

    fn unreadable() -> CardModel {
        CardModel {
            task_id: None,
            tool: String::new(),
            status: None,
            message: None,
            connectivity: None,
            created_at: None,
            updated_at: None,
            cancel_requested: false,
            questions: Vec::new(),
            result: None,
            problem: None,
            progress: None,
        }
    }

    fn of_task(s: &TaskSnapshot) -> CardModel {
        let status = SnapshotStatus::Task(s.status);
        let live = status.is_live();
        let connectivity = match s.connectivity {
            _ if !live => None,
            Connectivity::Offline => Some("conn.offline"),
            // The server refused the credentials: the host's sign-in is what it waits for.
            Connectivity::Backoff
                if s.last_error
                    .as_ref()
                    .is_some_and(|n| matches!(n.failure, Failure::Http { status: 401 | 403, .. })) =>
            {
                Some("conn.signin")
            }
            Connectivity::Backoff => Some("conn.backoff"),
            _ if s.restored => Some("conn.restored"),
            Connectivity::Listening => Some("conn.listening"),
            Connectivity::Online => None,
        };
        let questions = if live {
            let mut questions = Vec::with_capacity(s.input_requests.len());
            for (key, request) in s.input_requests.iter() {
                questions.push((key.clone(), question(request)));
            }
            questions
        } else {
            Vec::new()
        };
        let problem = match s.status {
            LocalStatus::Failed => {
                s.error.as_ref().map(|e| TaskProblem::Failed { message: e.message.clone(), code: e.code })
            }
            LocalStatus::Expired => Some(match s.expired {
                Some(LocalEnd::UnknownToServer { .. }) => TaskProblem::ExpiredUnknown,
                _ => TaskProblem::ExpiredTtl,
            }),
            LocalStatus::Cancelled => Some(TaskProblem::Cancelled),
            LocalStatus::Working | LocalStatus::InputRequired | LocalStatus::Completed => None,
        };
        CardModel {
            task_id: Some(s.task_id.clone()),
            tool: s.tool_name.clone(),
            status: Some(status),
            message: s.status_message.clone().filter(|m| !m.is_empty()),
            connectivity,
            created_at: parse_millis(&s.created_at),
            updated_at: parse_millis(&s.last_updated_at),
            cancel_requested: live && s.cancel_requested,
            questions,
            result: s.result.as_ref().map(result_view),
            problem,
            progress: s.progress.clone().filter(|_| s.status == LocalStatus::Working),
        }
    }

    fn of_unknown_call(call: &UnknownCallSnapshot) -> CardModel {
        CardModel {
            tool: call.tool_name.clone(),
            status: Some(SnapshotStatus::OutcomeUnknown),
            message: Some(call.status_message.clone()).filter(|m| !m.is_empty()),
            created_at: i64::try_from(call.started_at).ok(),
            ..CardModel::unreadable()
        }
    }

    /// The status's name for the card's `data-status` attribute (for CSS and tests): the snapshot's
    /// `status`, or [`UNKNOWN_STATUS`].
    pub fn status_name(&self) -> &'static str {
        self.status.map_or(UNKNOWN_STATUS, SnapshotStatus::as_str)
    }

    /// The label key of the status words: `status.<name>`.
    pub fn status_key(&self) -> String {
        format!("status.{}", self.status_name())
    }

    /// Whether the task can still change (and may be cancelled).
    pub fn is_live(&self) -> bool {
        self.status.is_some_and(SnapshotStatus::is_live)
    }

    /// Whether the task reached an end.
    pub fn is_settled(&self) -> bool {
        self.status.is_some_and(SnapshotStatus::is_settled)
    }

    /// Whether the task is running (the card shows progress).
    pub fn is_working(&self) -> bool {
        self.status == Some(SnapshotStatus::Task(LocalStatus::Working))
    }
}

/// When a task was created or a call started (Unix ms), if readable.
fn started_at(snapshot: &Snapshot) -> Option<i64> {
    match snapshot {
        Snapshot::Task(task) => parse_millis(&task.created_at),
        Snapshot::UnknownCall(call) => i64::try_from(call.started_at).ok(),
    }
}

/// A snapshot's place in a list as one number, larger first: tasks needing input above the rest, then
/// newest first (by creation time; unknown counts as newest). One number so that a list of several
/// clients can merge their rows, each client's already in this order, by comparing it alone.
pub fn list_rank(snapshot: &Snapshot) -> i64 {
    // Above any creation time in Unix ms until the year 2286 (and exact as a JS number).
    const GROUP: i64 = 10_000_000_000_000;
    let created = started_at(snapshot).map_or(GROUP - 1, |t| t.clamp(0, GROUP - 1));
    let needs_input = snapshot.status() == SnapshotStatus::Task(LocalStatus::InputRequired);
    if needs_input {
        GROUP + created
    } else {
        created
    }
}

/// Sorts snapshots for a list by [`list_rank`], keeping the given order among equals. Returns each
/// one's rank, in the new order (reads the status and the start time once per snapshot: a list
/// re-sorts on every change).
pub fn list_order(snapshots: &mut [Snapshot]) -> Vec<i64> {
    let ranks: Vec<i64> = snapshots.iter().map(list_rank).collect();
    let order = crate::collections::sorted_order(ranks.len(), &mut |a, b| ranks[a] > ranks[b]);
    let sorted = order.iter().map(|&i| ranks[i]).collect();
    crate::collections::reorder(snapshots, order);
    sorted
}

fn question(request: &InputRequest) -> Question {
    match request {
        InputRequest::Elicitation(ElicitRequest::Form { message, requested_schema }) => Question::Form {
            message: message.clone(),
            form: FormModel::from_schema(requested_schema),
            schema: requested_schema.clone(),
        },
        InputRequest::Elicitation(ElicitRequest::Url { message, url }) => {
            Question::Url { message: message.clone(), url: url.clone() }
        }
        InputRequest::Sampling { .. } => {
            Question::Unsupported { note: "note.sampling", method: request.method().into() }
        }
        InputRequest::Roots { .. } => Question::Unsupported { note: "note.roots", method: request.method().into() },
        InputRequest::Other { method, .. } => Question::Unsupported { note: "note.other", method: method.clone() },
    }
}

fn result_view(r: &CallToolResult) -> ResultView {
    let fields = match &r.structured_content {
        Some(Value::Object(map)) => {
            let mut fields = Vec::with_capacity(map.len());
            for (k, v) in map.iter() {
                fields.push((k.to_owned(), display(v)));
            }
            fields
        }
        _ => Vec::new(),
    };
    ResultView {
        is_error: r.is_tool_error(),
        pieces: {
            let mut pieces = Vec::with_capacity(r.content.len());
            for block in &r.content {
                pieces.push(piece(block));
            }
            pieces
        },
        fields,
        json: crate::json::to_string_pretty(&r.to_json()),
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A content block, read leniently: content blocks pass through the protocol as the server sent them.
fn piece(item: &Value) -> Piece {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    let resource = item.get("resource").unwrap_or(&Value::Null);
    match kind {
        "text" => Piece::Text(text(item, "text").unwrap_or_default()),
        "image" | "audio" => bytes(item, "data", Some(kind), text(item, "alt")),
        "resource_link" => {
            let uri = text(item, "uri").unwrap_or_default();
            Piece::Link { name: text(item, "name").unwrap_or_else(|| uri.clone()), uri }
        }
        "resource" => match text(resource, "text") {
            Some(t) => Piece::Text(t),
            None => bytes(resource, "blob", None, text(resource, "uri").map(|u| file_name(&u).to_owned())),
        },
        other => Piece::Named { key: "result.other", slot: "type", value: other.to_owned() },
    }
}

/// The last segment of a URI's path, without its query or fragment: a download's name.
fn file_name(uri: &str) -> &str {
    let mut start = 0;
    for (i, c) in uri.bytes().enumerate() {
        match c {
            b'/' => start = i + 1,
            b'?' | b'#' => return uri.get(start..i).unwrap_or_default(),
            _ => {}
        }
    }
    uri.get(start..).unwrap_or_default()
}

/// The base64 bytes of `item[member]`, with its `mimeType`: `image` or `audio` content (`kind`) of an
/// allowed type of its kind, drawn; an embedded resource (`kind` `None`) drawn when of an allowed type,
/// else offered as a download. Refused with words when its type is not allowed, it is over
/// [`MEDIA_CAP`] or it is not base64.
fn bytes(item: &Value, member: &str, kind: Option<&str>, name: Option<String>) -> Piece {
    let mime = text(item, "mimeType").unwrap_or_default();
    let data = text(item, member).unwrap_or_default();
    let tag = if IMAGE_TYPES.contains(&mime.as_str()) {
        "img"
    } else if AUDIO_TYPES.contains(&mime.as_str()) {
        "audio"
    } else {
        "file"
    };
    let key = match kind {
        // `image` content must be of an image type, `audio` of an audio type.
        Some("image") if tag != "img" => "result.badType",
        Some("audio") if tag != "audio" => "result.badType",
        // Decoded, 4 base64 characters are 3 bytes: the cap is checked before anything is decoded.
        _ if data.len() / 4 * 3 > MEDIA_CAP => "result.tooBig",
        _ => {
            // Standard alphabet, padded, `=` only at the end (at most two).
            let mut pad = 0;
            let mut alphabet = true;
            for c in data.bytes() {
                if c == b'=' {
                    pad += 1;
                } else if pad > 0 || !(c.is_ascii_alphanumeric() || c == b'+' || c == b'/') {
                    alphabet = false;
                }
            }
            if data.len() % 4 == 0 && pad <= 2 && alphabet {
                return Piece::Bytes { tag, mime, data, name: name.filter(|n| !n.is_empty()) };
            }
            "result.badData"
        }
    };
    Piece::Named { key, slot: "mime", value: mime }
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
        let m = CardModel::from_json(&snapshot("working"));
        assert_eq!(m.status, Some(SnapshotStatus::Task(LocalStatus::Working)));
        assert_eq!((m.status_name(), m.status_key().as_str()), ("working", "status.working"));
        assert_eq!(m.tool, "deploy");
        assert_eq!(m.message.as_deref(), Some("Deploying <b>api</b>"));
        assert_eq!(m.updated_at.unwrap() - m.created_at.unwrap(), 65_000);
        assert_eq!(m.connectivity, None);
        let weird = CardModel::from_json(&snapshot("weird"));
        assert_eq!((weird.status, weird.status_name(), weird.is_live()), (None, "unknown", false));
    }

    #[test]
    fn connectivity_is_said_only_while_live_offline_first() {
        let mut s = snapshot("working");
        s["connectivity"] = json!("offline");
        s["restored"] = json!(true);
        assert_eq!(CardModel::from_json(&s).connectivity, Some("conn.offline"));
        s["connectivity"] = json!("backoff");
        s["lastError"] = json!({ "at": 1, "failure": { "kind": "http", "status": 401 } });
        assert_eq!(CardModel::from_json(&s).connectivity, Some("conn.signin"), "a refused token asks for sign-in");
        s["lastError"] = json!({ "at": 1, "failure": { "kind": "http", "status": 503 } });
        assert_eq!(CardModel::from_json(&s).connectivity, Some("conn.backoff"));
        s["connectivity"] = json!("online");
        assert_eq!(CardModel::from_json(&s).connectivity, Some("conn.restored"));
        s["status"] = json!("completed");
        assert_eq!(CardModel::from_json(&s).connectivity, None);
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
        let q = CardModel::from_json(&s).questions;
        assert_eq!(q.len(), 6);
        assert!(matches!(&q[0].1, Question::Form { form: Ok(f), .. } if f.fields().len() == 1));
        assert!(matches!(&q[1].1, Question::Url { url, .. } if url == "https://pay.example/x"));
        assert!(matches!(&q[2].1, Question::Unsupported { note: "note.sampling", .. }));
        assert!(matches!(&q[3].1, Question::Unsupported { note: "note.roots", .. }));
        assert!(matches!(&q[4].1, Question::Form { form: Err(_), .. }));
        assert!(matches!(&q[5].1, Question::Unsupported { note: "note.other", method } if method == "future/thing"));
        s["status"] = json!("completed");
        assert!(CardModel::from_json(&s).questions.is_empty(), "a settled task asks nothing");
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
        let r = CardModel::from_json(&s).result.unwrap();
        assert!(r.is_error);
        assert_eq!(r.pieces[0], Piece::Text("<img src=x>".into()));
        assert!(matches!(&r.pieces[1], Piece::Bytes { tag: "img", mime, .. } if mime == "image/png"));
        assert_eq!(r.pieces[2], Piece::Link { name: "a".into(), uri: "file:///a".into() });
        assert_eq!(r.pieces[3], Piece::Named { key: "result.other", slot: "type", value: "mystery".into() });
        assert_eq!(
            r.fields,
            vec![("replicas".into(), "3".into()), ("service".into(), "api".into()), ("tags".into(), "[\"a\"]".into())]
        );
        assert!(r.json.contains("\"structuredContent\""));
    }

    fn pieces(content: Value) -> Vec<Piece> {
        let mut s = snapshot("completed");
        s["result"] = json!({ "content": content });
        CardModel::from_json(&s).result.unwrap().pieces
    }

    #[test]
    fn media_of_allowed_types_within_the_cap_is_drawn_from_its_bytes() {
        let p = pieces(json!([
            { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "alt": "A chart" },
            { "type": "audio", "data": "SUQz", "mimeType": "audio/mpeg" },
            { "type": "resource", "resource": { "uri": "file:///r/photo.webp", "mimeType": "image/webp", "blob": "UklG" } },
            { "type": "resource", "resource": { "uri": "file:///r/report.pdf?v=2", "mimeType": "application/pdf", "blob": "JVBERi0=" } },
            { "type": "resource", "resource": { "uri": "file:///r/notes.txt", "mimeType": "text/plain", "text": "<b>notes</b>" } },
            { "type": "resource_link", "uri": "https://example.com/a" },
        ]));
        assert_eq!(
            p[0],
            Piece::Bytes {
                tag: "img",
                mime: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
                name: Some("A chart".into())
            }
        );
        assert_eq!(p[1], Piece::Bytes { tag: "audio", mime: "audio/mpeg".into(), data: "SUQz".into(), name: None });
        assert!(matches!(&p[2], Piece::Bytes { tag: "img", name: Some(n), .. } if n == "photo.webp"));
        assert_eq!(
            p[3],
            Piece::Bytes {
                tag: "file",
                mime: "application/pdf".into(),
                data: "JVBERi0=".into(),
                name: Some("report.pdf".into())
            }
        );
        assert_eq!(p[4], Piece::Text("<b>notes</b>".into()), "embedded text stays text");
        assert_eq!(p[5], Piece::Link { name: "https://example.com/a".into(), uri: "https://example.com/a".into() });
    }

    #[test]
    fn hostile_media_is_refused_with_words() {
        let refused = |key: &'static str, mime: &str| Piece::Named { key, slot: "mime", value: mime.into() };
        // Over the cap by its base64 length alone: nothing of it is decoded.
        let big = "A".repeat(MEDIA_CAP / 3 * 4 + 8);
        let p = pieces(json!([
            { "type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml" },
            { "type": "image", "data": "SUQz", "mimeType": "audio/mpeg" },
            { "type": "audio", "data": "iVBO", "mimeType": "image/png" },
            { "type": "image", "data": big, "mimeType": "image/png" },
            { "type": "image", "data": "iVB*Rw==", "mimeType": "image/png" },
            { "type": "image", "data": "iVBORw=", "mimeType": "image/png" },
            { "type": "image", "data": "iV=BORw=", "mimeType": "image/png" },
            { "type": "resource", "resource": { "uri": "file:///x.svg", "mimeType": "image/svg+xml", "blob": "PHN2Zz4=" } },
            { "type": "image", "mimeType": "image/png" },
        ]));
        assert_eq!(p[0], refused("result.badType", "image/svg+xml"), "SVG is never drawn");
        assert_eq!(p[1], refused("result.badType", "audio/mpeg"), "image content must be an image");
        assert_eq!(p[2], refused("result.badType", "image/png"), "audio content must be audio");
        assert_eq!(p[3], refused("result.tooBig", "image/png"));
        assert_eq!(p[4], refused("result.badData", "image/png"));
        assert_eq!(p[5], refused("result.badData", "image/png"), "unpadded");
        assert_eq!(p[6], refused("result.badData", "image/png"), "padding inside");
        assert!(matches!(&p[7], Piece::Bytes { tag: "file", .. }), "an embedded SVG is only offered as a file");
        assert!(matches!(&p[8], Piece::Bytes { tag: "img", data, .. } if data.is_empty()), "no data: an empty image");
        let at_cap = "A".repeat(MEDIA_CAP / 3 * 4);
        assert!(matches!(
            &pieces(json!([{ "type": "image", "data": at_cap, "mimeType": "image/gif" }]))[0],
            Piece::Bytes { .. }
        ));
    }

    #[test]
    fn problems_of_failed_expired_and_cancelled_tasks() {
        let mut s = snapshot("failed");
        s["error"] = json!({ "code": -32000, "message": "Deployment rejected" });
        assert_eq!(
            CardModel::from_json(&s).problem,
            Some(TaskProblem::Failed { message: "Deployment rejected".into(), code: -32000 })
        );
        s["status"] = json!("expired");
        s["expired"] = json!({ "reason": "unknown_to_server" });
        assert_eq!(CardModel::from_json(&s).problem, Some(TaskProblem::ExpiredUnknown));
        s["expired"] = json!({ "reason": "ttl" });
        assert_eq!(CardModel::from_json(&s).problem, Some(TaskProblem::ExpiredTtl));
        s["status"] = json!("cancelled");
        assert_eq!(CardModel::from_json(&s).problem, Some(TaskProblem::Cancelled));
    }

    #[test]
    fn list_order_puts_input_first_then_newest() {
        let at = |id: &str, status: &str, t: &str| {
            let mut s = snapshot(status);
            s["taskId"] = json!(id);
            s["createdAt"] = json!(t);
            s
        };
        let mut list: Vec<Snapshot> = [
            at("old", "completed", "2026-12-02T09:00:00Z"),
            at("new", "working", "2026-12-02T11:00:00Z"),
            at("ask", "input_required", "2026-12-02T08:00:00Z"),
            at("mid", "failed", "2026-12-02T10:00:00Z"),
            json!({ "taskId": null, "callId": "call", "toolName": "build", "status": "outcome_unknown",
                    "startedAt": 1_796_203_800_000u64 }),
        ]
        .iter()
        .filter_map(Snapshot::from_json)
        .collect();
        list_order(&mut list);
        let ids: Vec<&str> = list.iter().map(Snapshot::id).collect();
        assert_eq!(ids, ["ask", "new", "mid", "call", "old"]);
    }

    #[test]
    fn unknown_call_snapshots_read_without_task_id() {
        let s = json!({ "taskId": null, "callId": "c1", "toolName": "build", "status": "outcome_unknown",
                        "startedAt": 1_700_000_000_000i64, "statusMessage": "The page closed" });
        let m = CardModel::from_json(&s);
        assert_eq!(
            (m.task_id, m.status, m.created_at),
            (None, Some(SnapshotStatus::OutcomeUnknown), Some(1_700_000_000_000))
        );
    }

    #[test]
    fn every_status_a_card_can_show_has_words_and_a_typescript_label_key() {
        let dts = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/element.d.ts"))
            .expect("pkg-template/element.d.ts is readable");
        let mut names: Vec<&str> = SnapshotStatus::ALL.into_iter().map(SnapshotStatus::as_str).collect();
        names.push(CardModel::from_json(&Value::Null).status_name());
        let keys: Vec<String> = names.iter().map(|name| format!("status.{name}")).collect();
        for key in &keys {
            assert!(super::super::labels::LABELS.iter().any(|(k, ..)| k == key), "{key} has no words");
        }
        let declared: Vec<&str> = dts.split('"').filter(|word| word.starts_with("status.")).collect();
        assert_eq!(declared, keys, "the status label keys in element.d.ts");
    }
}
