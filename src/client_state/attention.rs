//! When a person should hear about a task they are not looking at (opt-in `notify`): the server says
//! the task now needs their input, or it ended, while the page is hidden. Only the tab that polls
//! observes the server and announces changes, so only it decides, once per new status: across all
//! tabs of the namespace there is one notification. A status a record arrives with (a call's handle,
//! a restore, another tab's copy) is never news: only an observation moves a task.
use crate::collections::SortedSet;
use crate::machine::record::LocalStatus;

/// Whether notifications are wanted, whether the page is hidden, and the tasks whose newest
/// observed change asks for the person and has not been announced yet.
#[derive(Debug, Default)]
pub(super) struct Attention {
    /// The host asked for notifications (`notify`).
    wanted: bool,
    /// The page is hidden (a client without a page is never hidden: it has no one to notify).
    hidden: bool,
    due: SortedSet<String>,
}

impl Attention {
    pub(super) fn set_wanted(&mut self, wanted: bool) {
        self.wanted = wanted;
    }

    pub(super) fn wanted(&self) -> bool {
        self.wanted
    }

    pub(super) fn set_hidden(&mut self, hidden: bool) {
        self.hidden = hidden;
    }

    /// The server moved task `id` from `before` to `after`: due for a notification when the new
    /// status asks for the person (input, or an end); any other move clears what was due.
    pub(super) fn observed(&mut self, id: &str, before: LocalStatus, after: LocalStatus) {
        if before == after {
            return;
        }
        if self.wanted && (after == LocalStatus::InputRequired || after.is_terminal()) {
            self.due.insert(id.to_owned());
        } else {
            self.due.remove(id);
        }
    }

    /// Task `id`'s change is stored and announced: whether to notify now (once; only while hidden).
    pub(super) fn announced(&mut self, id: &str) -> bool {
        self.due.remove(id) && self.hidden
    }

    /// Task `id` was forgotten.
    pub(super) fn forget(&mut self, id: &str) {
        self.due.remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LocalStatus::*;

    fn wanting(hidden: bool) -> Attention {
        let mut a = Attention::default();
        a.set_wanted(true);
        a.set_hidden(hidden);
        a
    }

    #[test]
    fn a_new_status_that_asks_for_the_person_is_told_once_while_hidden() {
        let mut a = wanting(true);
        a.observed("t1", Working, Working);
        assert!(!a.announced("t1"), "no change");
        a.observed("t1", Working, InputRequired);
        assert!(a.announced("t1"));
        assert!(!a.announced("t1"), "announced again (a later write): already told");
        a.observed("t1", InputRequired, Working);
        assert!(!a.announced("t1"), "back to work is not news to a person");
        a.observed("t1", Working, Completed);
        assert!(a.announced("t1"));
    }

    #[test]
    fn nothing_while_visible_unwanted_forgotten_or_moved_on() {
        let mut visible = wanting(false);
        visible.observed("t1", Working, InputRequired);
        assert!(!visible.announced("t1"));
        visible.set_hidden(true);
        assert!(!visible.announced("t1"), "seen while visible: not told later");
        let mut unwanted = wanting(true);
        unwanted.set_wanted(false);
        unwanted.observed("t1", Working, Failed);
        assert!(!unwanted.announced("t1"));
        let mut a = wanting(true);
        a.observed("t1", Working, Expired);
        a.forget("t1");
        assert!(!a.announced("t1"), "forgotten before it was announced");
        a.observed("t2", Working, InputRequired);
        a.observed("t2", InputRequired, Working);
        assert!(!a.announced("t2"), "answered elsewhere before it was announced");
    }
}
