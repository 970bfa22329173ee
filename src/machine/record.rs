//! `TaskRecord`: everything the client knows about one task handle, and the pure logic that moves it.
//!
//! The caller feeds events with `now` (Unix ms) and asks what to do next ([`TaskRecord::next_action`])
//! and when to wake ([`TaskRecord::next_wakeup`]); nothing here reads a clock or touches the network.
use std::fmt;

use super::backoff::{Failure, Jitter, PollPolicy, Retry};
use super::ledger::{InputLedger, LedgerError};
use crate::json::{Number, Value};
use crate::protocol::input::{InputRequests, InputResponses};
use crate::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use crate::protocol::task_protocol::TaskProtocol;
use crate::protocol::timestamp;

mod stored_form;

/// The status a host sees: the five task statuses plus `Expired` for a task the server no longer knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LocalStatus {
    /// Running.
    Working,
    /// Waiting for the user's answers.
    InputRequired,
    /// Finished with a result.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled.
    Cancelled,
    /// Past its TTL, or unknown to the server (-32602): there is nothing left to poll.
    Expired,
}

impl From<TaskStatus> for LocalStatus {
    fn from(status: TaskStatus) -> Self {
        match status {
            TaskStatus::Working => Self::Working,
            TaskStatus::InputRequired => Self::InputRequired,
            TaskStatus::Completed => Self::Completed,
            TaskStatus::Failed => Self::Failed,
            TaskStatus::Cancelled => Self::Cancelled,
        }
    }
}

impl LocalStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [LocalStatus; 6] =
        [Self::Working, Self::InputRequired, Self::Completed, Self::Failed, Self::Cancelled, Self::Expired];

    /// The name used in snapshots and events: the wire name, or `expired`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Working => TaskStatus::Working.as_str(),
            Self::InputRequired => TaskStatus::InputRequired.as_str(),
            Self::Completed => TaskStatus::Completed.as_str(),
            Self::Failed => TaskStatus::Failed.as_str(),
            Self::Cancelled => TaskStatus::Cancelled.as_str(),
            Self::Expired => "expired",
        }
    }

    /// Reads a name written by [`LocalStatus::as_str`]; `None` for any other text.
    pub fn parse(name: &str) -> Option<LocalStatus> {
        Self::ALL.into_iter().find(|status| status.as_str() == name)
    }

    /// Whether nothing more will happen to the task.
    pub fn is_terminal(self) -> bool {
        !matches!(self, Self::Working | Self::InputRequired)
    }
}

/// Why a task ended on the client's side rather than with a terminal status from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalEnd {
    /// `createdAt + ttlMs` (plus grace) passed without a terminal status.
    TtlElapsed,
    /// The server answered -32602: it never knew the task, or expired or purged it.
    UnknownToServer {
        /// The server's message, for display only.
        message: String,
    },
}

/// The client's cancel intent. Cancel is cooperative: `completed` or `failed` may still follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CancelIntent {
    /// Not asked.
    #[default]
    None,
    /// Asked by the host; `tasks/cancel` not yet acknowledged.
    Requested,
    /// The server acknowledged `tasks/cancel` (received, not necessarily applied).
    Acknowledged,
}

/// Something the caller should do for this task now.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send `tasks/cancel`.
    SendCancel,
    /// Send `tasks/update` with these answers (persist the record first: they are the outbox).
    SendUpdate(InputResponses),
    /// Send `tasks/get`.
    Poll,
}

impl Action {
    /// The 2026-07-28 request that carries this action for task `task_id`.
    pub fn request(&self, task_id: String) -> crate::protocol::request::ClientRequest {
        use crate::protocol::request::ClientRequest;
        match self {
            Action::Poll => ClientRequest::GetTask { task_id },
            Action::SendUpdate(responses) => ClientRequest::UpdateTask { task_id, input_responses: responses.clone() },
            Action::SendCancel => ClientRequest::CancelTask { task_id },
        }
    }
}

/// What an event changed: nothing, only timing (no need to persist), or state a host can see (persist
/// and notify). Storage is written on `State`, not on every poll.
#[must_use = "persist and notify when the state changed"]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Nothing changed.
    Nothing,
    /// Only the schedule changed.
    Timing,
    /// Something a host can see changed.
    State,
}

