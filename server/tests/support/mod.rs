//! A client for the server tests, built from the client crate's own protocol types, over real HTTP.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use mcp_tasks_server::config::ServerConfig;
use mcp_tasks_server::store::DbLocation;
use mcp_tasks_server::RunningServer;
use mcp_tasks_web::json::Value;
use mcp_tasks_web::protocol::input::InputResponses;
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, Incoming, RequestId, RequestIds, RpcError};
use mcp_tasks_web::protocol::meta::{Implementation, RequestMeta};
use mcp_tasks_web::protocol::request::{CallToolParams, ClientRequest, RequestResult};
use mcp_tasks_web::protocol::task::{DetailedTask, TaskStatus};
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;
use mcp_tasks_web::protocol::Object;

/// A config for tests: a free port on loopback, tasks in memory, quiet, fast polling.
pub fn config() -> ServerConfig {
    ServerConfig {
        listen: "127.0.0.1:0".parse().expect("address"),
        db: DbLocation::Memory,
        log: false,
        poll_interval_ms: 100,
        ..ServerConfig::default()
    }
}

pub async fn start(config: ServerConfig) -> RunningServer {
    mcp_tasks_server::start(config).await.expect("server starts")
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("mcp-tasks-test-{name}-{}", mcp_tasks_server::ids::random_id("")));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What came back: HTTP status and the decoded JSON-RPC outcome.
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub outcome: Result<Value, RpcError>,
}

impl Answer {
    pub fn error(&self) -> &RpcError {
        self.outcome.as_ref().err().unwrap_or_else(|| panic!("expected an error, got {:?}", self.outcome))
    }
    pub fn result(&self) -> &Value {
        self.outcome.as_ref().unwrap_or_else(|e| panic!("expected a result, got {e}"))
    }
}

pub struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub token: Option<String>,
    pub meta: RequestMeta,
    pub ids: RequestIds,
}

impl Client {
    pub fn new(server: &RunningServer) -> Self {
        Self {
            http: reqwest::Client::new(),
            url: server.url(),
            token: None,
            meta: RequestMeta::task_client(Implementation::new("server-tests", "0.1.0"), true, true),
            ids: RequestIds::starting_at(1),
        }
    }

    pub fn with_token(mut self, token: &str) -> Self {
        self.token = Some(token.to_owned());
        self
    }

    pub fn without_tasks(mut self) -> Self {
        self.meta.client_capabilities.extensions.clear();
        self
    }

    /// Sends a request with exactly the headers the protocol module computes.
    pub async fn send(&mut self, request: &ClientRequest) -> Answer {
        let id = self.ids.next_id();
        let body = request.envelope(&id, &self.meta);
        self.raw(&body, &request.http_headers()).await
    }

    pub async fn raw(&self, body: &Value, headers: &[(&str, String)]) -> Answer {
        let mut builder = self.http.post(&self.url).body(body.to_string());
        for (name, value) in headers {
            builder = builder.header(*name, value);
        }
        if let Some(token) = &self.token {
            builder = builder.bearer_auth(token);
        }
        let response = builder.send().await.expect("HTTP exchange");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("JSON body ({e}): {text}"));
        let outcome = match decode_message_value(value.clone()).expect("a JSON-RPC message") {
            Incoming::Response(r) => r.outcome,
            other => panic!("expected a response, got {other:?}"),
        };
        Answer { status, headers, outcome }
    }

    /// Decodes a result for `request`.
    pub async fn call(&mut self, request: ClientRequest) -> Result<RequestResult, RpcError> {
        let answer = self.send(&request).await;
        answer.outcome.map(|v| request.decode_result(&v).unwrap_or_else(|e| panic!("decoding {v}: {e}")))
    }

    pub async fn call_tool(&mut self, name: &str, args: Value) -> Result<ToolCallOutcome, RpcError> {
        let request = ClientRequest::CallTool(CallToolParams::new(name, args.as_object().cloned()));
        match self.call(request).await? {
            RequestResult::ToolCall(outcome) => Ok(outcome),
            other => panic!("not a tool result: {other:?}"),
        }
    }

    /// Starts a tool that must return a task; returns its id.
    pub async fn start_task(&mut self, name: &str, args: Value) -> String {
        match self.call_tool(name, args).await {
            Ok(ToolCallOutcome::Task(task)) => task.task_id,
            other => panic!("{name}: expected a task, got {other:?}"),
        }
    }

    pub async fn get(&mut self, task_id: &str) -> Result<DetailedTask, RpcError> {
        match self.call(ClientRequest::GetTask { task_id: task_id.into() }).await? {
            RequestResult::Task(t) => Ok(t),
            other => panic!("not a task: {other:?}"),
        }
    }

    pub async fn update(&mut self, task_id: &str, responses: InputResponses) -> Result<(), RpcError> {
        self.call(ClientRequest::UpdateTask { task_id: task_id.into(), input_responses: responses }).await.map(drop)
    }

    pub async fn cancel(&mut self, task_id: &str) -> Result<(), RpcError> {
        self.call(ClientRequest::CancelTask { task_id: task_id.into() }).await.map(drop)
    }

    /// Polls until `done(task)` or the deadline; returns the last observation.
    pub async fn poll_until(&mut self, task_id: &str, secs: u64, done: impl Fn(&DetailedTask) -> bool) -> DetailedTask {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let task = self.get(task_id).await.expect("tasks/get");
            if done(&task) {
                return task;
            }
            assert!(tokio::time::Instant::now() < deadline, "timed out waiting; last: {task:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn wait_status(&mut self, task_id: &str, status: TaskStatus, secs: u64) -> DetailedTask {
        self.poll_until(task_id, secs, |t| t.task.status == status).await
    }

    pub async fn wait_terminal(&mut self, task_id: &str, secs: u64) -> DetailedTask {
        self.poll_until(task_id, secs, |t| t.task.status.is_terminal()).await
    }
}

pub fn object(v: Value) -> Object {
    v.as_object().cloned().unwrap_or_default()
}

pub fn request_id(n: i64) -> RequestId {
    RequestId::Number(n)
}
