//! Every JSON file in `tests/fixtures/spec/schema/` goes through the decoder for its type and is accepted or
//! rejected as its folder says; anything decoded is re-encoded and must decode to the same value.
mod common;

use std::path::Path;

use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::discover::DiscoverResult;
use mcp_tasks_web::protocol::form::FormModel;
use mcp_tasks_web::protocol::input::{
    decode_input_requests, decode_input_responses, encode_input_requests, encode_input_responses, ElicitRequest,
    InputRequest, InputResponse,
};
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, Incoming, RpcError, RpcErrorKind};
use mcp_tasks_web::protocol::meta::{check_tasks_extension_settings, ClientCapabilities, RequestMeta};
use mcp_tasks_web::protocol::request::{decode_ack, ClientRequest};
use mcp_tasks_web::protocol::subscriptions::{decode_listen_closed, ListenFilter, ServerNotification};
use mcp_tasks_web::protocol::task::decode_get_task_result;
use mcp_tasks_web::protocol::tool_call::{decode_tool_call_result, ToolCallOutcome};
use mcp_tasks_web::protocol::DecodeError;

type Outcome = Result<(), String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A client request envelope: method known, params and `_meta` valid; re-encoding gives the same JSON.
fn client_request(v: &Value) -> Outcome {
    let Incoming::Request { id, method, params } = decode_message_value(v.clone()).map_err(err)? else {
        return Err("not a request".into());
    };
    let request = ClientRequest::decode(&method, &params).map_err(err)?.ok_or("method not modelled")?;
    let meta = RequestMeta::from_params(&params).map_err(err)?;
    let again = request.envelope(&id, &meta);
    if &again != v {
        return Err(format!("re-encoding differs:\n{again}\n{v}"));
    }
    Ok(())
}

fn tool_call_params(v: &Value) -> Outcome {
    ClientRequest::decode("tools/call", v).map_err(err)?.ok_or("not modelled")?;
    RequestMeta::from_params(v).map_err(err).map(drop)
}

fn tool_call_result(v: &Value) -> Result<ToolCallOutcome, String> {
    let outcome = decode_tool_call_result(v).map_err(err)?;
    let again = decode_tool_call_result(&outcome.to_json()).map_err(err)?;
    assert_eq!(again, outcome, "tools/call result round trip");
    Ok(outcome)
}

fn complete_tool_result(v: &Value) -> Outcome {
    match tool_call_result(v)? {
        ToolCallOutcome::Complete(_) => Ok(()),
        other => Err(format!("expected a complete result, got {other:?}")),
    }
}

fn input_required(v: &Value) -> Outcome {
    match tool_call_result(v)? {
        ToolCallOutcome::InputRequired(_) => Ok(()),
        other => Err(format!("expected input_required, got {other:?}")),
    }
}

fn create_task_result(v: &Value) -> Outcome {
    match tool_call_result(v)? {
        ToolCallOutcome::Task(t) => {
            if t.to_create_result() != *v {
                return Err(format!("handle re-encodes differently: {}", t.to_create_result()));
            }
            Ok(())
        }
        other => Err(format!("expected a task handle, got {other:?}")),
    }
}

fn get_task_result(v: &Value) -> Outcome {
    let task = decode_get_task_result(v).map_err(err)?;
    let again = decode_get_task_result(&task.to_get_result()).map_err(err)?;
    assert_eq!(again, task, "tasks/get result round trip");
    Ok(())
}

fn response(v: &Value, method: &str) -> Outcome {
    let Incoming::Response(r) = decode_message_value(v.clone()).map_err(err)? else {
        return Err("not a response".into());
    };
    let result = r.outcome.map_err(|e| format!("error response: {e}"))?;
    let request = match method {
        "tools/call" => ClientRequest::CallTool(mcp_tasks_web::protocol::request::CallToolParams::new("x", None)),
        "server/discover" => ClientRequest::Discover,
        "subscriptions/listen" => ClientRequest::Listen(ListenFilter::default()),
        other => return Err(format!("no mapping for {other}")),
    };
    request.decode_result(&result).map_err(err).map(drop)
}

