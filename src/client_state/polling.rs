//! What to send when: the request slots of a polling client and the backlog of due work waiting for
//! one, the pass that finds what is due, what an answer does to its record, the next wake-up, and the
//! same rules for one `step()` of an edge worker.
use crate::json::{json, Value};
use crate::machine::backoff::Failure;
use crate::machine::record::{Action, Change, LocalStatus, TaskRecord};
use crate::protocol::task::DetailedTask;
use crate::protocol::task_protocol::TaskProtocol;

use super::{ClientState, Effect};

/// Request slots in use, and the ids the last pass found due but had no slot for (next last).
#[derive(Debug, Default)]
pub(super) struct Slots {
    pub(super) in_flight: usize,
    pub(super) backlog: Vec<String>,
}

/// How an exchange ended, as the state needs to know it (the driver reads it off the transport).
#[derive(Debug, Clone, PartialEq)]
pub enum ExchangeOutcome {
    /// The server answered: with a task (`tasks/get`), or with something else (an ack).
    Answered(Option<Box<DetailedTask>>),
    /// The server does not know the task (`-32602`), with its message.
    UnknownTask(String),
    /// The exchange failed without ending the task.
    Failed(Failure),
}

/// Applies the outcome of `action` to a record. A plain function, so step mode can apply it again to
/// a record another isolate wrote in the meantime.
pub fn apply_outcome(
    record: &mut TaskRecord,
    now: u64,
    action: &Action,
    outcome: &ExchangeOutcome,
    policy: &crate::machine::backoff::PollPolicy,
) -> Change {
    match (action, outcome) {
        (_, ExchangeOutcome::UnknownTask(message)) => record.on_task_unknown(message.clone()),
        (Action::Poll, ExchangeOutcome::Answered(Some(task))) => {
            record.on_poll_result(now, (**task).clone(), policy).unwrap_or(Change::Nothing)
        }
        (Action::Poll, ExchangeOutcome::Answered(None)) => record.on_poll_failure(now, Failure::BadResponse, policy),
        (Action::Poll, ExchangeOutcome::Failed(failure)) => record.on_poll_failure(now, failure.clone(), policy),
        (Action::SendUpdate(responses), ExchangeOutcome::Answered(_)) => record.on_update_ack_of(responses),
        (Action::SendUpdate(_), ExchangeOutcome::Failed(failure)) => {
            record.on_update_failure(now, failure.clone(), policy)
        }
        (Action::SendCancel, ExchangeOutcome::Answered(_)) => record.on_cancel_ack(),
        (Action::SendCancel, ExchangeOutcome::Failed(failure)) => {
            record.on_cancel_failure(now, failure.clone(), policy)
        }
    }
}

/// What one step did and when the next is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepReport {
    /// The earliest time (Unix ms) something is due; `None` when no task is live.
    pub next_wake_at: Option<u64>,
    /// Tasks still running or waiting for input.
    pub live: usize,
    /// Tasks that ended (completed, failed, cancelled, expired).
    pub settled: usize,
    /// `tasks/get` requests this step sent.
    pub polled: usize,
    /// `tasks/update` and `tasks/cancel` requests this step sent.
    pub sent: usize,
}

impl StepReport {
    /// As the JS API returns it.
    pub fn to_json(&self) -> Value {
        json!({
            "nextWakeAt": self.next_wake_at,
            "live": self.live,
            "settled": self.settled,
            "polled": self.polled,
            "sent": self.sent,
        })
    }
}

impl ClientState {
    fn polls_now(&self) -> bool {
        self.config.auto_poll && !self.closed
    }

    fn sends_now(&self) -> bool {
        self.polls_now() && !self.offline && self.leader
    }

    /// Whether requests may start at `now`: [`Self::sends_now`], and the server asked for no pause.
    fn sends_at(&self, now: u64) -> bool {
        self.sends_now() && !self.is_paused(now)
    }

    /// One pass: ends tasks past their TTL, starts what is due in the free request slots (earliest due
    /// first once the slots run out), and keeps the listen stream in step with the live tasks. Only a
    /// self-driven client passes; step mode uses [`Self::step_due`].
    pub fn poll_due(&mut self, now: u64) {
        if !self.polls_now() {
            return;
        }
        let online = self.sends_at(now);
        let room = self.window.size().saturating_sub(self.slots.in_flight);
        let policy = self.config.policy;
        let mut expired = Vec::new();
        let mut actions = Vec::new();
        let mut backlog = Vec::new();
        let mut legacy_live = false;
        // One pass, with only cheap checks for a record that has nothing due (a pass over 10,000 records
        // is most of what an answer costs when nothing waits).
        for (id, record) in self.records.iter_mut() {
            if record.tick(now, &policy) == Change::State {
                // A live task ran past its TTL: it ended.
                self.attention.observed(id, LocalStatus::Working, LocalStatus::Expired);
                expired.push(id.clone());
            }
            legacy_live |= record.protocol() == TaskProtocol::Legacy && !record.is_settled();
            while online && actions.len() < room {
                let Some(action) = record.next_action(now) else { break };
                actions.push((id.clone(), action));
            }
            if online && actions.len() >= room {
                if let Some(at) = record.next_wakeup(&policy).filter(|&at| at <= now) {
                    backlog.push((at, id.clone()));
                }
            }
        }
        // What waits for a slot goes earliest due first, then by id (the sort is stable; the list is
        // popped from its end): after a reload, a handle not yet polled goes before one polled a moment
        // ago and due again.
        let order = crate::collections::sorted_order(backlog.len(), &mut |a, b| backlog[a].0 < backlog[b].0);
        let mut sorted = Vec::with_capacity(order.len());
        for &i in order.iter().rev() {
            sorted.push(std::mem::take(&mut backlog[i].1));
        }
        self.slots.backlog = sorted;
        for id in expired {
            self.push(Effect::Store(id));
        }
        for (id, action) in actions {
            self.start(id, action);
        }
        if self.sends_now() {
            self.ensure_listening(now);
            self.tend_session_stream(now, legacy_live);
        }
        self.push(Effect::Rearm);
    }

