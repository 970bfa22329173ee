//! Step mode in the door (`autoPoll: false`, for edge workers that lose their isolate when idle): a
//! step re-reads the store, claims the sends it will make with a lease stored before they go, runs
//! what is due in batches, and writes every change compared against the version this client last
//! saw, re-applying it to another writer's newer copy. The same order of work as the retired Rust
//! driver's, as events and effects.
//!
//! Its events (`step`, `put_if`, `got`) and effects (`get`, `put_if`) exist only in the full door:
//! the first door refuses `autoPoll: false`, so there `stepping()` is false and the rest is unreachable.
#![cfg_attr(not(feature = "legacy"), allow(dead_code, unused_imports))]
use crate::client_state::{apply_outcome, plan_step, ExchangeOutcome, Written, STEP_PARALLELISM};
use crate::error::ClientError;
use crate::json::{json, Value};
use crate::machine::record::{Action, Change, TaskRecord};
use crate::protocol::input::InputResponses;

use super::{pairs, Asker, Door, Effect};

/// Tries at a compared write before another writer's copy is left to stand.
const MAX_WRITE_ATTEMPTS: usize = 4;

/// What re-applies a change to a record another writer stored first.
pub(super) enum Replay {
    /// Nothing to re-apply: their copy stands.
    Nothing,
    /// The clock's effect at this time (an expiry).
    Tick(u64),
    /// An exchange's outcome.
    Outcome { at: u64, action: Action, outcome: ExchangeOutcome },
    /// A host's answers.
    Answer(InputResponses),
    /// A host's cancel.
    Cancel,
}

impl Replay {
    fn apply(&self, door: &mut Door, id: &str) -> Change {
        match self {
            Replay::Nothing => Change::Nothing,
            Replay::Tick(at) => door.state.with_record(id, |record, policy| record.tick(*at, policy)),
            Replay::Outcome { at, action, outcome } => {
                door.state.with_record(id, |record, policy| apply_outcome(record, *at, action, outcome, policy))
            }
            Replay::Answer(responses) => door.state.answer(id, responses.clone()).unwrap_or(Change::Nothing),
            Replay::Cancel => door
                .state
                .with_record(id, |record: &mut TaskRecord, _| record.request_cancel().unwrap_or(Change::Nothing)),
        }
    }
}

/// What follows a write.
pub(super) enum Then {
    /// The host and the other tabs hear of the change.
    Announce,
    /// Timing only: nothing to tell.
    Quiet,
    /// A step's claim on its sends: only a stored lease lets them go.
    Lease,
    /// A host call (or a forwarded request) settles: `tool` names the tool whose call made the task.
    Settle { asker: Asker, tool: Option<String> },
}

/// A compared write, or a read before a host's change (`refresh`), in the store's hands.
pub(super) struct Versioned {
    id: String,
    replay: Replay,
    then: Then,
    attempts: usize,
    /// The text being written (the record's version once stored).
    text: String,
    /// The step it is part of (the step's host call).
    in_step: Option<u64>,
    /// A read before a host's change: the change waits in `then` and `replay`.
    refresh: bool,
}

/// A step running now (several may: each claims its own sends).
pub(super) struct StepRun {
    /// The actions still to run, sends first.
    actions: Vec<(String, Action)>,
    /// Requests and writes of the current phase not done yet.
    outstanding: usize,
    /// The leases are stored: the actions run.
    running: bool,
    polled: usize,
    sent: usize,
}

impl Door {
    /// Whether this client is in step mode (`autoPoll: false`). Never in the first door
    /// (`DoorOptions` refuses it there), which leaves the mode's code out of that build.
    pub(super) fn stepping(&self) -> bool {
        cfg!(feature = "legacy") && !self.state.config().auto_poll
    }

    #[cfg(feature = "legacy")]
    /// `step()`: `sizes` and `body` are what the driver listed from the store (`pairs`; `sizes` null:
    /// the store failed, and the records held stand).
    pub(super) fn step(&mut self, now: u64, sizes: Option<super::List<'_>>, body: &[u8], x: u64) {
        if !self.stepping() {
            let message = "step() drives a client opened with autoPoll: false; this client polls by itself";
            return self.done(x, Err(ClientError::usage(message)));
        }
        if self.state.is_closed() {
            return self.done(x, Err(ClientError::usage("step() on a closed client")));
        }
        if let Some(sizes) = sizes {
            let entries = pairs(sizes, body);
            self.read_link(now, &entries);
            self.state.sync_from_store(&entries);
        }
        let (expired, mut actions) = self.state.step_due(now);
        // Claim the sends: only the step whose leased record reaches the store first sends them, and
        // the claim lasts until the last send is done however slow the server.
        let lease_until = plan_step(&mut actions, now, self.request_timeout_ms);
        let mut senders: Vec<String> = Vec::new();
        for (id, action) in &actions {
            if !matches!(action, Action::Poll) && !senders.contains(id) {
                senders.push(id.clone());
            }
        }
        self.steps.insert(x, StepRun { actions, outstanding: 0, running: false, polled: 0, sent: 0 });
        for id in expired {
            self.write_versioned(&id, Replay::Tick(now), Then::Announce, Some(x));
        }
        for id in senders {
            self.state.take_send_lease(&id, lease_until);
            self.write_versioned(&id, Replay::Nothing, Then::Lease, Some(x));
        }
    }

