//! The one way a task or call leaves a client — `forget`, `clear`, retention and another tab's
//! message all come here: it is dropped from every index (records and their queues, versions, restored, queued
//! writes, pending calls), its store keys are deleted, its waiters are rejected, the host hears a
//! `forget` event, and the other tabs are told unless they told us.
use crate::collections::SortedSet;
use crate::error::{ClientError, ErrorKind};
use crate::machine::record::TaskRecord;
use crate::protocol::timestamp::parse_millis;

use super::{ClientState, Effect, TabMessage};

/// Why tasks are removed, which decides who else must hear of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// The host called `forget` here.
    Forget,
    /// Settled tasks past their TTL or beyond the retention limit.
    Retention,
    /// Another tab forgot or cleared them (it told every tab already).
    FromOtherTab,
    /// The store no longer holds them, or holds what this release cannot read (left there untouched:
    /// a newer release may read it). Step mode learns this when it re-reads the store.
    Vanished,
}

impl ClientState {
    /// Removes tasks or calls `ids`, for `why`.
    pub fn remove(&mut self, ids: &[String], why: Removal) {
        self.drop_everywhere(ids, why);
        if matches!(why, Removal::Forget | Removal::Retention) && !ids.is_empty() {
            self.push(Effect::Post(TabMessage::Forget { ids: ids.to_vec() }));
        }
    }

    /// `clear()`: removes every task and call of the namespace here and tells every other tab to do
    /// the same. The driver also deletes whatever else the store holds under the prefix.
    pub fn clear(&mut self) {
        let ids = self.all_ids();
        self.drop_everywhere(&ids, Removal::Forget);
        self.push(Effect::Post(TabMessage::Clear));
    }

    /// Another tab cleared the namespace.
    pub(super) fn cleared_elsewhere(&mut self) {
        let ids = self.all_ids();
        self.drop_everywhere(&ids, Removal::FromOtherTab);
    }

    fn all_ids(&self) -> Vec<String> {
        let mut ids = Vec::with_capacity(self.records.len() + self.unknown_calls.len());
        for id in self.records.keys() {
            ids.push(String::from(&**id));
        }
        for id in self.unknown_calls.keys() {
            ids.push(id.clone());
        }
        ids
    }

    fn drop_everywhere(&mut self, ids: &[String], why: Removal) {
        if ids.is_empty() {
            return;
        }
        let mut gone = SortedSet::new();
        for id in ids {
            gone.insert(id.clone());
        }
        self.writes.forget(&gone);
        let error = ClientError::new(
            ErrorKind::Forgotten,
            match why {
                Removal::Forget => "the task was forgotten before it ended",
                Removal::Retention => "the task was dropped by retention",
                Removal::FromOtherTab => "the task was forgotten in another tab before it ended",
                Removal::Vanished => "the task's record left the store before it ended",
            },
        );
        for id in ids {
            let was_task = self.records.remove(id).is_some();
            self.attention.forget(id);
            self.versions.remove(id);
            self.restored.remove(id);
            let was_call = self.unknown_calls.remove(id).is_some();
            // `forget` of an id this client never loaded still deletes its key (another tab's record).
            if (was_task && why != Removal::Vanished) || why == Removal::Forget {
                self.push(Effect::Delete(self.keys.task(id)));
            }
            if was_call && why != Removal::Vanished {
                self.push(Effect::Delete(self.keys.call(id)));
            }
            self.reject_waiters(id, &error);
            if was_task || was_call || why == Removal::Forget {
                self.push(Effect::EmitForget(id.clone()));
            }
        }
    }

    /// Drops settled records past their TTL, and the oldest settled ones beyond the retention limit.
    pub fn apply_retention(&mut self, now: u64) {
        let doomed: Vec<String> = {
            let settled: Vec<(&std::rc::Rc<str>, &Box<TaskRecord>)> =
                self.records.iter().filter(|(_, r)| r.is_settled()).collect();
            let order = crate::collections::sorted_order(settled.len(), &mut |a, b| {
                settled[a].1.received_at() < settled[b].1.received_at()
            });
            let past_ttl = |r: &TaskRecord| {
                let expiry = parse_millis(&r.last().task.created_at)
                    .zip(r.last().task.ttl_ms)
                    .map(|(c, ttl)| c.saturating_add(ttl as i64));
                expiry.is_some_and(|e| e >= 0 && (e as u64) < now)
            };
            let excess = settled.len().saturating_sub(self.config.retention);
            let mut doomed = Vec::new();
            for (i, &k) in order.iter().enumerate() {
                if i < excess || past_ttl(settled[k].1) {
                    doomed.push(String::from(&**settled[k].0));
                }
            }
            doomed
        };
        self.remove(&doomed, Removal::Retention);
    }
}
