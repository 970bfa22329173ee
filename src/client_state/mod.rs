//! `ClientState`: the whole bookkeeping of one task client as a plain value, in the shape of
//! quinn-proto's `Connection`. Its methods take `&mut self` and `now`, change the state, and queue
//! [`Effect`]s (requests to send, records to write, events, tab messages, waiters to settle) that the
//! driver in `runtime/client/` drains and carries out; [`ClientState::next_wakeup`] says when to call
//! again. It never calls JS, so every rule — request slots and the wake-up queue, retention, removal, listen
//! coverage, the tab protocol, waiters — is tested natively with a fake clock.
use crate::collections::{SortedMap, SortedSet};
use crate::error::{ClientError, ErrorKind};
use crate::json::Value;
use crate::machine::backoff::PollPolicy;
use crate::machine::pending::PendingCall;
use crate::machine::record::{Change, RecordError, TaskRecord};
use crate::protocol::input::InputResponses;
use crate::protocol::legacy::stream::Progress;
use crate::protocol::param_headers::ParamBinding;
use crate::protocol::task::Task;
use crate::protocol::task_protocol::TaskProtocol;

mod attention;
mod early;
mod effect;
mod keys;
mod listen;
mod pause;
mod polling;
mod records;
mod removal;
mod restore;
mod session_stream;
mod step_plan;
mod tab_message;
mod tabs;
mod versions;
mod waiters;
mod wake_queue;
mod window;
mod writes;

pub use early::EARLY_POLLS;
pub use effect::Effect;
pub use keys::{Keys, StoredKey};
pub use listen::{ListenEnd, IDLE_LIMIT_MS, REFUSED_RETRY_MS, RELISTEN_MAX_MS, RELISTEN_MIN_MS};
pub use pause::{AuthPause, AUTH_RETRY_BASE_MS, AUTH_RETRY_MAX_MS, MAX_SERVER_PAUSE_MS};
pub use polling::{apply_outcome, ExchangeOutcome, StepReport};
pub use records::WakeStats;
pub use removal::Removal;
pub use restore::{Restore, FIRST_PAGE};
pub use session_stream::SessionStreamEnd;
pub use step_plan::{plan_step, STEP_PARALLELISM};
pub use tab_message::TabMessage;
pub use waiters::Wait;
pub use window::INITIAL_WINDOW;

use attention::Attention;
use listen::Listen;
use pause::Pause;
use polling::Slots;
use records::Records;
use session_stream::SessionStream;
use waiters::Waiters;
use window::Window;
use writes::WriteQueue;
pub use writes::{WriteGroup, Written};

/// Requests one polling client has in flight at most, the ceiling of its adaptive window (see
/// `window.rs`). A reload with 10,000 handles due would otherwise start 10,000 fetches at once, and
/// Chromium refuses about half (`ERR_INSUFFICIENT_RESOURCES`); the rest wait for a free slot, which
/// each answer hands on.
pub const MAX_REQUESTS_IN_FLIGHT: usize = 64;

/// The host's settings that shape the bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientConfig {
    /// Poll spacing and backoff.
    pub policy: PollPolicy,
    /// Settled tasks kept after they end (oldest dropped first).
    pub retention: usize,
    /// Whether the client runs by itself (`false`: step mode, driven by `step()`).
    pub auto_poll: bool,
    /// Request slots of a polling client at most; the window in use starts lower and adapts.
    pub max_in_flight: usize,
}

