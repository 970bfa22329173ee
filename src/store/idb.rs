//! [`IdbStore`]: records in an IndexedDB database, the durable store in browsers.
//!
//! One database per client namespace, holding one object store, `records`, whose keys are the
//! record keys and whose values are the JSON text. Text rather than structured clones: the record
//! format is versioned JSON (see `machine::stored`), so the same bytes can move between IndexedDB, a
//! host store and a file, and a record written by another build is read back byte for byte.
//!
//! The IndexedDB calls themselves are JS (`idb.js`: opening and upgrading, `blocked` with its grace,
//! transactions awaited to their commit, key ranges, the error texts); this side turns what they
//! give into Rust values and their failures (`{ kind, message }`) into [`StoreError`]s.

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::error::JsFailure;
use super::{sort_by_key, KeyOp, StoreError};

#[wasm_bindgen(module = "/src/store/idb.js")]
extern "C" {
    /// An open connection (see `idbOpen`).
    type Connection;
    #[wasm_bindgen(js_name = idbOpen)]
    fn idb_open(name: &str) -> Promise;
    #[wasm_bindgen(js_name = idbDelete)]
    fn idb_delete(name: &str) -> Promise;
    /// `kind` 0 get, 1 put, 2 delete.
    #[wasm_bindgen(method)]
    fn run(this: &Connection, kind: u8, key: &str, value: &str) -> Promise;
    #[wasm_bindgen(method, js_name = putAll)]
    fn put_all(this: &Connection, pairs: &Array) -> Promise;
    #[wasm_bindgen(method, js_name = listPage)]
    fn list_page(this: &Connection, prefix: &str, after: Option<String>, limit: u32) -> Promise;
    #[wasm_bindgen(method)]
    fn close(this: &Connection);
}

/// A failure `idb.js` threw as the [`StoreError`] its `kind` names; anything else thrown (a bug there)
/// is [`StoreError::Failed`] with its text.
pub(super) fn store_error(thrown: &JsValue) -> StoreError {
    let field = |name: &str| Reflect::get(thrown, &JsValue::from_str(name)).ok().and_then(|v| v.as_string());
    let message = || field("message").unwrap_or_default();
    match field("kind").as_deref() {
        Some("unavailable") => StoreError::Unavailable(message()),
        Some("blocked") => StoreError::Blocked,
        Some("quota") => StoreError::QuotaExceeded,
        Some(_) => StoreError::Failed(message()),
        None => StoreError::Failed(JsFailure::from_js(thrown).to_string()),
    }
}

/// What the promise `settled` resolves with, or its failure as a [`StoreError`].
pub(super) async fn outcome(settled: Promise) -> Result<JsValue, StoreError> {
    JsFuture::from(settled).await.map_err(|e| store_error(&e))
}

/// `[key, value, key, value, …]` (strings) as pairs.
pub(super) fn pairs(flat: &Array) -> Vec<(String, String)> {
    let mut entries = Vec::with_capacity(flat.length() as usize / 2);
    let mut items = flat.iter().map(|item| item.as_string().unwrap_or_default());
    while let (Some(key), Some(text)) = (items.next(), items.next()) {
        entries.push((key, text));
    }
    entries
}

/// An open IndexedDB connection used as a record store.
///
/// The connection closes when this is dropped. It also closes itself when another connection asks
/// to upgrade or delete the database (a newer build of the page in another tab, or
/// [`delete_database`]), so this tab never blocks that; afterwards every operation fails with
/// [`StoreError::Failed`] saying so, and the owner should reopen.
#[must_use = "dropping an IdbStore closes its database connection"]
pub struct IdbStore {
    connection: Connection,
    name: String,
}

impl std::fmt::Debug for IdbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdbStore").field("name", &self.name).finish_non_exhaustive()
    }
}

impl IdbStore {
    /// Opens (creating if needed) the database `database_name` with its `records` object store.
    ///
    /// Errors: [`StoreError::Unavailable`] when there is no `indexedDB` in this environment (Node.js)
    /// or the browser refuses to open it (private mode, storage disabled, sandboxed iframe), so the
    /// caller can fall back to a [`MemoryStore`](super::MemoryStore); [`StoreError::Blocked`] when an
    /// upgrade waits on another connection; [`StoreError::Failed`] otherwise (for example a database of
    /// that name created by a newer schema version).
    pub async fn open(database_name: &str) -> Result<IdbStore, StoreError> {
        let connection = outcome(idb_open(database_name)).await?.unchecked_into();
        Ok(IdbStore { connection, name: database_name.to_owned() })
    }

    /// The text stored under `key`, if any.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.run(KeyOp::Get(key)).await
    }

    /// Stores `value` under `key`, replacing what was there; returns once the write is committed.
    pub async fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Put(key, value)).await.map(drop)
    }

    /// A get, put or delete in its own transaction; returns once the transaction is complete (a put
    /// or delete committed), with what a get found.
    pub(in crate::store) async fn run(&self, op: KeyOp<'_>) -> Result<Option<String>, StoreError> {
        let (kind, value) = op.code();
        Ok(outcome(self.connection.run(kind, op.key(), value)).await?.as_string())
    }

    /// Stores every `(key, value)` in one transaction, in order; returns once all are committed. One
    /// transaction for many records: each transaction costs far more than a put inside it.
    pub(crate) async fn put_all(&self, entries: &[(String, String)]) -> Result<(), StoreError> {
        let pairs = Array::new();
        for (key, value) in entries {
            pairs.push(&JsValue::from_str(key));
            pairs.push(&JsValue::from_str(value));
        }
        outcome(self.connection.put_all(&pairs)).await.map(drop)
    }

    /// Every record whose key starts with `prefix`, sorted by key.
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut entries = self.list_page(prefix, None, u32::MAX).await?;
        // IndexedDB sorts by UTF-16 code units; re-sort so every store orders keys the same way.
        sort_by_key(&mut entries);
        Ok(entries)
    }

    /// Up to `limit` records whose key starts with `prefix` and comes after the key `after`,
    /// in IndexedDB's key order (UTF-16 code units): a restore reads a few first, so their polls start
    /// before the rest are read. One read-only transaction: a consistent snapshot.
    pub(crate) async fn list_page(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let listed = outcome(self.connection.list_page(prefix, after.map(str::to_owned), limit)).await?;
        Ok(pairs(listed.unchecked_ref()))
    }
}

impl Drop for IdbStore {
    fn drop(&mut self) {
        self.connection.close();
    }
}

/// Deletes a whole database. Deleting one that does not exist succeeds.
///
/// Our own [`IdbStore`]s close their connection when asked, so only connections opened by other code
/// (or an older build in another tab) can make this [`StoreError::Blocked`]; the deletion then still
/// happens as soon as they close.
pub async fn delete_database(name: &str) -> Result<(), StoreError> {
    outcome(idb_delete(name)).await.map(drop)
}
