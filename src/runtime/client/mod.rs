//! `ClientCore`: the driver of one task client in a JS host. Every rule lives in
//! [`ClientState`](crate::client_state::ClientState); this holds it in one `RefCell`, feeds it what
//! happens (answers, timers, store reads, tab messages, host calls) with the clock's `now`, and carries
//! out the effects it returns — fetches, store writes, events, channel posts — never while the state is
//! borrowed, so page code that runs from an effect can call back in.
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::client_state::{ClientConfig, ClientState, Effect, Keys, Removal, TabMessage, Wait, MAX_REQUESTS_IN_FLIGHT};
use crate::collections::{SortedMap, SortedSet};
use crate::host::events::Events;
use crate::host::globals::{self, PageWatch, Timeout};
use crate::host::js_json::{from_js, to_js};
use crate::host::spawn::spawn;
use crate::json::{json, Value};
use crate::machine::record::{Change, TaskRecord};
use crate::protocol::input::decode_input_responses;
use crate::protocol::meta::RequestMeta;
use crate::protocol::tool_result::CallToolResult;
use crate::runtime::channel::Channel;
use crate::runtime::leader::Leadership;
use crate::runtime::options::{ClientOptions, StoreChoice};
use crate::snapshot::{TaskSnapshot, UnknownCallSnapshot};
use crate::store::{Store, StoreError};
use crate::transport::FetchTransport;
use wasm_bindgen::JsValue;

pub use crate::client_state::StepReport;
pub use crate::error::{ClientError, ErrorKind};

mod calls;
mod early;
mod exchange;
#[cfg(feature = "legacy")]
mod legacy_link;
#[cfg(feature = "legacy")]
mod legacy_tasks;
mod listen;
mod notify;
mod once;
mod persist;
mod session_stream;
use crate::client_state::Written;
mod step;
mod tabs;

use once::Once;

/// The IndexedDB database every namespace shares (keys carry the namespace and server URL).
pub const DATABASE: &str = "mcp-tasks-web";

/// What `callTool` returns.
pub enum CallOutcome {
    /// A synchronous result.
    Result(CallToolResult),
    /// A task handle, already persisted.
    Task(Value),
}

/// How a `wait` ends: the terminal snapshot, or why there will be none.
type Waited = Result<Value, ClientError>;

/// How the polling tab answered a forwarded request.
type Replied = Result<(), ClientError>;

/// The engine behind a `TaskClient`: the state, and the JS resources that carry out its effects.
pub struct ClientCore {
    state: RefCell<ClientState>,
    transport: FetchTransport,
    store: RefCell<Rc<Store>>,
    events: Events,
    /// The one timer, set to the state's next wake-up.
    timer: RefCell<Option<Timeout>>,
    /// `online`, `offline`, `pageshow`, `visibilitychange`, while auto-polling.
    listeners: RefCell<Option<PageWatch>>,
    leadership: RefCell<Option<Leadership>>,
    channel: RefCell<Option<Channel>>,
    /// `wait` calls by the state's waiter id.
    waiters: RefCell<SortedMap<String, Rc<Once<Waited>>>>,
    /// Requests forwarded to the polling tab, by request id.
    replies: RefCell<SortedMap<String, Rc<Once<Replied>>>>,
    /// Closes the open listen stream.
    listen_abort: RefCell<Option<web_sys::AbortController>>,
    /// The group write the next queued record joins (`true` once stored).
    next_group: RefCell<Rc<Once<bool>>>,
    /// The server's task generation and its 2025-11-25 session.
    #[cfg(feature = "legacy")]
    link: legacy_link::ServerLink,
    /// This client, for the work it spawns from `&self` methods.
    me: Weak<ClientCore>,
}

pub(crate) fn random_u64() -> u64 {
    let a = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let b = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (a << 32) ^ b
}

