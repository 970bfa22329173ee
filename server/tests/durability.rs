//! Durability, isolation and faults: a restart keeps every task and its work; tasks are bound to the
//! bearer token that made them; injected faults look to clients like the real thing.
mod support;

use std::time::{Duration, Instant};

use mcp_tasks_server::store::DbLocation;
use mcp_tasks_web::json;
use mcp_tasks_web::protocol::input::InputResponse;
use mcp_tasks_web::protocol::task::TaskStatus;
use support::{object, Client, TempDir};

#[tokio::test]
async fn a_restart_keeps_tasks_and_resumes_their_work() {
    let dir = TempDir::new("restart");
    let mut config = support::config();
    config.db = DbLocation::File(dir.0.join("tasks.sqlite"));
    let server = support::start(config.clone()).await;
    let mut c = Client::new(&server);
    let build = c.start_task("build", json!({ "seconds": 2 })).await;
    let deploy = c.start_task("deploy", json!({ "service": "api" })).await;
    c.wait_status(&deploy, TaskStatus::InputRequired, 5).await;
    server.stop().await;

    let server = support::start(config).await;
    let mut c = Client::new(&server);
    let resumed = c.wait_terminal(&build, 10).await;
    assert_eq!(resumed.task.status, TaskStatus::Completed, "work that was running resumes after a restart");
    assert_eq!(c.get(&deploy).await.expect("same taskId after restart").task.status, TaskStatus::InputRequired);
    let answer =
        [("approval-1".to_string(), InputResponse::accept(object(json!({ "confirm": true, "strategy": "rolling" }))))];
    c.update(&deploy, answer.into_iter().collect()).await.expect("ack");
    assert_eq!(c.wait_terminal(&deploy, 10).await.task.status, TaskStatus::Completed);
    server.stop().await;
}

#[tokio::test]
async fn tasks_are_bound_to_the_token_that_created_them() {
    let dir = TempDir::new("owners");
    let mut config = support::config();
    config.auth_tokens = vec!["alice-token".into(), "bob-token".into()];
    config.db = DbLocation::File(dir.0.join("tasks.sqlite"));
    let server = support::start(config).await;
    let anonymous = Client::new(&server);
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": anonymous.meta.to_json() } });
    let refused = anonymous.http.post(&anonymous.url).body(body.to_string()).send().await.expect("sent");
    assert_eq!(refused.status(), 401);
    assert_eq!(refused.headers()["www-authenticate"], "Bearer");

    let mut alice = Client::new(&server).with_token("alice-token");
    let mut bob = Client::new(&server).with_token("bob-token");
    let id = alice.start_task("long_job", json!({})).await;
    assert_eq!(bob.get(&id).await.expect_err("not Bob's").code, -32602, "a taskId is a handle, not a credential");
    assert_eq!(bob.cancel(&id).await.expect_err("not Bob's").code, -32602);
    let answer = [("approval-1".to_string(), InputResponse::accept(object(json!({ "confirm": true }))))];
    assert_eq!(bob.update(&id, answer.into_iter().collect()).await.expect_err("not Bob's").code, -32602);
    assert_eq!(alice.get(&id).await.expect("Alice's").task.status, TaskStatus::Working);
    alice.cancel(&id).await.expect("Alice may cancel");
    server.stop().await;
    // The store binds tasks to a hash of the token: its file holds no usable token.
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(&dir.0).expect("db dir").flatten() {
        stored.extend(std::fs::read(entry.path()).unwrap_or_default());
    }
    assert!(!stored.is_empty(), "the store wrote its file");
    let holds = |needle: &str| stored.windows(needle.len()).any(|w| w == needle.as_bytes());
    assert!(!holds("alice-token"), "the raw token is not stored");
    assert!(holds("token-sha256:"), "tasks are bound to the token's hash");
}

#[tokio::test]
async fn injected_faults_behave_like_real_ones() {
    let dir = TempDir::new("faults");
    let mut config = support::config();
    config.db = DbLocation::File(dir.0.join("tasks.sqlite"));
    config.faults_enabled = true;
    let server = support::start(config).await;
    let admin = |path: &str| format!("{}{path}", server.base_url());
    let http = reqwest::Client::new();
    let mut c = Client::new(&server);
    let id = c.start_task("long_job", json!({})).await;

    // A foreign page cannot change what every client sees.
    let foreign = http
        .post(admin("/admin/faults"))
        .header("origin", "https://evil.example")
        .body(r#"{"errorRate":1.0}"#)
        .send()
        .await
        .expect("sent");
    assert_eq!(foreign.status(), 403, "/admin/* refuses a foreign origin");
    let foreign = http.post(admin("/admin/expire?task=x")).header("origin", "https://evil.example").send().await;
    assert_eq!(foreign.expect("sent").status(), 403);
    let set = |body: mcp_tasks_web::json::Value| http.post(admin("/admin/faults")).json(&body).send();
    set(json!({ "errorRate": 1.0, "errorStatus": 500 })).await.expect("set");
    let r = http.post(&c.url).body("{}").send().await.expect("sent");
    assert_eq!(r.status(), 500);
    set(json!({ "rateLimitRate": 1.0, "retryAfterS": 7 })).await.expect("set");
    let r = http.post(&c.url).body("{}").send().await.expect("sent");
    assert_eq!((r.status().as_u16(), r.headers()["retry-after"].to_str().ok()), (429, Some("7")));
    set(json!({ "dropRate": 1.0 })).await.expect("set");
    let dropped = match http.post(&c.url).body("{}").send().await {
        Err(_) => true,
        Ok(r) => r.text().await.is_err(),
    };
    assert!(dropped, "the connection is cut without an answer");
    set(json!({ "latencyMs": 300 })).await.expect("set");
    let started = Instant::now();
    assert_eq!(c.get(&id).await.expect("slow but fine").task.status, TaskStatus::Working);
    assert!(started.elapsed() >= Duration::from_millis(300));
    set(json!({})).await.expect("clear");

    let restart = http.post(admin("/admin/restart-store")).send().await.expect("sent");
    assert_eq!(restart.status(), 200);
    assert_eq!(c.get(&id).await.expect("kept across a store restart").task.status, TaskStatus::Working);
    let expire = http.post(admin(&format!("/admin/expire?task={id}"))).send().await.expect("sent");
    assert_eq!(expire.status(), 200);
    assert_eq!(c.get(&id).await.expect_err("expired").code, -32602);
    server.stop().await;

    // Without --faults there is no admin endpoint.
    let server = support::start(support::config()).await;
    let r = reqwest::Client::new()
        .post(format!("{}/admin/faults", server.base_url()))
        .body("{}")
        .send()
        .await
        .expect("sent");
    assert_eq!(r.status(), 404);
    server.stop().await;
}

#[tokio::test]
async fn tasks_past_their_ttl_are_unknown() {
    let mut config = support::config();
    config.ttl_ms = 600;
    let server = support::start(config).await;
    let mut c = Client::new(&server);
    let id = c.start_task("long_job", json!({})).await;
    assert_eq!(c.get(&id).await.expect("alive").task.ttl_ms, Some(600));
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(c.get(&id).await.expect_err("expired").code, -32602);
    server.stop().await;
}
