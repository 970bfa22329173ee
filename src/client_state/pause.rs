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
//!
//! Sign-in works the same way, open-ended: a 401 or 403 with `WWW-Authenticate` holds every request
//! the client starts by itself, and the host hears it (the `auth` event). The pause ends at a probe
//! time, [`AUTH_RETRY_BASE_MS`] after the refusal and doubling with each refused probe up to
//! [`AUTH_RETRY_MAX_MS`]; the requests then sent ask the host's `headers` again. The first request
//! that succeeds — such a probe, or a call of the host's, which sign-in never holds back — ends it in
//! every tab ([`TabMessage::Auth`]) and the host hears that too.
use crate::error::{ClientError, ErrorKind};
use crate::json::{json, Map, Value};
use crate::machine::backoff::Failure;
use crate::machine::record::TaskRecord;

use super::{ClientState, Effect, TabMessage};

/// The longest pause a server can ask for; a larger `Retry-After` is read as this (a hostile or broken
/// server must not stop the client for days).
pub const MAX_SERVER_PAUSE_MS: u64 = crate::machine::backoff::MAX_RETRY_AFTER_MS;

/// The first wait after a server asks for sign-in, before requests go to it again.
pub const AUTH_RETRY_BASE_MS: u64 = 2_000;

/// The longest wait between two probes while the server asks for sign-in.
pub const AUTH_RETRY_MAX_MS: u64 = 60_000;

/// The server asks for sign-in: the `auth` event's detail and when requests go to it again.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthPause {
    /// `{ resolved: false, status, error, description, scope, resourceMetadata, retryAt }`.
    detail: Value,
    /// Refused probes in a row (the first refusal is one).
    refusals: u32,
    /// The next probe (Unix ms): the detail's `retryAt`.
    until: u64,
}

impl AuthPause {
    /// The `auth` event's detail (and the tab message's): the refusal.
    pub fn detail(&self) -> &Value {
        &self.detail
    }
}

/// Until when the server asked to be left alone.
#[derive(Debug, Default)]
pub(super) struct Pause {
    /// The end of a `Retry-After`.
    until: u64,
    /// The server asks for sign-in.
    auth: Option<AuthPause>,
}

impl Pause {
    /// The end of the pause (Unix ms); in the past when there is none. One copy for its callers.
    #[inline(never)]
    pub(super) fn until(&self) -> u64 {
        self.until.max(self.auth.as_ref().map_or(0, |a| a.until))
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

    /// A request was refused with 401 or 403 and a `WWW-Authenticate` challenge (its `Bearer`
    /// parameters as [`crate::transport::parse_challenge`] reads them): nothing the client starts by
    /// itself goes to the server before the next probe time, here and in the other tabs, and the host
    /// hears of it with that time. Refusals of requests sent before the current pause began count
    /// once, and are not announced again.
    pub fn on_auth_refused(&mut self, now: u64, status: u16, mut detail: Map) {
        let refusals = match &self.pause.auth {
            Some(auth) if now < auth.until => return,
            Some(auth) => auth.refusals.saturating_add(1),
            None => 1,
        };
        let until =
            now.saturating_add(AUTH_RETRY_BASE_MS.saturating_mul(1 << (refusals - 1).min(16)).min(AUTH_RETRY_MAX_MS));
        detail.put("resolved", Value::from(false));
        detail.put("status", Value::from(status));
        detail.put("retryAt", Value::from(until));
        self.heed_auth(Value::Object(detail), refusals, until, true);
    }

    /// A request to the server succeeded: a sign-in pause ends, here and in the other tabs.
    pub fn on_auth_accepted(&mut self) {
        if self.pause.auth.is_some() {
            self.heed_auth(json!({ "resolved": true }), 0, 0, true);
        }
    }

    /// Another tab's sign-in pause (its probe time at most [`AUTH_RETRY_MAX_MS`] away), or its end.
    pub(super) fn heed_shared_auth(&mut self, now: u64, detail: Value) {
        let until = detail.get("retryAt").and_then(Value::as_u64).unwrap_or(0);
        self.heed_auth(detail, 1, until.min(now.saturating_add(AUTH_RETRY_MAX_MS)), false);
    }

    /// The sign-in pause is now `detail` (until `until`; none when it has no `retryAt`): the host
    /// hears of it, and the other tabs too when it began here (`post`).
    fn heed_auth(&mut self, detail: Value, refusals: u32, until: u64, post: bool) {
        self.push(Effect::EmitAuth(detail.clone()));
        let paused = detail.get("retryAt").is_some();
        if post {
            self.push(Effect::Post(TabMessage::Auth { detail: detail.clone() }));
        }
        self.pause.auth = paused.then_some(AuthPause { detail, refusals, until });
        self.push(Effect::Rearm);
    }

    /// The server's sign-in pause, if it asks for sign-in.
    pub fn auth_pause(&self) -> Option<&AuthPause> {
        self.pause.auth.as_ref()
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
    /// Sign-in holds none back: the host's request asks `headers` anew, and is the probe that ends it.
    pub fn refuse_while_paused(&self, now: u64) -> Result<(), ClientError> {
        let until = self.pause.until;
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
