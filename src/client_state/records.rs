//! The records by task id, and what scheduling needs to know of them without walking them all: a queue
//! by next wake-up, a queue by TTL end, and counts of live tasks (all, and 2025-11-25 ones for the
//! session stream). Every change to a record goes through here (reads see the map through `Deref`), so
//! no record changes its time without an entry for the new one; with 10,000 idle tasks a pass over
//! every record after each answer was most of what an answered poll cost.
use std::ops::Deref;
use std::rc::Rc;

use crate::collections::SortedMap;
use crate::machine::backoff::PollPolicy;
use crate::machine::record::TaskRecord;
use crate::protocol::task_protocol::TaskProtocol;

use super::wake_queue::WakeQueue;

/// What the queues and counts hold of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Facts {
    /// [`TaskRecord::next_wakeup`]. Queued only when it is not the TTL end, which has its own queue (a
    /// task whose poll is in flight waits for its TTL end only: the entry would go stale at its answer).
    wake: Option<u64>,
    /// When [`TaskRecord::tick`] ends it: set for a live task whose last status is not terminal.
    expiry: Option<u64>,
    live: bool,
    legacy: bool,
}

fn facts(record: &TaskRecord, policy: &PollPolicy) -> Facts {
    let live = !record.is_settled();
    let ticks = live && !record.last().task.status.is_terminal();
    Facts {
        wake: record.next_wakeup(policy),
        expiry: if ticks { record.expires_at(policy) } else { None },
        live,
        legacy: live && record.protocol() == TaskProtocol::Legacy,
    }
}

/// Whether a wake-queue entry is still the record's next wake-up.
fn wakes_at<'a>(
    map: &'a SortedMap<Rc<str>, Box<TaskRecord>>,
    policy: &'a PollPolicy,
) -> impl Fn(u64, &str) -> bool + 'a {
    move |due, id| map.get(id).and_then(|r| r.next_wakeup(policy)) == Some(due)
}

/// Whether an expiry-queue entry is still the record's TTL end.
fn expires_at<'a>(
    map: &'a SortedMap<Rc<str>, Box<TaskRecord>>,
    policy: &'a PollPolicy,
) -> impl Fn(u64, &str) -> bool + 'a {
    move |due, id| map.get(id).is_some_and(|r| facts(r, policy).expiry == Some(due))
}

/// How much work finding what is due took, for tests and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WakeStats {
    /// Queue entries held, current or not (both queues).
    pub queued: usize,
    /// Queue entries taken off so far (due, stale or copies): the work of every pass together.
    pub examined: u64,
}

/// The records, their two queues and the live counts.
#[derive(Debug)]
pub(super) struct Records {
    /// Keyed by task id, shared with the queues' entries.
    map: SortedMap<Rc<str>, Box<TaskRecord>>,
    policy: PollPolicy,
    wake: WakeQueue,
    expiry: WakeQueue,
    live: usize,
    legacy_live: usize,
    /// Bumped whenever a task may have joined or left the live set (listen compares sets only then).
    live_version: u64,
    examined: u64,
}

impl Facts {
    /// The wake-up the wake queue holds for the record.
    fn queued_wake(&self) -> Option<u64> {
        self.wake.filter(|&at| Some(at) != self.expiry)
    }
}

