//! Early polls at open (the rules are in `client_state/early.rs`): the hint read from and written to
//! the page's `localStorage`, and the `tasks/get` requests that go out while IndexedDB opens, before
//! this client exists. Their answers wait in an [`EarlyAnswers`] box until the client takes it over.
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::client_state::{apply_outcome, ExchangeOutcome, Keys, EARLY_POLLS};
use crate::host::{globals, local_storage, spawn::spawn};
use crate::json::Value;
use crate::machine::record::{Action, Change, TaskRecord};
use crate::protocol::request::ClientRequest;
use crate::transport::FetchTransport;

use super::exchange::outcome_of;
use super::ClientCore;

/// Answers of early polls that came back before the client existed, then the client they go to.
#[derive(Default)]
pub(super) struct EarlyAnswers {
    waiting: Vec<(String, u64, ExchangeOutcome)>,
    client: Weak<ClientCore>,
}

/// The task ids the hint names for `keys` (none where there is no hint or it is not a list of ids).
pub(super) fn read_hint(keys: &Keys) -> Vec<String> {
    let mut ids = Vec::new();
    if let Some(Ok(Value::Array(items))) = local_storage::get(&keys.early_hint()).map(|t| crate::json::from_str(&t)) {
        for item in items {
            if let (Value::String(id), true) = (item, ids.len() < EARLY_POLLS) {
                ids.push(id);
            }
        }
    }
    ids
}

/// Sends a `tasks/get` for each of `ids` now; the answers go to the box returned.
pub(super) fn poll(transport: &Rc<FetchTransport>, ids: &[String]) -> Rc<RefCell<EarlyAnswers>> {
    let answers = Rc::new(RefCell::new(EarlyAnswers::default()));
    for id in ids {
        let (transport, answers, id) = (transport.clone(), answers.clone(), id.clone());
        spawn(async move {
            let request = ClientRequest::GetTask { task_id: id.clone() };
            let outcome = outcome_of(transport.send(&request, None).await);
            let at = globals::now_ms();
            let client = answers.borrow().client.upgrade();
            match client {
                Some(client) => client.early_answered(&id, at, outcome).await,
                None => answers.borrow_mut().waiting.push((id, at, outcome)),
            }
        });
    }
    answers
}

impl ClientCore {
    /// Takes over the early polls of `ids` before the store is read: the answers that came back wait
    /// in the state for their records, later ones come straight here.
    pub(super) fn adopt_early_polls(self: &Rc<Self>, ids: &[String], answers: &RefCell<EarlyAnswers>) {
        let waiting = {
            let mut answers = answers.borrow_mut();
            answers.client = Rc::downgrade(self);
            std::mem::take(&mut answers.waiting)
        };
        self.run(|state| {
            state.early_polls_started(ids);
            for (id, at, outcome) in waiting {
                let _ = state.on_early_answer(at, &id, outcome);
            }
        });
    }

    /// An early poll's answer after the client took them over: stored and announced if it changed
    /// the task, as any poll's answer.
    async fn early_answered(&self, id: &str, at: u64, outcome: ExchangeOutcome) {
        let policy = self.state.borrow().config().policy;
        let replay = |record: &mut TaskRecord| apply_outcome(record, at, &Action::Poll, &outcome, &policy);
        if self.run(|state| state.on_early_answer(at, id, outcome.clone())) == Change::State {
            self.changed_with(id, &replay).await;
        }
    }

    /// Writes the hint when the live set changed (the polling tab only).
    pub(super) fn write_early_hint(&self) {
        let Some(ids) = self.state.borrow_mut().early_hint() else { return };
        let key = self.state.borrow().keys().early_hint();
        let text = Value::Array(ids.into_iter().map(Value::from).collect()).to_string();
        local_storage::set(&key, (text != "[]").then_some(text.as_str()));
    }
}
