//! Early polls at open. IndexedDB takes tens of milliseconds to open on a fresh page, and the records
//! come after it; the poller does not wait for them to ask about the tasks it polled last. It keeps a
//! short hint of live task ids in the host's synchronous storage (the driver writes what
//! [`ClientState::early_hint`] hands out), polls those ids while the store opens, and each answer waits
//! here until its record is read: applied then as the answer to a poll, so the task is not asked again.
//! While the server's `Retry-After` runs, the hint also names its end, and no early poll goes out.
use crate::collections::SortedMap;
use crate::json::Value;
use crate::machine::record::{Action, Change};
use crate::protocol::task_protocol::TaskProtocol;

use super::{ClientState, Effect, ExchangeOutcome};

/// Tasks polled before the store is read, at most: the hint names no more (the first page of records
/// follows within tens of milliseconds, and with it every other due poll).
pub const EARLY_POLLS: usize = 8;

/// The early polls of one open, and what the hint last said.
#[derive(Debug, Default)]
pub(super) struct EarlyPolls {
    /// Task id → its answer once it came back before the record was read (with the time it did).
    pending: SortedMap<String, Option<(u64, ExchangeOutcome)>>,
    /// The restore is over: an answer whose record was not read belongs to no task of ours.
    closed: bool,
    /// The live set's version and the pause's end when the hint was last handed out.
    hinted: Option<(u64, u64)>,
}

impl ClientState {
    /// The hint (up to [`EARLY_POLLS`] ids of live 2026-07-28 tasks, then the end of the server's
    /// pause while one runs), when the live set or the pause changed since the last call; `None` when
    /// neither did, or when this client does not poll. Empty: nothing to say, and the hint should go.
    pub fn early_hint(&mut self, now: u64) -> Option<Vec<Value>> {
        if !self.config.auto_poll || !self.leader {
            return None;
        }
        let version = (self.records.live_version(), self.pause.until());
        if self.early.hinted == Some(version) {
            return None;
        }
        self.early.hinted = Some(version);
        let mut ids = Vec::new();
        for (id, record) in self.records.iter() {
            if ids.len() == EARLY_POLLS {
                break;
            }
            if !record.is_settled() && record.protocol() == TaskProtocol::Extension {
                ids.push(Value::from(id.as_ref()));
            }
        }
        if self.is_paused(now) {
            ids.push(Value::from(self.pause.until()));
        }
        Some(ids)
    }

    /// At open, before any record is read, as the poller: polls the tasks the hint names, outside the
    /// request window, unless the pause it names has not ended.
    pub fn poll_early(&mut self, now: u64, hint: &[Value]) {
        if hint.iter().filter_map(Value::as_u64).any(|until| now < until) {
            return;
        }
        for id in hint.iter().filter_map(Value::as_str).take(EARLY_POLLS) {
            if self.early.pending.insert(id.to_owned(), None).is_none() {
                self.push(Effect::Send { id: id.to_owned(), action: Action::Poll, slot: false });
            }
        }
    }

    /// An early poll's answer that came back before its record was read is kept for it (`true`).
    pub(super) fn hold_early_answer(&mut self, now: u64, id: &str, outcome: &ExchangeOutcome) -> bool {
        let Some(slot) = self.early.pending.get_mut(id) else { return false };
        if self.records.contains_key(id) || self.early.closed {
            self.early.pending.remove(id);
            return false;
        }
        *slot = Some((now, outcome.clone()));
        true
    }

    /// Records were just taken over: an answer that waited is applied (and the record stored), a
    /// poll still out marks its record so no second one starts.
    pub(super) fn take_early_answers(&mut self) {
        let mut read = Vec::new();
        for (id, answer) in self.early.pending.iter() {
            if self.records.contains_key(id) {
                read.push((id.clone(), answer.is_some()));
            }
        }
        for (id, answered) in read {
            if !answered {
                self.records.update(&id, |record, _| record.mark_poll_in_flight());
            } else if let Some(Some((at, outcome))) = self.early.pending.remove(&id) {
                if self.on_exchange_done(at, &id, &Action::Poll, &outcome, false) == Change::State {
                    self.push(Effect::Store(id));
                }
            }
        }
    }

    /// The restore is over: answers kept for tasks that were not read are dropped, and later ones
    /// are ignored.
    pub(super) fn close_early_polls(&mut self) {
        self.early.closed = true;
        let records = &self.records;
        self.early.pending.retain(|id, answer| answer.is_none() && records.contains_key(id.as_str()));
    }
}
