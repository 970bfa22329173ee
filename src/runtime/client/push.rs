//! `subscriptions/listen`: one stream for the live tasks; acknowledged tasks are pushed, not polled.
use super::*;
use crate::host::spawn::spawn;

/// `subscriptions/listen` state: whether the server offers it, and the stream now open.
#[derive(Default)]
pub(super) struct Push {
    /// `None` until `server/discover` answered (or a listen told us the server has no such method).
    supported: Option<bool>,
    discovering: bool,
    /// The open stream: the task ids it was asked for, and how to close it.
    current: Option<(crate::collections::SortedSet<String>, web_sys::AbortController)>,
    /// Bumped per stream, so a closed stream's late callbacks are ignored.
    generation: u64,
    failures: u32,
    retry_at: u64,
}

impl ClientCore {
    /// Closes the open listen stream, if any.
    pub(super) fn stop_listening(&self) {
        if let Some((_, abort)) = self.push.borrow_mut().current.take() {
            abort.abort();
        }
    }

    /// Keeps one `subscriptions/listen` stream open for the live tasks, when the server offers it:
    /// tasks it acknowledges are not polled; a new set of tasks means a new stream (filters cannot
    /// change); a dropped stream means polling at once and listening again after a backoff.
    pub(super) fn ensure_listening(self: &Rc<Self>, now: u64) {
        let live: crate::collections::SortedSet<String> =
            self.records.borrow().iter().filter(|(_, r)| !r.is_settled()).map(|(id, _)| id.clone()).collect();
        let mut push = self.push.borrow_mut();
        match push.supported {
            None if !push.discovering && !live.is_empty() => {
                push.discovering = true;
                let core = self.clone();
                spawn(async move {
                    let supported = matches!(core.transport.send(&ClientRequest::Discover, None).await, Ok(RequestResult::Discover(d)) if d.supports_tasks());
                    {
                        let mut push = core.push.borrow_mut();
                        push.supported = Some(supported);
                        push.discovering = false;
                    }
                    core.pump();
                });
                return;
            }
            Some(true) => {}
            _ => return,
        }
        if push.current.as_ref().map(|(ids, _)| ids) == Some(&live) || now < push.retry_at {
            return;
        }
        if let Some((_, abort)) = push.current.take() {
            abort.abort();
        }
        drop(push);
        self.uncover(now);
        if live.is_empty() {
            return;
        }
        let Ok(abort) = web_sys::AbortController::new() else { return };
        let generation = {
            let mut push = self.push.borrow_mut();
            push.generation += 1;
            push.current = Some((live.clone(), abort.clone()));
            push.generation
        };
        let core = self.clone();
        spawn(async move { core.listen_loop(generation, live, abort).await });
    }

    /// Ends listen coverage: every task is polled again.
    pub(super) fn uncover(&self, now: u64) {
        for record in self.records.borrow_mut().values_mut() {
            record.set_pushed(now, false, &self.policy);
        }
    }

    pub(super) async fn listen_loop(
        self: Rc<Self>,
        generation: u64,
        ids: crate::collections::SortedSet<String>,
        abort: web_sys::AbortController,
    ) {
        let current = |core: &ClientCore| core.push.borrow().generation == generation;
        let core = self.clone();
        let asked = ids.clone();
        let end = self
            .transport
            .listen(ids.into_iter().collect(), &abort, move |event| {
                if !current(&core) {
                    return;
                }
                let now = globals::now_ms();
                match event {
                    ListenEvent::Acknowledged(accepted) => {
                        for id in accepted.iter().filter(|id| asked.contains(id)) {
                            if let Some(record) = core.records.borrow_mut().get_mut(id) {
                                record.set_pushed(now, true, &core.policy);
                            }
                            core.emit_task(id);
                        }
                    }
                    ListenEvent::Task(task) => {
                        let id = task.task.task_id.clone();
                        let change = core
                            .records
                            .borrow_mut()
                            .get_mut(&id)
                            .and_then(|r| r.on_notification(now, *task, &core.policy).ok());
                        if change == Some(Change::State) {
                            let core = core.clone();
                            spawn(async move { core.changed(&id).await });
                        }
                    }
                }
            })
            .await;
        if !current(&self) {
            return;
        }
        let now = globals::now_ms();
        {
            let mut push = self.push.borrow_mut();
            push.current = None;
            match end {
                ListenEnd::Closed => push.failures = 0,
                ListenEnd::Dropped(TransportError::Rpc(e))
                    if matches!(
                        e.kind(),
                        RpcErrorKind::MethodNotFound | RpcErrorKind::MissingRequiredClientCapability
                    ) =>
                {
                    push.supported = Some(false);
                }
                ListenEnd::Dropped(_) => {
                    push.failures = push.failures.saturating_add(1);
                    push.retry_at = now.saturating_add((1_000u64 << push.failures.min(5)).min(30_000));
                }
            }
        }
        self.uncover(now);
        self.pump();
    }
}
