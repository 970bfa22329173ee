//! The effects the door hands back, in the order the driver carries them out: `{ "do": tag, … }`
//! JSON objects. [`Effect::to_json`] is the one place an effect's tag or field name is written.
use crate::error::ClientError;
use crate::json::{json, Map, Value};

/// One thing for the driver to do.
// Each variant's doc names its fields; docs/door.md has them one by one.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// `send`: exchange `n` (of host call `x`): its JSON `body` (empty: a GET) and `headers` (name,
    /// value, name, value…); a `stream` has no timeout; `ms`: how long to wait for it.
    Send { n: u64, x: Option<u64>, body: String, headers: Vec<Value>, stream: bool, ms: Option<u64> },
    /// `close`: end exchange `n` (its stream), its later bytes unread.
    Close { n: u64 },
    /// `put`: write these records as one group; `written` answers.
    Put { entries: Vec<Value> },
    /// `save`: write one record (a call's pending record) before what follows goes out.
    Save { key: String, text: String },
    /// `delete`: delete one record.
    Delete { key: String },
    /// `deletes`: delete these records, then settle host call `x` (with the first failure, if any).
    Deletes { x: u64, keys: Vec<Value> },
    #[cfg(feature = "legacy")]
    /// `get`: read one record for compared write `w`; `got` answers.
    Get { w: u64, key: String },
    #[cfg(feature = "legacy")]
    /// `put_if`: write one record only if the stored one is still `expected`; `put_if` answers.
    PutIf { w: u64, key: String, expected: Option<String>, text: String },
    /// `done`: settle host call `x` with a value or an error.
    Done { x: u64, outcome: Result<Value, ClientError> },
    /// `ask`: a call's questions for the host's `onInputRequired`; `asked` answers.
    Ask { x: u64, requests: Value },
    /// `progress`: the latest `notifications/progress` of host call `x` (`{ progress, total, message }`),
    /// for its `onProgress`.
    Progress { x: u64, progress: Value },
    /// `emit`: an event for the host's listeners.
    Emit(Emitted),
    /// `storage`: the store refused or failed; the host's `storage` event.
    Storage { reason: String },
    /// `notify`: show task `id`'s notification (the driver asks `notice` for its words).
    Notify { id: String },
    /// `post`: a message to the other tabs (its JSON text).
    Post { text: String },
    /// `hint`: the ids to poll first at the next open, as JSON text under `key` (`None`: remove it).
    Hint { key: String, text: Option<String> },
    /// `timer`: feed `tick` at `at` (Unix ms; `None`: no timer).
    Timer { at: Option<u64> },
    /// `upgrade`: hand over to the full door; no effect after it is carried out.
    Upgrade,
}

/// What an `emit` effect tells the host's listeners.
#[derive(Debug, Clone, PartialEq)]
pub enum Emitted {
    /// `task`: a task's snapshot (`null` when it is gone).
    Task(Value),
    /// `forget`: task `id` was forgotten.
    Forget(String),
    /// `call`: a call of unknown outcome's snapshot.
    Call(Value),
    /// `auth`: the server asks for sign-in, or no longer does.
    Auth(Value),
}

/// The JSON form of a host-facing error: what the driver turns into a JS `Error`.
pub(crate) fn error_json(e: &ClientError) -> Value {
    let code = e.code.map_or(Value::Null, Value::from);
    json!({ "name": e.kind.js_name(), "message": e.message.as_str(), "code": code, "retryable": e.retryable })
}

/// A number, or `null`.
fn or_null(value: Option<u64>) -> Value {
    value.map_or(Value::Null, Value::from)
}

impl Effect {
    /// The effect's JSON object: its tag, then its fields.
    pub fn to_json(self) -> Value {
        let mut out = Map::new();
        // `do` first, as the driver's types list it; its tag is put once the variant is matched.
        out.put("do", Value::Null);
        let tag = match self {
            Effect::Send { n, x, body, headers, stream, ms } => {
                out.put("n", Value::from(n));
                out.put("x", or_null(x));
                out.put("body", Value::from(body));
                out.put("headers", Value::Array(headers));
                out.put("stream", Value::from(stream));
                out.put("ms", or_null(ms));
                "send"
            }
            Effect::Close { n } => {
                out.put("n", Value::from(n));
                "close"
            }
            Effect::Put { entries } => {
                out.put("entries", Value::Array(entries));
                "put"
            }
            Effect::Save { key, text } => {
                out.put("key", Value::from(key));
                out.put("text", Value::from(text));
                "save"
            }
            Effect::Delete { key } => {
                out.put("key", Value::from(key));
                "delete"
            }
            Effect::Deletes { x, keys } => {
                out.put("x", Value::from(x));
                out.put("keys", Value::Array(keys));
                "deletes"
            }
            #[cfg(feature = "legacy")]
            Effect::Get { w, key } => {
                out.put("w", Value::from(w));
                out.put("key", Value::from(key));
                "get"
            }
            #[cfg(feature = "legacy")]
            Effect::PutIf { w, key, expected, text } => {
                out.put("w", Value::from(w));
                out.put("key", Value::from(key));
                out.put("expected", expected.map_or(Value::Null, Value::from));
                out.put("text", Value::from(text));
                "put_if"
            }
            Effect::Done { x, outcome } => {
                out.put("x", Value::from(x));
                match outcome {
                    Ok(value) => out.put("value", value),
                    Err(e) => out.put("error", error_json(&e)),
                }
                "done"
            }
            Effect::Ask { x, requests } => {
                out.put("x", Value::from(x));
                out.put("requests", requests);
                "ask"
            }
            Effect::Progress { x, progress } => {
                out.put("x", Value::from(x));
                out.put("progress", progress);
                "progress"
            }
            Effect::Emit(emitted) => {
                let (kind, detail) = match emitted {
                    Emitted::Task(snapshot) => ("task", snapshot),
                    Emitted::Forget(id) => ("forget", json!({ "id": id })),
                    Emitted::Call(snapshot) => ("call", snapshot),
                    Emitted::Auth(detail) => ("auth", detail),
                };
                out.put("type", Value::from(kind));
                out.put("detail", detail);
                "emit"
            }
            Effect::Storage { reason } => {
                out.put("reason", Value::from(reason));
                "storage"
            }
            Effect::Notify { id } => {
                out.put("id", Value::from(id));
                "notify"
            }
            Effect::Post { text } => {
                out.put("text", Value::from(text));
                "post"
            }
            Effect::Hint { key, text } => {
                out.put("key", Value::from(key));
                out.put("text", text.map_or(Value::Null, Value::from));
                "hint"
            }
            Effect::Timer { at } => {
                out.put("at", or_null(at));
                "timer"
            }
            Effect::Upgrade => "upgrade",
        };
        out.put("do", Value::from(tag));
        Value::Object(out)
    }
}
