//! The client core (`ClientCore`) against the reference server over loopback, in every runtime:
//! every status path, auth headers per request, restore from a store, and faults survived.
//!
//! Compiled into tests/wasm_client_{page,worker,node}.rs, which each name their runtime in
//! `RUNTIME`. They include this file with `#[path]` rather than through `wasm_common/mod.rs`: that
//! module declares the store suite, and every binary that says `mod wasm_common;` runs it, so going
//! through it would run the store tests a second time in each client binary (and the client tests
//! in each store binary). The helpers it shares with the store suite are in `support.rs`, which it
//! declares itself.
//!
//! # Servers
//!
//! `cargo xtask test` (xtask/src/wasm_tests.rs) starts two reference servers on free loopback ports
//! before compiling these binaries, and passes their addresses in as compile-time variables:
//!
//! - `MCP_TEST_SERVER` and `MCP_TEST_ADMIN_TOKEN`: `--memory --quiet --faults --poll-interval-ms 100`,
//!   for everything but auth; its `/admin/faults` and `/admin/expire` endpoints are driven from the
//!   tests, with the admin token it printed at start;
//! - `MCP_TEST_AUTH_SERVER` and `MCP_TEST_AUTH_TOKEN`: `--memory --quiet --auth <token>`.
//!
//! A binary compiled without them fails every test that needs a server, saying so.
//!
//! In the browsers the tests run on the test runner's own origin (another loopback port), so every
//! request is cross-origin: the server allows CORS from loopback origins on `/mcp` and on `/admin/*`
//! (whose `Authorization: Bearer <admin token>` needs a preflight, and which `no-cors` could not
//! carry), so every runtime reads and checks the admin answers.
//!
//! Every test opens its own client in a namespace of its own and closes it at the end, and leaves
//! the fault settings cleared; tests run one at a time (wasm-bindgen-test runs them sequentially).

use std::rc::Rc;

use js_sys::{Array, Promise};
use mcp_tasks_web::error::{ClientError, ErrorKind};
use mcp_tasks_web::host::globals::sleep;
use mcp_tasks_web::host::js_json::{from_js, to_js};
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::runtime::client::{CallOutcome, ClientCore};
use mcp_tasks_web::runtime::options::ClientOptions;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::RUNTIME;

#[path = "support.rs"]
mod support;

pub use support::Runtime;
use support::{js, settle, unique_name};

// ---------------------------------------------------------------------------------------------
// Where the servers are.
// ---------------------------------------------------------------------------------------------

/// The `--faults` server's MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`.
const FAULT_SERVER: Option<&str> = option_env!("MCP_TEST_SERVER");
/// The token the `--faults` server's `/admin/*` endpoints require (it printed it at start).
const ADMIN_TOKEN: Option<&str> = option_env!("MCP_TEST_ADMIN_TOKEN");
/// The `--auth` server's MCP endpoint.
const AUTH_SERVER: Option<&str> = option_env!("MCP_TEST_AUTH_SERVER");
/// The token the `--auth` server accepts.
const AUTH_TOKEN: Option<&str> = option_env!("MCP_TEST_AUTH_TOKEN");

fn compiled_in(value: Option<&'static str>, name: &str) -> &'static str {
    value.unwrap_or_else(|| {
        panic!(
            "{name} was not set when this test binary was compiled: run `cargo xtask test`, or start the \
             reference servers and set MCP_TEST_SERVER, MCP_TEST_ADMIN_TOKEN, MCP_TEST_AUTH_SERVER and \
             MCP_TEST_AUTH_TOKEN on the `cargo test` command (see xtask/src/wasm_tests.rs)"
        )
    })
}

fn fault_server() -> &'static str {
    compiled_in(FAULT_SERVER, "MCP_TEST_SERVER")
}

fn admin_token() -> &'static str {
    compiled_in(ADMIN_TOKEN, "MCP_TEST_ADMIN_TOKEN")
}

fn auth_server() -> &'static str {
    compiled_in(AUTH_SERVER, "MCP_TEST_AUTH_SERVER")
}

fn auth_token() -> &'static str {
    compiled_in(AUTH_TOKEN, "MCP_TEST_AUTH_TOKEN")
}

// ---------------------------------------------------------------------------------------------
// The runtime, names, and the admin endpoints (the shared helpers are in support.rs).
// ---------------------------------------------------------------------------------------------

impl Runtime {
    /// Whether this runtime is a browser: IndexedDB exists, and cross-origin rules apply.
    fn is_browser(self) -> bool {
        self != Runtime::Node
    }
}

/// A namespace no other test (or earlier run) uses.
fn unique(label: &str) -> String {
    unique_name("wasm", label)
}

fn base_of(mcp_url: &str) -> &str {
    mcp_url.strip_suffix("/mcp").expect("the server URL ends in /mcp")
}

