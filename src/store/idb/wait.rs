//! Awaiting IndexedDB requests and transactions as futures.
//!
//! The trick that keeps this small: a `Promise` is created whose own `resolve` and `reject`
//! functions are installed directly as the request's `onsuccess` / `onerror` (and `onblocked`) or
//! the transaction's `oncomplete` / `onabort`. No Rust closure is handed to JS, so nothing can leak
//! or be called after it was freed; the event arrives as the rejection value, and the outcome is then
//! read from the request or transaction itself.
//!
//! An open or delete request that fires `blocked` gets a short grace period to finish before the
//! wait reports it (see [`BLOCKED_GRACE_MS`]).
//!
//! Handlers are installed when the wait is *created*, not when it is first polled, so several
//! requests issued in one transaction can be awaited one after another without missing an event;
//! a request that has already finished is answered from its `readyState` at once. Each wait is an
//! RAII guard that removes its handlers when dropped, so an abandoned future leaves the request
//! as it found it.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbOpenDbRequest, IdbRequest, IdbRequestReadyState, IdbTransaction};

use crate::store::error::JsFailure;

/// How long an open or delete request may stay `blocked` before we report [`RequestFailure::Blocked`].
///
/// `blocked` is not final: it fires whenever another connection has not closed *yet*, including
/// one that already called `close()` and is only finishing a transaction in flight (Chromium fires
/// it for such close-pending connections), which takes milliseconds. Waiting briefly turns that
/// everyday race between tabs into a success; a connection that really stays open still yields
/// `Blocked`, after this delay.
const BLOCKED_GRACE_MS: i32 = 1_000;

/// How a request ended when it did not succeed.
#[derive(Debug)]
pub(super) enum RequestFailure {
    /// `error` fired; the request's `error` (a `DOMException`) says why.
    Error(JsFailure),
    /// An open or delete request stayed `blocked` by another open connection for [`BLOCKED_GRACE_MS`].
    Blocked,
}

/// A request being waited on; handlers stay installed until this is dropped.
#[must_use = "dropping the wait removes its handlers from the request; await `outcome()`"]
pub(super) struct RequestWait<'a> {
    request: &'a IdbRequest,
    /// Set for open/delete requests, whose `onblocked` is also ours to remove.
    open_request: Option<&'a IdbOpenDbRequest>,
    /// `None` when the request had already finished at creation.
    settled: Option<JsFuture>,
}

impl<'a> RequestWait<'a> {
    /// Starts waiting on a data request (`get`, `put`, `getAll`, …).
    pub(crate) fn new(request: &'a IdbRequest) -> Self {
        Self::install(request, None)
    }

    /// Starts waiting on an open or delete-database request, whose `blocked` event is also watched.
    pub(crate) fn new_open(request: &'a IdbOpenDbRequest) -> Self {
        Self::install(request, Some(request))
    }

    fn install(request: &'a IdbRequest, open_request: Option<&'a IdbOpenDbRequest>) -> Self {
        if request.ready_state() == IdbRequestReadyState::Done {
            return RequestWait { request, open_request, settled: None };
        }
        let promise = Promise::new(&mut |resolve, reject| {
            request.set_onsuccess(Some(&resolve));
            request.set_onerror(Some(&reject));
            if let Some(open_request) = open_request {
                open_request.set_onblocked(Some(&resolve));
            }
        });
        RequestWait { request, open_request, settled: Some(JsFuture::from(promise)) }
    }

    /// Waits for the request to finish and returns its `result`.
    pub(crate) async fn outcome(mut self) -> Result<JsValue, RequestFailure> {
        if let Some(settled) = self.settled.take() {
            let first = settled.await;
            let blocked = matches!(&first, Ok(event) if event_type(event).as_deref() == Some("blocked"));
            if blocked
                && self.request.ready_state() != IdbRequestReadyState::Done
                && !self.finished_within_grace().await
            {
                return Err(RequestFailure::Blocked);
            }
        }
        // Finished (either way): `error` is null on success, the DOMException on failure.
        match self.request.error() {
            Ok(Some(exception)) => Err(RequestFailure::Error(JsFailure::from_dom_exception(&exception))),
            Ok(None) => self.request.result().map_err(|thrown| RequestFailure::Error(JsFailure::from_js(&thrown))),
            Err(thrown) => Err(RequestFailure::Error(JsFailure::from_js(&thrown))),
        }
    }

