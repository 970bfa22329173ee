//! The door: one client's whole state behind one call, for a driver written in JS
//! (`js/driver/task_client.js`). The driver feeds in what happened (a host call, an answer's
//! bytes, a failed request, a store write done, the timer) as a JSON value; the door decides with
//! [`ClientState`] and hands back what to do as JSON values: requests to send, records to write,
//! events, host promises to settle, the timer. Nothing here touches JS, so the door is tested
//! natively with a fake clock, like the state it holds.
//!
//! What the package ships (`pkg/`, the JS driver in `js/driver/` over it): it drives 2026-07-28
//! servers (calls with MRTR rounds and `Mcp-Param-*` headers, tools pages, polls, answers, cancels,
//! waits, forgets, the listen stream, one poller across tabs, notifications, step mode, and with the
//! `element` feature the element's cards) and, with the `legacy` feature, 2025-11-25 servers
//! (`legacy.rs`: era detection, the session, `tasks/result` streams); without it, it hands over to
//! the door that has it when such a server is met (`upgrade.rs`). Every answer comes in as bytes.
//!
//! The events and effects are typed ([`Event`], [`Effect`] in `protocol/`, each read or written in one
//! place) and versioned ([`VERSION`]); docs/door.md specifies them and the rules for calling
//! [`Door::handle`].
use crate::client_state::{ClientConfig, ClientState, Keys, Removal, Wait, WriteGroup, MAX_REQUESTS_IN_FLIGHT};
use crate::collections::SortedMap;
use crate::error::ClientError;
use crate::json::{json, Value};
use crate::protocol::jsonrpc::RequestIds;
use crate::protocol::meta::RequestMeta;
use crate::protocol::tool_call::InputRequiredResult;

mod answer;
mod calls;
mod effects;
#[cfg(any(feature = "element", test))]
pub(crate) mod element;
/// The one place the two builds differ: the 2025-11-25 flow (`legacy.rs`: era detection, the
/// session, `tasks/result` streams) with the `legacy` feature, or, without it, the hand-over to the
/// door that has it (`upgrade.rs`). Both give the same items, so the rest of the door has no `cfg`.
#[cfg_attr(feature = "legacy", path = "legacy.rs")]
#[cfg_attr(not(feature = "legacy"), path = "upgrade.rs")]
mod era;
mod exchanges;
mod options;
mod protocol;
mod queries;
mod step;
mod store;
mod tabs;

use calls::{CallInFlight, HostRequest};
use exchanges::{Exchange, Purpose};
use store::AfterWrite;
use tabs::Asker;

pub use options::DoorOptions;
pub(crate) use protocol::error_json;
pub use protocol::{Answer, Effect, Emitted, Event, Failure, List, ProtocolError, VERSION};

/// Values by a number the door gave out: few at once (the requests in flight, the calls asking), so
/// a list searched in order.
struct Numbered<T>(Vec<(u64, T)>);

impl<T> Default for Numbered<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> Numbered<T> {
    fn insert(&mut self, n: u64, value: T) {
        self.0.push((n, value));
    }

    fn get(&self, n: u64) -> Option<&T> {
        self.0.iter().find(|(m, _)| *m == n).map(|(_, value)| value)
    }

    fn get_mut(&mut self, n: u64) -> Option<&mut T> {
        self.0.iter_mut().find(|(m, _)| *m == n).map(|(_, value)| value)
    }

    fn remove(&mut self, n: u64) -> Option<T> {
        let at = self.0.iter().position(|(m, _)| *m == n)?;
        Some(self.0.swap_remove(at).1)
    }
}

