//! Hostile mode (`--hostile`) over real HTTP: the tools are offered only in that mode, each misbehaves
//! as documented (the bodies themselves are checked in `http/hostile/cases.rs`), hostile tasks are
//! bound to their caller and end on cancel, and everything else is still the normal server.
mod support;

use std::time::Duration;

use futures_util::StreamExt;
use mcp_tasks_server::config::ServerConfig;
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::request::{CallToolParams, ClientRequest};
use mcp_tasks_web::protocol::subscriptions::ListenFilter;
use mcp_tasks_web::protocol::task::TaskStatus;
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;
use support::Client;

fn hostile() -> ServerConfig {
    ServerConfig { hostile: true, ..support::config() }
}

/// POSTs `request` as `c` would and returns the raw response (whatever its body).
async fn post(c: &mut Client, request: &ClientRequest) -> reqwest::Response {
    let id = c.ids.next_id();
    let mut builder = c.http.post(&c.url).body(request.envelope(&id, &c.meta).to_string());
    for (name, value) in request.http_headers() {
        builder = builder.header(name, value);
    }
    if let Some(token) = &c.token {
        builder = builder.bearer_auth(token);
    }
    builder.send().await.expect("HTTP exchange")
}

fn call(name: &str, args: Value) -> ClientRequest {
    ClientRequest::CallTool(CallToolParams::new(name, args.as_object().cloned()))
}

fn tool_names(list: &Value) -> Vec<String> {
    let tools = list.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
    tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned)).collect()
}

#[tokio::test]
async fn the_hostile_tools_exist_only_in_hostile_mode() {
    let normal = support::start(support::config()).await;
    let mut c = Client::new(&normal);
    let list = c.send(&ClientRequest::ListTools { cursor: None }).await;
    assert!(!tool_names(list.result()).iter().any(|n| n.starts_with("hostile_")));
    let refused = c.call_tool("hostile_gzip_bomb", json!({})).await.expect_err("unknown tool");
    assert!(refused.message.contains("Unknown tool"), "{}", refused.message);
    normal.stop().await;

    let server = support::start(hostile()).await;
    let mut c = Client::new(&server);
    let names = tool_names(c.send(&ClientRequest::ListTools { cursor: None }).await.result());
    assert_eq!(names.first().map(String::as_str), Some("greet"), "the normal tools come first, unchanged");
    assert!(names.iter().any(|n| n == "build"));
    let hostile: Vec<&String> = names.iter().filter(|n| n.starts_with("hostile_")).collect();
    assert_eq!(hostile.len(), 11, "{hostile:?}");
    // The normal tools still work beside them.
    let id = c.start_task("build", json!({ "seconds": 0.2 })).await;
    assert_eq!(c.wait_terminal(&id, 10).await.task.status, TaskStatus::Completed);
    let bad = c.call_tool("hostile_newline_flood", json!({ "chunkBytes": 0 })).await.expect_err("bad argument");
    assert_eq!(bad.code, -32602, "{}", bad.message);
    server.stop().await;
}