    /// After `blocked`: whether the request succeeds or fails within [`BLOCKED_GRACE_MS`].
    async fn finished_within_grace(&self) -> bool {
        if let Some(open_request) = self.open_request {
            open_request.set_onblocked(None);
        }
        let mut timer = GraceTimer::default();
        let promise = Promise::new(&mut |resolve, reject| {
            self.request.set_onsuccess(Some(&resolve));
            self.request.set_onerror(Some(&reject));
            timer.start(&resolve, BLOCKED_GRACE_MS);
        });
        // The timer calls `resolve` with no argument; the request's handlers pass their event.
        !matches!(JsFuture::from(promise).await, Ok(value) if value.is_undefined())
    }
}

impl Drop for RequestWait<'_> {
    fn drop(&mut self) {
        self.request.set_onsuccess(None);
        self.request.set_onerror(None);
        if let Some(open_request) = self.open_request {
            open_request.set_onblocked(None);
        }
    }
}

/// A `setTimeout` on the global object (pages, workers and Node all have one), cleared on drop.
#[derive(Default)]
#[must_use = "dropping the timer clears it"]
struct GraceTimer {
    id: Option<JsValue>,
}

impl GraceTimer {
    /// Calls `callback` after `ms`. Without a global `setTimeout` it never fires, and the wait
    /// lasts until the request settles, which is the spec's own behaviour for `blocked`.
    fn start(&mut self, callback: &Function, ms: i32) {
        let global = js_sys::global();
        if let Some(set_timeout) = global_function(&global, "setTimeout") {
            self.id = set_timeout.call2(&global, callback, &JsValue::from(ms)).ok();
        }
    }
}

impl Drop for GraceTimer {
    fn drop(&mut self) {
        let global = js_sys::global();
        if let (Some(id), Some(clear_timeout)) = (&self.id, global_function(&global, "clearTimeout")) {
            let _ = clear_timeout.call1(&global, id);
        }
    }
}

/// A function-valued property of the global object, if there is one.
fn global_function(global: &js_sys::Object, name: &str) -> Option<Function> {
    Reflect::get(global, &JsValue::from_str(name)).ok()?.dyn_into::<Function>().ok()
}

/// A transaction being waited on until it commits (`complete`) or aborts (`abort`).
///
/// Writes wait for the transaction, not the request: a request's `success` only means the write
/// was queued, and a write can still fail at commit (notably with `QuotaExceededError`).
#[must_use = "dropping the wait removes its handlers from the transaction; await `outcome()`"]
pub(super) struct TransactionWait<'a> {
    transaction: &'a IdbTransaction,
    settled: JsFuture,
}

impl<'a> TransactionWait<'a> {
    /// Installs `oncomplete` / `onabort`. An error in any request of the transaction aborts it
    /// (nothing here calls `preventDefault`), so `abort` covers request errors too.
    pub(crate) fn new(transaction: &'a IdbTransaction) -> Self {
        let promise = Promise::new(&mut |resolve, reject| {
            transaction.set_oncomplete(Some(&resolve));
            transaction.set_onabort(Some(&reject));
        });
        TransactionWait { transaction, settled: JsFuture::from(promise) }
    }

    /// Waits for the commit; on abort, returns the transaction's `error`.
    pub(crate) async fn outcome(mut self) -> Result<(), JsFailure> {
        match (&mut self.settled).await {
            Ok(_) => Ok(()),
            Err(_) => Err(match self.transaction.error() {
                Some(exception) => JsFailure::from_dom_exception(&exception),
                None => JsFailure { name: Some("AbortError".into()), message: "the transaction was aborted".into() },
            }),
        }
    }
}

impl Drop for TransactionWait<'_> {
    fn drop(&mut self) {
        self.transaction.set_oncomplete(None);
        self.transaction.set_onabort(None);
    }
}

/// `event.type`, read without assuming the rejection value is an `Event`.
fn event_type(event: &JsValue) -> Option<String> {
    Reflect::get(event, &JsValue::from_str("type")).ok()?.as_string()
}
