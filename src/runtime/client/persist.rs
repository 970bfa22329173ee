//! Reading and writing records. A polling client's writes go out in groups (the state says which
//! records; this waits for the store); step mode compares each write against the version it last saw
//! and, when another isolate wrote first, takes that record and re-applies its own event to it.
use crate::client_state::{ClientState, Keys, WriteGroup, Written};
use crate::error::ClientError;
use crate::host::js_json::to_js;
use crate::host::spawn::spawn;
use crate::json::json;
use crate::machine::record::{Change, TaskRecord};
use crate::store::{Store, StoreError};

use super::once::Once;
use super::ClientCore;

/// Compare-and-put attempts before a write gives way to the other writer's version.
const MAX_WRITE_ATTEMPTS: usize = 4;

/// Moves the records the previous release stored under its bare keys to this release's keys
/// ([`Keys::migrated`]). Each is written under its new key before its old key is deleted, and never
/// over a record already there (a run that stopped midway wrote it, or this release has changed it
/// since): a crash or a failed store call loses nothing, and the next open carries on.
async fn migrate(store: &Store, keys: &Keys) -> Result<(), StoreError> {
    for (old, new, text) in keys.moves(store.list(keys.previous_prefix()).await?) {
        store.put_if(&new, None, &text).await?;
        store.delete(&old).await?;
    }
    Ok(())
}

impl ClientCore {
    /// Writes record `id` as it is now.
    pub(super) async fn persist(&self, id: &str) -> Written {
        self.persist_with(id, &|_| Change::Nothing).await
    }

    /// Writes record `id`: with the next group (polling client), or compared against the version this
    /// client last saw (step mode), re-applying `replay` to another writer's newer copy.
    pub(super) async fn persist_with(&self, id: &str, replay: &dyn Fn(&mut TaskRecord) -> Change) -> Written {
        if self.state.borrow().config().auto_poll {
            return self.write_grouped(id).await;
        }
        let store = self.store();
        let key = self.state.borrow().keys().task(id);
        for _ in 0..MAX_WRITE_ATTEMPTS {
            let Some(text) = self.state.borrow().stored_text(id) else { return Written::Gone };
            let expected = self.state.borrow().version(id).map(str::to_owned);
            match store.put_if(&key, expected.as_deref(), &text).await {
                Ok(true) => {
                    self.state.borrow_mut().set_version(id, text);
                    return Written::Ours;
                }
                Ok(false) => {
                    if !self.reread(id).await {
                        return Written::Gone;
                    }
                    if self.run(|state| state.with_record(id, |record, _| replay(record))) == Change::Nothing {
                        return Written::Theirs;
                    }
                }
                Err(e) => {
                    self.storage_failed(&e);
                    return Written::Failed;
                }
            }
        }
        Written::Theirs
    }

    /// Step mode: takes the store's copy of record `id` (another isolate wrote it). `false` when it is
    /// gone or unreadable (then it is dropped here too).
    pub(super) async fn reread(&self, id: &str) -> bool {
        let key = self.state.borrow().keys().task(id);
        let text = match self.store().get(&key).await {
            Ok(text) => text,
            Err(e) => {
                self.storage_failed(&e);
                None
            }
        };
        let stored = text.and_then(|text| {
            let record = self.state.borrow().read_stored(Some(&text))?;
            Some((text, record))
        });
        let found = stored.is_some();
        self.run(|state| state.adopt_stored(id, stored));
        found
    }

    /// Writes record `id` with the next group; returns once that group is in the store.
    async fn write_grouped(&self, id: &str) -> Written {
        let group = self.next_group.borrow().clone();
        if self.run(|state| state.queue_write(id)) {
            if let Some(core) = self.me.upgrade() {
                spawn(async move { core.write_groups().await });
            }
        }
        if group.get().await && !self.state.borrow().is_unstored(id) {
            Written::Ours
        } else {
            Written::Failed
        }
    }

    /// Writes groups until nothing is queued.
    async fn write_groups(&self) {
        while let Some(group) = self.run(ClientState::take_write_group) {
            let done = std::mem::replace(&mut *self.next_group.borrow_mut(), Once::new());
            match self.store().put_all(&group.entries).await {
                Ok(()) => {
                    self.run(|state| state.group_written(group));
                    done.set(true);
                }
                Err(e) if group.ids.len() > 1 => done.set(self.write_one_by_one(group, e).await),
                // A store that is gone or blocked takes nothing more: memory from now on.
                Err(e @ (StoreError::Unavailable(_) | StoreError::Blocked)) => {
                    self.storage_failed(&e);
                    done.set(false);
                }
                Err(e) => {
                    self.refused(group.ids, &e);
                    done.set(true);
                }
            }
        }
    }

