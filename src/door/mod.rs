//! The door: one client's whole state behind one call, for a driver written in JS
//! (`src/driver/task_client.js`). The driver feeds in what happened (a host call, an answer's
//! bytes, a failed request, a store write done, the timer) as a JSON value; the door decides with
//! [`ClientState`] and hands back what to do as JSON values: requests to send, records to write,
//! events, host promises to settle, the timer. Nothing here touches JS, so the door is tested
//! natively with a fake clock, like the state it holds.
//!
//! What the package ships (`pkg/`, the JS driver in `src/driver/` over it): it drives 2026-07-28
//! servers (calls with MRTR rounds and `Mcp-Param-*` headers, tools pages, polls, answers, cancels,
//! waits, forgets, the listen stream, one poller across tabs, notifications, step mode, and with the
//! `element` feature the element's cards) and, with the `legacy` feature, 2025-11-25 servers
//! (`legacy.rs`: era detection, the session, `tasks/result` streams); without it, it hands over to
//! the door that has it when such a server is met (`upgrade.rs`). Every answer comes in as bytes.
use crate::client_state::{
    ClientConfig, ClientState, Effect as StateEffect, Keys, Removal, TabMessage, Wait, WriteGroup, EARLY_POLLS,
    MAX_REQUESTS_IN_FLIGHT,
};
use crate::collections::SortedMap;
use crate::error::{ClientError, ErrorKind};
use crate::json::{json, Value};
use crate::machine::mrtr::MrtrCall;
use crate::machine::pending::PendingCall;
use crate::machine::record::{Action, Change};
use crate::machine::stored::to_stored;
use crate::protocol::input::{decode_input_responses, encode_input_requests, InputResponses};
use crate::protocol::jsonrpc::{RequestId, RequestIds};
use crate::protocol::meta::RequestMeta;
use crate::protocol::param_headers;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::subscriptions::ListenFilter;
use crate::protocol::task_protocol::TaskProtocol;
use crate::protocol::tool_call::{InputRequiredResult, ToolCallOutcome};
use crate::snapshot::{TaskSnapshot, UnknownCallSnapshot};
use crate::transport::listen_stream::{listen_end, listen_event, ListenEvent};
use crate::transport::reply::{exchange_outcome, version_retry, VersionRetry};
use crate::transport::TransportError;

mod answer;
#[cfg(any(feature = "element", test))]
pub(crate) mod element;
#[cfg(feature = "legacy")]
mod legacy;
mod options;
mod protocol;
mod step;
#[cfg(not(feature = "legacy"))]
mod upgrade;

/// How long a `respond` or `cancel` forwarded to the polling tab waits for its reply.
const FORWARD_TIMEOUT_MS: u64 = 5_000;

pub use options::DoorOptions;
pub(crate) use protocol::error_json;
pub use protocol::{Answer, Effect, Emitted, Event, Failure, List, ProtocolError, VERSION};

/// What a request the door sent is for.
enum Purpose {
    /// An exchange the state asked for (a poll, an answer, a cancel), or step `in_step` ran.
    Task { id: String, action: Action, slot: bool, in_step: Option<u64> },
    /// A host's `callTool`.
    Call(CallInFlight),
    /// A host's `listTools`: `x` settles it; `cursor`: the page it asked for.
    ListTools { x: u64, cursor: Option<String> },
    /// `server/discover`: whether the server offers the listen stream.
    Discover,
    /// The state's listen stream `generation`.
    Listen { generation: u64 },
    /// `server/discover` of the era detection, after a 2026-07-28 request failed with this error.
    #[cfg(feature = "legacy")]
    Negotiate(HostRequest, TransportError),
}

/// A host request that goes to the server in its generation's flow: its 2026-07-28 failure may start
/// the era detection, and once the server is known to speak 2025-11-25 it goes in that session.
enum HostRequest {
    /// `callTool`.
    Call(CallInFlight),
    /// `listTools`: host call `x`, the page `cursor` names.
    ListTools { x: u64, cursor: Option<String> },
}

/// A host's `callTool` across its MRTR rounds.
struct CallInFlight {
    /// The host call it settles.
    x: u64,
    /// The tool.
    name: String,
    call: MrtrCall,
    /// Its pending record's id.
    call_id: String,
    /// Whether the host gave `onInputRequired` to answer a round's questions.
    can_ask: bool,
    /// Its `Mcp-Param-*` headers, sent with every round.
    extra: Vec<(String, String)>,
}

/// A request on its way.
struct Exchange {
    rpc_id: RequestId,
    request: ClientRequest,
    purpose: Purpose,
    /// Sent again once already (a -32022 that names our version).
    retried: bool,
    /// The event stream its answer is being read from.
    stream: Option<answer::Stream>,
    /// Its answer's HTTP status (0 before one came).
    status: u16,
}

/// Who hears how a change of this tab's went: a host call here, or the tab that forwarded it.
enum Asker {
    /// The host call's number.
    Host(u64),
    /// The forwarded request's id (its reply goes over the channel).
    Tab(String),
}