/// `POST {fault server}{path}` with an optional JSON body and the admin token: `/admin/faults`,
/// `/admin/expire?task=…`. The answer must be a 2xx, in every runtime (see the module docs).
async fn admin(path: &str, body: Option<Value>) {
    let url = format!("{}{path}", base_of(fault_server()));
    let body = body.map_or(JsValue::UNDEFINED, |b| JsValue::from_str(&b.to_string()));
    let request = js(
        "url, body, token",
        "return fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${token}` } }).then(
           async (response) => {
             if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
           },
         );",
        &[JsValue::from_str(&url), body, JsValue::from_str(admin_token())],
    );
    if let Err(e) = settle(request).await {
        panic!("admin request {url} failed: {e:?}");
    }
}

async fn set_faults(faults: Value) {
    admin("/admin/faults", Some(faults)).await;
}

async fn clear_faults() {
    admin("/admin/faults", Some(json!({}))).await;
}

// ---------------------------------------------------------------------------------------------
// A client under test: the core, and a log of every event it dispatched.
// ---------------------------------------------------------------------------------------------

/// `ClientOptions` as a host would write them: `{ url, namespace, store: "memory",
/// minPollIntervalMs: 50 }` with `extra`'s fields on top.
fn options(url: &str, namespace: &str, extra: JsValue) -> JsValue {
    let base = to_js(&json!({ "url": url, "namespace": namespace, "store": "memory", "minPollIntervalMs": 50 }));
    js("base, extra", "return Object.assign({}, base, extra ?? {});", &[base, extra])
}

struct Client {
    core: Rc<ClientCore>,
    /// A JS array of `{ type, detail }`, one per event dispatched on the client's event target.
    log: JsValue,
}

impl Client {
    /// Opens a client with `options` (a JS object, read with `ClientOptions::read` as `TaskClient.open`
    /// reads it) and starts logging its events at once, as a host would right after `open`.
    async fn open(options: &JsValue) -> Client {
        let options = ClientOptions::read(options).unwrap_or_else(|e| panic!("options refused: {e}"));
        let core = ClientCore::open(options).await.unwrap_or_else(|e| panic!("open failed: {e:?}"));
        let log = js(
            "target",
            "const log = [];
             for (const type of ['task', 'call', 'storage']) target.addEventListener(type, (event) => log.push({ type, detail: event.detail }));
             return log;",
            &[core.event_target()],
        );
        Client { core, log }
    }

    /// A client on the fault server, after clearing whatever faults an earlier (failed) test left.
    async fn on_fault_server(label: &str, extra: JsValue) -> Client {
        clear_faults().await;
        Client::open(&options(fault_server(), &unique(label), extra)).await
    }

    async fn call(&self, tool: &str, arguments: Value) -> Result<CallOutcome, ClientError> {
        let Value::Object(arguments) = arguments else { panic!("tool arguments must be an object") };
        self.core.call_tool(tool.to_owned(), Some(arguments), None, None, None).await
    }

    /// Calls a tool that must answer with a task; returns the handle's snapshot.
    async fn start(&self, tool: &str, arguments: Value) -> Value {
        match self.call(tool, arguments).await {
            Ok(CallOutcome::Task(snapshot)) => {
                assert!(snapshot["taskId"].is_string(), "a task snapshot has a taskId: {snapshot}");
                assert_eq!(snapshot["toolName"], tool, "{snapshot}");
                snapshot
            }
            Ok(CallOutcome::Result(result)) => panic!("{tool} answered synchronously: {}", result.to_json()),
            Err(e) => panic!("calling {tool} failed: {e:?}"),
        }
    }

    /// The current snapshot of task `id`, as `tasks()` lists it.
    fn snapshot(&self, id: &str) -> Option<Value> {
        self.core.snapshots().into_iter().find(|s| s["taskId"] == id)
    }

    /// The details of every event of `kind` dispatched so far.
    fn events(&self, kind: &str) -> Vec<Value> {
        match from_js(&self.log).expect("the event log is JSON") {
            Value::Array(entries) => {
                entries.into_iter().filter(|e| e["type"] == kind).map(|mut e| e["detail"].take()).collect()
            }
            other => panic!("the event log is not an array: {other}"),
        }
    }

    /// The `task` events about task `id`, in order.
    fn task_events(&self, id: &str) -> Vec<Value> {
        self.events("task").into_iter().filter(|s| s["taskId"] == id).collect()
    }

    /// Waits (up to `ms`) for a `task` event about `id` that satisfies `test`; returns its snapshot.
    async fn until(&self, id: &str, what: &str, ms: u32, test: impl Fn(&Value) -> bool) -> Value {
        let deadline = js_sys::Date::now() + f64::from(ms);
        loop {
            if let Some(found) = self.task_events(id).into_iter().find(|s| test(s)) {
                return found;
            }
            if js_sys::Date::now() > deadline {
                panic!(
                    "no task event for {id} showed {what} within {ms} ms; events: {:#?}; now: {:#?}",
                    self.task_events(id),
                    self.snapshot(id)
                );
            }
            sleep(20).await;
        }
    }

