//! The poll loop: run what is due, set one timer for what comes next, apply what came back.
use super::*;
use crate::host::spawn::spawn;

/// One of the polling client's request slots, held by a running exchange; dropping it frees the slot.
pub(super) struct RequestSlot(Rc<Cell<usize>>);

impl RequestSlot {
    fn take(count: &Rc<Cell<usize>>) -> RequestSlot {
        count.set(count.get() + 1);
        RequestSlot(count.clone())
    }
}

impl Drop for RequestSlot {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

impl ClientCore {
    /// Runs what is due now and sets the timer for what comes next.
    pub fn pump(self: &Rc<Self>) {
        // With `autoPoll: false` nothing runs by itself: `step()` does the work when the host says.
        if self.closed.get() || !self.auto_poll {
            return;
        }
        let now = globals::now_ms();
        let online = !self.offline.get() && self.leader.get();
        let mut expired = Vec::new();
        let mut actions = Vec::new();
        let mut backlog = Vec::new();
        let room = MAX_REQUESTS_IN_FLIGHT.saturating_sub(self.requests_in_flight.get());
        // One pass, with only cheap checks for a record that has nothing due (a pass over 10,000 records
        // is most of what an answer costs when nothing waits).
        for (id, record) in self.records.borrow_mut().iter_mut() {
            if record.tick(now, &self.policy) == Change::State {
                expired.push(id.clone());
            }
            while online && actions.len() < room {
                let Some(action) = record.next_action(now) else { break };
                actions.push((id.clone(), action));
            }
            if online && actions.len() >= room {
                if let Some(at) = record.next_wakeup(&self.policy).filter(|&at| at <= now) {
                    backlog.push((at, id.clone()));
                }
            }
        }
        // What waits for a slot goes earliest due first, then by id (the sort is stable; the list is
        // popped from its end): after a reload, a handle not yet polled goes before one polled a moment
        // ago and due again.
        let order = crate::collections::sorted_order(backlog.len(), &mut |a, b| backlog[a].0 < backlog[b].0);
        *self.backlog.borrow_mut() = order.into_iter().rev().map(|i| std::mem::take(&mut backlog[i].1)).collect();
        for id in expired {
            let core = self.clone();
            spawn(async move { core.changed(&id).await });
        }
        for (id, action) in actions {
            self.start(id, action);
        }
        if online && self.auto_poll {
            self.ensure_listening(now);
        }
        self.reschedule(now);
    }

    /// Starts one exchange in a request slot.
    fn start(self: &Rc<Self>, id: String, action: Action) {
        let core = self.clone();
        let slot = RequestSlot::take(&self.requests_in_flight);
        spawn(async move { core.execute(id, action, Some(slot)).await });
    }

    /// After an exchange: its freed slot goes to work the last `pump` found due and left waiting, with
    /// no pass over every record (a reload with 10,000 handles due would otherwise pay one pass per
    /// answer); a full `pump` runs once nothing is left waiting.
    fn start_waiting(self: &Rc<Self>) {
        if self.closed.get() || !self.auto_poll || self.offline.get() || !self.leader.get() {
            return self.pump();
        }
        let now = globals::now_ms();
        while self.requests_in_flight.get() < MAX_REQUESTS_IN_FLIGHT {
            let Some(id) = self.backlog.borrow_mut().pop() else {
                return self.pump();
            };
            let action = self.records.borrow_mut().get_mut(&id).and_then(|r| r.next_action(now));
            if let Some(action) = action {
                self.start(id, action);
            }
        }
    }

    pub(super) fn reschedule(self: &Rc<Self>, now: u64) {
        if !self.auto_poll || self.closed.get() || !self.leader.get() {
            return;
        }
        let next = self.records.borrow().values().filter_map(|r| r.next_wakeup(&self.policy)).min();
        // Every request slot taken: what is due waits for an answer, whose `pump` starts it (a timer due
        // now would only spin).
        let saturated = self.requests_in_flight.get() >= MAX_REQUESTS_IN_FLIGHT;
        let next = next.filter(|&at| !(saturated && at <= now));
        let timer = next.and_then(|at| {
            let delay = at.saturating_sub(now).min(MAX_TIMER_MS) as u32;
            let weak = Rc::downgrade(self);
            Timeout::new(delay, move || {
                if let Some(core) = weak.upgrade() {
                    core.pump();
                }
            })
            .ok()
        });
        *self.timer.borrow_mut() = timer;
    }

    /// Runs one exchange and applies its outcome. `slot`, when `pump` started it, is freed as soon as
    /// the answer is in, so the `pump` that follows can start the next waiting request.
    pub(super) async fn execute(self: Rc<Self>, id: String, action: Action, slot: Option<RequestSlot>) {
        let request = match &action {
            Action::Poll => ClientRequest::GetTask { task_id: id.clone() },
            Action::SendUpdate(responses) => {
                ClientRequest::UpdateTask { task_id: id.clone(), input_responses: responses.clone() }
            }
            Action::SendCancel => ClientRequest::CancelTask { task_id: id.clone() },
        };
        let result = self.transport.send(&request, None).await;
        drop(slot);
        let now = globals::now_ms();
        let policy = self.policy;
        // The outcome as a function of the record, so step mode can re-apply it to a record another
        // isolate wrote in the meantime.
        let apply = |record: &mut TaskRecord| -> Change {
            match (&action, &result) {
                (_, Err(TransportError::Rpc(e))) if e.kind() == RpcErrorKind::InvalidParams => {
                    record.on_task_unknown(e.message.clone())
                }
                (Action::Poll, Ok(RequestResult::Task(task))) => {
                    record.on_poll_result(now, task.clone(), &policy).unwrap_or(Change::Nothing)
                }
                (Action::Poll, Ok(_)) => record.on_poll_failure(now, Failure::BadResponse, &policy),
                (Action::Poll, Err(e)) => record.on_poll_failure(now, e.as_failure(), &policy),
                (Action::SendUpdate(responses), Ok(_)) => record.on_update_ack_of(responses),
                (Action::SendUpdate(_), Err(e)) => record.on_update_failure(now, e.as_failure(), &policy),
                (Action::SendCancel, Ok(_)) => record.on_cancel_ack(),
                (Action::SendCancel, Err(e)) => record.on_cancel_failure(now, e.as_failure(), &policy),
            }
        };
        let change = {
            let mut records = self.records.borrow_mut();
            let Some(record) = records.get_mut(&id) else {
                // Forgotten while its request was out: its slot still goes to the next waiting work.
                drop(records);
                return self.start_waiting();
            };
            apply(record)
        };
        // The freed slot goes on to the next request now, not after the write below: slots that waited
        // for IndexedDB left the network idle (1,000 restored handles: 9.4 s until each was polled once,
        // 6.3 s without the wait).
        self.start_waiting();
        if change == Change::State {
            self.changed_with(&id, &apply).await;
        } else if !self.auto_poll {
            // Timing only (a poll that changed nothing): step mode still stores the schedule, so the
            // next isolate does not poll early; compared on write like every step-mode write.
            self.persist_with(&id, &apply).await;
        }
    }
}
