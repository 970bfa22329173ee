//! The fast path for a `tasks/get` answer that carries no status detail (a `working` or `cancelled`
//! task): `http.js` parses the body with the host's `JSON.parse` and, when the answer has exactly the
//! regular shape, hands its Task fields to Rust in one call instead of the body's bytes, which would be
//! parsed a second time here. Every decision on the fields is still Rust's ([`TaskFields::decide`]);
//! an answer of any other shape (a detail, a broken envelope, a field of another type) comes as bytes
//! and is decoded as every other answer is, with the same typed errors.
//!
//! Why: parsing in wasm and handing the task back to JS cost more than `JSON.parse` alone; this is
//! the first step of `docs/decode-route-3.md`.
use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

use crate::protocol::task::{Task, TaskStatus};
use crate::protocol::task_fields::{millis_of_double, Found, TaskFields};
use crate::protocol::DecodeError;

#[wasm_bindgen(module = "/src/transport/http.js")]
extern "C" {
    /// Gives `http.js` the function its fast path calls, the status names by code, and the codes it
    /// may take (a bit per code).
    #[wasm_bindgen(js_name = useTaskSink)]
    fn use_task_sink(sink: &JsValue, statuses: Vec<JsValue>, plain: u32);
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
    /// The Task these fields make, decided as [`Task::read`] decides a parsed answer's.
    pub(crate) fn decide(&self) -> Result<Task, DecodeError> {
        let millis = |ms: Option<f64>, none| ms.map_or(none, |x| Found::Is(millis_of_double(x)));
        let status = TaskStatus::ALL.get(self.status as usize).map_or(Found::Wrong, |s| Found::Is(s.as_str()));
        TaskFields {
            task_id: Found::Is(&self.task_id),
            status,
            status_message: self.status_message.as_deref().map_or(Found::Absent, Found::Is),
            created_at: Found::Is(&self.created_at),
            last_updated_at: Found::Is(&self.last_updated_at),
            ttl_ms: millis(self.ttl_ms, Found::Null),
            poll_interval_ms: millis(self.poll_interval_ms, Found::Absent),
            ttl: Found::Absent,
            poll_interval: Found::Absent,
        }
        .decide("tasks/get result", false)
    }
}

/// Whether a `tasks/get` for a task last seen in `last` should try the fast path: its answer most
/// likely has the same status, and the path takes only statuses without a detail (tried on an answer
/// that turns out to carry one, it costs a second parse of the body).
pub(crate) fn worth_trying(last: TaskStatus) -> bool {
    !last.has_detail()
}

thread_local! {
    /// Answers handed over and not yet taken, by ticket.
    static ANSWERS: RefCell<Vec<(u32, TaskAnswer)>> = const { RefCell::new(Vec::new()) };
    static NEXT_TICKET: Cell<u32> = const { Cell::new(0) };
    static SINK_GIVEN: Cell<bool> = const { Cell::new(false) };
}

/// What `http.js` calls with a regular answer's fields, under the request's ticket.
#[allow(clippy::too_many_arguments)] // one argument per field: one crossing for all of them
fn put(
    ticket: u32,
    task_id: String,
    status: u32,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<f64>,
    poll_interval_ms: Option<f64>,
) {
    let answer = TaskAnswer { task_id, status, status_message, created_at, last_updated_at, ttl_ms, poll_interval_ms };
    ANSWERS.with_borrow_mut(|answers| answers.push((ticket, answer)));
}

/// Hands `http.js` the sink once per module instance.
fn give_sink() {
    if SINK_GIVEN.replace(true) {
        return;
    }
    type Sink = dyn Fn(u32, String, u32, Option<String>, String, String, Option<f64>, Option<f64>);
    let sink = Closure::<Sink>::new(put);
    let statuses = TaskStatus::ALL.iter().map(|s| JsValue::from_str(s.as_str())).collect();
    let plain =
        TaskStatus::ALL.iter().enumerate().filter(|(_, s)| !s.has_detail()).fold(0, |bits, (i, _)| bits | 1 << i);
    use_task_sink(sink.as_ref(), statuses, plain);
    // Lives as long as the module: every later request's fast path calls it.
    sink.forget();
}

/// One request's claim on a fast-path answer; dropped, it forgets an answer nobody took.
pub(crate) struct Ticket(u32);

impl Ticket {
    pub(crate) fn new() -> Self {
        give_sink();
        Self(NEXT_TICKET.replace(NEXT_TICKET.get().wrapping_add(1)))
    }

    /// The number `http.js` hands the fields over under.
    pub(crate) fn number(&self) -> u32 {
        self.0
    }

    /// The fields handed over for this request, if its answer took the fast path.
    pub(crate) fn take(&self) -> Option<TaskAnswer> {
        ANSWERS.with_borrow_mut(|answers| {
            let at = answers.iter().position(|(t, _)| *t == self.0)?;
            Some(answers.swap_remove(at).1)
        })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.take();
    }
}
