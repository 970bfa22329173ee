//! `ClientCore`: the task client's engine in a JS host. It keeps one `TaskRecord` per handle, persists
//! records when their visible state changes, runs the actions the machine asks for, and sets one timer
//! for the earliest wake-up (recomputed from the clock, never by counting ticks).
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use js_sys::Function;
use serde_json::Value;
use wasm_bindgen::JsValue;

use super::channel::Channel;
use super::events::Events;
use super::globals::{self, Listener, Timeout};
use super::js_json::{from_js, to_js};
use super::leader::Leadership;
use super::options::{ClientOptions, StoreChoice};
use super::snapshot;
use crate::machine::backoff::{Failure, PollPolicy};
use crate::machine::mrtr::MrtrCall;
use crate::machine::pending::PendingCall;
use crate::machine::record::{Action, Change, RecordError, TaskRecord};
use crate::machine::stored::{from_stored, to_stored};
use crate::protocol::input::{decode_input_responses, encode_input_requests, InputResponses};
use crate::protocol::jsonrpc::RpcErrorKind;
use crate::protocol::meta::RequestMeta;
use crate::protocol::param_headers::{self, ParamBinding};
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::tool_call::ToolCallOutcome;
use crate::protocol::tool_result::CallToolResult;
use crate::protocol::Object;
use crate::store::{IdbStore, JsStore, MemoryStore, Store, StoreError};
use crate::transport::{FetchTransport, ListenEnd, ListenEvent, TransportError};

/// The IndexedDB database every namespace shares (keys carry the namespace and server URL).
pub const DATABASE: &str = "mcp-tasks-web";

/// The longest single timer; the schedule is recomputed from the clock at least this often.
const MAX_TIMER_MS: u64 = 60_000;

/// A failure for the host: a message plus the facts a JS `Error` carries.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientError {
    /// `Error.name`.
    pub name: &'static str,
    /// A message a person can act on.
    pub message: String,
    /// The JSON-RPC code, where there is one.
    pub code: Option<i64>,
    /// Whether trying again may succeed.
    pub retryable: bool,
}

impl ClientError {
    /// A usage error (bad arguments, unknown task…).
    pub fn usage(message: impl Into<String>) -> Self {
        Self { name: "TypeError", message: message.into(), code: None, retryable: false }
    }

    fn from_transport(e: &TransportError) -> Self {
        Self { name: e.name(), message: e.to_string(), code: e.code(), retryable: e.retryable() }
    }

    fn from_record(e: &RecordError) -> Self {
        Self { name: "TaskStateError", message: e.to_string(), code: None, retryable: false }
    }
}

/// What `callTool` returns.
pub enum CallOutcome {
    /// A synchronous result.
    Result(CallToolResult),
    /// A task handle, already persisted.
    Task(Value),
}

/// Scope of the keys this client reads and writes.
struct Keys {
    prefix: String,
}

impl Keys {
    fn new(namespace: &str, url: &str) -> Self {
        Self { prefix: format!("mcp-tasks/1/{namespace}/{url}/") }
    }
    fn task(&self, id: &str) -> String {
        format!("{}task/{id}", self.prefix)
    }
    fn call(&self, id: &str) -> String {
        format!("{}call/{id}", self.prefix)
    }
}

/// `subscriptions/listen` state: whether the server offers it, and the stream now open.
#[derive(Default)]
struct Push {
    /// `None` until `server/discover` answered (or a listen told us the server has no such method).
    supported: Option<bool>,
    discovering: bool,
    /// The open stream: the task ids it was asked for, and how to close it.
    current: Option<(std::collections::BTreeSet<String>, web_sys::AbortController)>,
    /// Bumped per stream, so a closed stream's late callbacks are ignored.
    generation: u64,
    failures: u32,
    retry_at: u64,
}

/// The engine behind a `TaskClient`.
pub struct ClientCore {
    policy: PollPolicy,
    retention: usize,
    auto_poll: bool,
    keys: Keys,
    transport: FetchTransport,
    store: RefCell<Rc<Store>>,
    store_note: RefCell<Option<String>>,
    records: RefCell<BTreeMap<String, TaskRecord>>,
    /// Records restored from the store at `open` (shown as `restored` in snapshots).
    restored: RefCell<std::collections::BTreeSet<String>>,
    unknown_calls: RefCell<BTreeMap<String, PendingCall>>,
    /// This client's own calls still waiting for an answer (their pending records are not orphans).
    live_calls: RefCell<std::collections::BTreeSet<String>>,
    waiters: RefCell<BTreeMap<String, Vec<Function>>>,
    events: Events,
    timer: RefCell<Option<Timeout>>,
    listeners: RefCell<Vec<Listener>>,
    offline: Cell<bool>,
    closed: Cell<bool>,
    seed: Cell<u64>,
    /// Whether this client polls (it holds the namespace's lock, or there is no Web Locks).
    leader: Cell<bool>,
    leadership: RefCell<Option<Leadership>>,
    channel: RefCell<Option<Channel>>,
    /// Requests forwarded to the polling tab, waiting for its reply.
    replies: RefCell<BTreeMap<String, Function>>,
    push: RefCell<Push>,
    /// `x-mcp-header` bindings of the tools seen in `listTools`, by tool name (memory only).
    tool_bindings: RefCell<BTreeMap<String, Vec<ParamBinding>>>,
}

