//! Client errors as JS `Error`s carrying `name`, `code` and `retryable`. The only place an
//! [`ErrorKind`] becomes a JS name.
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::error::{ClientError, ErrorKind};

/// `Error.name` for each kind (the TypeScript union `TaskClientError["name"]` lists the same).
pub(crate) fn js_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Usage => "TypeError",
        ErrorKind::Rpc => "RpcError",
        ErrorKind::Http => "HttpError",
        ErrorKind::Network => "NetworkError",
        ErrorKind::Timeout => "TimeoutError",
        ErrorKind::Aborted => "AbortError",
        ErrorKind::Protocol => "ProtocolError",
        ErrorKind::Headers => "HeadersError",
        ErrorKind::Storage => "StorageError",
        ErrorKind::TaskState => "TaskStateError",
        ErrorKind::InputRequired => "InputRequiredError",
        ErrorKind::Forgotten => "TaskForgottenError",
        ErrorKind::Closed => "ClientClosedError",
        ErrorKind::Redirect => "RedirectError",
    }
}

/// The JS `Error` for `e`.
pub(crate) fn to_js_error(e: &ClientError) -> JsValue {
    client_error(&e.message, js_name(e.kind), e.code.map(|c| c as f64), e.retryable)
}

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    /// `new Error(message)` with `name`, `code` (`null` for none) and `retryable` set.
    #[wasm_bindgen(js_name = clientError)]
    fn client_error(message: &str, name: &str, code: Option<f64>, retryable: bool) -> JsValue;
}