    /// A group the store refused, written record by record: one record the store will not take (too
    /// large, say) must not keep the others out. Only when every record fails is the store itself
    /// taken as broken. `false` then.
    async fn write_one_by_one(&self, group: WriteGroup, group_error: StoreError) -> bool {
        let mut written = WriteGroup { ids: Vec::new(), entries: Vec::new() };
        let mut failed = Vec::new();
        let mut last_error = group_error;
        for (id, (key, text)) in group.ids.into_iter().zip(group.entries) {
            match self.store().put(&key, &text).await {
                Ok(()) => {
                    written.ids.push(id);
                    written.entries.push((key, text));
                }
                Err(e) => {
                    failed.push(id);
                    last_error = e;
                }
            }
        }
        if written.ids.is_empty() {
            self.storage_failed(&last_error);
            return false;
        }
        self.run(|state| state.group_written(written));
        self.refused(failed, &last_error);
        true
    }

    /// The store refused these records (it took others): each stays in memory, its writer hears of
    /// it, and the host gets a `storage` event that keeps `durable: true`.
    fn refused(&self, ids: Vec<String>, error: &StoreError) {
        for id in ids {
            let reason = format!("the store refused the record of task {id} ({error}); it is kept in memory");
            self.events.emit("storage", to_js(&json!({ "durable": true, "reason": reason })));
            self.run(|state| state.write_refused(id));
        }
    }

    /// Loads every record of this namespace from the store (see [`Self::read_pages`]). Returns the ids
    /// whose stored record was read anew.
    pub(super) async fn restore(&self, at_open: bool) -> Vec<String> {
        let (read_anew, outcome) = self.read_pages(at_open).await;
        if let Err(e) = outcome {
            self.storage_failed(&e);
        }
        read_anew
    }

    /// [`Self::restore`] at open, after [`migrate`]: a host store that cannot list (it breaks its
    /// contract: `list` gives bare keys, say) or cannot finish the move makes `open()` reject, naming
    /// the method and the shape it must give, instead of a client that says it is durable while its
    /// stored tasks are not loaded.
    pub(super) async fn restore_at_open(&self) -> Result<Vec<String>, ClientError> {
        let keys = self.state.borrow().keys().clone();
        let (read_anew, outcome) = match migrate(&self.store(), &keys).await {
            Ok(()) => self.read_pages(true).await,
            Err(e) => (Vec::new(), Err(e)),
        };
        match outcome {
            Err(e) if self.store().is_host() => Err(ClientError::storage(e.to_string())),
            Err(e) => {
                self.storage_failed(&e);
                Ok(read_anew)
            }
            Ok(()) => Ok(read_anew),
        }
    }

    /// Reads the namespace's records page by page, in the sizes the state asks for, and feeds each page
    /// to the state (which, opening as the poller, starts polls after the first). Returns the ids read
    /// anew, and how the reading ended: what was read before a store failure is kept.
    async fn read_pages(&self, at_open: bool) -> (Vec<String>, Result<(), StoreError>) {
        let prefix = self.state.borrow().keys().prefix().to_owned();
        let mut restore = self.state.borrow().begin_restore(at_open);
        let mut after: Option<String> = None;
        let outcome = loop {
            let limit = restore.page_size();
            let entries = match self.store().list_page(&prefix, after.as_deref(), limit).await {
                Ok(entries) => entries,
                Err(e) => break Err(e),
            };
            let more = entries.len() >= limit;
            after = entries.last().map(|(key, _)| key.clone());
            for (key, text) in entries {
                self.run(|state| state.restore_entry(&mut restore, &key, text));
            }
            let now = crate::host::globals::now_ms();
            self.run(|state| state.page_read(&mut restore, now));
            if !more {
                break Ok(());
            }
        };
        let now = crate::host::globals::now_ms();
        (self.run(|state| state.finish_restore(restore, now)), outcome)
    }

