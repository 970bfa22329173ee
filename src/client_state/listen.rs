//! `subscriptions/listen` coverage: whether the server offers it, the one stream open for the live
//! tasks, which tasks it covers (those are not polled), and the backoff after a stream drops.
use crate::collections::SortedSet;
use crate::machine::record::Change;
use crate::protocol::task::DetailedTask;

use super::{ClientState, Effect};

/// The listen stream's bookkeeping.
#[derive(Debug, Default)]
pub(super) struct Listen {
    /// `None` until `server/discover` answered (or a listen told us the server has no such method).
    supported: Option<bool>,
    discovering: bool,
    /// The task ids the open stream was asked for.
    current: Option<SortedSet<String>>,
    /// Bumped per stream, so a closed stream's late events are ignored.
    generation: u64,
    failures: u32,
    retry_at: u64,
}

impl Listen {
    /// Forgets the open stream; `true` if there was one to close.
    pub(super) fn stop(&mut self) -> bool {
        self.current.take().is_some()
    }
}

/// How a listen stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListenEnd {
    /// The server closed it with the listen result.
    Closed,
    /// The server does not offer it after all (method not found, capability missing).
    Unsupported,
    /// It broke, or never opened.
    Dropped,
}

impl ClientState {
    /// Keeps one stream open for the live tasks when the server offers it: a new set of tasks means a
    /// new stream (filters cannot change); after a drop, not before the backoff ends.
    pub(super) fn ensure_listening(&mut self, now: u64) {
        let live: SortedSet<String> =
            self.records.iter().filter(|(_, r)| !r.is_settled()).map(|(id, _)| id.clone()).collect();
        match self.listen.supported {
            None if !self.listen.discovering && !live.is_empty() => {
                self.listen.discovering = true;
                self.push(Effect::Discover);
                return;
            }
            Some(true) => {}
            _ => return,
        }
        if self.listen.current.as_ref() == Some(&live) || now < self.listen.retry_at {
            return;
        }
        if self.listen.stop() {
            self.push(Effect::StopListening);
        }
        self.uncover(now);
        if live.is_empty() {
            return;
        }
        self.listen.generation += 1;
        let ids = live.iter().cloned().collect();
        self.listen.current = Some(live);
        self.push(Effect::Listen { generation: self.listen.generation, ids });
    }

    /// `server/discover` answered: whether the server offers the Tasks extension's listen.
    pub fn on_discovered(&mut self, now: u64, supported: bool) {
        self.listen.supported = Some(supported);
        self.listen.discovering = false;
        self.poll_due(now);
    }

    fn is_current(&self, generation: u64) -> bool {
        self.listen.generation == generation && self.listen.current.is_some()
    }

    /// Ends coverage: every task is polled again.
    fn uncover(&mut self, now: u64) {
        let policy = self.config.policy;
        for record in self.records.values_mut() {
            record.set_pushed(now, false, &policy);
        }
    }

    /// The stream's acknowledgement: the tasks it will push (of those asked) are no longer polled.
    pub fn on_listen_ack(&mut self, now: u64, generation: u64, accepted: &[String]) {
        if !self.is_current(generation) {
            return;
        }
        let policy = self.config.policy;
        let asked = self.listen.current.clone().unwrap_or_default();
        for id in accepted.iter().filter(|id| asked.contains(id)) {
            if let Some(record) = self.records.get_mut(id) {
                record.set_pushed(now, true, &policy);
            }
            self.push(Effect::EmitTask(id.clone()));
        }
    }

    /// A task's state arrived on the stream: handled like a poll result.
    pub fn on_listen_task(&mut self, now: u64, generation: u64, task: DetailedTask) {
        if !self.is_current(generation) {
            return;
        }
        let id = task.task.task_id.clone();
        let policy = self.config.policy;
        let change = self.records.get_mut(&id).and_then(|r| r.on_notification(now, task, &policy).ok());
        if change == Some(Change::State) {
            self.push(Effect::Store(id));
        }
    }

    /// The stream ended: poll everything again, and listen again after a backoff when it dropped.
    pub fn on_listen_end(&mut self, now: u64, generation: u64, end: ListenEnd) {
        if !self.is_current(generation) {
            return;
        }
        self.listen.current = None;
        match end {
            ListenEnd::Closed => self.listen.failures = 0,
            ListenEnd::Unsupported => self.listen.supported = Some(false),
            ListenEnd::Dropped => {
                self.listen.failures = self.listen.failures.saturating_add(1);
                self.listen.retry_at = now.saturating_add((1_000u64 << self.listen.failures.min(5)).min(30_000));
            }
        }
        self.uncover(now);
        self.poll_due(now);
    }
}
