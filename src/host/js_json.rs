//! Moving JSON between Rust and JS through `JSON.parse`/`JSON.stringify`: small in the wasm, and exact
//! for the plain data protocol values are.
use crate::json::Value;
use wasm_bindgen::JsValue;

/// A JS value for `value`.
pub fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
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
