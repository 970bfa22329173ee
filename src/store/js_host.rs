//! [`JsStore`]: records kept by the host application, through an object it passes in.
//!
//! Hosts that already have storage (an Electron app's files, a chat app's own database, a
//! server-side KV in an edge worker, Node.js where there is no IndexedDB) hand the client
//! `{ get(key), put(key, value), delete(key), list(prefix) }`. Each method may return its value
//! directly or a Promise (anything thenable) of it; a method that throws or rejects becomes
//! [`StoreError::Failed`] carrying the thrown message, or [`StoreError::QuotaExceeded`] when what was
//! thrown is named `QuotaExceededError`. The calls, the checks of what they give and the error texts
//! are in `idb.js`, beside the IndexedDB store, and fail as it does (`{ kind, message }`).
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use super::idb::{outcome, store_error};
use super::{sort_by_key, KeyOp, StoreError};

#[wasm_bindgen(module = "/src/store/idb.js")]
extern "C" {
    #[derive(Clone)]
    type HostStore;
    #[wasm_bindgen(constructor, catch)]
    fn new(object: JsValue) -> Result<HostStore, JsValue>;
    /// `kind` 0 get, 1 put, 2 delete.
    #[wasm_bindgen(method)]
    fn run(this: &HostStore, kind: u8, key: &str, value: &str) -> Promise;
    #[wasm_bindgen(method, js_name = listAll)]
    fn list_all(this: &HostStore, prefix: &str) -> Promise;
    #[wasm_bindgen(method, js_name = compareAndPutIf)]
    fn compare_and_put_if(this: &HostStore, key: &str, expected: Option<String>, value: &str) -> Promise;
}

/// A host-supplied store, its methods looked up once, at construction.
#[derive(Clone)]
pub struct JsStore {
    host: HostStore,
}

impl std::fmt::Debug for JsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JsStore")
    }
}

impl JsStore {
    /// Wraps a host object, checking that it has all four methods.
    ///
    /// Fails with [`StoreError::Failed`] naming the first missing method, so a host developer sees
    /// "has no `list` method" at startup instead of a failure on the first listing.
    pub fn new(object: JsValue) -> Result<JsStore, StoreError> {
        HostStore::new(object).map(|host| JsStore { host }).map_err(|e| store_error(&e))
    }

    /// Calls `host.get(key)`; `undefined` and `null` mean "no record".
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.run(KeyOp::Get(key)).await
    }

    /// Calls `host.put(key, value)`; whatever it returns (or resolves to) is ignored.
    pub async fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Put(key, value)).await.map(drop)
    }

    /// Calls `host.delete(key)`; whatever it returns (or resolves to) is ignored.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.run(KeyOp::Delete(key)).await.map(drop)
    }

    /// Calls `host.get(key)` (`undefined` and `null` mean "no record"), `host.put(key, value)` or
    /// `host.delete(key)`; what a put or delete returns (or resolves to) is ignored.
    pub(super) async fn run(&self, op: KeyOp<'_>) -> Result<Option<String>, StoreError> {
        let (kind, value) = op.code();
        Ok(outcome(self.host.run(kind, op.key(), value)).await?.as_string())
    }

    /// Calls `host.list(prefix)`, which must give an array whose items are either `[key, value]`
    /// pairs or `{ key, value }` objects (both are common shapes: `Map#entries()` spread into an
    /// array, and rows from a database).
    ///
    /// Items whose key does not start with `prefix` are dropped and the rest sorted by key, so the
    /// result meets [`Store::list`](super::Store::list)'s promise whatever the host's order.
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let flat: Array = outcome(self.host.list_all(prefix)).await?.unchecked_into();
        let mut records = super::idb::pairs(&flat);
        sort_by_key(&mut records);
        Ok(records)
    }

    /// Calls `host.compareAndPut(key, expected, value)` if the host has it (`None` otherwise): whether
    /// the value was written because the stored text still equalled `expected` (`null`: absent).
    pub(crate) async fn compare_and_put(
        &self,
        key: &str,
        expected: Option<&str>,
        value: &str,
    ) -> Option<Result<bool, StoreError>> {
        let written = outcome(self.host.compare_and_put_if(key, expected.map(str::to_owned), value)).await;
        match written {
            Ok(v) => v.as_bool().map(Ok),
            Err(e) => Some(Err(e)),
        }
    }
}
