//! The client reads every answer with `parse_answer`, which keeps a `tasks/get` tool result's parts as
//! raw text: each answer must decode to the same task, or fail with the same typed error, as when read
//! as a whole tree, and the task must write back the JSON it came as.
use mcp_tasks_web::json::{self, Value};
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, parse_answer, Incoming};
use mcp_tasks_web::protocol::request::{ClientRequest, RequestResult};
use mcp_tasks_web::protocol::task::StatusDetail;
use mcp_tasks_web::protocol::DecodeError;

fn body(result: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"result":{{"taskId":"t1","status":"completed","createdAt":"2026-01-01T00:00:00Z",
        "lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":null,"resultType":"complete","result":{result},
        "_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"s","version":"1"}}}}}}}}"#
    )
}

fn decode(message: Value) -> Result<RequestResult, DecodeError> {
    let Ok(Incoming::Response(response)) = decode_message_value(message) else { panic!("a response") };
    let result = response.outcome.expect("a result");
    ClientRequest::GetTask { task_id: "t1".into() }.decode_result(&result)
}

fn both(text: &str) -> (Result<RequestResult, DecodeError>, Result<RequestResult, DecodeError>) {
    (decode(parse_answer(text).expect("JSON")), decode(json::from_str(text).expect("JSON")))
}

#[test]
fn a_tool_result_decodes_alike_and_writes_back_as_it_came() {
    let result = r#"{"content":[{"type":"text","text":"line 1\nline \"2\" é"},{"type":"resource","resource":{"uri":"x:y"}}],
        "structuredContent":{"artifacts":[{"path":"a","bytes":1e3}]},"isError":false,"_meta":{"trace":[1,2.50]}}"#;
    let text = body(result);
    let (raw, tree) = both(&text);
    assert_eq!(raw, tree);
    let Ok(RequestResult::Task(task)) = raw else { panic!("a task: {raw:?}") };
    let Ok(RequestResult::Task(tree_task)) = tree else { panic!("a task: {tree:?}") };
    let StatusDetail::Result(r) = &task.detail else { panic!("a result") };
    assert!(matches!(&r.content[0], Value::Raw(_)), "blocks stay text: {:?}", r.content[0]);
    assert!(matches!(r.structured_content, Some(Value::Raw(_))));
    assert_eq!(r.is_error, Some(false));
    let written = json::to_string(&task.to_get_result());
    assert!(written.contains(r#""structuredContent":{"artifacts":[{"path":"a","bytes":1e3}]}"#), "{written}");
    assert!(written.contains(r#""_meta":{"trace":[1,2.50]}"#), "{written}");
    assert_eq!(json::from_str(&written).expect("JSON"), tree_task.to_get_result());
    let mut expanded = task.to_get_result();
    expanded.expand();
    assert_eq!(expanded["result"]["content"][0]["text"], "line 1\nline \"2\" é");
    assert_eq!(expanded, task.to_get_result());
}

#[test]
fn a_wrong_tool_result_fails_alike() {
    for result in [
        r#"{"content":{"type":"text"}}"#,
        r#"{"content":[],"isError":{"no":1}}"#,
        r#"{"content":[],"isError":"yes"}"#,
        r#"{"resultType":"task","content":[]}"#,
        r#"{"resultType":{"x":1},"content":[]}"#,
        r#"{"taskId":"t1","status":"working"}"#,
        r#"[{"content":[]}]"#,
        r#""done""#,
        r#"null"#,
    ] {
        let (raw, tree) = both(&body(result));
        assert!(raw.is_err(), "{result}: {raw:?}");
        assert_eq!(raw, tree, "{result}");
    }
}

#[test]
fn malformed_json_inside_a_kept_part_is_refused_where_the_tree_refuses_it() {
    for result in [
        r#"{"content":[{"type":"text","text":"a	b"}]}"#,
        r#"{"content":[{"type":"text",}]}"#,
        r#"{"content":[],"structuredContent":{"a":[1 2]}}"#,
        r#"{"content":[],"_meta":{"a":"\x"}}"#,
    ] {
        let text = body(result);
        let (raw, tree) = (parse_answer(&text), json::from_str(&text));
        assert!(raw.is_err(), "{result}");
        assert_eq!(raw.err(), tree.err(), "{result}");
    }
}

#[test]
fn a_pushed_task_decodes_alike() {
    use mcp_tasks_web::protocol::subscriptions::ServerNotification;
    let text = r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed",
        "createdAt":"a","lastUpdatedAt":"b","ttlMs":5,"result":{"content":[{"type":"text","text":"ok"}],"isError":true},
        "_meta":{"io.modelcontextprotocol/subscriptionId":"s1"}}}"#;
    let decode = |message: Value| match decode_message_value(message) {
        Ok(Incoming::Notification { method, params }) => ServerNotification::decode(&method, &params),
        other => panic!("a notification: {other:?}"),
    };
    let raw = decode(parse_answer(text).expect("JSON"));
    assert_eq!(raw, decode(json::from_str(text).expect("JSON")));
    let Ok(ServerNotification::TaskStatus { task, .. }) = raw else { panic!("a task: {raw:?}") };
    let StatusDetail::Result(r) = &task.detail else { panic!("a result") };
    assert!(matches!(&r.content[0], Value::Raw(_)) && r.is_tool_error());
}

fn asking(request: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"result":{{"taskId":"t1","status":"input_required","createdAt":"a","lastUpdatedAt":"b",
        "ttlMs":null,"inputRequests":{{"q1":{request},"q2":{{"method":"elicitation/create","params":{{"mode":"url","message":"m","url":"https://x.test/"}}}}}}}}}}"#
    )
}

#[test]
fn a_question_decodes_alike_with_its_schema_kept_as_text() {
    use mcp_tasks_web::protocol::input::{ElicitRequest, InputRequest};
    let form = r#"{"method":"elicitation/create","params":{"message":"Ship?","requestedSchema":{"type":"object",
        "properties":{"ok":{"type":"boolean","default":true}},"required":["ok"]},"_meta":{"x":1}}}"#;
    let (raw, tree) = both(&asking(form));
    assert_eq!(raw, tree);
    let Ok(RequestResult::Task(task)) = raw else { panic!("a task: {raw:?}") };
    let requests = task.input_requests().expect("questions");
    let Some(InputRequest::Elicitation(ElicitRequest::Form { requested_schema, .. })) = requests.get("q1") else {
        panic!("a form: {requests:?}")
    };
    assert!(matches!(requested_schema, Value::Raw(_)), "{requested_schema:?}");
    let mut schema = requested_schema.clone();
    schema.expand();
    assert_eq!(schema["properties"]["ok"]["default"], true);
    for wrong in [
        r#"{"method":"elicitation/create","params":{"message":"m","requestedSchema":["not","an","object"]}}"#,
        r#"{"method":"elicitation/create","params":{"message":"m","requestedSchema":"text"}}"#,
        r#"{"method":"elicitation/create","params":{"message":{"no":1},"requestedSchema":{}}}"#,
        r#"{"method":"elicitation/create","params":{"message":"m","mode":{"form":1},"requestedSchema":{}}}"#,
        r#"{"method":"elicitation/create","params":{"message":"m"}}"#,
        r#"{"method":{"x":1},"params":{}}"#,
    ] {
        let (raw, tree) = both(&asking(wrong));
        assert!(raw.is_err(), "{wrong}: {raw:?}");
        assert_eq!(raw, tree, "{wrong}");
    }
}
