//! The driver of a 2025-11-25 session's GET stream (when it opens and closes is decided in
//! `client_state::session_stream`): a GET with the session's headers, whose messages are handled as
//! on a task's `tasks/result` stream — `notifications/tasks/status` for any task of this client, and
//! task-related `elicitation/create` requests.
use crate::client_state::SessionStreamEnd;
use crate::host::globals;

use super::ClientCore;

#[cfg(feature = "legacy")]
impl ClientCore {
    pub(super) fn open_session_stream(&self) {
        let Ok(abort) = web_sys::AbortController::new() else {
            self.state.borrow_mut().on_session_stream_end(globals::now_ms(), SessionStreamEnd::Ended);
            return;
        };
        let Some(core) = self.me.upgrade() else { return };
        self.link.session_abort.replace(Some(abort.clone()));
        crate::host::spawn::spawn(async move {
            let end = core.session_stream(&abort.signal()).await;
            core.run(|state| state.on_session_stream_end(globals::now_ms(), end));
        });
    }

    pub(super) fn close_session_stream(&self) {
        if let Some(abort) = self.link.session_abort.take() {
            abort.abort();
        }
    }
}

/// A build without the 2025-11-25 flow has no session: a record of that generation (stored by a
/// build with it) gets no stream.
#[cfg(not(feature = "legacy"))]
impl ClientCore {
    pub(super) fn open_session_stream(&self) {
        self.state.borrow_mut().on_session_stream_end(globals::now_ms(), SessionStreamEnd::Refused);
    }

    pub(super) fn close_session_stream(&self) {}
}