/// A host call that settles once task `id`'s record is written.
struct AfterWrite {
    id: String,
    /// Who asked.
    asker: Asker,
    /// The tool whose call created the task (`callTool` resolves with its snapshot); `None`: an answer
    /// or a cancel (resolves with nothing).
    tool: Option<String>,
}

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
    /// The server's generation and 2025-11-25 session.
    #[cfg(feature = "legacy")]
    link: legacy::Link,
    /// Without the 2025-11-25 flow: when to hand over to the door that has it.
    #[cfg(not(feature = "legacy"))]
    upgrade: upgrade::Upgrade,
    out: Out,
}

/// The `(key, text)` pairs the driver listed from the store: their UTF-8 bytes end to end in `body`,
/// and the byte length of each key and text in turn in the event's `sizes`. Not JSON: escaping every
/// record's text into one event, and parsing it back out, cost most of a step over 10,000 records
/// and held each record twice more at open. Sizes that do not fit the body end the list there.
fn pairs<'a>(sizes: List<'_>, body: &'a [u8]) -> Vec<(&'a str, &'a str)> {
    let mut rest = body;
    let mut next = |size: u64| {
        let size = usize::try_from(size).ok().filter(|size| *size <= rest.len())?;
        let (part, after) = rest.split_at(size);
        rest = after;
        std::str::from_utf8(part).ok()
    };
    let mut out = Vec::new();
    let mut sizes = sizes.numbers();
    while let (Some(key), Some(text)) = (sizes.next(), sizes.next()) {
        let (Some(key), Some(text)) = (next(key), next(text)) else { break };
        out.push((key, text));
    }
    out
}

