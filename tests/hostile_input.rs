//! No panics on hostile input: random bytes, random JSON, and mutated real messages go through every
//! decoder, and each either decodes or returns a typed error.
mod common;

use mcp_tasks_web::json::Value;
use mcp_tasks_web::machine::record::TaskRecord;
use mcp_tasks_web::machine::stored::from_stored;
use mcp_tasks_web::protocol::discover::DiscoverResult;
use mcp_tasks_web::protocol::form::FormModel;
use mcp_tasks_web::protocol::headers::{base64_decode, decode_header_value};
use mcp_tasks_web::protocol::input::{
    decode_input_requests, decode_input_responses, ElicitRequest, InputRequest, InputResponse,
};
use mcp_tasks_web::protocol::jsonrpc::{decode_message, decode_message_value, decode_response, RpcError};
use mcp_tasks_web::protocol::meta::{check_tasks_extension_settings, ClientCapabilities, Implementation, RequestMeta};
use mcp_tasks_web::protocol::request::{decode_ack, CallToolParams, ClientRequest};
use mcp_tasks_web::protocol::subscriptions::{decode_listen_closed, ListenFilter, ServerNotification};
use mcp_tasks_web::protocol::task::{decode_get_task_result, DetailedTask};
use mcp_tasks_web::protocol::timestamp::parse_millis;
use mcp_tasks_web::protocol::tool_call::decode_tool_call_result;
use proptest::prelude::*;

const METHODS: [&str; 9] = [
    "tools/call",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "server/discover",
    "subscriptions/listen",
    "notifications/tasks",
    "notifications/subscriptions/acknowledged",
    "notifications/cancelled",
];

/// Feeds one value to every value decoder. Returning at all is the assertion: a panic fails the test.
fn every_decoder(v: &Value) {
    let _ = decode_message_value(v.clone());
    let _ = decode_tool_call_result(v);
    let _ = decode_get_task_result(v);
    let _ = DetailedTask::from_json(v);
    let _ = RpcError::from_json(v);
    let _ = RequestMeta::from_params(v);
    let _ = ClientCapabilities::from_json(v);
    let _ = Implementation::from_json(v);
    let _ = check_tasks_extension_settings(v);
    let _ = InputRequest::from_json(v);
    let _ = InputResponse::from_json(v);
    let _ = ElicitRequest::from_json(v);
    let _ = decode_input_requests(v);
    let _ = decode_input_responses(v);
    let _ = DiscoverResult::from_json(v);
    let _ = ListenFilter::from_json(v);
    let _ = decode_listen_closed(v);
    let _ = decode_ack(v, "tasks/update");
    let _ = FormModel::from_schema(v);
    let _ = from_stored::<TaskRecord>(v);
    for method in METHODS {
        let _ = ClientRequest::decode(method, v);
        let _ = ServerNotification::decode(method, v);
    }
    for request in [
        ClientRequest::GetTask { task_id: "t".into() },
        ClientRequest::CallTool(CallToolParams::new("x", None)),
        ClientRequest::Discover,
        ClientRequest::CancelTask { task_id: "t".into() },
    ] {
        let _ = request.decode_result(v);
    }
}

