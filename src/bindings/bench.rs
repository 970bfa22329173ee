//! Bench-only export (cargo feature `bench`; the shipped pkg/ is built without it): `cargo xtask bench
//! decode` times, in Chromium, what the client pays for one `tasks/get` response body from JS.
use wasm_bindgen::prelude::*;

use crate::host::js_json::to_js;
use crate::protocol::jsonrpc::decode_response;
use crate::protocol::request::{ClientRequest, RequestResult};

/// Decodes `text`, a `tasks/get` response body for `taskId`, as the transport does (parse, envelope,
/// result for that request, which checks the taskId). `toJs`: return the decoded task as a JS object
/// (through the same `to_js` the client's snapshots take); otherwise only its status string.
#[wasm_bindgen(js_name = benchDecodeTasksGet)]
pub fn bench_decode_tasks_get(task_id: String, text: &str, to_js_object: bool) -> Result<JsValue, JsValue> {
    let request = ClientRequest::GetTask { task_id };
    let outcome = decode_response(text).map_err(|e| e.to_string())?.outcome.map_err(|e| e.message)?;
    match request.decode_result(&outcome).map_err(|e| e.to_string())? {
        RequestResult::Task(task) if to_js_object => Ok(to_js(&task.to_json())),
        RequestResult::Task(task) => Ok(JsValue::from_str(task.task.status.as_str())),
        _ => Err(JsValue::from_str("not a tasks/get result")),
    }
}