fn random_u64() -> u64 {
    let a = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let b = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (a << 32) ^ b
}

async fn open_store(choice: StoreChoice) -> (Store, Option<String>) {
    match choice {
        StoreChoice::Memory => (Store::Memory(MemoryStore::new()), None),
        StoreChoice::Js(object) => match JsStore::new(object) {
            Ok(store) => (Store::Js(store), None),
            Err(e) => (
                Store::Memory(MemoryStore::new()),
                Some(format!("the host store was refused ({e}); tasks are kept in memory only")),
            ),
        },
        StoreChoice::IndexedDb => match IdbStore::open(DATABASE).await {
            Ok(store) => (Store::IndexedDb(store), None),
            Err(e) => (
                Store::Memory(MemoryStore::new()),
                Some(format!("IndexedDB is not usable here ({e}); tasks are kept in memory only")),
            ),
        },
    }
}

impl ClientCore {
    /// Opens a client: the store, then every record of this namespace and server, then polling.
    pub async fn open(options: ClientOptions) -> Result<Rc<Self>, ClientError> {
        let (store, store_note) = open_store(options.store).await;
        let meta = RequestMeta::task_client(options.client_info.clone(), true, true);
        let first_id = (random_u64() % 1_000_000_000) as i64 + 1;
        let transport =
            FetchTransport::new(options.url.clone(), meta, options.headers, options.request_timeout_ms, first_id);
        let core = Rc::new(Self {
            policy: options.policy,
            retention: options.retention,
            auto_poll: options.auto_poll,
            keys: Keys::new(&options.namespace, &options.url),
            transport,
            store: RefCell::new(Rc::new(store)),
            store_note: RefCell::new(None),
            records: RefCell::new(BTreeMap::new()),
            restored: RefCell::new(Default::default()),
            unknown_calls: RefCell::new(BTreeMap::new()),
            live_calls: RefCell::new(Default::default()),
            waiters: RefCell::new(BTreeMap::new()),
            events: Events::new(),
            timer: RefCell::new(None),
            listeners: RefCell::new(Vec::new()),
            offline: Cell::new(!globals::is_online()),
            closed: Cell::new(false),
            seed: Cell::new(random_u64()),
            leader: Cell::new(!options.auto_poll),
            leadership: RefCell::new(None),
            channel: RefCell::new(None),
            replies: RefCell::new(BTreeMap::new()),
            push: RefCell::new(Push::default()),
            tool_bindings: RefCell::new(BTreeMap::new()),
        });
        if let Some(note) = store_note {
            core.note_storage(note);
        }
        core.restore().await;
        if core.auto_poll {
            core.listen_to_host();
            core.join_tabs();
            core.pump();
        }
        Ok(core)
    }

    /// Joins the other tabs of this namespace: a channel for records and forwarded requests, and a
    /// place in the queue for the lock that makes one of them the poller.
    fn join_tabs(self: &Rc<Self>) {
        // Without Web Locks (Node, some workers) each client polls its own handles and talks to no one.
        if !Leadership::available() {
            self.leader.set(true);
            return;
        }
        let name = format!("mcp-tasks-web|{}", self.keys.prefix);
        let weak = Rc::downgrade(self);
        *self.channel.borrow_mut() = Channel::open(&name, move |message| {
            if let Some(core) = weak.upgrade() {
                core.on_message(message);
            }
        });
        let weak = Rc::downgrade(self);
        let leadership = Leadership::request(&name, move || {
            if let Some(core) = weak.upgrade() {
                wasm_bindgen_futures::spawn_local(async move { core.became_leader().await });
            }
        });
        if leadership.is_none() {
            self.leader.set(true);
        }
        *self.leadership.borrow_mut() = leadership;
    }

    /// This tab now polls: reload every record from the store (the previous poller kept it current).
    async fn became_leader(self: Rc<Self>) {
        if self.closed.get() {
            return;
        }
        self.records.borrow_mut().clear();
        self.restore().await;
        self.leader.set(true);
        let ids: Vec<String> = self.records.borrow().keys().cloned().collect();
        for id in ids {
            self.emit_task(&id);
        }
        self.pump();
    }

    fn post(&self, message: Value) {
        if let Some(channel) = self.channel.borrow().as_ref() {
            channel.post(&message);
        }
    }

