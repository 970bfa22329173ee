//! The crate's only entry points into the wasm-bindgen executor. Every distinct future type handed to
//! `future_to_promise` or `spawn_local` copies its glue into the `.wasm` (measured: nine copies, 25 KB);
//! boxing the future first makes each of them one instantiation.
use std::future::Future;
use std::pin::Pin;

use js_sys::Promise;
use wasm_bindgen::JsValue;

type BoxedResult = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;
type BoxedUnit = Pin<Box<dyn Future<Output = ()>>>;

/// A JS `Promise` settled by `future` (the JS API's async methods).
pub(crate) fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    wasm_bindgen_futures::future_to_promise(Box::pin(future) as BoxedResult)
}

/// Runs `future` on the JS event loop, detached.
pub(crate) fn spawn(future: impl Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(Box::pin(future) as BoxedUnit);
}
