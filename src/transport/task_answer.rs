//! The fast path for a `tasks/get` answer that carries no status detail (a `working` or `cancelled`
//! task): `http.js` parses the body with the host's `JSON.parse` and, when the answer has exactly the
//! regular shape, hands its Task fields to Rust in one call instead of the body's bytes, which would be
//! parsed a second time here. Every decision on the fields is still Rust's ([`TaskAnswer::into_task`],
//! then the same taskId check as every `tasks/get` answer); an answer of any other shape (a detail, a
//! broken envelope, a field of another type) comes as bytes and is decoded as every other answer is,
//! with the same typed errors.
//!
//! Why: parsing in wasm and handing the task back to JS cost more than `JSON.parse` alone; this is
//! the first step of `docs/decode-route-3.md`.
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::protocol::fields::MAX_SAFE_INTEGER;
use crate::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use crate::protocol::DecodeError;

#[wasm_bindgen(module = "/src/transport/http.js")]
extern "C" {
    /// Gives `http.js` the status names in code order (each followed by a space), and the codes its
    /// fast path takes (a bit per code).
    #[wasm_bindgen(js_name = useTaskStatuses)]
    fn use_task_statuses(names: &str, plain: u32);
}

/// The Task fields of one answer as `http.js` handed them over: each of the JSON type the field
/// takes (`http.js` sends any other answer as bytes), `status` as its index in [`TaskStatus::ALL`],
/// `ttl_ms` `None` for `null` (the key is always there).
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
    /// The task these fields make. What `http.js` checked (each field's JSON type, the envelope, a
    /// `resultType` of `complete`) needs no second look; what is left is decided here, on values: the
    /// status (one without a detail), and each count of milliseconds (see [`millis`]). Built straight
    /// from the fields: going through our JSON tree and the general decoder cost 2 µs per answer.
    pub(crate) fn into_task(self) -> Result<DetailedTask, DecodeError> {
        let status = match TaskStatus::ALL.get(self.status as usize) {
            Some(status) if !status.has_detail() => *status,
            _ => {
                return Err(DecodeError::Invalid { what: WHAT, detail: "a status the fast path does not take".into() })
            }
        };
        let task = Task {
            task_id: self.task_id,
            status,
            status_message: self.status_message,
            created_at: self.created_at,
            last_updated_at: self.last_updated_at,
            ttl_ms: self.ttl_ms.map(|ms| millis(ms, "ttlMs")).transpose()?,
            poll_interval_ms: self.poll_interval_ms.map(|ms| millis(ms, "pollIntervalMs")).transpose()?,
        };
        Ok(DetailedTask { task, detail: StatusDetail::None })
    }
}

const WHAT: &str = "tasks/get result";

/// A count of milliseconds `JSON.parse` read: whole, non-negative and at most 2^53 − 1, as the bytes
/// path requires. Its digits are gone, so `86400000.000000001`, which the parse already rounded,
/// passes as 86400000 where the bytes path refuses it. A refused one is described, not written out:
/// formatting a double would ship the standard library's float tables (30 KB of `.wasm`).
fn millis(x: f64, field: &'static str) -> Result<u64, DecodeError> {
    if x >= 0.0 && x.fract() == 0.0 && x <= MAX_SAFE_INTEGER as f64 {
        return Ok(x as u64);
    }
    Err(DecodeError::NotAnInteger { field, found: "a number that is no whole count up to 2^53 - 1".into() })
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
        let mut names = String::new();
        let mut plain = 0;
        for (code, status) in TaskStatus::ALL.into_iter().enumerate() {
            names.push_str(status.as_str());
            names.push(' ');
            if !status.has_detail() {
                plain |= 1 << code;
            }
        }
        use_task_statuses(&names, plain);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u32, ttl_ms: Option<f64>, poll_interval_ms: Option<f64>) -> TaskAnswer {
        TaskAnswer {
            task_id: "t1".into(),
            status,
            status_message: Some("m".into()),
            created_at: "a".into(),
            last_updated_at: "b".into(),
            ttl_ms,
            poll_interval_ms,
        }
    }

    #[test]
    fn the_fields_make_the_task_they_name() {
        let task = answer(0, None, Some(500.0)).into_task().unwrap();
        assert_eq!(task.detail, StatusDetail::None);
        let task = task.task;
        assert_eq!(
            (task.task_id.as_str(), task.status, task.status_message.as_deref()),
            ("t1", TaskStatus::Working, Some("m"))
        );
        assert_eq!((task.created_at.as_str(), task.last_updated_at.as_str()), ("a", "b"));
        assert_eq!((task.ttl_ms, task.poll_interval_ms), (None, Some(500)));
        let cancelled = answer(4, Some(-0.0), None).into_task().unwrap().task;
        assert_eq!(
            (cancelled.status, cancelled.ttl_ms, cancelled.poll_interval_ms),
            (TaskStatus::Cancelled, Some(0), None)
        );
    }

    #[test]
    fn a_status_with_a_detail_or_no_status_is_refused() {
        for code in [1, 2, 3, 5, u32::MAX] {
            assert!(matches!(answer(code, None, None).into_task(), Err(DecodeError::Invalid { .. })), "{code}");
        }
    }

    #[test]
    fn counts_are_whole_non_negative_and_safe() {
        let max = MAX_SAFE_INTEGER as f64;
        assert_eq!(answer(0, Some(max), None).into_task().unwrap().task.ttl_ms, Some(MAX_SAFE_INTEGER));
        for bad in [-1.0, 1.5, max + 1.0, f64::NAN, f64::INFINITY] {
            let refused = answer(0, Some(bad), None).into_task();
            assert!(matches!(refused, Err(DecodeError::NotAnInteger { field: "ttlMs", .. })), "{bad}");
            let refused = answer(0, None, Some(bad)).into_task();
            assert!(matches!(refused, Err(DecodeError::NotAnInteger { field: "pollIntervalMs", .. })), "{bad}");
        }
        // What a double cannot tell apart: JSON.parse already made 86400000 of 86400000.000000001.
        assert_eq!(answer(0, Some(86400000.000000001), None).into_task().unwrap().task.ttl_ms, Some(86_400_000));
    }
}