/// The store the options ask for. A host store that is not one (a method missing) is refused:
/// `open()` rejects naming it, rather than keep tasks in memory the host believes are stored. Only
/// IndexedDB falls back to memory (missing, blocked or refused by the browser), with a `storage` event.
async fn open_store(choice: StoreChoice) -> Result<(Store, Option<String>), ClientError> {
    Ok(match choice {
        StoreChoice::Memory => (Store::memory(), None),
        StoreChoice::Js(object) => match Store::host(object) {
            Ok(store) => (store, None),
            Err(e) => return Err(ClientError::storage(e.to_string())),
        },
        StoreChoice::IndexedDb => match Store::open_indexed_db(DATABASE).await {
            Ok(store) => (store, None),
            Err(e) => {
                (Store::memory(), Some(format!("IndexedDB is not usable here ({e}); tasks are kept in memory only")))
            }
        },
    })
}

impl ClientCore {
    /// Opens a client: the store, then every record of this namespace and server, then polling.
    pub async fn open(options: ClientOptions) -> Result<Rc<Self>, ClientError> {
        let keys = Keys::new(&options.namespace, &options.url);
        // The Web Lock is asked for while IndexedDB opens: on a fresh page each takes tens of ms.
        let mut trying = if options.auto_poll { Leadership::try_start(&keys.tabs()) } else { None };
        let hint = if trying.is_some() && globals::is_online() { early::read_hint(&keys) } else { Vec::new() };
        let meta = RequestMeta::task_client(options.client_info.clone(), true, true);
        let first_id = (random_u64() % 1_000_000_000) as i64 + 1;
        let transport =
            FetchTransport::new(options.url.clone(), meta, options.headers, options.request_timeout_ms, first_id)
                .with_limits(options.max_response_bytes, options.max_input_requests);
        let config = ClientConfig {
            policy: options.policy,
            retention: options.retention,
            auto_poll: options.auto_poll,
            max_in_flight: MAX_REQUESTS_IN_FLIGHT,
        };
        let mut state = ClientState::new(config, keys, !globals::is_online(), !options.auto_poll, random_u64());
        state.set_notify(options.notify);
        state.set_hidden(globals::is_hidden());
        state.set_drives_legacy(cfg!(feature = "legacy"));
        // Made before its store is open, on a stand-in nothing is written to: with a hint, the tab that
        // gets the lock polls those tasks while IndexedDB opens (see `early`).
        let core = Rc::new_cyclic(|me| Self {
            state: RefCell::new(state),
            transport,
            store: RefCell::new(Rc::new(Store::memory())),
            events: Events::new(),
            timer: RefCell::new(None),
            listeners: RefCell::new(None),
            leadership: RefCell::new(None),
            channel: RefCell::new(None),
            waiters: RefCell::new(SortedMap::new()),
            replies: RefCell::new(SortedMap::new()),
            listen_abort: RefCell::new(None),
            next_group: RefCell::new(Once::new()),
            #[cfg(feature = "legacy")]
            link: legacy_link::ServerLink::default(),
            me: me.clone(),
        });
        // With a hint (only a client that asked for the lock has one), the lock is settled first:
        // only the tab that gets it polls early.
        let held_early = match trying.take_if(|_| !hint.is_empty()) {
            Some(asked) => asked.decided().await,
            None => None,
        };
        if held_early.is_some() {
            core.run(|state| state.poll_early(&hint));
        }
        let (store, store_note) = match open_store(options.store).await {
            Ok(opened) => opened,
            Err(e) => {
                core.close();
                return Err(e);
            }
        };
        *core.store.borrow_mut() = Rc::new(store);
        let held = match trying {
            Some(asked) => asked.decided().await,
            None => held_early,
        };
        if let Some(note) = store_note {
            core.emit_storage(&note);
        }
        if options.auto_poll {
            core.join_tabs(held).await;
        }
        // Before the restore: events the restore queues (calls of unknown outcome) are dispatched on
        // the next macrotask, which must come after `open()` resolves and the host listens; an await
        // of the store after the restore would let them go by first.
        #[cfg(feature = "legacy")]
        core.load_link().await;
        if let Err(e) = core.restore_at_open().await {
            core.close();
            return Err(e);
        }
        if options.auto_poll {
            core.listen_to_host();
            // The first requests go out before `open()` resolves (at most the in-flight cap, so 1,000 due
            // handles do not hold the host's `await open()`); from a timer, they waited for whatever the
            // host does first, such as rendering every task.
            core.pump();
        }
        Ok(core)
    }

