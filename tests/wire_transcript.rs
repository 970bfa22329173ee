//! Every message in `tests/fixtures/spec/wire-transcript.txt` (real bytes from a server built on the official
//! TypeScript SDK) decodes; every request we model re-encodes to exactly the bytes that were sent, with
//! exactly the routing headers that were sent.
mod common;

use mcp_tasks_web::json::Value;
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, Incoming, RpcErrorKind};
use mcp_tasks_web::protocol::meta::RequestMeta;
use mcp_tasks_web::protocol::request::{ClientRequest, RequestResult};
use mcp_tasks_web::protocol::subscriptions::ServerNotification;
use mcp_tasks_web::protocol::task::TaskStatus;
use mcp_tasks_web::protocol::tool_call::ToolCallOutcome;

/// One request/response pair as recorded.
#[derive(Default, Debug)]
struct Exchange {
    request_headers: Vec<(String, String)>,
    request_body: Option<Value>,
    status: u16,
    /// The JSON body, or each SSE `data:` payload in order.
    messages: Vec<Value>,
}

fn parse_transcript() -> Vec<Exchange> {
    let text = std::fs::read_to_string(common::spec_dir().join("wire-transcript.txt")).expect("transcript");
    let mut exchanges: Vec<Exchange> = Vec::new();
    for line in text.lines() {
        if line.starts_with(">>> ") {
            exchanges.push(Exchange::default());
            continue;
        }
        let Some(current) = exchanges.last_mut() else { continue };
        if let Some(rest) = line.strip_prefix("<<< HTTP/1.1 ") {
            current.status = rest.split(' ').next().and_then(|s| s.parse().ok()).expect("status code");
        } else if let Some(body) = line.strip_prefix("> {") {
            current.request_body =
                Some(mcp_tasks_web::json::from_str(&format!("{{{body}")).expect("request body is JSON"));
        } else if let Some(header) = line.strip_prefix("> ") {
            if let Some((name, value)) = header.split_once(": ") {
                current.request_headers.push((name.to_owned(), value.trim_end_matches(" (extra)").to_owned()));
            }
        } else if let Some(body) = line.strip_prefix("< {") {
            current.messages.push(mcp_tasks_web::json::from_str(&format!("{{{body}")).expect("response body is JSON"));
        } else if let Some(data) = line.strip_prefix("< data: ") {
            current.messages.push(mcp_tasks_web::json::from_str(data).expect("SSE data is JSON"));
        }
    }
    exchanges
}

fn header<'a>(exchange: &'a Exchange, name: &str) -> Option<&'a str> {
    exchange.request_headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn every_message_in_the_transcript_decodes() {
    let exchanges = parse_transcript();
    assert!(exchanges.len() >= 60, "parsed {} exchanges", exchanges.len());
    let (mut results, mut errors, mut notifications, mut re_encoded) = (0, 0, 0, 0);
    let mut statuses_seen = std::collections::HashSet::new();
    for ex in &exchanges {
        let request = ex.request_body.as_ref().and_then(|body| {
            let Ok(Incoming::Request { id, method, params }) = decode_message_value(body.clone()) else {
                panic!("request body decodes: {body}")
            };
            let request = ClientRequest::decode(&method, &params).expect("params decode")?;
            if let Ok(meta) = RequestMeta::from_params(&params) {
                assert_eq!(&request.envelope(&id, &meta), body, "exact re-encoding");
                re_encoded += 1;
            }
            Some(request)
        });
        for message in &ex.messages {
            match decode_message_value(message.clone()).unwrap_or_else(|e| panic!("{message}: {e}")) {
                Incoming::Response(r) => match r.outcome {
                    Ok(result) => {
                        results += 1;
                        if let Some(request) = &request {
                            let decoded = request.decode_result(&result).unwrap_or_else(|e| panic!("{result}: {e}"));
                            if let RequestResult::Task(t) = &decoded {
                                statuses_seen.insert(t.task.status);
                            }
                        }
                    }
                    Err(e) => {
                        errors += 1;
                        match ex.status {
                            404 => assert_eq!(e.kind(), RpcErrorKind::MethodNotFound),
                            400 => assert!(matches!(
                                e.kind(),
                                RpcErrorKind::HeaderMismatch | RpcErrorKind::MissingRequiredClientCapability
                            )),
                            _ => {}
                        }
                        if e.kind() == RpcErrorKind::MissingRequiredClientCapability {
                            assert!(e.requires_tasks_extension());
                        }
                    }
                },
                Incoming::Notification { method, params } => {
                    notifications += 1;
                    ServerNotification::decode(&method, &params).unwrap_or_else(|e| panic!("{method}: {e}"));
                }
                Incoming::Request { method, .. } => panic!("a 2026 server sent a request: {method}"),
            }
        }
    }
    assert!(results >= 50, "{results} results");
    assert!(errors >= 10, "{errors} errors");
    assert!(notifications >= 4, "{notifications} notifications");
    assert!(re_encoded >= 50, "{re_encoded} requests re-encoded");
    for status in [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ] {
        assert!(statuses_seen.contains(&status), "status {status:?} seen in the transcript");
    }
}

#[test]
fn our_headers_match_the_headers_that_were_sent() {
    let mut compared = 0;
    for ex in parse_transcript() {
        let Some(body) = &ex.request_body else { continue };
        let method = body["method"].as_str().unwrap_or_default();
        let Ok(Some(request)) = ClientRequest::decode(method, &body["params"]) else { continue };
        // Skip the deliberate header-mismatch probes: their headers are wrong on purpose.
        let mismatch = ex.messages.iter().any(|m| m["error"]["code"] == -32020);
        if mismatch || RequestMeta::from_params(&body["params"]).is_err() {
            continue;
        }
        // The recorder kept the MCP headers of every request, and Content-Type/Accept of most.
        for (name, value) in request.http_headers() {
            let sent = header(&ex, name);
            let always_recorded = !matches!(name, "Content-Type" | "Accept");
            if always_recorded || sent.is_some() {
                assert_eq!(sent, Some(value.as_str()), "{name} for {method}");
            }
        }
        assert_eq!(
            header(&ex, "Mcp-Name").is_some(),
            request.routing_name().is_some(),
            "Mcp-Name presence for {method}"
        );
        compared += 1;
    }
    assert!(compared >= 50, "{compared} requests compared");
}

#[test]
fn the_mrtr_round_in_the_transcript_leads_to_a_task() {
    let exchanges = parse_transcript();
    let kinds: Vec<&str> = exchanges
        .iter()
        .filter(|ex| ex.request_body.as_ref().is_some_and(|b| b["params"]["name"] == "test_tool_with_task"))
        .filter_map(|ex| ex.messages.first())
        .map(|m| match mcp_tasks_web::protocol::tool_call::decode_tool_call_result(&m["result"]) {
            Ok(ToolCallOutcome::InputRequired(_)) => "input_required",
            Ok(ToolCallOutcome::Task(_)) => "task",
            Ok(ToolCallOutcome::Complete(_)) => "complete",
            Err(_) => "error",
        })
        .collect();
    assert_eq!(kinds, ["input_required", "task"]);
}