fn every_text_decoder(s: &str) {
    let _ = decode_message(s);
    let _ = decode_response(s);
    let _ = parse_millis(s);
    let _ = decode_header_value(s);
    let _ = base64_decode(s);
    let _ = decode_header_value(&format!("=?base64?{s}?="));
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        prop_oneof![
            "[a-zA-Z_/]{0,12}",
            Just("task".to_string()),
            Just("complete".to_string()),
            Just("input_required".to_string()),
            Just("working".to_string()),
            Just("completed".to_string()),
            Just("failed".to_string()),
            Just("elicitation/create".to_string()),
            Just("2026-08-01T09:00:00Z".to_string()),
            ".*",
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        let key = prop_oneof![
            Just("resultType".to_string()),
            Just("taskId".to_string()),
            Just("status".to_string()),
            Just("ttlMs".to_string()),
            Just("createdAt".to_string()),
            Just("lastUpdatedAt".to_string()),
            Just("result".to_string()),
            Just("error".to_string()),
            Just("inputRequests".to_string()),
            Just("content".to_string()),
            Just("method".to_string()),
            Just("params".to_string()),
            Just("_meta".to_string()),
            Just("task".to_string()),
            Just("v".to_string()),
            "[a-z]{1,6}",
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(key, inner, 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Replaces the value at a random path in `v` with `replacement`, or deletes it.
fn mutate(v: &mut Value, mut choices: Vec<usize>, replacement: Option<Value>) {
    let Some(choice) = choices.pop() else {
        if let Some(r) = replacement {
            *v = r;
        }
        return;
    };
    match v {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(choice % map.len()).map(str::to_owned).unwrap_or_default();
            if choices.is_empty() && replacement.is_none() {
                map.remove(&key);
            } else if let Some(child) = map.get_mut(&key) {
                mutate(child, choices, replacement);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            mutate(&mut items[choice % n], choices, replacement);
        }
        _ => {
            if let Some(r) = replacement {
                *v = r;
            }
        }
    }
}

/// Every example message in the spec folder, read once.
fn real_messages() -> &'static [Value] {
    static MESSAGES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    MESSAGES.get_or_init(|| {
        let files = common::json_files(&common::spec_dir().join("schema"));
        files.iter().filter(|p| !p.ends_with("schema.json")).map(|p| common::read_json(p)).collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        every_text_decoder(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_json_never_panics(v in json_value()) {
        every_decoder(&v);
        every_text_decoder(&v.to_string());
    }

    #[test]
    fn mutated_real_messages_never_panic(
        index in any::<prop::sample::Index>(),
        path in proptest::collection::vec(any::<usize>(), 1..6),
        replacement in proptest::option::of(json_value()),
    ) {
        let messages = real_messages();
        let mut v = messages[index.index(messages.len())].clone();
        mutate(&mut v, path, replacement);
        every_decoder(&v);
        // Also as a result/params inside an envelope.
        every_decoder(&mcp_tasks_web::json!({ "jsonrpc": "2.0", "id": 1, "result": v.clone() }));
        every_decoder(&mcp_tasks_web::json!({ "jsonrpc": "2.0", "method": "notifications/tasks", "params": v }));
    }
}

#[test]
fn deeply_nested_json_is_refused_not_a_stack_overflow() {
    let deep = "[".repeat(100_000);
    assert!(decode_message(&deep).is_err());
}

/// An answer asking 10,000 questions is refused by the host's limit as it is read, at the first
/// question past it, with a typed error naming the limit; an answer at the limit is taken, and a big
/// object that is no question is not counted. A `tasks/get` answer and an MRTR round both show their questions
/// to that check.
#[test]
fn a_flood_of_input_requests_is_refused_with_the_limit_named() {
    use mcp_tasks_web::json::Value;
    use mcp_tasks_web::protocol::input::{DEFAULT_MAX_INPUT_REQUESTS, MAX_INPUT_REQUESTS_RANGE};
    use mcp_tasks_web::protocol::jsonrpc::parse_answer_within;
    use mcp_tasks_web::protocol::request::ClientRequest;
    use mcp_tasks_web::protocol::DecodeError;
    let entries = |n: usize| {
        let request = r#"{"method":"elicitation/create","params":{"mode":"form","message":"?","requestedSchema":{"type":"object","properties":{}}}}"#;
        let entries: Vec<String> = (0..n).rev().map(|i| format!(r#""ask-{i:05}":{request}"#)).collect();
        format!("{{{}}}", entries.join(","))
    };
    let flood = |n: usize| mcp_tasks_web::json::from_str(&entries(n)).expect("valid JSON");
    let answer = |n: usize, at: &str| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"{at}":{{"status":"input_required","inputRequests":{}}}}}"#,
            entries(n)
        );
        parse_answer_within(&body, DEFAULT_MAX_INPUT_REQUESTS)
    };
    for at in ["result", "params"] {
        let err = answer(10_000, at).expect_err("10,000 requests are refused");
        assert!(matches!(err, DecodeError::Invalid { what: "inputRequests", .. }), "{err:?}");
        assert!(err.to_string().contains("more requests at once than the 256 this client takes"), "{err}");
        let taken = answer(DEFAULT_MAX_INPUT_REQUESTS, at).expect("at the limit");
        let asked = taken.get(at).and_then(|r| r.get("inputRequests")).and_then(Value::as_object).map(|o| o.len());
        assert_eq!(asked, Some(DEFAULT_MAX_INPUT_REQUESTS));
    }
    // Only the questions are counted: a big object elsewhere is no question.
    let other = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"structuredContent":{}}}}}"#, entries(300));
    assert!(parse_answer_within(&other, 1).is_ok());
    assert!(matches!(parse_answer_within("{", 1), Err(DecodeError::NotJson { .. })));
    let most = MAX_INPUT_REQUESTS_RANGE.1;
    let decoded = decode_input_requests(&flood(most)).expect("the most a host may allow");
    assert_eq!(decoded.len(), most);
    assert!(decoded.keys().zip(decoded.keys().skip(1)).all(|(a, b)| a < b), "in key order");

    let task = mcp_tasks_web::json::json!({
        "resultType": "complete", "taskId": "t1", "status": "input_required", "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000, "inputRequests": flood(300),
    });
    let get = ClientRequest::GetTask { task_id: "t1".into() }.decode_result(&task).expect("decodes");
    assert_eq!(get.input_requests().map(|r| r.len()), Some(300), "a task's questions are seen");
    let round: Value = mcp_tasks_web::json::json!({ "resultType": "input_required", "inputRequests": flood(3) });
    let call = ClientRequest::CallTool(mcp_tasks_web::protocol::request::CallToolParams::new("ask", None))
        .decode_result(&round)
        .expect("decodes");
    assert_eq!(call.input_requests().map(|r| r.len()), Some(3), "an MRTR round's questions are seen");
}
