//! Client errors as JS `Error`s carrying `name`, `code` and `retryable`.
use js_sys::Reflect;
use wasm_bindgen::JsValue;

use crate::runtime::client::ClientError;

/// The JS `Error` for `e`.
pub fn to_js_error(e: &ClientError) -> JsValue {
    let error = js_sys::Error::new(&e.message);
    error.set_name(e.name);
    let _ = Reflect::set(
        &error,
        &JsValue::from_str("code"),
        &e.code.map_or(JsValue::NULL, |c| JsValue::from_f64(c as f64)),
    );
    let _ = Reflect::set(&error, &JsValue::from_str("retryable"), &JsValue::from_bool(e.retryable));
    error.into()
}
