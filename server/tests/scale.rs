//! Light mode (`--light`): the scale tools `idle_job`, `idle_seed` and `idle_set`, over real HTTP, and the
//! engine's promise that idle tasks cost the tick nothing.
mod support;

use std::time::Duration;

use mcp_tasks_server::config::ServerConfig;
use mcp_tasks_server::engine::{Engine, EngineSettings};
use mcp_tasks_server::store::{DbLocation, TaskStore};
use mcp_tasks_server::tools::IdleTarget;
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::codes;
use mcp_tasks_web::protocol::request::ClientRequest;
use mcp_tasks_web::protocol::task::{StatusDetail, TaskStatus};
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;
use support::Client;

fn light() -> ServerConfig {
    ServerConfig { light: true, ..support::config() }
}

async fn tool_names(c: &mut Client) -> Vec<String> {
    let answer = c.send(&ClientRequest::ListTools { cursor: None }).await;
    answer.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// The structured content of a synchronous tool result.
async fn call_sync(c: &mut Client, name: &str, args: Value) -> Value {
    match c.call_tool(name, args).await {
        Ok(ToolCallOutcome::Complete(r)) => r.structured_content.expect("structuredContent"),
        other => panic!("{name}: expected a synchronous result, got {other:?}"),
    }
}

fn ids_of(seeded: &Value) -> Vec<String> {
    seeded["taskIds"].as_array().expect("taskIds").iter().map(|v| v.as_str().expect("id").to_owned()).collect()
}

#[tokio::test]
async fn scale_tools_exist_only_in_light_mode() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let names = tool_names(&mut c).await;
    assert!(names.iter().all(|n| !n.starts_with("idle_")), "{names:?}");
    let error = c.call_tool("idle_seed", json!({ "count": 3 })).await.expect_err("not offered");
    assert_eq!(error.code, codes::INVALID_PARAMS, "{error:?}");
    server.stop().await;

    let server = support::start(light()).await;
    let mut c = Client::new(&server);
    let names = tool_names(&mut c).await;
    assert_eq!(names.first().map(String::as_str), Some("greet"), "the demo tools keep their order");
    assert!(names.ends_with(&["idle_job".into(), "idle_seed".into(), "idle_set".into()]), "{names:?}");
    server.stop().await;
}

#[tokio::test]
async fn idle_tasks_stay_working_until_idle_set_changes_them_all() {
    let server = support::start(light()).await;
    let mut c = Client::new(&server);
    let single = c.start_task("idle_job", json!({})).await;
    let ids = ids_of(&call_sync(&mut c, "idle_seed", json!({ "count": 300 })).await);
    assert_eq!(ids.len(), 300);
    let first = c.get(&ids[0]).await.expect("seeded task exists");
    assert_eq!(first.task.status, TaskStatus::Working);
    assert_eq!(first.task.status_message.as_deref(), Some("Idle until released"));
    assert_eq!(first.task.poll_interval_ms, Some(100));

    // Several engine ticks later nothing has moved: same message, same lastUpdatedAt.
    tokio::time::sleep(Duration::from_millis(350)).await;
    let again = c.get(&ids[0]).await.expect("still there");
    assert_eq!(again, first, "an idle task does not change by itself");

    // A new working message for every live idle task: one visible change each.
    let moved = call_sync(&mut c, "idle_set", json!({ "status": "working", "message": "Still idle" })).await;
    assert_eq!(moved["changed"], 301);
    let nudged = c.get(&ids[299]).await.expect("live");
    assert_eq!((nudged.task.status, nudged.task.status_message.as_deref()), (TaskStatus::Working, Some("Still idle")));

    // Cancel one; then complete the rest.
    c.cancel(&single).await.expect("cancel acked");
    assert_eq!(c.get(&single).await.expect("there").task.status, TaskStatus::Cancelled);
    let done = call_sync(&mut c, "idle_set", json!({ "status": "completed" })).await;
    assert_eq!(done["changed"], 300, "the cancelled task is not live any more");
    for id in [&ids[0], &ids[150], &ids[299]] {
        let task = c.get(id).await.expect("there");
        assert_eq!(task.task.status, TaskStatus::Completed);
        let StatusDetail::Result(result) = &task.detail else { panic!("no result: {task:?}") };
        assert_eq!(result.content[0]["text"], "Released by idle_set");
    }
    // Nothing left to change.
    let none = call_sync(&mut c, "idle_set", json!({})).await;
    assert_eq!(none["changed"], 0);
    server.stop().await;
}

