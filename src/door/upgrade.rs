//! A door without the 2025-11-25 flow: the JS driver's first download (`docs/decisions/`, two builds
//! and the full door). Where the full door would drive that generation, this one asks the driver
//! to hand over to the door that has it, loaded only then (`{"do":"upgrade"}`):
//!
//! - a stored link or record of that generation (read at restore, in a step, when this tab takes the
//!   lead, or from another tab);
//! - a call, a tool listing or a resource read whose 2026-07-28 failure may mean an older server, while the server's
//!   generation is not known.
//!
//! The driver then makes the full door, restores it from the store and feeds it again every host call
//! still waiting. So this door settles none of them once it asked: the call that found out loses its
//! pending record here and runs again there, and what a restore decided from records it cannot drive
//! is not done.
use crate::error::ClientError;
use crate::json::Value;
use crate::transport::reply::may_be_older_server;
use crate::transport::TransportError;

use crate::machine::record::Action;

use super::{Door, Effect, HostRequest, Purpose};

/// What this door knows of its server's generation, and whether it asked for the hand-over.
/// Whether this door drives 2025-11-25 tasks (`ClientState::set_drives_legacy`): it holds none.
pub(super) const DRIVES_LEGACY: bool = false;

/// The era detection's `server/discover` (`Purpose::Negotiate`): never sent by this door, so none.
pub(super) enum Negotiation {}

/// The door's part of the flow it lacks: when to hand over ([`Upgrade`]).
pub(super) type Era = Upgrade;

#[derive(Default)]
pub(super) struct Upgrade {
    /// The server answered a call as 2026-07-28, or the store says it speaks it.
    known: bool,
    /// The store says the server speaks 2025-11-25.
    stored: bool,
    /// The host requests whose failure asked for the hand-over, with that failure.
    refused: Vec<(HostRequest, ClientError)>,
    /// The driver was told: this door is done.
    handed: bool,
}

impl Door {
    /// The generation stored for this server, from the entries read under the prefix.
    pub(super) fn read_link(&mut self, _now: u64, entries: &[(&str, &str)]) {
        let key = self.state.keys().server();
        // Only its `protocol` matters here (the full door reads the session too).
        let Some((_, text)) = entries.iter().find(|(k, _)| *k == key) else { return };
        let link = crate::json::from_str(text).ok();
        match link.as_ref().and_then(|link| link.get("protocol")).and_then(Value::as_str) {
            Some(crate::protocol::PROTOCOL_VERSION) => self.era.known = true,
            Some(crate::protocol::legacy::LEGACY_PROTOCOL_VERSION) => self.era.stored = true,
            _ => {}
        }
    }

    /// Every request goes out as 2026-07-28 here (it is handed back).
    pub(super) fn legacy_first(&mut self, request: HostRequest) -> Option<HostRequest> {
        Some(request)
    }

    /// A 2026-07-28 call worked: the server speaks it.
    pub(super) fn link_confirmed(&mut self) {
        self.era.known = true;
    }

    /// A 2026-07-28 request failed with `error`: when that may mean an older server and the generation
    /// is unknown, the hand-over is asked for (`None`: the request is taken; a call's pending record
    /// goes with the hand-over); otherwise the request is handed back to fail as it did.
    pub(super) fn maybe_negotiate(&mut self, request: HostRequest, error: TransportError) -> Option<HostRequest> {
        if self.era.known || !may_be_older_server(&error) {
            return Some(request);
        }
        self.era.refused.push((request, ClientError::from(&error)));
        None
    }