    /// Feeds the state one event, then carries out what it asks once the borrow has ended. Store
    /// deletes run detached; [`Self::run_awaiting_deletes`] waits for them. (Kept tiny: it is
    /// instantiated once per call site, and the work is in the non-generic [`Self::flush`].)
    fn run<R>(&self, event: impl FnOnce(&mut ClientState) -> R) -> R {
        let out = event(&mut self.state.borrow_mut());
        self.flush();
        out
    }

    /// Carries out the effects the state queued; store deletes run detached.
    fn flush(&self) {
        let effects = self.state.borrow_mut().drain_effects();
        for key in self.perform(effects) {
            let store = self.store();
            spawn(async move {
                let _ = store.delete(&key).await;
            });
        }
        self.write_early_hint();
    }

    /// Feeds the state one event, carries out its effects and waits for the store deletes it asked
    /// for, in order; the first failure is returned.
    /// `also`: more keys to delete with them (each key is deleted once).
    async fn run_awaiting_deletes(
        &self,
        event: &dyn Fn(&mut ClientState),
        also: Vec<String>,
    ) -> Result<(), StoreError> {
        event(&mut self.state.borrow_mut());
        let effects = self.state.borrow_mut().drain_effects();
        let mut keys = SortedSet::new();
        for key in also {
            keys.insert(key);
        }
        keys.extend(self.perform(effects));
        let store = self.store();
        let mut outcome = Ok(());
        for key in keys.iter() {
            if let Err(e) = store.delete(key).await {
                outcome = outcome.and(Err(e));
            }
        }
        outcome
    }

    /// Carries out effects; returns the store keys to delete.
    fn perform(&self, effects: Vec<Effect>) -> Vec<String> {
        let mut deletes = Vec::new();
        for effect in effects {
            match effect {
                Effect::Send { id, action, slot } => {
                    if let Some(core) = self.me.upgrade() {
                        spawn(async move { core.execute(id, action, slot).await });
                    }
                }
                Effect::Store(id) => {
                    if let Some(core) = self.me.upgrade() {
                        spawn(async move { core.changed(&id).await });
                    }
                }
                Effect::Delete(key) => deletes.push(key),
                Effect::EmitTask(id) => self.emit_task(&id),
                Effect::Notify(id) => self.show_notice(&id),
                Effect::EmitForget(id) => {
                    // A forgotten 2025-11-25 task's `tasks/result` stream closes with it.
                    #[cfg(feature = "legacy")]
                    self.link.streams.borrow_mut().remove(&id);
                    self.events.emit("forget", to_js(&json!({ "id": id })))
                }
                Effect::EmitCall(call) => {
                    self.events.emit("call", to_js(&UnknownCallSnapshot::of_call(&call).to_json()))
                }
                Effect::EmitStorage(reason) => self.emit_storage(&reason),
                Effect::Post(message) => self.post(message),
                Effect::Settle { waiter, outcome } => {
                    let once = self.waiters.borrow_mut().remove(&waiter);
                    if let Some(once) = once {
                        once.set(outcome.map(|id| self.snapshot(&id).unwrap_or(Value::Null)));
                    }
                }
                Effect::Discover => self.discover(),
                Effect::Listen { generation, ids } => self.listen(generation, ids),
                Effect::StopListening => {
                    if let Some(abort) = self.listen_abort.borrow_mut().take() {
                        abort.abort();
                    }
                }
                Effect::OpenSessionStream => self.open_session_stream(),
                Effect::CloseSessionStream => self.close_session_stream(),
                Effect::Rearm => self.rearm(),
            }
        }
        deletes
    }

    fn store(&self) -> Rc<Store> {
        self.store.borrow().clone()
    }

    /// Where the client's events go.
    #[cfg(not(feature = "door"))]
    pub(crate) fn events(&self) -> &Events {
        &self.events
    }

    /// The event target hosts listen on.
    pub fn event_target(&self) -> JsValue {
        self.events.target()
    }

    /// Whether records survive a reload.
    pub fn durable(&self) -> bool {
        self.store.borrow().is_durable()
    }

