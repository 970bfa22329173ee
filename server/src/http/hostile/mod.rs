//! Hostile mode (`--hostile`): `hostile_*` tools whose answers misbehave on purpose, so a client can be
//! tested against a real server instead of a mock of one. Each case is something a broken or malicious
//! MCP server could send: a gzip bomb, an SSE event that never ends, floods of blank SSE lines, a listen
//! stream that acknowledges and then stays silent, 10,000 input requests (or, in key orders that cost a
//! careless reader most, as many as fit the body limit), a form of 20,000 fields or more, numbers at
//! and past the edges of `f64`, nesting far past any parser's limit, and a redirect to another origin.
//!
//! These answers are shaped at the HTTP level (content encoding, chunking, status, raw JSON text), which
//! the demo tools' state machines (`tools/`) cannot express, so hostile mode sits in front of the normal
//! `/mcp` handler: a POST it recognises (a `hostile_*` call, a hostile task's `tasks/*`, a listen that
//! names a stalling task, `tools/list`) it answers itself; everything else goes to `mcp::post`
//! untouched. The body texts are in [`cases`].
//!
//! Most cases take `at`: `"call"` (default) misbehaves in the `tools/call` answer itself; `"poll"`
//! answers the call with a well-formed task whose every `tasks/get` misbehaves, so a client's polling
//! and backoff meet it. Hostile tasks live in memory only, bound to the caller like every task, and
//! `tasks/cancel` ends one.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Response, Uri};
use axum::routing::{post, MethodRouter};
use mcp_tasks_web::json::{json, Value};

use super::{cors, mcp, origin, AppState};
use crate::ids::{now_ms, random_id};

mod cases;

/// The query a redirect target carries, so a request that followed it is counted when it arrives.
const REDIRECTED_MARK: &str = "hostile-redirected=1";

/// At most this many hostile tasks are kept; older ones are forgotten first (the mode is for tests,
/// and a client calling in a loop must not grow the server without bound).
const MAX_TASKS: usize = 10_000;

/// Where a case misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// In the answer to `tools/call`.
    Call,
    /// In every `tasks/get` of the task the call creates.
    Poll,
}

/// One way of misbehaving, with its parameters.
#[derive(Debug, Clone, PartialEq)]
enum Case {
    /// `content-encoding: gzip`, a small body inflating to 64 MiB of JSON.
    GzipBomb,
    /// An SSE event whose `data:` line never ends.
    EndlessEvent,
    /// `total` newline bytes in `chunk`-byte HTTP chunks; then the answer, or the stream just ends.
    NewlineFlood { chunk: usize, total: usize, answer: bool },
    /// A task; a listen naming it is acknowledged and then never sent another byte. `tasks/get` says
    /// `working` until `work_ms` after creation, then `completed`.
    ListenStall { work_ms: i64 },
    /// `count` input requests at once, keys in `order`; `roots`: `roots/list` requests, else forms.
    InputFlood { count: usize, order: cases::KeyOrder, roots: bool },
    /// A result whose numbers sit at and past the edges of `f64` (raw JSON text).
    Numbers,
    /// A task asking a form whose number fields have such numbers as defaults and bounds; the answer
    /// is echoed back verbatim in the result.
    NumberForm,
    /// A task asking one form of `count` required fields (or, `options`, of one select with `count`
    /// options), keys in `order`; the answer is echoed back in the result.
    WideForm { count: usize, order: cases::KeyOrder, options: bool },
    /// A result nested `depth` arrays deep.
    DeepNesting { depth: usize },
    /// 307 to the same server under the other loopback name (`localhost` ↔ `127.0.0.1`): another origin.
    Redirect,
}

impl Case {
    /// A task asking one form, answered once: its answer is kept and echoed back.
    fn asks_a_form(&self) -> bool {
        matches!(self, Case::NumberForm | Case::WideForm { .. })
    }
}

/// A hostile task.
struct HostileTask {
    owner: String,
    case: Case,
    created_ms: i64,
    /// For [`Case::NumberForm`] and [`Case::WideForm`]: the `inputResponses` received, as JSON text.
    answers: Option<String>,
    cancelled: bool,
}