    /// `wait(id)`, giving up after `ms`: the settled snapshot.
    async fn settled(&self, id: &str, ms: u32) -> Value {
        let core = self.core.clone();
        let task = id.to_owned();
        let waited = wasm_bindgen_futures::future_to_promise(async move {
            let snapshot = core.wait(&task).await.unwrap_or_else(|e| panic!("wait({task}) refused: {e:?}"));
            Ok(to_js(&snapshot))
        });
        let timeout = js(
            "ms",
            "return new Promise((resolve) => setTimeout(() => resolve('__timed_out__'), ms));",
            &[JsValue::from(ms)],
        );
        let first = JsFuture::from(Promise::race(&Array::of2(&waited, &timeout))).await.expect("wait never rejects");
        if first.as_string().as_deref() == Some("__timed_out__") {
            panic!(
                "task {id} did not settle within {ms} ms; events: {:#?}; now: {:#?}",
                self.task_events(id),
                self.snapshot(id)
            );
        }
        from_js(&first).expect("a snapshot is JSON")
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.core.close();
    }
}

/// The snapshots of tasks in `tasks()` (without calls of unknown outcome, which one test checks).
fn tasks_of(client: &Client) -> Vec<Value> {
    client.core.snapshots().into_iter().filter(|s| s["taskId"].is_string()).collect()
}

fn id_of(snapshot: &Value) -> String {
    snapshot["taskId"].as_str().expect("taskId").to_owned()
}

fn expect_error<T>(result: Result<T, ClientError>, kind: ErrorKind) -> ClientError {
    match result {
        Err(e) if e.kind == kind => e,
        Err(e) => panic!("expected a {kind:?} error, got {e:?}"),
        Ok(_) => panic!("expected a {kind:?} error, got a success"),
    }
}

/// A host store over a `Map` (exposed as `.map`), as an edge worker or Node host would pass one.
fn map_store() -> JsValue {
    js(
        "",
        "const map = new Map();
         return {
           map,
           async get(key) { return map.get(key); },
           async put(key, value) { map.set(key, value); },
           async delete(key) { map.delete(key); },
           async list(prefix) { return [...map].filter(([key]) => key.startsWith(prefix)); },
         };",
        &[],
    )
}

fn object(value: Value) -> JsValue {
    to_js(&value)
}

// ---------------------------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------------------------

#[wasm_bindgen_test]
fn runs_in_the_runtime_it_was_built_for() {
    assert_eq!(Runtime::detect(), Some(RUNTIME));
}

#[wasm_bindgen_test]
async fn echo_answers_synchronously() {
    let client = Client::on_fault_server("echo", JsValue::UNDEFINED).await;
    match client.call("echo", json!({ "text": "héllo ✓" })).await {
        Ok(CallOutcome::Result(result)) => {
            let result = result.to_json();
            assert_eq!(result["content"][0]["text"], "héllo ✓", "{result}");
        }
        Ok(CallOutcome::Task(task)) => panic!("echo started a task: {task}"),
        Err(e) => panic!("echo failed: {e:?}"),
    }
    assert!(tasks_of(&client).is_empty(), "a synchronous result leaves no task behind");
}

/// A call still in flight when the client becomes the poller (in the browsers it queues for a Web
/// Lock at `open` and gets it a moment later) is this client's own call, not one a closed page left
/// behind: it must not be reported as `outcome_unknown`. 300 ms of latency makes sure the call is
/// in flight then; without Web Locks (Node) the client polls from the start.
#[wasm_bindgen_test]
async fn a_call_in_flight_when_the_client_starts_polling_is_not_outcome_unknown() {
    clear_faults().await;
    set_faults(json!({ "latencyMs": 300 })).await;
    let client = Client::open(&options(fault_server(), &unique("in-flight"), JsValue::UNDEFINED)).await;
    let answered = client.call("echo", json!({ "text": "mine" })).await;
    clear_faults().await;
    assert!(matches!(answered, Ok(CallOutcome::Result(_))), "echo answered");
    sleep(50).await; // events are dispatched on the next macrotask
    let listed = client.core.snapshots();
    assert!(listed.is_empty(), "a call that returned its result is not listed by tasks(): {listed:#?}");
    let calls = client.events("call");
    assert!(calls.is_empty(), "no `call` (outcome unknown) event for this client's own call: {calls:#?}");
}

