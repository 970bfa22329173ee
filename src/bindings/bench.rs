//! Bench-only exports (cargo feature `bench`; the shipped pkg/ is built without them): `cargo xtask bench
//! decode` times, in Chromium, what the client pays for one `tasks/get` response body: its bytes into
//! wasm, decoded as the door decodes them.
use wasm_bindgen::prelude::*;

use crate::json::Value;
use crate::protocol::jsonrpc::decode_message_value;
use crate::protocol::request::{ClientRequest, RequestResult};

/// Decodes `body`, a `tasks/get` response body for `taskId` (a fetch body's bytes, as the driver hands
/// them to the door), as the transport does: parse, envelope, result for that request, which checks the
/// taskId. `toJsObject`: return the decoded task as a JS object (through `JSON.parse` of its JSON text,
/// as the door's values cross); otherwise only its status string.
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