/// Why a host request on a record was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// The task already ended; nothing can be sent for it.
    TaskEnded(LocalStatus),
    /// The answers were refused by the ledger.
    Input(LedgerError),
    /// An observation for another task was offered to this record.
    WrongTask {
        /// The task this record tracks.
        expected: String,
        /// The task the observation was about.
        found: String,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TaskEnded(s) => write!(f, "the task has already ended ({})", s.as_str()),
            Self::Input(e) => e.fmt(f),
            Self::WrongTask { expected, found } => {
                write!(f, "an update for task \"{found}\" was offered to task \"{expected}\"")
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// The last failed exchange, kept for display ("backing off: HTTP 503").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureNote {
    /// When it happened (Unix ms).
    pub(crate) at: u64,
    /// What happened.
    pub(crate) failure: Failure,
}

/// Requests in flight. Not persisted: after a reload, nothing is in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct InFlight {
    poll: bool,
    cancel: bool,
    /// A `subscriptions/listen` stream acknowledged this task: its changes are pushed, so no polls.
    pushed: bool,
}

/// One task handle and what the client knows about it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    task_id: String,
    /// The task design it was created under; every exchange for it follows that flow.
    protocol: TaskProtocol,
    tool_name: String,
    /// When the handle arrived (Unix ms, client clock).
    received_at: u64,
    /// The latest accepted observation, in wire form.
    last: DetailedTask,
    /// Whether `last` came from `tasks/get` or a notification (a bare handle carries no result/error).
    details_known: bool,
    end: Option<LocalEnd>,
    ledger: InputLedger,
    cancel: CancelIntent,
    poll: Retry,
    outbox_retry: Retry,
    cancel_retry: Retry,
    /// Time of the latest successful observation; no poll is scheduled before it + the server's interval.
    observed_at: u64,
    last_failure: Option<FailureNote>,
    jitter: Jitter,
    /// Until when (Unix ms) some step holds the right to send this record's queued answers and cancel.
    /// Written to the store before sending in step mode, so a step in another isolate that reads the
    /// record does not send them too; it runs out by itself if that step's isolate dies.
    send_lease_until: Option<u64>,
    /// Queued answers may already have reached the server (the page closed between sending them and
    /// storing the ack): poll first, and send only what the server still asks for. Not persisted.
    recheck_outbox: bool,
    in_flight: InFlight,
    /// `last.task.createdAt` in Unix ms, parsed once: every scheduling pass reads it for every record.
    /// Not stored.
    created_ms: Option<i64>,
    /// The `_meta.progressToken` of the 2025-11-25 `tools/call` that created the task: the server's
    /// `notifications/progress` name it for the task's whole life, after a reload too.
    progress_token: Option<String>,
    /// The latest `notifications/progress` of a live task: progress and total, as the server wrote
    /// them. Not stored (a write per notification would be too many): a reload shows none until the
    /// next one.
    progress: Option<(Number, Option<Number>)>,
    /// The `_meta.ui` of the tool whose call created the task (an MCP App: `resourceUri`, …), as the
    /// tool's listing or the call's `ui` option gave it.
    pub(crate) ui: Option<Value>,
}

impl TaskRecord {
    /// A record for a handle just returned by `tools/call`. `seed` feeds this record's jitter.
    pub fn from_handle(now: u64, tool_name: impl Into<String>, handle: Task, seed: u64, policy: &PollPolicy) -> Self {
        let mut poll = Retry::default();
        // A handle that is already terminal carries no result or error: fetch them at once.
        let interval = if handle.status.is_terminal() { 0 } else { policy.interval(handle.poll_interval_ms) };
        poll.succeeded(now, interval);
        Self {
            created_ms: timestamp::parse_millis(&handle.created_at),
            protocol: TaskProtocol::Extension,
            task_id: handle.task_id.clone(),
            tool_name: tool_name.into(),
            received_at: now,
            last: DetailedTask { task: handle, detail: StatusDetail::None },
            details_known: false,
            end: None,
            ledger: InputLedger::default(),
            cancel: CancelIntent::None,
            poll,
            outbox_retry: Retry::default(),
            cancel_retry: Retry::default(),
            observed_at: now,
            last_failure: None,
            jitter: Jitter(seed),
            send_lease_until: None,
            recheck_outbox: false,
            in_flight: InFlight::default(),
            progress_token: None,
            progress: None,
            ui: None,
        }
    }