#[wasm_bindgen_test]
async fn build_reports_progress_and_completes() {
    let client = Client::on_fault_server("build", JsValue::UNDEFINED).await;
    let task = client.start("build", json!({ "seconds": 1.5, "target": "wasm" })).await;
    assert_eq!(task["status"], "working", "{task}");
    assert_eq!(task["restored"], false, "{task}");
    let id = id_of(&task);

    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["statusMessage"], "Build of wasm finished", "{done}");
    let structured = &done["result"]["structuredContent"];
    assert_eq!(
        (structured["target"].clone(), structured["steps"].clone(), structured["ok"].clone()),
        (json!("wasm"), json!(2), json!(true)),
        "{done}"
    );
    assert_eq!(done["result"]["content"][0]["text"], "Built wasm in 1.5s (2 steps)", "{done}");
    assert!(done["error"].is_null(), "{done}");
    assert_eq!(done["connectivity"], "online", "{done}");
    assert_eq!(done["restored"], false, "a task this client started is not `restored`: {done}");
    assert!(done["lastError"].is_null(), "{done}");

    // Progress: the status messages the server set while working, each seen as a `task` event.
    sleep(50).await; // events are dispatched on the next macrotask
    let working: Vec<String> = client
        .task_events(&id)
        .iter()
        .filter(|s| s["status"] == "working")
        .filter_map(|s| s["statusMessage"].as_str().map(str::to_owned))
        .collect();
    for step in ["[1/2] resolving dependencies wasm", "[2/2] compiling wasm"] {
        assert!(working.iter().any(|m| m == step), "progress {step:?} was not seen; working messages: {working:?}");
    }
    assert!(
        client.task_events(&id).iter().any(|s| s["connectivity"] == "listening"),
        "the task was covered by a subscriptions/listen stream: {:#?}",
        client.task_events(&id)
    );
    let last = client.task_events(&id).pop().expect("events");
    assert_eq!(last["status"], "completed", "the last event is the completion: {last}");
    let listed = tasks_of(&client);
    assert_eq!(listed.len(), 1, "tasks() lists this one task only: {listed:#?}");
}

#[wasm_bindgen_test]
async fn deploy_asks_for_input_and_completes_after_respond() {
    let client = Client::on_fault_server("deploy", JsValue::UNDEFINED).await;
    let task = client.start("deploy", json!({ "service": "api", "environment": "staging" })).await;
    let id = id_of(&task);

    let asking = client.until(&id, "input_required", 10_000, |s| s["status"] == "input_required").await;
    let request = &asking["inputRequests"]["approval-1"];
    assert_eq!(request["method"], "elicitation/create", "{asking}");
    let schema = &request["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["replicas"]["type"], "integer", "{asking}");
    assert_eq!(schema["required"], json!(["confirm", "strategy"]), "{asking}");
    assert_eq!(asking["statusMessage"], "Waiting for approval to deploy api to staging", "{asking}");

    let answers = json!({ "approval-1": { "action": "accept", "content": { "confirm": true, "strategy": "canary", "replicas": 4, "reason": "wasm test" } } });
    client.core.respond(&id, &object(answers)).await.unwrap_or_else(|e| panic!("respond failed: {e:?}"));
    let now = client.snapshot(&id).expect("snapshot");
    assert_eq!(now["inputRequests"], json!({}), "an answered request is no longer outstanding: {now}");

    // Each key is answered once: a second answer is refused, and nothing is sent.
    let again = json!({ "approval-1": { "action": "accept", "content": { "confirm": false, "strategy": "rolling" } } });
    expect_error(client.core.respond(&id, &object(again)).await, ErrorKind::TaskState);

    client
        .until(&id, "deploying", 10_000, |s| {
            s["statusMessage"].as_str().is_some_and(|m| m.starts_with("Deploying api to staging"))
        })
        .await;
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "{done}");
    let structured = &done["result"]["structuredContent"];
    assert_eq!(structured["replicas"], 4, "the answer reached the server: {done}");
    assert_eq!(structured["strategy"], "canary", "{done}");
    assert_eq!(structured["reason"], "wasm test", "{done}");
    assert_eq!(done["inputRequests"], json!({}), "{done}");
}

#[wasm_bindgen_test]
async fn flaky_fails_with_its_error() {
    let client = Client::on_fault_server("flaky", JsValue::UNDEFINED).await;
    let id = id_of(&client.start("flaky", json!({ "seconds": 0.3 })).await);
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603, "{done}");
    assert_eq!(done["error"]["message"], "Internal error: build cache unavailable", "{done}");
    assert_eq!(done["error"]["data"]["retryable"], true, "{done}");
    assert!(done["result"].is_null(), "a failed task has no result: {done}");
    assert_eq!(done["statusMessage"], "The build cache is unavailable", "{done}");
}

#[wasm_bindgen_test]
async fn tool_error_completes_with_is_error() {
    let client = Client::on_fault_server("tool-error", JsValue::UNDEFINED).await;
    let id = id_of(&client.start("tool_error", json!({})).await);
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "a tool error is a completed task: {done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "The image registry rejected the push: quota exceeded.", "{done}");
    assert!(done["error"].is_null(), "{done}");
}