/// Everything one client knows, and the effects it has queued for its driver.
#[derive(Debug)]
pub struct ClientState {
    config: ClientConfig,
    keys: Keys,
    /// The records, with their wake-up and TTL queues and live counts.
    records: Records,
    /// The stored version of each record as this client last read or wrote it (step mode compares on
    /// write; a re-read skips records it already holds).
    versions: versions::Versions,
    /// Records restored from the store at open (`restored` in snapshots).
    restored: SortedSet<String>,
    /// Calls found at open whose page died before their answer.
    unknown_calls: SortedMap<String, PendingCall>,
    /// This client's own calls still waiting for an answer (their pending records are not orphans).
    live_calls: SortedSet<String>,
    waiters: Waiters,
    slots: Slots,
    /// How many of the slots may be used now.
    window: Window,
    listen: Listen,
    /// A 2025-11-25 session's GET stream.
    session_stream: SessionStream,
    /// The server's `Retry-After`, for every request.
    pause: Pause,
    writes: WriteQueue,
    /// `x-mcp-header` bindings of the tools seen in `listTools`, by tool name.
    tool_bindings: SortedMap<String, Vec<ParamBinding>>,
    offline: bool,
    closed: bool,
    /// Whether this client polls (it holds the namespace's lock, or there is no lock to hold).
    leader: bool,
    /// Whom to notify of what (opt-in).
    attention: Attention,
    /// Polls sent at open before the records were read, and the hint they came from.
    early: early::EarlyPolls,
    /// Whether this build drives 2025-11-25 tasks (see [`ClientState::set_drives_legacy`]).
    drives_legacy: bool,
    /// A 2025-11-25 record was read that this build does not drive (see [`ClientState::met_legacy`]).
    met_legacy: std::cell::Cell<bool>,
    seed: u64,
    effects: Vec<Effect>,
}

impl ClientState {
    /// A client with no records yet. `seed` feeds each new record's jitter.
    pub fn new(config: ClientConfig, keys: Keys, offline: bool, leader: bool, seed: u64) -> Self {
        Self {
            config,
            keys,
            records: Records::new(config.policy),
            versions: versions::Versions::new(!config.auto_poll),
            restored: SortedSet::default(),
            unknown_calls: SortedMap::new(),
            live_calls: SortedSet::default(),
            waiters: Waiters::default(),
            slots: Slots::default(),
            window: Window::new(config.max_in_flight),
            listen: Listen::new(seed),
            session_stream: SessionStream::new(seed),
            pause: Pause::default(),
            writes: WriteQueue::default(),
            tool_bindings: SortedMap::new(),
            offline,
            closed: false,
            leader,
            attention: Attention::default(),
            early: early::EarlyPolls::default(),
            drives_legacy: true,
            met_legacy: std::cell::Cell::new(false),
            seed,
            effects: Vec::new(),
        }
    }

