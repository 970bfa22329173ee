//! `protocol::legacy` (MCP 2025-11-25 experimental tasks) against the real bytes of a server built on the
//! official TypeScript SDK v1 (`tests/fixtures/spec/wire-ts-sdk-v1-2025-11-25.txt`), the 2025-11-25 JSON
//! Schema, and hand-written Postel, hostile-input, negotiation and taskSupport cases.
mod common;

use mcp_tasks_web::json as wire_json;
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::discover::DiscoverResult;
use mcp_tasks_web::protocol::input::{ElicitAction, ElicitRequest, InputRequest, InputRequests, InputResponse};
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, Incoming, RequestId, RpcError};
use mcp_tasks_web::protocol::legacy::handshake::{
    decode_initialize_result, encode_initialize, encode_initialized, LegacyServer, LegacyTaskCapabilities,
};
use mcp_tasks_web::protocol::legacy::headers::{
    initialize_headers, read_session_id, session_headers, stream_headers, MAX_SESSION_ID_LEN,
};
use mcp_tasks_web::protocol::legacy::negotiate::{
    after_discover, after_initialize, DiscoverOutcome, DiscoverVerdict, Generation,
};
use mcp_tasks_web::protocol::legacy::payload::{
    decode_task_payload, live_observation, settle, waiting_observation, TaskPayload,
};
use mcp_tasks_web::protocol::legacy::request::{LegacyCallTool, LegacyRequest, TaskParams};
use mcp_tasks_web::protocol::legacy::stream::{
    decode_progress, decode_stream_message, encode_error_response, encode_input_answer, encode_invalid_params,
    encode_method_not_found, encode_result_response, input_key, request_id_for_key, LegacyServerMessage,
};
use mcp_tasks_web::protocol::legacy::task::{
    cancel_refusal, decode_call_result, decode_cancel_result, decode_get_result, decode_list_result, decode_task,
    encode_task, CancelRefusal, LegacyCallOutcome,
};
use mcp_tasks_web::protocol::legacy::tools::{attach_task, decode_tool_page, task_support, TaskSupport};
use mcp_tasks_web::protocol::legacy::LEGACY_PROTOCOL_VERSION;
use mcp_tasks_web::protocol::meta::Implementation;
use mcp_tasks_web::protocol::task::{decode_get_task_result, DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::protocol::DecodeError;

// ---------------------------------------------------------------------------------------------------------
// The capture

/// One request/response pair of the capture.
#[derive(Default, Debug)]
struct Exchange {
    method: String,
    request_headers: Vec<(String, String)>,
    request_body: Option<Value>,
    status: u16,
    response_headers: Vec<(String, String)>,
    /// Each SSE `data:` payload (or JSON body) in order.
    messages: Vec<Value>,
}

enum Side {
    None,
    Request,
    Response,
}

/// Parses the capture: `> METHOD path`, request headers, the body line; `< HTTP nnn`, response headers,
/// `data:` lines. `#` lines are comments; `========` lines name sections.
fn parse_capture() -> Vec<Exchange> {
    let text = std::fs::read_to_string(common::spec_dir().join("wire-ts-sdk-v1-2025-11-25.txt")).expect("the capture");
    let mut exchanges: Vec<Exchange> = Vec::new();
    let mut side = Side::None;
    for line in text.lines() {
        if line.starts_with('#') || line.starts_with("========") || line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("> ") {
            exchanges
                .push(Exchange { method: rest.split(' ').next().unwrap_or_default().to_owned(), ..Default::default() });
            side = Side::Request;
            continue;
        }
        let Some(current) = exchanges.last_mut() else { continue };
        if let Some(rest) = line.strip_prefix("< HTTP ") {
            current.status = rest.trim().parse().expect("status code");
            side = Side::Response;
            continue;
        }
        match side {
            Side::Request if line.starts_with('{') => {
                current.request_body = Some(wire_json::from_str(line).expect("request body is JSON"));
            }
            Side::Request => {
                let (name, value) = line.split_once(": ").expect("a request header");
                current.request_headers.push((name.to_owned(), value.to_owned()));
            }
            Side::Response => {
                if let Some(data) = line.strip_prefix("data: ") {
                    current.messages.push(wire_json::from_str(data).expect("SSE data is JSON"));
                } else if line.starts_with('{') {
                    current.messages.push(wire_json::from_str(line).expect("body is JSON"));
                } else if let Some((name, value)) = line.split_once(": ") {
                    current.response_headers.push((name.to_owned(), value.to_owned()));
                }
            }
            Side::None => {}
        }
    }
    exchanges
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// Our header list equals the captured one as a set (names case-insensitive), `Origin` aside (the
/// browser adds it).
fn assert_same_headers(ours: &[(&'static str, String)], captured: &[(String, String)], context: &str) {
    let mut ours: Vec<(String, String)> = ours.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.clone())).collect();
    let mut theirs: Vec<(String, String)> = captured
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("origin"))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
        .collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs, "headers of {context}");
}

fn id_of(body: &Value) -> RequestId {
    match body.get("id") {
        Some(Value::Number(n)) => RequestId::Number(n.as_i64().expect("integer id")),
        Some(Value::String(s)) => RequestId::Text(s.clone()),
        other => panic!("request id {other:?}"),
    }
}

/// The only message of a POST's response, which must be the JSON-RPC response answering `id`.
fn only_result(ex: &Exchange) -> Value {
    assert_eq!(ex.messages.len(), 1, "one message per response");
    let text = wire_json::to_string(&ex.messages[0]);
    match decode_stream_message(&text).expect("decodes as a legacy stream message") {
        LegacyServerMessage::Response(r) => r.outcome.expect("a success"),
        other => panic!("expected a response, got {other:?}"),
    }
}

const TASK_ID: &str = "3eea82e04a2566c53bba5ffa2c5a3445";
const SESSION: &str = "234e57dd-b4d9-4ab8-ab2a-7141e16727dc";

