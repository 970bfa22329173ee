//! The transport rules over real HTTP: header and `_meta` checks with their HTTP statuses, CORS and
//! the loopback-only rule, and `subscriptions/listen` over SSE.
mod support;

use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::headers::request_headers;
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, Incoming, RequestId};
use mcp_tasks_web::protocol::request::ClientRequest;
use mcp_tasks_web::protocol::subscriptions::{decode_listen_closed, ServerNotification};
use mcp_tasks_web::protocol::task::TaskStatus;
use support::Client;

fn get_body(c: &Client, task_id: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": { "taskId": task_id, "_meta": c.meta.to_json() } })
}

#[tokio::test]
async fn headers_must_match_the_body() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("long_job", json!({})).await;
    let body = get_body(&c, &id);
    let ok = c.raw(&body, &request_headers("tasks/get", Some(&id))).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.result()["taskId"], id.as_str());

    let wrong_name = c.raw(&body, &request_headers("tasks/get", Some("some-other-id"))).await;
    assert_eq!((wrong_name.status, wrong_name.error().code), (400, -32020));
    let no_name = c.raw(&body, &request_headers("tasks/get", None)).await;
    assert_eq!((no_name.status, no_name.error().code), (400, -32020));
    let wrong_method = c.raw(&body, &request_headers("tasks/cancel", Some(&id))).await;
    assert_eq!((wrong_method.status, wrong_method.error().code), (400, -32020));
    let mut headers = request_headers("tasks/get", Some(&id));
    headers.retain(|(n, _)| *n != "MCP-Protocol-Version");
    let no_version = c.raw(&body, &headers).await;
    assert_eq!((no_version.status, no_version.error().code), (400, -32020));
    headers.push(("MCP-Protocol-Version", "2025-11-25".into()));
    let other_version = c.raw(&body, &headers).await;
    assert_eq!((other_version.status, other_version.error().code), (400, -32020));

    // A base64-encoded Mcp-Name is decoded before it is compared.
    let echo = json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": { "name": "echo", "arguments": { "text": "x" }, "_meta": c.meta.to_json() } });
    let mut b64 = request_headers("tools/call", Some("echo"));
    b64.retain(|(n, _)| *n != "Mcp-Name");
    b64.push(("Mcp-Name", "=?base64?ZWNobw==?=".into()));
    assert_eq!(c.raw(&echo, &b64).await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn meta_version_and_method_errors_carry_their_http_status() {
    let server = support::start(support::config()).await;
    let c = Client::new(&server);
    let no_meta = json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {} });
    let a = c.raw(&no_meta, &request_headers("server/discover", None)).await;
    assert_eq!((a.status, a.error().code), (400, -32602));

    let mut meta = c.meta.to_json();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let future = json!({ "jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": { "_meta": meta } });
    let mut headers = request_headers("server/discover", None);
    headers.retain(|(n, _)| *n != "MCP-Protocol-Version");
    headers.push(("MCP-Protocol-Version", "2099-01-01".into()));
    let b = c.raw(&future, &headers).await;
    assert_eq!((b.status, b.error().code), (400, -32022));
    assert_eq!(b.error().supported_versions(), Some(vec!["2026-07-28".to_string()]));

    for gone in ["tasks/list", "tasks/result"] {
        let body = json!({ "jsonrpc": "2.0", "id": 3, "method": gone, "params": { "_meta": c.meta.to_json() } });
        let r = c.raw(&body, &request_headers(gone, None)).await;
        assert_eq!((r.status, r.error().code), (404, -32601), "{gone}");
    }

    let unknown = get_body(&c, "tsk_00000000000000000000000000000000");
    let r = c.raw(&unknown, &request_headers("tasks/get", Some("tsk_00000000000000000000000000000000"))).await;
    assert_eq!(r.error().code, -32602);

    let http = reqwest::Client::new();
    let parse = http.post(server.url()).body("{not json").send().await.expect("sent");
    assert_eq!(parse.status(), 400);
    let v: Value = parse.json().await.expect("JSON");
    assert_eq!(v["error"]["code"], -32700);
    let get = http.get(server.url()).send().await.expect("sent");
    assert_eq!(get.status(), 405);
    let delete = http.delete(server.url()).send().await.expect("sent");
    assert_eq!(delete.status(), 405);
    server.stop().await;
}

