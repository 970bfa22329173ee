//! A thrown or rejected JS value as text a person can read: an `Error`'s `name: message`, a string as
//! itself, anything else through `String(value)`. Never `{:?}` of a `JsValue`, which prints handles
//! and brings wasm-bindgen's debug-string glue.
use wasm_bindgen::{JsCast, JsValue};

/// The text of `value`, as a message.
pub(crate) fn js_error_text(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        let name = String::from(error.name());
        let message = String::from(error.message());
        return match (name.is_empty(), message.is_empty()) {
            (_, true) => name,
            (true, false) => message,
            (false, false) => format!("{name}: {message}"),
        };
    }
    js_string(value)
}

/// `String(value)`, as JS shows any value: `42`, `null`, `[object Object]`, a custom `toString()`.
/// Not `String::from(JsString::from(value))`: that cast is unchecked, and reading a value that is not
/// a string back as one throws.
pub(crate) fn js_string(value: &JsValue) -> String {
    if let Some(text) = value.as_string() {
        return text;
    }
    crate::host::globals::global_property("String")
        .and_then(|string| string.dyn_into::<js_sys::Function>().ok())
        .and_then(|string| string.call1(&JsValue::UNDEFINED, value).ok())
        .and_then(|text| text.as_string())
        // `String()` threw: a hostile `toString`, or a revoked Proxy.
        .unwrap_or_else(|| "(a value that cannot be shown as text)".to_owned())
}