/// The task ids an early hint names (`hint`: the JSON text the polling tab last wrote), at most
/// [`EARLY_POLLS`]; none when it is not a list of ids.
fn early_ids(hint: &str) -> Vec<String> {
    let hint = crate::json::from_str(hint).ok();
    let items = hint.as_ref().and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    items.iter().filter_map(Value::as_str).take(EARLY_POLLS).map(str::to_owned).collect()
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
        state.set_drives_legacy(cfg!(feature = "legacy"));
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
            #[cfg(feature = "legacy")]
            link: legacy::Link::default(),
            #[cfg(not(feature = "legacy"))]
            upgrade: upgrade::Upgrade::default(),
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
        #[cfg(not(feature = "legacy"))]
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
        #[cfg(not(feature = "legacy"))]
        if let Some(out) = self.handing_over() {
            return out;
        }
        self.steps_advance(now);
        // A step-mode client has no timer: the platform calls `step()`.
        if self.perform() | std::mem::take(&mut self.rearm) && self.state.config().auto_poll {
            let forward = self.forwarded.iter().map(|(_, _, until)| *until).min();
            let at = match (self.state.next_wakeup(now), forward) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            self.out.push(Effect::Timer { at });
        }
        if let Some(ids) = self.state.early_hint() {
            let text = (!ids.is_empty()).then(|| Value::from(ids).to_string());
            self.out.push(Effect::Hint { key: self.state.keys().early_hint(), text });
        }
        self.out.take()
    }

    /// What one event does; host call `x` (0: none) is the one it carries.
    fn dispatch(&mut self, now: u64, x: u64, event: Event<'_>, body: &[u8]) {
        match event {
            // What the driver needs before it reads the store: the keys, and the first page's size.
            Event::Keys => {
                let keys = self.state.keys();
                let prefixes = json!({
                    "prefix": keys.prefix(), "previous": keys.previous_prefix(), "tabs": keys.tabs(),
                    "hint": keys.early_hint(), "firstPage": crate::client_state::FIRST_PAGE
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
            Event::EarlyHint { hint } => self.state.poll_early(&early_ids(hint)),
            Event::Lead { sizes } => self.lead(now, sizes, body),
            Event::TabMessage => self.tab_message(now, body),
            Event::Step { sizes } => self.step(now, sizes, body, x),
            Event::PutIfDone { w, ok, failed } => self.put_if_done(w, ok, failed),
            Event::Got { w, text } => self.got(w, text),
            Event::Tick => {
                self.give_up_forwards(now);
                self.state.poll_due(now);
            }
            Event::CallTool { name, arguments, can_ask, input_schema } => {
                self.call(now, x, name, arguments, can_ask, input_schema)
            }
            Event::ListTools { cursor } => {
                self.host_request(HostRequest::ListTools { x, cursor: cursor.map(str::to_owned) });
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
                self.deletes_then_done(x, keys.texts().map(str::to_owned).collect());
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
            Event::Card { id, snapshot, words, server, urls } => self.card(x, id, snapshot, words, server, urls),
            #[cfg(any(feature = "element", test))]
            Event::List { words } => self.list(x, words),
            Event::Close => self.state.close(),
        }
    }

    /// A host's `respond` (`answers`) or `cancel` (`None`) of task `id`: here when this tab polls,
    /// else forwarded to the tab that does.
    fn change(&mut self, now: u64, x: u64, id: &str, answers: Result<Option<Value>, ClientError>) {
        match (answers, self.state.record(id).map(|_| self.state.is_leader())) {
            (Err(e), _) => self.done(x, Err(e)),
            (_, None) => self.done(x, Err(ClientError::unknown_task(id))),
            (Ok(answers), Some(true)) => self.change_here(now, Asker::Host(x), id, answers),
            (Ok(answers), Some(false)) => self.forward(now, x, id.to_owned(), answers),
        }
    }

    /// This tab now holds the lock and polls: it takes the records as the previous poller left them
    /// in the store (`pairs`), and tells the host only of those that changed behind its back.
    fn lead(&mut self, now: u64, sizes: List<'_>, body: &[u8]) {
        if self.state.is_closed() {
            return;
        }
        let mut restore = self.state.begin_restore(false);
        for (key, text) in pairs(sizes, body) {
            self.state.restore_entry(&mut restore, key, text);
        }
        self.state.page_read(&mut restore, now);
        let changed = self.state.finish_restore(restore, now);
        self.state.set_leader(true);
        for id in changed {
            self.perform_one(StateEffect::EmitTask(id));
        }
        self.state.poll_due(now);
    }

    /// A message from another tab of the namespace (its JSON text in `body`).
    fn tab_message(&mut self, now: u64, body: &[u8]) {
        let message = crate::json::from_str(&crate::text::lossy_utf8(body)).ok();
        let Some(message) = message.as_ref().and_then(TabMessage::from_json) else { return };
        match self.state.on_tab_message(now, message) {
            Some(TabMessage::Reply { req, error }) => {
                let Some(at) = self.forwarded.iter().position(|(r, _, _)| *r == req) else { return };
                let (_, x, _) = self.forwarded.swap_remove(at);
                self.done(x, error.map_or(Ok(Value::Null), Err));
            }
            Some(TabMessage::Respond { req, id, answers }) => {
                self.change_here(now, Asker::Tab(req), &id, Some(answers))
            }
            Some(TabMessage::Cancel { req, id }) => self.change_here(now, Asker::Tab(req), &id, None),
            _ => {}
        }
    }

    /// A `respond` (with `answers`) or a `cancel` of task `id`, sent to the polling tab; host call `x`
    /// settles with its reply, or gives up after [`FORWARD_TIMEOUT_MS`].
    fn forward(&mut self, now: u64, x: u64, id: String, answers: Option<Value>) {
        let req = format!("req-{}", crate::text::hex16(self.next_random()));
        let message = match answers {
            Some(answers) => TabMessage::Respond { req: req.clone(), id, answers },
            None => TabMessage::Cancel { req: req.clone(), id },
        };
        self.perform_one(StateEffect::Post(message));
        self.forwarded.push((req, x, now.saturating_add(FORWARD_TIMEOUT_MS)));
        self.rearm = true;
    }

    /// The next number of the door's generator (a call's or a forwarded request's id).
    fn next_random(&mut self) -> u64 {
        self.seed = self.seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.seed
    }

    /// Forwards the polling tab did not answer in time.
    fn give_up_forwards(&mut self, now: u64) {
        let (late, waiting) = std::mem::take(&mut self.forwarded).into_iter().partition(|(_, _, until)| *until <= now);
        self.forwarded = waiting;
        for (_, x, _) in late {
            self.done(x, Err(ClientError::polling_tab_silent()));
        }
    }

    /// Restores the records the driver listed under [`Self::prefix`] (`pairs`: key and text pairs,
    /// in key order), then polls what is due. `leader`: this tab took the lock while the store opened.
    /// A driver may hand them over in two parts, one restore: a first page with `more` (its due tasks
    /// are polled at once, while the rest is read), then the rest.
    fn restore(&mut self, now: u64, leader: bool, more: bool, sizes: List<'_>, body: &[u8], x: u64) {
        if leader {
            self.state.set_leader(true);
        }
        let entries = pairs(sizes, body);
        self.read_link(now, &entries);
        let mut restore = self.restoring.take().unwrap_or_else(|| self.state.begin_restore(true));
        for &(key, text) in &entries {
            self.state.restore_entry(&mut restore, key, text);
        }
        self.state.page_read(&mut restore, now);
        if more {
            self.restoring = Some(restore);
            return self.done(x, Ok(Value::Null));
        }
        // The ids read anew matter to the tabs and step mode, which the door does not drive yet.
        self.state.finish_restore(restore, now);
        self.state.poll_due(now);
        self.done(x, Ok(Value::Null));
    }

    /// `callTool`: the pending call is saved before its request goes out (a page that dies meanwhile
    /// finds it as a call of unknown outcome).
    fn call(
        &mut self,
        now: u64,
        x: u64,
        name: &str,
        arguments: Option<&Value>,
        can_ask: bool,
        input_schema: Option<&Value>,
    ) {
        if let Err(e) = self.state.refuse_while_paused(now) {
            return self.done(x, Err(e));
        }
        let name = name.to_owned();
        let arguments = match arguments {
            None => None,
            Some(Value::Object(o)) => Some(o.clone()),
            Some(_) => return self.done(x, Err(ClientError::usage("callTool arguments must be an object"))),
        };
        let call_id = format!("call-{}", crate::text::hex16(self.next_random()));
        let bindings = match input_schema {
            None => self.state.tool_bindings(&name).cloned().unwrap_or_default(),
            Some(schema) => match param_headers::bindings(schema) {
                Ok(bindings) => bindings,
                Err(e) => return self.done(x, Err(ClientError::usage(e.to_string()))),
            },
        };
        let extra = param_headers::headers(&bindings, arguments.as_ref());
        let pending = PendingCall {
            call_id: call_id.clone(),
            tool_name: name.clone(),
            arguments: arguments.clone(),
            started_at: now,
        };
        self.state.begin_call(&call_id);
        let key = self.state.keys().call(&call_id);
        self.out.push(Effect::Save { key, text: to_stored(&pending).to_string() });
        let call =
            CallInFlight { x, name: name.clone(), call: MrtrCall::new(name, arguments), call_id, can_ask, extra };
        self.host_request(HostRequest::Call(call));
    }

    /// A host request goes out: in the 2025-11-25 flow when the server is known to speak it, else as
    /// 2026-07-28.
    fn host_request(&mut self, request: HostRequest) {
        match self.legacy_first(request) {
            Some(HostRequest::Call(call)) => {
                let (_, request) = call.call.first(&mut RequestIds::starting_at(0));
                self.send(request, Purpose::Call(call));
            }
            Some(HostRequest::ListTools { x, cursor }) => {
                let request = ClientRequest::ListTools { cursor: cursor.clone() };
                self.send(request, Purpose::ListTools { x, cursor });
            }
            None => {}
        }
    }

    /// A host request's 2026-07-28 failure: the era detection when it may mean an older server,
    /// else the request fails with it.
    fn host_request_failed(&mut self, now: u64, request: HostRequest, error: TransportError) {
        self.state.on_server_failure(now, &error.as_failure());
        if let Some(request) = self.maybe_negotiate(request, error.clone()) {
            self.end_request(&request, Err(ClientError::from(&error)));
        }
    }

    /// The request's host call settles with `outcome` (a call's pending record goes too).
    fn end_request(&mut self, request: &HostRequest, outcome: Result<Value, ClientError>) {
        match request {
            HostRequest::Call(call) => self.end_call(call, outcome),
            HostRequest::ListTools { x, .. } => self.done(*x, outcome),
        }
    }

    /// A `tools/list` page as the host gets it, from its decoded result.
    fn tool_page(&mut self, result: RequestResult) -> Result<Value, ClientError> {
        match result {
            RequestResult::ToolList(page) => Ok(self.state.take_tool_page(page)),
            _ => {
                Err(ClientError::new(ErrorKind::Protocol, "the server answered tools/list with another kind of result"))
            }
        }
    }

    /// The host's answers to a call's questions (`answers`), or why it gave none (`error`).
    fn asked(&mut self, x: u64, answers: Option<&Value>, error: Option<&str>) {
        let Some((call, round)) = self.asking.remove(x) else { return };
        if let Some(why) = error {
            return self.end_call(&call, Err(ClientError::usage(why)));
        }
        let answers = decode_input_responses(answers.unwrap_or(&Value::Null))
            .map_err(|e| ClientError::usage(format!("onInputRequired returned bad answers: {e}")));
        self.retry_call(call, &round, answers);
    }

    /// The call once more, with the round's `answers` (and its `requestState`).
    fn retry_call(
        &mut self,
        mut call: CallInFlight,
        round: &InputRequiredResult,
        answers: Result<InputResponses, ClientError>,
    ) {
        let retry = answers.and_then(|answers| {
            let mut ids = RequestIds::starting_at(0);
            call.call.retry(&mut ids, round, answers).map_err(|e| ClientError::usage(e.to_string()))
        });
        match retry {
            Ok((_, request)) => {
                self.send(request, Purpose::Call(call));
            }
            Err(e) => self.end_call(&call, Err(e)),
        }
    }

    /// Queues `request` under a fresh exchange number and id; the number.
    fn send(&mut self, request: ClientRequest, purpose: Purpose) -> u64 {
        let n = self.next_exchange;
        self.next_exchange += 1;
        let exchange =
            Exchange { rpc_id: self.ids.next_id(), request, purpose, retried: false, stream: None, status: 0 };
        self.push_send(n, &exchange);
        self.exchanges.insert(n, exchange);
        n
    }

    fn push_send(&mut self, n: u64, exchange: &Exchange) {
        // A call's `Mcp-Param-*` headers go with every round of it.
        let extra = match &exchange.purpose {
            Purpose::Call(call) => call.extra.as_slice(),
            _ => &[],
        };
        let headers = exchange.request.http_headers();
        let headers = headers.iter().map(|(name, value)| (*name, value.as_str()));
        let headers = headers.chain(extra.iter().map(|(name, value)| (name.as_str(), value.as_str())));
        let body = exchange.request.envelope(&exchange.rpc_id, &self.meta).to_string();
        // A host call's requests name it, so the driver can end them with the host's `signal`.
        let x = match &exchange.purpose {
            Purpose::Call(call) => Some(call.x),
            Purpose::ListTools { x, .. } => Some(*x),
            _ => None,
        };
        // A listen stream stays open as long as the server keeps it: no timeout.
        let stream = matches!(exchange.purpose, Purpose::Listen { .. });
        self.push_send_effect(n, x, body, headers, stream, None);
    }

    /// The `send` effect: exchange `n` (of host call `x`), its body (empty: a GET) and headers; a
    /// `stream` has no timeout, and `ms` ends it early.
    fn push_send_effect<'a>(
        &mut self,
        n: u64,
        x: Option<u64>,
        body: String,
        headers: impl Iterator<Item = (&'a str, &'a str)>,
        stream: bool,
        ms: Option<u64>,
    ) {
        let mut pairs = Vec::new();
        for (name, value) in headers {
            pairs.push(Value::from(name));
            pairs.push(Value::from(value));
        }
        self.out.push(Effect::Send { n, x, body, headers: pairs, stream, ms });
    }

    /// An answer to exchange `n` came: `status`, `retryAfter` (the header), and either its JSON body
    /// or, with `sse`, an event stream whose chunks follow as `chunk` events.
    fn answered(&mut self, now: u64, answer: Answer<'_>, body: &[u8]) {
        let Answer { n, status, sse, .. } = answer;
        let head = answer::Head {
            status,
            retry_after_ms: answer.retry_after.and_then(crate::transport::parse_retry_after),
            questions: self.max_input_requests,
        };
        let limit = self.max_response_bytes;
        #[cfg(feature = "legacy")]
        if self.is_legacy(n) {
            return self.legacy_answered(now, n, head, answer.session, sse, body);
        }
        let Some(exchange) = self.exchanges.get_mut(n) else { return };
        exchange.status = head.status;
        if sse {
            exchange.stream = Some(answer::Stream::new(head, limit));
            return;
        }
        let result = answer::from_body(head, body);
        self.decided(now, n, result);
    }

    /// The next chunk of exchange `n`'s event stream (`end`: it ended). A listen stream's chunk shows
    /// it is alive, and its notifications go to the state as they come. Once the response is read, or
    /// the stream cannot be read on, the driver is told to close it.
    fn chunk(&mut self, now: u64, n: u64, end: bool, body: &[u8]) {
        #[cfg(feature = "legacy")]
        if self.is_legacy(n) {
            return self.legacy_chunk(now, n, end, body);
        }
        let Some(exchange) = self.exchanges.get_mut(n) else { return };
        let generation = match exchange.purpose {
            Purpose::Listen { generation } => Some(generation),
            _ => None,
        };
        let Some(stream) = exchange.stream.as_mut() else { return };
        let mut heard = Vec::new();
        let mut on_other = |message: Value| {
            if generation.is_some() {
                heard.extend(listen_event(message).map_err(TransportError::BadResponse)?);
            }
            Ok(())
        };
        let result = stream.read(&exchange.rpc_id, (!end).then_some(body), &mut on_other);
        if let Some(generation) = generation {
            self.state.on_listen_bytes(now, generation);
            for event in heard {
                match event {
                    ListenEvent::Acknowledged(accepted) => self.state.on_listen_ack(now, generation, &accepted),
                    ListenEvent::Task(task) => self.state.on_listen_task(now, generation, *task),
                    ListenEvent::Bytes => {}
                }
            }
        }
        // An acknowledgement that honours nothing has closed the stream already.
        if let Some(result) = result.filter(|_| self.exchanges.get(n).is_some()) {
            self.out.push(Effect::Close { n });
            self.decided(now, n, result);
        }
    }

    /// Exchange `n`'s JSON-RPC result (or why there is none), decoded for its request.
    fn decided(&mut self, now: u64, n: u64, result: Result<Value, TransportError>) {
        let Some(exchange) = self.exchanges.get(n) else { return };
        // An answer asking more questions than the host's limit was refused as it was read.
        let result =
            result.and_then(|result| exchange.request.decode_result(&result).map_err(TransportError::BadResponse));
        self.finish(now, n, result);
    }

    /// Exchange `n` failed in the driver: `kind` (network, timeout, aborted, headers, redirect,
    /// too_large), `message`, `status`, `to`, as `http.js` throws them.
    fn failed(&mut self, now: u64, n: u64, failure: Failure<'_>) {
        let error = match failure {
            Failure::Timeout => TransportError::Timeout,
            Failure::Aborted => TransportError::Aborted,
            Failure::Headers { message } => TransportError::Headers(message.unwrap_or_default().to_owned()),
            Failure::Redirect { status, to } => TransportError::Redirect { status, to: to.map(str::to_owned) },
            Failure::TooLarge => TransportError::BadResponse(crate::protocol::DecodeError::TooLarge {
                what: "response",
                limit: self.max_response_bytes,
            }),
            Failure::Network { message } => TransportError::Network(message.unwrap_or_default().to_owned()),
        };
        #[cfg(feature = "legacy")]
        if self.is_legacy(n) {
            return self.legacy_decided(now, n, Err(error), false);
        }
        self.finish(now, n, Err(error));
    }

    /// What exchange `n`'s outcome does: a -32022 naming our version is sent once more; otherwise its
    /// purpose takes the result.
    fn finish(&mut self, now: u64, n: u64, result: Result<RequestResult, TransportError>) {
        let Some(mut exchange) = self.exchanges.remove(n) else { return };
        let result = match result.as_ref().map_err(version_retry) {
            Err(VersionRetry::Again) if !exchange.retried => {
                exchange.retried = true;
                exchange.stream = None;
                exchange.rpc_id = self.ids.next_id();
                self.push_send(n, &exchange);
                self.exchanges.insert(n, exchange);
                return;
            }
            Err(VersionRetry::Refused(e)) => Err(e),
            _ => result,
        };
        match exchange.purpose {
            Purpose::Task { id, action, slot, in_step } => {
                self.task_exchange_done(now, id, action, slot, in_step, exchange_outcome(result));
            }
            Purpose::Call(call) => self.call_answered(now, call, result),
            #[cfg(feature = "legacy")]
            Purpose::Negotiate(request, error) => self.negotiated(now, request, error, exchange.status, result),
            Purpose::Discover => {
                if let Err(e) = &result {
                    self.state.on_server_failure(now, &e.as_failure());
                }
                let supported = matches!(&result, Ok(RequestResult::Discover(d)) if d.supports_tasks());
                self.state.on_discovered(now, supported);
            }
            Purpose::Listen { generation } => {
                if self.listening == Some(n) {
                    self.listening = None;
                }
                let error = result.err();
                if let Some(e) = &error {
                    self.state.on_server_failure(now, &e.as_failure());
                }
                self.state.on_listen_end(now, generation, listen_end(error.as_ref()));
            }
            Purpose::ListTools { x, cursor } => match result {
                // A tool list proves no generation: a stateless older server may answer it too.
                Ok(page) => {
                    let outcome = self.tool_page(page);
                    self.done(x, outcome);
                }
                Err(e) => self.host_request_failed(now, HostRequest::ListTools { x, cursor }, e),
            },
        }
    }

    /// What a task's exchange came to: applied, and written when it changed the task (a step writes
    /// it compared).
    fn task_exchange_done(
        &mut self,
        now: u64,
        id: String,
        action: Action,
        slot: bool,
        in_step: Option<u64>,
        outcome: crate::client_state::ExchangeOutcome,
    ) {
        if let Some(x) = in_step {
            return self.step_exchange_done(now, x, &id, action, outcome);
        }
        if self.state.on_exchange_done(now, &id, &action, &outcome, slot) == Change::State {
            self.write(&id);
        }
    }

    /// An exchange the state asked for of task `id`, in its generation's flow.
    fn task_send(&mut self, id: String, action: Action, slot: bool, in_step: Option<u64>) {
        #[cfg(feature = "legacy")]
        if self.state.record(&id).is_some_and(|r| r.protocol() == TaskProtocol::Legacy) {
            return self.legacy_exchange(id, action, slot, in_step);
        }
        let request = action.request(id.clone());
        self.send(request, Purpose::Task { id, action, slot, in_step });
    }

    /// A call made task `handle`: its record is stored, the host call settles with its snapshot once
    /// written, and the call's pending record goes. The task's id.
    fn made_task(
        &mut self,
        now: u64,
        call: CallInFlight,
        handle: crate::protocol::task::Task,
        protocol: TaskProtocol,
    ) -> String {
        let id = self.state.add_task_of(now, call.name.clone(), handle, protocol);
        let asker = Asker::Host(call.x);
        self.after_write.push(AfterWrite { id: id.clone(), asker, tool: Some(call.name.clone()) });
        self.write(&id);
        self.forget_call(&call);
        id
    }

    fn call_answered(&mut self, now: u64, call: CallInFlight, result: Result<RequestResult, TransportError>) {
        let outcome = match result {
            Ok(RequestResult::ToolCall(outcome)) => outcome,
            Ok(_) => {
                let e =
                    ClientError::new(ErrorKind::Protocol, "the server answered tools/call with another kind of result");
                return self.end_call(&call, Err(e));
            }
            Err(e) => return self.host_request_failed(now, HostRequest::Call(call), e),
        };
        self.link_confirmed();
        match outcome {
            ToolCallOutcome::Task(handle) => {
                self.made_task(now, call, handle, TaskProtocol::Extension);
            }
            ToolCallOutcome::Complete(result) => {
                self.end_call(&call, Ok(json!({ "kind": "result", "result": result.to_json() })));
            }
            ToolCallOutcome::InputRequired(round) => match &round.input_requests {
                // Only a `requestState`: sent back at once.
                None => self.retry_call(call, &round, Ok(InputResponses::new())),
                Some(_) if !call.can_ask => {
                    let message = format!(
                        "the tool {} asks for input before it starts; pass options.onInputRequired to callTool to answer",
                        call.name
                    );
                    self.end_call(&call, Err(ClientError::new(ErrorKind::InputRequired, message)));
                }
                Some(requests) => {
                    self.out.push(Effect::Ask { x: call.x, requests: encode_input_requests(requests) });
                    self.asking.insert(call.x, (call, round));
                }
            },
        }
    }

    /// The call's pending record goes, and its host call settles with `outcome`.
    fn end_call(&mut self, call: &CallInFlight, outcome: Result<Value, ClientError>) {
        self.forget_call(call);
        self.done(call.x, outcome);
    }

    /// The call's pending record goes.
    fn forget_call(&mut self, call: &CallInFlight) {
        self.state.end_call(&call.call_id);
        self.out.push(Effect::Delete { key: self.state.keys().call(&call.call_id) });
    }

    /// An answer (`answers`) or a cancel (`None`) of task `id` in the polling tab, from this tab's host
    /// or forwarded by another: stored, then sent by the poll loop; `asker` hears once it is stored.
    fn change_here(&mut self, now: u64, asker: Asker, id: &str, answers: Option<Value>) {
        if !self.state.config().auto_poll {
            return self.refresh_then_change(asker, id, answers);
        }
        let outcome = match answers {
            Some(answers) => decode_input_responses(&answers)
                .map_err(|e| ClientError::usage(format!("responses: {e}")))
                .and_then(|responses| self.state.answer(id, responses)),
            None => self.state.request_cancel(id),
        };
        match outcome {
            Ok(Change::State) => {
                self.after_write.push(AfterWrite { id: id.to_owned(), asker, tool: None });
                self.write(id);
            }
            Ok(_) => self.settle(asker, Ok(Value::Null)),
            Err(e) => self.settle(asker, Err(e)),
        }
        self.state.poll_due(now);
    }

    /// Tells `asker` how its change went: its host call settles, or its tab gets the reply.
    fn settle(&mut self, asker: Asker, outcome: Result<Value, ClientError>) {
        match asker {
            Asker::Host(x) => self.done(x, outcome),
            Asker::Tab(req) => {
                self.perform_one(StateEffect::Post(TabMessage::Reply { req, error: outcome.err() }));
            }
        }
    }

    /// Queues task `id` for the next write group, starting one if none is in the store's hands. In
    /// step mode, a write compared against the version last seen (a host call waiting for it settles
    /// from it).
    fn write(&mut self, id: &str) {
        if !self.state.config().auto_poll {
            let then = match self.after_write.iter().position(|w| w.id == id) {
                Some(at) => {
                    let AfterWrite { asker, tool, .. } = self.after_write.remove(at);
                    step::Then::Settle { asker, tool }
                }
                None => step::Then::Announce,
            };
            return self.write_versioned(id, step::Replay::Nothing, then, None);
        }
        if self.state.queue_write(id) {
            self.next_group();
        }
    }

    fn next_group(&mut self) {
        let Some(group) = self.state.take_write_group() else { return };
        let mut entries = Vec::new();
        for (key, text) in &group.entries {
            entries.push(json!([key.as_str(), text.as_str()]));
        }
        self.out.push(Effect::Put { entries });
        self.writing = Some(group);
    }

    /// The write group is in the store (`ok`), or the store refused it (`message`): its tasks are
    /// announced either way (a refused one stays in memory and its host hears why).
    /// `refused`: the keys the store did not take (`message`: its last failure), each record then
    /// kept in memory with a `storage` event that keeps `durable: true`; `broken`: the store took
    /// none and the driver has switched to memory (its own `storage` event says so). Every task of the
    /// group is announced either way, and a host call waiting for a record that is not stored rejects.
    fn written(&mut self, now: u64, refused: List<'_>, broken: bool, why: Option<&str>) {
        let Some(group) = self.writing.take() else { return };
        let why = why.unwrap_or_default();
        let mut stored = WriteGroup { ids: Vec::new(), entries: Vec::new() };
        let mut lost = Vec::new();
        for (id, entry) in group.ids.into_iter().zip(group.entries) {
            if broken || refused.texts().any(|key| key == entry.0) {
                lost.push(id);
            } else {
                stored.ids.push(id);
                stored.entries.push(entry);
            }
        }
        let mut ids = stored.ids.clone();
        self.state.group_written(stored);
        for id in &lost {
            if !broken {
                let reason = format!("the store refused the record of task {id} ({why}); it is kept in memory");
                self.out.push(Effect::Storage { reason });
                self.state.write_refused(id.clone());
            }
        }
        ids.extend(lost.iter().cloned());
        for id in &ids {
            self.state.announce(id);
            let (settled, waiting) = std::mem::take(&mut self.after_write).into_iter().partition(|w| w.id == *id);
            self.after_write = waiting;
            for AfterWrite { asker, tool, .. } in settled {
                let adopt = tool.is_some() && !lost.contains(id);
                let outcome = match (lost.contains(id), tool) {
                    (false, Some(_)) => Ok(json!({ "kind": "task", "task": self.snapshot(id) })),
                    (false, None) => Ok(Value::Null),
                    (true, Some(tool)) => Err(ClientError::handle_not_stored(&tool, id)),
                    (true, None) => Err(ClientError::change_not_stored(id)),
                };
                // A new handle goes to the polling tab, wherever it was made.
                let stored = self.state.record(id).filter(|_| adopt).map(to_stored);
                if let Some(stored) = stored {
                    self.perform_one(StateEffect::Post(TabMessage::Adopt { id: id.clone(), stored }));
                }
                self.settle(asker, outcome);
            }
        }
        // A new task is due at once; a host's answer or cancel goes out now.
        self.state.poll_due(now);
        self.next_group();
    }

    /// `forget` and `clear`: the store keys the removal deletes (with `also`, each once) go to the
    /// driver as one effect, and host call `x` settles once they are deleted (or with the first
    /// failure), so the host knows the store no longer holds them.
    fn deletes_then_done(&mut self, x: u64, also: Vec<String>) {
        let mut keys = crate::collections::SortedSet::new();
        for key in also {
            keys.insert(key);
        }
        self.deleting = Some(keys);
        self.rearm |= self.perform();
        let keys = self.deleting.take().unwrap_or_default();
        let keys = keys.iter().map(|key| Value::from(key.as_str())).collect();
        self.out.push(Effect::Deletes { x, keys });
    }

    /// Settles host call `x`.
    fn done(&mut self, x: u64, outcome: Result<Value, ClientError>) {
        self.out.push(Effect::Done { x, outcome });
    }

    /// The snapshot of task `id` (`null` when it is gone).
    fn snapshot(&self, id: &str) -> Value {
        let state = &self.state;
        state.record(id).map_or(Value::Null, |record| {
            TaskSnapshot::of_record(record, state.is_offline(), record.is_pushed(), state.is_restored(id)).to_json()
        })
    }

    /// Task `id`'s system notification in `language`: its title (the tool), body, lang and tag (one
    /// per task: a later one replaces it); `null` when the task is gone.
    fn notice(&self, id: &str, language: &str) -> Value {
        self.state.record(id).map_or(Value::Null, |record| {
            let words = crate::notice::notice(language, record.status());
            json!({ "title": record.tool_name(), "body": words.body, "lang": words.lang, "tag": self.state.keys().task(id) })
        })
    }

    /// Every task's snapshot, then every call's of unknown outcome, from the `from`th on, each made when it
    /// is reached.
    fn snapshots(&self, from: usize) -> impl Iterator<Item = Value> + '_ {
        let records = self.state.records();
        // Skipped before a snapshot is made of them.
        let tasks = records.keys().skip(from).map(|id| self.snapshot(id));
        let calls = self.state.unknown_calls().skip(from.saturating_sub(records.len()));
        tasks.chain(calls.map(|call| UnknownCallSnapshot::of_call(call).to_json()))
    }

    /// Turns the state's effects into the driver's; whether the timer is to be set again (once, after
    /// the rest, however many passes asked).
    fn perform(&mut self) -> bool {
        let mut rearm = false;
        loop {
            let effects = self.state.drain_effects();
            if effects.is_empty() {
                return rearm;
            }
            for effect in effects {
                rearm |= self.perform_one(effect);
            }
        }
    }

    /// Carries out one of the state's effects; `true` for [`StateEffect::Rearm`].
    fn perform_one(&mut self, effect: StateEffect) -> bool {
        match effect {
            StateEffect::Send { id, action, slot } => self.task_send(id, action, slot, None),
            StateEffect::Store(id) => self.write(&id),
            StateEffect::Delete(key) => match self.deleting.as_mut() {
                Some(keys) => {
                    keys.insert(key);
                }
                None => self.out.push(Effect::Delete { key }),
            },
            StateEffect::EmitTask(id) => {
                let snapshot = self.snapshot(&id);
                self.out.push(Effect::Emit(Emitted::Task(snapshot)));
            }
            // The driver asks for the words (`notice`) only when the person allowed notifications.
            StateEffect::Notify(id) => self.out.push(Effect::Notify { id }),
            StateEffect::EmitForget(id) => {
                // A forgotten 2025-11-25 task's `tasks/result` stream closes with it.
                #[cfg(feature = "legacy")]
                self.close_result_stream(&id);
                self.out.push(Effect::Emit(Emitted::Forget(id)));
            }
            StateEffect::EmitCall(call) => {
                let detail = UnknownCallSnapshot::of_call(&call).to_json();
                self.out.push(Effect::Emit(Emitted::Call(detail)));
            }
            StateEffect::EmitStorage(reason) => self.out.push(Effect::Storage { reason }),
            StateEffect::Post(message) => self.out.push(Effect::Post { text: message.to_json().to_string() }),
            StateEffect::Settle { waiter, outcome } => {
                if let Some(x) = self.waits.remove(&waiter) {
                    let outcome = outcome.map(|id| self.snapshot(&id));
                    self.done(x, outcome);
                }
            }
            StateEffect::Discover => {
                self.send(ClientRequest::Discover, Purpose::Discover);
            }
            StateEffect::Listen { generation, ids } => {
                let request = ClientRequest::Listen(ListenFilter::tasks(ids));
                self.listening = Some(self.send(request, Purpose::Listen { generation }));
            }
            // The stream's later bytes, if any come before the driver closes it, find no exchange.
            StateEffect::StopListening => {
                if let Some(n) = self.listening.take().filter(|&n| self.exchanges.remove(n).is_some()) {
                    self.out.push(Effect::Close { n });
                }
            }
            #[cfg(feature = "legacy")]
            StateEffect::OpenSessionStream => self.open_session_stream(),
            #[cfg(feature = "legacy")]
            StateEffect::CloseSessionStream => self.close_session_stream(),
            // A door without the 2025-11-25 flow holds no such task (`set_drives_legacy(false)`).
            #[cfg(not(feature = "legacy"))]
            StateEffect::OpenSessionStream | StateEffect::CloseSessionStream => {}
            StateEffect::Rearm => return true,
        }
        false
    }
}

#[cfg(test)]
mod tests;
