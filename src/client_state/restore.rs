//! Reading a namespace back from the store: at open, and when a tab becomes the poller or a step
//! re-reads what other isolates wrote. The driver reads the store in pages, the first of [`FIRST_PAGE`]
//! records (the `keys` answer hands it over), the later ones as large as it reads them (a choice of
//! I/O chunking, its `PAGE`): a client opening (not stepping) takes each page over as soon as it is read, so its
//! first polls go out before the rest are read and its host sees what is in (`open()` resolves after
//! the first page); a re-read swaps records in at once when the last page is read (a reader never sees
//! an empty list in between). Records whose stored text this client already holds are kept
//! as they are, not parsed.
use std::rc::Rc;

use crate::collections::{SortedMap, SortedSet};
use crate::json::Value;
use crate::machine::pending::PendingCall;
use crate::machine::record::TaskRecord;
use crate::machine::stored::from_stored;
use crate::protocol::task_protocol::TaskProtocol;

use super::{ClientState, Effect, Removal, StoredKey};

/// The first page a restore reads: small, so the first polls wait for little more than the store.
/// Every later page is the driver's to size (`PAGE` in task_client.js, 2,048): large, because each
/// page waits behind the answers that arrived meanwhile (1,000 handles in pages growing ×4 from 32: the
/// restore took 280–810 ms, against 140–200 ms in one read), yet small enough that parsing one does not
/// hold the main thread for long. `open()` resolves after this first page.
pub const FIRST_PAGE: usize = 32;

/// A restore in progress: what has been read so far.
#[derive(Debug)]
pub struct Restore {
    at_open: bool,
    loaded: SortedMap<Rc<str>, Box<TaskRecord>>,
    read_anew: Vec<String>,
    /// Hand each page over as soon as it is read, so its polls start while the next one is read.
    early_start: bool,
}

fn parse<T: crate::machine::stored::StoredForm>(text: &str) -> Result<T, String> {
    let value: Value = crate::json::from_own_str(text).map_err(|e| crate::text::display(&e))?;
    from_stored::<T>(&value).map_err(|e| crate::text::display(&e))
}

impl ClientState {
    /// A stored record this client may hold: one it can read, of a task generation it drives.
    pub(super) fn holdable(&self, record: Result<TaskRecord, String>) -> Result<TaskRecord, String> {
        match record? {
            record if record.protocol() == TaskProtocol::Legacy && !self.drives_legacy => {
                self.met_legacy.set(true);
                Err("it is a 2025-11-25 task, which this build of mcp-tasks-web does not drive (it has no `legacy` \
                 feature); left in the store for one that does"
                    .into())
            }
            record => Ok(record),
        }
    }

    fn read_record(&self, text: &str) -> Result<TaskRecord, String> {
        self.holdable(parse::<TaskRecord>(text))
    }

    /// Starts reading the store's entries: at open (`at_open`: they are marked `restored`), or again
    /// when this tab becomes the poller.
    pub fn begin_restore(&self, at_open: bool) -> Restore {
        Restore {
            at_open,
            loaded: SortedMap::new(),
            read_anew: Vec::new(),
            early_start: at_open && self.config.auto_poll,
        }
    }

