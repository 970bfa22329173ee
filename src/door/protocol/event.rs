//! The events the driver feeds the door: `{ "e": tag, … }` JSON objects, with an answer's or a
//! listing's bytes beside them. [`Event::decode`] is the one place a tag or a field name is read.
use crate::json::Value;

use super::ProtocolError;

/// One event, its fields borrowed from the JSON value it was read from.
// Each variant's doc names its fields; docs/door.md has them one by one.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// `keys`: the store keys the driver needs before it reads the store (a query).
    Keys,
    /// `migrate`: the previous release's records (listed in the body) to move (a query).
    Migrate { sizes: List<'a> },
    /// `restore`: the store's records (in the body); `more`: a first page, the rest follows.
    Restore { leader: bool, more: bool, sizes: List<'a> },
    /// `early`: this tab took the lock at open; `hint`: the JSON text of the ids to poll first.
    EarlyHint { hint: &'a str },
    /// `lead`: this tab took the lock; the records as the previous poller left them (in the body).
    Lead { sizes: List<'a> },
    /// `message`: another tab's message (its JSON text in the body).
    TabMessage,
    #[cfg(feature = "legacy")]
    /// `step`: a host's `step()`; `sizes`: the store's records in the body (`None`: the store failed).
    Step { sizes: Option<List<'a>> },
    #[cfg(feature = "legacy")]
    /// `put_if`: compared write `w` is done: `ok` (written), `failed` (the store failed), or neither
    /// (another writer was first).
    PutIfDone { w: u64, ok: bool, failed: bool },
    #[cfg(feature = "legacy")]
    /// `got`: read `w` is done: the record's `text` (`None`: no record).
    Got { w: u64, text: Option<&'a str> },
    /// `tick`: the timer the door set fired.
    Tick,
    /// `call`: a host's `callTool`.
    CallTool {
        name: &'a str,
        arguments: Option<&'a Value>,
        can_ask: bool,
        input_schema: Option<&'a Value>,
        ui: Option<&'a Value>,
    },
    /// `list_tools`: a host's `listTools` of page `cursor`.
    ListTools { cursor: Option<&'a str> },
    /// `read_resource`: a host's `readResource` of `uri`.
    ReadResource { uri: &'a str },
    /// `asked`: the host's `answers` to a call's questions, or why it gave none (`error`).
    Asked { answers: Option<&'a Value>, error: Option<&'a str> },
    /// `answer`: an exchange's answer came (its body beside it, or its chunks after it with `sse`).
    Answered(Answer<'a>),
    /// `chunk`: the next bytes of exchange `n`'s event stream (in the body); `end`: it ended.
    Chunk { n: u64, end: bool },
    /// `failed`: exchange `n` failed in the driver.
    Failed { n: u64, failure: Failure<'a> },
    /// `written`: the `put` in the store's hands is done; `refused`: the keys the store did not take.
    Written { refused: List<'a>, broken: bool, message: Option<&'a str> },
    /// `respond`: a host's answers to task `id`'s questions, as a value or as JSON text.
    Respond { id: &'a str, answers: Option<&'a Value>, answers_text: Option<&'a str> },
    /// `cancel`: a host's cancel of task `id`.
    Cancel { id: &'a str },
    /// `wait`: a host's wait for task `id` to settle.
    Wait { id: &'a str },
    /// `forget`: a host's forget of task `id`.
    Forget { id: &'a str },
    /// `clear`: a host's `clear()`; `keys`: what the driver listed under the prefix.
    Clear { keys: List<'a> },
    /// `tasks`: a page of snapshots from `from`, at most `count` (a query).
    Tasks { from: u64, count: Option<u64> },
    /// `online`: the page's connectivity changed.
    Online { online: bool },
    /// `hidden`: the page was hidden or shown.
    Hidden { hidden: bool },
    /// `notify`: whether notifications are on.
    Notify { on: bool },
    /// `notice`: task `id`'s notification in `language` (a query).
    Notice { id: &'a str, language: &'a str },
    /// `card`: the element's card of task `id` (a query).
    #[cfg(any(feature = "element", test))]
    Card {
        id: &'a str,
        snapshot: Option<&'a Value>,
        /// The `digest` of the card the element drew last: the answer leaves that snapshot out.
        drawn: Option<&'a str>,
        words: Option<&'a Value>,
        server: Option<&'a Value>,
        urls: Option<&'a Value>,
    },
    /// `list`: the element's list rows (a query).
    #[cfg(any(feature = "element", test))]
    List { words: Option<&'a Value> },
    /// `close`: the host closed the client.
    Close,
}

/// A list field, its items checked as it was decoded: all texts (`refused`, `keys`) or all whole
/// numbers (`sizes`: the byte length of each key and text in turn of the records in the body). Kept as
/// the JSON items it was read from, so no copy is made of a long listing.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct List<'a>(&'a [Value]);

impl<'a> List<'a> {
    /// The items, each a whole number or each a text as the field says.
    pub fn items(self) -> &'a [Value] {
        self.0
    }

    /// Whether a list of texts holds `text`.
    pub fn has_text(self, text: &str) -> bool {
        for item in self.0 {
            if item.as_str() == Some(text) {
                return true;
            }
        }
        false
    }
}

/// An `answer` event: exchange `n`'s HTTP status, `Retry-After` and `Mcp-Session-Id` headers, and
/// whether its body is an event stream (`sse`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answer<'a> {
    /// The exchange.
    pub n: u64,
    /// The HTTP status.
    pub status: u16,
    /// The `Retry-After` header.
    pub retry_after: Option<&'a str>,
    /// The `Mcp-Session-Id` header (read only by the 2025-11-25 flow).
    pub session: Option<&'a str>,
    /// The `WWW-Authenticate` header (read on a 401 or 403).
    pub www_authenticate: Option<&'a str>,
    /// The body is an event stream: its bytes follow as `chunk` events.
    pub sse: bool,
}

/// How an exchange failed in the driver (`failed`'s `kind` and the fields that go with it).
// Each variant's doc names its fields; docs/door.md has them one by one.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq)]
pub enum Failure<'a> {
    Network { message: Option<&'a str> },
    Timeout,
    Aborted,
    Headers { message: Option<&'a str> },
    Redirect { status: u16, to: Option<&'a str> },
    TooLarge,
}

/// An event's fields. Absent and `null` are the same. The first
/// field that is missing or of another type is kept, and [`Event::decode`] returns it as the event's
/// [`ProtocolError`] in place of the event: the value read for that field (0, "", false) goes
/// nowhere. One check at the end, not one per field: the decoder stays small in the .wasm.
struct Fields<'a> {
    value: &'a Value,
    /// The first field that could not be read, and what it should have been (`None`: missing).
    wrong: std::cell::Cell<Option<(&'static str, Option<&'static str>)>>,
}

/// Whether a value is a whole number that fits an HTTP status.
fn is_status(value: &Value) -> bool {
    value.as_u64().is_some_and(|status| status <= u64::from(u16::MAX))
}

/// Whether a value is a list whose every item `is` what it should be (one loop for both lists).
#[inline(never)]
fn is_list_of(value: &Value, is: fn(&Value) -> bool) -> bool {
    let Some(items) = value.as_array() else { return false };
    for item in items {
        if !is(item) {
            return false;
        }
    }
    true
}

/// Whether a value is a list of texts.
fn is_texts(value: &Value) -> bool {
    is_list_of(value, Value::is_string)
}

/// Whether a value is a list of whole numbers.
fn is_numbers(value: &Value) -> bool {
    is_list_of(value, Value::is_u64)
}

impl<'a> Fields<'a> {
    fn any(&self, field: &'static str) -> Option<&'a Value> {
        self.value.get(field).filter(|v| !v.is_null())
    }

    /// Keeps the first problem: field `field` is missing (`expected` is `None`) or not `expected`.
    fn fail(&self, field: &'static str, expected: Option<&'static str>) {
        if self.wrong.get().is_none() {
            self.wrong.set(Some((field, expected)));
        }
    }

    /// Field `field` when present and of its type (`is`); a present value of another type is not
    /// `expected`, and an absent one is missing if the event `needs` it. One check for every field of
    /// every event.
    #[inline(never)]
    fn read(
        &self,
        field: &'static str,
        expected: &'static str,
        is: fn(&Value) -> bool,
        needs: bool,
    ) -> Option<&'a Value> {
        let value = self.value.get(field).filter(|v| !v.is_null());
        match value {
            Some(value) if is(value) => return Some(value),
            Some(_) => self.fail(field, Some(expected)),
            None if needs => self.fail(field, None),
            None => {}
        }
        None
    }

    fn get(&self, field: &'static str, expected: &'static str, is: fn(&Value) -> bool) -> Option<&'a Value> {
        self.read(field, expected, is, false)
    }

    /// [`Self::get`] for a field the event needs: its absence is a problem too.
    fn need(&self, field: &'static str, expected: &'static str, is: fn(&Value) -> bool) -> Option<&'a Value> {
        self.read(field, expected, is, true)
    }

    fn opt_text(&self, field: &'static str) -> Option<&'a str> {
        self.get(field, "a text", Value::is_string).and_then(Value::as_str)
    }

    fn text(&self, field: &'static str) -> &'a str {
        self.need(field, "a text", Value::is_string).and_then(Value::as_str).unwrap_or_default()
    }

    fn opt_number(&self, field: &'static str) -> Option<u64> {
        self.get(field, "a whole number", Value::is_u64).and_then(Value::as_u64)
    }

    fn number(&self, field: &'static str) -> u64 {
        self.need(field, "a whole number", Value::is_u64).and_then(Value::as_u64).unwrap_or_default()
    }

    fn status(&self, field: &'static str) -> u16 {
        let status = self.need(field, "an HTTP status", is_status).and_then(Value::as_u64);
        status.map_or(0, |status| status as u16)
    }

    /// A flag whose absence means `false`.
    fn flag(&self, field: &'static str) -> bool {
        self.get(field, "true or false", Value::is_boolean).and_then(Value::as_bool) == Some(true)
    }

    /// A flag the event needs.
    fn need_flag(&self, field: &'static str) -> bool {
        self.need(field, "true or false", Value::is_boolean).and_then(Value::as_bool) == Some(true)
    }

    fn list(&self, field: &'static str, expected: &'static str, is: fn(&Value) -> bool) -> Option<List<'a>> {
        self.get(field, expected, is).and_then(Value::as_array).map(|items| List(items))
    }

    /// A list of texts; absent: none.
    fn texts(&self, field: &'static str) -> List<'a> {
        self.list(field, "a list of texts", is_texts).unwrap_or_default()
    }

    /// `sizes`: the byte length of each key and text in turn of the records in the body.
    fn opt_sizes(&self) -> Option<List<'a>> {
        self.list("sizes", "a list of whole numbers", is_numbers)
    }

    fn sizes(&self) -> List<'a> {
        self.opt_sizes().unwrap_or_default()
    }
}

impl<'a> Event<'a> {
    /// Reads an event and the host call it carries (`x`; 0: none). The table of event tags: each
    /// tag's fields are read here and nowhere else.
    pub fn decode(value: &'a Value) -> Result<(u64, Event<'a>), ProtocolError<'a>> {
        let tag = value.get("e").and_then(Value::as_str).ok_or(ProtocolError::Untagged)?;
        let f = Fields { value, wrong: std::cell::Cell::new(None) };
        let x = f.opt_number("x").unwrap_or(0);
        let event = match tag {
            "keys" => Event::Keys,
            "migrate" => Event::Migrate { sizes: f.sizes() },
            "restore" => Event::Restore { leader: f.flag("leader"), more: f.flag("more"), sizes: f.sizes() },
            "early" => Event::EarlyHint { hint: f.text("hint") },
            "lead" => Event::Lead { sizes: f.sizes() },
            "message" => Event::TabMessage,
            #[cfg(feature = "legacy")]
            "step" => Event::Step { sizes: f.opt_sizes() },
            #[cfg(feature = "legacy")]
            "put_if" => Event::PutIfDone { w: f.number("w"), ok: f.flag("ok"), failed: f.flag("failed") },
            #[cfg(feature = "legacy")]
            "got" => Event::Got { w: f.number("w"), text: f.opt_text("text") },
            "tick" => Event::Tick,
            "call" => Event::CallTool {
                name: f.text("name"),
                arguments: f.any("arguments"),
                can_ask: f.flag("ask"),
                input_schema: f.any("inputSchema"),
                ui: f.any("ui"),
            },
            "list_tools" => Event::ListTools { cursor: f.opt_text("cursor") },
            "read_resource" => Event::ReadResource { uri: f.text("uri") },
            "asked" => Event::Asked { answers: f.any("answers"), error: f.opt_text("error") },
            "answer" => Event::Answered(Answer {
                n: f.number("n"),
                status: f.status("status"),
                retry_after: f.opt_text("retryAfter"),
                session: f.opt_text("session"),
                www_authenticate: f.opt_text("wwwAuthenticate"),
                sse: f.flag("sse"),
            }),
            "chunk" => Event::Chunk { n: f.number("n"), end: f.flag("end") },
            "failed" => {
                let message = f.opt_text("message");
                let failure = match f.text("kind") {
                    "timeout" => Failure::Timeout,
                    "aborted" => Failure::Aborted,
                    "headers" => Failure::Headers { message },
                    "redirect" => Failure::Redirect { status: f.status("status"), to: f.opt_text("to") },
                    "too_large" => Failure::TooLarge,
                    // `network`, and any kind this door does not know: the request did not get through.
                    _ => Failure::Network { message },
                };
                Event::Failed { n: f.number("n"), failure }
            }
            "written" => {
                Event::Written { refused: f.texts("refused"), broken: f.flag("broken"), message: f.opt_text("message") }
            }
            "respond" => {
                Event::Respond { id: f.text("id"), answers: f.any("answers"), answers_text: f.opt_text("answersText") }
            }
            "cancel" => Event::Cancel { id: f.text("id") },
            "wait" => Event::Wait { id: f.text("id") },
            "forget" => Event::Forget { id: f.text("id") },
            "clear" => Event::Clear { keys: f.texts("keys") },
            "tasks" => Event::Tasks { from: f.opt_number("from").unwrap_or(0), count: f.opt_number("count") },
            "online" => Event::Online { online: f.need_flag("online") },
            "hidden" => Event::Hidden { hidden: f.need_flag("hidden") },
            "notify" => Event::Notify { on: f.need_flag("on") },
            "notice" => Event::Notice { id: f.text("id"), language: f.text("language") },
            #[cfg(any(feature = "element", test))]
            "card" => Event::Card {
                id: f.text("id"),
                snapshot: f.any("snapshot"),
                drawn: f.opt_text("drawn"),
                words: f.any("words"),
                server: f.any("server"),
                urls: f.any("urls"),
            },
            #[cfg(any(feature = "element", test))]
            "list" => Event::List { words: f.any("words") },
            "close" => Event::Close,
            _ => return Err(ProtocolError::UnknownEvent(tag)),
        };
        match f.wrong.get() {
            None => Ok((x, event)),
            Some((field, None)) => Err(ProtocolError::Missing { event: tag, field }),
            Some((field, Some(expected))) => Err(ProtocolError::WrongType { event: tag, field, expected }),
        }
    }
}
