//! When a person should hear about a task they are not looking at (opt-in `notify`): the task now
//! needs their input, or it ended, while the page is hidden. Only the tab that polls announces
//! changes, so only it can decide, and it decides once per new status: across all tabs of the
//! namespace there is one notification.
use crate::collections::SortedMap;
use crate::machine::record::LocalStatus;

/// The status each task had when this client last saw it, and whether notifications are wanted.
#[derive(Debug, Default)]
pub(super) struct Attention {
    /// The host asked for notifications (`notify`).
    wanted: bool,
    /// The page is hidden (a client without a page is never hidden: it has no one to notify).
    hidden: bool,
    seen: SortedMap<String, LocalStatus>,
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

    /// A record came in (a call's handle, a restore, another tab's copy): its status is not news.
    pub(super) fn saw(&mut self, id: &str, status: LocalStatus) {
        self.seen.insert(id.to_owned(), status);
    }

    /// Task `id` was forgotten.
    pub(super) fn forget(&mut self, id: &str) {
        self.seen.remove(id);
    }

    /// Task `id` changed to `status` (a change this tab stored and announces): whether to notify.
    /// Only a new status that asks for the person (input, or an end) counts, and only while hidden.
    pub(super) fn changed(&mut self, id: &str, status: LocalStatus) -> bool {
        let before = self.seen.insert(id.to_owned(), status);
        let news = before.is_some_and(|b| b != status);
        let asks = status == LocalStatus::InputRequired || status.is_terminal();
        self.wanted && self.hidden && news && asks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanting(hidden: bool) -> Attention {
        let mut a = Attention::default();
        a.set_wanted(true);
        a.set_hidden(hidden);
        a.saw("t1", LocalStatus::Working);
        a
    }

    #[test]
    fn a_new_status_that_asks_for_the_person_is_told_once_while_hidden() {
        let mut a = wanting(true);
        assert!(!a.changed("t1", LocalStatus::Working), "no change");
        assert!(a.changed("t1", LocalStatus::InputRequired));
        assert!(!a.changed("t1", LocalStatus::InputRequired), "the same status again: already told");
        assert!(!a.changed("t1", LocalStatus::Working), "back to work is not news to a person");
        assert!(a.changed("t1", LocalStatus::Completed));
    }

    #[test]
    fn nothing_while_visible_or_unwanted_or_for_an_unseen_task() {
        let mut visible = wanting(false);
        assert!(!visible.changed("t1", LocalStatus::InputRequired));
        let mut unwanted = wanting(true);
        unwanted.set_wanted(false);
        assert!(!unwanted.changed("t1", LocalStatus::Failed));
        let mut a = wanting(true);
        assert!(!a.changed("t2", LocalStatus::Completed), "a record never seen arrives with its status");
        a.forget("t1");
        assert!(!a.changed("t1", LocalStatus::Completed), "a forgotten task is new again");
    }

    #[test]
    fn a_status_seen_while_visible_is_not_told_later() {
        let mut a = wanting(false);
        assert!(!a.changed("t1", LocalStatus::InputRequired));
        a.set_hidden(true);
        assert!(!a.changed("t1", LocalStatus::InputRequired), "the person saw it already");
        assert!(a.changed("t1", LocalStatus::Expired));
    }
}
