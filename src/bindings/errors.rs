//! Client errors as JS `Error`s carrying `name`, `code` and `retryable`. The only place an
//! [`ErrorKind`] becomes a JS name.
use js_sys::Reflect;
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
    let error = js_sys::Error::new(&e.message);
    error.set_name(js_name(e.kind));
    let _ = Reflect::set(
        &error,
        &JsValue::from_str("code"),
        &e.code.map_or(JsValue::NULL, |c| JsValue::from_f64(c as f64)),
    );
    let _ = Reflect::set(&error, &JsValue::from_str("retryable"), &JsValue::from_bool(e.retryable));
    error.into()
}
