//! MRTR retries: a new id, the original name and arguments, the latest answers, `requestState` byte
//! for byte (and none when none was given).
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::machine::mrtr::{MrtrCall, MrtrError, MAX_ROUNDS};
use mcp_tasks_web::protocol::input::{decode_input_requests, ElicitAction, InputResponse, InputResponses};
use mcp_tasks_web::protocol::jsonrpc::RequestIds;
use mcp_tasks_web::protocol::meta::{Implementation, RequestMeta};
use mcp_tasks_web::protocol::request::ClientRequest;
use mcp_tasks_web::protocol::tool_call::InputRequiredResult;

fn round(keys: &[&str], state: Option<&str>) -> InputRequiredResult {
    let requests: mcp_tasks_web::json::Map = keys
        .iter()
        .map(|k| (k.to_string(), json!({ "method": "elicitation/create", "params": { "message": "Name?", "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } } })))
        .collect();
    InputRequiredResult {
        input_requests: (!keys.is_empty()).then(|| decode_input_requests(&Value::Object(requests)).expect("valid")),
        request_state: state.map(str::to_owned),
    }
}

fn answers(keys: &[&str]) -> InputResponses {
    keys.iter()
        .map(|k| {
            (k.to_string(), InputResponse::accept(json!({ "name": "Ferris" }).as_object().cloned().unwrap_or_default()))
        })
        .collect()
}

fn args() -> Option<mcp_tasks_web::json::Map> {
    json!({ "service": "api", "version": "4.2.0" }).as_object().cloned()
}

#[test]
fn a_retry_has_a_new_id_the_original_params_and_the_exact_state() {
    let mut ids = RequestIds::starting_at(40);
    let mut call = MrtrCall::new("deploy_service", args());
    let (first_id, first) = call.first(&mut ids);
    // A state with characters a careless re-encoder would change.
    let state = "c3RhdGU+/opaque==\u{e9}\"";
    let (retry_id, retry) =
        call.retry(&mut ids, &round(&["approve-1"], Some(state)), answers(&["approve-1"])).expect("retry");
    assert_ne!(first_id, retry_id);
    let ClientRequest::CallTool(p) = &retry else { panic!("a tools/call") };
    let ClientRequest::CallTool(original) = &first else { panic!("a tools/call") };
    assert_eq!(p.name, original.name);
    assert_eq!(p.arguments, original.arguments);
    assert_eq!(p.request_state.as_deref(), Some(state));
    let meta = RequestMeta::task_client(Implementation::new("wasm-task-client", "0.1.0"), true, true);
    let wire = mcp_tasks_web::json::to_string(&retry.envelope(&retry_id, &meta));
    let back: Value = mcp_tasks_web::json::from_str(&wire).expect("parses");
    assert_eq!(back["params"]["requestState"].as_str(), Some(state), "byte for byte after a trip through JSON text");
    assert_eq!(back["params"]["inputResponses"]["approve-1"]["action"], "accept");
    assert_eq!(back["id"], 41);
}

#[test]
fn no_request_state_is_invented_and_only_the_latest_round_is_sent() {
    let mut ids = RequestIds::default();
    let mut call = MrtrCall::new("ask_first", None);
    let _ = call.first(&mut ids);
    let (_, r1) = call.retry(&mut ids, &round(&["a"], None), answers(&["a"])).expect("round 1");
    let ClientRequest::CallTool(p1) = r1 else { panic!() };
    assert_eq!(p1.request_state, None);
    let (_, r2) = call.retry(&mut ids, &round(&["b"], Some("s2")), answers(&["b"])).expect("round 2");
    let ClientRequest::CallTool(p2) = r2 else { panic!() };
    assert_eq!(p2.input_responses.map(|r| r.into_keys().collect::<Vec<_>>()), Some(vec!["b".to_string()]));
    assert_eq!(call.rounds(), 2);
}

#[test]
fn a_state_only_round_retries_at_once_without_answers() {
    let mut ids = RequestIds::default();
    let mut call = MrtrCall::new("echo", None);
    let (_, retry) = call.retry(&mut ids, &round(&[], Some("shed")), InputResponses::new()).expect("retry");
    let ClientRequest::CallTool(p) = retry else { panic!() };
    assert_eq!(p.input_responses, None);
    assert_eq!(p.request_state.as_deref(), Some("shed"));
    // The same bare state again is no progress.
    assert_eq!(call.retry(&mut ids, &round(&[], Some("shed")), InputResponses::new()), Err(MrtrError::NoProgress));
}

#[test]
fn every_key_must_be_answered_and_no_other() {
    let mut ids = RequestIds::default();
    let mut call = MrtrCall::new("x", None);
    assert_eq!(
        call.retry(&mut ids, &round(&["a", "b"], None), answers(&["a"])),
        Err(MrtrError::MissingAnswers(vec!["b".into()]))
    );
    let mut call = MrtrCall::new("x", None);
    let mut extra = answers(&["a"]);
    extra.insert("zzz".into(), InputResponse::action(ElicitAction::Cancel));
    assert_eq!(
        call.retry(&mut ids, &round(&["a"], None), extra),
        Err(MrtrError::UnexpectedAnswers(vec!["zzz".into()]))
    );
}

#[test]
fn rounds_are_bounded() {
    let mut ids = RequestIds::default();
    let mut call = MrtrCall::new("x", None);
    for i in 0..MAX_ROUNDS {
        let key = format!("k{i}");
        assert!(call.retry(&mut ids, &round(&[&key], None), answers(&[&key])).is_ok());
    }
    assert_eq!(call.retry(&mut ids, &round(&["last"], None), answers(&["last"])), Err(MrtrError::TooManyRounds));
}