    /// Moves the steps on whose phase is done (after every event): leases stored, then each batch
    /// answered and written, then the report.
    pub(super) fn steps_advance(&mut self, now: u64) {
        if !self.stepping() {
            return;
        }
        let idle: Vec<u64> = self.steps.0.iter().filter(|(_, step)| step.outstanding == 0).map(|(x, _)| *x).collect();
        for x in idle {
            self.step_advance(now, x);
        }
    }

    fn step_advance(&mut self, now: u64, x: u64) {
        let Some(step) = self.steps.get_mut(x) else { return };
        if !step.running {
            step.running = true;
            step.polled = step.actions.iter().filter(|(_, a)| matches!(a, Action::Poll)).count();
            step.sent = step.actions.len() - step.polled;
        }
        // A `Retry-After` met by an earlier batch holds the rest back: handed back, due for a later step.
        let room = if self.state.is_paused(now) { 0 } else { STEP_PARALLELISM };
        let batch: Vec<(String, Action)> = step.actions.drain(..step.actions.len().min(room)).collect();
        if batch.is_empty() {
            for (id, _) in &step.actions {
                self.state.abandon_actions(id);
            }
            let (polled, sent) = (step.polled, step.sent);
            self.steps.remove(x);
            let report = self.state.step_report(now, polled, sent).to_json();
            return self.done(x, Ok(report));
        }
        step.outstanding = batch.len();
        for (id, action) in batch {
            self.task_send(id, action, false, Some(x));
        }
    }

    /// One request or write of step `x` is done.
    fn step_part_done(&mut self, x: u64) {
        if let Some(step) = self.steps.get_mut(x) {
            step.outstanding = step.outstanding.saturating_sub(1);
        }
    }

    /// A step's exchange is answered: its outcome is written compared (a poll that changed nothing
    /// still stores its schedule, so the next isolate does not poll early).
    pub(super) fn step_exchange_done(&mut self, now: u64, x: u64, id: &str, action: Action, outcome: ExchangeOutcome) {
        let change = self.state.on_exchange_done(now, id, &action, &outcome, false);
        let then = if change == Change::State { Then::Announce } else { Then::Quiet };
        if change == Change::State || self.state.record(id).is_some() {
            self.write_versioned(id, Replay::Outcome { at: now, action, outcome }, then, Some(x));
        }
        self.step_part_done(x);
    }

    /// Writes task `id`'s record compared against the version this client last saw.
    pub(super) fn write_versioned(&mut self, id: &str, replay: Replay, then: Then, in_step: Option<u64>) {
        if let Some(step) = in_step.and_then(|x| self.steps.get_mut(x)) {
            step.outstanding += 1;
        }
        let write =
            Versioned { id: id.to_owned(), replay, then, attempts: 0, text: String::new(), in_step, refresh: false };
        let w = self.next_write();
        self.put_if(w, write);
    }

    /// A host's answer (`answers`) or cancel in step mode: the store's newer copy is read first, so
    /// the change is checked against what the last step left.
    pub(super) fn refresh_then_change(&mut self, asker: Asker, id: &str, answers: Option<Value>) {
        let replay = match answers {
            Some(answers) => match crate::protocol::input::decode_input_responses(&answers) {
                Ok(responses) => Replay::Answer(responses),
                Err(e) => return self.settle(asker, Err(ClientError::usage(format!("responses: {e}")))),
            },
            None => Replay::Cancel,
        };
        let w = self.next_write();
        #[cfg(feature = "legacy")]
        self.out.push(Effect::Get { w, key: self.state.keys().task(id) });
        let then = Then::Settle { asker, tool: None };
        let write = Versioned {
            id: id.to_owned(),
            replay,
            then,
            attempts: 0,
            text: String::new(),
            in_step: None,
            refresh: true,
        };
        self.versioned.insert(w, write);
    }

    /// A number for a store operation the driver answers (from the exchanges' count: never the same).
    fn next_write(&mut self) -> u64 {
        let w = self.next_exchange;
        self.next_exchange += 1;
        w
    }

