//! Bench-only exports (cargo feature `bench`; the shipped pkg/ is built without them): `cargo xtask bench
//! decode` times, in Chromium, what the client pays for one `tasks/get` response body, by three routes:
//! the body as a JS string into wasm, as bytes into wasm (what the door reads), and `JSON.parse` in JS
//! with Rust reading only the fields it needs from the JS object (field by field through `Reflect`, or
//! all of them handed over in one call).
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::json::Value;
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
    hand_over(request.decode_result(&outcome).map_err(|e| e.to_string())?, to_js_object)
}

/// The decoded task as a JS object (its JSON text through `JSON.parse`, as the door hands values to
/// the driver), or only its status string.
fn hand_over(result: RequestResult, to_js_object: bool) -> Result<JsValue, JsValue> {
    match result {
        RequestResult::Task(task) if to_js_object => Ok(to_js(&task.to_json())),
        RequestResult::Task(task) => Ok(JsValue::from_str(task.task.status.as_str())),
        _ => Err(JsValue::from_str("not a tasks/get result")),
    }
}

/// A JS value for `value`.
fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&crate::json::to_string(value)).unwrap_or(JsValue::NULL)
}

/// Route 3, a prototype (not the client's path): `message` is the body after `JSON.parse` in JS; Rust
/// checks the envelope and reads the fields the client acts on through `Reflect`, and hands back the
/// `result` object itself. It checks what the protocol layer checks of each field it reads, and no more
/// (a form's schema, a result's content blocks stay unread), so it bounds what this route could cost.
#[wasm_bindgen(js_name = benchDecodeTasksGetParsed)]
pub fn bench_decode_tasks_get_parsed(task_id: &str, message: &JsValue) -> Result<JsValue, JsValue> {
    let mut wrong = 0;
    let id = get(message, "id")?;
    if id.as_f64().is_none() && id.as_string().is_none() {
        wrong |= bit("id");
    }
    let result = get(message, "result")?;
    if !result.is_object() || !get(message, "error")?.is_undefined() {
        return Err(wrong_type(bit("result")));
    }
    let text =
        |object, key, wrong: &mut u32| Ok::<_, JsValue>(read(object, key, JsValue::is_string, wrong)?.as_string());
    let millis = |key, wrong: &mut u32| Ok::<_, JsValue>(read(&result, key, |v| v.as_f64().is_some(), wrong)?.as_f64());
    // Read as the client would need it; nothing to check beyond its type.
    text(&result, "statusMessage", &mut wrong)?;
    let fields = TaskFields {
        jsonrpc: text(message, "jsonrpc", &mut wrong)?,
        task_id: text(&result, "taskId", &mut wrong)?,
        status: text(&result, "status", &mut wrong)?,
        result_type: text(&result, "resultType", &mut wrong)?,
        created_at: text(&result, "createdAt", &mut wrong)?,
        last_updated_at: text(&result, "lastUpdatedAt", &mut wrong)?,
        ttl_ms: millis("ttlMs", &mut wrong)?,
        poll_interval_ms: millis("pollIntervalMs", &mut wrong)?,
        wrong,
    };
    check_task_fields(task_id, &fields, &result)?;
    Ok(result)
}

/// Route 3 batched, a prototype: as [`bench_decode_tasks_get_parsed`], but JS reads the same fields off
/// the parsed message and hands them over in this one call, each as the type the protocol wants or
/// absent, with a bit in `wrong` (by [`FIELDS`]) for each that is present with another type; Rust makes
/// every decision from there. Shows what route 3 costs with one crossing instead of one per field.
/// `_status_message` crosses as the client would need it; nothing to check beyond its type.
#[allow(clippy::too_many_arguments)] // one argument per field is the point: one crossing for all of them
#[wasm_bindgen(js_name = benchDecodeTasksGetFields)]
pub fn bench_decode_tasks_get_fields(
    task_id: &str,
    result: JsValue,
    wrong: u32,
    jsonrpc: Option<String>,
    result_task_id: Option<String>,
    status: Option<String>,
    result_type: Option<String>,
    created_at: Option<String>,
    last_updated_at: Option<String>,
    _status_message: Option<String>,
    ttl_ms: Option<f64>,
    poll_interval_ms: Option<f64>,
) -> Result<JsValue, JsValue> {
    let fields = TaskFields {
        jsonrpc,
        task_id: result_task_id,
        status,
        result_type,
        created_at,
        last_updated_at,
        ttl_ms,
        poll_interval_ms,
        wrong,
    };
    check_task_fields(task_id, &fields, &result)?;
    Ok(result)
}