    fn emit_storage(&self, reason: &str) {
        let detail = json!({ "durable": self.durable(), "reason": reason });
        self.events.emit("storage", to_js(&detail));
    }

    /// A store failure: fall back to memory (everything is still held in memory) and say why.
    fn storage_failed(&self, error: &StoreError) {
        if !self.durable() {
            return;
        }
        if !self.state.borrow().config().auto_poll {
            // Step mode: the store is the truth between isolates, so a failed call is a miss this step
            // reports and the next step retries — never a switch to memory that would drop the tasks.
            let reason = format!("a store call failed ({error}); the next step tries again");
            self.events.emit("storage", to_js(&json!({ "durable": true, "reason": reason })));
            return;
        }
        *self.store.borrow_mut() = Rc::new(Store::memory());
        self.emit_storage(&format!("storage failed ({error}); tasks are kept in memory only from now on"));
    }

    fn listen_to_host(self: &Rc<Self>) {
        let weak = Rc::downgrade(self);
        let on_connectivity = Box::new(move || {
            if let Some(core) = weak.upgrade() {
                core.connectivity_changed();
            }
        });
        let weak = Rc::downgrade(self);
        let on_visibility = Box::new(move |hidden| {
            if let Some(core) = weak.upgrade() {
                core.state.borrow_mut().set_hidden(hidden);
                if !hidden {
                    core.connectivity_changed();
                }
            }
        });
        *self.listeners.borrow_mut() = Some(PageWatch::new(on_connectivity, on_visibility));
    }

    /// Online, visible again, or back from the bfcache: retry what was backing off and poll what is due.
    fn connectivity_changed(&self) {
        let now = globals::now_ms();
        let online = globals::is_online();
        self.run(|state| {
            state.connectivity_changed(now, online);
            state.poll_due(now);
        });
    }

    /// The snapshot of one task, if this client has it.
    pub fn snapshot(&self, id: &str) -> Option<Value> {
        let state = self.state.borrow();
        let record = state.record(id)?;
        Some(TaskSnapshot::of_record(record, state.is_offline(), record.is_pushed(), state.is_restored(id)).to_json())
    }

    /// The MCP endpoint (shown by the element as the server that asks).
    pub fn server_url(&self) -> &str {
        self.transport.url()
    }

    fn emit_task(&self, id: &str) {
        if let Some(s) = self.snapshot(id) {
            self.events.emit("task", to_js(&s));
        }
    }

    /// Snapshots of every task and every call of unknown outcome.
    pub fn snapshots(&self) -> Vec<Value> {
        let mut ids = Vec::new();
        for id in self.state.borrow().records().keys() {
            ids.push(id.clone());
        }
        let mut out = Vec::with_capacity(ids.len());
        for id in &ids {
            out.extend(self.snapshot(id));
        }
        out.extend(self.state.borrow().unknown_calls().map(|call| UnknownCallSnapshot::of_call(call).to_json()));
        out
    }

    /// Whether this tab applies a host's event for `task_id` itself (it polls) or forwards it.
    fn polls_for(&self, task_id: &str) -> Result<bool, ClientError> {
        let state = self.state.borrow();
        match state.record(task_id) {
            Some(_) => Ok(state.is_leader()),
            None => Err(ClientError::unknown_task(task_id)),
        }
    }

    /// `respond`: answers are queued (persisted first, the outbox) and sent at once — by this tab if it
    /// polls, else by the tab that does (which also refuses a key another tab already answered).
    pub async fn respond(&self, task_id: &str, responses: &JsValue) -> Result<(), ClientError> {
        let value = from_js(responses).map_err(ClientError::usage)?;
        self.respond_value(task_id, value).await
    }

    /// [`Self::respond`] with the answers as a JSON value: what the element sends, so numbers go to the
    /// server as the form holds their text (through JS they would be read as doubles and written anew).
    pub async fn respond_value(&self, task_id: &str, value: Value) -> Result<(), ClientError> {
        if self.polls_for(task_id)? {
            self.respond_here(task_id, &value).await
        } else {
            self.forward(|req| TabMessage::Respond { req, id: task_id.to_owned(), answers: value }).await
        }
    }

