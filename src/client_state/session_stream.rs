//! A 2025-11-25 session's GET stream: the one place the official TypeScript SDK v1 sends
//! `notifications/tasks/status`. It only speeds things up (that spec tells requestors to keep
//! polling), so it opens while the polling client has live 2025-11-25 tasks, closes when it has
//! none or stops polling, is re-opened after the same growing backoff as a listen stream, and is never asked again of
//! a server that refuses the GET (HTTP 405) — and never while the server's `Retry-After` runs.
use super::listen::Reopen;
use super::{ClientState, Effect};

/// How a session stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionStreamEnd {
    /// The server offers no GET stream (HTTP 405): not asked again by this client.
    Refused,
    /// It ended, broke or was turned away for now (409: one stream per session is open elsewhere).
    Ended,
    /// The client closed it (no live task needs it).
    Closed,
}

/// The session stream's bookkeeping.
#[derive(Debug)]
pub(super) struct SessionStream {
    /// When the open stream opened.
    opened_at: Option<u64>,
    refused: bool,
    reopen: Reopen,
}

impl SessionStream {
    pub(super) fn new(seed: u64) -> Self {
        Self { opened_at: None, refused: false, reopen: Reopen::new(seed ^ 0x0053_4553_5349_4F4E) }
    }
}

impl ClientState {
    /// Part of a pass: opens the session stream when this polling client has a live 2025-11-25 task
    /// (`legacy_live`, found by the pass's walk over the records), after the backoff and the server's
    /// pause, unless the server refused it; closes it when no such task is left.
    pub(super) fn tend_session_stream(&mut self, now: u64, legacy_live: bool) {
        let stream = &mut self.session_stream;
        if stream.opened_at.is_some() {
            if !legacy_live {
                self.stop_session_stream();
            }
            return;
        }
        if legacy_live && !stream.refused && now >= stream.reopen.at.max(self.pause.until()) {
            stream.opened_at = Some(now);
            self.push(Effect::OpenSessionStream);
        }
    }

    /// Closes the session stream if one is open (the client closes, or stops polling).
    pub(super) fn stop_session_stream(&mut self) {
        if self.session_stream.opened_at.is_some() {
            self.push(Effect::CloseSessionStream);
        }
    }

    /// The session stream ended at `now`, as `end` says.
    pub fn on_session_stream_end(&mut self, now: u64, end: SessionStreamEnd) {
        let stream = &mut self.session_stream;
        match end {
            SessionStreamEnd::Refused => stream.refused = true,
            SessionStreamEnd::Ended => stream.reopen.after_end(now, stream.opened_at),
            SessionStreamEnd::Closed => {}
        }
        stream.opened_at = None;
    }
}
