//! Moving JSON between Rust and JS through `JSON.parse`/`JSON.stringify`: small in the wasm, and exact
//! for the plain data protocol values are.
use crate::json::Value;
use wasm_bindgen::JsValue;

/// Buffers above this size are not kept for the next [`to_js`].
const KEPT_TEXT_BYTES: usize = 64 * 1024;

thread_local! {
    /// The text [`to_js`] hands to `JSON.parse`, kept from one call to the next: written straight into
    /// a buffer that has already grown, not into a new `String` that grows (and is copied) on the way
    /// and then copied again by `Display`.
    static TEXT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// A JS value for `value`.
pub fn to_js(value: &Value) -> JsValue {
    // `try_with`: `with` would bring the panic path of a thread-local read after teardown.
    let mut text = TEXT.try_with(std::cell::Cell::take).unwrap_or_default();
    text.clear();
    crate::json::write_compact(&mut text, value);
    let js = js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL);
    if text.capacity() <= KEPT_TEXT_BYTES {
        let _ = TEXT.try_with(|kept| kept.set(text));
    }
    js
}

/// The JSON of a JS value (`undefined` reads as `null`). Errors for values JSON cannot hold (cycles, BigInt).
pub fn from_js(value: &JsValue) -> Result<Value, String> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    let text = js_sys::JSON::stringify(value).map_err(|_| "the value cannot be written as JSON".to_owned())?;
    let text = text.as_string().unwrap_or_else(|| "null".into());
    crate::json::from_str(&text).map_err(|e| e.to_string())
}
