//! [`Store`]: where task records persist, as JSON text under string keys.
//!
//! The runtime saves a task record whenever it changes and lists them all on startup, so tasks
//! survive reloads, crashes and tab switches. Three stores serve different hosts:
//!
//! - IndexedDB ([`Store::open_indexed_db`]): durable, in pages and all kinds of workers;
//! - the host's own ([`Store::host`]): whatever storage the host application hands in (files in
//!   Electron, a KV in an edge worker, its own database), durable as far as the host makes it;
//! - memory ([`Store::memory`]): the fallback where nothing else works (Node.js without a host store,
//!   private browsing that refuses IndexedDB), lost on reload.
//!
//! All three are JS (`idb.js`, one `Records` object over whichever was opened): they are host API
//! through and through, and one set of operations crossing into JS is smaller in the .wasm than one
//! future per operation and store. Rust keeps the keys, the record text and every decision. Every
//! store promises the same contract, which `tests/wasm_store_*.rs` checks for each of them in each
//! runtime:
//!
//! - `get` of a missing key is `Ok(None)`; `delete` of a missing key is `Ok(())`;
//! - `put` overwrites; values are arbitrary Unicode text of any size the store accepts;
//! - `list(prefix)` returns exactly the records whose key starts with `prefix`, sorted by key in
//!   Rust `str` order (by code point), whatever order the store keeps internally;
//! - failures are [`StoreError`]s, never panics, whatever JS throws.

mod error;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

pub use error::StoreError;

#[wasm_bindgen(module = "/src/store/idb.js")]
extern "C" {
    /// One open store (see `Records` in `idb.js`).
    type Records;
    #[wasm_bindgen(static_method_of = Records)]
    fn memory() -> Records;
    #[wasm_bindgen(static_method_of = Records, catch)]
    fn host(object: JsValue) -> Result<Records, JsValue>;
    #[wasm_bindgen(static_method_of = Records, js_name = indexedDb)]
    fn indexed_db(name: &str) -> Promise;
    /// `kind` 0 get, 1 put, 2 delete.
    #[wasm_bindgen(method)]
    fn run(this: &Records, kind: u8, key: &str, value: &str) -> Promise;
    #[wasm_bindgen(method, js_name = putAll)]
    fn put_all(this: &Records, pairs: &Array) -> Promise;
    #[wasm_bindgen(method, js_name = listPage)]
    fn list_page(this: &Records, prefix: &str, after: Option<String>, limit: u32) -> Promise;
    #[wasm_bindgen(method, js_name = putIf)]
    fn put_if(this: &Records, key: &str, expected: Option<String>, value: &str) -> Promise;
    #[wasm_bindgen(method)]
    fn close(this: &Records);
    #[wasm_bindgen(js_name = idbDelete)]
    fn idb_delete(name: &str) -> Promise;
}

/// A failure `idb.js` threw as the [`StoreError`] its `kind` names; anything else thrown (a bug there)
/// is [`StoreError::Failed`] with its text.
fn store_error(thrown: &JsValue) -> StoreError {
    let field = |name: &str| crate::host::js_error::field(thrown, name).as_string();
    let message = || field("message").unwrap_or_default();
    match field("kind").as_deref() {
        Some("unavailable") => StoreError::Unavailable(message()),
        Some("blocked") => StoreError::Blocked,
        Some("quota") => StoreError::QuotaExceeded,
        Some(_) => StoreError::Failed(message()),
        None => StoreError::Failed(crate::host::js_error::js_error_text(thrown)),
    }
}

/// What the promise `settled` resolves with, or its failure as a [`StoreError`].
async fn outcome(settled: Promise) -> Result<JsValue, StoreError> {
    JsFuture::from(settled).await.map_err(|e| store_error(&e))
}

/// Which store a [`Store`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    IndexedDb,
    Host,
    Memory,
}

/// An open record store: IndexedDB, the host's, or memory.
///
/// An IndexedDB connection closes when this is dropped. It also closes itself when another
/// connection asks to upgrade or delete the database (a newer build of the page in another tab, or
/// [`delete_database`]), so this tab never blocks that; afterwards every operation fails with
/// [`StoreError::Failed`] saying so, and the owner should reopen.
#[must_use = "dropping a Store closes its database connection"]
pub struct Store {
    records: Records,
    kind: Kind,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("kind", &self.kind).finish_non_exhaustive()
    }
}

impl Store {
    /// An empty store in this module instance's memory; lost on reload.
    pub fn memory() -> Store {
        Store { records: Records::memory(), kind: Kind::Memory }
    }

    /// A store the host application supplies: an object with `get(key)`, `put(key, value)`,
    /// `delete(key)` and `list(prefix)`, and optionally `compareAndPut(key, expected, value)`.
    ///
    /// Each method may return its value directly or a Promise (anything thenable) of it; one that
    /// throws or rejects becomes [`StoreError::Failed`] carrying the thrown message, or
    /// [`StoreError::QuotaExceeded`] when what was thrown is named `QuotaExceededError`. `get` gives
    /// the text, or `undefined` or `null` for none; `list` an array of `[key, value]` pairs or
    /// `{ key, value }` objects (`Map#entries()` spread into an array, rows from a database), in any
    /// order. Fails with [`StoreError::Failed`] naming the first missing method, so a host developer
    /// sees "has no `list` method" at startup instead of a failure on the first listing.
    pub fn host(object: JsValue) -> Result<Store, StoreError> {
        let records = Records::host(object).map_err(|e| store_error(&e))?;
        Ok(Store { records, kind: Kind::Host })
    }