fn error_response(v: &Value, kind: RpcErrorKind) -> Outcome {
    let Incoming::Response(r) = decode_message_value(v.clone()).map_err(err)? else {
        return Err("not a response".into());
    };
    let e = r.outcome.err().ok_or("expected an error")?;
    if e.kind() != kind {
        return Err(format!("kind {:?}, expected {kind:?}", e.kind()));
    }
    Ok(())
}

fn error_object(v: &Value, kind: RpcErrorKind) -> Outcome {
    let e = RpcError::from_json(v).map_err(err)?;
    if e.kind() != kind {
        return Err(format!("kind {:?}, expected {kind:?}", e.kind()));
    }
    assert_eq!(&e.to_json(), v, "error objects encode exactly");
    Ok(())
}

fn notification(v: &Value) -> Result<ServerNotification, String> {
    let Incoming::Notification { method, params } = decode_message_value(v.clone()).map_err(err)? else {
        return Err("not a notification".into());
    };
    ServerNotification::decode(&method, &params).map_err(err)
}

fn notification_params(v: &Value, method: &str) -> Outcome {
    ServerNotification::decode(method, v).map_err(err).map(drop)
}

fn form_field(v: &Value) -> Outcome {
    let schema = json!({ "type": "object", "properties": { "field": v } });
    FormModel::from_schema(&schema).map_err(err).map(drop)
}

fn elicit_params(v: &Value) -> Outcome {
    match ElicitRequest::from_json(v).map_err(err)? {
        ElicitRequest::Form { requested_schema, .. } => {
            FormModel::from_schema(&requested_schema).map_err(err).map(drop)
        }
        ElicitRequest::Url { .. } => Ok(()),
    }
}

fn input_request(v: &Value) -> Outcome {
    let r = InputRequest::from_json(v).map_err(err)?;
    assert_eq!(InputRequest::from_json(&r.to_json()).map_err(err)?, r, "input request round trip");
    Ok(())
}

fn input_response(v: &Value) -> Outcome {
    let r = InputResponse::from_json(v).map_err(err)?;
    assert_eq!(&r.to_json(), v, "input responses encode exactly");
    Ok(())
}

fn server_capabilities(v: &Value) -> Outcome {
    let discover = json!({ "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": v, "ttlMs": 0, "cacheScope": "private" });
    let d = DiscoverResult::from_json(&discover).map_err(err)?;
    if !d.supports_tasks() {
        return Err("tasks extension not seen".into());
    }
    Ok(())
}

fn discover_result(v: &Value) -> Outcome {
    let d = DiscoverResult::from_json(v).map_err(err)?;
    assert_eq!(DiscoverResult::from_json(&d.to_json()).map_err(err)?, d, "discover round trip");
    Ok(())
}

fn task_ids_filter(v: &Value) -> Outcome {
    let f = ListenFilter::from_json(v).map_err(err)?;
    match &f.task_ids {
        Some(ids) if !ids.is_empty() => Ok(()),
        _ => Err("no taskIds".into()),
    }
}