/// The fields of a `tasks/get` answer that route 3 reads; a field's bit in `wrong` is `1 << index`.
/// The bench page reads them through [`bench_task_fields`], so both sides share one order.
const FIELDS: [&str; 11] = [
    "id",
    "result",
    "jsonrpc",
    "taskId",
    "status",
    "resultType",
    "createdAt",
    "lastUpdatedAt",
    "statusMessage",
    "ttlMs",
    "pollIntervalMs",
];

/// [`FIELDS`] for the bench page, which sets each field's bit in `wrong` by its index here.
#[wasm_bindgen(js_name = benchTaskFields)]
pub fn bench_task_fields() -> Vec<JsValue> {
    FIELDS.iter().map(|f| JsValue::from_str(f)).collect()
}

/// Field `name`'s bit in `wrong`.
fn bit(name: &str) -> u32 {
    FIELDS.iter().position(|f| *f == name).map_or(0, |i| 1 << i)
}

/// Member `key` of `object`; one present with a type `fits` refuses sets the key's bit in `wrong`.
fn read(object: &JsValue, key: &'static str, fits: fn(&JsValue) -> bool, wrong: &mut u32) -> Result<JsValue, JsValue> {
    let value = get(object, key)?;
    if !value.is_undefined() && !value.is_null() && !fits(&value) {
        *wrong |= bit(key);
    }
    Ok(value)
}

/// What route 3 read of one answer, however it crossed.
struct TaskFields {
    jsonrpc: Option<String>,
    task_id: Option<String>,
    status: Option<String>,
    result_type: Option<String>,
    created_at: Option<String>,
    last_updated_at: Option<String>,
    ttl_ms: Option<f64>,
    poll_interval_ms: Option<f64>,
    /// A bit per field of [`FIELDS`] present with a type the protocol does not take.
    wrong: u32,
}

/// The error for the lowest field set in `wrong`.
fn wrong_type(wrong: u32) -> JsValue {
    let name = FIELDS.get(wrong.trailing_zeros() as usize).copied().unwrap_or("a field");
    JsValue::from_str(&format!("{name} has the wrong type"))
}

/// Both route 3 prototypes' checks: what the protocol layer checks of each field they read.
fn check_task_fields(task_id: &str, fields: &TaskFields, result: &JsValue) -> Result<(), JsValue> {
    if fields.wrong != 0 {
        return Err(wrong_type(fields.wrong));
    }
    if fields.jsonrpc.as_deref() != Some("2.0") {
        return Err("jsonrpc must be \"2.0\"".into());
    }
    if fields.task_id.as_deref() != Some(task_id) {
        return Err("answers for another task".into());
    }
    let status = TaskStatus::parse(fields.status.as_deref().ok_or("status is missing")?).map_err(|e| e.to_string())?;
    match fields.result_type.as_deref() {
        None | Some("complete") => {}
        Some(_) => return Err("resultType must be complete".into()),
    }
    if fields.created_at.is_none() || fields.last_updated_at.is_none() {
        return Err("a time is missing".into());
    }
    for ms in [fields.ttl_ms, fields.poll_interval_ms].into_iter().flatten() {
        if ms < 0.0 || ms.fract() != 0.0 {
            return Err("milliseconds must be a whole number".into());
        }
    }
    check_detail(status, result)
}

/// The status detail's checks, through `Reflect` in both prototypes.
fn check_detail(status: TaskStatus, result: &JsValue) -> Result<(), JsValue> {
    let detail = match status {
        TaskStatus::InputRequired => "inputRequests",
        TaskStatus::Completed => "result",
        TaskStatus::Failed => "error",
        TaskStatus::Working | TaskStatus::Cancelled => return Ok(()),
    };
    let detail = get(result, detail)?;
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
    Ok(())
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
