//! Bench-only exports (cargo feature `bench`; the shipped pkg/ is built without them): `cargo xtask bench
//! decode` times, in Chromium, what the client pays for one `tasks/get` response body, by three routes:
//! the body as a JS string into wasm, as bytes into wasm (what the transport reads), and `JSON.parse`
//! in JS with Rust reading only the fields it needs from the JS object.
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::host::js_json::to_js;
use crate::protocol::jsonrpc::decode_message_value;
use crate::protocol::request::{ClientRequest, RequestResult};
use crate::protocol::task::TaskStatus;

/// Route 1. Decodes `text`, a `tasks/get` response body for `taskId`, as the transport does (parse,
/// envelope, result for that request, which checks the taskId). `toJs`: return the decoded task as a JS
/// object (through the same `to_js` the client's snapshots take); otherwise only its status string.
#[wasm_bindgen(js_name = benchDecodeTasksGet)]
pub fn bench_decode_tasks_get(task_id: String, text: &str, to_js_object: bool) -> Result<JsValue, JsValue> {
    decode(task_id, text, to_js_object)
}

/// Route 2: as route 1 from the body's bytes (a fetch body's `arrayBuffer`), no UTF-16 on the way in.
#[wasm_bindgen(js_name = benchDecodeTasksGetBytes)]
pub fn bench_decode_tasks_get_bytes(task_id: String, body: &[u8], to_js_object: bool) -> Result<JsValue, JsValue> {
    let text = std::str::from_utf8(body).map_err(|_| JsValue::from_str("not UTF-8"))?;
    decode(task_id, text, to_js_object)
}

fn decode(task_id: String, text: &str, to_js_object: bool) -> Result<JsValue, JsValue> {
    let request = ClientRequest::GetTask { task_id };
    let message = crate::protocol::jsonrpc::parse_answer(text).map_err(|e| e.to_string())?;
    let response = match decode_message_value(message).map_err(|e| e.to_string())? {
        crate::protocol::jsonrpc::Incoming::Response(r) => r,
        _ => return Err("not a response".into()),
    };
    let outcome = response.outcome.map_err(|e| e.message)?;
    match request.decode_result(&outcome).map_err(|e| e.to_string())? {
        RequestResult::Task(task) if to_js_object => Ok(to_js(&task.to_json())),
        RequestResult::Task(task) => Ok(JsValue::from_str(task.task.status.as_str())),
        _ => Err(JsValue::from_str("not a tasks/get result")),
    }
}

/// Route 3, a prototype (not the client's path): `message` is the body after `JSON.parse` in JS; Rust
/// checks the envelope and reads the fields the client acts on through `Reflect`, and hands back the
/// `result` object itself. It checks what the protocol layer checks of each field it reads, and no more
/// (a form's schema, a result's content blocks stay unread), so it bounds what this route could cost.
#[wasm_bindgen(js_name = benchDecodeTasksGetParsed)]
pub fn bench_decode_tasks_get_parsed(task_id: &str, message: &JsValue) -> Result<JsValue, JsValue> {
    if get(message, "jsonrpc")?.as_string().as_deref() != Some("2.0") {
        return Err("jsonrpc must be \"2.0\"".into());
    }
    let id = get(message, "id")?;
    if id.as_f64().is_none() && id.as_string().is_none() {
        return Err("a response needs an id".into());
    }
    let result = get(message, "result")?;
    if !result.is_object() || !get(message, "error")?.is_undefined() {
        return Err("expected a result object".into());
    }
    if get(&result, "taskId")?.as_string().as_deref() != Some(task_id) {
        return Err("answers for another task".into());
    }
    let status = get(&result, "status")?.as_string().ok_or("status must be a string")?;
    let status = TaskStatus::parse(&status).map_err(|e| e.to_string())?;
    match get(&result, "resultType")?.as_string().as_deref() {
        None | Some("complete") => {}
        Some(_) => return Err("resultType must be complete".into()),
    }
    for key in ["createdAt", "lastUpdatedAt"] {
        get(&result, key)?.as_string().ok_or("a time must be a string")?;
    }
    let message = get(&result, "statusMessage")?;
    if !message.is_undefined() && !message.is_null() && message.as_string().is_none() {
        return Err("statusMessage must be a string".into());
    }
    for key in ["ttlMs", "pollIntervalMs"] {
        let v = get(&result, key)?;
        if !v.is_undefined() && !v.is_null() && v.as_f64().is_none_or(|n| n < 0.0 || n.fract() != 0.0) {
            return Err("milliseconds must be a whole number".into());
        }
    }
    let detail = match status {
        TaskStatus::InputRequired => "inputRequests",
        TaskStatus::Completed => "result",
        TaskStatus::Failed => "error",
        TaskStatus::Working | TaskStatus::Cancelled => return Ok(result),
    };
    let detail = get(&result, detail)?;
    if !detail.is_object() {
        return Err("missing status detail".into());
    }
    match status {
        TaskStatus::InputRequired => {
            for key in js_sys::Object::keys(detail.unchecked_ref::<js_sys::Object>()).iter() {
                let request = Reflect::get(&detail, &key)?;
                get(&request, "method")?.as_string().ok_or("method must be a string")?;
            }
        }
        TaskStatus::Completed => {
            if !Array::is_array(&get(&detail, "content")?) {
                return Err("content must be an array".into());
            }
            let is_error = get(&detail, "isError")?;
            if !is_error.is_undefined() && !is_error.is_null() && is_error.as_bool().is_none() {
                return Err("isError must be a boolean".into());
            }
        }
        _ => {
            get(&detail, "code")?.as_f64().ok_or("code must be a number")?;
        }
    }
    Ok(result)
}

thread_local! {
    /// Each key as a JS string, made once: a fresh one per read would cost a UTF-8 decode each time.
    static KEYS: std::cell::RefCell<Vec<(&'static str, JsValue)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn get(object: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    KEYS.with_borrow_mut(|keys| {
        let cached = keys.iter().find(|(k, _)| std::ptr::eq(*k, key)).map(|(_, v)| v.clone());
        let js_key = cached.unwrap_or_else(|| {
            let made = JsValue::from_str(key);
            keys.push((key, made.clone()));
            made
        });
        Reflect::get(object, &js_key)
    })
}