#[wasm_bindgen_test]
async fn long_job_is_cancelled() {
    let client = Client::on_fault_server("cancel", JsValue::UNDEFINED).await;
    let id = id_of(&client.start("long_job", json!({})).await);
    client.core.cancel(&id).await.unwrap_or_else(|e| panic!("cancel failed: {e:?}"));
    assert_eq!(client.snapshot(&id).expect("snapshot")["cancelRequested"], true);
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "cancelled", "{done}");
    assert_eq!(done["cancelRequested"], true, "{done}");
    assert!(done["result"].is_null() && done["error"].is_null(), "{done}");
    // A settled task cannot be cancelled or answered any more.
    expect_error(client.core.cancel(&id).await, ErrorKind::TaskState);
    expect_error(client.core.respond(&id, &object(json!({ "x": { "action": "cancel" } }))).await, ErrorKind::TaskState);
}

#[wasm_bindgen_test]
async fn a_task_the_server_expired_ends_expired() {
    let client = Client::on_fault_server("expire", JsValue::UNDEFINED).await;
    let id = id_of(&client.start("long_job", json!({})).await);
    // Covered by a subscriptions/listen stream first: the expiry must still be noticed.
    client.until(&id, "listening", 10_000, |s| s["connectivity"] == "listening").await;
    admin(&format!("/admin/expire?task={id}"), None).await;
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "expired", "{done}");
    assert_eq!(done["expired"]["reason"], "unknown_to_server", "{done}");
    assert!(done["expired"]["message"].is_string(), "{done}");
}

#[wasm_bindgen_test]
async fn unknown_tools_and_tasks_fail_with_typed_errors() {
    let client = Client::on_fault_server("usage", JsValue::UNDEFINED).await;
    let unknown = expect_error(client.call("no_such_tool", json!({})).await, ErrorKind::Rpc);
    assert_eq!((unknown.code, unknown.retryable), (Some(-32602), false), "{unknown:?}");
    expect_error(client.core.respond("no-such-task", &object(json!({}))).await, ErrorKind::Usage);
    expect_error(client.core.cancel("no-such-task").await, ErrorKind::Usage);
    expect_error(client.core.wait("no-such-task").await, ErrorKind::Usage);
    match ClientOptions::read(&object(json!({ "store": "memory" }))) {
        Err(message) => assert!(message.contains("url"), "{message}"),
        Ok(_) => panic!("options without a url were accepted"),
    }
}

// --- auth -------------------------------------------------------------------------------------

#[wasm_bindgen_test]
async fn auth_headers_are_asked_for_every_request_and_never_stored() {
    let token = auth_token();
    let url = auth_server();
    // Every request to the server, as fetch sees it (the client looks `fetch` up on each request).
    let spy = js(
        "url",
        "const original = globalThis.fetch;
         const seen = [];
         globalThis.fetch = function (input, init) {
           const request = input instanceof Request ? input : new Request(input, init);
           if (request.url === url) seen.push(request.headers.get('authorization'));
           return original.call(this, input, init);
         };
         return { seen, restore() { globalThis.fetch = original; } };",
        &[JsValue::from_str(url)],
    );
    let headers = js(
        "token",
        "const headers = async () => { headers.calls += 1; return { Authorization: `Bearer ${token}` }; };
         headers.calls = 0;
         return headers;",
        &[JsValue::from_str(token)],
    );
    let store = map_store();
    let extra = js("headers, store", "return { headers, store };", &[headers.clone(), store.clone()]);
    let client = Client::open(&options(url, &unique("auth"), extra)).await;
    let id = id_of(&client.start("build", json!({ "seconds": 0.5, "target": "auth" })).await);
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "{done}");
    drop(client);
    sleep(50).await;
    js("spy", "spy.restore();", std::slice::from_ref(&spy));

    let seen = from_js(&js("spy", "return spy.seen;", &[spy])).expect("JSON");
    let seen: Vec<Option<String>> = seen
        .as_array()
        .expect("an array")
        .iter()
        .map(|h| if h.is_null() { None } else { Some(h.as_str().expect("strings or nulls").to_owned()) })
        .collect();
    let calls = js("headers", "return headers.calls;", &[headers]).as_f64().expect("a count") as usize;
    assert!(seen.len() >= 2, "a call and at least one poll reached the server: {seen:?}");
    assert_eq!(calls, seen.len(), "the headers function is called once per request ({seen:?})");
    let expected = format!("Bearer {token}");
    assert!(seen.iter().all(|h| h.as_deref() == Some(expected.as_str())), "every request carried the token: {seen:?}");
    let stored = js(
        "store, token",
        "return [...store.map.values()].some((value) => value.includes(token));",
        &[store, JsValue::from_str(token)],
    );
    assert_eq!(stored.as_bool(), Some(false), "the token is never written to the store");
}

