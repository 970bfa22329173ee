//! `Retry-After` for the whole server: when any request to it is answered with a delay, no request the
//! client starts by itself (poll, answer, cancel, listen, discover) goes to that server before it ends,
//! whatever triggered it — a stream's end, a reconnect, another task falling due, the next `step()`.
//!
//! A task's record keeps its last failure with its time (`lastFailure`), so a `Retry-After` met by a
//! poll, an answer or a cancel travels with the record: every record read from the store (a reload, a
//! tab opening, each `step()` of an edge worker, a fresh client each time) or shared by the polling tab
//! extends the pause to that failure's end. A request of no task (a call, a listen, a discover) has no
//! record to carry it: the end of its pause (Unix ms, at most [`MAX_SERVER_PAUSE_MS`] after it was met) is
//! stored under its own key ([`super::Keys::pause`]) and posted to the other tabs
//! ([`TabMessage::Pause`]), and the poller's early-poll hint names it.
use crate::error::{ClientError, ErrorKind};
use crate::machine::backoff::Failure;
use crate::machine::record::TaskRecord;

use super::{ClientState, Effect, TabMessage};

/// The longest pause a server can ask for; a larger `Retry-After` is read as this (a hostile or broken
/// server must not stop the client for days).
pub const MAX_SERVER_PAUSE_MS: u64 = crate::machine::backoff::MAX_RETRY_AFTER_MS;

/// Until when the server asked to be left alone.
#[derive(Debug, Default)]
pub(super) struct Pause {
    until: u64,
}

impl Pause {
    /// The end of the pause (Unix ms); in the past when there is none.
    pub(super) fn until(&self) -> u64 {
        self.until
    }

    /// Notes a failure at `at`: a `Retry-After` (at most [`MAX_SERVER_PAUSE_MS`]) extends the pause.
    /// One copy for its five callers (inlined, they cost the card host 49 B gzip more).
    #[inline(never)]
    pub(super) fn note(&mut self, at: u64, failure: &Failure) {
        if let Failure::Http { retry_after_ms: Some(ms), .. } = failure {
            self.until = self.until.max(at.saturating_add((*ms).min(MAX_SERVER_PAUSE_MS)));
        }
    }
}

impl ClientState {
    /// A request the driver made outside the state (a call, a listen, `server/discover`) failed: its
    /// `Retry-After`, if any, pauses every request to the server, here, in the other tabs and in the
    /// next client to read the store.
    pub fn on_server_failure(&mut self, now: u64, failure: &Failure) {
        let before = self.pause.until();
        self.pause.note(now, failure);
        let until = self.pause.until();
        if until != before {
            self.push(Effect::Save { key: self.keys.pause(), text: crate::text::unsigned(until) });
            self.push(Effect::Post(TabMessage::Pause { until }));
            self.push(Effect::Rearm);
        }
    }

    /// The end of another tab's pause, or of the one stored under [`super::Keys::pause`].
    pub(super) fn heed_shared_pause(&mut self, until: u64) {
        if until > self.pause.until() {
            self.pause.until = until;
            self.push(Effect::Rearm);
        }
    }

    /// A record read from the store or shared by another tab: the `Retry-After` its last failure met
    /// holds here too. One copy for its three callers, like [`Pause::note`].
    #[inline(never)]
    pub(super) fn heed_pause(&mut self, record: &TaskRecord) {
        if let Some(note) = record.last_failure() {
            self.pause.note(note.at, &note.failure);
        }
    }

    /// Whether the server asked for a pause that has not ended.
    pub fn is_paused(&self, now: u64) -> bool {
        now < self.pause.until()
    }

    /// The end of the server's pause (Unix ms); in the past when there is none.
    pub fn paused_until(&self) -> u64 {
        self.pause.until()
    }

    /// A request the host starts is not sent while the server's `Retry-After` runs: it fails at once,
    /// retryable, saying how long is left (waiting silently could hold a user's click for an hour).
    pub fn refuse_while_paused(&self, now: u64) -> Result<(), ClientError> {
        let until = self.pause.until();
        if now >= until {
            return Ok(());
        }
        let seconds = (until - now).div_ceil(1_000);
        let mut error = ClientError::new(
            ErrorKind::Http,
            format!(
                "the MCP server asked for no requests for {} s more (Retry-After); try again then",
                crate::text::unsigned(seconds)
            ),
        );
        error.retryable = true;
        Err(error)
    }
}
