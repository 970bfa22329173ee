//! The store as the door sees it: the records handed over at open (`restore`) or when this tab takes
//! the lead, the write groups (`put`, answered by `written`) and the host calls waiting for them, and
//! the deletions of `forget` and `clear`.
use crate::client_state::{Effect as StateEffect, TabMessage, WriteGroup};
use crate::error::ClientError;
use crate::json::{json, Value};
use crate::machine::stored::to_stored;

use super::{pairs, step, Asker, Door, Effect, List};

/// A host call that settles once task `id`'s record is written.
pub(super) struct AfterWrite {
    pub(super) id: String,
    /// Who asked.
    pub(super) asker: Asker,
    /// The tool whose call created the task (`callTool` resolves with its snapshot); `None`: an answer
    /// or a cancel (resolves with nothing).
    pub(super) tool: Option<String>,
}

impl Door {
    /// Restores the records the driver listed under [`Self::prefix`] (`pairs`: key and text pairs,
    /// in key order), then polls what is due. `leader`: this tab took the lock while the store opened.
    /// A driver hands them over in parts, one restore: parts with `more` (each one's due tasks are
    /// polled at once, while the rest is read), then the last. `open()` resolves after the first page,
    /// so the host hears of each record of a later part as a `task` event (the driver holds its calls
    /// about a task until the last part: docs/door.md, calling rule 8).
    pub(super) fn restore(&mut self, now: u64, leader: bool, more: bool, sizes: List<'_>, body: &[u8], x: u64) {
        if leader {
            self.state.set_leader(true);
        }
        let entries = pairs(sizes, body);
        self.read_link(now, &entries);
        let later = self.restoring.is_some();
        let mut restore = self.restoring.take().unwrap_or_else(|| self.state.begin_restore(true));
        for &(key, text) in &entries {
            self.state.restore_entry(&mut restore, key, text);
        }
        self.state.page_read(&mut restore, now, later);
        if more {
            self.restoring = Some(restore);
            return self.done(x, Ok(Value::Null));
        }
        // The ids read anew matter to the tabs and step mode, which the door does not drive yet.
        self.state.finish_restore(restore, now);
        self.state.poll_due(now);
        self.done(x, Ok(Value::Null));
    }

    /// This tab now holds the lock and polls: it takes the records as the previous poller left them
    /// in the store (`pairs`), and tells the host only of those that changed behind its back.
    pub(super) fn lead(&mut self, now: u64, sizes: List<'_>, body: &[u8]) {
        if self.state.is_closed() {
            return;
        }
        let mut restore = self.state.begin_restore(false);
        for (key, text) in pairs(sizes, body) {
            self.state.restore_entry(&mut restore, key, text);
        }
        self.state.page_read(&mut restore, now, false);
        let changed = self.state.finish_restore(restore, now);
        self.state.set_leader(true);
        for id in changed {
            self.perform_one(StateEffect::EmitTask(id));
        }
        self.state.poll_due(now);
    }

    /// Queues task `id` for the next write group, starting one if none is in the store's hands. In
    /// step mode, a write compared against the version last seen (a host call waiting for it settles
    /// from it).
    pub(super) fn write(&mut self, id: &str) {
        if self.stepping() {
            let then = match self.after_write.iter().position(|w| w.id == id) {
                Some(at) => {
                    let AfterWrite { asker, tool, .. } = self.after_write.remove(at);
                    step::Then::Settle { asker, tool }
                }
                None => step::Then::Announce,
            };
            return self.write_versioned(id, step::Replay::Nothing, then, None);
        }
        if self.state.queue_write(id) {
            self.next_group();
        }
    }

    pub(super) fn next_group(&mut self) {
        let Some(group) = self.state.take_write_group() else { return };
        let mut entries = Vec::new();
        for (key, text) in &group.entries {
            entries.push(json!([key.as_str(), text.as_str()]));
        }
        self.out.push(Effect::Put { entries });
        self.writing = Some(group);
    }

    /// The write group is in the store (`ok`), or the store refused it (`message`): its tasks are
    /// announced either way (a refused one stays in memory and its host hears why).
    /// `refused`: the keys the store did not take (`message`: its last failure), each record then
    /// kept in memory with a `storage` event that keeps `durable: true`; `broken`: the store took
    /// none and the driver has switched to memory (its own `storage` event says so). Every task of the
    /// group is announced either way, and a host call waiting for a record that is not stored rejects.
    pub(super) fn written(&mut self, now: u64, refused: List<'_>, broken: bool, why: Option<&str>) {
        let Some(group) = self.writing.take() else { return };
        let why = why.unwrap_or_default();
        let mut stored = WriteGroup { ids: Vec::new(), entries: Vec::new() };
        let mut lost = Vec::new();
        for (id, entry) in group.ids.into_iter().zip(group.entries) {
            if broken || refused.has_text(&entry.0) {
                lost.push(id);
            } else {
                stored.ids.push(id);
                stored.entries.push(entry);
            }
        }
        let mut ids = stored.ids.clone();
        self.state.group_written(stored);
        for id in &lost {
            if !broken {
                let reason = format!("the store refused the record of task {id} ({why}); it is kept in memory");
                self.out.push(Effect::Storage { reason });
                self.state.write_refused(id.clone());
            }
        }
        ids.extend(lost.iter().cloned());
        for id in &ids {
            self.state.announce(id);
            let (settled, waiting) = std::mem::take(&mut self.after_write).into_iter().partition(|w| w.id == *id);
            self.after_write = waiting;
            for AfterWrite { asker, tool, .. } in settled {
                let adopt = tool.is_some() && !lost.contains(id);
                let outcome = match (lost.contains(id), tool) {
                    (false, Some(_)) => Ok(json!({ "kind": "task", "task": self.snapshot(id) })),
                    (false, None) => Ok(Value::Null),
                    (true, Some(tool)) => Err(ClientError::handle_not_stored(&tool, id)),
                    (true, None) => Err(ClientError::change_not_stored(id)),
                };
                // A new handle goes to the polling tab, wherever it was made.
                let stored = self.state.record(id).filter(|_| adopt).map(to_stored);
                if let Some(stored) = stored {
                    self.perform_one(StateEffect::Post(TabMessage::Adopt { id: id.clone(), stored }));
                }
                self.settle(asker, outcome);
            }
        }
        // A new task is due at once; a host's answer or cancel goes out now.
        self.state.poll_due(now);
        self.next_group();
    }

    /// `forget` and `clear`: the store keys the removal deletes (with `also`, each once) go to the
    /// driver as one effect, and host call `x` settles once they are deleted (or with the first
    /// failure), so the host knows the store no longer holds them.
    pub(super) fn deletes_then_done(&mut self, x: u64, also: Vec<String>) {
        let mut keys = crate::collections::SortedSet::new();
        for key in also {
            keys.insert(key);
        }
        self.deleting = Some(keys);
        self.rearm |= self.perform();
        let keys = self.deleting.take().unwrap_or_default();
        let keys = keys.iter().map(|key| Value::from(key.as_str())).collect();
        self.out.push(Effect::Deletes { x, keys });
    }
}