#[test]
fn every_message_in_the_capture_encodes_or_decodes_as_expected() {
    let exchanges = parse_capture();
    assert_eq!(exchanges.len(), 14, "CORS preflight + 13 POSTs");
    let mut server: Option<LegacyServer> = None;
    let mut tools = None;
    let mut last_task: Option<Task> = None;
    let mut statuses = Vec::new();
    let mut checked = 0;
    for ex in &exchanges {
        if ex.method == "OPTIONS" {
            assert_eq!(ex.status, 204);
            continue;
        }
        assert_eq!(ex.method, "POST");
        let body = ex.request_body.as_ref().expect("every POST has a body");
        let method = body.get("method").and_then(Value::as_str).expect("a method");
        // What we would send: the same JSON (same id), the same headers.
        let ours = match method {
            "initialize" => {
                assert_same_headers(&initialize_headers(), &ex.request_headers, method);
                encode_initialize(&id_of(body), &Implementation::new("peer2-wire-client", "0.1.0"), true, false)
            }
            "notifications/initialized" => {
                assert_same_headers(&session_headers(Some(SESSION)), &ex.request_headers, method);
                encode_initialized()
            }
            _ => {
                assert_same_headers(&session_headers(Some(SESSION)), &ex.request_headers, method);
                let params = body.get("params").and_then(Value::as_object).expect("params");
                let task_id = || params.get("taskId").and_then(Value::as_str).expect("taskId").to_owned();
                let request = match method {
                    "tools/list" => LegacyRequest::ListTools { cursor: None },
                    "tools/call" => {
                        let name = params.get("name").and_then(Value::as_str).expect("name");
                        let support = tools
                            .as_ref()
                            .and_then(|page: &mcp_tasks_web::protocol::legacy::tools::LegacyToolPage| {
                                page.tools.iter().find(|t| t.name == name)
                            })
                            .expect("the tool was listed")
                            .task_support;
                        let caps = server.as_ref().and_then(|s| s.tasks);
                        assert!(attach_task(caps.as_ref(), support), "the rule attaches params.task to {name}");
                        LegacyRequest::CallTool(LegacyCallTool {
                            name: name.to_owned(),
                            arguments: Some(json!({ "seconds": 3, "target": "web" }).as_object().unwrap().clone()),
                            task: Some(TaskParams { ttl_ms: Some(60_000) }),
                            progress_token: None,
                        })
                    }
                    "tasks/get" => LegacyRequest::GetTask { task_id: task_id() },
                    "tasks/result" => LegacyRequest::TaskResult { task_id: task_id() },
                    "tasks/list" => LegacyRequest::ListTasks { cursor: None },
                    other => panic!("unexpected method {other} in the capture"),
                };
                assert_eq!(request.method(), method);
                request.envelope(&id_of(body))
            }
        };
        assert_eq!(&ours, body, "our {method} encodes as the SDK's client sent it");

        // What came back.
        match method {
            "initialize" => {
                assert_eq!(ex.status, 200);
                let session = header(&ex.response_headers, "mcp-session-id").expect("a session id");
                assert_eq!(read_session_id(session).as_deref(), Ok(SESSION));
                let decoded = decode_initialize_result(&only_result(ex));
                assert_eq!(
                    decoded,
                    Ok(LegacyServer {
                        protocol_version: "2025-11-25".into(),
                        server_info: Some(Implementation::new("mcp-tasks-peer2-ts-v1", "0.1.0")),
                        tasks: Some(LegacyTaskCapabilities { list: true, cancel: true, tools_call: true }),
                        instructions: None,
                    })
                );
                assert_eq!(after_initialize(&decoded), Generation::Legacy2025);
                server = decoded.ok();
            }
            "notifications/initialized" => {
                assert_eq!(ex.status, 202);
                assert!(ex.messages.is_empty());
            }
            "tools/list" => {
                let page = decode_tool_page(&only_result(ex)).expect("tools/list page");
                let flags: Vec<(&str, TaskSupport)> =
                    page.tools.iter().map(|t| (t.name.as_str(), t.task_support)).collect();
                assert_eq!(
                    flags,
                    [
                        ("quick_echo", TaskSupport::Forbidden),
                        ("slow_build", TaskSupport::Optional),
                        ("approve_deploy", TaskSupport::Required),
                        ("flaky_job", TaskSupport::Optional),
                        ("long_cancelable", TaskSupport::Required),
                    ]
                );
                assert_eq!(page.next_cursor, None);
                assert!(page.tools[0].definition.contains_key("outputSchema"), "definitions are kept whole");
                let caps = server.as_ref().and_then(|s| s.tasks);
                assert!(!attach_task(caps.as_ref(), page.tools[0].task_support), "quick_echo gets no params.task");
                tools = Some(page);
            }
            "tools/call" => {
                let LegacyCallOutcome::Task(handle) = decode_call_result(&only_result(ex)).expect("tools/call result")
                else {
                    panic!("slow_build with params.task becomes a task")
                };
                assert_eq!(
                    handle.task,
                    Task {
                        task_id: TASK_ID.into(),
                        status: TaskStatus::Working,
                        status_message: Some("[0/3] queued web".into()),
                        created_at: "2026-12-03T07:30:08.549Z".into(),
                        last_updated_at: "2026-12-03T07:30:08.549Z".into(),
                        ttl_ms: Some(60_000),
                        poll_interval_ms: Some(500),
                    }
                );
                assert_eq!(handle.immediate_response, None);
                let live = live_observation(handle.task.clone(), &InputRequests::new()).expect("working is live");
                assert_eq!(live.detail, StatusDetail::None);
                last_task = Some(handle.task);
            }
            "tasks/get" => {
                let task = decode_get_result(&only_result(ex), TASK_ID).expect("tasks/get result");
                assert_eq!((task.ttl_ms, task.poll_interval_ms), (Some(60_000), Some(500)));
                statuses.push(task.status);
                last_task = Some(task);
            }
            "tasks/result" => {
                let response = only_result(ex);
                let payload = decode_task_payload(&Ok(response), TASK_ID).expect("tasks/result payload");
                assert_eq!(payload.related_task.as_deref(), Some(TASK_ID));
                let result = payload.outcome.as_ref().expect("a tool result");
                assert_eq!(
                    result.content,
                    vec![json!({ "type": "text", "text": "Built web in 3s -> web-build.tar.gz" })]
                );
                assert_eq!(result.structured_content.as_ref().and_then(|s| s.get("ok")), Some(&Value::Bool(true)));
                assert!(!result.is_tool_error());
                let task = last_task.clone().expect("polled before");
                assert_eq!(task.status, TaskStatus::Completed);
                assert_eq!(live_observation(task.clone(), &InputRequests::new()), None, "completed needs tasks/result");
                let settled = settle(task, payload).expect("settles");
                assert_eq!(settled.task.status, TaskStatus::Completed);
                assert_eq!(settled.task.status_message.as_deref(), Some("[3/3] compiling web"));
                assert!(matches!(&settled.detail, StatusDetail::Result(r) if r.content.len() == 1));
            }
            "tasks/list" => {
                let page = decode_list_result(&only_result(ex)).expect("tasks/list page");
                assert_eq!(page.tasks.len(), 1);
                assert_eq!(Some(&page.tasks[0]), last_task.as_ref(), "the list shows the task as tasks/get last did");
                assert_eq!(page.next_cursor, None);
            }
            _ => unreachable!(),
        }
        checked += 1;
    }
    assert_eq!(checked, 13);
    assert_eq!(statuses.len(), 7);
    assert!(statuses[..6].iter().all(|s| *s == TaskStatus::Working));
    assert_eq!(statuses[6], TaskStatus::Completed);
}

// ---------------------------------------------------------------------------------------------------------
// The 2025-11-25 JSON Schema

fn schema_defs() -> Value {
    let schema = common::read_json(&common::spec_dir().join("schema/2025-11-25/schema.json"));
    schema.get("$defs").expect("$defs").clone()
}

fn string_set(value: Option<&Value>) -> Vec<String> {
    let mut items: Vec<String> =
        value.and_then(Value::as_array).expect("an array").iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    items.sort();
    items
}

fn keys_of(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().expect("an object").keys().map(str::to_owned).collect();
    keys.sort();
    keys
}

