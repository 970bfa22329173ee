//! The tools behind the `<mcp-task>` element's tests and demo, over real HTTP on loopback: `survey` (one
//! form with every field kind, answered verbatim) and `ask_model` (sampling and roots asked at once).
mod support;

use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::form::{FormModel, WidgetHint};
use mcp_tasks_web::protocol::input::{ElicitAction, ElicitRequest, InputRequest, InputResponse, InputResponses};
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, TaskStatus};
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use support::{object, Client};

const HOSTILE: &str = "<img src=x onerror=alert(1)>";

fn one(key: &str, response: InputResponse) -> InputResponses {
    [(key.to_owned(), response)].into_iter().collect()
}

/// The form asked under `key`: its message and `requestedSchema`.
fn form_of(task: &DetailedTask, key: &str) -> (String, Value) {
    let StatusDetail::InputRequests(requests) = &task.detail else { panic!("no input requests: {task:?}") };
    let Some(InputRequest::Elicitation(ElicitRequest::Form { message, requested_schema })) = requests.get(key) else {
        panic!("no form under {key}: {requests:?}")
    };
    (message.clone(), requested_schema.clone())
}

fn result_of(task: &DetailedTask) -> &CallToolResult {
    let StatusDetail::Result(result) = &task.detail else { panic!("not completed: {task:?}") };
    result
}

fn titled(options: &[(&str, &str)]) -> Value {
    options.iter().map(|(value, title)| json!({ "const": value, "title": title })).collect()
}

/// The schema `survey` must ask, written out independently of the server's code.
fn expected_schema(label: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "email": { "type": "string", "format": "email", "title": "Email", "description": "Where we send the summary" },
            "website": { "type": "string", "format": "uri", "title": "Website" },
            "birthday": { "type": "string", "format": "date", "title": "Birthday" },
            "nickname": { "type": "string", "minLength": 2, "maxLength": 20, "default": "sam", "title": label,
                          "description": format!("What should {label} call you?") },
            "rating": { "type": "number", "minimum": 0, "maximum": 5, "title": "Rating" },
            "count": { "type": "integer", "minimum": 1, "maximum": 10, "default": 3, "title": "How many" },
            "subscribe": { "type": "boolean", "default": false, "title": "Subscribe" },
            "size": { "type": "string", "oneOf": titled(&[("s", "Small"), ("m", "Medium"), ("l", "Large")]),
                      "default": "m", "title": "Size" },
            "country": { "type": "string", "title": "Country", "oneOf": titled(&[
                ("th", "Thailand"), ("jp", "Japan"), ("de", "Germany"), ("br", "Brazil"),
                ("ke", "Kenya"), ("ca", "Canada"), ("in", "India"), ("au", "Australia")]) },
            "topics": { "type": "array", "minItems": 1, "maxItems": 3, "title": "Topics",
                        "items": { "anyOf": titled(&[("rust", "Rust"), ("wasm", "WebAssembly"), ("web", "The web"), ("mcp", "MCP")]) } }
        },
        "required": ["email", "size", "topics"]
    })
}

#[tokio::test]
async fn survey_asks_one_form_with_every_field_kind() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let Ok(ToolCallOutcome::Task(created)) = c.call_tool("survey", json!({})).await else { panic!("expected a task") };
    assert_eq!(created.status_message.as_deref(), Some("Survey: preparing the questions"));
    let id = created.task_id;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    assert_eq!(asked.task.status_message.as_deref(), Some("Survey: waiting for your answers"));
    let StatusDetail::InputRequests(requests) = &asked.detail else { panic!("{asked:?}") };
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["survey-1"]);
    let (message, schema) = form_of(&asked, "survey-1");
    assert_eq!(message, "Survey: tell us about yourself");
    assert_eq!(schema, expected_schema("Survey"));

    // The client's own form model accepts it and picks radios for 3 options, a select for 8.
    let form = FormModel::from_schema(&schema).expect("the survey form parses");
    let widget = |name: &str| form.fields().iter().find(|f| f.name == name).map(|f| f.kind.widget_hint());
    assert_eq!(widget("size"), Some(WidgetHint::Radio));
    assert_eq!(widget("country"), Some(WidgetHint::Select));
    assert_eq!(widget("topics"), Some(WidgetHint::Checkboxes));
    server.stop().await;
}

#[tokio::test]
async fn survey_returns_an_accepted_answer_verbatim() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("survey", json!({ "label": "Team survey" })).await;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    let (_, schema) = form_of(&asked, "survey-1");
    let form = FormModel::from_schema(&schema).expect("parses");
    let content = json!({
        "email": "ferris@example.org", "website": "https://example.org/ferris", "birthday": "2015-05-15",
        "nickname": "ferris", "rating": 4.5, "count": 7, "subscribe": true, "size": "l", "country": "ke",
        "topics": ["rust", "mcp"]
    });
    let sent = form.validate(&object(content.clone())).expect("a valid answer, as a browser form would send");
    assert_eq!(Value::Object(sent.clone()), content);
    c.update(&id, one("survey-1", InputResponse::accept(sent))).await.expect("ack");
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    let result = result_of(&done);
    assert_eq!(result.content[0]["text"], "Survey answered: accept");
    assert_eq!(result.structured_content, Some(json!({ "action": "accept", "content": content })));
    server.stop().await;
}

