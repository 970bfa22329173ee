//! `subscriptions/listen` coverage: whether the server offers it, the one stream open for the live
//! tasks, which tasks it covers (exactly those it acknowledged; every other live task is polled), and
//! when to open a stream again. A server may honour none of the tasks asked and end the stream at once
//! (the official TypeScript SDK 2.4 does): that set is not asked again, and a changed set not before
//! [`REFUSED_RETRY_MS`]. Any stream that ends is re-opened only after a jittered backoff that grows
//! while streams keep ending soon after they opened, and a stream silent for [`IDLE_LIMIT_MS`] is lost.
use crate::collections::SortedSet;
use crate::machine::backoff::Jitter;
use crate::protocol::task::DetailedTask;

use super::{ClientState, Effect};

/// A stream that delivered no byte (not even a keep-alive comment) for this long is treated as lost:
/// a proxy or a sleeping network may leave a dead connection looking open. Servers send keep-alives
/// well within it (the reference server every 15 s).
pub const IDLE_LIMIT_MS: u64 = 90_000;

/// After a listen honoured none of the tasks asked, a changed set of live tasks is asked no sooner.
pub const REFUSED_RETRY_MS: u64 = 60_000;

/// The first wait before re-opening a stream that ended; doubles per stream that ends soon after it
/// opened, up to [`RELISTEN_MAX_MS`].
pub const RELISTEN_MIN_MS: u64 = 1_000;

/// The longest wait before re-opening a stream.
pub const RELISTEN_MAX_MS: u64 = 60_000;

/// A stream that lived this long was healthy: the backoff after it starts over.
const HEALTHY_STREAM_MS: u64 = 60_000;

/// The stream open now.
#[derive(Debug)]
struct Stream {
    /// The task ids it was asked for.
    asked: SortedSet<String>,
    opened_at: u64,
    /// The last time a byte arrived (or the stream opened).
    heard_at: u64,
    /// The records' live version at which `asked` was last found to be the live set: a pass compares
    /// the sets only when the version moved.
    live_version: u64,
}

/// The listen stream's bookkeeping.
#[derive(Debug)]
pub(super) struct Listen {
    /// `None` until `server/discover` answered (or a listen told us the server has no such method).
    supported: Option<bool>,
    discovering: bool,
    current: Option<Stream>,
    /// Bumped per stream, so a closed stream's late events are ignored.
    generation: u64,
    reopen: Reopen,
    /// The last set a listen honoured none of, and when it said so.
    refused: Option<(SortedSet<String>, u64)>,
    /// When the last pass found live tasks without a stream that may open later: the timer's due time.
    open_at: Option<u64>,
}

/// When a stream that ended may open again: after a jittered wait from [`RELISTEN_MIN_MS`] that doubles
/// per stream ending before it was healthy, up to [`RELISTEN_MAX_MS`]. Shared by the listen stream and
/// a 2025-11-25 session's GET stream.
#[derive(Debug)]
pub(super) struct Reopen {
    /// Streams in a row that ended before they were healthy.
    quick_ends: u32,
    /// No stream is opened before this time (Unix ms).
    pub(super) at: u64,
    jitter: Jitter,
}

impl Reopen {
    pub(super) fn new(seed: u64) -> Self {
        Self { quick_ends: 0, at: 0, jitter: Jitter(seed) }
    }

    /// Schedules the next stream after one that opened at `opened_at` (if it did) ended at `now`.
    pub(super) fn after_end(&mut self, now: u64, opened_at: Option<u64>) {
        let quick = opened_at.is_none_or(|at| now.saturating_sub(at) < HEALTHY_STREAM_MS);
        self.quick_ends = if quick { self.quick_ends.saturating_add(1) } else { 1 };
        let step =
            RELISTEN_MIN_MS.saturating_mul(1u64 << self.quick_ends.saturating_sub(1).min(16)).min(RELISTEN_MAX_MS);
        // Equal jitter, never below the minimum: tabs and clients that lost the same server do not
        // come back in step.
        let wait = (step / 2 + self.jitter.next_up_to(step - step / 2)).max(RELISTEN_MIN_MS);
        self.at = now.saturating_add(wait);
    }
}

impl Listen {
    pub(super) fn new(seed: u64) -> Self {
        Self {
            supported: None,
            discovering: false,
            current: None,
            generation: 0,
            reopen: Reopen::new(seed ^ 0x6C69_7374_656E),
            refused: None,
            open_at: None,
        }
    }

    /// Forgets the open stream; `true` if there was one to close.
    pub(super) fn stop(&mut self) -> bool {
        self.current.take().is_some()
    }

    /// When a stream may open next for `live`, if it may at all: after the backoff, and for a set the
    /// server refused before, never for the same set and not within a minute of the refusal.
    fn may_open_at(&self, live: &SortedSet<String>) -> Option<u64> {
        match &self.refused {
            Some((set, _)) if set == live => None,
            Some((_, at)) => Some(self.reopen.at.max(at.saturating_add(REFUSED_RETRY_MS))),
            None => Some(self.reopen.at),
        }
    }