    /// The effects queued since the last call, in order.
    pub fn drain_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    fn push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Whether this client drives 2025-11-25 tasks (on unless turned off: a build without the `legacy`
    /// feature turns it off). One that does not leaves their stored records as they are — never held,
    /// polled, expired or rewritten — so a client that does (a build with the feature, in another tab
    /// or on a later page) still finds them; each is reported once per read as a storage event.
    pub fn set_drives_legacy(&mut self, drives: bool) {
        self.drives_legacy = drives;
    }

    /// Whether a 2025-11-25 record was read (from the store or another tab) that this build, without
    /// that generation, left alone: a driver that can load the generation hands over to it then.
    pub fn met_legacy(&self) -> bool {
        self.met_legacy.get()
    }

    /// The settings.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The store keys.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    /// Task `id`'s record.
    pub fn record(&self, id: &str) -> Option<&TaskRecord> {
        self.records.get(id).map(|r| &**r)
    }

    /// Every record, by task id.
    pub fn records(&self) -> &SortedMap<std::rc::Rc<str>, Box<TaskRecord>> {
        &self.records
    }

    /// The wake-up queues' size and the entries taken off them so far: what passes cost, which a test
    /// can hold to a bound that does not grow with the number of records.
    pub fn wake_stats(&self) -> WakeStats {
        self.records.stats()
    }

    /// Whether the task was restored from the store at open.
    pub fn is_restored(&self, id: &str) -> bool {
        self.restored.contains(id)
    }

    /// Calls of unknown outcome.
    pub fn unknown_calls(&self) -> impl Iterator<Item = &PendingCall> {
        self.unknown_calls.values()
    }

    /// Whether this client holds a version of task `id`'s stored record.
    pub fn has_version(&self, id: &str) -> bool {
        self.versions.contains(id)
    }

    /// Step mode: the stored text this client last read or wrote for task `id`.
    pub fn version(&self, id: &str) -> Option<&str> {
        self.versions.text(id)
    }

    /// Whether the runtime reports no network.
    pub fn is_offline(&self) -> bool {
        self.offline
    }

    /// Whether this client polls.
    pub fn is_leader(&self) -> bool {
        self.leader
    }

    /// Whether `close()` was called.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Requests holding a slot now.
    pub fn requests_in_flight(&self) -> usize {
        self.slots.in_flight
    }

    /// Waiters registered and not yet settled.
    pub fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// This client now polls (it took the lock) or no longer does.
    pub fn set_leader(&mut self, leader: bool) {
        self.leader = leader;
        if !leader {
            self.stop_session_stream();
        }
    }

    /// A new handle from `callTool`: recorded, to be stored before the call resolves.
    pub fn add_task(&mut self, now: u64, tool_name: String, handle: Task) -> String {
        self.add_task_of(now, tool_name, handle, TaskProtocol::Extension)
    }

    /// [`Self::add_task`] for a task created under `protocol`.
    pub fn add_task_of(&mut self, now: u64, tool_name: String, handle: Task, protocol: TaskProtocol) -> String {
        self.add_called_task(now, tool_name, handle, protocol, None)
    }

    /// [`Self::add_task_of`], with the `_meta.ui` (`ui`) the call gave for its tool, if any.
    pub fn add_called_task(
        &mut self,
        now: u64,
        tool_name: String,
        handle: Task,
        protocol: TaskProtocol,
        ui: Option<Value>,
    ) -> String {
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let id = handle.task_id.clone();
        let mut record =
            TaskRecord::from_handle(now, tool_name, handle, self.seed, &self.config.policy).with_protocol(protocol);
        record.ui = ui;
        self.records.insert(id.as_str(), record);
        id
    }

    /// The `_meta.progressToken` the call that created task `id` sent (2025-11-25); stored with it.
    pub fn set_progress_token(&mut self, id: &str, token: String) {
        self.records.update(id, |record, _| record.set_progress_token(token));
    }

    /// A `notifications/progress`: for the task it is tagged with, else the task whose call sent its
    /// token. A host sees it in the next `task` event; nothing is stored.
    pub fn on_progress(&mut self, progress: Progress) {
        let id = match (&progress.related_task, &progress.token) {
            (Some(id), _) => Some(id.clone()),
            (None, Value::String(token)) => self
                .records
                .iter()
                .find(|(_, r)| r.progress_token() == Some(token.as_str()))
                .map(|(id, _)| String::from(&**id)),
            _ => None,
        };
        let Some(id) = id else { return };
        if self.records.update(&id, |r, _| r.on_progress(progress.progress, progress.total)) == Some(true) {
            self.push(Effect::EmitTask(id));
        }
    }

    /// Whether to show a system notification when a task needs input or ends while the page is
    /// hidden (`notify`); only the polling tab shows one.
    pub fn set_notify(&mut self, notify: bool) {
        self.attention.set_wanted(notify);
    }

    /// Whether notifications are on.
    pub fn notifies(&self) -> bool {
        self.attention.wanted()
    }

    /// The page was hidden or shown (a client without a page stays visible: it notifies no one).
    pub fn set_hidden(&mut self, hidden: bool) {
        self.attention.set_hidden(hidden);
    }

    /// A call this client started and is waiting for (its pending record is not an orphan).
    pub fn begin_call(&mut self, call_id: &str) {
        self.live_calls.insert(call_id.to_owned());
    }

    /// The call got its answer (or failed).
    pub fn end_call(&mut self, call_id: &str) {
        self.live_calls.remove(call_id);
    }

    /// The `x-mcp-header` bindings `listTools` saw for `tool`.
    pub fn tool_bindings(&self, tool: &str) -> Option<&Vec<ParamBinding>> {
        self.tool_bindings.get(tool)
    }

    /// A `tools/list` page as the host gets it: each tool exactly as the server sent it, less those whose
    /// `x-mcp-header` annotations are invalid (named in `rejectedTools`); the others' bindings are kept
    /// so `callTool` sends their `Mcp-Param-*` headers.
    pub fn take_tool_page(&mut self, mut page: crate::protocol::Object) -> Value {
        let tools = match page.remove("tools") {
            Some(Value::Array(tools)) => tools,
            _ => Vec::new(),
        };
        let mut kept = Vec::new();
        let mut rejected = Vec::new();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            match crate::protocol::param_headers::bindings(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                Ok(bindings) => {
                    self.set_tool_bindings(name, Some(bindings));
                    kept.push(tool);
                }
                Err(e) => {
                    self.set_tool_bindings(name.clone(), None);
                    rejected.push(crate::json::json!({ "name": name, "reason": crate::text::display(&e) }));
                }
            }
        }
        page.remove("resultType");
        page.put("tools", Value::Array(kept));
        if !rejected.is_empty() {
            page.put("rejectedTools", Value::Array(rejected));
        }
        Value::Object(page)
    }

