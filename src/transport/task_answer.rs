//! The fast path for a `tasks/get` answer: `http.js` parses the body with the host's `JSON.parse` and,
//! when the answer has exactly the regular shape, hands its Task fields to Rust in one call instead of
//! the body's bytes, which would be parsed a second time here, and the status detail's few fields the
//! client decides on in one more call per part, with the objects it passes on unread (a result's
//! blocks, a form's schema) as the host's own values ([`HostJson`]). Every decision is still Rust's
//! ([`TaskAnswer::into_task`], then the same taskId check as every `tasks/get` answer); an answer of
//! any other shape (a broken envelope, a field of another type, a `failed` task, a request other than
//! an elicitation) comes as bytes and is decoded as every other answer is, with the same typed errors.
//!
//! Why: parsing in wasm and handing the task back to JS cost more than `JSON.parse` alone
//! (`docs/decode-route-3.md`).
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::host::js_json::{AnswerSource, HostJson, PartAt};
use crate::protocol::fields::MAX_SAFE_INTEGER;
use crate::protocol::input::{ElicitRequest, InputRequest, InputRequests};
use crate::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use crate::protocol::tool_result::CallToolResult;
use crate::protocol::DecodeError;

#[wasm_bindgen(module = "/src/transport/http.js")]
extern "C" {
    /// Gives `http.js` the status names in code order (each followed by a space), and the codes its
    /// fast path takes (a bit per code).
    #[wasm_bindgen(js_name = useTaskStatuses)]
    fn use_task_statuses(names: &str, taken: u32);
}

/// The Task fields of one answer as `http.js` handed them over: each of the JSON type the field
/// takes (`http.js` sends any other answer as bytes), `status` as its index in [`TaskStatus::ALL`],
/// `ttl_ms` `None` for `null` (the key is always there), and the status detail's parts.
pub(crate) struct TaskAnswer {
    task_id: String,
    status: u32,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<f64>,
    poll_interval_ms: Option<f64>,
    detail: Detail,
    /// The answer's bytes, which the detail's parts are cut from when their text is asked for.
    body: Option<js_sys::Uint8Array>,
}

/// A status detail's parts as `http.js` handed them over, objects and arrays as the host's values.
enum Detail {
    None,
    /// `completed`: the result's `content` blocks (each an object or array), `structuredContent` and
    /// `_meta` (each an object or array, or absent), `isError`.
    Result {
        content: Vec<JsValue>,
        structured: Option<JsValue>,
        is_error: Option<bool>,
        meta: Option<JsValue>,
    },
    /// `input_required`: each elicitation by key, a form's schema (an object) or a page's URL.
    Requests(Vec<(String, String, Elicited)>),
}

enum Elicited {
    Form(JsValue),
    Url(String),
}

impl TaskAnswer {
    /// These fields with the bytes of the answer they were read from.
    pub(crate) fn with_body(self, body: Option<js_sys::Uint8Array>) -> TaskAnswer {
        TaskAnswer { body, ..self }
    }