#[wasm_bindgen_test]
async fn without_auth_headers_the_call_fails_typed() {
    let client = Client::open(&options(auth_server(), &unique("anonymous"), JsValue::UNDEFINED)).await;
    let refused = client.call("echo", json!({ "text": "x" })).await;
    let error = expect_error(refused, ErrorKind::Rpc);
    assert_eq!(error.code, Some(-32001), "{error:?}");
    assert!(!error.retryable, "{error:?}");
    assert!(error.message.contains("Unauthorized"), "{error:?}");
    let left = tasks_of(&client);
    assert!(left.is_empty(), "a refused call leaves no task behind: {left:#?}");

    // A headers function that throws: nothing is sent, and the error says why.
    let throwing = js("", "return { headers: () => { throw new Error('token store locked'); } };", &[]);
    let client = Client::open(&options(auth_server(), &unique("throwing"), throwing)).await;
    let error = expect_error(client.call("echo", json!({ "text": "x" })).await, ErrorKind::Headers);
    assert!(error.message.contains("token store locked"), "{error:?}");
}

// --- stores -----------------------------------------------------------------------------------

#[wasm_bindgen_test]
async fn indexed_db_is_durable_in_browsers_and_falls_back_to_memory_in_node() {
    let client = Client::on_fault_server("durable", object(json!({ "store": "indexeddb" }))).await;
    sleep(20).await; // events are dispatched on the next macrotask
    let storage = client.events("storage");
    if RUNTIME.is_browser() {
        assert!(client.core.durable(), "IndexedDB is durable");
        assert!(storage.is_empty(), "no storage complaint: {storage:?}");
    } else {
        assert!(!client.core.durable(), "no IndexedDB in Node: memory only");
        let reason = storage.first().unwrap_or_else(|| panic!("a storage event says why: {storage:?}"));
        assert_eq!(reason["durable"], false, "{reason}");
        let text = reason["reason"].as_str().unwrap_or_default();
        assert!(text.contains("IndexedDB") && text.contains("memory"), "{reason}");
        // Memory still works for this page's lifetime.
        let id = id_of(&client.start("tool_error", json!({})).await);
        assert_eq!(client.settled(&id, 10_000).await["status"], "completed");
    }
}

#[wasm_bindgen_test]
async fn a_reopened_client_restores_its_task_and_finishes_it() {
    // IndexedDB in the browsers; a host store in Node (which has no IndexedDB).
    let store = if RUNTIME.is_browser() { JsValue::from_str("indexeddb") } else { map_store() };
    let extra = js("store", "return { store };", &[store]);
    let options = options(fault_server(), &unique("restore"), extra);
    clear_faults().await;

    let first = Client::open(&options).await;
    assert!(first.core.durable(), "a durable store");
    let id = id_of(&first.start("build", json!({ "seconds": 1, "target": "restore" })).await);
    drop(first); // closes: no more polls; the record stays in the store

    let second = Client::open(&options).await;
    let restored =
        second.snapshot(&id).unwrap_or_else(|| panic!("task {id} was not restored: {:?}", second.core.snapshots()));
    assert_eq!(restored["restored"], true, "{restored}");
    assert_eq!(restored["toolName"], "build", "{restored}");
    assert_eq!(restored["status"], "working", "{restored}");
    let done = second.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["target"], "restore", "{done}");

    second.core.forget(&id).await.unwrap_or_else(|e| panic!("forget failed: {e:?}"));
    assert!(second.core.snapshots().is_empty(), "forgotten: {:?}", second.core.snapshots());
    drop(second);
    let third = Client::open(&options).await;
    assert!(third.core.snapshots().is_empty(), "forget removed it from the store: {:?}", third.core.snapshots());
}

/// Twelve tasks that all ended while no client was open: a reopened client polls them at once, and
/// their changes reach the store together (written in groups: `runtime/client/writes.rs`). Every one
/// must be in the store afterwards, as a third client that never polls shows.
#[wasm_bindgen_test]
async fn changes_that_arrive_together_are_all_stored() {
    let store = if RUNTIME.is_browser() { JsValue::from_str("indexeddb") } else { map_store() };
    let extra = js("store", "return { store };", &[store]);
    let options = options(fault_server(), &unique("together"), extra);
    clear_faults().await;
    let first = Client::open(&options).await;
    let mut ids = Vec::new();
    for n in 0..12 {
        ids.push(id_of(&first.start("build", json!({ "seconds": 1, "target": format!("t{n}") })).await));
    }
    drop(first);
    sleep(1_500).await; // every build has finished on the server

    let second = Client::open(&options).await;
    for id in &ids {
        assert_eq!(second.settled(id, 10_000).await["status"], "completed", "task {id}");
    }
    drop(second);

    // The third never polls (step mode, no step): what it shows comes from the store alone.
    let third = Client::open(&js("o", "return Object.assign({}, o, { autoPoll: false });", &[options])).await;
    for id in &ids {
        let stored = third.snapshot(id).unwrap_or_else(|| panic!("task {id} is not in the store"));
        assert_eq!(stored["status"], "completed", "the completion of {id} was stored: {stored}");
    }
}

