//! The page's `localStorage`, where there is one: the poller's hint of tasks to poll before
//! IndexedDB opens (see `client_state/early.rs`). Workers, Node and edge runtimes have none, and a
//! sandboxed frame or a browser setting may refuse it; then there is no hint, and nothing else
//! changes (the hint only saves the first polls some milliseconds: the records stay in the store).
use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::globals::global_property;

/// Calls `localStorage[method](args…)`; `None` where there is no storage or it throws.
fn call(method: &str, args: &[&JsValue]) -> Option<JsValue> {
    let storage = global_property("localStorage")?;
    let function: Function = Reflect::get(&storage, &JsValue::from_str(method)).ok()?.dyn_into().ok()?;
    match args {
        [key] => function.call1(&storage, key),
        [key, value] => function.call2(&storage, key, value),
        _ => return None,
    }
    .ok()
}

/// The text stored under `key`, if any.
pub(crate) fn get(key: &str) -> Option<String> {
    call("getItem", &[&JsValue::from_str(key)])?.as_string()
}

/// Stores `value` under `key`, or removes the key (`None`). A refusal (quota, a blocked storage) is
/// left unsaid: the hint is a shortcut, and the next change writes it again.
pub(crate) fn set(key: &str, value: Option<&str>) {
    let key = JsValue::from_str(key);
    let _ = match value {
        Some(value) => call("setItem", &[&key, &JsValue::from_str(value)]),
        None => call("removeItem", &[&key]),
    };
}