    /// The task these fields make. What `http.js` checked (each field's JSON type, the envelope, a
    /// `resultType` of `complete`, the parts' shapes and depth) needs no second look; what is left is
    /// decided here, on values: the status and the detail it requires, and each count of milliseconds
    /// (see [`millis`]). Built straight from the fields: going through our JSON tree and the general
    /// decoder cost 2 µs per answer.
    pub(crate) fn into_task(self) -> Result<DetailedTask, DecodeError> {
        let Some(status) = TaskStatus::ALL.get(self.status as usize).copied() else {
            return Err(DecodeError::Invalid { what: WHAT, detail: "a status the fast path does not take".into() });
        };
        // Each part's text is cut from the answer's bytes when first asked for (`HostJson`); an answer
        // without parts (every `working` poll) needs no source.
        let body = match self.detail {
            Detail::None => None,
            _ => self.body.map(AnswerSource::new),
        };
        let body = body.as_ref();
        let detail = match (status, self.detail) {
            (TaskStatus::Working | TaskStatus::Cancelled, Detail::None) => StatusDetail::None,
            (TaskStatus::Completed, Detail::Result { content, structured, is_error, meta }) => {
                let mut blocks = Vec::with_capacity(content.len());
                for (i, block) in content.into_iter().enumerate() {
                    blocks.push(HostJson::part(block, body, PartAt::Block(i)));
                }
                StatusDetail::Result(CallToolResult {
                    content: blocks,
                    structured_content: structured.map(|v| HostJson::part(v, body, PartAt::Structured)),
                    is_error,
                    meta: meta.map(|v| HostJson::part(v, body, PartAt::Meta)),
                })
            }
            (TaskStatus::InputRequired, Detail::Requests(requests)) => {
                let mut map = InputRequests::new();
                for (key, message, elicited) in requests {
                    let request = match elicited {
                        Elicited::Form(schema) => {
                            let requested_schema = HostJson::part(schema, body, PartAt::Schema(key.clone()));
                            ElicitRequest::Form { message, requested_schema }
                        }
                        Elicited::Url(url) => ElicitRequest::Url { message, url },
                    };
                    map.insert(key, InputRequest::Elicitation(request));
                }
                StatusDetail::InputRequests(map)
            }
            _ => {
                return Err(DecodeError::Invalid {
                    what: WHAT,
                    detail: "a status without the detail it requires".into(),
                })
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
        Ok(DetailedTask { task, detail })
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

/// The statuses the fast path takes: all but `failed`, whose error `http.js` leaves to the bytes path
/// (a terminal answer, read once).
fn taken(status: TaskStatus) -> bool {
    status != TaskStatus::Failed
}

/// The function `http.js` calls with a regular answer's Task fields, under the request's ticket.
type TaskFn = dyn Fn(u32, String, u32, Option<String>, String, String, Option<f64>, Option<f64>);
/// Then once per part of the detail, by `kind`: `isError` (0 absent, 1 false, 2 true) for a
/// `completed` task's result, with `content` (an array), `structuredContent` and `_meta`; or
/// [`FORM`] / [`URL`] for each elicitation of an `input_required` task, with its key and message and
/// the form's schema or the page's URL.
type DetailFn = dyn Fn(u32, u32, Option<String>, Option<String>, Option<String>, JsValue, JsValue, JsValue);

/// The kinds of detail part besides a result (`http.js` has the same numbers).
const FORM: u32 = 3;
const URL: u32 = 4;

/// Where one transport's fast-path answers arrive: the functions `http.js` is handed with each request
/// that may take the fast path (as one array: Task fields, detail part), and the answers it put
/// there and no request took yet, by ticket. One per transport, so no state is shared between clients.
pub(crate) struct TaskSink {
    answers: Rc<RefCell<Vec<(u32, TaskAnswer)>>>,
    next: Cell<u32>,
    functions: JsValue,
    _closures: (Closure<TaskFn>, Closure<DetailFn>),
}

impl TaskSink {
    pub(crate) fn new() -> Self {
        let mut names = String::new();
        let mut codes = 0;
        for (code, status) in TaskStatus::ALL.into_iter().enumerate() {
            names.push_str(status.as_str());
            names.push(' ');
            if taken(status) {
                codes |= 1 << code;
            }
        }
        use_task_statuses(&names, codes);
        let answers: Rc<RefCell<Vec<(u32, TaskAnswer)>>> = Rc::new(RefCell::new(Vec::new()));
        let into = Rc::clone(&answers);
        #[allow(clippy::too_many_arguments)] // one argument per field: one crossing for all of them
        let put =
            move |ticket, task_id, status, status_message, created_at, last_updated_at, ttl_ms, poll_interval_ms| {
                let answer = TaskAnswer {
                    task_id,
                    status,
                    status_message,
                    created_at,
                    last_updated_at,
                    ttl_ms,
                    poll_interval_ms,
                    detail: Detail::None,
                    body: None,
                };
                into.borrow_mut().push((ticket, answer));
            };
        let into = Rc::clone(&answers);
        #[allow(clippy::too_many_arguments)] // one call per part, as for the Task fields
        let part = move |ticket,
                         kind,
                         key: Option<String>,
                         message: Option<String>,
                         url: Option<String>,
                         a: JsValue,
                         b: JsValue,
                         c: JsValue| {
            let mut answers = into.borrow_mut();
            let Some((_, answer)) = answers.iter_mut().rfind(|(t, _)| *t == ticket) else { return };
            let given = |value: JsValue| (!value.is_undefined()).then_some(value);
            let elicited = match (kind, url) {
                (FORM, _) => Elicited::Form(a),
                (URL, Some(url)) => Elicited::Url(url),
                _ => {
                    answer.detail = Detail::Result {
                        content: js_sys::Array::from(&a).iter().collect(),
                        structured: given(b),
                        is_error: [None, Some(false), Some(true)].get(kind as usize).copied().flatten(),
                        meta: given(c),
                    };
                    return;
                }
            };
            let request = (key.unwrap_or_default(), message.unwrap_or_default(), elicited);
            match &mut answer.detail {
                Detail::Requests(requests) => requests.push(request),
                detail => *detail = Detail::Requests(vec![request]),
            }
        };
        let closures = (Closure::<TaskFn>::new(put), Closure::<DetailFn>::new(part));
        let functions = js_sys::Array::of2(closures.0.as_ref(), closures.1.as_ref()).into();
        Self { answers, next: Cell::new(0), functions, _closures: closures }
    }

    /// A claim on the next request's answer.
    pub(crate) fn ticket(&self) -> Ticket<'_> {
        Ticket { sink: self, number: self.next.replace(self.next.get().wrapping_add(1)) }
    }

    /// The functions `http.js` hands the fields to.
    pub(crate) fn function(&self) -> &JsValue {
        &self.functions
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

    /// The sink's functions, for `http.js`.
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
            detail: Detail::None,
            body: None,
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
    fn a_status_without_its_detail_or_no_status_is_refused() {
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