#[tokio::test]
async fn body_cases_misbehave_at_the_http_level() {
    let server = support::start(hostile()).await;
    let mut c = Client::new(&server);

    let bomb = post(&mut c, &call("hostile_gzip_bomb", json!({}))).await;
    assert_eq!(bomb.headers()["content-encoding"], "gzip");
    let compressed = bomb.bytes().await.expect("bomb body");
    assert!(compressed.len() < 128 << 10, "{} bytes on the wire", compressed.len());

    // One newline per chunk, each written alone; then the stream just ends.
    let flood = post(&mut c, &call("hostile_newline_flood", json!({ "totalBytes": 2000 }))).await;
    assert_eq!(flood.headers()["content-type"], "text/event-stream");
    let mut chunks = flood.bytes_stream();
    let (mut count, mut bytes) = (0, Vec::new());
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.expect("chunk");
        count += 1;
        bytes.extend_from_slice(&chunk);
    }
    assert_eq!(bytes, vec![b'\n'; 2000]);
    assert!(count > 100, "the newlines came in many chunks, not one: {count}");

    let then_answer =
        call("hostile_newline_flood", json!({ "chunkBytes": 1000, "totalBytes": 5000, "then": "answer" }));
    let text = post(&mut c, &then_answer).await.text().await.expect("flood then answer");
    assert!(text.starts_with(&"\n".repeat(5000)));
    assert!(text.ends_with("\"text\":\"after the flood\"}]}}\n\n"), "{}", &text[5000..]);

    // The endless event: its first bytes start a result that never closes.
    let endless = post(&mut c, &call("hostile_endless_event", json!({}))).await;
    let mut stream = endless.bytes_stream();
    let mut seen = Vec::new();
    while seen.len() < 1 << 20 {
        seen.extend_from_slice(&stream.next().await.expect("more").expect("chunk"));
    }
    assert!(seen.starts_with(b"event: message\ndata: {\"jsonrpc\""));
    assert_eq!(seen.iter().filter(|b| **b == b'\n').count(), 1, "only the event name's line ends");
    drop(stream);

    let redirect =
        c.http.post(&c.url).body(call("hostile_redirect", json!({})).envelope(&c.ids.next_id(), &c.meta).to_string());
    let no_follow = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let redirect = no_follow.execute(redirect.build().expect("request")).await.expect("answer");
    assert_eq!(redirect.status(), 307);
    let port = server.addr.port();
    assert_eq!(redirect.headers()["location"], format!("http://localhost:{port}/mcp?hostile-redirected=1").as_str());
    // A client that followed it would arrive here, and be counted.
    let arrived = c.http.post(format!("http://localhost:{port}/mcp?hostile-redirected=1"));
    let request = call("echo", json!({ "text": "followed" }));
    let mut arrived = arrived.body(request.envelope(&c.ids.next_id(), &c.meta).to_string());
    for (name, value) in request.http_headers() {
        arrived = arrived.header(name, value);
    }
    assert_eq!(arrived.send().await.expect("follow").status(), 200);
    let stats = c.call_tool("hostile_stats", json!({})).await.expect("stats");
    let ToolCallOutcome::Complete(stats) = stats else { panic!("a result: {stats:?}") };
    let counted = stats.structured_content.as_ref().and_then(|s| s.get("redirectedArrivals")).and_then(Value::as_u64);
    assert_eq!(counted, Some(1));
    server.stop().await;
}

