//! Per-owner limits: stored tasks, and MRTR request states that expire.
mod support;

use std::time::Duration;

use mcp_tasks_web::json::json;
use mcp_tasks_web::machine::mrtr::MrtrCall;
use mcp_tasks_web::protocol::input::{InputResponse, InputResponses};
use mcp_tasks_web::protocol::request::RequestResult;
use mcp_tasks_web::protocol::tool_call::{InputRequiredResult, ToolCallOutcome};
use support::{object, Client};

#[tokio::test]
async fn one_owner_cannot_store_more_tasks_than_the_cap() {
    let mut config = support::config();
    config.auth_tokens = vec!["alice".into(), "bob".into()];
    config.max_tasks_per_owner = 3;
    config.light = true;
    let server = support::start(config).await;
    let mut alice = Client::new(&server).with_token("alice");
    for _ in 0..3 {
        alice.start_task("long_job", json!({})).await;
    }
    let refused = alice.call_tool("long_job", json!({})).await.expect_err("the fourth is refused");
    assert_eq!(refused.code, -32000, "{refused}");
    assert!(refused.message.contains("3 tasks") && refused.message.contains("--max-tasks-per-owner"), "{refused}");
    assert_eq!(refused.to_json()["data"]["maxTasksPerOwner"], json!(3), "{refused:?}");
    // Finished tasks still count while stored: ending one frees nothing until it expires.
    let refused = alice.call_tool("idle_seed", json!({ "count": 1 })).await.expect_err("bulk creation too");
    assert_eq!(refused.code, -32000, "{refused}");
    // Another owner has a cap of its own.
    let mut bob = Client::new(&server).with_token("bob");
    bob.start_task("long_job", json!({})).await;
    let seeded = bob.call_tool("idle_seed", json!({ "count": 2 })).await.expect("2 more fit");
    assert!(matches!(seeded, ToolCallOutcome::Complete(_)));
    let refused = bob.call_tool("idle_seed", json!({ "count": 1 })).await.expect_err("bob is full now");
    assert_eq!(refused.code, -32000);
    // Synchronous and inline calls store no task and are not capped.
    assert!(alice.call_tool("echo", json!({ "text": "hi" })).await.is_ok());
    server.stop().await;
}

#[tokio::test]
async fn expired_tasks_free_their_owner_s_quota() {
    let mut config = support::config();
    config.max_tasks_per_owner = 1;
    config.ttl_ms = 300;
    let server = support::start(config).await;
    let mut c = Client::new(&server);
    c.start_task("build", json!({ "seconds": 0 })).await;
    assert!(c.call_tool("build", json!({ "seconds": 0 })).await.is_err(), "full");
    tokio::time::sleep(Duration::from_millis(700)).await;
    c.start_task("build", json!({ "seconds": 0 })).await;
    server.stop().await;
}

fn name(value: &str) -> InputResponses {
    [("name-1".to_owned(), InputResponse::accept(object(json!({ "name": value }))))].into_iter().collect()
}

/// `ask_first`'s first round: its `requestState` token.
async fn first_round(c: &mut Client) -> InputRequiredResult {
    match c.call_tool("ask_first", json!({})).await.expect("answered") {
        ToolCallOutcome::InputRequired(round) => round,
        other => panic!("expected input_required, got {other:?}"),
    }
}

/// Answers `round`; what the server did with the answer.
async fn answer(c: &mut Client, round: &InputRequiredResult) -> ToolCallOutcome {
    let mut call = MrtrCall::new("ask_first", None);
    let (id, retry) = call.retry(&mut c.ids, round, name("Ferris")).expect("retry");
    let answered = c.raw(&retry.envelope(&id, &c.meta), &retry.http_headers()).await;
    match retry.decode_result(answered.result()) {
        Ok(RequestResult::ToolCall(outcome)) => outcome,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn mrtr_request_states_expire() {
    let mut config = support::config();
    config.mrtr_state_ttl_ms = 400;
    let server = support::start(config).await;
    let mut c = Client::new(&server);
    let round = first_round(&mut c).await;
    assert!(matches!(answer(&mut c, &round).await, ToolCallOutcome::Task(_)), "answered in time: a task");
    let stale = first_round(&mut c).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    match answer(&mut c, &stale).await {
        ToolCallOutcome::InputRequired(again) => {
            assert_ne!(again.request_state, stale.request_state, "a new round, with a new state")
        }
        other => panic!("an expired state is asked again, not trusted: {other:?}"),
    }
    server.stop().await;
}