    /// This record for a task created under `protocol`.
    pub fn with_protocol(mut self, protocol: TaskProtocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The task design the task was created under.
    pub fn protocol(&self) -> TaskProtocol {
        self.protocol
    }

    /// The tool's `_meta.ui`, if its listing or call named one.
    pub fn ui(&self) -> Option<&Value> {
        self.ui.as_ref()
    }

    /// The task's `tools/call` carried `token` as its `_meta.progressToken`.
    pub fn set_progress_token(&mut self, token: String) {
        self.progress_token = Some(token);
    }

    /// The progress token of the call that created the task, if it sent one.
    pub fn progress_token(&self) -> Option<&str> {
        self.progress_token.as_deref()
    }

    /// The latest progress of a live task (progress, total), if the server reported any.
    pub fn progress(&self) -> Option<(&Number, Option<&Number>)> {
        let (progress, total) = self.progress.as_ref()?;
        Some((progress, total.as_ref())).filter(|_| !self.is_settled())
    }

    /// A `notifications/progress` for this task: kept when the task is live and the progress went up
    /// (the spec has it increase with each notification, so an older one arriving late is ignored).
    /// Returns whether it changed what a host sees.
    pub fn on_progress(&mut self, progress: Number, total: Option<Number>) -> bool {
        let newer = self.progress.as_ref().is_none_or(|(before, _)| progress > *before);
        if self.is_settled() || !newer {
            return false;
        }
        self.progress = Some((progress, total));
        true
    }

    /// The server's task id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The tool whose call created the task.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// When the handle arrived (Unix ms).
    pub(crate) fn received_at(&self) -> u64 {
        self.received_at
    }

    /// The latest observation.
    pub fn last(&self) -> &DetailedTask {
        &self.last
    }

    /// Why the task ended locally, if it did.
    pub fn local_end(&self) -> Option<&LocalEnd> {
        self.end.as_ref()
    }

    /// The cancel intent.
    pub fn cancel_intent(&self) -> CancelIntent {
        self.cancel
    }

    /// The last failed exchange since the last success.
    pub fn last_failure(&self) -> Option<&FailureNote> {
        self.last_failure.as_ref()
    }

    /// Consecutive failed polls.
    pub fn consecutive_failures(&self) -> u32 {
        self.poll.failures
    }

    /// When the next poll is due (Unix ms), while the task is live.
    pub fn next_poll_at(&self) -> Option<u64> {
        (!self.is_settled()).then_some(self.poll.not_before)
    }

    /// The input ledger.
    pub fn ledger(&self) -> &InputLedger {
        &self.ledger
    }

    /// The status a host sees.
    pub fn status(&self) -> LocalStatus {
        if self.end.is_some() {
            return LocalStatus::Expired;
        }
        self.last.task.status.into()
    }

    /// Whether the task is over and its outcome known: nothing more will be sent for it.
    pub fn is_settled(&self) -> bool {
        self.end.is_some() || (self.last.task.status.is_terminal() && self.details_known)
    }

    /// The requests the user still has to answer (keys shown or answered before are left out).
    pub fn unanswered_requests(&self) -> InputRequests {
        let StatusDetail::InputRequests(all) = &self.last.detail else {
            return InputRequests::new();
        };
        let open = self.ledger.unanswered();
        let mut unanswered = InputRequests::new();
        for (k, v) in all.iter() {
            if open.contains(&k.as_str()) {
                unanswered.insert(k.clone(), v.clone());
            }
        }
        unanswered
    }

    /// When the client stops waiting for a live task: `createdAt + ttlMs + grace`. `None` for an
    /// unlimited TTL or an unreadable `createdAt`.
    pub fn expires_at(&self, policy: &PollPolicy) -> Option<u64> {
        Some(self.ttl_ends_at()?.saturating_add(policy.expiry_grace_ms))
    }

    /// Ends a live task whose TTL has run out. Call before [`TaskRecord::next_action`].
    pub fn tick(&mut self, now: u64, policy: &PollPolicy) -> Change {
        if self.is_settled() || self.last.task.status.is_terminal() {
            return Change::Nothing;
        }
        match self.expires_at(policy) {
            Some(deadline) if now >= deadline => {
                self.end = Some(LocalEnd::TtlElapsed);
                Change::State
            }
            _ => Change::Nothing,
        }
    }

    /// The next exchange to start now, if any; marks it in flight. Cancels go first, then answers, then
    /// polls. Nothing is started for a settled task.
    pub fn next_action(&mut self, now: u64) -> Option<Action> {
        if self.is_settled() {
            return None;
        }
        let leased = self.send_lease_until.is_some_and(|until| now < until);
        if self.cancel == CancelIntent::Requested
            && !self.in_flight.cancel
            && !leased
            && now >= self.cancel_retry.not_before
        {
            self.in_flight.cancel = true;
            return Some(Action::SendCancel);
        }
        if self.ledger.has_unsent() && !leased && !self.recheck_outbox && now >= self.outbox_retry.not_before {
            return Some(Action::SendUpdate(self.ledger.take_outbox()));
        }
        if !self.in_flight.poll && now >= self.poll.not_before {
            self.in_flight.poll = true;
            return Some(Action::Poll);
        }
        None
    }

    /// A poll of this task is already out (sent at open before its record was read): no other is
    /// started until its answer comes back through [`Self::on_poll_result`] or a poll failure.
    pub fn mark_poll_in_flight(&mut self) {
        self.in_flight.poll = true;
    }

    /// Marks the task as covered (or no longer covered) by a listen stream. A covered task is polled
    /// only as a backstop (see [`TaskRecord::pushed_poll_at`]); when coverage ends (the stream dropped)
    /// the next poll is due at once, to catch up on whatever was missed in the gap, but never sooner
    /// than the server's interval, nor before a backoff the server asked for.
    pub fn set_pushed(&mut self, now: u64, pushed: bool, policy: &PollPolicy) {
        if self.in_flight.pushed == pushed || self.is_settled() {
            self.in_flight.pushed = pushed;
            return;
        }
        self.in_flight.pushed = pushed;
        if pushed {
            self.poll.not_before = self.poll.not_before.max(self.pushed_poll_at(policy));
        } else if self.poll.failures > 0 {
            self.poll.not_before = self.poll.not_before.max(now);
        } else {
            let floor = self.observed_at.saturating_add(policy.interval(self.last.task.poll_interval_ms));
            self.poll.not_before = now.max(floor);
        }
    }

    /// When a covered task is polled next: a slow backstop after the latest observation, so a task the
    /// server dropped without a word is still found; and once when its TTL runs out (the server ends
    /// it silently then), unless it was observed after that.
    fn pushed_poll_at(&self, policy: &PollPolicy) -> u64 {
        let spacing = policy.pushed_backstop_ms.max(policy.interval(self.last.task.poll_interval_ms));
        let backstop = self.observed_at.saturating_add(spacing);
        match self.ttl_ends_at() {
            Some(end) if end > self.observed_at => backstop.min(end),
            _ => backstop,
        }
    }

    /// `createdAt + ttlMs` in Unix ms, without the client's grace.
    fn ttl_ends_at(&self) -> Option<u64> {
        let created = self.created_ms?;
        let ttl = i64::try_from(self.last.task.ttl_ms?).ok()?;
        u64::try_from(created.saturating_add(ttl)).ok()
    }

    /// Whether a listen stream covers the task.
    pub fn is_pushed(&self) -> bool {
        self.in_flight.pushed
    }

    /// The earliest time something is due, for a single timer: poll, answer retry, cancel retry or TTL end.
    pub fn next_wakeup(&self, policy: &PollPolicy) -> Option<u64> {
        if self.is_settled() {
            return None;
        }
        let mut next: Option<u64> = None;
        let mut consider = |at: u64| next = Some(next.map_or(at, |n| n.min(at)));
        if !self.in_flight.poll {
            consider(self.poll.not_before);
        }
        // Another step's lease on the sends delays them until it runs out.
        let lease = self.send_lease_until.unwrap_or(0);
        if self.ledger.has_unsent() {
            consider(self.outbox_retry.not_before.max(lease));
        }
        if self.cancel == CancelIntent::Requested && !self.in_flight.cancel {
            consider(self.cancel_retry.not_before.max(lease));
        }
        if !self.last.task.status.is_terminal() {
            if let Some(at) = self.expires_at(policy) {
                consider(at);
            }
        }
        next
    }

    /// A `tasks/get` result arrived.
    pub fn on_poll_result(
        &mut self,
        now: u64,
        observed: DetailedTask,
        policy: &PollPolicy,
    ) -> Result<Change, RecordError> {
        self.in_flight.poll = false;
        let change = self.observe(now, observed, policy);
        self.reschedule_if_pushed(policy);
        change
    }

    /// A `notifications/tasks` arrived: handled like a poll result, and it postpones the next poll.
    pub fn on_notification(
        &mut self,
        now: u64,
        observed: DetailedTask,
        policy: &PollPolicy,
    ) -> Result<Change, RecordError> {
        let change = self.observe(now, observed, policy);
        self.reschedule_if_pushed(policy);
        change
    }

    /// After an observation of a covered task: the next poll is the backstop, not the interval.
    fn reschedule_if_pushed(&mut self, policy: &PollPolicy) {
        if self.in_flight.pushed && self.poll.failures == 0 {
            self.poll.not_before = self.pushed_poll_at(policy);
        }
    }

    fn observe(&mut self, now: u64, observed: DetailedTask, policy: &PollPolicy) -> Result<Change, RecordError> {
        if observed.task.task_id != self.task_id {
            return Err(RecordError::WrongTask { expected: self.task_id.clone(), found: observed.task.task_id });
        }
        if self.is_settled() {
            return Ok(Change::Nothing);
        }
        // A stale observation still proves the server reachable, but its interval is older advice
        // than the one we hold.
        let stale = self.is_stale(&observed);
        let advice = if stale { self.last.task.poll_interval_ms } else { observed.task.poll_interval_ms };
        self.observed_at = now;
        self.poll.succeeded(now, policy.interval(advice));
        let recovered = self.last_failure.take().is_some();
        let base = if recovered { Change::State } else { Change::Timing };
        if stale {
            return Ok(base);
        }
        let requests = match &observed.detail {
            StatusDetail::InputRequests(r) if observed.task.status == TaskStatus::InputRequired => Some(r),
            _ => None,
        };
        let mut ledger_changed = self.ledger.observe(requests);
        if std::mem::take(&mut self.recheck_outbox) {
            ledger_changed |= self.ledger.confirm_unasked(requests);
        }
        let changed = ledger_changed || !self.details_known || observed != self.last;
        self.created_ms = timestamp::parse_millis(&observed.task.created_at);
        self.last = observed;
        self.details_known = true;
        Ok(if changed { Change::State } else { base })
    }

    /// Whether an observation is older than what we hold, or would move a finished task back to live.
    /// Whether `observed` is older than what the record holds (an answer and a notification that
    /// crossed). An end is never stale: terminal states are final, so a task that ended cannot have
    /// been overtaken, and ignoring one for its timestamp (a server whose handle and `tasks/get`
    /// disagree by a millisecond, a clock that stepped back) would poll a finished task forever.
    fn is_stale(&self, observed: &DetailedTask) -> bool {
        if observed.task.status.is_terminal() {
            return false;
        }
        if self.last.task.status.is_terminal() {
            return true;
        }
        let current = timestamp::parse_millis(&self.last.task.last_updated_at);
        let incoming = timestamp::parse_millis(&observed.task.last_updated_at);
        matches!((current, incoming), (Some(c), Some(i)) if i < c)
    }

    /// A `tasks/get` failed without ending the task: back off.
    pub fn on_poll_failure(&mut self, now: u64, failure: Failure, policy: &PollPolicy) -> Change {
        self.in_flight.poll = false;
        if self.is_settled() {
            return Change::Nothing;
        }
        self.poll.failed(now, &failure, policy, self.last.task.poll_interval_ms, &mut self.jitter);
        self.note_failure(now, failure)
    }

    /// Keeps the failure with its time. A repeat of the last one changes only the schedule, unless it
    /// asked for a delay: its time is when that delay ends, which every other tab, page and step reads
    /// from the stored record, so it is stored again.
    fn note_failure(&mut self, now: u64, failure: Failure) -> Change {
        let first = self.last_failure.as_ref().is_none_or(|n| n.failure != failure);
        let delayed = matches!(failure, Failure::Http { retry_after_ms: Some(_), .. });
        self.last_failure = Some(FailureNote { at: now, failure });
        if first || delayed {
            Change::State
        } else {
            Change::Timing
        }
    }

    /// The server answered -32602 to a `tasks/*` request: it does not know the task (any more).
    pub fn on_task_unknown(&mut self, message: impl Into<String>) -> Change {
        self.in_flight = InFlight { pushed: self.in_flight.pushed, ..InFlight::default() };
        self.ledger.send_failed();
        if self.is_settled() {
            return Change::Nothing;
        }
        self.end = Some(LocalEnd::UnknownToServer { message: message.into() });
        Change::State
    }

    /// The user's answers, queued to be sent with `tasks/update` (persist before sending).
    pub fn answer(&mut self, answers: InputResponses) -> Result<Change, RecordError> {
        if self.is_settled() || self.last.task.status.is_terminal() {
            return Err(RecordError::TaskEnded(self.status()));
        }
        self.ledger.queue(answers).map_err(RecordError::Input)?;
        Ok(Change::State)
    }

    /// Takes the lease on sending this record's answers and cancel until `until` (step mode: written to
    /// the store, compared on write, before the sends start). While another holder's lease runs,
    /// [`TaskRecord::next_action`] offers no sends.
    pub fn take_send_lease(&mut self, until: u64) {
        self.send_lease_until = Some(until);
    }

    /// For a record read back from the store by a new page or tab: its queued answers may have been
    /// sent by the page that wrote it, so the next poll (at its usual time: the server's floor holds)
    /// comes first, and only the keys the server still asks are sent after it.
    pub fn recheck_outbox_first(&mut self) {
        if self.ledger.has_unsent() && !self.is_settled() {
            self.recheck_outbox = true;
        }
    }

    /// Puts back the exchanges [`TaskRecord::next_action`] handed out but that will not be sent (step
    /// mode could not store its lease): nothing in flight, queued answers queued again, no lease.
    pub fn abandon_actions(&mut self) {
        self.in_flight = InFlight { pushed: self.in_flight.pushed, ..InFlight::default() };
        self.ledger.send_failed();
        self.send_lease_until = None;
    }

    /// Until when a send lease holds, if one was taken.
    pub fn send_lease_until(&self) -> Option<u64> {
        self.send_lease_until
    }

    /// A `tasks/update` carrying `responses` was acknowledged — by this copy of the record or, in step
    /// mode, by a copy another isolate sent from (so the keys are named, not taken from in-flight state).
    /// Keep polling: the ack means received, not applied.
    pub fn on_update_ack_of(&mut self, responses: &InputResponses) -> Change {
        self.send_lease_until = None;
        self.ledger.acknowledge(responses.keys());
        self.outbox_retry = Retry::default();
        Change::State
    }

    /// The in-flight `tasks/update` failed; the answers stay queued and are re-sent after a backoff.
    pub fn on_update_failure(&mut self, now: u64, failure: Failure, policy: &PollPolicy) -> Change {
        self.send_lease_until = None;
        self.ledger.send_failed();
        self.outbox_retry.failed(now, &failure, policy, None, &mut self.jitter);
        self.note_failure(now, failure)
    }

    /// The host asked to cancel. Idempotent; refused for a task that already ended.
    pub fn request_cancel(&mut self) -> Result<Change, RecordError> {
        if self.is_settled() || self.last.task.status.is_terminal() {
            return Err(RecordError::TaskEnded(self.status()));
        }
        if self.cancel != CancelIntent::None {
            return Ok(Change::Nothing);
        }
        self.cancel = CancelIntent::Requested;
        Ok(Change::State)
    }

    /// `tasks/cancel` was acknowledged. Polling goes on: the task may still end `completed` or `failed`.
    pub fn on_cancel_ack(&mut self) -> Change {
        self.send_lease_until = None;
        self.in_flight.cancel = false;
        self.cancel = CancelIntent::Acknowledged;
        Change::State
    }

    /// `tasks/cancel` failed; it is retried after a backoff.
    pub fn on_cancel_failure(&mut self, now: u64, failure: Failure, policy: &PollPolicy) -> Change {
        self.send_lease_until = None;
        self.in_flight.cancel = false;
        self.cancel_retry.failed(now, &failure, policy, None, &mut self.jitter);
        self.note_failure(now, failure)
    }

    /// The network came back (`online`, a new interface): retry at once what was backing off, but never
    /// sooner than the server's interval after the last observation (a covered task: its backstop).
    pub fn on_network_restored(&mut self, now: u64, policy: &PollPolicy) -> Change {
        if self.is_settled() {
            return Change::Nothing;
        }
        // A covered task's failed poll was its backstop (or TTL) poll: that time, not the interval.
        let floor = if self.in_flight.pushed {
            self.pushed_poll_at(policy)
        } else {
            self.observed_at.saturating_add(policy.interval(self.last.task.poll_interval_ms))
        };
        let mut change = Change::Nothing;
        if self.poll.failures > 0 {
            self.poll.failures = 0;
            self.poll.not_before = now.max(floor);
            change = Change::Timing;
        }
        for retry in [&mut self.outbox_retry, &mut self.cancel_retry] {
            if retry.failures > 0 {
                *retry = Retry { failures: 0, not_before: now };
                change = Change::Timing;
            }
        }
        change
    }
}