    fn put_if(&mut self, w: u64, mut write: Versioned) {
        let Some(text) = self.state.stored_text(&write.id) else { return self.written_versioned(write, Written::Gone) };
        #[cfg(feature = "legacy")]
        {
            let expected = self.state.version(&write.id).map(str::to_owned);
            let key = self.state.keys().task(&write.id);
            self.out.push(Effect::PutIf { w, key, expected, text: text.clone() });
        }
        write.text = text;
        self.versioned.insert(w, write);
    }

    #[cfg(feature = "legacy")]
    /// The store's answer to a compared write: `ok`, or `failed` (it threw; the driver has switched to
    /// memory and said why).
    pub(super) fn put_if_done(&mut self, w: u64, ok: bool, failed: bool) {
        // Only a stepping client makes compared writes (the first door never does).
        if !self.stepping() {
            return;
        }
        let Some(write) = self.versioned.remove(w) else { return };
        if failed {
            return self.written_versioned(write, Written::Failed);
        }
        if ok {
            self.state.set_version(&write.id, write.text.clone());
            return self.written_versioned(write, Written::Ours);
        }
        // Another writer was first: read its copy.
        self.out.push(Effect::Get { w, key: self.state.keys().task(&write.id) });
        self.versioned.insert(w, write);
    }

    #[cfg(feature = "legacy")]
    /// The store's copy of a record (`text`, `null` when there is none) for a write that lost the race
    /// or a host's change that reads first.
    pub(super) fn got(&mut self, w: u64, stored: Option<&str>) {
        // Only a stepping client reads before a change (the first door never does).
        if !self.stepping() {
            return;
        }
        let Some(mut write) = self.versioned.remove(w) else { return };
        if write.refresh {
            if stored.is_some_and(|t| Some(t) != self.state.version(&write.id)) {
                self.adopt(&write.id, stored);
            }
            let Then::Settle { asker, .. } = write.then else { return };
            return self.change_in_step(asker, &write.id, write.replay);
        }
        if !self.adopt(&write.id, stored) {
            return self.written_versioned(write, Written::Gone);
        }
        write.attempts += 1;
        if write.replay.apply(self, &write.id) == Change::Nothing || write.attempts >= MAX_WRITE_ATTEMPTS {
            return self.written_versioned(write, Written::Theirs);
        }
        self.put_if(w, write);
    }

    /// Takes the store's copy of record `id` (`stored`, its text) as this client's; `false` when it is
    /// gone or unreadable, and then dropped here too.
    fn adopt(&mut self, id: &str, stored: Option<&str>) -> bool {
        let record = self.state.read_stored(stored);
        let found = record.is_some();
        self.state.adopt_stored(id, record.zip(stored).map(|(record, text)| (text.to_owned(), record)));
        found
    }

    /// A host's change (`replay`: its answers or its cancel) applied after the refresh, then written
    /// compared.
    fn change_in_step(&mut self, asker: Asker, id: &str, replay: Replay) {
        let outcome = match &replay {
            Replay::Answer(responses) => self.state.answer(id, responses.clone()),
            _ => self.state.request_cancel(id),
        };
        match outcome {
            Ok(Change::State) => self.write_versioned(id, replay, Then::Settle { asker, tool: None }, None),
            Ok(_) => self.settle(asker, Ok(Value::Null)),
            Err(e) => self.settle(asker, Err(e)),
        }
    }

    /// What follows a compared write.
    fn written_versioned(&mut self, write: Versioned, written: Written) {
        let Versioned { id, then, in_step, .. } = write;
        match then {
            Then::Announce => self.state.announce(&id),
            Then::Quiet => {}
            Then::Lease => {
                if written != Written::Ours {
                    // Not sent this step: another isolate's record replaced ours, or the store failed;
                    // what was handed out goes back, so the schedule still says "due now".
                    if let Some(step) = in_step.and_then(|x| self.steps.get_mut(x)) {
                        step.actions.retain(|(other, _)| *other != id);
                    }
                    self.state.abandon_actions(&id);
                }
            }
            Then::Settle { asker, tool } => {
                self.state.announce(&id);
                let outcome = match (written, tool) {
                    (Written::Failed, Some(tool)) => Err(ClientError::handle_not_stored(&tool, &id)),
                    (Written::Failed, None) => Err(ClientError::change_not_stored(&id)),
                    (_, Some(_)) => Ok(json!({ "kind": "task", "task": self.snapshot(&id) })),
                    (_, None) => Ok(Value::Null),
                };
                self.settle(asker, outcome);
            }
        }
        if let Some(x) = in_step {
            self.step_part_done(x);
        }
    }
}
