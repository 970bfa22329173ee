//! Client errors as JS `Error`s carrying `name`, `code` and `retryable`. The only place an
//! [`ErrorKind`] becomes a JS name.
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::error::ClientError;

/// The JS `Error` for `e`.
pub(crate) fn to_js_error(e: &ClientError) -> JsValue {
    client_error(&e.message, e.kind.js_name(), e.code.map(|c| c as f64), e.retryable)
}

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    /// `new Error(message)` with `name`, `code` (`null` for none) and `retryable` set.
    #[wasm_bindgen(js_name = clientError)]
    fn client_error(message: &str, name: &str, code: Option<f64>, retryable: bool) -> JsValue;
}
