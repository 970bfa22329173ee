//! The door against a 2025-11-25 server, answered with the shapes the official TypeScript SDK v1
//! 1.32.2 sends (`tests/fixtures/spec/wire-ts-sdk-v1-2025-11-25.txt`): era detection, the session,
//! a task called, polled, asked about, answered and settled.
use super::*;
use crate::machine::stored::to_stored;

const SESSION: &str = "234e57dd-b4d9-4ab8-ab2a-7141e16727dc";

fn method(send: &Value) -> String {
    request(send).get("method").and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// The value of header `name` in a `send` effect (`[name, value, …]`).
fn header<'a>(send: &'a Value, name: &str) -> Option<&'a str> {
    let pairs = send.get("headers").and_then(Value::as_array).unwrap();
    pairs.chunks(2).find(|p| p[0].as_str() == Some(name)).and_then(|p| p[1].as_str())
}

fn sends(effects: &[Value]) -> Vec<Value> {
    effects.iter().filter(|e| e.get("do").and_then(Value::as_str) == Some("send")).cloned().collect()
}

/// Answers `send` as the SDK does: an event stream holding `message`, with the session header.
fn stream_answer(door: &mut Door, now: u64, send: &Value, message: &Value) -> Vec<Value> {
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    let head = json!({ "e": "answer", "n": n, "status": 200, "sse": true, "session": SESSION });
    let mut out = door.handle(now, &head, &[]);
    let chunk = format!("event: message\ndata: {message}\n\n");
    out.extend(door.handle(now, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes()));
    out
}

fn result_of(send: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": request(send).get("id").unwrap().clone(), "result": result })
}

/// A bare status (the 202 of a notification or a response).
fn status(door: &mut Door, now: u64, send: &Value, status: u16, body: &str) -> Vec<Value> {
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    door.handle(now, &json!({ "e": "answer", "n": n, "status": status }), body.as_bytes())
}

fn legacy_task(status: &str) -> Value {
    json!({ "taskId": "t1", "status": status, "ttl": 60000, "createdAt": "2026-08-01T09:00:00Z",
            "lastUpdatedAt": "2026-08-01T09:00:05Z", "pollInterval": 500 })
}

