//! The fast path for a `tasks/get` answer that carries no status detail (a `working` or `cancelled`
//! task): `http.js` parses the body with the host's `JSON.parse` and, when the answer has exactly the
//! regular shape, hands its Task fields to Rust in one call instead of the body's bytes, which would be
//! parsed a second time here. Every decision on the fields is still Rust's ([`TaskAnswer::into_response`]);
//! an answer of any other shape (a detail, a broken envelope, a field of another type) comes as bytes
//! and is decoded as every other answer is, with the same typed errors.
//!
//! Why: parsing in wasm and handing the task back to JS cost more than `JSON.parse` alone; this is
//! the first step of `docs/decode-route-3.md`.
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::json::{Map as Object, Value};
use crate::protocol::fields::MAX_SAFE_INTEGER;
use crate::protocol::jsonrpc::RequestId;
use crate::protocol::result_type::ResultType;
use crate::protocol::task::TaskStatus;

#[wasm_bindgen(module = "/src/transport/http.js")]
extern "C" {
    /// Gives `http.js` the status names by code, and the codes its fast path takes (a bit per code).
    #[wasm_bindgen(js_name = useTaskStatuses)]
    fn use_task_statuses(statuses: Vec<JsValue>, plain: u32);
}

/// The Task fields of one answer as `http.js` handed them over: each of the JSON type the field
/// takes (`http.js` sends any other answer as bytes), `status` as its index in [`TaskStatus::ALL`],
/// `ttl_ms` `None` for `null` (the key is always there).
#[derive(Debug)]
pub(crate) struct TaskAnswer {
    task_id: String,
    status: u32,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<f64>,
    poll_interval_ms: Option<f64>,
}

impl TaskAnswer {
    /// The response these fields answer request `id` with, as our JSON tree holds a parsed one (the
    /// strings moved, not copied), so the one decoder every answer goes through, with its native
    /// tests, makes every decision on it whichever path read it.
    pub(crate) fn into_response(self, id: &RequestId) -> Value {
        let mut result = Object::new();
        result.put("resultType", Value::from(ResultType::Complete.as_str()));
        result.put("taskId", Value::String(self.task_id));
        let status = TaskStatus::ALL.get(self.status as usize);
        result.put("status", status.map_or(Value::Null, |s| Value::from(s.as_str())));
        if let Some(message) = self.status_message {
            result.put("statusMessage", Value::String(message));
        }
        result.put("createdAt", Value::String(self.created_at));
        result.put("lastUpdatedAt", Value::String(self.last_updated_at));
        result.put("ttlMs", self.ttl_ms.map_or(Value::Null, millis));
        if let Some(ms) = self.poll_interval_ms {
            result.put("pollIntervalMs", millis(ms));
        }
        let mut message = Object::new();
        message.put("jsonrpc", Value::from("2.0"));
        message.put("id", id.to_json());
        message.put("result", Value::Object(result));
        Value::Object(message)
    }
}

/// A count of milliseconds `JSON.parse` read, as our tree holds a number. `http.js` hands over only
/// non-negative safe integers; its digits are gone, so `86400000.000000001`, which the parse already
/// rounded, passes as 86400000 where the bytes path refuses it. Anything else becomes a value the
/// decoder refuses, never a formatted double (that would ship the standard library's float tables).
fn millis(x: f64) -> Value {
    if x >= 0.0 && x.fract() == 0.0 && x <= MAX_SAFE_INTEGER as f64 {
        Value::from(x as u64)
    } else {
        Value::from("a number that is no whole count up to 2^53 - 1")
    }
}

/// Whether a `tasks/get` for a task last seen in `last` should try the fast path: its answer most
/// likely has the same status, and the path takes only statuses without a detail (tried on an answer
/// that turns out to carry one, it costs a second parse of the body).
pub(crate) fn worth_trying(last: TaskStatus) -> bool {
    !last.has_detail()
}

/// The function `http.js` calls with a regular answer's fields, under the request's ticket.
type SinkFn = dyn Fn(u32, String, u32, Option<String>, String, String, Option<f64>, Option<f64>);

/// Where one transport's fast-path answers arrive: the function `http.js` is handed with each request
/// that may take the fast path, and the answers it put there and no request took yet, by ticket.
/// One per transport, so no state is shared between clients.
pub(crate) struct TaskSink {
    answers: Rc<RefCell<Vec<(u32, TaskAnswer)>>>,
    next: Cell<u32>,
    function: Closure<SinkFn>,
}

impl TaskSink {
    pub(crate) fn new() -> Self {
        let statuses = TaskStatus::ALL.iter().map(|s| JsValue::from_str(s.as_str())).collect();
        let plain =
            TaskStatus::ALL.iter().enumerate().filter(|(_, s)| !s.has_detail()).fold(0, |bits, (i, _)| bits | 1 << i);
        use_task_statuses(statuses, plain);
        let answers = Rc::new(RefCell::new(Vec::new()));
        let into = Rc::clone(&answers);
        #[allow(clippy::too_many_arguments)] // one argument per field: one crossing for all of them
        let put = move |ticket,
                        task_id,
                        status,
                        status_message,
                        created_at,
                        last_updated_at,
                        ttl_ms,
                        poll_interval_ms| {
            let answer =
                TaskAnswer { task_id, status, status_message, created_at, last_updated_at, ttl_ms, poll_interval_ms };
            into.borrow_mut().push((ticket, answer));
        };
        Self { answers, next: Cell::new(0), function: Closure::<SinkFn>::new(put) }
    }

    /// A claim on the next request's answer.
    pub(crate) fn ticket(&self) -> Ticket<'_> {
        Ticket { sink: self, number: self.next.replace(self.next.get().wrapping_add(1)) }
    }

    /// The function `http.js` hands the fields to.
    pub(crate) fn function(&self) -> &JsValue {
        self.function.as_ref()
    }
}

/// One request's claim on a fast-path answer; dropped, it forgets an answer nobody took.
pub(crate) struct Ticket<'a> {
    sink: &'a TaskSink,
    number: u32,
}

impl Ticket<'_> {
    /// The number `http.js` hands the fields over under.
    pub(crate) fn number(&self) -> u32 {
        self.number
    }

    /// The sink's function, for `http.js`.
    pub(crate) fn function(&self) -> &JsValue {
        self.sink.function()
    }

    /// The fields handed over for this request, if its answer took the fast path.
    pub(crate) fn take(&self) -> Option<TaskAnswer> {
        let mut answers = self.sink.answers.borrow_mut();
        let at = answers.iter().position(|(t, _)| *t == self.number)?;
        Some(answers.swap_remove(at).1)
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.take();
    }
}
