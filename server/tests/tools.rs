//! Every demo tool path over real HTTP on loopback.
mod support;

use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::machine::mrtr::MrtrCall;
use mcp_tasks_web::protocol::form::{FieldKind, FormModel};
use mcp_tasks_web::protocol::input::{ElicitAction, ElicitRequest, InputRequest, InputResponse, InputResponses};
use mcp_tasks_web::protocol::request::RequestResult;
use mcp_tasks_web::protocol::task::{StatusDetail, TaskStatus};
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;
use support::{object, Client};

fn answer(key: &str, content: Value) -> InputResponses {
    [(key.to_owned(), InputResponse::accept(object(content)))].into_iter().collect()
}

fn form_of(task: &mcp_tasks_web::protocol::task::DetailedTask, key: &str) -> FormModel {
    let StatusDetail::InputRequests(requests) = &task.detail else { panic!("no input requests: {task:?}") };
    let Some(InputRequest::Elicitation(ElicitRequest::Form { requested_schema, .. })) = requests.get(key) else {
        panic!("no form under {key}: {requests:?}")
    };
    FormModel::from_schema(requested_schema).expect("the server's form parses")
}

#[tokio::test]
async fn discover_and_tools_list() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let Ok(RequestResult::Discover(d)) = c.call(mcp_tasks_web::protocol::request::ClientRequest::Discover).await else {
        panic!()
    };
    assert!(d.supports_tasks());
    assert_eq!(d.supported_versions, ["2026-07-28"]);
    let body = json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": { "_meta": c.meta.to_json() } });
    let headers = mcp_tasks_web::protocol::headers::request_headers("tools/list", None);
    let list = c.raw(&body, &headers).await;
    let names: Vec<&str> =
        list.result()["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    let demo = ["build", "deploy", "flaky", "tool_error", "long_job", "stubborn_job", "login", "echo"];
    for tool in demo.into_iter().chain(["ask_first", "survey", "ask_model"]) {
        assert!(names.contains(&tool), "{tool} listed");
    }
    assert_eq!(names.first(), Some(&"greet"), "the conformance suite calls the first listed tool");
    server.stop().await;
}

#[tokio::test]
async fn echo_is_synchronous() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let Ok(ToolCallOutcome::Complete(r)) = c.call_tool("echo", json!({ "text": "héllo" })).await else { panic!() };
    assert_eq!(r.content[0]["text"], "héllo");
    assert_eq!(r.structured_content, Some(json!({ "echo": "héllo", "length": 5 })));
    server.stop().await;
}

#[tokio::test]
async fn build_reports_progress_then_completes() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("build", json!({ "seconds": 2, "target": "web" })).await;
    let mut messages = std::collections::BTreeSet::new();
    let done = c.poll_until(&id, 10, |t| t.task.status == TaskStatus::Completed).await;
    // Poll again during a second build to see the message move.
    let id2 = c.start_task("build", json!({ "seconds": 2, "target": "app" })).await;
    for _ in 0..25 {
        let t = c.get(&id2).await.expect("get");
        messages.extend(t.task.status_message.clone());
        if t.task.status.is_terminal() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(messages.len() >= 2, "the status message changes every second: {messages:?}");
    let StatusDetail::Result(result) = &done.detail else { panic!("{done:?}") };
    assert_eq!(result.structured_content.as_ref().map(|s| s["target"].clone()), Some(json!("web")));
    assert_eq!(result.structured_content.as_ref().map(|s| s["ok"].clone()), Some(json!(true)));
    assert!(result.content[0]["text"].as_str().is_some_and(|t| t.contains("Built web")));
    server.stop().await;
}