    async fn respond_here(&self, task_id: &str, value: &Value) -> Result<(), ClientError> {
        let responses = decode_input_responses(value).map_err(|e| ClientError::usage(format!("responses: {e}")))?;
        let replay = responses.clone();
        self.apply_host_event(task_id, |state| state.answer(task_id, responses), &|record| {
            record.answer(replay.clone()).unwrap_or(Change::Nothing)
        })
        .await
    }

    /// `cancel`: a request, not a guarantee; persisted, then sent at once (by the polling tab).
    pub async fn cancel(&self, task_id: &str) -> Result<(), ClientError> {
        if self.polls_for(task_id)? {
            self.cancel_here(task_id).await
        } else {
            self.forward(|req| TabMessage::Cancel { req, id: task_id.to_owned() }).await
        }
    }

    async fn cancel_here(&self, task_id: &str) -> Result<(), ClientError> {
        self.apply_host_event(task_id, |state| state.request_cancel(task_id), &|record| {
            record.request_cancel().unwrap_or(Change::Nothing)
        })
        .await
    }

    /// Applies a host's event (an answer, a cancel), stores the record — re-applying the same event
    /// with `replay` if another isolate wrote it first (step mode) — and lets the poller send it.
    async fn apply_host_event(
        &self,
        task_id: &str,
        event: impl FnOnce(&mut ClientState) -> Result<Change, ClientError>,
        replay: &dyn Fn(&mut TaskRecord) -> Change,
    ) -> Result<(), ClientError> {
        self.refresh_for_step_mode(task_id).await;
        let change = self.run(event)?;
        let written = if change == Change::State { self.changed_with(task_id, replay).await } else { Written::Ours };
        self.pump();
        if written == Written::Failed {
            return Err(ClientError::change_not_stored(task_id));
        }
        Ok(())
    }

    /// `wait`: resolves with the task's snapshot once it has ended; rejects when it is forgotten
    /// (here, in another tab, by `clear` or retention) or the client is closed first.
    pub async fn wait(&self, task_id: &str) -> Result<Value, ClientError> {
        match self.run(|state| state.wait(task_id))? {
            Wait::Settled => Ok(self.snapshot(task_id).unwrap_or(Value::Null)),
            Wait::Later(waiter) => {
                let once = Once::new();
                self.waiters.borrow_mut().insert(waiter, once.clone());
                once.get().await
            }
        }
    }

    /// `forget`: drops a task (or a call of unknown outcome) here, in the store and in every tab.
    pub async fn forget(&self, id: &str) -> Result<(), ClientError> {
        let ids = [id.to_owned()];
        let deleted = self.run_awaiting_deletes(&|state| state.remove(&ids, Removal::Forget), Vec::new()).await;
        deleted.map_err(|e| ClientError::storage(e.to_string()))
    }

    /// `clear`: forgets everything in this namespace and server, here and in every tab, and deletes
    /// whatever the store holds under the client's prefix.
    pub async fn clear(&self) -> Result<(), ClientError> {
        // What the store holds under the prefix (records this client never loaded too) goes with what
        // the state knows, each key once.
        let prefix = self.state.borrow().keys().prefix().to_owned();
        let listed = self.store().list(&prefix).await;
        let stored = listed.as_ref().map(|entries| entries.iter().map(|(key, _)| key.clone()).collect());
        let deleted = self.run_awaiting_deletes(&ClientState::clear, stored.unwrap_or_default()).await;
        listed.and(deleted).map_err(|e| ClientError::storage(e.to_string()))
    }

    /// Whether a task that needs input or ends while the page is hidden shows a system notification.
    pub fn notify(&self) -> bool {
        self.state.borrow().notifies()
    }

    /// Turns notifications on or off (`notify` option, `client.notify`, `<mcp-task-list notify>`).
    pub fn set_notify(&self, notify: bool) {
        self.state.borrow_mut().set_notify(notify);
    }

    /// `close`: stops timers and listeners and rejects open `wait`s; records stay in the store for the
    /// next `open`.
    pub fn close(&self) {
        self.run(ClientState::close);
        self.timer.borrow_mut().take();
        self.listeners.borrow_mut().take();
        self.leadership.borrow_mut().take();
        self.channel.borrow_mut().take();
    }
}
