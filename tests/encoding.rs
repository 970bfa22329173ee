//! Exact encoding: request envelopes, `_meta`, headers (with the base64 sentinel) and timestamps.
use mcp_tasks_web::json::json;
use mcp_tasks_web::protocol::headers::{
    base64_decode, base64_encode, decode_header_value, encode_header_value, request_headers,
};
use mcp_tasks_web::protocol::input::{ElicitAction, InputResponse};
use mcp_tasks_web::protocol::jsonrpc::{decode_response, RequestId, RpcError, RpcErrorKind};
use mcp_tasks_web::protocol::meta::{Implementation, RequestMeta};
use mcp_tasks_web::protocol::request::{CallToolParams, ClientRequest};
use mcp_tasks_web::protocol::subscriptions::ListenFilter;
use mcp_tasks_web::protocol::timestamp::{format_millis, parse_millis};

fn meta() -> RequestMeta {
    RequestMeta::task_client(Implementation::new("wasm-task-client", "0.1.0"), true, true)
}

#[test]
fn meta_declares_the_tasks_extension_and_both_elicitation_modes() {
    assert_eq!(
        meta().to_json(),
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { "name": "wasm-task-client", "version": "0.1.0" },
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": { "form": {}, "url": {} },
                "extensions": { "io.modelcontextprotocol/tasks": {} }
            }
        })
    );
}

#[test]
fn requests_encode_exactly_as_the_spec_examples() {
    let get = ClientRequest::GetTask { task_id: "tsk_7Qm2vX9cLr4wN8bT1pKz6A".into() };
    assert_eq!(
        get.envelope(&RequestId::Number(41), &meta()),
        json!({ "jsonrpc": "2.0", "id": 41, "method": "tasks/get", "params": { "taskId": "tsk_7Qm2vX9cLr4wN8bT1pKz6A", "_meta": meta().to_json() } })
    );
    let update = ClientRequest::UpdateTask {
        task_id: "t".into(),
        input_responses: [
            (
                "deploy-params-1".to_string(),
                InputResponse::accept(json!({ "replicas": 3 }).as_object().cloned().unwrap_or_default()),
            ),
            ("billing-link-1".to_string(), InputResponse::action(ElicitAction::Decline)),
        ]
        .into_iter()
        .collect(),
    };
    assert_eq!(
        update.params(&meta())["inputResponses"],
        json!({ "deploy-params-1": { "action": "accept", "content": { "replicas": 3 } }, "billing-link-1": { "action": "decline" } })
    );
    let listen = ClientRequest::Listen(ListenFilter::tasks(vec!["a".into(), "b".into()]));
    assert_eq!(listen.params(&meta())["notifications"], json!({ "taskIds": ["a", "b"] }));
    let call = ClientRequest::CallTool(CallToolParams::new("build", json!({ "target": "web" }).as_object().cloned()));
    assert_eq!(call.params(&meta())["arguments"], json!({ "target": "web" }));
    assert!(call.params(&meta()).get("requestState").is_none(), "no MRTR fields on a first call");
}

#[test]
fn each_request_carries_its_routing_headers() {
    let cancel = ClientRequest::CancelTask { task_id: "tsk-1".into() };
    assert_eq!(
        cancel.http_headers(),
        vec![
            ("Content-Type", "application/json".to_string()),
            ("Accept", "application/json, text/event-stream".to_string()),
            ("MCP-Protocol-Version", "2026-07-28".to_string()),
            ("Mcp-Method", "tasks/cancel".to_string()),
            ("Mcp-Name", "tsk-1".to_string()),
        ]
    );
    assert!(ClientRequest::Discover.http_headers().iter().all(|(n, _)| *n != "Mcp-Name"));
    assert_eq!(request_headers("tools/call", Some("build"))[4], ("Mcp-Name", "build".to_string()));
}

#[test]
fn header_values_that_are_not_plain_ascii_use_the_base64_sentinel() {
    assert_eq!(encode_header_value("tsk_7Qm2vX9c"), "tsk_7Qm2vX9c");
    assert_eq!(encode_header_value("has inner space"), "has inner space");
    assert_eq!(encode_header_value("สวัสดี"), format!("=?base64?{}?=", base64_encode("สวัสดี".as_bytes())));
    assert_eq!(encode_header_value(" lead"), "=?base64?IGxlYWQ=?=");
    assert_eq!(encode_header_value("trail "), "=?base64?dHJhaWwg?=");
    assert_eq!(encode_header_value("tab\there"), "=?base64?dGFiCWhlcmU=?=");
    // A plain value that looks like the sentinel is itself encoded, so it reads back unchanged.
    let lookalike = "=?base64?abc?=";
    let encoded = encode_header_value(lookalike);
    assert_ne!(encoded, lookalike);
    assert_eq!(decode_header_value(&encoded).as_deref(), Ok(lookalike));
    for value in ["สวัสดี", " x ", "line\nbreak", "plain", "", "é"] {
        assert_eq!(decode_header_value(&encode_header_value(value)).as_deref(), Ok(value));
    }
    assert!(decode_header_value("=?base64?!!!?=").is_err());
    assert!(decode_header_value("=?base64?/w==?=").is_err(), "0xFF is not UTF-8");
}