#[tokio::test]
async fn deploy_to_staging_asks_one_form() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("deploy", json!({ "service": "api", "environment": "staging" })).await;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    let form = form_of(&asked, "approval-1");
    let kinds: Vec<&str> = form
        .fields()
        .iter()
        .map(|f| match &f.kind {
            FieldKind::Boolean { .. } => "boolean",
            FieldKind::Text { .. } => "text",
            FieldKind::Number { integer: true, minimum: Some(_), maximum: Some(_), .. } => "bounded integer",
            FieldKind::SingleSelect { .. } => "enum",
            _ => "other",
        })
        .collect();
    for kind in ["boolean", "text", "bounded integer", "enum"] {
        assert!(kinds.contains(&kind), "{kind} field in {kinds:?}");
    }
    // An unknown key is ignored; the real one is taken.
    let mut responses =
        answer("approval-1", json!({ "confirm": true, "reason": "tests", "replicas": 3, "strategy": "canary" }));
    responses.insert("never-issued".into(), InputResponse::action(ElicitAction::Accept));
    c.update(&id, responses).await.expect("ack");
    let done = c.wait_terminal(&id, 10).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    let StatusDetail::Result(r) = &done.detail else { panic!() };
    assert_eq!(
        r.structured_content.as_ref().map(|s| (s["replicas"].clone(), s["strategy"].clone())),
        Some((json!(3), json!("canary")))
    );
    server.stop().await;
}

#[tokio::test]
async fn deploy_to_production_asks_a_second_round_with_a_new_key() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("deploy", json!({ "service": "api", "environment": "production" })).await;
    c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    c.update(&id, answer("approval-1", json!({ "confirm": true, "strategy": "rolling" }))).await.expect("ack");
    let second = c
        .poll_until(&id, 5, |t| matches!(&t.detail, StatusDetail::InputRequests(r) if r.contains_key("production-2")))
        .await;
    let StatusDetail::InputRequests(requests) = &second.detail else { panic!() };
    assert!(!requests.contains_key("approval-1"), "an answered key is not asked again");
    // Re-sending the answered key is harmless.
    c.update(&id, answer("approval-1", json!({ "confirm": false }))).await.expect("ack");
    assert_eq!(c.get(&id).await.expect("get").task.status, TaskStatus::InputRequired);
    c.update(&id, answer("production-2", json!({ "service": "api", "window": "now" }))).await.expect("ack");
    let done = c.wait_terminal(&id, 10).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    server.stop().await;
}

#[tokio::test]
async fn rejected_deploy_fails_with_a_json_rpc_error() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("deploy", json!({ "service": "api" })).await;
    c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    c.update(&id, answer("approval-1", json!({ "confirm": false, "reason": "change freeze", "strategy": "rolling" })))
        .await
        .expect("ack");
    let done = c.wait_terminal(&id, 5).await;
    let StatusDetail::Error(e) = &done.detail else { panic!("{done:?}") };
    assert_eq!((done.task.status, e.code), (TaskStatus::Failed, -32000));
    assert!(e.message.contains("change freeze"));
    server.stop().await;
}

#[tokio::test]
async fn flaky_fails_and_tool_error_completes_as_an_error() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let flaky = c.start_task("flaky", json!({ "seconds": 0.3 })).await;
    let failed = c.wait_terminal(&flaky, 5).await;
    assert!(matches!(&failed.detail, StatusDetail::Error(e) if e.code == -32603), "{failed:?}");
    let tool_error = c.start_task("tool_error", json!({})).await;
    let done = c.wait_terminal(&tool_error, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed);
    assert!(matches!(&done.detail, StatusDetail::Result(r) if r.is_tool_error()));
    server.stop().await;
}

#[tokio::test]
async fn long_job_honours_cancel_and_cancel_is_idempotent() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("long_job", json!({})).await;
    c.cancel(&id).await.expect("ack");
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Cancelled);
    c.cancel(&id).await.expect("a second cancel on a finished task is acknowledged too");
    server.stop().await;
}

#[tokio::test]
async fn stubborn_job_acks_cancel_but_completes() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("stubborn_job", json!({ "seconds": 1 })).await;
    c.cancel(&id).await.expect("ack");
    assert_eq!(c.get(&id).await.expect("get").task.status, TaskStatus::Working);
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed);
    server.stop().await;
}