impl Deref for Records {
    type Target = SortedMap<Rc<str>, Box<TaskRecord>>;

    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl Records {
    pub(super) fn new(policy: PollPolicy) -> Self {
        Self {
            map: SortedMap::new(),
            policy,
            wake: WakeQueue::default(),
            expiry: WakeQueue::default(),
            live: 0,
            legacy_live: 0,
            live_version: 0,
            examined: 0,
        }
    }

    /// Live tasks.
    pub(super) fn live(&self) -> usize {
        self.live
    }

    /// Live 2025-11-25 tasks.
    pub(super) fn legacy_live(&self) -> usize {
        self.legacy_live
    }

    /// Changes whenever the live set may have changed.
    pub(super) fn live_version(&self) -> u64 {
        self.live_version
    }

    pub(super) fn stats(&self) -> WakeStats {
        WakeStats { queued: self.wake.len() + self.expiry.len(), examined: self.examined }
    }

    /// The earliest wake-up of any record (both queues' tops are kept current).
    pub(super) fn next_wakeup(&self) -> Option<u64> {
        let wake = self.wake.peek().map(|(due, _)| due);
        match (wake, self.next_expiry()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The earliest TTL end of any live record: the one wake-up that matters while nothing is sent.
    pub(super) fn next_expiry(&self) -> Option<u64> {
        self.expiry.peek().map(|(due, _)| due)
    }

    fn count(&mut self, f: Facts, sign: isize) {
        let step = |n: &mut usize, on: bool| {
            if on {
                *n = n.saturating_add_signed(sign);
            }
        };
        step(&mut self.live, f.live);
        step(&mut self.legacy_live, f.legacy);
    }

    /// Adds or replaces task `id`'s record (an id as text or already shared, a record boxed or not).
    pub(super) fn insert(&mut self, id: impl Into<Rc<str>>, record: impl Into<Box<TaskRecord>>) {
        self.insert_boxed(id.into(), record.into());
    }

    #[inline(never)]
    fn insert_boxed(&mut self, id: Rc<str>, record: Box<TaskRecord>) {
        let new = facts(&record, &self.policy);
        self.count(new, 1);
        self.queue(&id, new);
        if let Some(old) = self.map.insert(id, record) {
            self.count(facts(&old, &self.policy), -1);
        }
        self.live_version += 1;
        self.tidy();
    }

    /// Removes task `id`'s record (its entries go stale).
    pub(super) fn remove(&mut self, id: &str) -> Option<Box<TaskRecord>> {
        let old = self.map.remove(id)?;
        self.count(facts(&old, &self.policy), -1);
        self.live_version += 1;
        self.tidy();
        Some(old)
    }

    /// Applies `change` to task `id`'s record, queueing its new times.
    pub(super) fn update<R>(&mut self, id: &str, change: impl FnOnce(&mut TaskRecord, &PollPolicy) -> R) -> Option<R> {
        let before = self.facts_of(id)?;
        let out = change(self.map.get_mut(id)?, &self.policy);
        self.changed(id, before, true);
        Some(out)
    }

    /// [`Self::update`] for a record [`Self::pop_due`] took: its wake-up is queued by [`Self::requeue`]
    /// once the pass is done, so a record still due but with nothing to start is not taken again.
    pub(super) fn update_taken<R>(
        &mut self,
        id: &str,
        change: impl FnOnce(&mut TaskRecord, &PollPolicy) -> R,
    ) -> Option<R> {
        let before = self.facts_of(id)?;
        let out = change(self.map.get_mut(id)?, &self.policy);
        self.changed(id, before, false);
        Some(out)
    }

    // The generic wrappers above stay thin (one copy per caller in the .wasm); the work is here, once.
    #[inline(never)]
    fn facts_of(&self, id: &str) -> Option<Facts> {
        self.map.get(id).map(|r| facts(r, &self.policy))
    }

    #[inline(never)]
    fn changed(&mut self, id: &str, before: Facts, queue_wake: bool) {
        let Some((id, record)) = self.map.get_key_value(id) else { return };
        let after = facts(record, &self.policy);
        if after != before {
            let id = id.clone();
            self.note_change(&id, before, after, queue_wake);
            self.tidy();
        }
    }

    fn note_change(&mut self, id: &Rc<str>, before: Facts, after: Facts, queue_wake: bool) {
        self.count(before, -1);
        self.count(after, 1);
        if before.live != after.live {
            self.live_version += 1;
        }
        let moved = after.wake != before.wake || after.expiry != before.expiry;
        if queue_wake && moved {
            if let Some(at) = after.queued_wake() {
                self.wake.push(at, id);
            }
        }
        if after.expiry != before.expiry {
            if let Some(at) = after.expiry {
                self.expiry.push(at, id);
            }
        }
    }

    /// Applies `change` to every record (an O(n) event: connectivity, the end of listen coverage, a
    /// step); `change` says whether it changed the record. Only changed records are queued again, and
    /// the counts are taken anew only when one changed, so an `online` event with nothing to retry
    /// costs a look at each record and no more.
    pub(super) fn update_all(&mut self, mut change: impl FnMut(&str, &mut TaskRecord, &PollPolicy) -> bool) {
        let policy = self.policy;
        let mut changed: Vec<Rc<str>> = Vec::new();
        for (id, record) in self.map.iter_mut() {
            if change(id, record, &policy) {
                changed.push(id.clone());
            }
        }
        self.queue_changed(changed);
    }

    fn queue_changed(&mut self, changed: Vec<Rc<str>>) {
        if changed.is_empty() {
            return;
        }
        for id in changed {
            if let Some(f) = self.facts_of(&id) {
                self.queue(&id, f);
            }
        }
        self.recount();
        self.tidy();
    }

    /// Takes every record out (the queues and counts start over).
    pub(super) fn take_all(&mut self) -> SortedMap<Rc<str>, Box<TaskRecord>> {
        let map = std::mem::take(&mut self.map);
        self.rebuild();
        map
    }

    /// Holds `map` instead of the records held.
    pub(super) fn replace_all(&mut self, map: SortedMap<Rc<str>, Box<TaskRecord>>) {
        self.map = map;
        self.rebuild();
    }

    /// Takes the earliest record whose wake-up is at or before `now`, if any.
    pub(super) fn pop_due(&mut self, now: u64) -> Option<Rc<str>> {
        let (found, taken) = self.wake.take_due(now, wakes_at(&self.map, &self.policy));
        self.examined += taken;
        if let Some((due, id)) = &found {
            while self.wake.pop_copy_of(*due, id) {
                self.examined += 1;
            }
        }
        self.tidy();
        found.map(|(_, id)| id)
    }

    /// Queues the wake-up of a record [`Self::pop_due`] took.
    pub(super) fn requeue(&mut self, id: &Rc<str>) {
        if let Some(at) = self.map.get(id).and_then(|r| facts(r, &self.policy).queued_wake()) {
            self.wake.push(at, id);
        }
        self.tidy();
    }

    /// Takes the next live task whose TTL has run out by `now`, if any (whether or not requests may
    /// start: a client offline or out of slots still ends them on time).
    pub(super) fn pop_expired(&mut self, now: u64) -> Option<Rc<str>> {
        let (found, taken) = self.expiry.take_due(now, expires_at(&self.map, &self.policy));
        self.examined += taken;
        self.tidy();
        found.map(|(_, id)| id)
    }

    fn queue(&mut self, id: &Rc<str>, f: Facts) {
        if let Some(at) = f.queued_wake() {
            self.wake.push(at, id);
        }
        if let Some(at) = f.expiry {
            self.expiry.push(at, id);
        }
    }

    /// Keeps both queues' tops current (so [`Self::next_wakeup`] needs no `&mut`) and rebuilds the
    /// queues once stale entries outnumber the records (a time that keeps moving earlier, such as a
    /// backoff cut short, leaves its later entries behind).
    fn tidy(&mut self) {
        let limit = self.map.len().saturating_mul(2).saturating_add(64);
        if self.wake.len() > limit || self.expiry.len() > limit {
            return self.rebuild();
        }
        self.examined += self.wake.drop_stale(wakes_at(&self.map, &self.policy));
        self.examined += self.expiry.drop_stale(expires_at(&self.map, &self.policy));
    }

    /// The live counts from the records.
    fn recount(&mut self) {
        let (mut live, mut legacy_live) = (0, 0);
        for record in self.map.values() {
            let f = facts(record, &self.policy);
            live += usize::from(f.live);
            legacy_live += usize::from(f.legacy);
        }
        self.live = live;
        self.legacy_live = legacy_live;
        self.live_version += 1;
    }

    /// Queues and counts from the records (O(n): a restore, or too many stale entries).
    fn rebuild(&mut self) {
        let (mut wake, mut expiry) = (Vec::new(), Vec::new());
        for (id, record) in self.map.iter() {
            let f = facts(record, &self.policy);
            wake.extend(f.queued_wake().map(|at| (at, id.clone())));
            expiry.extend(f.expiry.map(|at| (at, id.clone())));
        }
        self.wake.rebuild(wake);
        self.expiry.rebuild(expiry);
        self.recount();
        // A rebuild visits every record: counted, so a test bounding the work per pass sees it.
        self.examined += self.map.len() as u64;
    }
}