    /// Step mode: before `respond`/`cancel` change a record, take the store's newer copy if there is one.
    pub(super) async fn refresh_for_step_mode(&self, id: &str) {
        if self.state.borrow().config().auto_poll {
            return;
        }
        let key = self.state.borrow().keys().task(id);
        let stored = self.store().get(&key).await.ok().flatten();
        let newer = stored.is_some() && stored.as_deref() != self.state.borrow().version(id);
        if newer {
            self.reread(id).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client_state::{ClientConfig, StoredKey};
    use crate::machine::backoff::PollPolicy;
    use std::collections::BTreeMap;

    /// A store as [`migrate`] sees it (sorted by key, as `Store::list` gives it), the moves applied
    /// with its calls: a put only where no record is (`put_if` with `None`), then the delete.
    type Model = BTreeMap<String, String>;

    fn migrate(store: &mut Model, keys: &Keys) {
        let prefix = keys.previous_prefix();
        let listed: Vec<(String, String)> =
            store.iter().filter(|(key, _)| key.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())).collect();
        for (old, new, text) in keys.moves(listed) {
            store.entry(new).or_insert(text);
            store.remove(&old);
        }
    }

    /// The key the previous release gave an entry: every part bare (its whole key format).
    fn previous(ns: &str, url: &str, rest: &str) -> String {
        format!("mcp-tasks/1/{ns}/{url}/{rest}")
    }

    fn store_of(entries: &[(String, String)]) -> Model {
        entries.iter().cloned().collect()
    }

    fn everything(store: &Model) -> Vec<(String, String)> {
        store.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Clients whose bare prefixes nest, or carry credentials, and what they stored: (old key, new
    /// key, text).
    fn previous_release() -> (Vec<Keys>, Vec<(String, String, String)>) {
        let clients = [("ns", "https://h"), ("ns", "https://h/task"), ("ns", "https://u:p@h/mcp?k=1#f")];
        let keys: Vec<Keys> = clients.iter().map(|(ns, url)| Keys::new(ns, url)).collect();
        let mut entries = Vec::new();
        let stored: [&[&str]; 3] =
            [&["task/t1", "task/t2", "call/call-1"], &["task/t1", "call/call-1", "server"], &["task/t4"]];
        for (c, rests) in stored.iter().enumerate() {
            for rest in rests.iter() {
                let (ns, url) = clients[c];
                let new = match crate::text::split_once(rest, b'/') {
                    Some(("task", id)) => keys[c].task(id),
                    Some((_, id)) => keys[c].call(id),
                    None => keys[c].server(),
                };
                entries.push((previous(ns, url, rest), new, format!("{url} {rest}")));
            }
        }
        (keys, entries)
    }

    #[test]
    fn previous_records_move_whichever_client_opens_first_and_wherever_a_run_stopped() {
        let (keys, entries) = previous_release();
        let other = (previous("other", "https://h", "task/t9"), "another namespace".to_owned());
        let expected = {
            let mut all: Vec<(String, String)> =
                entries.iter().map(|(_, new, text)| (new.clone(), text.clone())).collect();
            all.push(other.clone());
            all.sort();
            all
        };
        // Each entry as the previous release left it (0), written anew but not yet deleted (1: a run
        // stopped between the two), or moved (2); every mix of them.
        for mix in 0..3usize.pow(entries.len() as u32) {
            let mut stored = vec![other.clone()];
            let mut state = mix;
            for (old, new, text) in &entries {
                if state % 3 < 2 {
                    stored.push((old.clone(), text.clone()));
                }
                if state % 3 > 0 {
                    stored.push((new.clone(), text.clone()));
                }
                state /= 3;
            }
            for order in [[0, 1, 2], [2, 1, 0]] {
                let mut store = store_of(&stored);
                for c in order {
                    migrate(&mut store, &keys[c]);
                }
                assert_eq!(everything(&store), expected, "mix {mix}, order {order:?}");
            }
        }
    }

    #[test]
    fn a_record_this_release_wrote_is_never_replaced_by_a_previous_one() {
        let keys = Keys::new("ns", "https://h");
        let mut store =
            store_of(&[(previous("ns", "https://h", "task/t1"), "old".into()), (keys.task("t1"), "newer".into())]);
        migrate(&mut store, &keys);
        assert_eq!(everything(&store), [(keys.task("t1"), "newer".to_owned())]);
    }

    #[test]
    fn moved_records_load_and_another_clients_do_not() {
        let text = include_str!("../../../tests/fixtures/task-record-v1.json").to_owned();
        let mut store = store_of(&[
            (previous("ns", "https://h", "task/t1"), text.clone()),
            (previous("ns", "https://h/task", "task/t2"), text),
        ]);
        let mut loaded = |keys: &Keys| {
            migrate(&mut store, keys);
            let config =
                ClientConfig { policy: PollPolicy::default(), retention: 100, auto_poll: false, max_in_flight: 16 };
            let mut state = ClientState::new(config, keys.clone(), false, true, 1);
            let mut restore = state.begin_restore(true);
            for (key, text) in everything(&store).into_iter().filter(|(key, _)| key.starts_with(keys.prefix())) {
                assert!(matches!(keys.classify(&key), StoredKey::Task(_)), "{key}");
                state.restore_entry(&mut restore, &key, text);
            }
            state.finish_restore(restore, 0);
            state.records().keys().map(|id| id.to_string()).collect::<Vec<_>>()
        };
        assert_eq!(loaded(&Keys::new("ns", "https://h")), ["t1"]);
        assert_eq!(loaded(&Keys::new("ns", "https://h/task")), ["t2"]);
    }
}
