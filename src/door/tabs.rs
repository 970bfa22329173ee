//! The other tabs of the namespace: their messages, and a host's `respond` or `cancel` made here when
//! this tab polls, else forwarded to the tab that does (and given up after [`FORWARD_TIMEOUT_MS`]).
use crate::client_state::{Effect as StateEffect, TabMessage};
use crate::error::ClientError;
use crate::json::Value;
use crate::machine::record::Change;
use crate::protocol::input::decode_input_responses;

use super::{AfterWrite, Door};

/// How long a `respond` or `cancel` forwarded to the polling tab waits for its reply.
pub(super) const FORWARD_TIMEOUT_MS: u64 = 5_000;

/// Who hears how a change of this tab's went: a host call here, or the tab that forwarded it.
pub(super) enum Asker {
    /// The host call's number.
    Host(u64),
    /// The forwarded request's id (its reply goes over the channel).
    Tab(String),
}

impl Door {
    /// A host's `respond` (`answers`) or `cancel` (`None`) of task `id`: here when this tab polls,
    /// else forwarded to the tab that does.
    pub(super) fn change(&mut self, now: u64, x: u64, id: &str, answers: Result<Option<Value>, ClientError>) {
        match (answers, self.state.record(id).map(|_| self.state.is_leader())) {
            (Err(e), _) => self.done(x, Err(e)),
            (_, None) => self.done(x, Err(ClientError::unknown_task(id))),
            (Ok(answers), Some(true)) => self.change_here(now, Asker::Host(x), id, answers),
            (Ok(answers), Some(false)) => self.forward(now, x, id.to_owned(), answers),
        }
    }

    /// An answer (`answers`) or a cancel (`None`) of task `id` in the polling tab, from this tab's host
    /// or forwarded by another: stored, then sent by the poll loop; `asker` hears once it is stored.
    pub(super) fn change_here(&mut self, now: u64, asker: Asker, id: &str, answers: Option<Value>) {
        if self.stepping() {
            return self.refresh_then_change(asker, id, answers);
        }
        let outcome = match answers {
            Some(answers) => decode_input_responses(&answers)
                .map_err(|e| ClientError::usage(format!("responses: {e}")))
                .and_then(|responses| self.state.answer(id, responses)),
            None => self.state.request_cancel(id),
        };
        match outcome {
            Ok(Change::State) => {
                self.after_write.push(AfterWrite { id: id.to_owned(), asker, tool: None });
                self.write(id);
            }
            Ok(_) => self.settle(asker, Ok(Value::Null)),
            Err(e) => self.settle(asker, Err(e)),
        }
        self.state.poll_due(now);
    }

    /// Tells `asker` how its change went: its host call settles, or its tab gets the reply.
    pub(super) fn settle(&mut self, asker: Asker, outcome: Result<Value, ClientError>) {
        match asker {
            Asker::Host(x) => self.done(x, outcome),
            Asker::Tab(req) => {
                self.perform_one(StateEffect::Post(TabMessage::Reply { req, error: outcome.err() }));
            }
        }
    }

    /// A message from another tab of the namespace (its JSON text in `body`).
    pub(super) fn tab_message(&mut self, now: u64, body: &[u8]) {
        let message = match crate::json::from_own_str(&crate::text::lossy_utf8(body)) {
            Ok(message) => message,
            Err(e) => {
                let reason = format!("another tab's message could not be read: {e}");
                return self.out.push(super::Effect::Storage { reason });
            }
        };
        let Some(message) = TabMessage::from_json(&message) else { return };
        match self.state.on_tab_message(now, message) {
            Some(TabMessage::Reply { req, error }) => {
                let Some(at) = self.forwarded.iter().position(|(r, _, _)| *r == req) else { return };
                let (_, x, _) = self.forwarded.swap_remove(at);
                self.done(x, error.map_or(Ok(Value::Null), Err));
            }
            Some(TabMessage::Respond { req, id, answers }) => {
                self.change_here(now, Asker::Tab(req), &id, Some(answers))
            }
            Some(TabMessage::Cancel { req, id }) => self.change_here(now, Asker::Tab(req), &id, None),
            _ => {}
        }
    }

    /// A `respond` (with `answers`) or a `cancel` of task `id`, sent to the polling tab; host call `x`
    /// settles with its reply, or gives up after [`FORWARD_TIMEOUT_MS`].
    pub(super) fn forward(&mut self, now: u64, x: u64, id: String, answers: Option<Value>) {
        let req = format!("req-{}", crate::text::hex16(self.next_random()));
        let message = match answers {
            Some(answers) => TabMessage::Respond { req: req.clone(), id, answers },
            None => TabMessage::Cancel { req: req.clone(), id },
        };
        self.perform_one(StateEffect::Post(message));
        self.forwarded.push((req, x, now.saturating_add(FORWARD_TIMEOUT_MS)));
        self.rearm = true;
    }

    /// Forwards the polling tab did not answer in time.
    pub(super) fn give_up_forwards(&mut self, now: u64) {
        let (late, waiting) = std::mem::take(&mut self.forwarded).into_iter().partition(|(_, _, until)| *until <= now);
        self.forwarded = waiting;
        for (_, x, _) in late {
            self.done(x, Err(ClientError::polling_tab_silent()));
        }
    }
}