    fn start(&mut self, id: String, action: Action) {
        self.slots.in_flight += 1;
        self.push(Effect::Send { id, action, slot: true });
    }

    /// An exchange ended. Applies its outcome to the record (if it is still here), frees its slot and
    /// hands it to work the last pass left waiting — with no pass over every record (a reload with
    /// 10,000 handles due would otherwise pay one per answer); a full pass runs once nothing waits.
    /// Returns the record's change: the caller stores it (and, for `State`, announces it).
    pub fn on_exchange_done(
        &mut self,
        now: u64,
        id: &str,
        action: &Action,
        outcome: &ExchangeOutcome,
        slot: bool,
    ) -> Change {
        if slot {
            self.window.on_answer(outcome, self.slots.in_flight, self.config.max_in_flight);
            self.slots.in_flight = self.slots.in_flight.saturating_sub(1);
        }
        let policy = self.config.policy;
        if let ExchangeOutcome::Failed(failure) = outcome {
            self.pause.note(now, failure);
        }
        let change = match self.records.get_mut(id) {
            Some(record) => {
                let before = record.status();
                let change = apply_outcome(record, now, action, outcome, &policy);
                self.attention.observed(id, before, record.status());
                change
            }
            None => Change::Nothing,
        };
        if slot {
            self.start_waiting(now);
        }
        change
    }

    /// A freed slot goes to the backlog; a full pass once the backlog is empty.
    fn start_waiting(&mut self, now: u64) {
        if !self.sends_at(now) {
            return self.poll_due(now);
        }
        while self.slots.in_flight < self.window.size() {
            let Some(id) = self.slots.backlog.pop() else {
                return self.poll_due(now);
            };
            if let Some(action) = self.records.get_mut(&id).and_then(|r| r.next_action(now)) {
                self.start(id, action);
            }
        }
    }

    /// When the driver should call [`Self::poll_due`] next; `None` when nothing is scheduled (or this
    /// client does not poll). With every slot taken, what is already due waits for an answer instead.
    pub fn next_wakeup(&self, now: u64) -> Option<u64> {
        if !self.polls_now() || !self.leader {
            return None;
        }
        let policy = &self.config.policy;
        let next = self.records.values().filter_map(|r| r.next_wakeup(policy)).min();
        let saturated = self.slots.in_flight >= self.window.size();
        let records = next.filter(|&at| !(saturated && at <= now)).map(|at| at.max(self.pause.until()));
        let listen = if self.sends_now() { self.listen_wakeup() } else { None };
        match (records, listen) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Step mode: ends tasks past their TTL and hands out everything due now (no slots: the driver runs
    /// them in bounded batches). Returns the expired ids and the exchanges to run.
    pub fn step_due(&mut self, now: u64) -> (Vec<String>, Vec<(String, Action)>) {
        let policy = self.config.policy;
        let offline = self.offline;
        let mut expired = Vec::new();
        let mut actions = Vec::new();
        for (id, record) in self.records.iter_mut() {
            if record.tick(now, &policy) == Change::State {
                expired.push(id.clone());
            }
            if offline {
                continue;
            }
            while let Some(action) = record.next_action(now) {
                actions.push((id.clone(), action));
            }
        }
        (expired, actions)
    }

    /// Step mode: the lease on sending task `id`'s answers and cancel, until `until`.
    pub fn take_send_lease(&mut self, id: &str, until: u64) {
        if let Some(record) = self.records.get_mut(id) {
            record.take_send_lease(until);
        }
    }

    /// Step mode: the lease could not be stored; what was handed out for `id` is not sent this step.
    pub fn abandon_actions(&mut self, id: &str) {
        if let Some(record) = self.records.get_mut(id) {
            record.abandon_actions();
        }
    }

    /// Step mode: what the step did and when the next is due ("due since long ago" reads as now).
    pub fn step_report(&self, now: u64, polled: usize, sent: usize) -> StepReport {
        let policy = &self.config.policy;
        let live = self.records.values().filter(|r| !r.is_settled()).count();
        StepReport {
            next_wake_at: self.records.values().filter_map(|r| r.next_wakeup(policy)).min().map(|t| t.max(now)),
            live,
            settled: self.records.len() - live,
            polled,
            sent,
        }
    }

    /// Applies `event` to task `id`'s record (step mode re-applies a tick to a record read anew).
    pub fn with_record(
        &mut self,
        id: &str,
        event: impl FnOnce(&mut TaskRecord, &crate::machine::backoff::PollPolicy) -> Change,
    ) -> Change {
        let policy = self.config.policy;
        self.records.get_mut(id).map_or(Change::Nothing, |r| event(r, &policy))
    }
}