    /// Schedules the next stream after one ended at `now`.
    fn back_off(&mut self, now: u64) {
        self.reopen.after_end(now, self.current.as_ref().map(|s| s.opened_at));
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
    fn live_ids(&self) -> SortedSet<String> {
        let mut live = SortedSet::new();
        for (id, record) in self.records.iter() {
            if !record.is_settled() {
                live.insert(String::from(&**id));
            }
        }
        live
    }

    /// Keeps one stream open for the live tasks when the server offers it: a new set of tasks means a
    /// new stream (filters cannot change), opened when [`Listen::may_open_at`] allows. A stream silent
    /// past [`IDLE_LIMIT_MS`] is closed as lost first.
    pub(super) fn ensure_listening(&mut self, now: u64) {
        if self.listen.current.as_ref().is_some_and(|s| now.saturating_sub(s.heard_at) >= IDLE_LIMIT_MS) {
            self.push(Effect::StopListening);
            self.end_stream(now, ListenEnd::Dropped);
        }
        self.listen.open_at = None;
        match self.listen.supported {
            None if !self.listen.discovering && self.records.live() > 0 && !self.is_paused(now) => {
                self.listen.discovering = true;
                self.push(Effect::Discover);
                return;
            }
            Some(true) => {}
            _ => return,
        }
        let version = self.records.live_version();
        if self.listen.current.as_ref().is_some_and(|s| s.live_version == version) {
            return;
        }
        let live = self.live_ids();
        if let Some(stream) = self.listen.current.as_mut().filter(|s| s.asked == live) {
            stream.live_version = version;
            return;
        }
        if !live.is_empty() {
            match self.listen.may_open_at(&live).map(|at| at.max(self.pause.until())) {
                None => return,
                Some(at) if now < at => {
                    self.listen.open_at = Some(at);
                    return;
                }
                Some(_) => {}
            }
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
        self.listen.current = Some(Stream { asked: live, opened_at: now, heard_at: now, live_version: version });
        self.push(Effect::Listen { generation: self.listen.generation, ids });
    }

    /// When listening next needs the clock: the idle limit of the open stream, or the time the last
    /// pass found a stream may open for live tasks it does not cover yet.
    pub(super) fn listen_wakeup(&self) -> Option<u64> {
        match &self.listen.current {
            Some(stream) => Some(stream.heard_at.saturating_add(IDLE_LIMIT_MS)),
            None => self.listen.open_at,
        }
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
        self.records.update_all(|_, record, policy| {
            let covered = record.is_pushed();
            record.set_pushed(now, false, policy);
            covered
        });
    }

    /// Bytes arrived on stream `generation` (a keep-alive is enough): it is alive.
    pub fn on_listen_bytes(&mut self, now: u64, generation: u64) {
        if !self.is_current(generation) {
            return;
        }
        if let Some(stream) = self.listen.current.as_mut() {
            stream.heard_at = now;
        }
    }

    /// The stream's acknowledgement: the tasks it will push (of those asked) are polled only as a
    /// backstop. When it honours none, the stream is closed and that set is not asked again.
    pub fn on_listen_ack(&mut self, now: u64, generation: u64, accepted: &[String]) {
        if !self.is_current(generation) {
            return;
        }
        let Some(stream) = self.listen.current.as_mut() else { return };
        stream.heard_at = now;
        let mut covered = Vec::new();
        for id in accepted {
            if stream.asked.contains(id) {
                covered.push(id.clone());
            }
        }
        if covered.is_empty() {
            let asked = std::mem::take(&mut stream.asked);
            self.listen.refused = Some((asked, now));
            self.listen.current = None;
            self.push(Effect::StopListening);
            self.push(Effect::Rearm);
            return;
        }
        self.listen.refused = None;
        for id in covered {
            self.records.update(&id, |record, policy| record.set_pushed(now, true, policy));
            self.push(Effect::EmitTask(id));
        }
        self.push(Effect::Rearm);
    }

    /// A task's state arrived on the stream: handled like a poll result.
    pub fn on_listen_task(&mut self, now: u64, generation: u64, task: DetailedTask) {
        if !self.is_current(generation) {
            return;
        }
        self.on_listen_bytes(now, generation);
        self.on_task_observed(now, task);
    }

    /// The stream ended: poll everything again, and listen again after a backoff.
    pub fn on_listen_end(&mut self, now: u64, generation: u64, end: ListenEnd) {
        if !self.is_current(generation) {
            return;
        }
        self.end_stream(now, end);
        self.poll_due(now);
    }

    fn end_stream(&mut self, now: u64, end: ListenEnd) {
        if end == ListenEnd::Unsupported {
            self.listen.supported = Some(false);
        }
        self.listen.back_off(now);
        self.listen.current = None;
        self.uncover(now);
    }
}
