//! The system notification of a task that needs the person, or ended, while the page was hidden
//! (opt-in `notify`; [`crate::client_state::ClientState`] decides when, once across tabs). Shown
//! through the Notification API only when the person already granted it: the host asks, from a
//! gesture it provides (`Notification.requestPermission()` in a click handler; a page cannot ask on
//! its own), so this module has no part in asking. A click brings the tab forward, closes the
//! notification and tells the page which task (the `notificationclick` event; the element focuses
//! that card). The click's work is done by bound JS functions, so no Rust closure waits for it.
use super::ClientCore;
use crate::host::events::{notice_language, show_notice};
use crate::notice::notice;

impl ClientCore {
    /// Shows task `id`'s notification, if the person allowed notifications.
    pub(super) fn show_notice(&self, id: &str) {
        let (tool, status, tag) = {
            let state = self.state.borrow();
            let Some(record) = state.record(id) else { return };
            (record.tool_name().to_owned(), record.status(), state.keys().task(id))
        };
        let Some(language) = notice_language() else { return };
        let words = notice(&language, status);
        show_notice(&tool, words.body, words.lang, &tag, &self.events, id);
    }
}
