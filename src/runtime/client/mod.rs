//! `ClientCore`: the task client's engine in a JS host. It keeps one `TaskRecord` per handle, persists
//! records when their visible state changes, runs the actions the machine asks for, and sets one timer
//! for the earliest wake-up (recomputed from the clock, never by counting ticks).
use crate::collections::SortedMap;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::json::Value;
use js_sys::{Function, Promise};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::channel::Channel;
use super::leader::Leadership;
use super::options::{ClientOptions, StoreChoice};
use super::snapshot;
pub use crate::error::{ClientError, ErrorKind};
use crate::host::events::Events;
use crate::host::globals::{self, Listener, Timeout};
use crate::host::js_json::{from_js, to_js};
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

mod calls;
mod polling;
mod push;
mod step;
mod tabs;
mod writes;

use push::Push;
use writes::WriteQueue;

/// The IndexedDB database every namespace shares (keys carry the namespace and server URL).
pub const DATABASE: &str = "mcp-tasks-web";

/// The longest single timer; the schedule is recomputed from the clock at least this often.
const MAX_TIMER_MS: u64 = 60_000;

/// Requests one polling client has in flight at most. A reload with 10,000 handles due would otherwise
/// start 10,000 fetches at once, and Chromium refuses about half (`ERR_INSUFFICIENT_RESOURCES`); the
/// rest wait for a free slot, which each answer hands on.
const MAX_REQUESTS_IN_FLIGHT: usize = 16;

/// Compare-and-put attempts before a write gives way to the other writer's version.
const MAX_WRITE_ATTEMPTS: usize = 4;

/// How a versioned write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// This client's version is in the store.
    Ours,
    /// Another writer's version is in the store and in memory (with this client's event replayed).
    Theirs,
    /// The record is gone (forgotten elsewhere, or unreadable).
    Gone,
    /// The store failed (reported as a `storage` event).
    Failed,
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