    /// Reads one stored entry.
    pub fn restore_entry(&mut self, restore: &mut Restore, key: &str, text: &str) {
        match self.keys.classify(key) {
            StoredKey::Task(id) => {
                // At open, a record held already was made or adopted while the store was read: newer
                // than the stored text, which it keeps.
                if restore.at_open && self.records.contains_key(&id) {
                    return;
                }
                // Re-reading: a record whose stored text this client already holds is kept where it is,
                // not parsed again (1,000 handles: most of the time to the first poll), and stays in view
                // while the next page is read; `finish_restore` keeps it.
                if !restore.at_open && self.versions.holds(&id, text) && self.records.contains_key(&id) {
                    return;
                }
                match self.read_record(text) {
                    Ok(mut record) => {
                        self.heed_pause(&record);
                        if restore.at_open {
                            self.restored.insert(id.clone());
                        }
                        if self.config.auto_poll {
                            // The page that stored it may have sent its queued answers already.
                            record.recheck_outbox_first();
                        }
                        self.versions.set(id.clone(), text.to_owned());
                        restore.loaded.insert(Rc::from(id.as_str()), Box::new(record));
                        restore.read_anew.push(id);
                    }
                    // Left in the store untouched (a newer release may read it); reported, never dropped.
                    Err(e) => self.push(Effect::EmitStorage(format!("stored task {id} could not be read: {e}"))),
                }
            }
            StoredKey::Call(id) => {
                // Our own calls in flight, and calls already reported, are not news.
                if self.live_calls.contains(&id) || self.unknown_calls.contains_key(&id) {
                    return;
                }
                if let Ok(call) = parse::<PendingCall>(text) {
                    self.push(Effect::EmitCall(call.clone()));
                    self.unknown_calls.insert(id, call);
                }
            }
            StoredKey::Other if key == self.keys.pause() => {
                self.heed_shared_pause(crate::json::digits_value(text).unwrap_or(0))
            }
            StoredKey::Other => {}
        }
    }

    /// A page has been read. A client opening (not stepping) takes the page's records over and, when
    /// it polls, starts what is due at once, so those polls go out while the next page is read (1,000
    /// handles: the first `tasks/get` no longer waits for the whole namespace to be read). `announce`:
    /// the host hears of each record taken (a page read after `open()` resolved).
    pub fn page_read(&mut self, restore: &mut Restore, now: u64, announce: bool) {
        if !restore.early_start || restore.loaded.is_empty() {
            return;
        }
        for (id, record) in std::mem::take(&mut restore.loaded) {
            if announce {
                self.push(Effect::EmitTask(String::from(&*id)));
            }
            self.records.insert(id, record);
        }
        self.take_early_answers();
        self.poll_due(now);
    }

    /// Ends a restore: the records read replace the ones held (records added while the store was being
    /// read, such as a call that just returned, stay), then retention runs. Returns the ids whose
    /// stored record was read anew (new, or changed since this client last held it).
    pub fn finish_restore(&mut self, mut restore: Restore, now: u64) -> Vec<String> {
        // An opening poller took every page over as it came: nothing to swap. Otherwise one swap, with
        // a merge only when records are held (not a second map of them all at 10,000 handles).
        if self.records.is_empty() {
            self.records.replace_all(restore.loaded);
        } else if !restore.loaded.is_empty() {
            for (id, record) in self.records.take_all() {
                restore.loaded.get_or_insert_with(id, || record);
            }
            self.records.replace_all(restore.loaded);
        }
        self.take_early_answers();
        self.close_early_polls();
        self.apply_retention(now);
        restore.read_anew
    }

    /// Step mode: the store is the truth between steps. Takes every record another isolate changed or
    /// added since this client last read or wrote it, and drops those no longer stored.
    pub fn sync_from_store(&mut self, entries: &[(&str, &str)]) {
        let mut seen = SortedSet::new();
        let pause = self.keys.pause();
        for &(key, text) in entries {
            if key == pause {
                self.heed_shared_pause(crate::json::digits_value(text).unwrap_or(0));
            }
            let StoredKey::Task(id) = self.keys.classify(key) else { continue };
            if self.versions.holds(&id, text) {
                seen.insert(id);
                continue;
            }
            if let Ok(record) = self.read_record(text) {
                self.heed_pause(&record);
                self.records.insert(id.as_str(), record);
                self.versions.set(id.clone(), text.to_owned());
            }
            seen.insert(id);
        }
        let mut gone = Vec::new();
        for id in self.versions.ids() {
            if !seen.contains(id) {
                gone.push(id.clone());
            }
        }
        self.remove(&gone, Removal::Vanished);
    }

    /// Step mode: reads one record another writer stored (`None` when it is gone, unreadable or of a
    /// generation this client does not drive).
    pub fn read_stored(&self, text: Option<&str>) -> Option<TaskRecord> {
        self.read_record(text?).ok()
    }
}