    /// Opens (creating if needed) the IndexedDB database `name` with its `records` object store.
    ///
    /// Errors: [`StoreError::Unavailable`] when there is no `indexedDB` in this environment (Node.js)
    /// or the browser refuses to open it (private mode, storage disabled, sandboxed iframe), so the
    /// caller can fall back to [`Store::memory`]; [`StoreError::Blocked`] when an upgrade waits on
    /// another connection; [`StoreError::Failed`] otherwise (for example a database of that name
    /// created by a newer schema version).
    pub async fn open_indexed_db(name: &str) -> Result<Store, StoreError> {
        let records = outcome(Records::indexed_db(name)).await?.unchecked_into();
        Ok(Store { records, kind: Kind::IndexedDb })
    }

    /// The text stored under `key`, or `None` if there is no such record.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.run(0, key, "").await
    }

    /// Stores `value` under `key`, replacing any previous value; returns once it is written (for
    /// IndexedDB: committed).
    pub async fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.run(1, key, value).await.map(drop)
    }

    /// Removes the record under `key`; removing a missing record is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.run(2, key, "").await.map(drop)
    }

    /// One future for the three single-key operations (`kind` 0 get, 1 put, 2 delete), each in its
    /// own transaction for IndexedDB, with what a get found.
    async fn run(&self, kind: u8, key: &str, value: &str) -> Result<Option<String>, StoreError> {
        Ok(outcome(self.records.run(kind, key, value)).await?.as_string())
    }

    /// Stores every `(key, value)`, in order: in one transaction for IndexedDB (each transaction costs
    /// far more than a put inside it), one by one elsewhere.
    pub async fn put_all(&self, entries: &[(String, String)]) -> Result<(), StoreError> {
        let pairs = Array::new();
        for (key, value) in entries {
            pairs.push(&JsValue::from_str(key));
            pairs.push(&JsValue::from_str(value));
        }
        outcome(self.records.put_all(&pairs)).await.map(drop)
    }

    /// Stores `value` under `key` only if the stored text is still `expected` (`None`: no record);
    /// `Ok(false)` when another writer changed it first. Atomic for a host store with
    /// `compareAndPut` and for memory; elsewhere a read then a write (one writer per store assumed).
    pub async fn put_if(&self, key: &str, expected: Option<&str>, value: &str) -> Result<bool, StoreError> {
        let written = self.records.put_if(key, expected.map(str::to_owned), value);
        Ok(outcome(written).await?.as_bool().unwrap_or(false))
    }

    /// Every `(key, value)` whose key starts with `prefix`, sorted by key.
    /// One unbounded page ([`Self::list_page`]'s future serves both).
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut entries = self.list_page(prefix, None, usize::MAX).await?;
        // IndexedDB and memory list by UTF-16 code units, a host in its own order: sort every store's
        // listing the same way.
        let order = crate::collections::sorted_order(entries.len(), &mut |a, b| entries[a].0 < entries[b].0);
        crate::collections::reorder(&mut entries, order);
        Ok(entries)
    }

    /// Up to `limit` records whose key starts with `prefix` and comes after the key `after`, in the
    /// store's own key order; fewer than `limit` means the listing is over, else the next page starts
    /// after the last key. A restore reads a small page first, so its polls start before the rest are
    /// read. A host store cannot page: it gives everything in the first page and nothing after.
    pub async fn list_page(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let limit = limit.clamp(1, u32::MAX as usize) as u32;
        let listed = outcome(self.records.list_page(prefix, after.map(str::to_owned), limit)).await?;
        // `[key, value, key, value, …]`, strings, as pairs.
        let flat: &Array = listed.unchecked_ref();
        let mut entries = Vec::with_capacity(flat.length() as usize / 2);
        let mut items = flat.iter().map(|item| item.as_string().unwrap_or_default());
        while let (Some(key), Some(text)) = (items.next(), items.next()) {
            entries.push((key, text));
        }
        Ok(entries)
    }

    /// Whether records outlive this page or worker. `false` only for memory, so the client can tell
    /// the host that tasks will be forgotten on reload. (A host store is trusted to be durable: the
    /// host chose it.)
    pub fn is_durable(&self) -> bool {
        self.kind != Kind::Memory
    }

    /// Whether the host supplied this store (its contract broken is the host's to hear of).
    pub(crate) fn is_host(&self) -> bool {
        self.kind == Kind::Host
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.records.close();
    }
}

/// Deletes a whole IndexedDB database. Deleting one that does not exist succeeds.
///
/// Our own stores close their connection when asked, so only connections opened by other code
/// (or an older build in another tab) can make this [`StoreError::Blocked`]; the deletion then still
/// happens as soon as they close.
pub async fn delete_database(name: &str) -> Result<(), StoreError> {
    outcome(idb_delete(name)).await.map(drop)
}