/// The engine behind a `TaskClient`.
pub struct ClientCore {
    policy: PollPolicy,
    retention: usize,
    auto_poll: bool,
    keys: Keys,
    transport: FetchTransport,
    store: RefCell<Rc<Store>>,
    store_note: RefCell<Option<String>>,
    records: RefCell<SortedMap<String, TaskRecord>>,
    /// Records restored from the store at `open` (shown as `restored` in snapshots).
    restored: RefCell<crate::collections::SortedSet<String>>,
    unknown_calls: RefCell<SortedMap<String, PendingCall>>,
    /// This client's own calls still waiting for an answer (their pending records are not orphans).
    live_calls: RefCell<crate::collections::SortedSet<String>>,
    waiters: RefCell<SortedMap<String, Vec<Function>>>,
    events: Events,
    timer: RefCell<Option<Timeout>>,
    /// Requests started by `pump` and not yet answered (at most [`MAX_REQUESTS_IN_FLIGHT`]).
    requests_in_flight: Rc<Cell<usize>>,
    /// Ids the last `pump` found due but had no request slot for, next last: an answer hands its slot
    /// to one of them without another pass over every record.
    backlog: RefCell<Vec<String>>,
    listeners: RefCell<Vec<Listener>>,
    offline: Cell<bool>,
    closed: Cell<bool>,
    seed: Cell<u64>,
    /// Whether this client polls (it holds the namespace's lock, or there is no Web Locks).
    leader: Cell<bool>,
    leadership: RefCell<Option<Leadership>>,
    channel: RefCell<Option<Channel>>,
    /// Requests forwarded to the polling tab, waiting for its reply.
    replies: RefCell<SortedMap<String, Function>>,
    push: RefCell<Push>,
    /// `x-mcp-header` bindings of the tools seen in `listTools`, by tool name (memory only).
    tool_bindings: RefCell<SortedMap<String, Vec<ParamBinding>>>,
    /// The stored text of each record as this client last read or wrote it. In step mode
    /// (`autoPoll: false`) writes compare against it, so a record another isolate changed is re-read.
    versions: RefCell<SortedMap<String, String>>,
    /// Record writes waiting for the next group (polling clients).
    writes: RefCell<WriteQueue>,
    /// This client, for the work it spawns from `&self` methods.
    me: Weak<ClientCore>,
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
        let core = Rc::new_cyclic(|me| Self {
            policy: options.policy,
            retention: options.retention,
            auto_poll: options.auto_poll,
            keys: Keys::new(&options.namespace, &options.url),
            transport,
            store: RefCell::new(Rc::new(store)),
            store_note: RefCell::new(None),
            records: RefCell::new(SortedMap::new()),
            restored: RefCell::new(Default::default()),
            unknown_calls: RefCell::new(SortedMap::new()),
            live_calls: RefCell::new(Default::default()),
            waiters: RefCell::new(SortedMap::new()),
            events: Events::new(),
            timer: RefCell::new(None),
            requests_in_flight: Rc::new(Cell::new(0)),
            backlog: RefCell::new(Vec::new()),
            listeners: RefCell::new(Vec::new()),
            offline: Cell::new(!globals::is_online()),
            closed: Cell::new(false),
            seed: Cell::new(random_u64()),
            leader: Cell::new(!options.auto_poll),
            leadership: RefCell::new(None),
            channel: RefCell::new(None),
            replies: RefCell::new(SortedMap::new()),
            push: RefCell::new(Push::default()),
            tool_bindings: RefCell::new(SortedMap::new()),
            versions: RefCell::new(SortedMap::new()),
            writes: RefCell::new(WriteQueue::default()),
            me: me.clone(),
        });
        if let Some(note) = store_note {
            core.note_storage(note);
        }
        if core.auto_poll {
            core.join_tabs().await;
        }
        core.restore(true).await;
        if core.auto_poll {
            core.listen_to_host();
            // The first requests go out before `open()` resolves (at most the in-flight cap, so 1,000 due
            // handles do not hold the host's `await open()`); from a timer, they waited for whatever the
            // host does first, such as rendering every task.
            core.pump();
        }
        Ok(core)
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
        let detail = crate::json::json!({ "durable": self.durable(), "reason": reason });
        *self.store_note.borrow_mut() = Some(reason);
        self.events.emit("storage", to_js(&detail));
    }

    /// A store failure: fall back to memory (everything is still held in memory) and say why.
    fn storage_failed(&self, error: &StoreError) {
        if !self.durable() {
            return;
        }
        if !self.auto_poll {
            // Step mode: the store is the truth between isolates, so a failed call is a miss this step
            // reports and the next step retries — never a switch to memory that would drop the tasks.
            let reason = format!("a store call failed ({error}); the next step tries again");
            self.events.emit("storage", to_js(&crate::json::json!({ "durable": true, "reason": reason })));
            return;
        }
        *self.store.borrow_mut() = Rc::new(Store::Memory(MemoryStore::new()));
        self.note_storage(format!("storage failed ({error}); tasks are kept in memory only from now on"));
    }

    /// Loads every record of this namespace from the store and swaps them in at once (a reader never
    /// sees an empty list in between). `at_open` marks them `restored` for the host. Returns the ids
    /// whose stored record was read anew (new, or changed since this client last held it).
    async fn restore(self: &Rc<Self>, at_open: bool) -> Vec<String> {
        let store = self.store.borrow().clone();
        let entries = match store.list(&self.keys.prefix).await {
            Ok(entries) => entries,
            Err(e) => {
                self.storage_failed(&e);
                return Vec::new();
            }
        };
        let now = globals::now_ms();
        let mut loaded = SortedMap::new();
        let mut read_anew = Vec::new();
        // A polling client opening on many handles polls the first ones while it reads the rest.
        let mut early_start = at_open && self.auto_poll && self.leader.get();
        for (key, text) in entries {
            let rest = key.get(self.keys.prefix.len()..).unwrap_or_default();
            if let Some(id) = rest.strip_prefix("task/") {
                // Re-reading (a tab becoming the poller): a record whose stored text is the one this
                // client already holds is kept as it is, not parsed again (1,000 handles: most of the
                // time to the first poll).
                let unchanged = !at_open && self.versions.borrow().get(id) == Some(&text);
                if let Some(record) = unchanged.then(|| self.records.borrow_mut().remove(id)).flatten() {
                    loaded.insert(id.to_owned(), record);
                    continue;
                }
            }
            let parsed: Result<Value, _> = crate::json::from_str(&text);
            if let Some(id) = rest.strip_prefix("task/") {
                match parsed.map_err(|e| e.to_string()).and_then(|v| from_stored::<TaskRecord>(&v).map_err(|e| e.to_string())) {
                    Ok(mut record) => {
                        if at_open {
                            self.restored.borrow_mut().insert(id.to_owned());
                        }
                        if self.auto_poll {
                            // The page that stored it may have sent its queued answers already.
                            record.recheck_outbox_first();
                        }
                        self.versions.borrow_mut().insert(id.to_owned(), text);
                        loaded.insert(id.to_owned(), record);
                        read_anew.push(id.to_owned());
                        if early_start && loaded.len() >= MAX_REQUESTS_IN_FLIGHT {
                            early_start = false;
                            self.start_before_the_rest(&mut loaded).await;
                        }
                    }
                    // Left in the store untouched (a newer release may read it); reported, never dropped.
                    Err(e) => self.events.emit("storage", to_js(&crate::json::json!({ "durable": self.durable(), "reason": format!("stored task {id} could not be read: {e}") }))),
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
        {
            // Records added while the store was being read (a call that just returned) stay.
            let mut records = self.records.borrow_mut();
            for (id, record) in std::mem::take(&mut *records) {
                loaded.get_or_insert_with(id, || record);
            }
            *records = loaded;
        }
        self.apply_retention(now).await;
        read_anew
    }

    /// At open, after the first records are read: hands them over and lets their first polls go out
    /// (one turn of the microtask queue, where the spawned requests call `fetch`) before reading on.
    /// 1,000 stored handles: the first `tasks/get` no longer waits for the other 984 to be parsed.
    async fn start_before_the_rest(self: &Rc<Self>, loaded: &mut SortedMap<String, TaskRecord>) {
        {
            let mut records = self.records.borrow_mut();
            for (id, record) in std::mem::take(loaded) {
                records.insert(id, record);
            }
        }
        self.pump();
        let _ = JsFuture::from(Promise::resolve(&JsValue::UNDEFINED)).await;
    }

    /// Drops settled records past their TTL, and the oldest settled ones beyond the retention limit.
    async fn apply_retention(&self, now: u64) {
        let doomed: Vec<String> = {
            let records = self.records.borrow();
            let settled: Vec<(&String, &TaskRecord)> = records.iter().filter(|(_, r)| r.is_settled()).collect();
            let order = crate::collections::sorted_order(settled.len(), &mut |a, b| {
                settled[a].1.received_at() < settled[b].1.received_at()
            });
            let past_ttl = |r: &TaskRecord| {
                let expiry = crate::protocol::timestamp::parse_millis(&r.last().task.created_at)
                    .zip(r.last().task.ttl_ms)
                    .map(|(c, ttl)| c.saturating_add(ttl as i64));
                expiry.is_some_and(|e| e >= 0 && (e as u64) < now)
            };
            let excess = settled.len().saturating_sub(self.retention);
            order
                .iter()
                .enumerate()
                .filter(|&(i, &k)| i < excess || past_ttl(settled[k].1))
                .map(|(_, &k)| settled[k].0.clone())
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

    /// The snapshot of one task, if this client has it.
    pub fn snapshot(&self, id: &str) -> Option<Value> {
        self.snapshot_of(id)
    }

    /// The MCP endpoint (shown by the element as the server that asks).
    pub fn server_url(&self) -> &str {
        self.transport.url()
    }

    /// Tells the host a task or call is gone (`forget` event, `detail: { id }`).
    pub(super) fn emit_forgotten(&self, id: &str) {
        self.events.emit("forget", to_js(&crate::json::json!({ "id": id })));
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
        self.persist_with(id, &|_| Change::Nothing).await;
    }

    /// Writes a record. A polling client's writes go out in groups (`writes.rs`). In step mode the write
    /// succeeds only over the version this client last saw; when another isolate wrote first, its record
    /// is adopted and `replay` re-applies this client's event to it (an answer, an ack, a poll result)
    /// before trying again.
    async fn persist_with(&self, id: &str, replay: &dyn Fn(&mut TaskRecord) -> Change) -> Written {
        if self.auto_poll {
            return self.write_grouped(id).await;
        }
        let store = self.store.borrow().clone();
        let key = self.keys.task(id);
        for _ in 0..MAX_WRITE_ATTEMPTS {
            let Some(text) = self.records.borrow().get(id).map(|r| to_stored(r).to_string()) else {
                return Written::Gone;
            };
            let expected = self.versions.borrow().get(id).cloned();
            match store.put_if(&key, expected.as_deref(), &text).await {
                Ok(true) => {
                    self.versions.borrow_mut().insert(id.to_owned(), text);
                    return Written::Ours;
                }
                Ok(false) => match self.adopt_stored(id).await {
                    Some(mut record) => {
                        let change = replay(&mut record);
                        self.records.borrow_mut().insert(id.to_owned(), record);
                        if change == Change::Nothing {
                            return Written::Theirs;
                        }
                    }
                    None => return Written::Gone,
                },
                Err(e) => {
                    self.storage_failed(&e);
                    return Written::Failed;
                }
            }
        }
        Written::Theirs
    }

    /// Re-reads one record from the store (another isolate wrote it): `None` when it is gone or
    /// unreadable (then it is dropped from memory too).
    async fn adopt_stored(&self, id: &str) -> Option<TaskRecord> {
        let store = self.store.borrow().clone();
        let text = match store.get(&self.keys.task(id)).await {
            Ok(text) => text,
            Err(e) => {
                self.storage_failed(&e);
                None
            }
        };
        let record = text.as_deref().and_then(|t| {
            let value: Value = crate::json::from_str(t).ok()?;
            from_stored::<TaskRecord>(&value).ok()
        });
        match (&text, &record) {
            (Some(text), Some(_)) => {
                self.versions.borrow_mut().insert(id.to_owned(), text.clone());
            }
            _ => {
                self.versions.borrow_mut().remove(id);
                self.records.borrow_mut().remove(id);
            }
        }
        record
    }

    /// After a visible change: persist, tell the host and the other tabs, and settle waiters.
    async fn changed(&self, id: &str) {
        self.changed_with(id, &|_| Change::Nothing).await;
    }

    /// [`Self::changed`], re-applying the event with `replay` if another isolate wrote the record first.
    async fn changed_with(&self, id: &str, replay: &dyn Fn(&mut TaskRecord) -> Change) {
        self.persist_with(id, replay).await;
        self.emit_task(id);
        if let Some(stored) = self.records.borrow().get(id).map(to_stored) {
            self.post(crate::json::json!({ "t": "record", "id": id, "stored": stored }));
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
            self.forward(crate::json::json!({ "t": "respond", "id": task_id, "answers": value })).await
        }
    }

    async fn respond_here(self: &Rc<Self>, task_id: &str, value: &Value) -> Result<(), ClientError> {
        let responses = decode_input_responses(value).map_err(|e| ClientError::usage(format!("responses: {e}")))?;
        self.apply_host_event(task_id, &|record| record.answer(responses.clone())).await
    }

    /// `cancel`: a request, not a guarantee; persisted, then sent at once (by the polling tab).
    pub async fn cancel(self: &Rc<Self>, task_id: &str) -> Result<(), ClientError> {
        if !self.records.borrow().contains_key(task_id) {
            return Err(ClientError::usage(format!("no task {task_id} in this client")));
        }
        if self.leader.get() {
            self.cancel_here(task_id).await
        } else {
            self.forward(crate::json::json!({ "t": "cancel", "id": task_id })).await
        }
    }

    async fn cancel_here(self: &Rc<Self>, task_id: &str) -> Result<(), ClientError> {
        self.apply_host_event(task_id, &|record| record.request_cancel()).await
    }

    /// Applies a host's event (an answer, a cancel) to a record, stores it — re-applying the same event
    /// if another isolate wrote the record first (step mode) — and lets the poller send it.
    async fn apply_host_event(
        self: &Rc<Self>,
        task_id: &str,
        event: &dyn Fn(&mut TaskRecord) -> Result<Change, RecordError>,
    ) -> Result<(), ClientError> {
        self.refresh_for_step_mode(task_id).await;
        let change = {
            let mut records = self.records.borrow_mut();
            let record = records
                .get_mut(task_id)
                .ok_or_else(|| ClientError::usage(format!("no task {task_id} in this client")))?;
            event(record).map_err(|e| ClientError::new(ErrorKind::TaskState, e.to_string()))?
        };
        if change == Change::State {
            self.changed_with(task_id, &|fresh| event(fresh).unwrap_or(Change::Nothing)).await;
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
            self.waiters.borrow_mut().get_or_insert_with(task_id.to_owned(), Vec::new).push(resolve);
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
        self.versions.borrow_mut().remove(id);
        self.waiters.borrow_mut().remove(id);
        self.emit_forgotten(id);
        self.post(crate::json::json!({ "t": "forget", "id": id }));
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
        let ids: Vec<String> =
            self.records.borrow().keys().chain(self.unknown_calls.borrow().keys()).cloned().collect();
        self.records.borrow_mut().clear();
        self.versions.borrow_mut().clear();
        self.unknown_calls.borrow_mut().clear();
        self.waiters.borrow_mut().clear();
        for id in ids {
            self.emit_forgotten(&id);
        }
        Ok(())
    }

    /// `close`: stops timers and listeners; records stay in the store for the next `open`.
    pub fn close(&self) {
        self.closed.set(true);
        self.timer.borrow_mut().take();
        self.listeners.borrow_mut().clear();
        self.leadership.borrow_mut().take();
        self.channel.borrow_mut().take();
        self.stop_listening();
    }
}

use wasm_bindgen::JsCast;
