//! [`IdbStore`]: records in an IndexedDB database, the durable store in browsers.
//!
//! One database per client namespace, holding one object store, `records`, whose keys are the
//! record keys and whose values are the JSON text. Text rather than structured clones: the record
//! format is versioned JSON (see `machine::stored`), so the same bytes can move between IndexedDB, a
//! host store and a file, and a record written by another build is read back byte for byte.

mod open;
mod prefix;
mod wait;

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbObjectStore, IdbTransaction, IdbTransactionMode};

pub use open::delete_database;
use wait::{RequestFailure, RequestWait, TransactionWait};

use super::error::{failed, failed_js, operation, JsFailure};
use super::{sort_by_key, KeyOp, StoreError};

/// The object store every record lives in.
const RECORDS: &str = "records";
/// The database schema version; bump it (with an upgrade step in `open`) when `RECORDS` changes shape.
const SCHEMA_VERSION: u32 = 1;

/// An open IndexedDB connection used as a record store.
///
/// The connection closes when this is dropped. It also closes itself when another connection asks
/// to upgrade or delete the database (a newer build of the page in another tab, or
/// [`delete_database`]), so this tab never blocks that; afterwards every operation fails with
/// [`StoreError::Failed`] saying so, and the owner should reopen.
#[must_use = "dropping an IdbStore closes its database connection"]
pub struct IdbStore {
    database: IdbDatabase,
    name: String,
    /// Set by the `versionchange` handler when it closed the connection.
    closed_by_versionchange: Rc<Cell<bool>>,
    /// Kept alive while the connection is; detached and freed in `drop`.
    _on_versionchange: Closure<dyn FnMut(JsValue)>,
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
        let database = open::open(database_name).await?;
        let closed_by_versionchange = Rc::new(Cell::new(false));
        let on_versionchange = {
            let database = database.clone();
            let closed = Rc::clone(&closed_by_versionchange);
            Closure::<dyn FnMut(JsValue)>::new(move |_event: JsValue| {
                database.close();
                closed.set(true);
            })
        };
        database.set_onversionchange(Some(on_versionchange.as_ref().unchecked_ref()));
        Ok(IdbStore {
            database,
            name: database_name.to_owned(),
            closed_by_versionchange,
            _on_versionchange: on_versionchange,
        })
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
        let key = op.key();
        let head = match op {
            KeyOp::Get(_) => "IndexedDB get(",
            KeyOp::Put(..) => "IndexedDB put(",
            KeyOp::Delete(_) => "IndexedDB delete(",
        };
        let operation = operation(head, key, ")");
        let reads = matches!(op, KeyOp::Get(_));
        let mode = if reads { IdbTransactionMode::Readonly } else { IdbTransactionMode::Readwrite };
        let (transaction, records) = self.begin(mode, &operation)?;
        let finished = TransactionWait::new(&transaction);
        let key_js = JsValue::from_str(key);
        let request = match op {
            KeyOp::Get(_) => records.get(&key_js),
            KeyOp::Put(_, value) => records.put_with_key(&JsValue::from_str(value), &key_js),
            KeyOp::Delete(_) => records.delete(&key_js),
        }
        .map_err(|thrown| failed_js(&operation, &thrown))?;
        let value = if reads {
            RequestWait::new(&request).outcome().await.map_err(|f| self.request_error(&operation, f))?
        } else {
            JsValue::UNDEFINED
        };
        finished.outcome().await.map_err(|f| self.failure(&operation, &f))?;
        if value.is_undefined() {
            return Ok(None);
        }
        value.as_string().map(Some).ok_or_else(|| not_text(&operation, key, &value))
    }

    /// Stores every `(key, value)` in one transaction, in order; returns once all are committed. One
    /// transaction for many records: each transaction costs far more than a put inside it.
    pub(crate) async fn put_all(&self, entries: &[(String, String)]) -> Result<(), StoreError> {
        let operation = format!("IndexedDB put of {} records", entries.len());
        let (transaction, records) = self.begin(IdbTransactionMode::Readwrite, &operation)?;
        let committed = TransactionWait::new(&transaction);
        for (key, value) in entries {
            if let Err(thrown) = records.put_with_key(&JsValue::from_str(value), &JsValue::from_str(key)) {
                let _ = transaction.abort();
                return Err(failed_js(&operation, &thrown));
            }
        }
        committed.outcome().await.map_err(|f| self.failure(&operation, &f))
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
    /// before the rest are read.
    ///
    /// Keys and values are read with `getAllKeys` and `getAll` over the same key range in one
    /// read-only transaction: a consistent snapshot in two requests rather than one per record.
    pub(crate) async fn list_page(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let operation = operation("IndexedDB list(", prefix, ")");
        let range = prefix::range_after(prefix, after).map_err(|thrown| failed_js(&operation, &thrown))?;
        let (transaction, records) = self.begin(IdbTransactionMode::Readonly, &operation)?;
        let finished = TransactionWait::new(&transaction);
        let keys_request =
            records.get_all_keys_with_key_and_limit(&range, limit).map_err(|thrown| failed_js(&operation, &thrown))?;
        let values_request =
            records.get_all_with_key_and_limit(&range, limit).map_err(|thrown| failed_js(&operation, &thrown))?;
        // Both waits exist before either is awaited, so neither success event can be missed.
        let keys_wait = RequestWait::new(&keys_request);
        let values_wait = RequestWait::new(&values_request);
        let keys = keys_wait.outcome().await.map_err(|f| self.request_error(&operation, f))?;
        let values = values_wait.outcome().await.map_err(|f| self.request_error(&operation, f))?;
        finished.outcome().await.map_err(|f| self.failure(&operation, &f))?;
        let (keys, values): (js_sys::Array, js_sys::Array) = match (keys.dyn_into(), values.dyn_into()) {
            (Ok(keys), Ok(values)) => (keys, values),
            _ => return Err(StoreError::Failed(format!("{operation}: getAll/getAllKeys did not return arrays"))),
        };
        if keys.length() != values.length() {
            return Err(StoreError::Failed(format!(
                "{operation}: {} keys but {} values in one snapshot",
                keys.length(),
                values.length()
            )));
        }
        let mut entries = Vec::with_capacity(keys.length() as usize);
        for (key, value) in keys.iter().zip(values.iter()) {
            // The range holds only string keys; a non-text value was written by other code.
            let key = key.as_string().ok_or_else(|| {
                let key = crate::host::js_error::js_string(&key);
                StoreError::Failed(format!("{operation}: a key in the range is not a string: {key}"))
            })?;
            let text = value.as_string().ok_or_else(|| not_text(&operation, &key, &value))?;
            entries.push((key, text));
        }
        Ok(entries)
    }

    /// Starts a transaction on `records`.
    ///
    /// Every operation, reads included, returns only once its transaction has finished: then a
    /// dropped store closes its connection at once instead of "close pending" behind a read, which
    /// would make another tab's upgrade or deletion see `blocked`.
    fn begin(&self, mode: IdbTransactionMode, operation: &str) -> Result<(IdbTransaction, IdbObjectStore), StoreError> {
        if self.closed_by_versionchange.get() {
            return Err(self.closed_error(operation));
        }
        let transaction = self
            .database
            .transaction_with_str_and_mode(RECORDS, mode)
            .map_err(|thrown| self.failure(operation, &JsFailure::from_js(&thrown)))?;
        let records = transaction.object_store(RECORDS).map_err(|thrown| failed_js(operation, &thrown))?;
        Ok((transaction, records))
    }

    fn request_error(&self, operation: &str, failure: RequestFailure) -> StoreError {
        match failure {
            RequestFailure::Error(failure) => self.failure(operation, &failure),
            // Data requests never watch `blocked`; kept total rather than unreachable.
            RequestFailure::Blocked => StoreError::Blocked,
        }
    }

    /// [`failed`], except that a connection closed under us gets a message saying how to recover.
    fn failure(&self, operation: &str, failure: &JsFailure) -> StoreError {
        if self.closed_by_versionchange.get() {
            self.closed_error(operation)
        } else if failure.name.as_deref() == Some("InvalidStateError") {
            StoreError::Failed(format!(
                "{operation}: the connection to IndexedDB database \"{}\" is closed (the browser may have \
                 cleared site data); reopen the store: {failure}",
                self.name
            ))
        } else {
            failed(operation, failure)
        }
    }

    fn closed_error(&self, operation: &str) -> StoreError {
        StoreError::Failed(format!(
            "{operation}: the connection to IndexedDB database \"{}\" was closed because another tab or \
             worker upgraded or deleted the database; reopen the store",
            self.name
        ))
    }
}

impl Drop for IdbStore {
    fn drop(&mut self) {
        self.database.set_onversionchange(None);
        self.database.close();
    }
}

/// A stored value that is not a string: written by other code sharing the database.
fn not_text(operation: &str, key: &str, value: &JsValue) -> StoreError {
    StoreError::Failed(format!(
        "{operation}: the record under \"{key}\" is not text (typeof {}); was it written by other code?",
        value.js_typeof().as_string().unwrap_or_default()
    ))
}