/// The decoder for a `$defs` type name (the folder name).
fn check(type_name: &str, v: &Value) -> Option<Outcome> {
    Some(match type_name {
        "BooleanSchema"
        | "NumberSchema"
        | "StringSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledSingleSelectEnumSchema"
        | "TitledMultiSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema" => form_field(v),
        "CallToolRequest"
        | "DiscoverRequest"
        | "SubscriptionsListenRequest"
        | "GetTaskRequest"
        | "UpdateTaskRequest"
        | "CancelTaskRequest" => client_request(v),
        "CallToolRequestParams" => tool_call_params(v),
        "CallToolResult" => complete_tool_result(v),
        "InputRequiredResult" => input_required(v),
        "CreateTaskResult" => create_task_result(v),
        "GetTaskResult" => get_task_result(v),
        "CallToolResultResponse" => response(v, "tools/call"),
        "DiscoverResultResponse" => response(v, "server/discover"),
        "SubscriptionsListenResultResponse" => response(v, "subscriptions/listen"),
        "HeaderMismatchError" => error_response(v, RpcErrorKind::HeaderMismatch),
        "MissingRequiredClientCapabilityError" => error_response(v, RpcErrorKind::MissingRequiredClientCapability),
        "UnsupportedProtocolVersionError" => error_response(v, RpcErrorKind::UnsupportedProtocolVersion),
        "InternalError" => error_object(v, RpcErrorKind::Internal),
        "InvalidParamsError" => error_object(v, RpcErrorKind::InvalidParams),
        "MethodNotFoundError" => error_object(v, RpcErrorKind::MethodNotFound),
        "CancelledNotification" | "ProgressNotification" | "SubscriptionsAcknowledgedNotification" => {
            notification(v).map(drop)
        }
        "TaskStatusNotification" => match notification(v) {
            Ok(ServerNotification::TaskStatus { .. }) => Ok(()),
            Ok(other) => Err(format!("expected notifications/tasks, got {other:?}")),
            Err(e) => Err(e),
        },
        "CancelledNotificationParams" => notification_params(v, "notifications/cancelled"),
        "ProgressNotificationParams" => notification_params(v, "notifications/progress"),
        "ClientCapabilities" => ClientCapabilities::from_json(v).map_err(err).map(drop),
        "CreateMessageRequest" | "ElicitRequest" | "ListRootsRequest" => input_request(v),
        "CreateMessageResult" | "ElicitResult" | "ListRootsResult" => input_response(v),
        "ElicitRequestFormParams" | "ElicitRequestURLParams" => elicit_params(v),
        "InputRequests" => decode_input_requests(v)
            .map_err(err)
            .map(|r| assert_eq!(decode_input_requests(&encode_input_requests(&r)).ok(), Some(r))),
        "InputResponses" => decode_input_responses(v).map_err(err).map(|r| assert_eq!(&encode_input_responses(&r), v)),
        "ServerCapabilities" => server_capabilities(v),
        "DiscoverResult" => discover_result(v),
        "SubscriptionsListenResult" => decode_listen_closed(v).map_err(err).map(drop),
        "CancelTaskResult" => decode_ack(v, "tasks/cancel").map_err(err),
        "UpdateTaskResult" => decode_ack(v, "tasks/update").map_err(err),
        "TaskSubscriptionAcknowledgedNotifications" | "TaskSubscriptionNotifications" => task_ids_filter(v),
        "TasksExtensionCapability" => check_tasks_extension_settings(v).map_err(err),
        _ => return None,
    })
}

/// Type name = the folder holding the file.
fn type_of(path: &Path) -> String {
    path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or_default().to_owned()
}

