//! Durability, isolation and faults: a restart keeps every task and its work; tasks are bound to the
//! bearer token that made them; injected faults look to clients like the real thing; and the
//! `/admin/*` endpoints that inject them answer only loopback callers holding the admin token.
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
    let token = server.admin_token.clone().expect("--faults generates an admin token");
    let admin = |path: &str| format!("{}{path}", server.base_url());
    let http = reqwest::Client::new();
    let post = |path: &str| http.post(admin(path)).bearer_auth(&token);
    let mut c = Client::new(&server);
    let id = c.start_task("long_job", json!({})).await;

    // A foreign page cannot change what every client sees.
    let foreign = post("/admin/faults")
        .header("origin", "https://evil.example")
        .body(r#"{"errorRate":1.0}"#)
        .send()
        .await
        .expect("sent");
    assert_eq!(foreign.status(), 403, "/admin/* refuses a foreign origin");
    let foreign = post("/admin/expire?task=x").header("origin", "https://evil.example").send().await;
    assert_eq!(foreign.expect("sent").status(), 403);
    let set = |body: mcp_tasks_web::json::Value| async move {
        let r = post("/admin/faults").json(&body).send().await.expect("sent");
        assert_eq!(r.status(), 200, "setting {body}");
    };
    set(json!({ "errorRate": 1.0, "errorStatus": 500 })).await;
    let r = http.post(&c.url).body("{}").send().await.expect("sent");
    assert_eq!(r.status(), 500);
    set(json!({ "rateLimitRate": 1.0, "retryAfterS": 7 })).await;
    let r = http.post(&c.url).body("{}").send().await.expect("sent");
    assert_eq!((r.status().as_u16(), r.headers()["retry-after"].to_str().ok()), (429, Some("7")));
    set(json!({ "dropRate": 1.0 })).await;
    let dropped = match http.post(&c.url).body("{}").send().await {
        Err(_) => true,
        Ok(r) => r.text().await.is_err(),
    };
    assert!(dropped, "the connection is cut without an answer");
    set(json!({ "latencyMs": 300 })).await;
    let started = Instant::now();
    assert_eq!(c.get(&id).await.expect("slow but fine").task.status, TaskStatus::Working);
    assert!(started.elapsed() >= Duration::from_millis(300));
    set(json!({})).await;

    let restart = post("/admin/restart-store").send().await.expect("sent");
    assert_eq!(restart.status(), 200);
    assert_eq!(c.get(&id).await.expect("kept across a store restart").task.status, TaskStatus::Working);
    let expire = post(&format!("/admin/expire?task={id}")).send().await.expect("sent");
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

#[tokio::test]
async fn admin_endpoints_need_the_admin_token() {
    let mut config = support::config();
    config.faults_enabled = true;
    config.admin_token = Some("the-admin-token".into());
    let server = support::start(config).await;
    assert_eq!(server.admin_token.as_deref(), Some("the-admin-token"), "--admin-token is used as given");
    let http = reqwest::Client::new();
    let url = |path: &str| format!("{}{path}", server.base_url());
    let mut c = Client::new(&server);
    let id = c.start_task("long_job", json!({})).await;

    // Every endpoint, without a token, with a wrong one, and with /mcp-style auth that is not the admin token.
    let requests = || {
        [
            http.get(url("/admin/faults")),
            http.post(url("/admin/faults")).body(r#"{"errorRate":1.0}"#),
            http.post(url(&format!("/admin/expire?task={id}"))),
            http.post(url("/admin/restart-store")),
        ]
    };
    for wrong in [None, Some("Bearer wrong"), Some("Bearer the-admin-toke"), Some("Basic the-admin-token")] {
        for request in requests() {
            let request = match wrong {
                Some(value) => request.header("authorization", value),
                None => request,
            };
            let r = request.send().await.expect("sent");
            assert_eq!(r.status(), 401, "{wrong:?}");
            assert!(r.headers()["www-authenticate"].to_str().is_ok_and(|v| v.starts_with("Bearer")));
            let body: serde_json::Value = r.json().await.expect("a JSON error");
            assert!(body["error"].as_str().is_some_and(|e| e.contains("admin token")), "{body}");
        }
    }
    // None of them did anything: no faults, the task is alive.
    assert_eq!(c.get(&id).await.expect("not expired").task.status, TaskStatus::Working);

    // The right token works on each endpoint.
    let authed = |r: reqwest::RequestBuilder| r.bearer_auth("the-admin-token").send();
    let r = authed(http.post(url("/admin/faults")).body(r#"{"latencyMs":5}"#)).await.expect("sent");
    assert_eq!(r.status(), 200);
    let r = authed(http.get(url("/admin/faults"))).await.expect("sent");
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<serde_json::Value>().await.expect("JSON")["latencyMs"], 5);
    let r = authed(http.post(url("/admin/restart-store"))).await.expect("sent");
    assert_eq!(r.status(), 200);
    let r = authed(http.post(url(&format!("/admin/expire?task={id}")))).await.expect("sent");
    assert_eq!(r.status(), 200);
    assert_eq!(c.get(&id).await.expect_err("expired").code, -32602);

    // A page on a loopback origin may send the token (after a preflight) and read the answer; a
    // foreign one is refused at the preflight.
    let preflight = |origin: &str| {
        http.request(reqwest::Method::OPTIONS, url("/admin/faults"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "authorization, content-type")
            .send()
    };
    let r = preflight("http://127.0.0.1:9000").await.expect("sent");
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["access-control-allow-origin"], "http://127.0.0.1:9000");
    assert!(r.headers()["access-control-allow-headers"].to_str().is_ok_and(|v| v.contains("authorization")));
    assert_eq!(preflight("https://evil.example").await.expect("sent").status(), 403);
    let r = authed(http.get(url("/admin/faults")).header("origin", "http://localhost:9000")).await.expect("sent");
    assert_eq!(
        (r.status().as_u16(), r.headers()["access-control-allow-origin"].to_str().ok()),
        (200, Some("http://localhost:9000"))
    );
    server.stop().await;
}

#[tokio::test]
async fn the_generated_admin_token_is_random_and_printed_on_the_first_line() {
    // Two servers, two tokens: a generated token is not a constant.
    let (a, b) = (support::start(faults_config()).await, support::start(faults_config()).await);
    let (ta, tb) = (a.admin_token.clone().expect("generated"), b.admin_token.clone().expect("generated"));
    assert!(ta.len() >= 32 && ta != tb, "{ta} {tb}");
    let r = reqwest::Client::new().get(format!("{}/admin/faults", a.base_url())).bearer_auth(&tb).send().await;
    assert_eq!(r.expect("sent").status(), 401, "another server's token is a wrong token");
    a.stop().await;
    b.stop().await;

    // The binary prints it where the harnesses read the URL: the first stdout line.
    let (child, line) = first_line(&[]).await;
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the URL").to_owned();
    let token = line.split_once("; admin token: ").map(|(_, t)| t.trim().to_owned()).expect("the admin token");
    let admin = format!("{}/admin/faults", url.trim_end_matches("/mcp"));
    let http = reqwest::Client::new();
    assert_eq!(http.get(&admin).bearer_auth(&token).send().await.expect("sent").status(), 200, "{line}");
    assert_eq!(http.get(&admin).send().await.expect("sent").status(), 401);
    drop(child);

    // A token given on the command line is not echoed.
    let (child, line) = first_line(&["--admin-token", "given-token"]).await;
    assert!(!line.contains("given-token") && !line.contains("admin token"), "{line}");
    drop(child);
}

/// The server binary we started, killed (by its handle) when dropped, even if the test panics.
struct Spawned(std::process::Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary with `--faults` and `extra`, and reads its first stdout line.
async fn first_line(extra: &[&str]) -> (Spawned, String) {
    use std::io::BufRead;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-tasks-server"));
    command.args(["--listen", "127.0.0.1:0", "--memory", "--quiet", "--faults"]).args(extra);
    let mut child = Spawned(command.stdout(std::process::Stdio::piped()).spawn().expect("spawned"));
    let stdout = child.0.stdout.take().expect("piped");
    let line = tokio::task::spawn_blocking(move || {
        let mut lines = std::io::BufReader::new(stdout).lines();
        let first = lines.next();
        // Keep draining, so the server never writes to a closed pipe (and fails on it).
        std::thread::spawn(move || lines.for_each(drop));
        first
    })
    .await
    .expect("joined")
    .expect("a first line")
    .expect("read");
    (child, line)
}

fn faults_config() -> mcp_tasks_server::config::ServerConfig {
    let mut config = support::config();
    config.faults_enabled = true;
    config
}