#[tokio::test]
async fn idle_seed_like_copies_the_timestamps_of_a_task() {
    let server = support::start(light()).await;
    let mut c = Client::new(&server);
    let model = c.start_task("idle_job", json!({})).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let ids = ids_of(&call_sync(&mut c, "idle_seed", json!({ "count": 3, "like": model })).await);
    let model = c.get(&model).await.expect("model").task;
    for id in &ids {
        let seeded = c.get(id).await.expect("seeded").task;
        assert_eq!((&seeded.created_at, &seeded.last_updated_at), (&model.created_at, &model.last_updated_at));
        assert_eq!((seeded.status, &seeded.status_message), (model.status, &model.status_message));
    }
    let error = c.call_tool("idle_seed", json!({ "count": 1, "like": "tsk_nope" })).await.expect_err("unknown");
    assert_eq!(error.code, codes::INVALID_PARAMS);
    server.stop().await;
}

#[tokio::test]
async fn scale_tools_check_their_arguments() {
    let server = support::start(light()).await;
    let mut c = Client::new(&server);
    for args in [json!({}), json!({ "count": 0 }), json!({ "count": 100_001 }), json!({ "count": 2.5 })] {
        let error = c.call_tool("idle_seed", args.clone()).await.expect_err("refused");
        assert_eq!(error.code, codes::INVALID_PARAMS, "{args}: {error:?}");
    }
    for args in [json!({ "status": "failed" }), json!({ "status": "working" })] {
        let error = c.call_tool("idle_set", args.clone()).await.expect_err("refused");
        assert_eq!(error.code, codes::INVALID_PARAMS, "{args}: {error:?}");
    }
    // idle_job is a task tool: a client without the Tasks extension is told so.
    let mut plain = Client::new(&server).without_tasks();
    let error = plain.call_tool("idle_job", json!({})).await.expect_err("needs the extension");
    assert_eq!(error.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);
    server.stop().await;
}

#[test]
fn the_tick_never_reads_idle_tasks() {
    let store = TaskStore::open(DbLocation::Memory).expect("store");
    let settings = EngineSettings {
        poll_interval_ms: 500,
        ttl_ms: Some(60_000),
        light: true,
        max_tasks_per_owner: mcp_tasks_server::config::DEFAULT_MAX_TASKS_PER_OWNER,
    };
    let engine = Engine::new(store, settings, "http://127.0.0.1:0".into());
    let ids = engine.seed_idle("anonymous", 2_000, None).expect("seeded");
    assert_eq!(ids.len(), 2_000);
    assert_eq!(engine.store().count().expect("count"), 2_000);
    assert!(engine.store().live().expect("live").is_empty(), "idle tasks are not rows the tick reads");
    engine.tick().expect("tick");
    let row = engine.get("anonymous", &ids[0]).expect("there");
    assert_eq!((row.status.as_str(), row.created_at), ("working", row.updated_at));
    assert_eq!(engine.set_idle("someone-else", &IdleTarget::Completed("done".into())).expect("set"), 0);
    assert_eq!(engine.set_idle("anonymous", &IdleTarget::Completed("done".into())).expect("set"), 2_000);
    assert!(engine.get("anonymous", &ids[1_999]).expect("there").is_terminal());
}