/// Hostile mode's own state: its tasks and what it counted.
#[derive(Default)]
struct Hostile {
    tasks: Mutex<HashMap<String, HostileTask>>,
    /// Requests that arrived through a hostile redirect (a client that followed it cross-origin).
    redirected: AtomicU64,
    /// When the latest stalled listens were acknowledged (Unix ms, the last [`MAX_STALL_ACKS`]): the
    /// silence a client must outlast starts there.
    stall_acks: Mutex<std::collections::VecDeque<i64>>,
}

/// How many stalled-listen acknowledgement times `hostile_stats` reports.
const MAX_STALL_ACKS: usize = 20;

/// The `/mcp` POST route of hostile mode, with its own (per-server) state.
pub(super) fn route() -> MethodRouter<AppState> {
    let hostile = Arc::new(Hostile::default());
    post(move |State(state): State<AppState>, headers: HeaderMap, uri: Uri, body: Bytes| {
        let hostile = hostile.clone();
        async move { hostile.post(state, headers, uri, body).await }
    })
}

/// The JSON-RPC request a POST carries, read as far as routing needs.
struct Peek {
    id: Value,
    method: String,
    params: Value,
}

fn peek(body: &Bytes) -> Option<Peek> {
    let text = std::str::from_utf8(body).ok()?;
    let value = mcp_tasks_web::json::from_str(text).ok()?;
    let id = value.get("id")?.clone();
    let method = value.get("method")?.as_str()?.to_owned();
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    Some(Peek { id, method, params })
}

/// What hostile mode does with a POST.
enum Plan {
    /// Not ours: the normal handler answers.
    Pass,
    /// `tools/list`: the normal answer with the hostile tools added.
    ListTools,
    /// Ours: this answer (logged under `name`).
    Answer { name: String, response: Response<Body> },
}

impl Hostile {
    async fn post(&self, state: AppState, headers: HeaderMap, uri: Uri, body: Bytes) -> Response<Body> {
        if uri.query().is_some_and(|q| q.split('&').any(|pair| pair == REDIRECTED_MARK)) {
            self.redirected.fetch_add(1, Ordering::Relaxed);
        }
        let started = Instant::now();
        // The door checks (origin, host, token) are the normal handler's: a request that fails them
        // goes there and is refused there.
        let owner = match origin::check(&headers, &state.hosts) {
            Ok(()) => mcp::authenticate(&state, &headers),
            Err(_) => None,
        };
        let Some((owner, request)) = owner.zip(peek(&body)) else {
            return mcp::post(State(state), headers, body).await;
        };
        match self.plan(&state, &owner, &headers, &request).await {
            Plan::Pass => mcp::post(State(state), headers, body).await,
            Plan::ListTools => with_hostile_tools(mcp::post(State(state), headers, body).await).await,
            Plan::Answer { name, response: mut answer } => {
                state.log(&request.method, &name, answer.status(), None, started);
                cors::decorate(answer.headers_mut(), headers.get("origin"));
                answer
            }
        }
    }