fn initialize_result() -> Value {
    json!({ "protocolVersion": "2025-11-25",
            "capabilities": { "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } } },
            "serverInfo": { "name": "peer", "version": "0.1.0" } })
}

/// The SDK's refusal of a request without a session.
const NO_SESSION: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;

/// From a call to a stored task `t1` on a 2025-11-25 server: the era detection, the session, the
/// tools' task support and the call with `params.task`. The effects of the write's acknowledgement.
fn legacy_call(door: &mut Door) -> Vec<Value> {
    feed(door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(door, NOW, r#"{"e":"call","x":2,"name":"build","arguments":{"seconds":3}}"#);
    assert_eq!(method(the(&out, "send")), "tools/call", "a server of unknown generation gets 2026-07-28 first");
    let out = status(door, NOW, the(&out, "send"), 400, NO_SESSION);
    assert_eq!(method(the(&out, "send")), "server/discover", "a refusal that may mean an older server: {out:?}");
    let out = status(door, NOW, the(&out, "send"), 400, NO_SESSION);
    let init = the(&out, "send").clone();
    assert_eq!(method(&init), "initialize");
    assert_eq!(header(&init, "Mcp-Session-Id"), None);
    let out = stream_answer(door, NOW, &init, &result_of(&init, initialize_result()));
    let ack = the(&out, "send").clone();
    assert_eq!(method(&ack), "notifications/initialized");
    assert_eq!(header(&ack, "Mcp-Session-Id"), Some(SESSION));
    assert_eq!(header(&ack, "MCP-Protocol-Version"), Some("2025-11-25"));
    let out = status(door, NOW, &ack, 202, "");
    let saved = the(&out, "save");
    assert!(saved.get("key").and_then(Value::as_str).unwrap().ends_with("server"), "{saved:?}");
    assert!(saved.get("text").and_then(Value::as_str).unwrap().contains(SESSION), "the session is remembered");
    let list = the(&out, "send").clone();
    assert_eq!(method(&list), "tools/list", "the tool's task support is read first");
    let tools = json!({ "tools": [{ "name": "build", "inputSchema": { "type": "object" }, "execution": { "taskSupport": "optional" } }] });
    let out = stream_answer(door, NOW, &list, &result_of(&list, tools));
    let call = the(&out, "send").clone();
    let params = request(&call).get("params").unwrap().clone();
    assert_eq!(method(&call), "tools/call");
    assert!(params.get("task").is_some(), "a task is asked for: {params:?}");
    assert!(params.pointer("/_meta/progressToken").and_then(Value::as_str).unwrap().starts_with("call-"));
    assert_eq!(header(&call, "Mcp-Session-Id"), Some(SESSION));
    let out = stream_answer(door, NOW, &call, &result_of(&call, json!({ "task": legacy_task("working") })));
    assert!(kinds(&out).contains(&"put"), "{out:?}");
    let out = feed(door, NOW, r#"{"e":"written","ok":true}"#);
    let snapshot = the(&out, "done").get("value").and_then(|v| v.get("task")).unwrap().clone();
    assert_eq!(snapshot.get("taskId").and_then(Value::as_str), Some("t1"));
    out
}

/// Task `t1` called, then polled as `input_required`: the `send` of its `tasks/result` stream, whose
/// event-stream head has come (its questions come as chunks).
fn waiting_task_stream(door: &mut Door) -> Value {
    let out = legacy_call(door);
    let out = feed(door, timer(&out), r#"{"e":"tick"}"#);
    let get = the(&out, "send").clone();
    let out = stream_answer(door, NOW + 500, &get, &result_of(&get, legacy_task("input_required")));
    let stream = sends(&out).into_iter().find(|s| method(s) == "tasks/result").expect("the task's stream opens");
    feed(door, NOW + 500, r#"{"e":"written","ok":true}"#);
    let n = stream.get("n").and_then(Value::as_u64).unwrap();
    door.handle(NOW + 500, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]);
    stream
}

#[test]
fn a_2025_server_is_detected_and_its_task_polled_and_settled_with_its_result() {
    let mut door = open();
    let out = legacy_call(&mut door);
    let out = feed(&mut door, timer(&out), r#"{"e":"tick"}"#);
    let get = the(&out, "send").clone();
    assert_eq!(method(&get), "tasks/get");
    assert_eq!(header(&get, "Mcp-Session-Id"), Some(SESSION));
    let out = stream_answer(&mut door, NOW + 500, &get, &result_of(&get, legacy_task("completed")));
    let fetch = the(&out, "send").clone();
    assert_eq!(method(&fetch), "tasks/result", "an ended task's outcome is asked for");
    let result = json!({ "content": [{ "type": "text", "text": "built" }],
                         "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } });
    let out = stream_answer(&mut door, NOW + 500, &fetch, &result_of(&fetch, result));
    assert!(kinds(&out).contains(&"put"), "{out:?}");
    feed(&mut door, NOW + 500, r#"{"e":"written","ok":true}"#);
    let out = feed(&mut door, NOW + 500, r#"{"e":"wait","x":9,"id":"t1"}"#);
    let done = the(&out, "done").get("value").unwrap();
    assert_eq!(done.get("status").and_then(Value::as_str), Some("completed"));
    assert_eq!(done.pointer("/result/content/0/text").and_then(Value::as_str), Some("built"));
}

#[test]
fn questions_come_on_the_result_stream_and_answers_go_as_responses() {
    let mut door = open();
    let stream = waiting_task_stream(&mut door);
    assert_eq!(stream.get("stream").and_then(Value::as_bool), Some(true), "a stream has no timeout");
    let n = stream.get("n").and_then(Value::as_u64).unwrap();
    let question = json!({ "jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {
        "mode": "form", "message": "Deploy?", "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } },
        "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } } });
    let chunk = format!("event: message\ndata: {question}\n\n");
    let out = door.handle(NOW + 600, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes());
    assert!(kinds(&out).contains(&"put"), "the question is stored with the task: {out:?}");
    feed(&mut door, NOW + 600, r#"{"e":"written","ok":true}"#);
    let snapshot = door.snapshot("t1");
    assert_eq!(snapshot.get("status").and_then(Value::as_str), Some("input_required"));
    let requests = snapshot.get("inputRequests").and_then(Value::as_object).unwrap();
    let key = requests.keys().next().unwrap().to_owned();

    let respond = format!(
        r#"{{"e":"respond","x":10,"id":"t1","answers":{{{}:{{"action":"accept","content":{{"ok":true}}}}}}}}"#,
        Value::from(key.as_str())
    );
    let mut out = feed(&mut door, NOW + 700, &respond);
    assert!(kinds(&out).contains(&"put"), "the answer is stored: {out:?}");
    out.extend(feed(&mut door, NOW + 700, r#"{"e":"written","ok":true}"#));
    let reply = sends(&out).into_iter().find(|s| request(s).get("result").is_some()).expect("a JSON-RPC response");
    let body = request(&reply);
    assert_eq!(body.get("id"), Some(&json!(7)), "answers the server's request id");
    assert_eq!(body.pointer("/result/action").and_then(Value::as_str), Some("accept"));
    assert_eq!(
        body.pointer("/result/_meta/io.modelcontextprotocol~1related-task/taskId").and_then(Value::as_str),
        Some("t1")
    );
    assert_eq!(header(&reply, "Mcp-Session-Id"), Some(SESSION));
    let out = status(&mut door, NOW + 800, &reply, 202, "");
    assert!(kinds(&out).contains(&"put"), "the answer's delivery is stored: {out:?}");
    let ledger = format!("{:?}", door.state.record("t1").unwrap().ledger());
    assert!(!ledger.contains("Queued"), "nothing is left to send: {ledger}");
}

#[test]
fn a_forgotten_session_is_opened_anew_and_the_request_sent_once_more() {
    let mut door = open();
    let out = legacy_call(&mut door);
    let out = feed(&mut door, timer(&out), r#"{"e":"tick"}"#);
    let get = the(&out, "send").clone();
    let out = status(&mut door, NOW + 500, &get, 404, "");
    let init = the(&out, "send").clone();
    assert_eq!(method(&init), "initialize", "a 404 in a session opens a new one");
    let next =
        json!({ "jsonrpc": "2.0", "id": request(&init).get("id").unwrap().clone(), "result": initialize_result() });
    let n = init.get("n").and_then(Value::as_u64).unwrap();
    let head = json!({ "e": "answer", "n": n, "status": 200, "session": "s-2" });
    let out = door.handle(NOW + 500, &head, next.to_string().as_bytes());
    let out = status(&mut door, NOW + 500, the(&out, "send"), 202, "");
    let again = sends(&out).into_iter().find(|s| method(s) == "tasks/get").expect("the poll goes once more");
    assert_eq!(header(&again, "Mcp-Session-Id"), Some("s-2"), "in the new session");
    let out = status(&mut door, NOW + 500, &again, 404, "");
    assert!(sends(&out).iter().all(|s| method(s) != "initialize"), "only once: {out:?}");
}

#[test]
fn a_stored_link_skips_the_detection_and_a_2026_server_never_starts_it() {
    let mut door = open();
    let key = door.state.keys().server();
    let link = json!({ "protocol": "2025-11-25", "session": "s-9", "tasks": { "list": true, "cancel": true, "toolsCall": true } });
    let restore = json!({ "e": "restore", "x": 1, "entries": [[key, link.to_string()]] });
    listed(&mut door, NOW, restore);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let list = the(&out, "send");
    assert_eq!(method(list), "tools/list", "straight into the stored session");
    assert_eq!(header(list, "Mcp-Session-Id"), Some("s-9"));

    let mut modern = open();
    feed(&mut modern, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut modern, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let out = status(&mut modern, NOW, the(&out, "send"), 401, "");
    assert!(sends(&out).is_empty(), "an authorization failure says nothing of the era: {out:?}");
    assert_eq!(the(&out, "done").pointer("/error/name").and_then(Value::as_str), Some("AuthError"));
}

#[test]
fn questions_for_no_task_of_ours_and_pings_are_answered_at_once() {
    let mut door = open();
    let n = waiting_task_stream(&mut door).get("n").and_then(Value::as_u64).unwrap();
    let stranger = json!({ "jsonrpc": "2.0", "id": "q", "method": "elicitation/create", "params": {
        "mode": "form", "message": "?", "requestedSchema": { "type": "object", "properties": {} },
        "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "someone-else" } } } });
    let ping = json!({ "jsonrpc": "2.0", "id": "p", "method": "ping" });
    let chunk = format!("data: {stranger}\n\ndata: {ping}\n\n");
    let out = door.handle(NOW + 600, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes());
    let replies: Vec<Value> = sends(&out).iter().map(request).collect();
    assert!(replies
        .iter()
        .any(|r| r.get("id") == Some(&json!("q")) && r.pointer("/error/code") == Some(&json!(-32601))));
    assert!(replies.iter().any(|r| r.get("id") == Some(&json!("p")) && r.get("result") == Some(&json!({}))));
}

/// The last state `tasks/get` gives of task `t1` as it ends: `status`, with the server's final message.
fn ended_task(status: &str) -> Value {
    let Value::Object(mut task) = legacy_task(status) else { unreachable!("a task is an object") };
    task.put("statusMessage", Value::from("attempt 2: gave up"));
    Value::Object(task)
}

/// The tool's own error result, as a TypeScript SDK v1 tool stores it for a failed task.
fn tool_error_result() -> Value {
    json!({ "content": [{ "type": "text", "text": "build cache unavailable" }], "isError": true,
            "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } })
}

/// Asserts `t1` settled `status` with the server's final message and (`failed`) the tool's error
/// result, in the snapshot, in `wait`, and in the record the store would reload.
fn assert_settled(door: &mut Door, status: &str, with_result: bool) {
    let out = feed(door, NOW + 900, r#"{"e":"wait","x":9,"id":"t1"}"#);
    let waited = the(&out, "done").get("value").unwrap().clone();
    for snapshot in [door.snapshot("t1"), waited] {
        assert_eq!(snapshot.get("status").and_then(Value::as_str), Some(status), "{snapshot:?}");
        assert_eq!(snapshot.get("statusMessage").and_then(Value::as_str), Some("attempt 2: gave up"));
        assert_eq!(snapshot.get("error"), Some(&Value::Null), "the tool's error is no JSON-RPC error");
        if with_result {
            assert_eq!(snapshot.pointer("/result/isError"), Some(&json!(true)));
            assert_eq!(
                snapshot.pointer("/result/content/0/text").and_then(Value::as_str),
                Some("build cache unavailable")
            );
        } else {
            assert_eq!(snapshot.get("result"), Some(&Value::Null));
        }
    }
    let stored = to_stored(door.state.record("t1").unwrap()).to_string();
    let record = crate::machine::stored::from_stored::<crate::machine::record::TaskRecord>(&from_str(&stored).unwrap())
        .expect("the settled record reloads");
    assert_eq!(record.status().as_str(), status);
    assert_eq!(
        matches!(&record.last().detail, crate::protocol::task::StatusDetail::Result(_)),
        with_result,
        "{stored}"
    );
}

/// Task `t1` called, then polled once: the effects of `tasks/get` answering with `task`.
fn polled_as(door: &mut Door, task: Value) -> Vec<Value> {
    let out = legacy_call(door);
    let out = feed(door, timer(&out), r#"{"e":"tick"}"#);
    let get = the(&out, "send").clone();
    stream_answer(door, NOW + 500, &get, &result_of(&get, task))
}

/// Task `t1` called, and the session's GET stream (open for a live task) telling its status `task`:
/// the effects of that notification.
fn told_on_the_session_stream(door: &mut Door, task: Value) -> Vec<Value> {
    let out = legacy_call(door);
    let get = sends(&out).into_iter().find(|s| s.get("body").and_then(Value::as_str) == Some(""));
    let n = get.expect("the session's GET stream opens for a live task").get("n").and_then(Value::as_u64).unwrap();
    door.handle(NOW + 100, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]);
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task });
    let chunk = format!("event: message\ndata: {note}\n\n");
    door.handle(NOW + 200, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes())
}

/// Task `t1` waiting for input, its `tasks/result` stream answering with `response` (built for the
/// stream's request), then the next poll answering with `task`: the effects of that poll.
fn result_stream_first(door: &mut Door, response: impl Fn(&Value) -> Value, task: Value) -> Vec<Value> {
    let stream = waiting_task_stream(door);
    let n = stream.get("n").and_then(Value::as_u64).unwrap();
    let chunk = format!("event: message\ndata: {}\n\n", response(&stream));
    let out = door.handle(NOW + 600, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes());
    let out = feed(door, timer(&out).max(NOW + 1_000), r#"{"e":"tick"}"#);
    let get = sends(&out).into_iter().find(|s| method(s) == "tasks/get").expect("the next poll");
    stream_answer(door, NOW + 1_000, &get, &result_of(&get, task))
}

#[test]
fn a_task_the_server_failed_stays_failed_with_its_result_when_polled() {
    let mut door = open();
    let out = polled_as(&mut door, ended_task("failed"));
    let fetch = the(&out, "send").clone();
    assert_eq!(method(&fetch), "tasks/result");
    stream_answer(&mut door, NOW + 500, &fetch, &result_of(&fetch, tool_error_result()));
    feed(&mut door, NOW + 500, r#"{"e":"written","ok":true}"#);
    assert_settled(&mut door, "failed", true);
}

#[test]
fn a_task_the_server_failed_stays_failed_when_its_status_notification_comes_first() {
    let mut door = open();
    let out = told_on_the_session_stream(&mut door, ended_task("failed"));
    let fetch = sends(&out).into_iter().find(|s| method(s) == "tasks/result").expect("the outcome is asked for");
    stream_answer(&mut door, NOW + 300, &fetch, &result_of(&fetch, tool_error_result()));
    feed(&mut door, NOW + 300, r#"{"e":"written","ok":true}"#);
    assert_settled(&mut door, "failed", true);
}

#[test]
fn a_task_the_server_failed_stays_failed_when_its_result_stream_answers_first() {
    let mut door = open();
    let out = result_stream_first(&mut door, |stream| result_of(stream, tool_error_result()), ended_task("failed"));
    assert!(sends(&out).iter().all(|s| method(s) != "tasks/result"), "the outcome is known already: {out:?}");
    feed(&mut door, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    assert_settled(&mut door, "failed", true);
}

#[test]
fn a_task_the_server_cancelled_stays_cancelled_however_its_end_arrives() {
    // Polled.
    let mut door = open();
    polled_as(&mut door, ended_task("cancelled"));
    feed(&mut door, NOW + 500, r#"{"e":"written","ok":true}"#);
    assert_settled(&mut door, "cancelled", false);

    // Told on the session's stream.
    let mut door = open();
    told_on_the_session_stream(&mut door, ended_task("cancelled"));
    feed(&mut door, NOW + 200, r#"{"e":"written","ok":true}"#);
    assert_settled(&mut door, "cancelled", false);

    // Its result stream answered first, with the SDK's "no result stored".
    let mut door = open();
    let refusal = |stream: &Value| {
        json!({ "jsonrpc": "2.0", "id": request(stream).get("id").unwrap().clone(),
                "error": { "code": -32603, "message": "Task t1 has no result stored" } })
    };
    result_stream_first(&mut door, refusal, ended_task("cancelled"));
    feed(&mut door, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    assert_settled(&mut door, "cancelled", false);
}

#[test]
fn a_tool_listing_goes_through_the_era_detection_and_then_the_session() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"list_tools","x":2}"#);
    assert_eq!(method(the(&out, "send")), "tools/list", "a server of unknown generation gets 2026-07-28 first");
    let out = status(&mut door, NOW, the(&out, "send"), 400, NO_SESSION);
    assert_eq!(method(the(&out, "send")), "server/discover", "a refusal that may mean an older server: {out:?}");
    let out = status(&mut door, NOW, the(&out, "send"), 400, NO_SESSION);
    let init = the(&out, "send").clone();
    assert_eq!(method(&init), "initialize");
    let out = stream_answer(&mut door, NOW, &init, &result_of(&init, initialize_result()));
    let out = status(&mut door, NOW, the(&out, "send"), 202, "");
    let list = sends(&out).into_iter().find(|s| method(s) == "tools/list").expect("the listing goes in the session");
    assert_eq!(header(&list, "Mcp-Session-Id"), Some(SESSION));
    assert_eq!(header(&list, "MCP-Protocol-Version"), Some("2025-11-25"));
    let tools = json!({ "tools": [{ "name": "build", "inputSchema": { "type": "object" } }] });
    let out = stream_answer(&mut door, NOW, &list, &result_of(&list, tools));
    let page = the(&out, "done").get("value").unwrap();
    assert_eq!(page.pointer("/tools/0/name").and_then(Value::as_str), Some("build"), "{out:?}");

    // The generation is known now: the next listing goes straight into the session.
    let out = feed(&mut door, NOW, r#"{"e":"list_tools","x":3,"cursor":"c2"}"#);
    let list = the(&out, "send").clone();
    assert_eq!(method(&list), "tools/list");
    assert_eq!(header(&list, "Mcp-Session-Id"), Some(SESSION));
    assert_eq!(request(&list).pointer("/params/cursor").and_then(Value::as_str), Some("c2"));
}

#[test]
fn a_tool_listing_after_a_call_goes_in_the_calls_session() {
    let mut door = open();
    legacy_call(&mut door);
    let out = feed(&mut door, NOW, r#"{"e":"list_tools","x":5}"#);
    let list = the(&out, "send");
    assert_eq!(method(list), "tools/list");
    assert_eq!(header(list, "Mcp-Session-Id"), Some(SESSION), "no second detection, no new session");
}

#[test]
fn a_resource_read_goes_in_the_session_of_a_2025_server() {
    let mut door = open();
    legacy_call(&mut door);
    let out = feed(&mut door, NOW, r#"{"e":"read_resource","x":5,"uri":"ui://basic/app.html"}"#);
    let read = the(&out, "send").clone();
    assert_eq!(method(&read), "resources/read");
    assert_eq!(header(&read, "Mcp-Session-Id"), Some(SESSION), "no second detection, no new session");
    assert_eq!(request(&read).pointer("/params/uri").and_then(Value::as_str), Some("ui://basic/app.html"));
    let contents = json!({ "contents": [{ "uri": "ui://basic/app.html", "mimeType": "text/html;profile=mcp-app", "text": "<p/>" }] });
    let out = stream_answer(&mut door, NOW, &read, &result_of(&read, contents.clone()));
    assert_eq!(the(&out, "done").get("value"), Some(&contents), "{out:?}");
}

#[test]
fn an_inline_call_sends_a_progress_token_and_its_reports_reach_the_host() {
    let mut door = open();
    legacy_call(&mut door);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":5,"name":"echo","arguments":{"text":"hi"}}"#);
    let call = the(&out, "send").clone();
    let params = request(&call).get("params").unwrap().clone();
    assert!(params.get("task").is_none(), "a tool without task support runs inline: {params:?}");
    let token = params.pointer("/_meta/progressToken").and_then(Value::as_str).unwrap().to_owned();
    let n = call.get("n").and_then(Value::as_u64).unwrap();
    door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200, "sse": true, "session": SESSION }), &[]);
    let report = json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                         "params": { "progressToken": token, "progress": 1, "total": 2 } });
    let chunk = format!("event: message\ndata: {report}\n\n");
    let out = door.handle(NOW, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes());
    assert_eq!(kinds(&out), ["progress"], "{out:?}");
    let progress = the(&out, "progress");
    assert_eq!(progress.get("x").and_then(Value::as_u64), Some(5));
    assert_eq!(progress.get("progress"), Some(&json!({ "progress": 1, "total": 2, "message": null })));
    let response = result_of(&call, json!({ "content": [{ "type": "text", "text": "hi" }] }));
    let chunk = format!("event: message\ndata: {response}\n\n");
    let out = door.handle(NOW, &json!({ "e": "chunk", "n": n, "end": false }), chunk.as_bytes());
    assert_eq!(the(&out, "done").pointer("/value/kind").and_then(Value::as_str), Some("result"), "{out:?}");
}

#[test]
fn a_2025_session_refused_for_sign_in_tells_the_host_and_its_next_success_ends_it() {
    let mut door = open();
    let key = door.state.keys().server();
    let link = json!({ "protocol": "2025-11-25", "session": "s-9", "tasks": { "list": true, "cancel": true, "toolsCall": true } });
    listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": [[key, link.to_string()]] }));
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let list = the(&out, "send");
    let n = list.get("n").and_then(Value::as_u64).unwrap();
    let challenge = r#"Bearer error="invalid_token", scope="mcp tools""#;
    let event = json!({ "e": "answer", "n": n, "status": 401, "wwwAuthenticate": challenge });
    let out = door.handle(NOW, &event, br#"{"error":"invalid_token"}"#);
    let auth = out.iter().find(|e| e.get("type").and_then(Value::as_str) == Some("auth")).expect("auth emitted");
    assert_eq!(auth.pointer("/detail/scope").and_then(Value::as_str), Some("mcp tools"), "{out:?}");
    assert_eq!(the(&out, "done").pointer("/error/name").and_then(Value::as_str), Some("AuthError"));
    // The host signed in: its next call goes out at once and its success ends the pause.
    let out = feed(&mut door, NOW + 10, r#"{"e":"call","x":3,"name":"build"}"#);
    let out = status(&mut door, NOW + 10, the(&out, "send"), 200, r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
    let auth = out.iter().find(|e| e.get("type").and_then(Value::as_str) == Some("auth")).expect("resolved emitted");
    assert_eq!(auth.get("detail"), Some(&json!({ "resolved": true })));
}
