//! `Retry-After` holds for every request to the server: whatever body the refusal has, in every tab,
//! after a reload, and across the fresh clients of step mode (the failure travels with the record).
use super::*;
#[cfg(feature = "legacy")]
use crate::client_state::STEP_PARALLELISM;

/// A gateway's refusal of exchange `send` at `now`: 503, `Retry-After: seconds`, `body` (plain text or
/// a JSON-RPC error); the effects.
fn refused(door: &mut Door, now: u64, send: &Value, seconds: &str, body: &str) -> Vec<Value> {
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    door.handle(now, &json!({ "e": "answer", "n": n, "status": 503, "retryAfter": seconds }), body.as_bytes())
}

/// A JSON-RPC error a gateway sends with its 503, under the request's id.
fn rpc_error(send: &Value) -> String {
    let id = request(send).get("id").unwrap().clone();
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": "Service unavailable" } }).to_string()
}

fn error_of(effects: &[Value]) -> &Value {
    the(effects, "done").get("error").unwrap_or_else(|| panic!("not refused: {effects:?}"))
}

fn no_send(effects: &[Value], what: &str) {
    assert!(!kinds(effects).contains(&"send"), "{what}: {effects:?}");
}

#[test]
fn a_503_with_a_json_rpc_error_body_pauses_every_request_of_every_tab() {
    let (mut leader, _) = leading_tab();
    let at = NOW + 1_000;
    let poll = sent(&feed(&mut leader, at, r#"{"e":"tick"}"#), "tasks/get");
    let body = rpc_error(&poll);
    let out = refused(&mut leader, at, &poll, "2", &body);
    assert!(timer(&out) >= at + 2_000, "nothing is due before the pause ends: {out:?}");
    let stored = the(&out, "put").get("entries").and_then(Value::as_array).unwrap()[0].clone();
    let text = stored.as_array().unwrap()[1].as_str().unwrap().to_owned();
    assert!(text.contains(r#""retryAfterMs":2000"#), "the record keeps the failure and its delay: {text}");
    let out = feed(&mut leader, at, r#"{"e":"written","ok":true}"#);
    let shared = posted(&out, "record").to_owned();

    let refusal = error_of(&feed(&mut leader, at + 1_500, r#"{"e":"call","x":5,"name":"build"}"#)).clone();
    assert_eq!(refusal.get("retryable").and_then(Value::as_bool), Some(true), "{refusal:?}");
    no_send(&feed(&mut leader, at + 1_999, r#"{"e":"tick"}"#), "no poll during the pause");
    sent(&feed(&mut leader, at + 2_000, r#"{"e":"tick"}"#), "tasks/get");

    // A tab that does not poll hears of it with the record: its host calls keep to the pause too.
    let mut follower = open_tab();
    feed(&mut follower, at, r#"{"e":"restore","x":1}"#);
    message(&mut follower, at, &shared);
    let out = feed(&mut follower, at + 1_999, r#"{"e":"call","x":2,"name":"build"}"#);
    no_send(&out, "no call during the pause");
    assert_eq!(error_of(&out).get("name").and_then(Value::as_str), Some("HttpError"));
    let out = feed(&mut follower, at + 2_000, r#"{"e":"call","x":3,"name":"build"}"#);
    assert!(kinds(&out).contains(&"send"), "sent once it ended: {out:?}");

    // A page opened meanwhile reads the record from the store and keeps to the pause.
    let mut reloaded = open_tab();
    let out = listed(&mut reloaded, at + 500, json!({ "e": "restore", "x": 1, "entries": [stored], "leader": true }));
    no_send(&out, "no poll nor discover during the stored pause");
    assert_eq!(timer(&out), at + 2_000, "{out:?}");
    sent(&feed(&mut reloaded, at + 2_000, r#"{"e":"tick"}"#), "tasks/get");
}

/// `entry` (a stored record's `[key, text]`) as task `id`'s.
#[cfg(feature = "legacy")] // step mode is in the full door only
fn as_task(entry: &Value, id: &str) -> Value {
    let pair = entry.as_array().unwrap();
    let key = pair[0].as_str().unwrap().replace("/task/t1", &format!("/task/{id}"));
    let text = pair[1].as_str().unwrap().replace(r#""t1""#, &format!("\"{id}\""));
    json!([key, text])
}

/// Runs a step on: answers each poll `working` and each compared write `ok`; the tasks it polled.
#[cfg(feature = "legacy")] // step mode is in the full door only
fn run_step(door: &mut Door, now: u64, out: Vec<Value>) -> Vec<String> {
    let (mut polled, mut pending) = (Vec::new(), out);
    while let Some(effect) = (!pending.is_empty()).then(|| pending.remove(0)) {
        match effect.get("do").and_then(Value::as_str) {
            Some("send") => {
                let id = request(&effect).get("params").unwrap().get("taskId").unwrap().as_str().unwrap().to_owned();
                let mut state = task("working");
                if let Value::Object(fields) = &mut state {
                    fields.put("taskId", Value::from(id.as_str()));
                }
                polled.push(id);
                pending.extend(answer(door, now, &effect, state));
            }
            Some("put_if") => pending.extend(put_if(door, now, std::slice::from_ref(&effect), true)),
            _ => {}
        }
    }
    polled
}

#[cfg(feature = "legacy")] // step mode is in the full door only
#[test]
fn a_step_keeps_to_the_pause_an_earlier_step_stored_and_holds_its_own_later_batches_back() {
    let (_, entry) = leading_tab();
    // Ten tasks due: the step sends them in batches of eight.
    let entries: Vec<Value> = (0..10).map(|n| as_task(&entry, &format!("t{n}"))).collect();
    let mut first = open_stepping();
    let out = listed(&mut first, NOW + 2_000, json!({ "e": "step", "x": 1, "entries": entries.clone() }));
    let polls: Vec<&Value> = out.iter().filter(|e| e.get("do").and_then(Value::as_str) == Some("send")).collect();
    assert_eq!(polls.len(), STEP_PARALLELISM, "one batch at a time: {out:?}");
    let mut out = refused(&mut first, NOW + 2_000, polls[0], "1", "Service unavailable\n");
    for poll in &polls[1..] {
        out.extend(answer(&mut first, NOW + 2_000, poll, task("working")));
    }
    let mut report = None;
    let mut written = Vec::new();
    let mut pending: Vec<Value> = out;
    while let Some(effect) = (!pending.is_empty()).then(|| pending.remove(0)) {
        match effect.get("do").and_then(Value::as_str) {
            Some("send") => panic!("the rest of the step is held back by the 503: {effect:?}"),
            Some("done") => report = effect.get("value").cloned(),
            Some("put_if") => {
                written.push(json!([effect.get("key").unwrap().clone(), effect.get("text").unwrap().clone()]));
                pending.extend(put_if(&mut first, NOW + 2_000, std::slice::from_ref(&effect), true));
            }
            _ => {}
        }
    }
    let report = report.expect("the step reported");
    assert_eq!(report.get("nextWakeAt").and_then(Value::as_u64), Some(NOW + 3_000), "{report:?}");

    // The store now: what the step wrote, and the held-back records as they were.
    let store: Vec<Value> = entries
        .iter()
        .map(|e| written.iter().find(|w| w.as_array().unwrap()[0] == e.as_array().unwrap()[0]).unwrap_or(e).clone())
        .collect();
    // The same client stepped again after the pause: what was held back is due again.
    let out = listed(&mut first, NOW + 3_000, json!({ "e": "step", "x": 2, "entries": store.clone() }));
    let polled = run_step(&mut first, NOW + 3_000, out);
    assert!(
        polled.contains(&"t8".to_owned()) && polled.contains(&"t9".to_owned()),
        "held back, then polled: {polled:?}"
    );

    // The next step of an edge worker is a fresh client: the stored records tell it of the pause.
    let fresh = store;
    let mut second = open_stepping();
    let out = listed(&mut second, NOW + 2_300, json!({ "e": "step", "x": 1, "entries": fresh.clone() }));
    no_send(&out, "nothing sent during the pause");
    let report = the(&out, "done").get("value").unwrap();
    assert_eq!(report.get("nextWakeAt").and_then(Value::as_u64), Some(NOW + 3_000), "{report:?}");
    let mut third = open_stepping();
    let out = listed(&mut third, NOW + 3_000, json!({ "e": "step", "x": 1, "entries": fresh }));
    sent(&out, "tasks/get");
}

#[test]
fn a_pause_met_by_a_call_holds_in_every_tab_in_the_next_page_and_in_the_next_step() {
    let (mut follower, _) = leading_tab();
    follower.state.set_leader(false);
    let at = NOW + 1_000;
    let out = feed(&mut follower, at, r#"{"e":"call","x":5,"name":"build"}"#);
    let call = the(&out, "send").clone();
    let out = refused(&mut follower, at, &call, "3", "busy");
    assert_eq!(error_of(&out).get("name").and_then(Value::as_str), Some("HttpError"), "{out:?}");
    let save = out.iter().find(|e| e.get("do").and_then(Value::as_str) == Some("save")).expect("the pause is stored");
    let stored = json!([save.get("key").unwrap().clone(), save.get("text").unwrap().clone()]);
    assert!(stored[0].as_str().unwrap().ends_with("/pause"), "{stored:?}");
    assert_eq!(stored[1].as_str(), Some((at + 3_000).to_string().as_str()), "the pause's end, in Unix ms");
    let shared = posted(&out, "pause").to_owned();

    // The polling tab hears of it: no poll, and its hint for the next page names the pause's end.
    let (mut leader, entry) = leading_tab();
    let out = message(&mut leader, at, &shared);
    let hint = the(&out, "hint").get("text").and_then(Value::as_str).unwrap().to_owned();
    assert!(hint.ends_with(&format!(",{}]", at + 3_000)), "{hint}");
    no_send(&feed(&mut leader, at + 2_999, r#"{"e":"tick"}"#), "no poll during another tab's pause");
    sent(&feed(&mut leader, at + 3_000, r#"{"e":"tick"}"#), "tasks/get");

    // A page opened meanwhile sends none of the hinted early polls, and keeps to the stored pause.
    let mut page = open_tab();
    let early = json!({ "e": "early", "hint": hint });
    no_send(&page.handle(at + 1_000, &early, &[]), "no early poll during the pause");
    let out =
        listed(&mut page, at + 1_000, json!({ "e": "restore", "x": 1, "entries": [entry, stored], "leader": true }));
    no_send(&out, "no poll nor discover during the stored pause");
    assert_eq!(timer(&out), at + 3_000, "{out:?}");
    assert_eq!(error_of(&feed(&mut page, at + 1_000, r#"{"e":"call","x":2,"name":"build"}"#))["retryable"], true);
    let mut later = open_tab();
    assert!(kinds(&later.handle(at + 3_000, &early, &[])).contains(&"send"), "the hint's pause has ended");

    // An edge worker's next step is a fresh client: the stored pause holds there too.
    #[cfg(feature = "legacy")]
    {
        let mut step = open_stepping();
        let out = listed(&mut step, at + 1_000, json!({ "e": "step", "x": 1, "entries": [entry, stored] }));
        no_send(&out, "no poll during the stored pause");
        assert_eq!(
            the(&out, "done").get("value").and_then(|v| v.get("nextWakeAt")).and_then(Value::as_u64),
            Some(at + 3_000)
        );
    }
}