/// `wait` on a task that is forgotten, cleared or whose client closes first rejects with a named
/// error instead of hanging forever.
#[wasm_bindgen_test]
async fn wait_rejects_after_forget_clear_and_close() {
    let client = Client::on_fault_server("wait-gone", JsValue::UNDEFINED).await;
    for (how, kind) in [("forget", ErrorKind::Forgotten), ("clear", ErrorKind::Forgotten), ("close", ErrorKind::Closed)]
    {
        let id = id_of(&client.start("long_job", json!({ "seconds": 300 })).await);
        let core = client.core.clone();
        let task = id.clone();
        let outcome: Rc<std::cell::RefCell<Option<Result<Value, ClientError>>>> = Rc::default();
        let slot = outcome.clone();
        wasm_bindgen_futures::spawn_local(async move {
            *slot.borrow_mut() = Some(core.wait(&task).await);
        });
        sleep(50).await;
        assert!(outcome.borrow().is_none(), "wait({id}) settled before the {how}: {:?}", outcome.borrow());
        match how {
            "forget" => client.core.forget(&id).await.unwrap_or_else(|e| panic!("forget failed: {e:?}")),
            "clear" => client.core.clear().await.unwrap_or_else(|e| panic!("clear failed: {e:?}")),
            _ => client.core.close(),
        }
        sleep(20).await;
        let settled = outcome.borrow_mut().take();
        match settled {
            Some(Err(e)) if e.kind == kind => {}
            other => panic!("after {how}, wait({id}) should reject with {kind:?}, got {other:?}"),
        }
    }
    expect_error(client.core.wait("anything").await, ErrorKind::Closed);
}

/// Two tabs of one namespace (two clients in one page or worker share its Web Locks and
/// BroadcastChannel): `clear()` in the tab that does not poll reaches the one that does, which stops
/// polling the cleared tasks and writes none of them back; no record is left in either or the store.
#[wasm_bindgen_test]
async fn clear_in_one_tab_clears_the_polling_tab_and_the_store() {
    if !RUNTIME.is_browser() {
        return; // Node has no Web Locks: each client polls alone and there are no tabs to reach.
    }
    let extra = js("", "return { store: 'indexeddb' };", &[]);
    let options = options(fault_server(), &unique("clear-tabs"), extra);
    clear_faults().await;
    let poller = Client::open(&options).await;
    let other = Client::open(&options).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(id_of(&poller.start("long_job", json!({ "seconds": 300 })).await));
    }
    let shared = other.until(&ids[2], "the other tab to get the task", 5_000, |_| true).await;
    assert_eq!(shared["status"], "working", "{shared}");

    other.core.clear().await.unwrap_or_else(|e| panic!("clear failed: {e:?}"));
    sleep(800).await; // several poll intervals of the server (100 ms) and the client (50 ms)

    assert!(tasks_of(&other).is_empty(), "the clearing tab adopted tasks again: {:?}", tasks_of(&other));
    assert!(tasks_of(&poller).is_empty(), "the polling tab kept the cleared tasks: {:?}", tasks_of(&poller));
    drop(poller);
    drop(other);
    let reader = Client::open(&js("o", "return Object.assign({}, o, { autoPoll: false });", &[options])).await;
    assert!(tasks_of(&reader).is_empty(), "cleared tasks were written back to the store: {:?}", tasks_of(&reader));
}

// --- faults -----------------------------------------------------------------------------------
//
// Faults hit requests as they start (`/mcp` POSTs); a `subscriptions/listen` stream that is already
// open is not affected, and a task it covers is not polled. So each fault test makes the client send
// requests while the faults are on: a client reopened on the task's store while the server is
// failing (its `server/discover`, listen and polls all meet the faults), or an answer sent then.

/// Starts a 1 s build, closes that client, turns `faults` on, reopens a client on the same store
/// (as a reload during an outage would), waits for a `task` event showing a failure that
/// `is_expected`, clears the faults, and checks the task still completes and recovers. Returns the
/// snapshot that showed the failure.
async fn survives(label: &str, faults: Value, extra: Value, is_expected: impl Fn(&Value) -> bool) -> Value {
    let mut settings = json!({ "maxBackoffMs": 300 });
    if let (Value::Object(settings), Value::Object(extra)) = (&mut settings, extra) {
        settings.extend(extra);
    }
    let store = map_store();
    let options = options(
        fault_server(),
        &unique(label),
        js("settings, store", "return Object.assign({ store }, settings);", &[object(settings), store]),
    );
    clear_faults().await;
    let first = Client::open(&options).await;
    let id = id_of(&first.start("build", json!({ "seconds": 1, "target": label })).await);
    drop(first);

    set_faults(faults.clone()).await;
    let client = Client::open(&options).await;
    assert_eq!(client.snapshot(&id).map(|s| s["restored"].clone()), Some(json!(true)), "the task was restored");
    let failing = client
        .until(&id, &format!("a failure under {faults}"), 8_000, |s| {
            s["lastError"]["failure"].is_object() && is_expected(&s["lastError"]["failure"])
        })
        .await;
    clear_faults().await;
    assert_eq!(failing["connectivity"], "backoff", "a failing task is backing off: {failing}");
    assert_eq!(failing["status"], "working", "a failed request does not end the task: {failing}");
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "the task completes once the faults stop: {done}");
    assert_eq!(done["result"]["structuredContent"]["target"], label, "{done}");
    assert!(done["lastError"].is_null(), "recovered: {done}");
    assert_eq!(done["connectivity"], "online", "{done}");
    failing
}

