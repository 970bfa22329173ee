//! Finding IndexedDB, opening (and creating) our database, and deleting one.
//!
//! `indexedDB` is looked up on the JS global object rather than through `window`, so the same
//! module works in pages, dedicated/shared/service workers, and reports "unavailable" (instead of
//! crashing) in Node.js and other runtimes that have no IndexedDB.

use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbFactory, IdbOpenDbRequest};

use super::wait::{RequestFailure, RequestWait};
use super::{RECORDS, SCHEMA_VERSION};
use crate::store::error::JsFailure;
use crate::store::StoreError;

/// The global `indexedDB`, or [`StoreError::Unavailable`] saying why there is none.
pub(super) fn factory() -> Result<IdbFactory, StoreError> {
    let value = Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB")).map_err(|thrown| {
        // Reading the getter throws SecurityError in opaque-origin documents (sandboxed iframes, data: URLs).
        StoreError::Unavailable(format!("reading `indexedDB` was refused: {}", JsFailure::from_js(&thrown)))
    })?;
    if value.is_undefined() || value.is_null() {
        return Err(StoreError::Unavailable(
            "this JavaScript environment has no `indexedDB` (Node.js and some embedded runtimes have none); \
             pass a host store or use the memory store"
                .into(),
        ));
    }
    if !value.is_object() {
        return Err(StoreError::Unavailable("`indexedDB` is not an object here".into()));
    }
    // Not `dyn_into`: an `instanceof IDBFactory` check would reject spec-conforming polyfills
    // (e.g. fake-indexeddb in a test host) that do not install the `IDBFactory` global.
    Ok(value.unchecked_into())
}

/// What a failure to open means for the caller: the names browsers use when storage is switched
/// off or broken (private mode, policy, a damaged profile) mean "use another store".
fn open_error(database_name: &str, failure: &JsFailure) -> StoreError {
    match failure.name.as_deref() {
        Some("QuotaExceededError") => StoreError::QuotaExceeded,
        Some("InvalidStateError" | "UnknownError" | "SecurityError") => {
            StoreError::Unavailable(format!("IndexedDB refused to open database \"{database_name}\": {failure}"))
        }
        Some("VersionError") => StoreError::Failed(format!(
            "IndexedDB database \"{database_name}\" was created by a newer version of this client \
             (this one uses schema version {SCHEMA_VERSION}): {failure}"
        )),
        _ => StoreError::Failed(format!("opening IndexedDB database \"{database_name}\": {failure}")),
    }
}

/// The `upgradeneeded` handler, which creates the `records` object store in a new database.
///
/// It must run synchronously inside the upgrade transaction, so unlike the other handlers it is a
/// Rust closure; this guard owns it and detaches it from the request on drop.
#[must_use = "dropping the handler detaches it; a database created afterwards would lack its object store"]
struct UpgradeHandler {
    request: IdbOpenDbRequest,
    _closure: Closure<dyn FnMut(JsValue)>,
}

impl UpgradeHandler {
    fn install(request: &IdbOpenDbRequest) -> Self {
        let target = request.clone();
        let closure = Closure::<dyn FnMut(JsValue)>::new(move |_event: JsValue| {
            let Ok(database) = target.result() else { return };
            let database: IdbDatabase = database.unchecked_into();
            if !database.object_store_names().contains(RECORDS) && database.create_object_store(RECORDS).is_err() {
                // Leaving the upgrade half-done would create a database without its store at our
                // version forever; aborting makes the open fail (AbortError) and leaves nothing behind.
                if let Some(transaction) = target.transaction() {
                    let _ = transaction.abort();
                }
            }
        });
        request.set_onupgradeneeded(Some(closure.as_ref().unchecked_ref()));
        UpgradeHandler { request: request.clone(), _closure: closure }
    }
}

impl Drop for UpgradeHandler {
    fn drop(&mut self) {
        self.request.set_onupgradeneeded(None);
    }
}

/// Opens `database_name` at our schema version, creating the `records` store if it is new.
pub(super) async fn open(database_name: &str) -> Result<IdbDatabase, StoreError> {
    let factory = factory()?;
    let request = factory
        .open_with_u32(database_name, SCHEMA_VERSION)
        .map_err(|thrown| open_error(database_name, &JsFailure::from_js(&thrown)))?;
    let upgrade = UpgradeHandler::install(&request);
    let outcome = RequestWait::new_open(&request).outcome().await;
    match outcome {
        Ok(database) => {
            drop(upgrade);
            Ok(database.unchecked_into())
        }
        Err(RequestFailure::Error(failure)) => Err(open_error(database_name, &failure)),
        Err(RequestFailure::Blocked) => {
            close_if_it_opens_later(&request, upgrade);
            Err(StoreError::Blocked)
        }
    }
}

/// After a `blocked` open, the request is still queued and may succeed once the other connection
/// closes. Nobody would own that connection, and it would block the next upgrade in turn, so a
/// one-shot handler closes it; it also keeps the upgrade handler alive until then, so a late
/// upgrade still creates the object store. (If the request never settles, this small closure is
/// never freed: the price of not leaving a stray connection open.)
fn close_if_it_opens_later(request: &IdbOpenDbRequest, upgrade: UpgradeHandler) {
    let target = request.clone();
    let on_settled = Closure::once_into_js(move |_event: JsValue| {
        if let Ok(database) = target.result() {
            database.unchecked_into::<IdbDatabase>().close();
        }
        target.set_onsuccess(None);
        target.set_onerror(None);
        drop(upgrade);
    });
    let on_settled: &js_sys::Function = on_settled.unchecked_ref();
    request.set_onsuccess(Some(on_settled));
    request.set_onerror(Some(on_settled));
}

/// Deletes a whole database. Deleting one that does not exist succeeds.
///
/// Our own [`IdbStore`](super::IdbStore)s close their connection when asked, so only connections
/// opened by other code (or an older build in another tab) can make this [`StoreError::Blocked`];
/// the deletion then still happens as soon as they close.
pub async fn delete_database(name: &str) -> Result<(), StoreError> {
    let factory = factory()?;
    let request = factory.delete_database(name).map_err(|thrown| open_error(name, &JsFailure::from_js(&thrown)))?;
    match RequestWait::new_open(&request).outcome().await {
        Ok(_) => Ok(()),
        Err(RequestFailure::Blocked) => Err(StoreError::Blocked),
        Err(RequestFailure::Error(failure)) => {
            Err(crate::store::error::failed(&format!("deleting IndexedDB database \"{name}\""), &failure))
        }
    }
}
