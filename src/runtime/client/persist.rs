//! Reading and writing records. A polling client's writes go out in groups (the state says which
//! records; this waits for the store); step mode compares each write against the version it last saw
//! and, when another isolate wrote first, takes that record and re-applies its own event to it.
use crate::client_state::ClientState;
use crate::error::ClientError;
use crate::host::spawn::spawn;
use crate::machine::record::{Change, TaskRecord};
use crate::store::Store;

use super::once::Once;
use super::ClientCore;

/// Compare-and-put attempts before a write gives way to the other writer's version.
const MAX_WRITE_ATTEMPTS: usize = 4;

/// How a write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// This client's version is in the store.
    Ours,
    /// Another writer's version is in the store and in memory (with this client's event replayed).
    Theirs,
    /// The record is gone (forgotten elsewhere, or unreadable).
    Gone,
    /// The store failed (reported as a `storage` event).
    Failed,
}

impl ClientCore {
    /// Writes record `id` as it is now.
    pub(super) async fn persist(&self, id: &str) {
        self.persist_with(id, &|_| Change::Nothing).await;
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
        let stored = text.and_then(|text| Some((text.clone(), ClientState::read_stored(Some(&text))?)));
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
        if group.get().await {
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
                Err(e) => {
                    self.storage_failed(&e);
                    done.set(false);
                }
            }
        }
    }

    /// Loads every record of this namespace from the store and swaps them in at once. `at_open` marks
    /// them `restored` for the host. Returns the ids whose stored record was read anew.
    pub(super) async fn restore(&self, at_open: bool) -> Vec<String> {
        let prefix = self.state.borrow().keys().prefix().to_owned();
        let entries = match self.store().list(&prefix).await {
            Ok(entries) => entries,
            Err(e) => {
                self.storage_failed(&e);
                return Vec::new();
            }
        };
        self.restore_entries(entries, at_open).await
    }

    /// [`Self::restore`] at open: a host store that cannot list (it breaks its contract: `list` gives
    /// bare keys, say) makes `open()` reject, naming the method and the shape it must give, instead
    /// of a client that says it is durable while its stored tasks are not loaded.
    pub(super) async fn restore_at_open(&self) -> Result<Vec<String>, ClientError> {
        let prefix = self.state.borrow().keys().prefix().to_owned();
        let entries = match self.store().list(&prefix).await {
            Ok(entries) => entries,
            Err(e) if matches!(*self.store(), Store::Js(_)) => return Err(ClientError::storage(e.to_string())),
            Err(e) => {
                self.storage_failed(&e);
                Vec::new()
            }
        };
        Ok(self.restore_entries(entries, true).await)
    }

    async fn restore_entries(&self, entries: Vec<(String, String)>, at_open: bool) -> Vec<String> {
        let mut restore = self.state.borrow().begin_restore(at_open);
        for (key, text) in entries {
            if self.run(|state| state.restore_entry(&mut restore, &key, text)) {
                // A polling client opening on many handles polls the first ones while it reads the
                // rest: they are handed over, and one turn of the microtask queue lets their requests
                // call `fetch` (1,000 handles: the first `tasks/get` no longer waits for the rest).
                self.run(|state| state.hand_over(&mut restore));
                self.pump();
                let resolved = js_sys::Promise::resolve(&wasm_bindgen::JsValue::UNDEFINED);
                let _ = wasm_bindgen_futures::JsFuture::from(resolved).await;
            }
        }
        let now = crate::host::globals::now_ms();
        self.run(|state| state.finish_restore(restore, now))
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
