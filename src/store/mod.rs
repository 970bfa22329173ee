//! `HandleStore`: where task records persist, as JSON text under string keys.
//!
//! The runtime saves a task record whenever it changes and lists them all on startup, so tasks
//! survive reloads, crashes and tab switches. Three backends serve different hosts:
//!
//! - [`IdbStore`]: IndexedDB, durable, in pages and all kinds of workers;
//! - [`JsStore`]: whatever storage the host application hands in (files in Electron, a KV in an
//!   edge worker, its own database), durable as far as the host makes it;
//! - [`MemoryStore`]: in-memory only, the fallback where nothing else works (Node.js without a
//!   host store, private browsing that refuses IndexedDB).
//!
//! [`Store`] is the one type the rest of the client holds. It is an enum rather than a trait
//! object because the set is closed and `async fn` in a trait object would need boxing; every
//! backend promises the same contract, which `tests/wasm_store_*.rs` checks for each of them in
//! each runtime:
//!
//! - `get` of a missing key is `Ok(None)`; `delete` of a missing key is `Ok(())`;
//! - `put` overwrites; values are arbitrary Unicode text of any size the backend accepts;
//! - `list(prefix)` returns exactly the records whose key starts with `prefix`, sorted by key in
//!   Rust `str` order (by code point), whatever order the backend keeps internally;
//! - failures are [`StoreError`]s, never panics, whatever JS throws.

mod error;
mod idb;
mod js_host;
mod memory;

pub use error::StoreError;
pub use idb::{delete_database, IdbStore};
pub use js_host::JsStore;
pub use memory::MemoryStore;

/// A get, put or delete of one key, as every backend runs them (see [`Store::run`]).
#[derive(Clone, Copy)]
enum KeyOp<'a> {
    Get(&'a str),
    Put(&'a str, &'a str),
    Delete(&'a str),
}

impl<'a> KeyOp<'a> {
    fn key(self) -> &'a str {
        match self {
            KeyOp::Get(key) | KeyOp::Put(key, _) | KeyOp::Delete(key) => key,
        }
    }

    /// The operation as `idb.js` takes it (the IndexedDB and the host store): 0 get, 1 put, 2 delete, and the value.
    fn code(self) -> (u8, &'a str) {
        match self {
            KeyOp::Get(_) => (0, ""),
            KeyOp::Put(_, value) => (1, value),
            KeyOp::Delete(_) => (2, ""),
        }
    }
}

/// A record store: one of the three backends behind a single async interface.
#[derive(Debug)]
pub enum Store {
    /// IndexedDB in a page or worker.
    IndexedDb(IdbStore),
    /// This module instance's memory; lost on reload.
    Memory(MemoryStore),
    /// A store supplied by the host application.
    Js(JsStore),
}

impl Store {
    /// The text stored under `key`, or `None` if there is no such record.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.run(KeyOp::Get(key)).await
    }

    /// Stores `value` under `key`, replacing any previous value.
    pub async fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Put(key, value)).await.map(drop)
    }

    /// One future for the three single-key operations, and one per backend: a state machine per
    /// operation and backend repeated the same few steps in the .wasm.
    async fn run(&self, op: KeyOp<'_>) -> Result<Option<String>, StoreError> {
        match self {
            Store::IndexedDb(store) => store.run(op).await,
            Store::Memory(store) => Ok(store.run(op)),
            Store::Js(store) => store.run(op).await,
        }
    }

    /// Stores every `(key, value)`, in order: in one transaction for IndexedDB, one by one elsewhere.
    pub async fn put_all(&self, entries: &[(String, String)]) -> Result<(), StoreError> {
        if let Store::IndexedDb(store) = self {
            return store.put_all(entries).await;
        }
        for (key, value) in entries {
            self.put(key, value).await?;
        }
        Ok(())
    }

    /// Stores `value` under `key` only if the stored text is still `expected` (`None`: no record);
    /// `Ok(false)` when another writer changed it first. Atomic for a host store with
    /// `compareAndPut` and for memory; elsewhere a read then a write (one writer per store assumed).
    pub(crate) async fn put_if(&self, key: &str, expected: Option<&str>, value: &str) -> Result<bool, StoreError> {
        if let Store::Js(store) = self {
            if let Some(outcome) = store.compare_and_put(key, expected, value).await {
                return outcome;
            }
        }
        if self.get(key).await?.as_deref() != expected {
            return Ok(false);
        }
        self.put(key, value).await.map(|()| true)
    }

    /// Removes the record under `key`; removing a missing record is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Delete(key)).await.map(drop)
    }

    /// Every `(key, value)` whose key starts with `prefix`, sorted by key.
    /// One unbounded page ([`Self::list_page`]'s future serves both).
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut entries = self.list_page(prefix, None, usize::MAX).await?;
        if let Store::IndexedDb(_) = self {
            // IndexedDB sorts by UTF-16 code units; re-sort so every store orders keys the same way.
            sort_by_key(&mut entries);
        }
        Ok(entries)
    }

    /// Up to `limit` records whose key starts with `prefix` and comes after the key `after`, in the
    /// backend's own key order; fewer than `limit` means the listing is over, else the next page starts
    /// after the last key. A restore reads a small page first, so its polls start before the rest are
    /// read. A host store cannot page: it gives everything in the first page and nothing after.
    pub async fn list_page(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>, StoreError> {
        match self {
            Store::IndexedDb(store) => store.list_page(prefix, after, limit.clamp(1, u32::MAX as usize) as u32).await,
            Store::Memory(store) => Ok(store.list_page(prefix, after, limit)),
            Store::Js(_) if after.is_some() => Ok(Vec::new()),
            Store::Js(store) => store.list(prefix).await,
        }
    }

    /// Whether records outlive this page or worker. `false` only for [`Store::Memory`], so the
    /// client can tell the host that tasks will be forgotten on reload. (A host store is trusted
    /// to be durable: the host chose it.)
    pub fn is_durable(&self) -> bool {
        !matches!(self, Store::Memory(_))
    }
}

impl From<IdbStore> for Store {
    fn from(store: IdbStore) -> Self {
        Store::IndexedDb(store)
    }
}

impl From<MemoryStore> for Store {
    fn from(store: MemoryStore) -> Self {
        Store::Memory(store)
    }
}

impl From<JsStore> for Store {
    fn from(store: JsStore) -> Self {
        Store::Js(store)
    }
}

/// Sorts listed records by key in Rust `str` order, the order [`Store::list`] promises.
fn sort_by_key(records: &mut Vec<(String, String)>) {
    let order = crate::collections::sorted_order(records.len(), &mut |a, b| records[a].0 < records[b].0);
    crate::collections::reorder(records, order);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durability() {
        let memory = Store::from(MemoryStore::new());
        assert!(!memory.is_durable());
    }
}