    /// After an event: once the hand-over is asked for and nothing that must not be sent twice is on
    /// its way, the driver gets it with only the store deletes decided on the way (the calls' pending
    /// records: the full door records them again); nothing else this door decided is done. While a
    /// call, an answer, a cancel or a write is under way, the hand-over waits for it: its request may
    /// have reached a server that acted on it, and the full door would send it again.
    pub(super) fn handing_over(&mut self) -> Option<Vec<Value>> {
        let store_says = self.era.stored || self.state.met_legacy();
        if !store_says && self.era.known {
            // Another call showed the server speaks 2026-07-28 meanwhile: the failures stand.
            while let Some((request, error)) = self.era.refused.pop() {
                self.end_request(&request, Err(error));
            }
        }
        let wanted = store_says || !self.era.refused.is_empty();
        if !wanted || (!store_says && self.sends_under_way()) {
            return None;
        }
        self.era.handed = true;
        // What this door decided on the way (in `out`) is left undone; the calls' pending records go.
        let calls = self.exchanges.0.iter().filter_map(|(_, exchange)| match &exchange.purpose {
            Purpose::Call(call) => Some(call),
            _ => None,
        });
        let calls = calls.chain(self.asking.0.iter().map(|(_, (call, _))| call));
        let mut out = super::Out::default();
        let refused = self.era.refused.iter().filter_map(|(request, _)| match request {
            HostRequest::Call(call) => Some(call),
            HostRequest::Read { .. } => None,
        });
        for call in calls.chain(refused) {
            out.push(Effect::Delete { key: self.state.keys().call(&call.call_id) });
        }
        out.push(Effect::Upgrade);
        Some(out.take())
    }

    /// A call, an answer, a cancel, a tools page or a write on its way.
    fn sends_under_way(&self) -> bool {
        let sends = self.exchanges.0.iter().any(|(_, exchange)| match &exchange.purpose {
            Purpose::Call(_) | Purpose::Read { .. } => true,
            Purpose::Task { action, .. } => !matches!(action, Action::Poll),
            _ => false,
        });
        sends || !self.asking.0.is_empty() || self.writing.is_some()
    }

    /// Whether the hand-over was asked for: the driver feeds this door nothing more.
    pub(super) fn handed_over(&self) -> bool {
        self.era.handed
    }

    // What the door with the flow does in it, none of which this door ever meets: it sends no
    // exchange of the flow (`is_legacy` is false for every `n`), holds no task of it (the state is
    // told `DRIVES_LEGACY`), and opens no session stream or `tasks/result` stream.

    /// No exchange is of the 2025-11-25 flow here.
    pub(super) fn is_legacy(&self, _n: u64) -> bool {
        false
    }

    /// No task is driven in the 2025-11-25 flow here.
    pub(super) fn drives_as_legacy(&self, _id: &str) -> bool {
        false
    }

    /// Never called ([`Self::drives_as_legacy`] is false).
    pub(super) fn legacy_exchange(&mut self, _id: String, _action: Action, _slot: bool, _in_step: Option<u64>) {}

    /// Never called ([`Self::is_legacy`] is false).
    pub(super) fn legacy_answered(
        &mut self,
        _now: u64,
        _n: u64,
        _head: super::answer::Head,
        _session: Option<&str>,
        _sse: bool,
        _body: &[u8],
    ) {
    }

    /// Never called ([`Self::is_legacy`] is false).
    pub(super) fn legacy_chunk(&mut self, _now: u64, _n: u64, _end: bool, _body: &[u8]) {}

    /// Never called ([`Self::is_legacy`] is false).
    pub(super) fn legacy_decided(&mut self, _now: u64, _n: u64, _result: Result<Value, TransportError>, _lost: bool) {}

    /// No era detection is sent here, so none is answered.
    pub(super) fn negotiated(
        &mut self,
        _now: u64,
        negotiation: Negotiation,
        _status: u16,
        _result: Result<crate::protocol::request::RequestResult, TransportError>,
    ) {
        match negotiation {}
    }

    /// No `tasks/result` stream is open here.
    pub(super) fn close_result_stream(&mut self, _id: &str) {}

    /// No session stream here (the state holds no 2025-11-25 task to open it for).
    pub(super) fn open_session_stream(&mut self) {}

    /// See [`Self::open_session_stream`].
    pub(super) fn close_session_stream(&mut self) {}
}