#[tokio::test]
async fn cors_allows_loopback_origins_and_refuses_others() {
    let server = support::start(support::config()).await;
    let http = reqwest::Client::new();
    let preflight = http
        .request(reqwest::Method::OPTIONS, server.url())
        .header("Origin", "http://localhost:5173")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region",
        )
        .send()
        .await
        .expect("preflight");
    assert_eq!(preflight.status(), 204);
    let h = preflight.headers();
    assert_eq!(h["access-control-allow-origin"], "http://localhost:5173");
    let allowed = h["access-control-allow-headers"].to_str().unwrap_or_default().to_owned();
    for name in ["mcp-protocol-version", "mcp-method", "mcp-name", "authorization", "mcp-param-region"] {
        assert!(allowed.contains(name), "{name} in {allowed}");
    }
    assert!(h["access-control-allow-methods"].to_str().unwrap_or_default().contains("POST"));

    let c = Client::new(&server);
    let body =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": c.meta.to_json() } });
    let mut headers = request_headers("server/discover", None);
    headers.push(("Origin", "http://127.0.0.1:3000".into()));
    let ok = c.raw(&body, &headers).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.headers["access-control-allow-origin"], "http://127.0.0.1:3000");
    assert!(ok.headers["access-control-expose-headers"].to_str().unwrap_or_default().contains("Retry-After"));

    let evil = http
        .post(server.url())
        .header("Origin", "http://evil.example")
        .body(body.to_string())
        .send()
        .await
        .expect("sent");
    assert_eq!(evil.status(), 403);
    assert!(evil.headers().get("access-control-allow-origin").is_none());
    let rebound =
        http.post(server.url()).header("Host", "evil.example:8787").body(body.to_string()).send().await.expect("sent");
    assert_eq!(rebound.status(), 403, "a foreign Host (DNS rebinding) is refused");
    let bad_preflight = http
        .request(reqwest::Method::OPTIONS, server.url())
        .header("Origin", "http://evil.example")
        .send()
        .await
        .expect("sent");
    assert_eq!(bad_preflight.status(), 403);
    server.stop().await;
}

/// Reads SSE `data:` payloads until the stream ends.
async fn read_sse(response: reqwest::Response) -> Vec<Value> {
    let text = tokio::time::timeout(std::time::Duration::from_secs(15), response.text())
        .await
        .expect("stream ends")
        .expect("body");
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).expect("JSON event"))
        .collect()
}

#[tokio::test]
async fn listen_acknowledges_known_tasks_and_streams_them_to_the_end() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("build", json!({ "seconds": 1.2 })).await;
    let listen = ClientRequest::Listen(mcp_tasks_web::protocol::subscriptions::ListenFilter::tasks(vec![
        id.clone(),
        "tsk_nope".into(),
    ]));
    let listen_id = RequestId::Text("listen-1".into());
    let mut builder = c.http.post(&c.url).body(listen.envelope(&listen_id, &c.meta).to_string());
    for (n, v) in listen.http_headers() {
        builder = builder.header(n, v);
    }
    let response = builder.send().await.expect("listen");
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let events = read_sse(response).await;
    let mut statuses = Vec::new();
    let mut closed = false;
    for (i, e) in events.iter().enumerate() {
        match decode_message_value(e.clone()).expect("message") {
            Incoming::Notification { method, params } => {
                match ServerNotification::decode(&method, &params).expect("decodes") {
                    ServerNotification::SubscriptionAcknowledged { subscription_id, accepted } => {
                        assert_eq!(i, 0, "the acknowledgement comes first");
                        assert_eq!(subscription_id, Some(listen_id.clone()));
                        assert_eq!(accepted.task_ids, Some(vec![id.clone()]), "unknown ids are not accepted");
                    }
                    ServerNotification::TaskStatus { subscription_id, task } => {
                        assert_eq!(subscription_id, Some(listen_id.clone()));
                        statuses.push(task.task.status);
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
            Incoming::Response(r) => {
                assert_eq!(
                    decode_listen_closed(&r.outcome.expect("a result")).expect("listen result"),
                    Some(listen_id.clone())
                );
                closed = true;
            }
            Incoming::Request { .. } => panic!("no requests on a 2026 stream"),
        }
    }
    assert!(closed, "the stream ends with the listen result");
    assert_eq!(statuses.last(), Some(&TaskStatus::Completed), "{statuses:?}");
    assert!(statuses.len() >= 2, "progress arrives as notifications: {statuses:?}");

    let no_ext = Client::new(&server).without_tasks();
    let refused = no_ext.raw(&listen.envelope(&listen_id, &no_ext.meta), &listen.http_headers()).await;
    assert_eq!((refused.status, refused.error().code), (400, -32021));
    server.stop().await;
}
