//! Early polls at open. IndexedDB takes tens of milliseconds to open on a fresh page, and the records
//! come after it; the poller does not wait for them to ask about the tasks it polled last. It keeps a
//! short hint of live task ids in the host's synchronous storage (the driver writes what
//! [`ClientState::early_hint`] hands out), polls those ids while the store opens, and each answer waits
//! here until its record is read: applied then as the answer to a poll, so the task is not asked again.
use crate::collections::SortedMap;
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
    /// The live set's version when the hint was last handed out.
    hinted: Option<u64>,
}

impl ClientState {
    /// The ids for the hint (up to [`EARLY_POLLS`] live 2026-07-28 tasks), when the live set changed
    /// since the last call; `None` when it did not, or when this client does not poll. Empty: no task
    /// to poll early, and the hint should go.
    pub fn early_hint(&mut self) -> Option<Vec<String>> {
        if !self.config.auto_poll || !self.leader {
            return None;
        }
        let version = self.records.live_version();
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
                ids.push(id.to_string());
            }
        }
        Some(ids)
    }

    /// At open, before any record is read, as the poller: polls the tasks `ids` names (the hint),
    /// outside the request window.
    pub fn poll_early(&mut self, ids: &[String]) {
        for id in ids.iter().take(EARLY_POLLS) {
            if self.early.pending.insert(id.clone(), None).is_none() {
                self.push(Effect::Send { id: id.clone(), action: Action::Poll, slot: false });
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
