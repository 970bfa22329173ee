//! Which records wait to be written, and what a finished write means. A polling client writes in
//! groups (one store transaction for every record changed while the previous group was written: at
//! 1,000 restored handles a transaction per record kept IndexedDB busy for seconds); step mode writes
//! one record at a time, compared against the version it last saw.
use crate::collections::SortedSet;
use crate::machine::record::TaskRecord;
use crate::machine::stored::to_stored;

use super::{ClientState, Effect};

/// Ids whose records the next group writes, whether a group is being written, and the ids whose
/// latest write the store refused.
#[derive(Debug, Default)]
pub(super) struct WriteQueue {
    dirty: SortedSet<String>,
    running: bool,
    unstored: SortedSet<String>,
}

impl WriteQueue {
    pub(super) fn forget(&mut self, gone: &SortedSet<String>) {
        self.dirty.retain(|id| !gone.contains(id));
        self.unstored.retain(|id| !gone.contains(id));
    }
}

/// One group write: the records as they were when it was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteGroup {
    /// The tasks written.
    pub ids: Vec<String>,
    /// Their store keys and stored texts, in the same order.
    pub entries: Vec<(String, String)>,
}

impl ClientState {
    /// Queues task `id` for the next group. `true` when no group is being written: the driver starts
    /// the writer, which takes groups until [`Self::take_write_group`] says there are none.
    pub fn queue_write(&mut self, id: &str) -> bool {
        self.writes.dirty.insert(id.to_owned());
        !std::mem::replace(&mut self.writes.running, true)
    }

    /// The next group, or `None` (and the writer stops) when nothing is queued. A record removed since
    /// it was queued is not written.
    pub fn take_write_group(&mut self) -> Option<WriteGroup> {
        if self.writes.dirty.is_empty() {
            self.writes.running = false;
            return None;
        }
        let ids = std::mem::take(&mut self.writes.dirty);
        let (ids, entries) = ids
            .into_iter()
            .filter_map(|id| {
                let text = crate::json::to_string(&to_stored(self.record(&id)?));
                Some((id.clone(), (self.keys.task(&id), text)))
            })
            .unzip();
        Some(WriteGroup { ids, entries })
    }

    /// A group is in the store: its texts are the versions this client holds. A record removed while
    /// the group was being written is deleted again after it.
    pub fn group_written(&mut self, group: WriteGroup) {
        for (id, (key, text)) in group.ids.into_iter().zip(group.entries) {
            self.writes.unstored.remove(&id);
            if self.records.contains_key(&id) {
                self.versions.set(id, text);
            } else {
                self.push(Effect::Delete(key));
            }
        }
    }

    /// The store refused the latest write of task `id` (the record stays in memory, and the next
    /// write of it tries again).
    pub fn write_refused(&mut self, id: String) {
        self.writes.unstored.insert(id);
    }

    /// Whether the store refused the latest write of task `id`.
    pub fn is_unstored(&self, id: &str) -> bool {
        self.writes.unstored.contains(id)
    }

    /// The stored text of task `id`'s record as it is now.
    pub fn stored_text(&self, id: &str) -> Option<String> {
        self.record(id).map(|r| crate::json::to_string(&to_stored(r)))
    }

    /// Task `id` was written (or read) as `text`.
    pub fn set_version(&mut self, id: &str, text: String) {
        self.versions.set(id.to_owned(), text);
    }

    /// Step mode: another writer's copy of task `id` replaces ours (`None`: it is gone or unreadable,
    /// so ours goes too).
    pub fn adopt_stored(&mut self, id: &str, stored: Option<(String, TaskRecord)>) {
        match stored {
            Some((text, record)) => {
                self.versions.set(id.to_owned(), text);
                self.records.insert(id, record);
            }
            None => self.remove(&[id.to_owned()], super::Removal::Vanished),
        }
    }
}

/// How a write compared with the version last seen ended (step mode), or a grouped write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// This client's version is in the store.
    Ours,
    /// Another writer's version is in the store and in memory (with this client's change replayed).
    Theirs,
    /// The record is gone (forgotten elsewhere, or unreadable).
    Gone,
    /// The store failed.
    Failed,
}