    async fn plan(&self, state: &AppState, owner: &str, headers: &HeaderMap, request: &Peek) -> Plan {
        let Peek { id, method, params } = request;
        let answer = |name: &str, response| Plan::Answer { name: name.to_owned(), response };
        match method.as_str() {
            "tools/list" => Plan::ListTools,
            "tools/call" => {
                let Some(name) = params.get("name").and_then(Value::as_str) else { return Plan::Pass };
                if name == "hostile_stats" {
                    return answer(name, cases::rpc_result(id, &self.stats()));
                }
                let args = params.get("arguments").cloned().unwrap_or(Value::Null);
                match case_of(name, &args) {
                    None => Plan::Pass,
                    Some(Err(message)) => answer(name, cases::rpc_error(id, -32602, &message)),
                    Some(Ok((case, At::Call))) => answer(name, self.misbehave(state, headers, id, &case, None).await),
                    Some(Ok((case, At::Poll))) => {
                        let (task_id, created_ms) = self.create(owner, case);
                        answer(
                            name,
                            cases::rpc_result(id, &cases::handle(&task_id, created_ms, state.config.poll_interval_ms)),
                        )
                    }
                }
            }
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                let Some(task_id) = params.get("taskId").and_then(Value::as_str) else { return Plan::Pass };
                match self.task_method(state, owner, headers, id, method, task_id, params).await {
                    Some(response) => answer(task_id, response),
                    None => Plan::Pass,
                }
            }
            "subscriptions/listen" => {
                let asked = params.pointer("/notifications/taskIds").and_then(Value::as_array);
                let stalled: Vec<String> = asked
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|task_id| self.stalls(owner, task_id))
                    .map(str::to_owned)
                    .collect();
                if stalled.is_empty() {
                    Plan::Pass
                } else {
                    // Only the stalling tasks are acknowledged: any other task asked is polled by a
                    // client that reads the acknowledgement, so only the stall's own coverage is lost.
                    if let Ok(mut acks) = self.stall_acks.lock() {
                        if acks.len() == MAX_STALL_ACKS {
                            acks.pop_front();
                        }
                        acks.push_back(now_ms());
                    }
                    answer("-", cases::stalled_listen(id, stalled))
                }
            }
            _ => Plan::Pass,
        }
    }

    /// The answer to `tasks/*` for a hostile task of `owner`; `None` when `task_id` is none of them.
    #[allow(clippy::too_many_arguments)] // one request's parts, passed on as they are
    async fn task_method(
        &self,
        state: &AppState,
        owner: &str,
        headers: &HeaderMap,
        id: &Value,
        method: &str,
        task_id: &str,
        params: &Value,
    ) -> Option<Response<Body>> {
        let (case, created_ms, answers, cancelled) = {
            let mut tasks = self.tasks.lock().ok()?;
            let task = tasks.get_mut(task_id).filter(|t| t.owner == owner)?;
            match method {
                "tasks/update" if task.case.asks_a_form() && task.answers.is_none() => {
                    task.answers = params.get("inputResponses").map(Value::to_string);
                }
                "tasks/cancel" => task.cancelled = true,
                _ => {}
            }
            (task.case.clone(), task.created_ms, task.answers.clone(), task.cancelled)
        };
        let poll_ms = state.config.poll_interval_ms;
        if method != "tasks/get" {
            return Some(cases::rpc_result(id, r#"{"resultType":"complete"}"#));
        }
        if cancelled {
            return Some(cases::rpc_result(id, &cases::task(task_id, "cancelled", created_ms, poll_ms, "")));
        }
        Some(match case {
            Case::ListenStall { work_ms } if now_ms() - created_ms >= work_ms => {
                let result = r#","result":{"content":[{"type":"text","text":"done after the listen stalled"}]}"#;
                cases::rpc_result(id, &cases::task(task_id, "completed", created_ms, poll_ms, result))
            }
            Case::ListenStall { .. } => {
                cases::rpc_result(id, &cases::task(task_id, "working", created_ms, poll_ms, ""))
            }
            Case::NumberForm | Case::WideForm { .. } => match answers {
                Some(answers) => cases::rpc_result(
                    id,
                    &cases::task(task_id, "completed", created_ms, poll_ms, &cases::echo(&answers)),
                ),
                None => {
                    let form = match case {
                        Case::WideForm { count, order, options } => cases::wide_form(count, order, options),
                        _ => cases::number_form(),
                    };
                    let asking = format!(r#","inputRequests":{form}"#);
                    cases::rpc_result(id, &cases::task(task_id, "input_required", created_ms, poll_ms, &asking))
                }
            },
            other => self.misbehave(state, headers, id, &other, Some((task_id, created_ms))).await,
        })
    }

    /// The misbehaving answer of `case`: to a `tools/call`, or (with `task`) to its task's `tasks/get`.
    async fn misbehave(
        &self,
        state: &AppState,
        headers: &HeaderMap,
        id: &Value,
        case: &Case,
        task: Option<(&str, i64)>,
    ) -> Response<Body> {
        let poll_ms = state.config.poll_interval_ms;
        // A result, as the call's answer or inside a completed task.
        let result = |result: String| match task {
            None => cases::rpc_result(id, &result),
            Some((task_id, created)) => cases::rpc_result(
                id,
                &cases::task(task_id, "completed", created, poll_ms, &format!(r#","result":{result}"#)),
            ),
        };
        match case {
            Case::GzipBomb => cases::gzip_bomb().await,
            Case::EndlessEvent => cases::endless_event(id),
            Case::NewlineFlood { chunk, total, answer } => {
                let result = cases::text_result("after the flood");
                let answer = answer.then(|| match task {
                    None => cases::rpc_text(id, &result),
                    Some((task_id, created)) => cases::rpc_text(
                        id,
                        &cases::task(task_id, "completed", created, poll_ms, &format!(r#","result":{result}"#)),
                    ),
                });
                cases::newline_flood(*chunk, *total, answer)
            }
            Case::Numbers => result(cases::numbers_result()),
            Case::DeepNesting { depth } => result(cases::deep_result(*depth)),
            Case::InputFlood { count, order, roots } => {
                let asking = cases::input_flood(*count, *order, *roots);
                match task {
                    None => cases::rpc_result(
                        id,
                        &format!(
                            r#"{{"resultType":"input_required","inputRequests":{asking},"requestState":"hostile"}}"#
                        ),
                    ),
                    Some((task_id, created)) => cases::rpc_result(
                        id,
                        &cases::task(
                            task_id,
                            "input_required",
                            created,
                            poll_ms,
                            &format!(r#","inputRequests":{asking}"#),
                        ),
                    ),
                }
            }
            Case::Redirect => match redirect_target(headers) {
                Some(location) => cases::redirect(&location),
                None => cases::rpc_error(id, -32600, "hostile_redirect needs a Host header with a port"),
            },
            // Task-only cases reach here only through a call: they are created as tasks.
            Case::ListenStall { .. } | Case::NumberForm | Case::WideForm { .. } => {
                cases::rpc_error(id, -32603, "not a call-time case")
            }
        }
    }

    /// Registers a hostile task and returns its id and creation time (the handle's `createdAt` must
    /// be the one `tasks/get` reports: a later one makes every answer look older than the handle).
    fn create(&self, owner: &str, case: Case) -> (String, i64) {
        let task_id = random_id("hostile-");
        let created_ms = now_ms();
        if let Ok(mut tasks) = self.tasks.lock() {
            if tasks.len() >= MAX_TASKS {
                if let Some(oldest) = tasks.iter().min_by_key(|(_, t)| t.created_ms).map(|(id, _)| id.clone()) {
                    tasks.remove(&oldest);
                }
            }
            let task = HostileTask { owner: owner.to_owned(), case, created_ms, answers: None, cancelled: false };
            tasks.insert(task_id.clone(), task);
        }
        (task_id, created_ms)
    }

    /// Whether `task_id` is a live stalling task of `owner`.
    fn stalls(&self, owner: &str, task_id: &str) -> bool {
        self.tasks.lock().is_ok_and(|tasks| {
            tasks
                .get(task_id)
                .is_some_and(|t| t.owner == owner && !t.cancelled && matches!(t.case, Case::ListenStall { .. }))
        })
    }

    /// `hostile_stats`: what hostile mode counted, as a tool result.
    fn stats(&self) -> String {
        let redirected = self.redirected.load(Ordering::Relaxed);
        let live = self.tasks.lock().map_or(0, |t| t.len());
        let acks: Vec<Value> =
            self.stall_acks.lock().map(|a| a.iter().map(|ms| Value::from(*ms)).collect()).unwrap_or_default();
        let structured = json!({ "redirectedArrivals": redirected, "hostileTasks": live, "stallAcks": acks });
        format!(
            r#"{{"resultType":"complete","content":[{{"type":"text","text":{}}}],"structuredContent":{structured}}}"#,
            Value::from(format!("{redirected} request(s) arrived through a hostile redirect"))
        )
    }
}

/// Reads a tool's arguments into its case; `None` for a name that is not a hostile tool.
fn case_of(name: &str, args: &Value) -> Option<Result<(Case, At), String>> {
    let at = match args.get("at").and_then(Value::as_str) {
        None => Ok(At::Call),
        Some("call") => Ok(At::Call),
        Some("poll") => Ok(At::Poll),
        Some(other) => Err(format!("`at` is \"call\" or \"poll\", not {other:?}")),
    };
    let number = |key: &str, default: u64, max: u64| -> Result<u64, String> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| format!("`{key}` must be an integer from 1 to {max}")),
        }
    };
    let size = |key: &str, default: u64, max: u64| number(key, default, max).map(|n| n as usize);
    let order = cases::KeyOrder::parse(args.get("order").and_then(Value::as_str));
    let case = match name {
        "hostile_gzip_bomb" => Ok(Case::GzipBomb),
        "hostile_endless_event" => Ok(Case::EndlessEvent),
        "hostile_newline_flood" => (|| {
            let answer = match args.get("then").and_then(Value::as_str) {
                None | Some("close") => false,
                Some("answer") => true,
                Some(other) => return Err(format!("`then` is \"close\" or \"answer\", not {other:?}")),
            };
            Ok(Case::NewlineFlood {
                chunk: size("chunkBytes", 1, 1 << 20)?,
                total: size("totalBytes", 1 << 20, 1 << 28)?,
                answer,
            })
        })(),
        "hostile_listen_stall" => {
            number("workMs", 30_000, 3_600_000).map(|ms| Case::ListenStall { work_ms: ms as i64 })
        }
        "hostile_input_flood" => (|| {
            let roots = match args.get("kind").and_then(Value::as_str) {
                None | Some("form") => false,
                Some("roots") => true,
                Some(other) => return Err(format!("`kind` is \"form\" or \"roots\", not {other:?}")),
            };
            Ok(Case::InputFlood { count: size("count", 10_000, 225_000)?, order: order?, roots })
        })(),
        "hostile_numbers" => Ok(Case::Numbers),
        "hostile_number_form" => Ok(Case::NumberForm),
        "hostile_wide_form" => (|| {
            let options = match args.get("shape").and_then(Value::as_str) {
                None | Some("fields") => false,
                Some("options") => true,
                Some(other) => return Err(format!("`shape` is \"fields\" or \"options\", not {other:?}")),
            };
            Ok(Case::WideForm { count: size("count", 20_000, 200_000)?, order: order?, options })
        })(),
        "hostile_deep_nesting" => size("depth", 10_000, 1_000_000).map(|depth| Case::DeepNesting { depth }),
        "hostile_redirect" => Ok(Case::Redirect),
        _ => return None,
    };
    Some(case.and_then(|case| {
        // A stalled listen and a form exist only as tasks.
        let at = if matches!(case, Case::ListenStall { .. }) || case.asks_a_form() { Ok(At::Poll) } else { at };
        at.map(|at| (case, at))
    }))
}

/// The same server under its other loopback name, from the request's `Host`: `localhost` ↔
/// `127.0.0.1`, so the target is another origin that reaches this very server (and is counted).
fn redirect_target(headers: &HeaderMap) -> Option<String> {
    let host = headers.get("host")?.to_str().ok()?;
    let (name, port) = host.rsplit_once(':')?;
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let other = if name.eq_ignore_ascii_case("localhost") { "127.0.0.1" } else { "localhost" };
    Some(format!("http://{other}:{port}/mcp?{REDIRECTED_MARK}"))
}

/// The normal `tools/list` answer with the hostile tools appended (a failed or unreadable answer is
/// passed on as it is).
async fn with_hostile_tools(response: Response<Body>) -> Response<Body> {
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let mut value = match std::str::from_utf8(&bytes).ok().and_then(|t| mcp_tasks_web::json::from_str(t).ok()) {
        Some(v) => v,
        None => return Response::from_parts(parts, Body::from(bytes)),
    };
    if let Value::Object(message) = &mut value {
        if let Some(Value::Object(result)) = message.get_mut("result") {
            if let Some(Value::Array(tools)) = result.get_mut("tools") {
                tools.extend(cases::tool_list());
            }
        }
    }
    let mut response = Response::from_parts(parts, Body::from(value.to_string()));
    response.headers_mut().remove("content-length");
    response
}
