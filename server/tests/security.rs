//! The server's own limits: tokens compared in constant time and read from a file or the environment
//! rather than argv, `Host` checked on every bind.
mod support;

use std::io::{BufRead, Read};
use std::process::{Command, Stdio};

use mcp_tasks_web::protocol::meta::{Implementation, RequestMeta};
use mcp_tasks_web::protocol::request::ClientRequest;
use support::TempDir;

/// A `server/discover` request: its body and headers.
fn discover() -> (String, Vec<(&'static str, String)>) {
    let meta = RequestMeta::task_client(Implementation::new("security-tests", "0.1.0"), true, true);
    let request = ClientRequest::Discover;
    let body = request.envelope(&mcp_tasks_web::protocol::jsonrpc::RequestId::Number(1), &meta).to_string();
    (body, request.http_headers())
}

async fn post(url: &str, host: Option<&str>, token: Option<&str>) -> (u16, String) {
    let (body, headers) = discover();
    let mut builder = reqwest::Client::new().post(url).body(body);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    if let Some(host) = host {
        builder = builder.header("Host", host);
    }
    if let Some(token) = token {
        builder = builder.bearer_auth(token);
    }
    let response = builder.send().await.expect("sent");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

#[test]
fn the_mcp_token_check_uses_the_constant_time_compare() {
    let source = include_str!("../src/http/mcp.rs");
    let start = source.find("fn authenticate(").expect("authenticate");
    let body = &source[start..];
    let body = &body[..body.find("\n}\n").expect("end of authenticate")];
    assert!(body.contains("secret::one_of("), "authenticate compares with secret::one_of:\n{body}");
    assert!(!body.contains("=="), "no early-exit string compare in authenticate:\n{body}");
    let admin = include_str!("../src/http/admin.rs");
    assert!(admin.contains("secret::same_token("), "the admin gate uses the same compare");
}

/// The binary we started, killed (by its handle) when dropped, even if the test panics.
struct Spawned(std::process::Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary (on loopback, in memory, quiet) with `args` and `env`; its first stdout line, or
/// its stderr if it exited instead.
async fn spawn(args: &[&str], env: &[(&str, &str)]) -> (Spawned, Result<String, String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-tasks-server"));
    command.args(["--listen", "127.0.0.1:0", "--memory", "--quiet"]).args(args);
    command.env_remove("MCP_TASKS_SERVER_AUTH").env_remove("MCP_TASKS_SERVER_ADMIN_TOKEN");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = Spawned(command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawned"));
    let stdout = child.0.stdout.take().expect("piped");
    let first = tokio::task::spawn_blocking(move || {
        let mut lines = std::io::BufReader::new(stdout).lines();
        let first = lines.next();
        std::thread::spawn(move || lines.for_each(drop));
        first
    })
    .await
    .expect("joined");
    match first {
        Some(Ok(line)) => (child, Ok(line)),
        _ => {
            let mut err = String::new();
            let _ = child.0.stderr.take().expect("piped").read_to_string(&mut err);
            (child, Err(err))
        }
    }
}

/// Kills the server and returns what it wrote on stderr.
fn stderr_of(mut child: Spawned) -> String {
    let _ = child.0.kill();
    let mut err = String::new();
    let _ = child.0.stderr.take().expect("piped").read_to_string(&mut err);
    err
}

fn mcp_url(line: &str) -> String {
    line.split_whitespace().find(|w| w.starts_with("http://")).expect("the URL").to_owned()
}

#[tokio::test]
async fn mcp_tokens_come_from_a_file_or_the_environment() {
    let dir = TempDir::new("token-file");
    let file = dir.0.join("tokens");
    std::fs::write(&file, "file-token-1\n\n  file-token-2  \n").expect("written");
    let (child, line) = spawn(&["--auth-file", file.to_str().expect("utf-8 path")], &[]).await;
    let url = mcp_url(&line.expect("starts with --auth-file"));
    assert_eq!(post(&url, None, None).await.0, 401, "a token is required");
    assert_eq!(post(&url, None, Some("file-token-3")).await.0, 401);
    assert_eq!(post(&url, None, Some("file-token-1")).await.0, 200);
    assert_eq!(post(&url, None, Some("file-token-2")).await.0, 200);
    let err = stderr_of(child);
    assert!(!err.contains("visible"), "no argv warning for a file: {err}");

    let (child, line) = spawn(&[], &[("MCP_TASKS_SERVER_AUTH", "env-token")]).await;
    let url = mcp_url(&line.expect("starts with MCP_TASKS_SERVER_AUTH"));
    assert_eq!(post(&url, None, None).await.0, 401, "the environment's token is required");
    assert_eq!(post(&url, None, Some("env-token")).await.0, 200);
    drop(child);

    // The flag keeps working, with a warning that argv is visible to other users.
    let (child, line) = spawn(&["--auth", "argv-token"], &[]).await;
    let url = mcp_url(&line.expect("starts with --auth"));
    assert_eq!(post(&url, None, Some("argv-token")).await.0, 200);
    let err = stderr_of(child);
    assert!(err.contains("--auth") && err.contains("visible to every local user"), "argv warning: {err}");

    // A missing or empty file is an error that names the file, not a server without auth.
    let (_child, outcome) = spawn(&["--auth-file", dir.0.join("absent").to_str().expect("utf-8")], &[]).await;
    assert!(outcome.as_ref().is_err_and(|e| e.contains("--auth-file") && e.contains("absent")), "{outcome:?}");
    std::fs::write(&file, " \n").expect("written");
    let (_child, outcome) = spawn(&["--auth-file", file.to_str().expect("utf-8")], &[]).await;
    assert!(outcome.as_ref().is_err_and(|e| e.contains("no token")), "{outcome:?}");
}

/// One way to give the admin token: the server's arguments, its environment, and the token it must take.
type AdminTokenCase<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[tokio::test]
async fn the_admin_token_comes_from_a_file_or_the_environment() {
    let dir = TempDir::new("admin-token-file");
    let file = dir.0.join("admin");
    std::fs::write(&file, "file-admin\n").expect("written");
    let http = reqwest::Client::new();
    let cases: [AdminTokenCase; 2] = [
        (&["--faults", "--admin-token-file", file.to_str().expect("utf-8")], &[], "file-admin"),
        (&["--faults"], &[("MCP_TASKS_SERVER_ADMIN_TOKEN", "env-admin")], "env-admin"),
    ];
    for (args, env, token) in cases {
        let (child, line) = spawn(args, env).await;
        let line = line.expect("starts");
        assert!(!line.contains("admin token") && !line.contains(token), "a given token is not echoed: {line}");
        let admin = format!("{}/admin/faults", mcp_url(&line).trim_end_matches("/mcp"));
        assert_eq!(http.get(&admin).bearer_auth(token).send().await.expect("sent").status(), 200, "{args:?}");
        assert_eq!(http.get(&admin).bearer_auth("other").send().await.expect("sent").status(), 401);
        let err = stderr_of(child);
        assert!(!err.contains("visible"), "no argv warning: {err}");
    }
    let (child, line) = spawn(&["--faults", "--admin-token", "argv-admin"], &[]).await;
    line.expect("starts with --admin-token");
    let err = stderr_of(child);
    assert!(err.contains("--admin-token") && err.contains("visible to every local user"), "argv warning: {err}");
}

#[tokio::test]
async fn host_is_checked_on_a_non_loopback_bind() {
    let mut config = support::config();
    config.listen = "0.0.0.0:0".parse().expect("address");
    let server = support::start(config).await;
    // Only loopback traffic: the server listens on every interface, the test talks to 127.0.0.1.
    let url = format!("http://127.0.0.1:{}/mcp", server.addr.port());
    let (status, body) = post(&url, Some("evil.example:8787"), None).await;
    assert_eq!(status, 403, "a name that is not allowed (DNS rebinding) is refused: {body}");
    let error: serde_json::Value = serde_json::from_str(&body).expect("JSON-RPC error body");
    assert_eq!(error["error"]["code"], -32000, "{body}");
    let message = error["error"]["message"].as_str().expect("message");
    assert!(message.contains("evil.example") && message.contains("--allowed-host"), "{message}");
    assert_eq!(post(&url, None, None).await.0, 200, "127.0.0.1 is allowed");
    assert_eq!(post(&url, Some("localhost"), None).await.0, 200);
    assert_eq!(post(&url, Some("192.0.2.7:8787"), None).await.0, 200, "an address is no rebinding");
    assert_eq!(post(&url, Some("[2001:db8::1]:8787"), None).await.0, 200);
    server.stop().await;
}

#[tokio::test]
async fn allowed_hosts_are_answered_on_a_non_loopback_bind() {
    let mut config = support::config();
    config.listen = "0.0.0.0:0".parse().expect("address");
    config.allowed_hosts = vec!["tasks.example".into()];
    let server = support::start(config).await;
    let url = format!("http://127.0.0.1:{}/mcp", server.addr.port());
    assert_eq!(post(&url, Some("tasks.example:8787"), None).await.0, 200, "an allowed name");
    assert_eq!(post(&url, Some("TASKS.example"), None).await.0, 200, "names compare without case");
    assert_eq!(post(&url, Some("evil.example"), None).await.0, 403, "still refused");
    server.stop().await;
}