/// One client's state and the bookkeeping of the requests, writes and host calls it is waiting for.
pub struct Door {
    state: ClientState,
    meta: RequestMeta,
    ids: RequestIds,
    /// Requests sent and not answered yet, by the door's exchange number.
    exchanges: Numbered<Exchange>,
    next_exchange: u64,
    /// The write group in the store's hands.
    writing: Option<WriteGroup>,
    /// The exchange carrying the listen stream open now.
    listening: Option<u64>,
    /// Host calls that settle once a task's record is written.
    after_write: Vec<AfterWrite>,
    /// `callTool`s waiting for the host's answers to a round's questions, by call number.
    asking: Numbered<(CallInFlight, InputRequiredResult)>,
    /// `wait`s by the state's waiter id: the host call each settles.
    waits: SortedMap<String, u64>,
    /// `respond`s and `cancel`s forwarded to the polling tab: the request id, the host call, and when
    /// it is given up.
    forwarded: Vec<(String, u64, u64)>,
    /// A forward was added since the timer was last set.
    rearm: bool,
    /// Step mode's compared writes and reads in the store's hands, by number.
    versioned: Numbered<step::Versioned>,
    /// The steps running now, by their host call.
    steps: Numbered<step::StepRun>,
    /// How long a request may take (`requestTimeoutMs`): a step's lease outlasts its sends.
    request_timeout_ms: u64,
    /// The endpoint as configured (the element names it when it does not parse).
    #[cfg_attr(not(feature = "element"), allow(dead_code))]
    url: String,
    max_input_requests: usize,
    /// The largest stream event read (`maxResponseBytes`).
    max_response_bytes: usize,
    /// Feeds call ids and forwarded requests' ids.
    seed: u64,
    /// While `forget` or `clear` runs: the store keys it deletes, handed over as one effect.
    deleting: Option<crate::collections::SortedSet<String>>,
    /// The time of the event being handled.
    now: u64,
    /// The restore at open, between its first page and the rest (`restore` with `more`).
    restoring: Option<crate::client_state::Restore>,
    /// With the 2025-11-25 flow, the server's generation and session; without it, when to hand over
    /// to the door that has it.
    era: era::Era,
    out: Out,
}

/// The `(key, text)` pairs the driver listed from the store: their UTF-8 bytes end to end in `body`,
/// and the byte length of each key and text in turn in the event's `sizes`. Not JSON: escaping every
/// record's text into one event, and parsing it back out, cost most of a step over 10,000 records
/// and held each record twice more at open. Sizes that do not fit the body end the list there.
fn pairs<'a>(sizes: List<'_>, body: &'a [u8]) -> Vec<(&'a str, &'a str)> {
    let mut rest = body;
    let mut next = |size: &Value| {
        let size = usize::try_from(size.as_u64()?).ok().filter(|size| *size <= rest.len())?;
        let (part, after) = rest.split_at(size);
        rest = after;
        std::str::from_utf8(part).ok()
    };
    let sizes = sizes.items();
    let mut out = Vec::with_capacity(sizes.len() / 2);
    for pair in sizes.chunks_exact(2) {
        let (Some(key), Some(text)) = (next(&pair[0]), next(&pair[1])) else { break };
        out.push((key, text));
    }
    out
}