#[tokio::test]
async fn hostile_tasks_are_the_callers_misbehave_when_polled_and_end_on_cancel() {
    let mut config = hostile();
    config.auth_tokens = vec!["alice".into(), "bob".into()];
    let server = support::start(config).await;
    let mut alice = Client::new(&server).with_token("alice");
    let mut bob = Client::new(&server).with_token("bob");

    let deep = alice.start_task("hostile_deep_nesting", json!({ "at": "poll", "depth": 300 })).await;
    let polled = post(&mut alice, &ClientRequest::GetTask { task_id: deep.clone() }).await.text().await.expect("body");
    assert!(polled.contains(&format!("{}{}", "[".repeat(300), "]".repeat(300))), "the poll answers the deep result");
    assert!(mcp_tasks_web::json::from_str(&polled).is_err(), "past the parser's depth limit");
    let flood_args = json!({ "at": "poll", "chunkBytes": 100, "totalBytes": 1000, "then": "answer" });
    let flood = alice.start_task("hostile_newline_flood", flood_args).await;
    let polled = post(&mut alice, &ClientRequest::GetTask { task_id: flood.clone() }).await.text().await.expect("body");
    let answer = polled.strip_prefix(&"\n".repeat(1000)).and_then(|a| a.strip_prefix("event: message\ndata: "));
    let task = answer.and_then(|a| mcp_tasks_web::json::from_str(a.trim_end()).ok());
    let status = task.as_ref().and_then(|t| t.pointer("/result/status")).and_then(Value::as_str);
    assert_eq!(status, Some("completed"), "after the flood, the poll's answer is the completed task: {answer:?}");
    let foreign = bob.get(&deep).await.expect_err("not bob's task");
    assert!(foreign.message.starts_with("Task not found"), "{}", foreign.message);

    let stall = alice.start_task("hostile_listen_stall", json!({ "workMs": 100_000 })).await;
    let build = alice.start_task("build", json!({ "seconds": 30 })).await;
    let listen = ClientRequest::Listen(ListenFilter::tasks(vec![build.clone(), stall.clone()]));
    let response = post(&mut alice, &listen).await;
    let mut stream = response.bytes_stream();
    let first =
        tokio::time::timeout(Duration::from_secs(5), stream.next()).await.expect("the acknowledgement").expect("bytes");
    let ack = String::from_utf8_lossy(&first.expect("chunk")).into_owned();
    assert!(ack.contains("notifications/subscriptions/acknowledged"), "{ack}");
    assert!(ack.contains(&stall) && !ack.contains(&build), "only the stall is acknowledged: {ack}");
    let next = tokio::time::timeout(Duration::from_millis(1500), stream.next()).await;
    assert!(next.is_err(), "then nothing, not even a keep-alive: {next:?}");
    drop(stream);
    let stats = alice.call_tool("hostile_stats", json!({})).await.expect("stats");
    let ToolCallOutcome::Complete(stats) = stats else { panic!("a result: {stats:?}") };
    let acks =
        stats.structured_content.as_ref().and_then(|s| s.get("stallAcks")).and_then(Value::as_array).map(Vec::len);
    assert_eq!(acks, Some(1), "the stalled listen's acknowledgement time is reported");
    // A listen for normal tasks only is the normal listen.
    let normal = post(&mut alice, &ClientRequest::Listen(ListenFilter::tasks(vec![build.clone()]))).await;
    let mut normal = normal.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(5), normal.next()).await.expect("ack").expect("bytes");
    assert!(String::from_utf8_lossy(&first.expect("chunk")).contains(&build));
    drop(normal);

    assert_eq!(alice.get(&stall).await.expect("get").task.status, TaskStatus::Working);
    alice.cancel(&stall).await.expect("cancel");
    assert_eq!(alice.get(&stall).await.expect("get").task.status, TaskStatus::Cancelled);
    alice.cancel(&build).await.expect("cancel build");
    server.stop().await;
}

#[tokio::test]
async fn the_number_form_echoes_answers_as_sent() {
    let server = support::start(hostile()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("hostile_number_form", json!({})).await;
    let asked = post(&mut c, &ClientRequest::GetTask { task_id: id.clone() }).await.text().await.expect("body");
    assert!(asked.contains(r#""default":1e400,"minimum":-1e400,"maximum":1e400"#), "{asked}");
    assert!(asked.contains(r#""default":-0,"minimum":-0,"maximum":0"#), "{asked}");
    // The answer's numbers as raw JSON text: no value type of a client could carry them.
    let update = ClientRequest::UpdateTask { task_id: id.clone(), input_responses: Default::default() };
    let envelope = update.envelope(&c.ids.next_id(), &c.meta).to_string();
    assert!(envelope.contains(r#""inputResponses":{}"#), "{envelope}");
    let raw = r#""inputResponses":{"edges":{"action":"accept","content":{"huge":1e400,"negativeZero":-0,"beyondSafe":9007199254740993}}}"#;
    let mut builder = c.http.post(&c.url).body(envelope.replace(r#""inputResponses":{}"#, raw));
    for (name, value) in update.http_headers() {
        builder = builder.header(name, value);
    }
    assert_eq!(builder.send().await.expect("update").status(), 200);
    let done = post(&mut c, &ClientRequest::GetTask { task_id: id }).await.text().await.expect("body");
    assert!(done.contains(r#""status":"completed""#), "{done}");
    assert!(
        done.contains(r#""structuredContent":{"inputResponses":{"edges":{"action":"accept","content":{"huge":1e400,"negativeZero":-0,"beyondSafe":9007199254740993}}}}"#),
        "echoed byte for byte: {done}"
    );
    server.stop().await;
}
