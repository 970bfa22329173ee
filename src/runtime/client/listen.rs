//! `subscriptions/listen` for the state: asks whether the server offers it, opens the stream the
//! state asks for, and feeds its acknowledgement, tasks and end back with the stream's generation.
use crate::host::globals;
use crate::host::spawn::spawn;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::transport::listen_stream::listen_end;
use crate::transport::ListenEvent;

use super::ClientCore;

impl ClientCore {
    /// `server/discover`, then the state decides whether to listen.
    pub(super) fn discover(&self) {
        let Some(core) = self.me.upgrade() else { return };
        spawn(async move {
            let answer = core.transport.send(&ClientRequest::Discover, None).await;
            let now = globals::now_ms();
            if let Err(e) = &answer {
                core.run(|state| state.on_server_failure(now, &e.as_failure()));
            }
            let supported = matches!(answer, Ok(RequestResult::Discover(d)) if d.supports_tasks());
            core.run(|state| state.on_discovered(now, supported));
        });
    }

    /// Opens stream `generation` for `ids` (the previous one was closed by the state's effect).
    pub(super) fn listen(&self, generation: u64, ids: Vec<String>) {
        let Some(core) = self.me.upgrade() else { return };
        let Ok(abort) = web_sys::AbortController::new() else { return };
        *self.listen_abort.borrow_mut() = Some(abort.clone());
        spawn(async move {
            let events = core.clone();
            let end = core
                .transport
                .listen(ids, &abort, move |event| {
                    let now = globals::now_ms();
                    match event {
                        ListenEvent::Acknowledged(accepted) => {
                            events.run(|state| state.on_listen_ack(now, generation, &accepted))
                        }
                        ListenEvent::Task(task) => events.run(|state| state.on_listen_task(now, generation, *task)),
                        // Every chunk: a plain borrow, no pass and no effects to carry out.
                        ListenEvent::Bytes => events.state.borrow_mut().on_listen_bytes(now, generation),
                    }
                })
                .await;
            let now = globals::now_ms();
            if let Some(e) = &end {
                core.run(|state| state.on_server_failure(now, &e.as_failure()));
            }
            let end = listen_end(end.as_ref());
            core.run(|state| state.on_listen_end(now, generation, end));
        });
    }
}
