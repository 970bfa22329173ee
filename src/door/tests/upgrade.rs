//! The door without the 2025-11-25 flow asks the driver to hand over to the one with it, and settles
//! nothing once it asked (the driver feeds the waiting host calls to the full door).
use super::*;

/// The TypeScript SDK v1's refusal of a request without a session.
const NO_SESSION: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;

fn refuse(door: &mut Door, send: &Value, status: u16, body: &str) -> Vec<Value> {
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    door.handle(NOW, &json!({ "e": "answer", "n": n, "status": status }), body.as_bytes())
}

#[test]
fn a_call_an_older_server_refuses_hands_over_and_drops_only_its_pending_record() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let pending = the(&out, "save").get("key").cloned().unwrap();
    let out = refuse(&mut door, the(&out, "send"), 400, NO_SESSION);
    assert_eq!(kinds(&out), ["delete", "upgrade"], "the call is not settled here: {out:?}");
    assert_eq!(the(&out, "delete").get("key"), Some(&pending));
    assert!(feed(&mut door, NOW, r#"{"e":"tasks","x":3}"#).is_empty(), "nothing more once handed over");
}

#[test]
fn a_stored_2025_link_or_record_hands_over_at_restore_without_settling_it() {
    let mut door = open();
    let key = door.state.keys().server();
    let link = json!({ "protocol": "2025-11-25", "session": "s-1" }).to_string();
    let out = listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": [[key, link]] }));
    assert_eq!(kinds(&out), ["upgrade"], "{out:?}");

    // A record of that generation, as the full door stores it.
    let mut full = open();
    with_task(&mut full);
    let record = full.state.record("t1").map(crate::machine::stored::to_stored).unwrap();
    let mut record = record;
    if let Value::Object(fields) = &mut record {
        fields.put("protocol", Value::from("2025-11-25"));
    }
    let mut door = open();
    let entries = json!([[door.state.keys().task("t1"), record.to_string()]]);
    let out = listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": entries }));
    assert_eq!(kinds(&out), ["upgrade"], "no storage event, no done: {out:?}");
}

#[test]
fn authorization_failures_and_a_known_2026_server_do_not_hand_over() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let out = refuse(&mut door, the(&out, "send"), 401, "");
    assert!(!kinds(&out).contains(&"upgrade"), "{out:?}");
    assert_eq!(the(&out, "done").pointer("/error/name").and_then(Value::as_str), Some("AuthError"));

    let mut door = open();
    let key = door.state.keys().server();
    let link = json!({ "protocol": crate::protocol::PROTOCOL_VERSION }).to_string();
    listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": [[key, link]] }));
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let out = refuse(&mut door, the(&out, "send"), 400, NO_SESSION);
    assert!(!kinds(&out).contains(&"upgrade"), "a server stored as 2026-07-28 keeps its error: {out:?}");
    assert!(out.iter().any(|e| e.get("do").and_then(Value::as_str) == Some("done")));
}

#[test]
fn the_hand_over_waits_for_a_call_on_its_way_and_a_2026_answer_meanwhile_lets_the_failure_stand() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let first = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let second = feed(&mut door, NOW, r#"{"e":"call","x":3,"name":"deploy"}"#);
    let out = refuse(&mut door, the(&first, "send"), 400, NO_SESSION);
    assert!(out.is_empty() || !kinds(&out).contains(&"upgrade"), "the other call may have reached the server: {out:?}");
    assert!(!kinds(&out).contains(&"done"), "the refused call waits for the hand-over: {out:?}");
    let out = refuse(&mut door, the(&second, "send"), 400, NO_SESSION);
    assert_eq!(kinds(&out), ["delete", "delete", "upgrade"], "both pending records go: {out:?}");

    // The same, but the other call is answered as a 2026-07-28 server answers.
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let first = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let second = feed(&mut door, NOW, r#"{"e":"call","x":3,"name":"echo"}"#);
    refuse(&mut door, the(&first, "send"), 400, NO_SESSION);
    let out = answer(&mut door, NOW, the(&second, "send"), json!({ "content": [] }));
    assert!(!kinds(&out).contains(&"upgrade"), "{out:?}");
    let settled: Vec<u64> = out
        .iter()
        .filter(|e| e.get("do").and_then(Value::as_str) == Some("done"))
        .filter_map(|e| e.get("x").and_then(Value::as_u64))
        .collect();
    assert_eq!(settled.len(), 2, "the refused call fails with its error, the other has its result: {out:?}");
    assert!(settled.contains(&2) && settled.contains(&3));
}

#[test]
fn a_tool_listing_an_older_server_refuses_hands_over_unsettled() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"list_tools","x":2}"#);
    let list = the(&out, "send").clone();
    assert_eq!(request(&list).get("method").and_then(Value::as_str), Some("tools/list"));
    let out = refuse(&mut door, &list, 400, NO_SESSION);
    assert_eq!(kinds(&out), ["upgrade"], "the listing is not settled here (the full door gets it): {out:?}");

    // So does a resource read.
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"read_resource","x":2,"uri":"ui://basic/app.html"}"#);
    let read = the(&out, "send").clone();
    assert_eq!(request(&read).get("method").and_then(Value::as_str), Some("resources/read"));
    let out = refuse(&mut door, &read, 400, NO_SESSION);
    assert_eq!(kinds(&out), ["upgrade"], "the read is not settled here (the full door gets it): {out:?}");

    // An authorization failure says nothing of the era: the listing fails with it.
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"list_tools","x":2}"#);
    let out = refuse(&mut door, the(&out, "send"), 401, "");
    assert_eq!(the(&out, "done").pointer("/error/name").and_then(Value::as_str), Some("AuthError"), "{out:?}");
}
