//! The `report` tool's MCP App: listed with `_meta.ui.resourceUri`, served by `resources/read`, and the
//! task's result is the one the app shows.
mod support;

use mcp_tasks_web::json::json;
use mcp_tasks_web::protocol::request::{ClientRequest, RequestResult};
use mcp_tasks_web::protocol::task::{StatusDetail, TaskStatus};
use support::Client;

const URI: &str = "ui://mcp-tasks-server/report.html";

#[tokio::test]
async fn report_lists_its_app_and_the_app_is_read() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let Ok(RequestResult::ToolList(page)) = c.call(ClientRequest::ListTools { cursor: None }).await else { panic!() };
    let tools = page.get("tools").and_then(|t| t.as_array()).expect("tools");
    let report = tools.iter().find(|t| t["name"] == "report").expect("report listed");
    assert_eq!(report["_meta"]["ui"]["resourceUri"], URI);
    assert_eq!(report["_meta"]["ui/resourceUri"], URI);
    let echo = tools.iter().find(|t| t["name"] == "echo").expect("echo listed");
    assert!(echo["_meta"].get("ui").is_none(), "a tool without an app names none");

    let read = c.call(ClientRequest::ReadResource { uri: URI.into() }).await;
    let Ok(RequestResult::Resource(read)) = read else { panic!("{read:?}") };
    let contents = read.get("contents").and_then(|c| c.as_array()).expect("contents");
    assert_eq!(contents.len(), 1);
    assert_eq!(contents[0]["uri"], URI);
    assert_eq!(contents[0]["mimeType"], "text/html;profile=mcp-app");
    let html = contents[0]["text"].as_str().expect("html text");
    assert!(
        html.contains("ui/initialize") && html.contains("ui/notifications/tool-result"),
        "speaks the Apps protocol"
    );

    let task = c.start_task("report", json!({ "seconds": 0, "title": "Q3" })).await;
    let done = c.wait_status(&task, TaskStatus::Completed, 10).await;
    let StatusDetail::Result(result) = &done.detail else { panic!("{done:?}") };
    assert_eq!(result.structured_content, Some(json!({ "title": "Q3", "done": 3, "open": 1 })));
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_resource_is_refused_with_its_uri() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let Err(e) = c.call(ClientRequest::ReadResource { uri: "ui://nowhere/x.html".into() }).await else { panic!() };
    assert_eq!(e.code, -32002);
    assert!(e.message.contains("ui://nowhere/x.html"), "{}", e.message);
    server.stop().await;
}