fn run_folder(folder: &str, expect_valid: bool) -> usize {
    let root = common::spec_dir().join("schema").join(folder);
    let files = common::json_files(&root);
    assert!(!files.is_empty(), "no examples under {}", root.display());
    let mut failures = Vec::new();
    for file in &files {
        let value = common::read_json(file);
        let name = type_of(file);
        match check(&name, &value) {
            None => failures.push(format!("{}: no decoder mapped for type {name}", file.display())),
            Some(Ok(())) if !expect_valid => {
                failures.push(format!("{}: accepted but must be rejected", file.display()))
            }
            Some(Err(e)) if expect_valid => failures.push(format!("{}: rejected: {e}", file.display())),
            Some(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files.len()
}

#[test]
fn upstream_core_examples_decode() {
    assert!(run_folder("2026-07-28/examples", true) == 56);
}

#[test]
fn composed_tasks_examples_decode() {
    assert!(run_folder("composed-examples/ext-tasks", true) == 20);
}

#[test]
fn composed_core_examples_decode() {
    assert!(run_folder("composed-examples/2026-07-28", true) == 9);
}

#[test]
fn schema_json_quirks_follow_schema_ts() {
    // Valid per schema.ts (a float form answer) though the generated schema.json rejects it.
    run_folder("composed-examples/schema-json-quirks", true);
}

#[test]
fn invalid_examples_are_rejected() {
    assert!(run_folder("composed-examples/invalid", false) == 11);
}

#[test]
fn invalid_examples_fail_for_the_documented_reason() {
    let dir = common::spec_dir().join("schema/composed-examples/invalid/ext-tasks");
    let load = |p: &str| common::read_json(&dir.join(p));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/completed-without-result.json")),
        Err(DecodeError::MissingStatusDetail { status: "completed", field: "result" })
    ));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/failed-without-error.json")),
        Err(DecodeError::MissingStatusDetail { status: "failed", field: "error" })
    ));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/input-required-without-inputRequests.json")),
        Err(DecodeError::MissingStatusDetail { status: "input_required", field: "inputRequests" })
    ));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/result-type-task.json")),
        Err(DecodeError::UnexpectedResultType { method: "tasks/get", .. })
    ));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/fractional-ttlMs.json")),
        Err(DecodeError::NotAnInteger { field: "ttlMs", .. })
    ));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/unknown-status.json")),
        Err(DecodeError::UnknownStatus { .. })
    ));
    assert!(matches!(
        decode_tool_call_result(&load("CreateTaskResult/legacy-nested-task-wrapper.json")),
        Err(DecodeError::LegacyShape { .. })
    ));
    assert!(matches!(
        decode_tool_call_result(&load("CreateTaskResult/missing-ttlMs-legacy-ttl.json")),
        Err(DecodeError::LegacyShape { .. })
    ));
}

/// 2025-11-25 messages are recognised as the legacy era and never misread as 2026 results.
#[test]
fn legacy_2025_messages_are_recognised_not_misread() {
    let dir = common::spec_dir().join("schema/composed-examples/2025-11-25");
    let load = |p: &str| common::read_json(&dir.join(p));
    assert!(matches!(
        decode_tool_call_result(&load("CreateTaskResult/nested-task.json")),
        Err(DecodeError::LegacyShape { .. })
    ));
    assert!(matches!(
        decode_get_task_result(&load("GetTaskResult/working.json")),
        Err(DecodeError::LegacyShape { .. })
    ));
    let status = load("TaskStatusNotification/completed.json");
    assert!(
        matches!(notification(&status), Ok(ServerNotification::Other { method }) if method == "notifications/tasks/status")
    );
    // Methods that no longer exist are not modelled (a 2026 server answers -32601).
    for file in ["GetTaskPayloadRequest/tasks-result.json", "ListTasksRequest/tasks-list.json"] {
        let v = load(file);
        let Ok(Incoming::Request { method, params, .. }) = decode_message_value(v.clone()) else {
            panic!("{file} is a request")
        };
        assert_eq!(ClientRequest::decode(&method, &params), Ok(None), "{file}");
    }
    // A task-augmented 2025 call has no 2026 `_meta`: a server rejects it (-32602), the `task` param is ignored.
    let call = load("CallToolRequest/task-augmented.json");
    let params = &call["params"];
    assert!(matches!(ClientRequest::decode("tools/call", params), Ok(Some(ClientRequest::CallTool(_)))));
    assert!(matches!(RequestMeta::from_params(params), Err(DecodeError::MissingField { field: "_meta", .. })));
    // Every file in the folder was looked at above.
    assert_eq!(common::json_files(&dir).len(), 6);
}

#[test]
fn tasks_extension_settings_must_be_empty() {
    assert!(check_tasks_extension_settings(&json!({})).is_ok());
    assert!(check_tasks_extension_settings(&json!({ "pollIntervalMs": 1000 })).is_err());
    assert!(check_tasks_extension_settings(&json!([])).is_err());
}