    /// Keeps (or, with `None`, drops) `tool`'s bindings.
    pub fn set_tool_bindings(&mut self, tool: String, bindings: Option<Vec<ParamBinding>>) {
        match bindings {
            Some(bindings) => {
                self.tool_bindings.insert(tool, bindings);
            }
            None => {
                self.tool_bindings.remove(&tool);
            }
        }
    }

    /// The host's answers for task `id`: queued in the record (the outbox), stored, then sent.
    pub fn answer(&mut self, id: &str, responses: InputResponses) -> Result<Change, ClientError> {
        self.host_event(id, |record| record.answer(responses))
    }

    /// The host asks to cancel task `id`.
    pub fn request_cancel(&mut self, id: &str) -> Result<Change, ClientError> {
        self.host_event(id, TaskRecord::request_cancel)
    }

    fn host_event(
        &mut self,
        id: &str,
        event: impl FnOnce(&mut TaskRecord) -> Result<Change, RecordError>,
    ) -> Result<Change, ClientError> {
        let result = self.records.update(id, |record, _| event(record)).ok_or_else(|| ClientError::unknown_task(id))?;
        result.map_err(|e| ClientError::new(ErrorKind::TaskState, crate::text::display(&e)))
    }

    /// Task `id` changed and is stored: tell the host and the other tabs, and settle its waiters if it
    /// ended.
    pub fn announce(&mut self, id: &str) {
        let Some(record) = self.records.get(id) else { return };
        let stored = crate::machine::stored::to_stored(&**record);
        let settled = record.is_settled();
        let notify = self.attention.announced(id) && self.leader;
        self.push(Effect::EmitTask(id.to_owned()));
        if notify {
            self.push(Effect::Notify(id.to_owned()));
        }
        self.push(Effect::Post(TabMessage::Record { id: id.to_owned(), stored }));
        if settled {
            self.settle_waiters(id);
        }
    }

    /// A task's state that arrived without a poll (a listen stream, a 2025-11-25 `tasks/result`
    /// stream): handled like a notification, and stored when it changed what a host sees.
    pub fn on_task_observed(&mut self, now: u64, task: crate::protocol::task::DetailedTask) {
        let id = task.task.task_id.clone();
        let attention = &mut self.attention;
        let change = self.records.update(&id, |r, policy| {
            let before = r.status();
            let change = r.on_notification(now, task, policy).ok();
            attention.observed(&id, before, r.status());
            change
        });
        if change == Some(Some(Change::State)) {
            self.push(Effect::Store(id));
        }
    }

    /// Online again, offline, visible again or back from the bfcache: what was backing off is due at
    /// once, and live tasks show the new connectivity.
    pub fn connectivity_changed(&mut self, now: u64, online: bool) {
        let was_online = !std::mem::replace(&mut self.offline, !online);
        if online {
            self.records.update_all(|_, record, policy| record.on_network_restored(now, policy) != Change::Nothing);
        }
        if was_online != online {
            let mut live = Vec::new();
            for (id, record) in self.records.iter() {
                if !record.is_settled() {
                    live.push(String::from(&**id));
                }
            }
            for id in live {
                self.push(Effect::EmitTask(id));
            }
        }
    }

    /// `close()`: nothing runs any more; every `wait` still open is rejected, the listen stream closed.
    pub fn close(&mut self) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        for waiter in self.waiters.take_all() {
            let error = ClientError::new(ErrorKind::Closed, "the client was closed before the task ended");
            self.push(Effect::Settle { waiter, outcome: Err(error) });
        }
        if self.listen.stop() {
            self.push(Effect::StopListening);
        }
        self.stop_session_stream();
    }
}
