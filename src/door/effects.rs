//! The state's effects (`client_state::Effect`) carried out: most become the driver's effects, some
//! send a request or write a record first.
use crate::client_state::Effect as StateEffect;
use crate::protocol::request::ClientRequest;
use crate::protocol::subscriptions::ListenFilter;
use crate::snapshot::UnknownCallSnapshot;

use super::{Door, Effect, Emitted, Purpose};

impl Door {
    /// Turns the state's effects into the driver's; whether the timer is to be set again (once, after
    /// the rest, however many passes asked).
    pub(super) fn perform(&mut self) -> bool {
        let mut rearm = false;
        loop {
            let effects = self.state.drain_effects();
            if effects.is_empty() {
                return rearm;
            }
            for effect in effects {
                rearm |= self.perform_one(effect);
            }
        }
    }

    /// Carries out one of the state's effects; `true` for [`StateEffect::Rearm`].
    pub(super) fn perform_one(&mut self, effect: StateEffect) -> bool {
        match effect {
            StateEffect::Send { id, action, slot } => self.task_send(id, action, slot, None),
            StateEffect::Store(id) => self.write(&id),
            StateEffect::Delete(key) => match self.deleting.as_mut() {
                Some(keys) => {
                    keys.insert(key);
                }
                None => self.out.push(Effect::Delete { key }),
            },
            StateEffect::Save { key, text } => self.out.push(Effect::Save { key, text }),
            StateEffect::EmitTask(id) => {
                let snapshot = self.snapshot(&id);
                self.out.push(Effect::Emit(Emitted::Task(snapshot)));
            }
            // The driver asks for the words (`notice`) only when the person allowed notifications.
            StateEffect::Notify(id) => self.out.push(Effect::Notify { id }),
            StateEffect::EmitForget(id) => {
                // A forgotten 2025-11-25 task's `tasks/result` stream closes with it.
                self.close_result_stream(&id);
                self.out.push(Effect::Emit(Emitted::Forget(id)));
            }
            StateEffect::EmitCall(call) => {
                let detail = UnknownCallSnapshot::of_call(&call).to_json();
                self.out.push(Effect::Emit(Emitted::Call(detail)));
            }
            StateEffect::EmitAuth(detail) => self.out.push(Effect::Emit(Emitted::Auth(detail))),
            StateEffect::EmitStorage(reason) => self.out.push(Effect::Storage { reason }),
            StateEffect::Post(message) => {
                self.out.push(Effect::Post { text: crate::json::to_string(&message.to_json()) })
            }
            StateEffect::Settle { waiter, outcome } => {
                if let Some(x) = self.waits.remove(&waiter) {
                    let outcome = outcome.map(|id| self.snapshot(&id));
                    self.done(x, outcome);
                }
            }
            StateEffect::Discover => {
                self.send(ClientRequest::Discover, Purpose::Discover);
            }
            StateEffect::Listen { generation, ids } => {
                let request = ClientRequest::Listen(ListenFilter::tasks(ids));
                self.listening = Some(self.send(request, Purpose::Listen { generation }));
            }
            // The stream's later bytes, if any come before the driver closes it, find no exchange.
            StateEffect::StopListening => {
                if let Some(n) = self.listening.take().filter(|&n| self.exchanges.remove(n).is_some()) {
                    self.out.push(Effect::Close { n });
                }
            }
            StateEffect::OpenSessionStream => self.open_session_stream(),
            StateEffect::CloseSessionStream => self.close_session_stream(),
            StateEffect::Rearm => return true,
        }
        false
    }
}