#[test]
fn the_schema_agrees_with_our_names() {
    let defs = schema_defs();
    let mut statuses: Vec<String> = TaskStatus::ALL.iter().map(|s| s.as_str().to_owned()).collect();
    statuses.sort();
    assert_eq!(string_set(defs.pointer("/TaskStatus/enum")), statuses);

    let mut supports: Vec<String> = [TaskSupport::Forbidden, TaskSupport::Optional, TaskSupport::Required]
        .iter()
        .map(|s| s.as_str().to_owned())
        .collect();
    supports.sort();
    assert_eq!(string_set(defs.pointer("/ToolExecution/properties/taskSupport/enum")), supports);

    // Every field our legacy Task encoder writes is a Task property, and every required one is written.
    let task = Task {
        task_id: "t".into(),
        status: TaskStatus::Working,
        status_message: Some("m".into()),
        created_at: "2026-01-01T00:00:00Z".into(),
        last_updated_at: "2026-01-01T00:00:00Z".into(),
        ttl_ms: None,
        poll_interval_ms: Some(1),
    };
    let written = keys_of(&encode_task(&task));
    assert_eq!(written, keys_of(defs.pointer("/Task/properties").unwrap()));
    for required in string_set(defs.pointer("/Task/required")) {
        assert!(written.contains(&required), "Task.{required} is written");
    }

    // The initialize params carry every required member; the capabilities only known ones.
    let init = encode_initialize(&RequestId::Number(1), &Implementation::new("c", "1"), true, true);
    let params = init.get("params").unwrap();
    for required in string_set(defs.pointer("/InitializeRequestParams/required")) {
        assert!(params.get(required.as_str()).is_some(), "initialize params.{required}");
    }
    let known = keys_of(defs.pointer("/ClientCapabilities/properties").unwrap());
    for key in keys_of(params.get("capabilities").unwrap()) {
        assert!(known.contains(&key), "capability {key} is in the schema");
    }
    let modes = keys_of(defs.pointer("/ClientCapabilities/properties/elicitation/properties").unwrap());
    assert_eq!(keys_of(params.pointer("/capabilities/elicitation").unwrap()), modes);
    assert!(params.pointer("/capabilities/tasks").is_none(), "no client-hosted tasks declared");

    // The server capability paths we read exist.
    let tasks = defs.pointer("/ServerCapabilities/properties/tasks/properties").unwrap();
    assert!(tasks.get("list").is_some() && tasks.get("cancel").is_some());
    assert!(tasks.pointer("/requests/properties/tools/properties/call").is_some());
    assert_eq!(string_set(defs.pointer("/RelatedTaskMetadata/required")), ["taskId"]);
    assert_eq!(keys_of(defs.pointer("/TaskMetadata/properties").unwrap()), ["ttl"]);
    assert_eq!(string_set(defs.pointer("/CreateTaskResult/required")), ["task"]);
    assert_eq!(string_set(defs.pointer("/ListTasksResult/required")), ["tasks"]);
}

// ---------------------------------------------------------------------------------------------------------
// Encoders

#[test]
fn requests_encode_exactly() {
    let id = RequestId::Text("r1".into());
    let call = LegacyRequest::CallTool(LegacyCallTool {
        name: "slow_build".into(),
        arguments: None,
        task: Some(TaskParams::default()),
        progress_token: Some(json!("p-1")),
    });
    assert_eq!(
        call.envelope(&id),
        json!({ "jsonrpc": "2.0", "id": "r1", "method": "tools/call",
                "params": { "name": "slow_build", "task": {}, "_meta": { "progressToken": "p-1" } } })
    );
    let plain = LegacyRequest::CallTool(LegacyCallTool {
        name: "quick_echo".into(),
        arguments: None,
        task: None,
        progress_token: None,
    });
    assert_eq!(plain.params(), json!({ "name": "quick_echo" }), "no params.task when not asked for");
    assert_eq!(
        LegacyRequest::CancelTask { task_id: "t".into() }.envelope(&RequestId::Number(4)),
        json!({ "jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": { "taskId": "t" } })
    );
    assert_eq!(LegacyRequest::ListTasks { cursor: Some("c2".into()) }.params(), json!({ "cursor": "c2" }));
    assert_eq!(LegacyRequest::TaskResult { task_id: "t".into() }.method(), "tasks/result");
}