#[tokio::test]
async fn login_asks_for_a_url_and_completes_when_it_is_visited() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("login", json!({ "provider": "example-idp" })).await;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    let StatusDetail::InputRequests(r) = &asked.detail else { panic!() };
    let Some(InputRequest::Elicitation(ElicitRequest::Url { url, .. })) = r.get("login-1") else { panic!("{r:?}") };
    assert!(url.starts_with(&server.base_url()), "{url}");
    c.update(&id, [("login-1".to_string(), InputResponse::action(ElicitAction::Accept))].into_iter().collect())
        .await
        .expect("ack");
    assert_eq!(c.wait_status(&id, TaskStatus::Working, 5).await.task.status, TaskStatus::Working);
    let page = reqwest::get(url.as_str()).await.expect("login page");
    assert_eq!(page.status(), 200);
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed);
    server.stop().await;
}

#[tokio::test]
async fn login_asks_for_the_url_argument_verbatim() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let hostile = "https://evil.example\\@bank.example/login";
    let id = c.start_task("login", json!({ "url": hostile })).await;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    let StatusDetail::InputRequests(r) = &asked.detail else { panic!() };
    let Some(InputRequest::Elicitation(ElicitRequest::Url { url, .. })) = r.get("login-1") else { panic!("{r:?}") };
    assert_eq!(url, hostile);
    server.stop().await;
}

#[tokio::test]
async fn ask_first_uses_mrtr_before_creating_its_task() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let mut call = MrtrCall::new("ask_first", None);
    let (id, first) = call.first(&mut c.ids);
    let answer1 = c.raw(&first.envelope(&id, &c.meta), &first.http_headers()).await;
    let Ok(ToolCallOutcome::InputRequired(round)) = first.decode_result(answer1.result()).map(|r| match r {
        RequestResult::ToolCall(o) => o,
        other => panic!("{other:?}"),
    }) else {
        panic!("expected input_required")
    };
    assert!(round.request_state.is_some());
    let (retry_id, retry) =
        call.retry(&mut c.ids, &round, answer("name-1", json!({ "name": "Ferris" }))).expect("retry");
    let answer2 = c.raw(&retry.envelope(&retry_id, &c.meta), &retry.http_headers()).await;
    let Ok(RequestResult::ToolCall(ToolCallOutcome::Task(task))) = retry.decode_result(answer2.result()) else {
        panic!("expected a task")
    };
    let done = c.wait_terminal(&task.task_id, 5).await;
    let StatusDetail::Result(r) = &done.detail else { panic!() };
    assert!(r.content[0]["text"].as_str().is_some_and(|t| t.contains("Ferris")));

    // A forged request state is not trusted: the server asks again.
    let mut forged = round.clone();
    forged.request_state = Some("rs_forged".into());
    let mut call = MrtrCall::new("ask_first", None);
    let (fid, freq) = call.retry(&mut c.ids, &forged, answer("name-1", json!({ "name": "Mallory" }))).expect("retry");
    let again = c.raw(&freq.envelope(&fid, &c.meta), &freq.http_headers()).await;
    assert_eq!(again.result()["resultType"], "input_required");
    server.stop().await;
}

#[tokio::test]
async fn without_the_extension_optional_tools_run_inline_and_required_ones_refuse() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server).without_tasks();
    let Ok(ToolCallOutcome::Complete(r)) = c.call_tool("build", json!({ "seconds": 0.2 })).await else {
        panic!("inline result")
    };
    assert!(r.structured_content.is_some());
    let refused = c
        .send(&mcp_tasks_web::protocol::request::ClientRequest::CallTool(
            mcp_tasks_web::protocol::request::CallToolParams::new("deploy", Some(object(json!({ "service": "api" })))),
        ))
        .await;
    assert_eq!((refused.status, refused.error().code), (400, -32021));
    assert!(refused.error().requires_tasks_extension());
    let get = c.send(&mcp_tasks_web::protocol::request::ClientRequest::GetTask { task_id: "anything".into() }).await;
    assert_eq!((get.status, get.error().code), (400, -32021));
    let Err(e) = c.call_tool("flaky", json!({ "seconds": 0 })).await else { panic!("inline error") };
    assert_eq!(e.code, -32603);
    server.stop().await;
}