#[tokio::test]
async fn survey_completes_on_decline_with_null_content() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("survey", json!({})).await;
    c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    c.update(&id, one("survey-1", InputResponse::action(ElicitAction::Decline))).await.expect("ack");
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    let result = result_of(&done);
    assert_eq!(result.content[0]["text"], "Survey answered: decline");
    assert_eq!(result.structured_content, Some(json!({ "action": "decline", "content": null })));
    server.stop().await;
}

#[tokio::test]
async fn survey_carries_a_hostile_label_verbatim() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("survey", json!({ "label": HOSTILE })).await;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    assert_eq!(asked.task.status_message, Some(format!("{HOSTILE}: waiting for your answers")));
    let (message, schema) = form_of(&asked, "survey-1");
    assert_eq!(message, format!("{HOSTILE}: tell us about yourself"));
    assert_eq!(schema["properties"]["nickname"]["title"], HOSTILE);
    assert_eq!(schema["properties"]["nickname"]["description"], format!("What should {HOSTILE} call you?"));
    assert_eq!(schema, expected_schema(HOSTILE), "the server does not escape; the client renders text");
    server.stop().await;
}

#[tokio::test]
async fn survey_honours_cancel_while_waiting_for_answers() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("survey", json!({})).await;
    c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    c.cancel(&id).await.expect("ack");
    assert_eq!(c.wait_terminal(&id, 5).await.task.status, TaskStatus::Cancelled);
    server.stop().await;
}

fn sampling_answer() -> Value {
    json!({ "role": "assistant", "content": { "type": "text", "text": "The build passed with two warnings." },
            "model": "test-model-1", "stopReason": "endTurn" })
}

fn roots_answer() -> Value {
    json!({ "roots": [{ "uri": "file:///work/project", "name": "project" }, { "uri": "file:///work/logs" }] })
}

#[tokio::test]
async fn ask_model_asks_sampling_and_roots_and_completes_with_both_answers() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("ask_model", json!({})).await;
    let asked = c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    assert_eq!(asked.task.status_message.as_deref(), Some("Waiting for the host to run a model and list roots"));
    let StatusDetail::InputRequests(requests) = &asked.detail else { panic!("{asked:?}") };
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["roots-1", "sampling-1"]);
    let sampling = requests.get("sampling-1").map(InputRequest::to_json);
    assert_eq!(
        sampling,
        Some(json!({ "method": "sampling/createMessage", "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": "Summarize the build log in one sentence." } }],
            "maxTokens": 100 } }))
    );
    assert_eq!(requests.get("roots-1").map(InputRequest::to_json), Some(json!({ "method": "roots/list" })));

    let answers: InputResponses = [
        ("sampling-1".to_owned(), InputResponse::Sampling(sampling_answer())),
        ("roots-1".to_owned(), InputResponse::Roots(roots_answer())),
    ]
    .into_iter()
    .collect();
    c.update(&id, answers).await.expect("ack");
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    let result = result_of(&done);
    assert_eq!(result.structured_content, Some(json!({ "sampling": sampling_answer(), "roots": roots_answer() })));
    let text = result.content[0]["text"].as_str().unwrap_or_default();
    for part in ["test-model-1", "The build passed with two warnings.", "file:///work/project", "file:///work/logs"] {
        assert!(text.contains(part), "{part} in the summary: {text}");
    }
    server.stop().await;
}

#[tokio::test]
async fn ask_model_stays_input_required_until_both_answers_arrive() {
    let server = support::start(support::config()).await;
    let mut c = Client::new(&server);
    let id = c.start_task("ask_model", json!({})).await;
    c.wait_status(&id, TaskStatus::InputRequired, 5).await;
    c.update(&id, one("sampling-1", InputResponse::Sampling(sampling_answer()))).await.expect("ack");
    // Give the engine a few ticks to show it is not moving on with half the answers.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let partial = c.get(&id).await.expect("get");
    assert_eq!(partial.task.status, TaskStatus::InputRequired, "{partial:?}");
    let StatusDetail::InputRequests(requests) = &partial.detail else { panic!("{partial:?}") };
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["roots-1"], "only the unanswered key is still asked");

    c.update(&id, one("roots-1", InputResponse::Roots(roots_answer()))).await.expect("ack");
    let done = c.wait_terminal(&id, 5).await;
    assert_eq!(done.task.status, TaskStatus::Completed, "{done:?}");
    assert_eq!(
        result_of(&done).structured_content,
        Some(json!({ "sampling": sampling_answer(), "roots": roots_answer() }))
    );
    server.stop().await;
}
