//! Applying another tab's message. Records flow from the poller to the others (and new handles from
//! any tab to the poller); `forget` and `clear` are applied by every tab through the one removal path;
//! forwarded answers and cancels are handed to the driver of the polling tab.
use crate::error::ClientError;
use crate::json::Value;
use crate::machine::record::TaskRecord;
use crate::machine::stored::from_stored;

use super::{ClientState, Effect, Removal, TabMessage};

/// What a message leaves for the driver to do.
#[derive(Debug, Clone, PartialEq)]
pub enum TabWork {
    /// Apply a forwarded `respond` here (this tab polls), then reply to `req`.
    Respond {
        /// The request to reply to.
        req: String,
        /// The task.
        id: String,
        /// The answers as the other tab's host gave them.
        answers: Value,
    },
    /// Apply a forwarded `cancel` here (this tab polls), then reply to `req`.
    Cancel {
        /// The request to reply to.
        req: String,
        /// The task.
        id: String,
    },
    /// The polling tab replied to a request this tab forwarded.
    Reply {
        /// The request.
        req: String,
        /// Why it was refused, if it was.
        error: Option<ClientError>,
    },
}

impl ClientState {
    /// A message from another tab of the namespace.
    pub fn on_tab_message(&mut self, now: u64, message: TabMessage) -> Option<TabWork> {
        if self.closed {
            return None;
        }
        match message {
            TabMessage::Record { id, stored } => self.take_record(now, id, &stored, false),
            TabMessage::Adopt { id, stored } => self.take_record(now, id, &stored, true),
            TabMessage::Forget { ids } => self.remove(&ids, Removal::FromOtherTab),
            TabMessage::Clear => self.cleared_elsewhere(),
            TabMessage::Respond { req, id, answers } if self.leader => {
                return Some(TabWork::Respond { req, id, answers });
            }
            TabMessage::Cancel { req, id } if self.leader => return Some(TabWork::Cancel { req, id }),
            TabMessage::Respond { .. } | TabMessage::Cancel { .. } => {}
            TabMessage::Reply { req, error } => return Some(TabWork::Reply { req, error }),
        }
        None
    }

    /// The poller takes new handles only (`adopt`); the other tabs take every record it shares.
    fn take_record(&mut self, now: u64, id: String, stored: &Value, adopt: bool) {
        let Ok(record) = from_stored::<TaskRecord>(stored) else { return };
        if self.leader && (!adopt || self.records.contains_key(&id)) {
            return;
        }
        let settled = record.is_settled();
        self.records.insert(id.clone(), record);
        self.push(Effect::EmitTask(id.clone()));
        if settled {
            self.settle_waiters(&id);
        }
        if self.leader {
            self.poll_due(now);
        }
    }
}