    /// A message from another tab.
    fn on_message(self: &Rc<Self>, message: Value) {
        let kind = message.get("t").and_then(Value::as_str).unwrap_or("").to_owned();
        let id = message.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
        match kind.as_str() {
            "record" | "adopt" => {
                let Some(record) = message.get("stored").and_then(|s| from_stored::<TaskRecord>(s).ok()) else {
                    return;
                };
                let leader = self.leader.get();
                // The poller adopts new handles only; others take every record the poller shares.
                if leader && (kind == "record" || self.records.borrow().contains_key(&id)) {
                    return;
                }
                self.records.borrow_mut().insert(id.clone(), record);
                self.emit_task(&id);
                self.settle_waiters(&id);
                if leader {
                    self.pump();
                }
            }
            "forget" => {
                self.records.borrow_mut().remove(&id);
            }
            "respond" | "cancel" if self.leader.get() => {
                let core = self.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let result = if kind == "respond" {
                        let answers = message.get("answers").cloned().unwrap_or(Value::Null);
                        core.respond_here(&id, &answers).await
                    } else {
                        core.cancel_here(&id).await
                    };
                    let error = result.err().map(|e| serde_json::json!({ "name": e.name, "message": e.message }));
                    core.post(serde_json::json!({ "t": "reply", "req": message.get("req"), "error": error }));
                });
            }
            "reply" => {
                let req = message.get("req").and_then(Value::as_str).unwrap_or("");
                if let Some(resolve) = self.replies.borrow_mut().remove(req) {
                    let _ = resolve.call1(&JsValue::UNDEFINED, &to_js(message.get("error").unwrap_or(&Value::Null)));
                }
            }
            _ => {}
        }
    }

    /// Sends a request to the polling tab and waits for its reply (or gives up after a few seconds).
    async fn forward(&self, mut message: Value) -> Result<(), ClientError> {
        let req = format!("req-{:016x}", random_u64());
        message["req"] = Value::from(req.clone());
        let replies = &self.replies;
        let reply = js_sys::Promise::new(&mut |resolve, _reject| {
            replies.borrow_mut().insert(req.clone(), resolve);
        });
        self.post(message);
        let timeout = js_sys::Promise::new(&mut |resolve, _reject| {
            let _ = js_sys::Reflect::get(&globals::global(), &JsValue::from_str("setTimeout"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .map(|f| f.call3(&globals::global(), &resolve, &JsValue::from(5_000), &JsValue::from_str("timeout")));
        });
        let answer = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(&reply, &timeout)))
            .await
            .unwrap_or(JsValue::NULL);
        self.replies.borrow_mut().remove(&req);
        if answer.as_string().as_deref() == Some("timeout") {
            return Err(ClientError {
                name: "TimeoutError",
                message: "the tab that polls this namespace did not answer".into(),
                code: None,
                retryable: true,
            });
        }
        match from_js(&answer).unwrap_or(Value::Null) {
            Value::Null => Ok(()),
            error => Err(ClientError {
                name: if error["name"] == "TaskStateError" { "TaskStateError" } else { "TypeError" },
                message: error["message"].as_str().unwrap_or("the polling tab refused the request").to_owned(),
                code: None,
                retryable: false,
            }),
        }
    }

    /// The event target.
    pub fn event_target(&self) -> &JsValue {
        self.events.target()
    }

    /// Whether records survive a reload.
    pub fn durable(&self) -> bool {
        self.store.borrow().is_durable()
    }

    fn note_storage(&self, reason: String) {
        let detail = serde_json::json!({ "durable": self.durable(), "reason": reason });
        *self.store_note.borrow_mut() = Some(reason);
        self.events.emit("storage", to_js(&detail));
    }

    /// A store failure: fall back to memory (everything is still held in memory) and say why.
    fn storage_failed(&self, error: &StoreError) {
        if !self.durable() {
            return;
        }
        *self.store.borrow_mut() = Rc::new(Store::Memory(MemoryStore::new()));
        self.note_storage(format!("storage failed ({error}); tasks are kept in memory only from now on"));
    }

    async fn restore(self: &Rc<Self>) {
        let store = self.store.borrow().clone();
        let entries = match store.list(&self.keys.prefix).await {
            Ok(entries) => entries,
            Err(e) => {
                self.storage_failed(&e);
                return;
            }
        };
        let now = globals::now_ms();
        for (key, text) in entries {
            let rest = &key[self.keys.prefix.len().min(key.len())..];
            let parsed: Result<Value, _> = serde_json::from_str(&text);
            if let Some(id) = rest.strip_prefix("task/") {
                match parsed.map_err(|e| e.to_string()).and_then(|v| from_stored::<TaskRecord>(&v).map_err(|e| e.to_string())) {
                    Ok(record) => {
                        self.restored.borrow_mut().insert(id.to_owned());
                        self.records.borrow_mut().insert(id.to_owned(), record);
                    }
                    // Left in the store untouched (a newer release may read it); reported, never dropped.
                    Err(e) => self.events.emit("storage", to_js(&serde_json::json!({ "durable": self.durable(), "reason": format!("stored task {id} could not be read: {e}") }))),
                }
            } else if let Some(id) = rest.strip_prefix("call/") {
                // Our own calls in flight, and calls already reported, are not news.
                if self.live_calls.borrow().contains(id) || self.unknown_calls.borrow().contains_key(id) {
                    continue;
                }
                if let Ok(call) = parsed
                    .map_err(|e| e.to_string())
                    .and_then(|v| from_stored::<PendingCall>(&v).map_err(|e| e.to_string()))
                {
                    self.events.emit("call", to_js(&snapshot::of_unknown_call(&call)));
                    self.unknown_calls.borrow_mut().insert(id.to_owned(), call);
                }
            }
        }
        self.apply_retention(now).await;
    }

    /// Drops settled records past their TTL, and the oldest settled ones beyond the retention limit.
    async fn apply_retention(&self, now: u64) {
        let doomed: Vec<String> = {
            let records = self.records.borrow();
            let mut settled: Vec<(&String, &TaskRecord)> = records.iter().filter(|(_, r)| r.is_settled()).collect();
            settled.sort_by_key(|(_, r)| r.received_at());
            let past_ttl = |r: &TaskRecord| {
                let expiry = crate::protocol::timestamp::parse_millis(&r.last().task.created_at)
                    .zip(r.last().task.ttl_ms)
                    .map(|(c, ttl)| c.saturating_add(ttl as i64));
                expiry.is_some_and(|e| e >= 0 && (e as u64) < now)
            };
            let excess = settled.len().saturating_sub(self.retention);
            settled
                .iter()
                .enumerate()
                .filter(|(i, (_, r))| *i < excess || past_ttl(r))
                .map(|(_, (id, _))| (*id).clone())
                .collect()
        };
        for id in doomed {
            self.records.borrow_mut().remove(&id);
            let store = self.store.borrow().clone();
            let _ = store.delete(&self.keys.task(&id)).await;
        }
    }

    fn listen_to_host(self: &Rc<Self>) {
        let global = globals::global();
        let mut listeners = Vec::new();
        for kind in ["online", "offline", "pageshow"] {
            let weak = Rc::downgrade(self);
            listeners.extend(Listener::new(&global, kind, move |_| {
                if let Some(core) = weak.upgrade() {
                    core.connectivity_changed();
                }
            }));
        }
        if let Some(document) = globals::global_property("document") {
            let weak = Rc::downgrade(self);
            listeners.extend(Listener::new(&document, "visibilitychange", move |_| {
                if let Some(core) = weak.upgrade() {
                    if !globals::is_hidden() {
                        core.connectivity_changed();
                    }
                }
            }));
        }
        *self.listeners.borrow_mut() = listeners;
    }

    /// Online, visible again, or back from the bfcache: retry what was backing off and poll what is due.
    fn connectivity_changed(self: &Rc<Self>) {
        let offline = !globals::is_online();
        let was_offline = self.offline.replace(offline);
        if !offline {
            let now = globals::now_ms();
            for record in self.records.borrow_mut().values_mut() {
                let _ = record.on_network_restored(now, &self.policy);
            }
        }
        if was_offline != offline {
            let ids: Vec<String> =
                self.records.borrow().iter().filter(|(_, r)| !r.is_settled()).map(|(id, _)| id.clone()).collect();
            for id in ids {
                self.emit_task(&id);
            }
        }
        self.pump();
    }

    fn snapshot_of(&self, id: &str) -> Option<Value> {
        let records = self.records.borrow();
        let record = records.get(id)?;
        Some(snapshot::of_record(record, self.offline.get(), record.is_pushed(), self.restored.borrow().contains(id)))
    }

    fn emit_task(&self, id: &str) {
        if let Some(s) = self.snapshot_of(id) {
            self.events.emit("task", to_js(&s));
        }
    }

    /// Snapshots of every task and every call of unknown outcome.
    pub fn snapshots(&self) -> Vec<Value> {
        let ids: Vec<String> = self.records.borrow().keys().cloned().collect();
        let mut out: Vec<Value> = ids.iter().filter_map(|id| self.snapshot_of(id)).collect();
        out.extend(self.unknown_calls.borrow().values().map(snapshot::of_unknown_call));
        out
    }

    async fn persist(&self, id: &str) {
        let stored = match self.records.borrow().get(id) {
            Some(record) => to_stored(record).to_string(),
            None => return,
        };
        let store = self.store.borrow().clone();
        if let Err(e) = store.put(&self.keys.task(id), &stored).await {
            self.storage_failed(&e);
        }
    }

    /// After a visible change: persist, tell the host and the other tabs, and settle waiters.
    async fn changed(&self, id: &str) {
        self.persist(id).await;
        self.emit_task(id);
        if let Some(stored) = self.records.borrow().get(id).map(to_stored) {
            self.post(serde_json::json!({ "t": "record", "id": id, "stored": stored }));
        }
        self.settle_waiters(id);
    }

    fn settle_waiters(&self, id: &str) {
        let settled = self.records.borrow().get(id).is_some_and(TaskRecord::is_settled);
        if settled {
            let waiters = self.waiters.borrow_mut().remove(id).unwrap_or_default();
            if let Some(s) = self.snapshot_of(id) {
                let value = to_js(&s);
                for resolve in waiters {
                    let _ = resolve.call1(&JsValue::UNDEFINED, &value);
                }
            }
        }
    }

    /// Runs what is due now and sets the timer for what comes next.
    pub fn pump(self: &Rc<Self>) {
        if self.closed.get() {
            return;
        }
        let now = globals::now_ms();
        let online = !self.offline.get() && self.leader.get();
        let mut expired = Vec::new();
        let mut actions = Vec::new();
        for (id, record) in self.records.borrow_mut().iter_mut() {
            if record.tick(now, &self.policy) == Change::State {
                expired.push(id.clone());
            }
            if online {
                while let Some(action) = record.next_action(now) {
                    actions.push((id.clone(), action));
                }
            }
        }
        for id in expired {
            let core = self.clone();
            wasm_bindgen_futures::spawn_local(async move { core.changed(&id).await });
        }
        for (id, action) in actions {
            let core = self.clone();
            wasm_bindgen_futures::spawn_local(async move { core.execute(id, action).await });
        }
        if online && self.auto_poll {
            self.ensure_listening(now);
        }
        self.reschedule(now);
    }

    /// Keeps one `subscriptions/listen` stream open for the live tasks, when the server offers it:
    /// tasks it acknowledges are not polled; a new set of tasks means a new stream (filters cannot
    /// change); a dropped stream means polling at once and listening again after a backoff.
    fn ensure_listening(self: &Rc<Self>, now: u64) {
        let live: std::collections::BTreeSet<String> =
            self.records.borrow().iter().filter(|(_, r)| !r.is_settled()).map(|(id, _)| id.clone()).collect();
        let mut push = self.push.borrow_mut();
        match push.supported {
            None if !push.discovering && !live.is_empty() => {
                push.discovering = true;
                let core = self.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let supported = matches!(core.transport.send(&ClientRequest::Discover, None).await, Ok(RequestResult::Discover(d)) if d.supports_tasks());
                    {
                        let mut push = core.push.borrow_mut();
                        push.supported = Some(supported);
                        push.discovering = false;
                    }
                    core.pump();
                });
                return;
            }
            Some(true) => {}
            _ => return,
        }
        if push.current.as_ref().map(|(ids, _)| ids) == Some(&live) || now < push.retry_at {
            return;
        }
        if let Some((_, abort)) = push.current.take() {
            abort.abort();
        }
        drop(push);
        self.uncover(now);
        if live.is_empty() {
            return;
        }
        let Ok(abort) = web_sys::AbortController::new() else { return };
        let generation = {
            let mut push = self.push.borrow_mut();
            push.generation += 1;
            push.current = Some((live.clone(), abort.clone()));
            push.generation
        };
        let core = self.clone();
        wasm_bindgen_futures::spawn_local(async move { core.listen_loop(generation, live, abort).await });
    }

    /// Ends listen coverage: every task is polled again.
    fn uncover(&self, now: u64) {
        for record in self.records.borrow_mut().values_mut() {
            record.set_pushed(now, false, &self.policy);
        }
    }

    async fn listen_loop(
        self: Rc<Self>,
        generation: u64,
        ids: std::collections::BTreeSet<String>,
        abort: web_sys::AbortController,
    ) {
        let current = |core: &ClientCore| core.push.borrow().generation == generation;
        let core = self.clone();
        let asked = ids.clone();
        let end = self
            .transport
            .listen(ids.into_iter().collect(), &abort, move |event| {
                if !current(&core) {
                    return;
                }
                let now = globals::now_ms();
                match event {
                    ListenEvent::Acknowledged(accepted) => {
                        for id in accepted.iter().filter(|id| asked.contains(*id)) {
                            if let Some(record) = core.records.borrow_mut().get_mut(id) {
                                record.set_pushed(now, true, &core.policy);
                            }
                            core.emit_task(id);
                        }
                    }
                    ListenEvent::Task(task) => {
                        let id = task.task.task_id.clone();
                        let change = core
                            .records
                            .borrow_mut()
                            .get_mut(&id)
                            .and_then(|r| r.on_notification(now, *task, &core.policy).ok());
                        if change == Some(Change::State) {
                            let core = core.clone();
                            wasm_bindgen_futures::spawn_local(async move { core.changed(&id).await });
                        }
                    }
                }
            })
            .await;
        if !current(&self) {
            return;
        }
        let now = globals::now_ms();
        {
            let mut push = self.push.borrow_mut();
            push.current = None;
            match end {
                ListenEnd::Closed => push.failures = 0,
                ListenEnd::Dropped(TransportError::Rpc(e))
                    if matches!(
                        e.kind(),
                        RpcErrorKind::MethodNotFound | RpcErrorKind::MissingRequiredClientCapability
                    ) =>
                {
                    push.supported = Some(false);
                }
                ListenEnd::Dropped(_) => {
                    push.failures = push.failures.saturating_add(1);
                    push.retry_at = now.saturating_add((1_000u64 << push.failures.min(5)).min(30_000));
                }
            }
        }
        self.uncover(now);
        self.pump();
    }

    fn reschedule(self: &Rc<Self>, now: u64) {
        if !self.auto_poll || self.closed.get() || !self.leader.get() {
            return;
        }
        let next = self.records.borrow().values().filter_map(|r| r.next_wakeup(&self.policy)).min();
        let timer = next.and_then(|at| {
            let delay = at.saturating_sub(now).min(MAX_TIMER_MS) as u32;
            let weak = Rc::downgrade(self);
            Timeout::new(delay, move || {
                if let Some(core) = weak.upgrade() {
                    core.pump();
                }
            })
            .ok()
        });
        *self.timer.borrow_mut() = timer;
    }

    async fn execute(self: Rc<Self>, id: String, action: Action) {
        let request = match &action {
            Action::Poll => ClientRequest::GetTask { task_id: id.clone() },
            Action::SendUpdate(responses) => {
                ClientRequest::UpdateTask { task_id: id.clone(), input_responses: responses.clone() }
            }
            Action::SendCancel => ClientRequest::CancelTask { task_id: id.clone() },
        };
        let result = self.transport.send(&request, None).await;
        let now = globals::now_ms();
        let change = {
            let mut records = self.records.borrow_mut();
            let Some(record) = records.get_mut(&id) else { return };
            match (action, result) {
                (_, Err(TransportError::Rpc(e))) if e.kind() == RpcErrorKind::InvalidParams => {
                    record.on_task_unknown(e.message)
                }
                (Action::Poll, Ok(RequestResult::Task(task))) => {
                    record.on_poll_result(now, task, &self.policy).unwrap_or(Change::Nothing)
                }
                (Action::Poll, Ok(_)) => record.on_poll_failure(now, Failure::BadResponse, &self.policy),
                (Action::Poll, Err(e)) => record.on_poll_failure(now, e.as_failure(), &self.policy),
                (Action::SendUpdate(_), Ok(_)) => record.on_update_ack(),
                (Action::SendUpdate(_), Err(e)) => record.on_update_failure(now, e.as_failure(), &self.policy),
                (Action::SendCancel, Ok(_)) => record.on_cancel_ack(),
                (Action::SendCancel, Err(e)) => record.on_cancel_failure(now, e.as_failure(), &self.policy),
            }
        };
        if change == Change::State {
            self.changed(&id).await;
        }
        self.pump();
    }

    /// `callTool`: records the call, sends it (answering MRTR rounds through `on_input`), and persists a
    /// task handle before returning it.
    pub async fn call_tool(
        self: &Rc<Self>,
        name: String,
        arguments: Option<Object>,
        on_input: Option<Function>,
        signal: Option<web_sys::AbortSignal>,
        input_schema: Option<Value>,
    ) -> Result<CallOutcome, ClientError> {
        let bindings = match input_schema {
            Some(schema) => param_headers::bindings(&schema).map_err(|e| ClientError::usage(e.to_string()))?,
            None => self.tool_bindings.borrow().get(&name).cloned().unwrap_or_default(),
        };
        let extra = param_headers::headers(&bindings, arguments.as_ref());
        let call_id = format!("call-{:016x}", random_u64());
        let pending = PendingCall {
            call_id: call_id.clone(),
            tool_name: name.clone(),
            arguments: arguments.clone(),
            started_at: globals::now_ms(),
        };
        self.live_calls.borrow_mut().insert(call_id.clone());
        let store = self.store.borrow().clone();
        if let Err(e) = store.put(&self.keys.call(&call_id), &to_stored(&pending).to_string()).await {
            self.storage_failed(&e);
        }
        let outcome = self.run_call(&name, arguments, on_input, signal.as_ref(), &extra).await;
        let result = match outcome {
            Ok(ToolCallOutcome::Task(handle)) => {
                let id = handle.task_id.clone();
                self.seed.set(self.seed.get().wrapping_add(0x9E37_79B9_7F4A_7C15));
                let record = TaskRecord::from_handle(globals::now_ms(), name, handle, self.seed.get(), &self.policy);
                self.records.borrow_mut().insert(id.clone(), record);
                self.persist(&id).await;
                self.emit_task(&id);
                if let Some(stored) = self.records.borrow().get(&id).map(to_stored) {
                    self.post(serde_json::json!({ "t": "adopt", "id": id, "stored": stored }));
                }
                self.pump();
                Ok(CallOutcome::Task(self.snapshot_of(&id).unwrap_or(Value::Null)))
            }
            Ok(ToolCallOutcome::Complete(result)) => Ok(CallOutcome::Result(result)),
            Ok(ToolCallOutcome::InputRequired(_)) => Err(ClientError::usage("the server kept asking for input")),
            Err(e) => Err(e),
        };
        let store = self.store.borrow().clone();
        let _ = store.delete(&self.keys.call(&call_id)).await;
        self.live_calls.borrow_mut().remove(&call_id);
        result
    }

    async fn run_call(
        &self,
        name: &str,
        arguments: Option<Object>,
        on_input: Option<Function>,
        signal: Option<&web_sys::AbortSignal>,
        extra: &[(String, String)],
    ) -> Result<ToolCallOutcome, ClientError> {
        let mut call = MrtrCall::new(name, arguments);
        let mut ids = crate::protocol::jsonrpc::RequestIds::starting_at(0);
        let (_, mut request) = call.first(&mut ids);
        loop {
            let outcome = match self.transport.send_with_headers(&request, extra, signal).await {
                Ok(RequestResult::ToolCall(outcome)) => outcome,
                Ok(_) => return Err(ClientError::usage("the server answered tools/call with another kind of result")),
                Err(e) => return Err(ClientError::from_transport(&e)),
            };
            let ToolCallOutcome::InputRequired(round) = outcome else { return Ok(outcome) };
            let responses = match (&round.input_requests, &on_input) {
                (None, _) => InputResponses::new(),
                (Some(_), None) => {
                    return Err(ClientError {
                        name: "InputRequiredError",
                        message: format!("the tool {name} asks for input before it starts; pass options.onInputRequired to callTool to answer"),
                        code: None,
                        retryable: false,
                    })
                }
                (Some(requests), Some(callback)) => ask_host(callback, &encode_input_requests(requests)).await?,
            };
            request = call.retry(&mut ids, &round, responses).map_err(|e| ClientError::usage(e.to_string()))?.1;
        }
    }

    /// `listTools`: one page of tools, each exactly as the server sent it. Tools whose `x-mcp-header`
    /// annotations are invalid are left out (and listed in `rejectedTools`); the others' bindings are
    /// kept so `callTool` sends their `Mcp-Param-*` headers.
    pub async fn list_tools(
        &self,
        cursor: Option<String>,
        signal: Option<web_sys::AbortSignal>,
    ) -> Result<Value, ClientError> {
        let mut page = match self.transport.send(&ClientRequest::ListTools { cursor }, signal.as_ref()).await {
            Ok(RequestResult::ToolList(page)) => page,
            Ok(_) => return Err(ClientError::usage("the server answered tools/list with another kind of result")),
            Err(e) => return Err(ClientError::from_transport(&e)),
        };
        let tools = match page.remove("tools") {
            Some(Value::Array(tools)) => tools,
            _ => Vec::new(),
        };
        let mut kept = Vec::new();
        let mut rejected = Vec::new();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            match param_headers::bindings(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                Ok(bindings) => {
                    self.tool_bindings.borrow_mut().insert(name, bindings);
                    kept.push(tool);
                }
                Err(e) => {
                    self.tool_bindings.borrow_mut().remove(&name);
                    rejected.push(serde_json::json!({ "name": name, "reason": e.to_string() }));
                }
            }
        }
        page.remove("resultType");
        page.insert("tools".into(), Value::Array(kept));
        if !rejected.is_empty() {
            page.insert("rejectedTools".into(), Value::Array(rejected));
        }
        Ok(Value::Object(page))
    }

    /// `respond`: answers are queued (persisted first, the outbox) and sent at once — by this tab if it
    /// polls, else by the tab that does (which also refuses a key another tab already answered).
    pub async fn respond(self: &Rc<Self>, task_id: &str, responses: &JsValue) -> Result<(), ClientError> {
        let value = from_js(responses).map_err(ClientError::usage)?;
        if !self.records.borrow().contains_key(task_id) {
            return Err(ClientError::usage(format!("no task {task_id} in this client")));
        }
        if self.leader.get() {
            self.respond_here(task_id, &value).await
        } else {
            self.forward(serde_json::json!({ "t": "respond", "id": task_id, "answers": value })).await
        }
    }

    async fn respond_here(self: &Rc<Self>, task_id: &str, value: &Value) -> Result<(), ClientError> {
        let responses = decode_input_responses(value).map_err(|e| ClientError::usage(format!("responses: {e}")))?;
        let change = {
            let mut records = self.records.borrow_mut();
            let record = records
                .get_mut(task_id)
                .ok_or_else(|| ClientError::usage(format!("no task {task_id} in this client")))?;
            record.answer(responses).map_err(|e| ClientError::from_record(&e))?
        };
        if change == Change::State {
            self.changed(task_id).await;
        }
        self.pump();
        Ok(())
    }

    /// `cancel`: a request, not a guarantee; persisted, then sent at once (by the polling tab).
    pub async fn cancel(self: &Rc<Self>, task_id: &str) -> Result<(), ClientError> {
        if !self.records.borrow().contains_key(task_id) {
            return Err(ClientError::usage(format!("no task {task_id} in this client")));
        }
        if self.leader.get() {
            self.cancel_here(task_id).await
        } else {
            self.forward(serde_json::json!({ "t": "cancel", "id": task_id })).await
        }
    }

    async fn cancel_here(self: &Rc<Self>, task_id: &str) -> Result<(), ClientError> {
        let change = {
            let mut records = self.records.borrow_mut();
            let record = records
                .get_mut(task_id)
                .ok_or_else(|| ClientError::usage(format!("no task {task_id} in this client")))?;
            record.request_cancel().map_err(|e| ClientError::from_record(&e))?
        };
        if change == Change::State {
            self.changed(task_id).await;
        }
        self.pump();
        Ok(())
    }

    /// `wait`: registers `resolve` for when the task settles, or calls it now if it has.
    pub fn wait(&self, task_id: &str, resolve: Function) -> Result<(), ClientError> {
        let settled = match self.records.borrow().get(task_id) {
            None => return Err(ClientError::usage(format!("no task {task_id} in this client"))),
            Some(r) => r.is_settled(),
        };
        if settled {
            let value = self.snapshot_of(task_id).map_or(JsValue::NULL, |s| to_js(&s));
            let _ = resolve.call1(&JsValue::UNDEFINED, &value);
        } else {
            self.waiters.borrow_mut().entry(task_id.to_owned()).or_default().push(resolve);
        }
        Ok(())
    }

    /// `forget`: drops a task (or a call of unknown outcome) from memory and the store.
    pub async fn forget(&self, id: &str) -> Result<(), ClientError> {
        let store = self.store.borrow().clone();
        if self.unknown_calls.borrow_mut().remove(id).is_some() {
            let _ = store.delete(&self.keys.call(id)).await;
        }
        self.records.borrow_mut().remove(id);
        self.waiters.borrow_mut().remove(id);
        self.post(serde_json::json!({ "t": "forget", "id": id }));
        store.delete(&self.keys.task(id)).await.map_err(|e| ClientError::usage(e.to_string()))
    }

    /// `clear`: forgets everything in this namespace and server.
    pub async fn clear(&self) -> Result<(), ClientError> {
        let store = self.store.borrow().clone();
        let keys: Vec<String> =
            store.list(&self.keys.prefix).await.map(|e| e.into_iter().map(|(k, _)| k).collect()).unwrap_or_default();
        for key in keys {
            let _ = store.delete(&key).await;
        }
        self.records.borrow_mut().clear();
        self.unknown_calls.borrow_mut().clear();
        self.waiters.borrow_mut().clear();
        Ok(())
    }

    /// `close`: stops timers and listeners; records stay in the store for the next `open`.
    pub fn close(&self) {
        self.closed.set(true);
        self.timer.borrow_mut().take();
        self.listeners.borrow_mut().clear();
        self.leadership.borrow_mut().take();
        self.channel.borrow_mut().take();
        if let Some((_, abort)) = self.push.borrow_mut().current.take() {
            abort.abort();
        }
    }
}

/// Calls the host's `onInputRequired(inputRequests)` and reads the answers it returns (or resolves to).
async fn ask_host(callback: &Function, requests: &Value) -> Result<InputResponses, ClientError> {
    let mut answer = callback
        .call1(&JsValue::UNDEFINED, &to_js(requests))
        .map_err(|e| ClientError::usage(format!("onInputRequired threw: {e:?}")))?;
    if let Some(p) = answer.dyn_ref::<js_sys::Promise>() {
        answer = wasm_bindgen_futures::JsFuture::from(p.clone())
            .await
            .map_err(|e| ClientError::usage(format!("onInputRequired rejected: {e:?}")))?;
    }
    let value = from_js(&answer).map_err(ClientError::usage)?;
    decode_input_responses(&value).map_err(|e| ClientError::usage(format!("onInputRequired returned bad answers: {e}")))
}

use wasm_bindgen::JsCast;
