//! A thrown or rejected JS value as text a person can read: an `Error`'s `name: message`, a string as
//! itself, anything else through `String(value)`. Never `{:?}` of a `JsValue`, which prints handles.
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
    if let Some(text) = value.as_string() {
        return text;
    }
    String::from(js_sys::JsString::from(value.clone()))
}
