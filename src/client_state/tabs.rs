//! Applying another tab's message. Records flow from the poller to the others (and new handles from
//! any tab to the poller); `forget` and `clear` are applied by every tab through the one removal path;
//! forwarded answers and cancels are handed to the driver of the polling tab.
use crate::json::Value;
use crate::machine::record::TaskRecord;
use crate::machine::stored::from_stored;

use super::pause::MAX_SERVER_PAUSE_MS;
use super::{ClientState, Effect, Removal, TabMessage};

impl ClientState {
    /// A message from another tab of the namespace. Returns what is the driver's to do: a forwarded
    /// `Respond` or `Cancel` when this tab polls (apply it, then post the `Reply`), or a `Reply` to a
    /// request this tab forwarded.
    pub fn on_tab_message(&mut self, now: u64, message: TabMessage) -> Option<TabMessage> {
        if self.closed {
            return None;
        }
        match message {
            TabMessage::Record { id, stored } => self.take_record(now, id, &stored, false),
            TabMessage::Adopt { id, stored } => self.take_record(now, id, &stored, true),
            TabMessage::Forget { ids } => self.remove(&ids, Removal::FromOtherTab),
            TabMessage::Clear => self.cleared_elsewhere(),
            // Another tab's clock is this one's; a pause is never longer than the longest asked for.
            TabMessage::Pause { until } => self.heed_shared_pause(until.min(now.saturating_add(MAX_SERVER_PAUSE_MS))),
            TabMessage::Auth { detail } => self.heed_shared_auth(now, detail),
            TabMessage::Respond { .. } | TabMessage::Cancel { .. } if self.leader => return Some(message),
            TabMessage::Respond { .. } | TabMessage::Cancel { .. } => {}
            TabMessage::Reply { .. } => return Some(message),
        }
        None
    }

    /// The poller takes new handles only (`adopt`); the other tabs take every record it shares.
    fn take_record(&mut self, now: u64, id: String, stored: &Value, adopt: bool) {
        let record = match self.holdable(from_stored::<TaskRecord>(stored).map_err(|e| crate::text::display(&e))) {
            Ok(record) => record,
            // Reported, never dropped without a word: the store keeps the record for a tab that reads it.
            Err(e) => {
                return self.push(Effect::EmitStorage(format!("task {id} from another tab could not be read: {e}")))
            }
        };
        self.heed_pause(&record);
        if self.leader && (!adopt || self.records.contains_key(&id)) {
            return;
        }
        let settled = record.is_settled();
        self.records.insert(id.as_str(), record);
        self.push(Effect::EmitTask(id.clone()));
        if settled {
            self.settle_waiters(&id);
        }
        if self.leader {
            self.poll_due(now);
        }
    }
}