#[wasm_bindgen_test]
async fn faults_server_errors_503_are_survived() {
    let failing =
        survives("f503", json!({ "errorRate": 1.0, "errorStatus": 503 }), json!({}), |f| f["kind"] == "http").await;
    assert_eq!(failing["lastError"]["failure"]["status"], 503, "{failing}");
}

#[wasm_bindgen_test]
async fn faults_rate_limits_429_with_retry_after_are_survived() {
    let failing =
        survives("f429", json!({ "rateLimitRate": 1.0, "retryAfterS": 1 }), json!({}), |f| f["kind"] == "http").await;
    let failure = &failing["lastError"]["failure"];
    assert_eq!(failure["status"], 429, "{failing}");
    // The server's Retry-After is honoured (over the 300 ms backoff cap)...
    let at = failing["lastError"]["at"].as_f64().expect("lastError.at");
    let next = failing["nextPollAt"].as_f64().expect("nextPollAt");
    assert!(next - at >= 1000.0, "the next poll waits out Retry-After: 1 ({} ms): {failing}", next - at);
    // ...and reported in the snapshot as the TypeScript declaration says: `retryAfterMs`.
    assert_eq!(failure["retryAfterMs"], 1000, "lastError.failure.retryAfterMs: {failing}");
}

#[wasm_bindgen_test]
async fn faults_dropped_connections_are_survived() {
    let failing = survives("fdrop", json!({ "dropRate": 1.0 }), json!({}), |f| f["kind"] == "network").await;
    assert_eq!(failing["lastError"]["failure"]["kind"], "network", "{failing}");
}

#[wasm_bindgen_test]
async fn faults_latency_past_the_request_timeout_is_survived() {
    let failing =
        survives("fslow", json!({ "latencyMs": 600 }), json!({ "requestTimeoutMs": 250 }), |f| f["kind"] == "timeout")
            .await;
    assert_eq!(failing["lastError"]["failure"]["kind"], "timeout", "{failing}");
}

#[wasm_bindgen_test]
async fn faults_latency_within_the_request_timeout_is_not_a_failure() {
    let client = Client::on_fault_server("flatency", object(json!({ "requestTimeoutMs": 5000 }))).await;
    set_faults(json!({ "latencyMs": 300 })).await;
    // The latency is in force: a synchronous call now takes at least that long.
    let started = js_sys::Date::now();
    assert!(matches!(client.call("echo", json!({ "text": "slow" })).await, Ok(CallOutcome::Result(_))));
    let took = js_sys::Date::now() - started;
    assert!(took >= 300.0, "echo answered in {took} ms under 300 ms of added latency");
    let id = id_of(&client.start("build", json!({ "seconds": 1, "target": "latency" })).await);
    let done = client.settled(&id, 10_000).await;
    clear_faults().await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["target"], "latency", "{done}");
    sleep(50).await;
    let failures: Vec<Value> = client.task_events(&id).into_iter().filter(|s| !s["lastError"].is_null()).collect();
    assert!(failures.is_empty(), "slow answers within the timeout are not failures: {failures:#?}");
}

#[wasm_bindgen_test]
async fn faults_an_answer_sent_during_503s_is_resent_and_the_task_completes() {
    let client = Client::on_fault_server("fanswer", object(json!({ "maxBackoffMs": 300 }))).await;
    let id = id_of(&client.start("deploy", json!({ "service": "web", "environment": "staging" })).await);
    client.until(&id, "input_required", 10_000, |s| s["status"] == "input_required").await;
    set_faults(json!({ "errorRate": 1.0, "errorStatus": 503 })).await;
    let answers = json!({ "approval-1": { "action": "accept", "content": { "confirm": true, "strategy": "rolling", "replicas": 3 } } });
    client.core.respond(&id, &object(answers)).await.unwrap_or_else(|e| panic!("respond failed: {e:?}"));
    let failing =
        client.until(&id, "the answer failing with 503", 8_000, |s| s["lastError"]["failure"]["status"] == 503).await;
    clear_faults().await;
    assert_eq!(failing["inputRequests"], json!({}), "the answer stays queued, not outstanding: {failing}");
    let done = client.settled(&id, 10_000).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["replicas"], 3, "the re-sent answer reached the server: {done}");
    assert!(done["lastError"].is_null(), "recovered: {done}");
}