#[test]
fn initialize_declares_the_modes_asked_for() {
    let info = Implementation::new("c", "1");
    let caps = |form, url| {
        encode_initialize(&RequestId::Number(1), &info, form, url).pointer("/params/capabilities").unwrap().clone()
    };
    assert_eq!(caps(true, false), json!({ "elicitation": { "form": {} } }));
    assert_eq!(caps(true, true), json!({ "elicitation": { "form": {}, "url": {} } }));
    assert_eq!(caps(false, true), json!({ "elicitation": { "url": {} } }));
    assert_eq!(caps(false, false), json!({ "elicitation": { "form": {} } }), "elicitation is always possible");
    assert_eq!(
        encode_initialize(&RequestId::Number(1), &info, true, false).pointer("/params/protocolVersion"),
        Some(&json!(LEGACY_PROTOCOL_VERSION))
    );
    assert_eq!(encode_initialized(), json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
}

#[test]
fn headers_per_phase() {
    let names = |h: Vec<(&'static str, String)>| h.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(names(initialize_headers()), ["Content-Type", "Accept"]);
    assert_eq!(names(session_headers(None)), ["Content-Type", "Accept", "MCP-Protocol-Version"]);
    let with_session = session_headers(Some("abc"));
    assert!(with_session.contains(&("Mcp-Session-Id", "abc".to_owned())));
    assert!(with_session.contains(&("MCP-Protocol-Version", "2025-11-25".to_owned())));
    assert!(!with_session.iter().any(|(n, _)| n.starts_with("Mcp-M") || *n == "Mcp-Name"), "no 2026 routing headers");
    let get = stream_headers(Some("abc"));
    assert!(get.contains(&("Accept", "text/event-stream".to_owned())));
    assert!(get.contains(&("Mcp-Session-Id", "abc".to_owned())));
}

#[test]
fn session_ids_must_be_visible_ascii() {
    assert_eq!(read_session_id("a-b_c.1"), Ok("a-b_c.1".to_owned()));
    for bad in ["", "has space", "tab\there", "é", "line\nbreak"] {
        assert!(matches!(read_session_id(bad), Err(DecodeError::Invalid { .. })), "{bad:?} is refused");
    }
    assert!(read_session_id(&"x".repeat(MAX_SESSION_ID_LEN)).is_ok());
    assert!(read_session_id(&"x".repeat(MAX_SESSION_ID_LEN + 1)).is_err());
}

// ---------------------------------------------------------------------------------------------------------
// Postel shapes

fn legacy_task_json() -> Value {
    json!({ "taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:05Z", "ttl": 60000, "pollInterval": 500 })
}

fn with(mut base: Value, key: &str, value: Value) -> Value {
    if let Value::Object(obj) = &mut base {
        obj.insert(key.to_owned(), value);
    }
    base
}

fn without(mut base: Value, key: &str) -> Value {
    if let Value::Object(obj) = &mut base {
        obj.remove(key);
    }
    base
}

#[test]
fn tasks_get_tolerates_what_servers_vary_in() {
    let expected = decode_get_result(&legacy_task_json(), "t1").expect("the legacy shape");
    assert_eq!((expected.ttl_ms, expected.poll_interval_ms), (Some(60_000), Some(500)));

    // resultType (a 2026-minded server), extra fields, _meta.
    let decorated = with(
        with(with(legacy_task_json(), "resultType", json!("complete")), "x-extra", json!({ "a": 1 })),
        "_meta",
        json!({}),
    );
    assert_eq!(decode_get_result(&decorated, "t1").as_ref(), Ok(&expected));

    // The 2026 names.
    let modern = with(
        with(without(without(legacy_task_json(), "ttl"), "pollInterval"), "ttlMs", json!(60000)),
        "pollIntervalMs",
        json!(500),
    );
    assert_eq!(decode_get_result(&modern, "t1").as_ref(), Ok(&expected));

    // Both names: the legacy one wins.
    let both = with(legacy_task_json(), "ttlMs", json!(1));
    assert_eq!(decode_get_result(&both, "t1").unwrap().ttl_ms, Some(60_000));

    // ttl null (unlimited), ttl missing, pollInterval missing, lastUpdatedAt missing.
    assert_eq!(decode_get_result(&with(legacy_task_json(), "ttl", Value::Null), "t1").unwrap().ttl_ms, None);
    assert_eq!(decode_get_result(&without(legacy_task_json(), "ttl"), "t1").unwrap().ttl_ms, None);
    assert_eq!(decode_get_result(&without(legacy_task_json(), "pollInterval"), "t1").unwrap().poll_interval_ms, None);
    let no_update = decode_get_result(&without(legacy_task_json(), "lastUpdatedAt"), "t1").unwrap();
    assert_eq!(no_update.last_updated_at, "2026-01-01T00:00:00Z", "reads as createdAt");

    // Whole numbers written as floats are whole.
    assert_eq!(decode_get_result(&with(legacy_task_json(), "ttl", json!(2000.0)), "t1").unwrap().ttl_ms, Some(2000));
}

#[test]
fn legacy_task_round_trips() {
    let task = decode_task(&legacy_task_json()).unwrap();
    assert_eq!(encode_task(&task), legacy_task_json());
    let unlimited = Task { ttl_ms: None, poll_interval_ms: None, status_message: Some("s".into()), ..task };
    let written = encode_task(&unlimited);
    assert_eq!(written.get("ttl"), Some(&Value::Null), "ttl is always written");
    assert_eq!(decode_task(&written), Ok(unlimited));
}

#[test]
fn tools_call_answers_tell_a_task_from_a_result() {
    let handle = json!({ "task": legacy_task_json(),
                         "_meta": { "io.modelcontextprotocol/model-immediate-response": "Started." } });
    match decode_call_result(&handle) {
        Ok(LegacyCallOutcome::Task(h)) => {
            assert_eq!(h.task.task_id, "t1");
            assert_eq!(h.immediate_response.as_deref(), Some("Started."));
        }
        other => panic!("{other:?}"),
    }
    // A non-string immediate response is advisory and ignored.
    let odd = json!({ "task": legacy_task_json(), "_meta": { "io.modelcontextprotocol/model-immediate-response": 5 } });
    assert!(matches!(decode_call_result(&odd), Ok(LegacyCallOutcome::Task(h)) if h.immediate_response.is_none()));

    let plain = json!({ "content": [{ "type": "text", "text": "hi" }], "isError": true });
    match decode_call_result(&plain) {
        Ok(LegacyCallOutcome::Complete(r)) => assert!(r.is_tool_error()),
        other => panic!("{other:?}"),
    }
    // A result whose structured output happens to be called `task` (no taskId) is a result.
    let named_task = json!({ "content": [], "task": { "name": "x" } });
    assert!(matches!(decode_call_result(&named_task), Ok(LegacyCallOutcome::Complete(_))));
    // A `task` without taskId and no content is neither.
    assert!(decode_call_result(&json!({ "task": { "status": "working" } })).is_err());
}

#[test]
fn cancel_answers() {
    let cancelled = with(legacy_task_json(), "status", json!("cancelled"));
    assert_eq!(decode_cancel_result(&cancelled, "t1").unwrap().map(|t| t.status), Some(TaskStatus::Cancelled));
    assert_eq!(decode_cancel_result(&json!({}), "t1"), Ok(None), "an empty acknowledgement");
    assert_eq!(decode_cancel_result(&json!({ "resultType": "complete" }), "t1"), Ok(None));
    assert!(matches!(decode_cancel_result(&cancelled, "other"), Err(DecodeError::Invalid { .. })));
    assert_eq!(
        cancel_refusal(&RpcError::new(-32602, "Task already in terminal status")),
        CancelRefusal::NotCancellable
    );
    assert_eq!(cancel_refusal(&RpcError::new(-32603, "boom")), CancelRefusal::Other);
}

// ---------------------------------------------------------------------------------------------------------
// Hostile and malformed input

/// Whether an error is the kind a case expects.
type ErrorCheck = fn(&DecodeError) -> bool;

#[test]
fn malformed_tasks_give_typed_errors() {
    let cases: Vec<(Value, ErrorCheck)> = vec![
        (json!([legacy_task_json()]), |e| matches!(e, DecodeError::NotAnObject { .. })),
        (json!("t1"), |e| matches!(e, DecodeError::NotAnObject { .. })),
        (Value::Null, |e| matches!(e, DecodeError::NotAnObject { .. })),
        (with(legacy_task_json(), "taskId", json!(7)), |e| matches!(e, DecodeError::WrongType { .. })),
        (with(legacy_task_json(), "taskId", json!("")), |e| matches!(e, DecodeError::Invalid { .. })),
        (without(legacy_task_json(), "taskId"), |e| matches!(e, DecodeError::MissingField { field: "taskId", .. })),
        (with(legacy_task_json(), "status", json!("paused")), |e| matches!(e, DecodeError::UnknownStatus { .. })),
        (with(legacy_task_json(), "status", json!(1)), |e| matches!(e, DecodeError::WrongType { .. })),
        (without(legacy_task_json(), "createdAt"), |e| matches!(e, DecodeError::MissingField { .. })),
        (with(legacy_task_json(), "ttl", json!("60000")), |e| matches!(e, DecodeError::WrongType { .. })),
        (with(legacy_task_json(), "ttl", json!(1.5)), |e| matches!(e, DecodeError::NotAnInteger { .. })),
        (with(legacy_task_json(), "ttl", json!(-1)), |e| matches!(e, DecodeError::NotAnInteger { .. })),
        (with(legacy_task_json(), "ttl", wire_json::from_str("1e300").unwrap()), |e| {
            matches!(e, DecodeError::NotAnInteger { .. })
        }),
        (with(legacy_task_json(), "ttl", json!(9_007_199_254_740_992u64)), |e| {
            matches!(e, DecodeError::NotAnInteger { .. })
        }),
        (
            with(legacy_task_json(), "pollInterval", wire_json::from_str("123456789012345678901234567890").unwrap()),
            |e| matches!(e, DecodeError::NotAnInteger { .. }),
        ),
        (with(legacy_task_json(), "statusMessage", json!({})), |e| matches!(e, DecodeError::WrongType { .. })),
        (with(legacy_task_json(), "resultType", json!("task")), |e| {
            matches!(e, DecodeError::UnexpectedResultType { .. })
        }),
        (with(legacy_task_json(), "resultType", json!("weird")), |e| {
            matches!(e, DecodeError::UnknownResultType { .. })
        }),
    ];
    for (value, is_expected) in &cases {
        match decode_get_result(value, "t1") {
            Err(e) => assert!(is_expected(&e), "{value}: unexpected error {e:?}"),
            Ok(t) => panic!("{value} was accepted as {t:?}"),
        }
    }
    assert!(matches!(decode_get_result(&legacy_task_json(), "t2"), Err(DecodeError::Invalid { .. })), "wrong task");
    assert!(matches!(decode_call_result(&json!(5)), Err(DecodeError::NotAnObject { .. })));
    assert!(matches!(
        decode_call_result(&json!({ "task": with(legacy_task_json(), "status", json!("done")) })),
        Err(DecodeError::UnknownStatus { .. })
    ));
    assert!(matches!(decode_list_result(&json!({ "tasks": {} })), Err(DecodeError::WrongType { .. })));
    assert!(matches!(decode_list_result(&json!({})), Err(DecodeError::MissingField { .. })));
    assert!(matches!(decode_list_result(&json!({ "tasks": [1] })), Err(DecodeError::NotAnObject { .. })));
    assert!(matches!(decode_list_result(&json!({ "tasks": [], "nextCursor": 3 })), Err(DecodeError::WrongType { .. })));
}

fn init_result(version: &str, capabilities: Value) -> Value {
    json!({ "protocolVersion": version, "capabilities": capabilities, "serverInfo": { "name": "s", "version": "1" } })
}

#[test]
fn initialize_answers_are_checked() {
    let tasks = json!({ "tasks": { "requests": { "tools": { "call": {} } } } });
    let ok = decode_initialize_result(&init_result("2025-11-25", tasks.clone())).unwrap();
    assert_eq!(ok.tasks, Some(LegacyTaskCapabilities { list: false, cancel: false, tools_call: true }));

    for version in ["2026-07-28", "2025-06-18", "2024-11-05", ""] {
        assert_eq!(
            decode_initialize_result(&init_result(version, tasks.clone())),
            Err(DecodeError::UnknownProtocolVersion { found: version.to_owned() })
        );
    }
    assert!(matches!(
        decode_initialize_result(&json!({ "protocolVersion": 20251125, "capabilities": {} })),
        Err(DecodeError::WrongType { .. })
    ));
    assert!(matches!(
        decode_initialize_result(&json!({ "protocolVersion": "2025-11-25" })),
        Err(DecodeError::MissingField { field: "capabilities", .. })
    ));
    assert!(matches!(
        decode_initialize_result(&init_result("2025-11-25", json!({ "tasks": true }))),
        Err(DecodeError::WrongType { .. })
    ));
    assert!(matches!(
        decode_initialize_result(&init_result("2025-11-25", json!({ "tasks": { "requests": { "tools": [] } } }))),
        Err(DecodeError::WrongType { .. })
    ));
    assert!(matches!(decode_initialize_result(&json!("2025-11-25")), Err(DecodeError::NotAnObject { .. })));
    // Postel: serverInfo may be missing; unknown capabilities are ignored.
    let bare =
        decode_initialize_result(&json!({ "protocolVersion": "2025-11-25", "capabilities": { "x": 1 } })).unwrap();
    assert_eq!((bare.server_info, bare.tasks), (None, None));
}

#[test]
fn task_payloads_are_checked() {
    let tagged = |id: &str| {
        json!({ "content": [{ "type": "text", "text": "ok" }],
                "_meta": { "io.modelcontextprotocol/related-task": { "taskId": id } } })
    };
    assert_eq!(decode_task_payload(&Ok(tagged("t1")), "t1").unwrap().related_task.as_deref(), Some("t1"));
    assert!(matches!(decode_task_payload(&Ok(tagged("t2")), "t1"), Err(DecodeError::Invalid { .. })));
    let untagged = json!({ "content": [] });
    assert_eq!(decode_task_payload(&Ok(untagged), "t1").unwrap().related_task, None);
    let bad_tag = json!({ "content": [], "_meta": { "io.modelcontextprotocol/related-task": { "taskId": 1 } } });
    assert!(matches!(decode_task_payload(&Ok(bad_tag), "t1"), Err(DecodeError::WrongType { .. })));
    let no_content = json!({ "structuredContent": {} });
    assert!(matches!(decode_task_payload(&Ok(no_content), "t1"), Err(DecodeError::MissingField { .. })));
    assert!(matches!(decode_task_payload(&Ok(json!([])), "t1"), Err(DecodeError::NotAnObject { .. })));
    let error = RpcError::new(-32603, "the tool threw");
    assert_eq!(decode_task_payload(&Err(error.clone()), "t1").unwrap().outcome, Err(error));
}

// ---------------------------------------------------------------------------------------------------------
// Settling: legacy terminal observation -> DetailedTask

fn task(status: TaskStatus) -> Task {
    Task {
        task_id: "t1".into(),
        status,
        status_message: Some("why".into()),
        created_at: "2026-01-01T00:00:00Z".into(),
        last_updated_at: "2026-01-01T00:01:00Z".into(),
        ttl_ms: Some(60_000),
        poll_interval_ms: Some(500),
    }
}

fn payload(outcome: Result<CallToolResult, RpcError>) -> TaskPayload {
    TaskPayload { outcome, related_task: Some("t1".into()) }
}

fn tool_error() -> CallToolResult {
    let mut result = CallToolResult::text("disk full");
    result.is_error = Some(true);
    result
}

#[test]
fn settling_maps_each_terminal_observation() {
    let done = settle(task(TaskStatus::Completed), payload(Ok(CallToolResult::text("ok")))).unwrap();
    assert_eq!(done.task.status, TaskStatus::Completed);
    assert_eq!(done.detail, StatusDetail::Result(CallToolResult::text("ok")));

    // Legacy `failed` carries a tool error: the task stays failed, with that result whole.
    let failed = settle(task(TaskStatus::Failed), payload(Ok(tool_error()))).unwrap();
    assert_eq!(failed.task.status, TaskStatus::Failed);
    assert_eq!(failed.task.status_message.as_deref(), Some("why"));
    assert_eq!(failed.detail, StatusDetail::Result(tool_error()));

    // A failed task whose result forgot isError still reads as a failure.
    let forgot = settle(task(TaskStatus::Failed), payload(Ok(CallToolResult::text("disk full")))).unwrap();
    assert!(matches!(&forgot.detail, StatusDetail::Result(r) if r.is_tool_error()));

    // A JSON-RPC error from tasks/result is the failure itself.
    let error = RpcError::new(-32603, "internal");
    for status in [TaskStatus::Failed, TaskStatus::Completed, TaskStatus::Working] {
        let settled = settle(task(status), payload(Err(error.clone()))).unwrap();
        assert_eq!(settled.task.status, TaskStatus::Failed);
        assert_eq!(settled.detail, StatusDetail::Error(error.clone()));
    }

    // Cancelled stays cancelled.
    let cancelled = settle(task(TaskStatus::Cancelled), payload(Ok(CallToolResult::text("late")))).unwrap();
    assert_eq!((cancelled.task.status, cancelled.detail), (TaskStatus::Cancelled, StatusDetail::None));

    // Another task's payload is refused.
    let foreign = TaskPayload { outcome: Ok(CallToolResult::text("x")), related_task: Some("t9".into()) };
    assert!(matches!(settle(task(TaskStatus::Completed), foreign), Err(DecodeError::Invalid { .. })));
}

#[test]
fn settled_tasks_survive_the_2026_codec() {
    // What the record machine stores and reloads goes through the 2026 DetailedTask codec: the mapping
    // must come back unchanged, a failed task with the tool's error result among them.
    for (status, outcome) in [
        (TaskStatus::Completed, Ok(CallToolResult::text("ok"))),
        (TaskStatus::Failed, Ok(tool_error())),
        (TaskStatus::Failed, Err(RpcError::new(-32000, "rejected").with_data(json!({ "reason": "freeze" })))),
        (TaskStatus::Cancelled, Ok(CallToolResult::text("ignored"))),
    ] {
        let settled = settle(task(status), payload(outcome)).unwrap();
        assert_eq!(decode_get_task_result(&settled.to_get_result()), Ok(settled.clone()));
        assert_eq!(DetailedTask::from_json(&settled.to_get_result()).as_ref(), Ok(&settled));
    }
}

#[test]
fn live_observations_carry_pending_input() {
    assert_eq!(live_observation(task(TaskStatus::Working), &InputRequests::new()).unwrap().detail, StatusDetail::None);
    let mut pending = InputRequests::new();
    pending.insert(
        "jsonrpc-id:n:3".into(),
        InputRequest::Elicitation(ElicitRequest::Form {
            message: "ok?".into(),
            requested_schema: json!({ "type": "object", "properties": {} }),
        }),
    );
    let waiting = live_observation(task(TaskStatus::InputRequired), &pending).unwrap();
    assert_eq!(waiting.detail, StatusDetail::InputRequests(pending.clone()));
    assert_eq!(live_observation(task(TaskStatus::Cancelled), &pending).unwrap().detail, StatusDetail::None);
    assert_eq!(live_observation(task(TaskStatus::Completed), &pending), None);
    let before_any = waiting_observation(task(TaskStatus::InputRequired), &InputRequests::new()).unwrap();
    assert_eq!(before_any.task.status, TaskStatus::Working, "no question yet: shown working");
    assert_eq!(
        waiting_observation(task(TaskStatus::InputRequired), &pending).unwrap().task.status,
        TaskStatus::InputRequired
    );
    assert_eq!(live_observation(task(TaskStatus::Failed), &pending), None);
}

// ---------------------------------------------------------------------------------------------------------
// Server messages on the stream

#[test]
fn an_elicitation_becomes_an_input_request_keyed_by_its_id() {
    let text = r#"{"jsonrpc":"2.0","id":17,"method":"elicitation/create","params":{"mode":"form","message":"Deploy web to staging?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}"#;
    let LegacyServerMessage::Elicitation(e) = decode_stream_message(text).unwrap() else { panic!("an elicitation") };
    assert_eq!(e.id, RequestId::Number(17));
    assert_eq!(e.key, "jsonrpc-id:n:17");
    assert_eq!(e.related_task.as_deref(), Some("t1"));
    assert_eq!(e.elicitation_id, None);
    let (key, request) = e.input_entry();
    assert_eq!(request_id_for_key(&key), Some(RequestId::Number(17)));
    assert_eq!(request_id_for_key("jsonrpc-id:n:-9223372036854775808"), Some(RequestId::Number(i64::MIN)));
    for not_made in
        ["jsonrpc-id:n:007", "jsonrpc-id:n:+17", "jsonrpc-id:n:-0", "jsonrpc-id:n:9223372036854775808", "jsonrpc-id:n:"]
    {
        assert_eq!(request_id_for_key(not_made), None, "{not_made}");
    }
    // The inputRequests entry shape the host API shows: {method, params:{mode, message, requestedSchema}}.
    assert_eq!(
        request.to_json(),
        json!({ "method": "elicitation/create", "params": { "mode": "form", "message": "Deploy web to staging?",
                "requestedSchema": { "type": "object", "properties": { "confirm": { "type": "boolean" } }, "required": ["confirm"] } } })
    );

    // The answer goes back to the same id, tagged with the task.
    let mut content = mcp_tasks_web::json::Map::new();
    content.insert("confirm".into(), json!(true));
    assert_eq!(
        encode_input_answer(
            &request_id_for_key(&key).unwrap(),
            e.related_task.as_deref(),
            &InputResponse::accept(content)
        ),
        json!({ "jsonrpc": "2.0", "id": 17, "result": { "action": "accept", "content": { "confirm": true },
                "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } } })
    );
    assert_eq!(
        encode_input_answer(&RequestId::Text("e".into()), None, &InputResponse::action(ElicitAction::Decline)),
        json!({ "jsonrpc": "2.0", "id": "e", "result": { "action": "decline" } })
    );
}

#[test]
fn url_elicitations_and_missing_mode() {
    let url = r#"{"jsonrpc":"2.0","id":"abc","method":"elicitation/create","params":{"mode":"url","message":"Log in","url":"https://idp.example/login","elicitationId":"el-1"}}"#;
    let LegacyServerMessage::Elicitation(e) = decode_stream_message(url).unwrap() else { panic!("an elicitation") };
    assert_eq!(e.key, "jsonrpc-id:s:abc");
    assert_eq!(e.elicitation_id.as_deref(), Some("el-1"));
    assert_eq!(e.related_task, None);
    assert!(
        matches!(e.request, InputRequest::Elicitation(ElicitRequest::Url { ref url, .. }) if url == "https://idp.example/login")
    );
    // No mode is form mode.
    let bare = r#"{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}"#;
    assert!(
        matches!(decode_stream_message(bare), Ok(LegacyServerMessage::Elicitation(e)) if matches!(e.request, InputRequest::Elicitation(ElicitRequest::Form { .. })))
    );
}

#[test]
fn input_keys_are_stable_distinct_and_reversible() {
    assert_eq!(input_key(&RequestId::Number(5)), input_key(&RequestId::Number(5)));
    assert_ne!(input_key(&RequestId::Number(5)), input_key(&RequestId::Text("5".into())));
    for id in [
        RequestId::Number(0),
        RequestId::Number(-12),
        RequestId::Number(i64::MAX),
        RequestId::Text(String::new()),
        RequestId::Text("n:5".into()),
        RequestId::Text("é 1".into()),
    ] {
        assert_eq!(request_id_for_key(&input_key(&id)), Some(id.clone()), "{id:?}");
    }
    for other in [
        "",
        "5",
        "jsonrpc-id:",
        "jsonrpc-id:n:",
        "jsonrpc-id:n:007",
        "jsonrpc-id:n:+5",
        "jsonrpc-id:n:1.0",
        "jsonrpc-id:x:1",
        "jsonrpc-id:n:99999999999999999999",
    ] {
        assert_eq!(request_id_for_key(other), None, "{other:?}");
    }
}

#[test]
fn unsupported_and_unreadable_requests_get_an_answer() {
    for (text, method) in [
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}"#,
            "sampling/createMessage",
        ),
        (r#"{"jsonrpc":"2.0","id":6,"method":"roots/list"}"#, "roots/list"),
        (r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#, "ping"),
    ] {
        match decode_stream_message(text).unwrap() {
            LegacyServerMessage::Unsupported { id, method: m } => {
                assert_eq!(m, method);
                let answer = encode_method_not_found(&id, &m);
                assert_eq!(answer.pointer("/error/code"), Some(&json!(-32601)));
                assert_eq!(answer.get("id"), Some(&id_value(&id)));
                assert!(answer.get("result").is_none());
            }
            other => panic!("{method}: {other:?}"),
        }
    }
    // A client that chooses to serve `ping` answers with an empty result.
    assert_eq!(
        encode_result_response(&RequestId::Number(7), json!({})),
        json!({ "jsonrpc": "2.0", "id": 7, "result": {} })
    );
    // An elicitation the client cannot read still gets an answer (-32602), not silence.
    let bad = r#"{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"mode":"telepathy","message":"m"}}"#;
    let LegacyServerMessage::InvalidRequest { id, method, error } = decode_stream_message(bad).unwrap() else {
        panic!("invalid")
    };
    assert_eq!((id.clone(), method.as_str()), (RequestId::Number(8), "elicitation/create"));
    assert_eq!(encode_invalid_params(&id, &error).pointer("/error/code"), Some(&json!(-32602)));
    let no_params = r#"{"jsonrpc":"2.0","id":9,"method":"elicitation/create"}"#;
    assert!(matches!(decode_stream_message(no_params), Ok(LegacyServerMessage::InvalidRequest { .. })));
    // A request with a null id cannot be answered: an envelope error.
    let null_id = r#"{"jsonrpc":"2.0","id":null,"method":"elicitation/create","params":{}}"#;
    assert!(matches!(decode_stream_message(null_id), Err(DecodeError::InvalidEnvelope { .. })));
    assert_eq!(
        encode_error_response(None, &RpcError::new(-32700, "parse error")),
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": "parse error" } })
    );
}

fn id_value(id: &RequestId) -> Value {
    match id {
        RequestId::Number(n) => json!(*n),
        RequestId::Text(s) => json!(s.as_str()),
    }
}

#[test]
fn notifications_on_the_stream() {
    let status = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"input_required","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:01Z","ttl":null}}"#;
    match decode_stream_message(status).unwrap() {
        LegacyServerMessage::TaskStatus(t) => {
            assert_eq!((t.status, t.ttl_ms), (TaskStatus::InputRequired, None));
        }
        other => panic!("{other:?}"),
    }
    let bad_status = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"sleeping","createdAt":"x","ttl":1}}"#;
    assert!(matches!(decode_stream_message(bad_status), Err(DecodeError::UnknownStatus { .. })));

    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":2,"total":3,"message":"compiling"}}"#;
    match decode_stream_message(progress).unwrap() {
        LegacyServerMessage::Notification { method, params } if method == "notifications/progress" => {
            let p = decode_progress(&params).unwrap();
            assert_eq!((p.token, p.related_task), (json!("p-1"), None));
            let total = p.total.as_ref().map(ToString::to_string);
            assert_eq!(
                (p.progress.to_string().as_str(), total.as_deref(), p.message.as_deref()),
                ("2", Some("3"), Some("compiling"))
            );
        }
        other => panic!("{other:?}"),
    }
    for (params, what) in [
        (r#"{"progressToken":true,"progress":1}"#, "boolean token"),
        (r#"{"progressToken":1.5,"progress":1}"#, "fractional token"),
        (r#"{"progressToken":1,"progress":"1"}"#, "string progress"),
        (r#"{"progressToken":1}"#, "missing progress"),
        (r#"{"progress":1}"#, "missing token"),
        (r#"{"progressToken":1,"progress":1,"total":"3"}"#, "string total"),
        (
            r#"{"progressToken":1,"progress":1,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":7}}}"#,
            "numeric related task",
        ),
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{params}}}"#);
        let Ok(LegacyServerMessage::Notification { params, .. }) = decode_stream_message(&text) else {
            panic!("{what}: a progress notification is passed on undecoded")
        };
        assert!(decode_progress(&params).is_err(), "{what} is refused");
    }

    // The numbers keep their wire text, and a tagged notification names its task.
    let tagged = mcp_tasks_web::json::from_str(
        r#"{"progressToken":7,"progress":0.50,"total":1e400,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}"#,
    )
    .unwrap();
    let p = decode_progress(&tagged).unwrap();
    assert_eq!((p.token, p.related_task.as_deref()), (json!(7), Some("t1")));
    assert_eq!((p.progress.to_string(), p.total.map(|t| t.to_string())), ("0.50".to_owned(), Some("1e400".to_owned())));

    let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
    assert!(
        matches!(decode_stream_message(log), Ok(LegacyServerMessage::Notification { method, .. }) if method == "notifications/message")
    );
}

#[test]
fn envelope_errors_on_the_stream() {
    for text in [
        "",
        "not json",
        "[]",
        r#"{"id":1,"result":{}}"#,
        r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":5}"#,
        r#"{"jsonrpc":"2.0","method":7}"#,
    ] {
        assert!(decode_stream_message(text).is_err(), "{text:?} is refused");
    }
}

// ---------------------------------------------------------------------------------------------------------
// tools/list and the taskSupport rule

#[test]
fn task_support_is_read_with_its_default() {
    assert_eq!(task_support(&json!({ "name": "a" })), Ok(TaskSupport::Forbidden));
    assert_eq!(task_support(&json!({ "name": "a", "execution": {} })), Ok(TaskSupport::Forbidden));
    assert_eq!(task_support(&json!({ "name": "a", "execution": null })), Ok(TaskSupport::Forbidden));
    assert_eq!(
        task_support(&json!({ "name": "a", "execution": { "taskSupport": "optional" } })),
        Ok(TaskSupport::Optional)
    );
    assert_eq!(
        task_support(&json!({ "name": "a", "execution": { "taskSupport": "required" } })),
        Ok(TaskSupport::Required)
    );
    assert_eq!(
        task_support(&json!({ "name": "a", "execution": { "taskSupport": "preferred" } })),
        Ok(TaskSupport::Forbidden),
        "unknown values take the safe default"
    );
    assert!(matches!(
        task_support(&json!({ "name": "a", "execution": "required" })),
        Err(DecodeError::WrongType { .. })
    ));
    assert!(matches!(
        task_support(&json!({ "name": "a", "execution": { "taskSupport": true } })),
        Err(DecodeError::WrongType { .. })
    ));
    assert!(matches!(
        decode_tool_page(&json!({ "tools": [{ "execution": {} }] })),
        Err(DecodeError::MissingField { field: "name", .. })
    ));
    assert!(matches!(decode_tool_page(&json!({ "tools": "x" })), Err(DecodeError::WrongType { .. })));
    let page = decode_tool_page(&json!({ "tools": [], "nextCursor": "n2" })).unwrap();
    assert_eq!(page.next_cursor.as_deref(), Some("n2"));
}

#[test]
fn params_task_needs_the_server_flag_and_the_tool_flag() {
    let declared = LegacyTaskCapabilities { list: false, cancel: false, tools_call: true };
    let undeclared = LegacyTaskCapabilities { list: true, cancel: true, tools_call: false };
    let table = [
        (None, TaskSupport::Forbidden, false),
        (None, TaskSupport::Optional, false),
        (None, TaskSupport::Required, false),
        (Some(undeclared), TaskSupport::Forbidden, false),
        (Some(undeclared), TaskSupport::Optional, false),
        (Some(undeclared), TaskSupport::Required, false),
        (Some(declared), TaskSupport::Forbidden, false),
        (Some(declared), TaskSupport::Optional, true),
        (Some(declared), TaskSupport::Required, true),
    ];
    for (caps, support, expected) in table {
        assert_eq!(attach_task(caps.as_ref(), support), expected, "{caps:?} / {support:?}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Negotiation

fn discover(versions: &[&str], tasks: bool) -> DiscoverOutcome {
    let capabilities = if tasks { json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } }) } else { json!({}) };
    let result = json!({ "resultType": "complete", "supportedVersions": versions, "capabilities": capabilities,
                         "ttlMs": 0, "cacheScope": "private" });
    DiscoverOutcome::Result(DiscoverResult::from_json(&result).unwrap())
}

fn rpc(http_status: u16, code: i64, data: Option<Value>) -> DiscoverOutcome {
    let error = RpcError::new(code, "m");
    DiscoverOutcome::Error {
        http_status,
        error: match data {
            Some(d) => error.with_data(d),
            None => error,
        },
    }
}

#[test]
fn the_discover_table() {
    // The TS SDK v1 answer to any request without a session, as a client receives it.
    let no_session =
        r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;
    let Ok(LegacyServerMessage::Response(response)) = decode_stream_message(no_session) else { panic!("decodes") };
    let sdk_v1 = DiscoverOutcome::Error { http_status: 400, error: response.outcome.unwrap_err() };

    let table = [
        (discover(&["2026-07-28"], true), DiscoverVerdict::Extension2026),
        (discover(&["2026-07-28", "2025-11-25"], true), DiscoverVerdict::Extension2026),
        (discover(&["2026-07-28", "2025-11-25"], false), DiscoverVerdict::TryInitialize),
        (discover(&["2026-07-28"], false), DiscoverVerdict::NoTasks),
        (discover(&["2027-01-01"], true), DiscoverVerdict::NoTasks),
        (discover(&["2025-11-25"], false), DiscoverVerdict::TryInitialize),
        (sdk_v1, DiscoverVerdict::TryInitialize),
        (rpc(404, -32601, None), DiscoverVerdict::TryInitialize),
        (rpc(200, -32601, None), DiscoverVerdict::TryInitialize),
        (rpc(400, -32600, None), DiscoverVerdict::TryInitialize),
        (
            rpc(400, -32022, Some(json!({ "supported": ["2025-11-25"], "requested": "2026-07-28" }))),
            DiscoverVerdict::TryInitialize,
        ),
        (
            rpc(400, -32022, Some(json!({ "supported": ["2024-11-05"], "requested": "2026-07-28" }))),
            DiscoverVerdict::NoTasks,
        ),
        (rpc(400, -32022, None), DiscoverVerdict::TryInitialize),
        (rpc(400, -32020, None), DiscoverVerdict::Unresolved),
        (rpc(400, -32021, None), DiscoverVerdict::Unresolved),
        (rpc(500, -32603, None), DiscoverVerdict::Unresolved),
        (rpc(401, -32000, None), DiscoverVerdict::Unresolved),
        (rpc(503, -32000, None), DiscoverVerdict::Unresolved),
        (DiscoverOutcome::Http { status: 400 }, DiscoverVerdict::TryInitialize),
        (DiscoverOutcome::Http { status: 404 }, DiscoverVerdict::TryInitialize),
        (DiscoverOutcome::Http { status: 405 }, DiscoverVerdict::TryInitialize),
        (DiscoverOutcome::Http { status: 401 }, DiscoverVerdict::Unresolved),
        (DiscoverOutcome::Http { status: 403 }, DiscoverVerdict::Unresolved),
        (DiscoverOutcome::Http { status: 429 }, DiscoverVerdict::Unresolved),
        (DiscoverOutcome::Http { status: 200 }, DiscoverVerdict::Unresolved),
        (DiscoverOutcome::Http { status: 502 }, DiscoverVerdict::Unresolved),
    ];
    for (outcome, expected) in &table {
        assert_eq!(after_discover(outcome), *expected, "{outcome:?}");
    }
}

#[test]
fn the_initialize_table() {
    let tasks = json!({ "tasks": { "list": {}, "requests": { "tools": { "call": {} } } } });
    let table = [
        (decode_initialize_result(&init_result("2025-11-25", tasks.clone())), Generation::Legacy2025),
        (decode_initialize_result(&init_result("2026-07-28", tasks.clone())), Generation::NoTasks),
        (decode_initialize_result(&init_result("2025-11-25", json!({ "tools": {} }))), Generation::NoTasks),
        (
            decode_initialize_result(&init_result("2025-11-25", json!({ "tasks": { "list": {}, "cancel": {} } }))),
            Generation::NoTasks,
        ),
        (decode_initialize_result(&json!({ "protocolVersion": "2025-11-25" })), Generation::NoTasks),
        // A 2026 server's answer to a 2025 initialize (tests/fixtures/spec/wire-transcript.txt): no tasks there.
        (
            decode_initialize_result(&json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": {} },
                "serverInfo": { "name": "mcp-tasks-peer", "version": "0.1.0" }, "instructions": "MCP Tasks peer" })),
            Generation::NoTasks,
        ),
    ];
    for (answer, expected) in &table {
        assert_eq!(after_initialize(answer), *expected, "{answer:?}");
    }
}

#[test]
fn the_capture_message_shapes_match_the_generic_envelope_decoder() {
    // Every server message of the capture is also a valid JSON-RPC response for the crate's envelope
    // decoder (the legacy decoder builds on it, so a divergence would show here first).
    for ex in parse_capture() {
        for message in ex.messages {
            assert!(matches!(decode_message_value(message), Ok(Incoming::Response(_))));
        }
    }
}
