//! What to send when: the request slots of a polling client, the pass that takes what is due off the
//! wake-up queue (`records.rs`), what an answer does to its record, the next wake-up, and the same
//! rules for one `step()` of an edge worker.
use crate::json::{json, Value};
use crate::machine::backoff::Failure;
use crate::machine::record::{Action, Change, LocalStatus, TaskRecord};
use crate::protocol::task::DetailedTask;

use super::{ClientState, Effect};

/// Request slots in use. What is due and waits for a slot stays in the records' wake-up queue, whose
/// order (earliest due first, then by id) decides who gets the next free slot.
#[derive(Debug, Default)]
pub(super) struct Slots {
    pub(super) in_flight: usize,
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

    /// One pass: ends tasks past their TTL, starts what is due in the free request slots, and keeps the
    /// listen and session streams in step with the live tasks. Its work is what is due, not every
    /// record: both come off queues by time. Only a self-driven client passes; step mode uses
    /// [`Self::step_due`].
    pub fn poll_due(&mut self, now: u64) {
        if !self.polls_now() {
            return;
        }
        let expired = self.end_expired(now);
        let actions = if self.sends_at(now) { self.take_due(now) } else { Vec::new() };
        for id in expired {
            self.push(Effect::Store(id));
        }
        for (id, action) in actions {
            self.start(id, action);
        }
        if self.sends_now() {
            self.ensure_listening(now);
            self.tend_session_stream(now, self.records.legacy_live() > 0);
        }
        self.push(Effect::Rearm);
    }

    /// Ends the live tasks whose TTL ran out by `now`; returns their ids, to be stored.
    fn end_expired(&mut self, now: u64) -> Vec<String> {
        let mut expired = Vec::new();
        while let Some(id) = self.records.pop_expired(now) {
            if self.records.update(&id, |r, policy| r.tick(now, policy)) == Some(Change::State) {
                self.attention.observed(&id, LocalStatus::Working, LocalStatus::Expired);
                expired.push(String::from(&*id));
            }
        }
        expired
    }

    /// Takes what is due off the wake-up queue while request slots are free: earliest due first, then
    /// by id, so after a reload a handle not yet polled goes before one polled a moment ago and due
    /// again. What finds no slot stays queued for the next answer to take.
    fn take_due(&mut self, now: u64) -> Vec<(String, Action)> {
        let room = self.window.size().saturating_sub(self.slots.in_flight);
        let mut actions = Vec::new();
        let mut taken = Vec::new();
        while actions.len() < room {
            let Some(id) = self.records.pop_due(now) else { break };
            self.records.update_taken(&id, |record, _| {
                while actions.len() < room {
                    let Some(action) = record.next_action(now) else { break };
                    actions.push((String::from(&*id), action));
                }
            });
            taken.push(id);
        }
        for id in taken {
            self.records.requeue(&id);
        }
        actions
    }

    fn start(&mut self, id: String, action: Action) {
        self.slots.in_flight += 1;
        self.push(Effect::Send { id, action, slot: true });
    }

    /// An exchange ended. Applies its outcome to the record (if it is still here), frees its slot and
    /// hands it to what is due next. Returns the record's change: the caller stores it (and, for
    /// `State`, announces it).
    pub fn on_exchange_done(
        &mut self,
        now: u64,
        id: &str,
        action: &Action,
        outcome: &ExchangeOutcome,
        slot: bool,
    ) -> Change {
        if !slot && self.hold_early_answer(now, id, outcome) {
            return Change::Nothing;
        }
        if slot {
            self.window.on_answer(outcome, self.slots.in_flight, self.config.max_in_flight);
            self.slots.in_flight = self.slots.in_flight.saturating_sub(1);
        }
        if let ExchangeOutcome::Failed(failure) = outcome {
            self.pause.note(now, failure);
        }
        let attention = &mut self.attention;
        let change = self.records.update(id, |record, policy| {
            let before = record.status();
            let change = apply_outcome(record, now, action, outcome, policy);
            attention.observed(id, before, record.status());
            change
        });
        if slot {
            self.start_waiting(now);
        } else {
            // An early poll answered after its record was read: no slot to hand on, but the record's
            // next poll moved, and the timer must follow it.
            self.poll_due(now);
        }
        change.unwrap_or(Change::Nothing)
    }

    /// A freed slot goes to what is due; a whole pass (TTL ends, streams, the timer) once nothing due
    /// is left waiting. During a reload with 10,000 handles due, an answer so costs one queue entry.
    fn start_waiting(&mut self, now: u64) {
        if !self.sends_at(now) {
            return self.poll_due(now);
        }
        for (id, action) in self.take_due(now) {
            self.start(id, action);
        }
        if self.slots.in_flight < self.window.size() {
            self.poll_due(now);
        }
    }

    /// When the driver should call [`Self::poll_due`] next; `None` when nothing is scheduled (or this
    /// client does not poll). With every slot taken, what is already due waits for an answer instead.
    pub fn next_wakeup(&self, now: u64) -> Option<u64> {
        if !self.polls_now() || !self.leader {
            return None;
        }
        // Offline, a due poll waits for the `online` event: a timer for it would fire again at once,
        // pass after pass, until the network came back.
        let next = if self.offline { self.records.next_expiry() } else { self.records.next_wakeup() };
        let saturated = self.slots.in_flight >= self.window.size();
        let records = next.filter(|&at| !(saturated && at <= now)).map(|at| at.max(self.pause.until()));
        let listen = if self.sends_now() { self.listen_wakeup() } else { None };
        match (records, listen) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Step mode: ends tasks past their TTL and hands out everything due now (no slots: the driver runs
    /// them in bounded batches), nothing while the server's pause runs. Returns the expired ids and the
    /// exchanges to run.
    pub fn step_due(&mut self, now: u64) -> (Vec<String>, Vec<(String, Action)>) {
        let hold = self.offline || self.is_paused(now);
        let mut expired = Vec::new();
        let mut actions = Vec::new();
        self.records.update_all(|id, record, policy| {
            let ended = record.tick(now, policy) == Change::State;
            if ended {
                expired.push(id.to_owned());
            }
            let before = actions.len();
            if !hold {
                while let Some(action) = record.next_action(now) {
                    actions.push((id.to_owned(), action));
                }
            }
            ended || actions.len() > before
        });
        (expired, actions)
    }

    /// Step mode: the lease on sending task `id`'s answers and cancel, until `until`.
    pub fn take_send_lease(&mut self, id: &str, until: u64) {
        self.records.update(id, |record, _| record.take_send_lease(until));
    }

    /// Step mode: the lease could not be stored, or the server's `Retry-After` holds the rest of the
    /// step back; what was handed out for `id` is not sent this step.
    pub fn abandon_actions(&mut self, id: &str) {
        self.records.update(id, |record, _| record.abandon_actions());
    }

    /// Step mode: what the step did and when the next is due ("due since long ago" reads as now, and
    /// nothing is due before the server's pause ends).
    pub fn step_report(&self, now: u64, polled: usize, sent: usize) -> StepReport {
        let live = self.records.live();
        StepReport {
            next_wake_at: self.records.next_wakeup().map(|t| t.max(now.max(self.pause.until()))),
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
        self.records.update(id, |r, policy| event(r, policy)).unwrap_or(Change::Nothing)
    }
}