#[test]
fn base64_matches_rfc_4648_vectors() {
    let vectors = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];
    for (plain, encoded) in vectors {
        assert_eq!(base64_encode(plain.as_bytes()), encoded);
        assert_eq!(base64_decode(encoded).as_deref(), Some(plain.as_bytes()));
    }
    assert_eq!(base64_decode("Zg"), Some(b"f".to_vec()), "padding is optional");
    assert_eq!(base64_decode("Z"), None);
}

#[test]
fn timestamps_parse_and_format() {
    assert_eq!(parse_millis("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(parse_millis("2026-08-01T09:00:00Z"), Some(1_785_574_800_000));
    assert_eq!(parse_millis("2026-12-02T08:24:45.542Z"), Some(1_796_199_885_542));
    assert_eq!(parse_millis("2026-08-01T11:00:00+02:00"), parse_millis("2026-08-01T09:00:00Z"));
    assert_eq!(parse_millis("2026-08-01T09:00:00.5Z"), Some(1_785_574_800_500));
    assert_eq!(parse_millis("2024-02-29T00:00:00Z").map(|m| m > 0), Some(true));
    for bad in [
        "2023-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-08-01 09:00",
        "yesterday",
        "2026-08-01T09:00:00",
        "2026-08-01T25:00:00Z",
        "२०२६-08-01T09:00:00Z",
        "2026-08-01T09:00:00++2:00",
        "2026-08-01T09:00:00+-2:00",
        "2026-08-01T09:00:00+02:+5",
    ] {
        assert_eq!(parse_millis(bad), None, "{bad}");
    }
    for ms in [0i64, 1_785_574_800_000, 1_796_199_885_542, 951_782_400_000] {
        assert_eq!(parse_millis(&format_millis(ms)), Some(ms));
    }
    assert_eq!(format_millis(1_796_199_885_542), "2026-12-02T08:24:45.542Z");
}

#[test]
fn error_responses_are_classified_by_code() {
    let r = decode_response(r#"{"jsonrpc":"2.0","id":56,"error":{"code":-32021,"message":"needs tasks","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#).expect("decodes");
    let e = r.outcome.expect_err("an error");
    assert_eq!(e.kind(), RpcErrorKind::MissingRequiredClientCapability);
    assert!(e.requires_tasks_extension());
    let v = RpcError::new(-32022, "unsupported")
        .with_data(json!({ "supported": ["2026-07-28", "2025-11-25"], "requested": "1900-01-01" }));
    assert_eq!(v.supported_versions(), Some(vec!["2026-07-28".to_string(), "2025-11-25".to_string()]));
    assert_eq!(RpcError::new(-32602, "Task not found").kind(), RpcErrorKind::InvalidParams);
    assert_eq!(RpcError::new(-32000, "tool-defined").kind(), RpcErrorKind::Other);
    assert!(decode_response(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#).is_err(), "a result needs an id");
    assert!(decode_response(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#).is_err());
    assert!(decode_response(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#).is_err());
    assert!(
        decode_response(r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{}}"#).is_err(),
        "not a response"
    );
}

#[test]
fn answers_of_unknown_shape_are_kept_not_dropped() {
    use mcp_tasks_web::protocol::input::{decode_input_responses, encode_input_responses};
    let wire = json!({ "a": { "action": "accept", "content": { "ok": true } }, "b": { "ignored": true } });
    let decoded = decode_input_responses(&wire).expect("decodes");
    assert_eq!(decoded.get("b"), Some(&InputResponse::Other(json!({ "ignored": true }))));
    assert_eq!(encode_input_responses(&decoded), wire, "passed through unchanged");
    assert!(
        InputResponse::from_json(&json!({ "action": "maybe" })).is_err(),
        "a malformed elicitation answer is an error"
    );
    assert!(InputResponse::from_json(&json!("accept")).is_err());
}