/// What an early hint names (`hint`: the JSON text the polling tab last wrote): task ids, then the end
/// of a running pause (`ClientState::early_hint`); nothing when it is not a list.
fn early_hint(hint: &str) -> Vec<Value> {
    match crate::json::from_str(hint) {
        Ok(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

/// The effects of the event being handled, each written as the driver reads it when it is made (a
/// list of typed effects held to the end cost the .wasm their drop and a second pass).
#[derive(Default)]
struct Out(Vec<Value>);

impl Out {
    fn push(&mut self, effect: Effect) {
        self.0.push(effect.to_json());
    }

    fn take(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.0)
    }
}

impl Door {
    /// A door for the client `options` describe. `seed`: randomness from the driver (jitter, ids).
    pub fn open(options: &Value, seed: u64) -> Result<Door, ClientError> {
        let options = DoorOptions::read(options).map_err(ClientError::usage)?;
        let keys = Keys::new(&options.namespace, &options.url);
        let config = ClientConfig {
            policy: options.policy,
            retention: options.retention,
            auto_poll: options.auto_poll,
            max_in_flight: MAX_REQUESTS_IN_FLIGHT,
        };
        // With other tabs to share the namespace with, this one polls only once it holds their lock.
        let mut state = ClientState::new(config, keys, options.offline, !options.tabs || !options.auto_poll, seed);
        state.set_hidden(options.hidden);
        state.set_notify(options.notify);
        state.set_drives_legacy(era::DRIVES_LEGACY);
        Ok(Door {
            state,
            meta: RequestMeta::task_client(options.client_info, true, true),
            ids: RequestIds::starting_at((seed % 1_000_000_000) as i64 + 1),
            exchanges: Numbered::default(),
            next_exchange: 1,
            writing: None,
            listening: None,
            deleting: None,
            after_write: Vec::new(),
            asking: Numbered::default(),
            waits: SortedMap::new(),
            forwarded: Vec::new(),
            rearm: false,
            versioned: Numbered::default(),
            steps: Numbered::default(),
            request_timeout_ms: options.request_timeout_ms,
            url: options.url.clone(),
            max_input_requests: options.max_input_requests,
            max_response_bytes: options.max_response_bytes,
            seed,
            now: 0,
            restoring: None,
            era: era::Era::default(),
            out: Out::default(),
        })
    }

    /// [`Self::handle`] for an event's JSON text. An event the door cannot read (a host's value nested
    /// deeper than the parser allows, say) settles host call `x` with a `TypeError` saying why, rather
    /// than leave its promise waiting.
    pub fn handle_text(&mut self, now: u64, x: u64, event: &str, body: &[u8]) -> Vec<Value> {
        match crate::json::from_str(event) {
            Ok(event) => self.handle(now, &event, body),
            Err(e) => {
                self.done(x, Err(ClientError::usage(format!("the call's values cannot be read: {e}"))));
                self.out.take()
            }
        }
    }

    /// Feeds one event (`{ "e": kind, … }`; `body`: an answer's bytes) at `now`, and returns what the
    /// driver must do, in order (docs/door.md). An event that cannot be decoded ([`ProtocolError`])
    /// settles its host call with a `TypeError` saying which event and field.
    pub fn handle(&mut self, now: u64, event: &Value, body: &[u8]) -> Vec<Value> {
        self.now = now;
        if self.handed_over() {
            return Vec::new();
        }
        match Event::decode(event) {
            Ok((x, event)) => self.dispatch(now, x, event, body),
            Err(e) => {
                // The host call the event carries, if its `x` can be read at all.
                let x = event.get("x").and_then(Value::as_u64).unwrap_or(0);
                self.done(x, Err(ClientError::usage(e.message())));
            }
        }
        if let Some(out) = self.handing_over() {
            return out;
        }
        self.steps_advance(now);
        // A step-mode client has no timer: the platform calls `step()`.
        if self.perform() | std::mem::take(&mut self.rearm) && !self.stepping() {
            let forward = self.forwarded.iter().map(|(_, _, until)| *until).min();
            let at = match (self.state.next_wakeup(now), forward) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            self.out.push(Effect::Timer { at });
        }
        if let Some(hint) = self.state.early_hint(now) {
            let text = (!hint.is_empty()).then(|| crate::json::to_string(&Value::Array(hint)));
            self.out.push(Effect::Hint { key: self.state.keys().early_hint(), text });
        }
        self.out.take()
    }

    /// What one event does; host call `x` (0: none) is the one it carries.
    fn dispatch(&mut self, now: u64, x: u64, event: Event<'_>, body: &[u8]) {
        match event {
            // What the driver needs before it reads the store: the keys, the first page's size, and the
            // request timeout and response limit it applies (the options as read here, so the driver
            // keeps no defaults or clamps of its own).
            Event::Keys => {
                let keys = self.state.keys();
                let prefixes = json!({
                    "prefix": keys.prefix(), "previous": keys.previous_prefix(), "tabs": keys.tabs(),
                    "hint": keys.early_hint(), "firstPage": crate::client_state::FIRST_PAGE,
                    "requestTimeoutMs": self.request_timeout_ms, "maxResponseBytes": self.max_response_bytes
                });
                self.done(x, Ok(prefixes));
            }
            Event::Migrate { sizes } => {
                let listed = pairs(sizes, body);
                let moves = self.state.keys().moves(&listed).map(|(old, new, text)| json!([old, new, text]));
                let moves = Value::Array(moves.collect());
                self.done(x, Ok(moves));
            }
            Event::Restore { leader, more, sizes } => self.restore(now, leader, more, sizes, body, x),
            // The lock was free at open: this tab will poll (`restore` says so), and polls the hinted
            // tasks before the store is read.
            Event::EarlyHint { hint } => self.state.poll_early(now, &early_hint(hint)),
            Event::Lead { sizes } => self.lead(now, sizes, body),
            Event::TabMessage => self.tab_message(now, body),
            #[cfg(feature = "legacy")]
            Event::Step { sizes } => self.step(now, sizes, body, x),
            #[cfg(feature = "legacy")]
            Event::PutIfDone { w, ok, failed } => self.put_if_done(w, ok, failed),
            #[cfg(feature = "legacy")]
            Event::Got { w, text } => self.got(w, text),
            Event::Tick => {
                self.give_up_forwards(now);
                self.state.poll_due(now);
            }
            Event::CallTool { name, arguments, can_ask, input_schema, ui } => {
                self.call(now, x, name, arguments, can_ask, calls::ToolOptions { input_schema, ui })
            }
            Event::ListTools { cursor } => {
                let request = crate::protocol::request::ClientRequest::ListTools { cursor: cursor.map(str::to_owned) };
                self.host_request(HostRequest::Read { x, request });
            }
            Event::ReadResource { uri } => {
                let request = crate::protocol::request::ClientRequest::ReadResource { uri: uri.to_owned() };
                self.host_request(HostRequest::Read { x, request });
            }
            Event::Asked { answers, error } => self.asked(x, answers, error),
            Event::Answered(answer) => self.answered(now, answer, body),
            Event::Chunk { n, end } => self.chunk(now, n, end, body),
            Event::Failed { n, failure } => self.failed(now, n, failure),
            Event::Written { refused, broken, message } => self.written(now, refused, broken, message),
            Event::Respond { id, answers, answers_text } => {
                // `answersText`: the element's answers as JSON text, so numbers keep their digits.
                let answers = match answers_text.map(crate::json::from_str) {
                    Some(Err(e)) => Err(ClientError::usage(format!("responses: {e}"))),
                    Some(Ok(answers)) => Ok(Some(answers)),
                    None => Ok(Some(answers.cloned().unwrap_or(Value::Null))),
                };
                self.change(now, x, id, answers);
            }
            Event::Cancel { id } => self.change(now, x, id, Ok(None)),
            Event::Wait { id } => match self.state.wait(id) {
                Ok(Wait::Settled) => {
                    let snapshot = self.snapshot(id);
                    self.done(x, Ok(snapshot));
                }
                Ok(Wait::Later(waiter)) => {
                    self.waits.insert(waiter, x);
                }
                Err(e) => self.done(x, Err(e)),
            },
            Event::Forget { id } => {
                self.state.remove(&[id.to_owned()], Removal::Forget);
                self.deletes_then_done(x, Vec::new());
                // A pass: the streams may have no live task left to serve.
                self.state.poll_due(now);
            }
            // `keys`: what the driver listed under the prefix (records this client never loaded too).
            Event::Clear { keys } => {
                self.state.clear();
                self.deletes_then_done(x, crate::json::string_values(keys.items()));
                self.state.poll_due(now);
            }
            // In pages (`from`, at most `count`; without them, all): the page's text is written into
            // wasm memory, which never shrinks, so 10,000 snapshots at once would stay the footprint.
            Event::Tasks { from, count } => {
                let count = count.map_or(usize::MAX, |n| n as usize);
                let page = self.snapshots(from as usize).take(count);
                let page = crate::json::RawJson::array_of(page);
                self.done(x, Ok(Value::Raw(page)));
            }
            Event::Online { online } => {
                self.state.connectivity_changed(now, online);
                self.state.poll_due(now);
            }
            Event::Hidden { hidden } => {
                self.state.set_hidden(hidden);
                if !hidden {
                    self.state.connectivity_changed(now, true);
                    self.state.poll_due(now);
                }
            }
            Event::Notify { on } => self.state.set_notify(on),
            Event::Notice { id, language } => {
                let notice = self.notice(id, language);
                self.done(x, Ok(notice));
            }
            #[cfg(any(feature = "element", test))]
            Event::Card { id, snapshot, drawn, words, server, urls } => {
                self.card(x, id, (snapshot, drawn), words, server, urls)
            }
            #[cfg(any(feature = "element", test))]
            Event::List { words } => self.list(x, words),
            Event::Close => self.state.close(),
        }
    }

    /// The next number of the door's generator (a call's or a forwarded request's id).
    fn next_random(&mut self) -> u64 {
        self.seed = self.seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.seed
    }

    /// Settles host call `x`.
    fn done(&mut self, x: u64, outcome: Result<Value, ClientError>) {
        self.out.push(Effect::Done { x, outcome });
    }
}

#[cfg(test)]
mod tests;
