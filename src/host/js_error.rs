//! A thrown or rejected JS value as text a person can read: an `Error`'s `name: message`, a string as
//! itself, anything else through `String(value)`. Never `{:?}` of a `JsValue`, which prints handles
//! and brings wasm-bindgen's debug-string glue. Made in JS (`errorText` in `browser.js`): every step
//! is a JS operation that may throw (a hostile `toString`, a revoked Proxy).
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    /// The text of `value`, as a message.
    #[wasm_bindgen(js_name = errorText)]
    pub(crate) fn js_error_text(value: &JsValue) -> String;
}

/// `value[name]`, or `undefined` where reading it throws: a field of a failure the JS threw
/// (`{ kind, message, … }` from `idb.js` and `http.js`).
pub(crate) fn field(value: &JsValue, name: &str) -> JsValue {
    js_sys::Reflect::get(value, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}
