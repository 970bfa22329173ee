//! The door driven as the JS driver drives it: events in, effects out, with a scripted server that
//! reads each request the door sends and answers it.
use super::*;
use crate::json::from_str;

/// 2026-08-01T09:00:10Z, ten seconds after the tasks below were created.
const NOW: u64 = 1_785_574_810_000;

fn open() -> Door {
    let options = json!({ "url": "https://h/mcp", "namespace": "ns", "minPollIntervalMs": 50 });
    Door::open(&options, 7).unwrap()
}

/// Feeds `event` (JSON text) at `now`; the effects.
fn feed(door: &mut Door, now: u64, event: &str) -> Vec<Value> {
    door.handle(now, &from_str(event).unwrap(), &[])
}

/// Feeds `event` at `now` with its `entries` (`[key, text]` pairs, as a test writes them) handed over
/// as the driver hands what it listed: their bytes end to end in the body, each one's length in
/// `sizes`; the effects.
fn listed(door: &mut Door, now: u64, event: Value) -> Vec<Value> {
    let Value::Object(mut event) = event else { panic!("an event is an object") };
    let (mut sizes, mut body) = (Vec::new(), Vec::new());
    let entries = event.remove("entries");
    for part in entries.iter().flat_map(|e| e.as_array().unwrap()).flat_map(|pair| pair.as_array().unwrap()) {
        let text = part.as_str().unwrap();
        sizes.push(Value::from(text.len() as u64));
        body.extend_from_slice(text.as_bytes());
    }
    event.put("sizes", Value::Array(sizes));
    door.handle(now, &Value::Object(event), &body)
}

/// The snapshots a `tasks` event's `done` carries (written as one JSON text, read back as a list).
fn listed_tasks(effects: &[Value]) -> Vec<Value> {
    let value = the(effects, "done").get("value").unwrap().to_string();
    from_str(&value).unwrap().as_array().unwrap().clone()
}

fn kinds(effects: &[Value]) -> Vec<&str> {
    effects.iter().map(|e| e.get("do").and_then(Value::as_str).unwrap()).collect()
}

fn the<'a>(effects: &'a [Value], kind: &str) -> &'a Value {
    effects
        .iter()
        .find(|e| e.get("do").and_then(Value::as_str) == Some(kind))
        .unwrap_or_else(|| panic!("no {kind} in {effects:?}"))
}

/// The request a `send` effect carries, parsed.
fn request(send: &Value) -> Value {
    from_str(send.get("body").and_then(Value::as_str).unwrap()).unwrap()
}

/// Answers `send` with `result` (a JSON-RPC response under the request's id); the effects.
fn answer(door: &mut Door, now: u64, send: &Value, result: Value) -> Vec<Value> {
    let id = request(send).get("id").unwrap().clone();
    let body = json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string();
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    door.handle(now, &json!({ "e": "answer", "n": n, "status": 200 }), body.as_bytes())
}

fn task(status: &str) -> Value {
    json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:05Z",
        "ttlMs": 900000, "pollIntervalMs": 1000, "status": status, "resultType": "task"
    })
}

/// When the timer is set for.
fn timer(effects: &[Value]) -> u64 {
    the(effects, "timer").get("at").and_then(Value::as_u64).unwrap()
}

/// A door with task `t1` created by a call and stored; the poll it sends when the timer fires.
fn with_task(door: &mut Door) -> Value {
    feed(door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(door, NOW, r#"{"e":"call","x":2,"name":"build","arguments":{"seconds":1}}"#);
    answer(door, NOW, the(&out, "send"), task("working"));
    let out = feed(door, NOW, r#"{"e":"written","ok":true}"#);
    let out = feed(door, timer(&out), r#"{"e":"tick"}"#);
    the(&out, "send").clone()
}

#[test]
fn listed_pairs_are_cut_from_the_body_by_their_sizes_and_end_where_they_stop_fitting() {
    let body = "abé xyz".as_bytes();
    let read = |sizes: Value| {
        let event = json!({ "e": "lead", "sizes": sizes });
        let Ok((_, Event::Lead { sizes })) = Event::decode(&event) else { panic!("sizes") };
        pairs(sizes, body).into_iter().map(|(k, t)| (k.to_owned(), t.to_owned())).collect::<Vec<_>>()
    };
    let pairs_of =
        |pairs: &[(&str, &str)]| pairs.iter().map(|(k, t)| (k.to_string(), t.to_string())).collect::<Vec<_>>();
    assert_eq!(read(json!([1, 1, 2, 4])), pairs_of(&[("a", "b"), ("é", " xyz")]));
    assert_eq!(read(json!([1, 1, 2])), pairs_of(&[("a", "b")]), "a key without its text is no pair");
    assert_eq!(read(json!([1, 1, 2, 9])), pairs_of(&[("a", "b")]), "past the body's end");
    assert_eq!(read(json!([1, 1, 1, 1])), pairs_of(&[("a", "b")]), "a size that cuts a character in two");
    assert!(read(json!([])).is_empty(), "no sizes, no pairs");
}

#[test]
fn a_call_is_saved_sent_stored_and_then_settled_with_its_task() {
    let mut door = open();
    assert_eq!(kinds(&feed(&mut door, NOW, r#"{"e":"restore","x":1}"#)), ["done", "timer", "hint"]);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build","arguments":{"seconds":1}}"#);
    assert_eq!(kinds(&out), ["save", "send"], "the pending call is saved before its request");
    assert!(the(&out, "save").get("key").and_then(Value::as_str).unwrap().contains("/call/"));
    let sent = request(the(&out, "send"));
    assert_eq!(sent.get("method").and_then(Value::as_str), Some("tools/call"));
    assert_eq!(sent.get("params").and_then(|p| p.get("name")).and_then(Value::as_str), Some("build"));

    let out = answer(&mut door, NOW, the(&out, "send"), task("working"));
    assert!(!kinds(&out).contains(&"done"), "not settled before the record is stored: {out:?}");
    let put = the(&out, "put").get("entries").and_then(Value::as_array).unwrap();
    assert!(put[0].as_array().unwrap()[0].as_str().unwrap().ends_with("/task/t1"));
    assert!(kinds(&out).contains(&"delete"), "the pending call goes");

    let out = feed(&mut door, NOW, r#"{"e":"written","ok":true}"#);
    let done = the(&out, "done");
    assert_eq!(done.get("x").and_then(Value::as_u64), Some(2));
    let snapshot = done.get("value").and_then(|v| v.get("task")).unwrap();
    assert_eq!(snapshot.get("taskId").and_then(Value::as_str), Some("t1"));
    assert_eq!(snapshot.get("status").and_then(Value::as_str), Some("working"));
    assert!(out.iter().any(|e| e.get("type").and_then(Value::as_str) == Some("task")), "the host hears of it");
    assert_eq!(kinds(&out).iter().filter(|k| **k == "timer").count(), 1, "one timer however many passes: {out:?}");
    assert_eq!(timer(&out), NOW + 1_000, "polled at the server's interval");
    let out = feed(&mut door, NOW + 1_000, r#"{"e":"tick"}"#);
    assert_eq!(request(the(&out, "send")).get("method").and_then(Value::as_str), Some("tasks/get"));
}

#[test]
fn a_completed_poll_is_stored_announced_and_settles_the_wait() {
    let mut door = open();
    let poll = with_task(&mut door);
    assert!(feed(&mut door, NOW, r#"{"e":"wait","x":5,"id":"t1"}"#).is_empty(), "a live task's wait waits");
    let done = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "completed", "resultType": "complete",
        "result": { "content": [{ "type": "text", "text": "ok" }] }
    });
    let out = answer(&mut door, NOW + 1_000, &poll, done);
    assert_eq!(kinds(&out).iter().filter(|k| **k == "put").count(), 1, "{out:?}");
    let out = feed(&mut door, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    let settled = the(&out, "done");
    assert_eq!(settled.get("x").and_then(Value::as_u64), Some(5));
    assert_eq!(settled.get("value").and_then(|v| v.get("status")).and_then(Value::as_str), Some("completed"));
    let wait = feed(&mut door, NOW + 1_000, r#"{"e":"wait","x":6,"id":"t1"}"#);
    assert_eq!(the(&wait, "done").get("x").and_then(Value::as_u64), Some(6), "a settled task's wait settles at once");
}

#[test]
fn an_unsupported_version_naming_ours_is_sent_once_more_under_a_new_id() {
    // In a 200, or in an HTTP 400 as the official conformance suite's request-metadata scenario sends it.
    for status in [200, 400] {
        let mut door = open();
        feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
        let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"echo"}"#);
        let send = the(&out, "send").clone();
        let id = request(&send).get("id").unwrap().clone();
        let refusal = json!({ "jsonrpc": "2.0", "id": id, "error": {
            "code": -32022, "message": "unsupported", "data": { "supported": [crate::protocol::PROTOCOL_VERSION] } } });
        let out = door.handle(
            NOW,
            &json!({ "e": "answer", "n": send.get("n").unwrap(), "status": status }),
            refusal.to_string().as_bytes(),
        );
        let again = the(&out, "send");
        assert_eq!(again.get("n"), send.get("n"), "the same exchange ({status})");
        assert_ne!(request(again).get("id"), Some(&id), "under a new id ({status})");
        let out = answer(&mut door, NOW, again, json!({ "content": [{ "type": "text", "text": "hi" }] }));
        let value = the(&out, "done").get("value").unwrap();
        assert_eq!(value.get("kind").and_then(Value::as_str), Some("result"), "settled ({status})");
    }
}

#[test]
fn a_failed_call_rejects_with_its_kind_and_a_failed_poll_backs_off() {
    let mut door = open();
    let poll = with_task(&mut door);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":3,"name":"echo"}"#);
    let n = the(&out, "send").get("n").and_then(Value::as_u64).unwrap();
    let out = door.handle(NOW, &json!({ "e": "failed", "n": n, "kind": "network", "message": "reset" }), &[]);
    let error = the(&out, "done").get("error").unwrap();
    assert_eq!(error.get("name").and_then(Value::as_str), Some("NetworkError"));
    assert_eq!(error.get("retryable").and_then(Value::as_bool), Some(true));
    assert!(error.get("message").and_then(Value::as_str).unwrap().contains("reset"));

    let n = poll.get("n").and_then(Value::as_u64).unwrap();
    let out = door.handle(NOW, &json!({ "e": "failed", "n": n, "kind": "timeout" }), &[]);
    assert!(!kinds(&out).contains(&"send"), "no poll at once after a failure: {out:?}");
    assert!(timer(&out) > NOW, "the timer is set for the backoff");
}

#[test]
fn questions_before_a_task_go_to_the_host_or_fail_without_one() {
    let asked = json!({ "resultType": "input_required", "inputRequests": { "ok": {
        "method": "elicitation/create", "params": { "message": "Go?", "requestedSchema": { "type": "object", "properties": {} } } } } });
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"deploy"}"#);
    let out = answer(&mut door, NOW, the(&out, "send"), asked.clone());
    let error = the(&out, "done").get("error").unwrap();
    assert_eq!(error.get("name").and_then(Value::as_str), Some("InputRequiredError"));
    assert!(error.get("message").and_then(Value::as_str).unwrap().contains("onInputRequired"));

    let out = feed(&mut door, NOW, r#"{"e":"call","x":3,"name":"deploy","ask":true}"#);
    let out = answer(&mut door, NOW, the(&out, "send"), asked);
    let ask = the(&out, "ask");
    assert_eq!(ask.get("x").and_then(Value::as_u64), Some(3));
    assert!(ask.get("requests").and_then(|r| r.get("ok")).is_some());
    let out = feed(&mut door, NOW, r#"{"e":"asked","x":3,"answers":{"ok":{"action":"accept","content":{}}}}"#);
    let retry = request(the(&out, "send"));
    assert!(retry.get("params").and_then(|p| p.get("inputResponses")).and_then(|r| r.get("ok")).is_some(), "{retry}");
}

/// Feeds exchange `n`'s stream `chunk` (`None`: its end).
fn chunk(door: &mut Door, n: &Value, chunk: Option<&str>) -> Vec<Value> {
    let event = json!({ "e": "chunk", "n": n, "end": chunk.is_none() });
    door.handle(NOW, &event, chunk.unwrap_or_default().as_bytes())
}

#[test]
fn an_answer_on_an_event_stream_is_read_chunk_by_chunk() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"echo"}"#);
    let send = the(&out, "send");
    let n = send.get("n").unwrap().clone();
    let id = request(send).get("id").unwrap().clone();
    let token = request(send).pointer("/params/_meta/progressToken").and_then(Value::as_str).map(str::to_owned);
    let token = token.expect("every call asks for progress");
    assert!(token.starts_with("call-"), "the call's id: {token}");
    let started = door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]);
    assert!(started.is_empty(), "nothing until the stream says: {started:?}");
    let report = |token: &str, progress: u32| {
        let params = json!({ "progressToken": token, "progress": progress, "total": 10, "message": "working" });
        let message = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": params });
        format!("event: message\ndata: {message}\n\n")
    };
    let empty = r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#;
    let out = chunk(&mut door, &n, Some(&format!("{empty}\n\n{}", report("call-other", 9))));
    assert!(out.is_empty(), "no token, or another request's: {out:?}");
    let out = chunk(&mut door, &n, Some(&format!("{}{}", report(&token, 1), report(&token, 2))));
    assert_eq!(kinds(&out), ["progress"], "one report per chunk");
    assert_eq!(the(&out, "progress").get("x").and_then(Value::as_u64), Some(2));
    let latest = json!({ "progress": 2, "total": 10, "message": "working" });
    assert_eq!(the(&out, "progress").get("progress"), Some(&latest), "the latest of the chunk");
    let response = json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [] } }).to_string();
    let (first, second) = response.split_at(10);
    assert!(chunk(&mut door, &n, Some(&format!("data: {first}"))).is_empty(), "half an event is no answer");
    let out = chunk(&mut door, &n, Some(&format!("{second}\n\n")));
    assert_eq!(kinds(&out), ["close", "delete", "done"], "the driver stops reading once the answer is in");
    assert_eq!(the(&out, "done").get("value").and_then(|v| v.get("kind")).and_then(Value::as_str), Some("result"));
}

#[test]
fn a_stream_without_the_answer_or_with_an_endless_event_fails_the_call_with_its_kind() {
    let options = json!({ "url": "https://h/mcp", "maxResponseBytes": 1024 });
    let mut door = Door::open(&options, 7).unwrap();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let mut error_of = |chunks: &[Option<&str>]| {
        let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"echo"}"#);
        let n = the(&out, "send").get("n").unwrap().clone();
        door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]);
        let mut out = Vec::new();
        for part in chunks {
            out = chunk(&mut door, &n, *part);
        }
        assert_eq!(kinds(&out), ["close", "delete", "done"], "closed, the pending call gone, settled");
        the(&out, "done").get("error").and_then(|e| e.get("name")).and_then(Value::as_str).unwrap().to_owned()
    };
    assert_eq!(error_of(&[Some("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"), None]), "NetworkError");
    let endless = "data: ".to_owned() + &"a".repeat(2_000);
    assert_eq!(error_of(&[Some(&endless)]), "ProtocolError", "refused at the limit, before the stream ends");
}

#[test]
fn a_restore_in_two_parts_polls_the_first_page_before_the_rest_is_read() {
    let mut first = open();
    with_task(&mut first);
    let text = first.state.stored_text("t1").unwrap();
    let entries: Vec<Value> = (0..40)
        .map(|i| {
            let id = format!("t{i}");
            json!([first.state.keys().task(&id), text.replace("\"t1\"", &format!("\"{id}\""))])
        })
        .collect();
    let mut door = open();
    // The hint names a task of the second part; its early answer comes before the store is read.
    let out = feed(&mut door, NOW, r#"{"e":"early","hint":"[\"t35\"]"}"#);
    let done = json!({
        "taskId": "t35", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "completed", "resultType": "complete",
        "result": { "content": [{ "type": "text", "text": "ok" }] }
    });
    answer(&mut door, NOW + 5, the(&out, "send"), done);

    let page = json!({ "e": "restore", "x": 1, "leader": true, "more": true, "entries": entries[..32].to_vec() });
    let out = listed(&mut door, NOW + 5_000, page);
    assert_eq!(the(&out, "done").get("x").and_then(Value::as_u64), Some(1), "the first page is taken: {out:?}");
    let polled: Vec<String> = out
        .iter()
        .filter(|e| e.get("do").and_then(Value::as_str) == Some("send"))
        .filter_map(|send| {
            let sent = request(send);
            sent.get("params").and_then(|p| p.get("taskId")).and_then(Value::as_str).map(str::to_owned)
        })
        .collect();
    assert!(!polled.is_empty(), "the first page's due tasks are polled before the rest is read: {out:?}");
    assert!(polled.iter().all(|id| id[1..].parse::<u32>().unwrap() < 32), "only the first page's: {polled:?}");

    let rest = json!({ "e": "restore", "x": 2, "leader": true, "entries": entries[32..].to_vec() });
    let out = listed(&mut door, NOW + 5_010, rest);
    assert_eq!(the(&out, "done").get("x").and_then(Value::as_u64), Some(2), "the restore ends with the rest");
    let tasks = feed(&mut door, NOW + 5_010, r#"{"e":"tasks","x":3}"#);
    let list = listed_tasks(&tasks);
    assert_eq!(list.len(), 40, "every record of both parts is held");
    let t35 = list.iter().find(|t| t.get("taskId").and_then(Value::as_str) == Some("t35")).unwrap();
    assert_eq!(
        t35.get("status").and_then(Value::as_str),
        Some("completed"),
        "one restore: the early answer waited for its record in the second part"
    );
}

/// Forty stored records, `t0`…`t39`, each a working task like `t1` of [`with_task`].
fn forty_records() -> Vec<Value> {
    let mut first = open();
    with_task(&mut first);
    let text = first.state.stored_text("t1").unwrap();
    (0..40)
        .map(|i| {
            let id = format!("t{i}");
            json!([first.state.keys().task(&id), text.replace("\"t1\"", &format!("\"{id}\""))])
        })
        .collect()
}

/// The `done` of host call `x` in `effects`, if any.
fn done_of(effects: &[Value], x: u64) -> Option<&Value> {
    effects
        .iter()
        .find(|e| e.get("do").and_then(Value::as_str) == Some("done") && e.get("x").and_then(Value::as_u64) == Some(x))
}

#[test]
fn the_records_of_a_later_part_are_announced_and_tasks_answers_with_what_is_in() {
    let entries = forty_records();
    let mut door = open();
    let page = json!({ "e": "restore", "x": 1, "leader": true, "more": true, "entries": entries[..32].to_vec() });
    listed(&mut door, NOW + 5_000, page);
    // open() has resolved: the host sees the first page, and may wait for one of its tasks.
    let out = feed(&mut door, NOW + 5_001, r#"{"e":"wait","x":15,"id":"t3"}"#);
    assert!(done_of(&out, 15).is_none() && door.state.waiting() == 1, "a task read already is waited for at once");
    assert_eq!(listed_tasks(&feed(&mut door, NOW + 5_001, r#"{"e":"tasks","x":16}"#)).len(), 32, "what is in");

    let part = json!({ "e": "restore", "x": 2, "leader": true, "more": true, "entries": entries[32..].to_vec() });
    let out = listed(&mut door, NOW + 5_010, part);
    let announced: Vec<&str> = out
        .iter()
        .filter(|e| e.get("do").and_then(Value::as_str) == Some("emit"))
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("task"))
        .filter_map(|e| e.get("detail").and_then(|d| d.get("taskId")).and_then(Value::as_str))
        .collect();
    assert_eq!(announced, ["t32", "t33", "t34", "t35", "t36", "t37", "t38", "t39"], "each record of a later part");
    let out = feed(&mut door, NOW + 5_020, r#"{"e":"restore","x":3,"leader":true}"#);
    assert!(!kinds(&out).contains(&"emit"), "the last part lists nothing new: {out:?}");
    assert_eq!(listed_tasks(&feed(&mut door, NOW + 5_020, r#"{"e":"tasks","x":4}"#)).len(), 40, "every record once");
    assert_eq!(door.state.waiting(), 1, "t3 is working: its wait waits for its end");
}

#[test]
fn a_record_listed_again_while_the_store_is_read_is_held_and_announced_once() {
    let entries = forty_records();
    let mut door = open();
    let page = json!({ "e": "restore", "x": 1, "leader": true, "more": true, "entries": entries[..32].to_vec() });
    listed(&mut door, NOW + 5_000, page);
    let ids_before = listed_tasks(&feed(&mut door, NOW + 5_001, r#"{"e":"tasks","x":4}"#)).len();
    let part = json!({ "e": "restore", "x": 5, "leader": true, "more": true, "entries": entries[32..36].to_vec() });
    listed(&mut door, NOW + 5_002, part);
    // The same records listed again (a page read twice, or a record written since): held once.
    let again = json!({ "e": "restore", "x": 6, "leader": true, "entries": entries[30..].to_vec() });
    let out = listed(&mut door, NOW + 5_003, again);
    let announced = out.iter().filter(|e| e.get("do").and_then(Value::as_str) == Some("emit")).count();
    assert_eq!(announced, 4, "only the records not held yet are announced: {out:?}");
    let all = listed_tasks(&feed(&mut door, NOW + 5_004, r#"{"e":"tasks","x":7}"#));
    assert_eq!((ids_before, all.len()), (32, 40), "never doubled, never lost");
}

#[test]
fn tasks_come_in_pages_every_task_then_every_call_of_unknown_outcome() {
    let mut first = open();
    with_task(&mut first);
    let text = first.state.stored_text("t1").unwrap();
    let out = feed(&mut first, NOW, r#"{"e":"call","x":9,"name":"deploy"}"#);
    let save = the(&out, "save");
    let call = json!([save.get("key").unwrap(), save.get("text").unwrap()]);
    let mut entries: Vec<Value> = (0..5)
        .map(|i| {
            let id = format!("t{i}");
            json!([first.state.keys().task(&id), text.replace("\"t1\"", &format!("\"{id}\""))])
        })
        .collect();
    entries.push(call);
    let mut door = open();
    listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": entries }));

    let page = |door: &mut Door, from: u64, count: u64| {
        let event = json!({ "e": "tasks", "x": 2, "from": from, "count": count }).to_string();
        let ids = listed_tasks(&feed(door, NOW, &event));
        let id =
            |t: &Value| ["taskId", "callId"].iter().find_map(|k| t.get(k).and_then(Value::as_str)).unwrap().to_owned();
        ids.iter().map(id).collect::<Vec<_>>()
    };
    let all = listed_tasks(&feed(&mut door, NOW, r#"{"e":"tasks","x":3}"#));
    assert_eq!(all.len(), 6, "five tasks and the call: {all:?}");
    assert_eq!(page(&mut door, 0, 2), ["t0", "t1"]);
    assert_eq!(page(&mut door, 2, 2), ["t2", "t3"]);
    let last = page(&mut door, 4, 2);
    assert_eq!(last[0], "t4");
    assert!(last[1].starts_with("call-"), "the call of unknown outcome after the tasks: {last:?}");
    assert_eq!(page(&mut door, 5, 2), last[1..], "a page that starts at the call");
    assert!(page(&mut door, 6, 2).is_empty(), "past the end");
}

#[test]
fn restored_records_are_polled_and_unknown_events_and_tasks_are_typed_errors() {
    let mut first = open();
    with_task(&mut first);
    let entry = first.state.stored_text("t1").unwrap();
    let key = first.state.keys().task("t1");
    let mut door = open();
    let restore = json!({ "e": "restore", "x": 1, "entries": [[key, entry]] });
    let out = listed(&mut door, NOW + 5_000, restore);
    assert_eq!(request(the(&out, "send")).get("method").and_then(Value::as_str), Some("tasks/get"));
    let tasks = feed(&mut door, NOW, r#"{"e":"tasks","x":2}"#);
    let list = listed_tasks(&tasks);
    assert_eq!(list[0].get("restored").and_then(Value::as_bool), Some(true));

    let out = feed(&mut door, NOW, r#"{"e":"respond","x":3,"id":"nope","answers":{}}"#);
    assert_eq!(the(&out, "done").get("error").and_then(|e| e.get("name")).and_then(Value::as_str), Some("TypeError"));
    let out = feed(&mut door, NOW, r#"{"e":"shout","x":4}"#);
    let message = the(&out, "done").get("error").and_then(|e| e.get("message")).and_then(Value::as_str).unwrap();
    assert_eq!(message, "the door has no event \"shout\"");
    assert!(Door::open(&json!({ "namespace": "ns" }), 1).is_err(), "a door needs a url");
}

#[test]
fn a_record_the_store_refuses_rejects_the_call_that_made_it_and_stays_in_memory() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let out = answer(&mut door, NOW, the(&out, "send"), task("working"));
    let key = the(&out, "put").get("entries").and_then(Value::as_array).unwrap()[0].as_array().unwrap()[0].clone();
    let refusal = json!({ "e": "written", "refused": [key], "message": "quota" });
    let out = door.handle(NOW, &refusal, &[]);
    let error = the(&out, "done").get("error").unwrap();
    assert_eq!(error.get("name").and_then(Value::as_str), Some("StorageError"));
    assert!(error.get("message").and_then(Value::as_str).unwrap().contains("started as task t1,"), "{error}");
    let reason = the(&out, "storage").get("reason").and_then(Value::as_str).unwrap();
    assert!(reason.contains("t1") && reason.contains("quota"), "{reason}");
    assert!(door.state.is_unstored("t1"), "kept in memory, written again with its next change");
    assert!(out.iter().any(|e| e.get("type").and_then(Value::as_str) == Some("task")), "still announced");

    let out = feed(&mut door, NOW, r#"{"e":"cancel","x":3,"id":"t1"}"#);
    let broken = door.handle(NOW, &json!({ "e": "written", "refused": [], "broken": true }), &[]);
    assert!(kinds(&out).contains(&"put"), "{out:?}");
    let error = the(&broken, "done").get("error").unwrap();
    assert!(error.get("message").and_then(Value::as_str).unwrap().contains("queued in memory"), "{error}");
    assert!(!kinds(&broken).contains(&"storage"), "the driver says the store broke, once");
}

#[test]
fn previous_keys_move() {
    let mut door = open();
    let out = feed(&mut door, NOW, r#"{"e":"keys","x":1}"#);
    let keys = the(&out, "done").get("value").unwrap().clone();
    let previous = keys.get("previous").and_then(Value::as_str).unwrap();
    let prefix = keys.get("prefix").and_then(Value::as_str).unwrap();
    let old = format!("{previous}task/t1");
    let migrate = json!({ "e": "migrate", "x": 2, "entries": [[old, "text"], [format!("{previous}task/a/b"), "x"]] });
    let out = listed(&mut door, NOW, migrate);
    let moves = the(&out, "done").get("value").and_then(Value::as_array).unwrap();
    assert_eq!(moves.len(), 1, "a key the client cannot claim stays: {moves:?}");
    assert_eq!(moves[0], json!([old, format!("{prefix}task/t1"), "text"]));
}

#[test]
fn a_tools_page_keeps_each_tools_bindings_for_its_calls_and_names_the_invalid_ones() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"list_tools","x":2,"cursor":"c1"}"#);
    let send = the(&out, "send");
    assert_eq!(send.get("x").and_then(Value::as_u64), Some(2), "a host call's request names it (for its signal)");
    assert_eq!(request(send).get("params").and_then(|p| p.get("cursor")).and_then(Value::as_str), Some("c1"));
    let bound = json!({ "name": "greet", "inputSchema": { "properties": { "who": { "type": "string", "x-mcp-header": "Who" } } } });
    let bad =
        json!({ "name": "bad", "inputSchema": { "properties": { "n": { "type": "array", "x-mcp-header": "N" } } } });
    let out = answer(&mut door, NOW, send, json!({ "tools": [bound, bad], "nextCursor": "c2" }));
    let page = the(&out, "done").get("value").unwrap();
    assert_eq!(page.get("tools").and_then(Value::as_array).map(Vec::len), Some(1));
    assert_eq!(page.get("nextCursor").and_then(Value::as_str), Some("c2"));
    let rejected = page.get("rejectedTools").and_then(Value::as_array).unwrap();
    assert_eq!(rejected[0].get("name").and_then(Value::as_str), Some("bad"));

    let out = feed(&mut door, NOW, r#"{"e":"call","x":3,"name":"greet","arguments":{"who":"Ann"}}"#);
    let headers = the(&out, "send").get("headers").and_then(Value::as_array).unwrap();
    let at = headers.iter().position(|h| h.as_str() == Some("Mcp-Param-Who")).expect("the bound header is sent");
    assert_eq!(headers[at + 1].as_str(), Some("Ann"));
    let out = feed(
        &mut door,
        NOW,
        r#"{"e":"call","x":4,"name":"x","inputSchema":{"properties":{"a":{"x-mcp-header":"A"}}}}"#,
    );
    assert_eq!(the(&out, "done").get("error").and_then(|e| e.get("name")).and_then(Value::as_str), Some("TypeError"));
}

#[test]
fn a_resource_read_sends_resources_read_with_its_uri_and_gives_the_contents_as_sent() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"read_resource","x":2,"uri":"ui://app/é.html"}"#);
    let send = the(&out, "send");
    assert_eq!(send.get("x").and_then(Value::as_u64), Some(2), "a host call's request names it (for its signal)");
    assert_eq!(request(send).get("method").and_then(Value::as_str), Some("resources/read"));
    assert_eq!(request(send).pointer("/params/uri").and_then(Value::as_str), Some("ui://app/é.html"));
    let headers = send.get("headers").and_then(Value::as_array).unwrap();
    let at = headers.iter().position(|h| h.as_str() == Some("Mcp-Name")).expect("the URI routes the request");
    assert_eq!(headers[at + 1].as_str(), Some("=?base64?dWk6Ly9hcHAvw6kuaHRtbA==?="));
    let content = json!({ "uri": "ui://app/é.html", "mimeType": "text/html;profile=mcp-app", "text": "<p>hi</p>", "_meta": { "ui": { "prefersBorder": true } } });
    let out = answer(&mut door, NOW, send, json!({ "resultType": "complete", "contents": [content.clone()] }));
    assert_eq!(the(&out, "done").get("value"), Some(&json!({ "resultType": "complete", "contents": [content] })));

    // A result without `contents` is the server's error, typed.
    let out = feed(&mut door, NOW, r#"{"e":"read_resource","x":3,"uri":"ui://app/x"}"#);
    let out = answer(&mut door, NOW, the(&out, "send"), json!({ "resultType": "complete" }));
    let error = the(&out, "done").get("error").unwrap();
    assert_eq!(error.get("name").and_then(Value::as_str), Some("ProtocolError"), "{error:?}");
    // So is the server's refusal of the URI, with its message, once the server is known to speak
    // 2026-07-28 (before that, a refusal may mean an older server, as for a tool listing).
    let out = feed(&mut door, NOW, r#"{"e":"call","x":4,"name":"echo"}"#);
    answer(&mut door, NOW, the(&out, "send"), json!({ "resultType": "complete", "content": [] }));
    let out = feed(&mut door, NOW, r#"{"e":"read_resource","x":5,"uri":"ui://nowhere"}"#);
    let send = the(&out, "send").clone();
    let refusal = json!({ "jsonrpc": "2.0", "id": request(&send).get("id").unwrap().clone(),
                           "error": { "code": -32002, "message": "Resource not found: ui://nowhere" } });
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    let out =
        door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200 }), crate::json::to_string(&refusal).as_bytes());
    let error = the(&out, "done").get("error").unwrap();
    assert!(
        error.get("message").and_then(Value::as_str).is_some_and(|m| m.contains("Resource not found")),
        "{error:?}"
    );
}

#[test]
fn a_calls_ui_goes_with_the_task_it_makes_into_snapshots_and_the_store() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let ui = json!({ "resourceUri": "ui://build/app.html", "visibility": ["model", "app"] });
    let out = door.handle(NOW, &json!({ "e": "call", "x": 2, "name": "build", "ui": ui.clone() }), &[]);
    answer(&mut door, NOW, the(&out, "send"), task("working"));
    let out = feed(&mut door, NOW, r#"{"e":"written","ok":true}"#);
    let snapshot = the(&out, "done").pointer("/value/task").unwrap().clone();
    assert_eq!(snapshot.get("ui"), Some(&ui), "{snapshot:?}");
    let tasks = listed_tasks(&feed(&mut door, NOW, r#"{"e":"tasks","x":3}"#));
    assert_eq!(tasks[0].get("ui"), Some(&ui), "tasks() carries it too");

    // After a reload the stored record still has it.
    let entry = door.state.stored_text("t1").unwrap();
    let key = door.state.keys().task("t1");
    let mut reloaded = open();
    listed(&mut reloaded, NOW + 5_000, json!({ "e": "restore", "x": 1, "entries": [[key, entry]] }));
    let tasks = listed_tasks(&feed(&mut reloaded, NOW + 5_000, r#"{"e":"tasks","x":2}"#));
    assert_eq!(tasks[0].get("ui"), Some(&ui), "the record keeps the tool's app: {:?}", tasks[0]);

    // A call without it: null.
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"call","x":2,"name":"lint"}"#);
    answer(&mut door, NOW, the(&out, "send"), task("working"));
    let out = feed(&mut door, NOW, r#"{"e":"written","ok":true}"#);
    assert_eq!(the(&out, "done").pointer("/value/task/ui"), Some(&Value::Null));
}

#[test]
fn an_event_the_door_cannot_read_settles_its_host_call_with_a_type_error() {
    let mut door = open();
    let deep =
        format!(r#"{{"e":"call","x":9,"name":"echo","arguments":{{"a":{}1{}}}}}"#, "[".repeat(200), "]".repeat(200));
    let out = door.handle_text(NOW, 9, &deep, &[]);
    let done = the(&out, "done");
    assert_eq!(done.get("x").and_then(Value::as_u64), Some(9));
    assert_eq!(done.get("error").and_then(|e| e.get("name")).and_then(Value::as_str), Some("TypeError"));
}

/// A door with task `t1` live and its `server/discover` answered as offering the Tasks extension; the
/// `subscriptions/listen` send that follows.
fn listening(door: &mut Door) -> Value {
    feed(door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(door, NOW, r#"{"e":"call","x":2,"name":"build","arguments":{"seconds":1}}"#);
    answer(door, NOW, the(&out, "send"), task("working"));
    let out = feed(door, NOW, r#"{"e":"written","ok":true}"#);
    let discover = sent(&out, "server/discover");
    let capabilities = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let result = json!({ "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": capabilities });
    let out = answer(door, NOW, &discover, result);
    sent(&out, "subscriptions/listen")
}

/// The `send` effect of a `method` request.
fn sent(effects: &[Value], method: &str) -> Value {
    let send = effects.iter().find(|e| {
        e.get("do").and_then(Value::as_str) == Some("send")
            && request(e).get("method").and_then(Value::as_str) == Some(method)
    });
    send.unwrap_or_else(|| panic!("no {method} sent in {effects:?}")).clone()
}

/// One chunk of exchange `n`'s event stream carrying `messages` as SSE events.
fn events(door: &mut Door, now: u64, n: u64, messages: &[Value]) -> Vec<Value> {
    let mut bytes = String::new();
    for message in messages {
        bytes.push_str(&format!("data: {message}\n\n"));
    }
    door.handle(now, &json!({ "e": "chunk", "n": n }), bytes.as_bytes())
}

fn number_of(send: &Value) -> u64 {
    send.get("n").and_then(Value::as_u64).unwrap()
}

fn acknowledged(ids: &[&str]) -> Value {
    let ids: Vec<Value> = ids.iter().map(|id| Value::from(*id)).collect();
    json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
            "params": { "notifications": { "taskIds": Value::Array(ids) } } })
}

#[test]
fn a_listen_stream_covers_what_it_acknowledges_and_its_pushed_state_is_stored() {
    let mut door = open();
    let listen = listening(&mut door);
    assert_eq!(listen.get("stream").and_then(Value::as_bool), Some(true), "a stream has no timeout");
    let filter = request(&listen).get("params").and_then(|p| p.get("notifications")).unwrap().to_string();
    assert_eq!(filter, r#"{"taskIds":["t1"]}"#);
    let n = number_of(&listen);
    assert!(door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]).is_empty());

    let out = events(&mut door, NOW + 100, n, &[acknowledged(&["t1"])]);
    let emitted = the(&out, "emit").get("detail").unwrap();
    assert_eq!(emitted.get("connectivity").and_then(Value::as_str), Some("listening"));
    // Covered: the next poll is only the backstop, far beyond the server's 1 s interval.
    assert!(timer(&out) >= NOW + 60_000, "{out:?}");

    let mut done = task("completed");
    if let Value::Object(fields) = &mut done {
        fields.put("resultType", Value::Null);
        fields.put("result", json!({ "content": [{ "type": "text", "text": "pushed" }] }));
    }
    let pushed = json!({ "jsonrpc": "2.0", "method": "notifications/tasks", "params": done });
    let out = events(&mut door, NOW + 200, n, &[pushed]);
    assert!(kinds(&out).contains(&"put"), "the pushed state is stored: {out:?}");
    let out = feed(&mut door, NOW + 200, r#"{"e":"written","ok":true}"#);
    assert_eq!(the(&out, "close").get("n").and_then(Value::as_u64), Some(n), "no live task: the stream closes");
    let wait = feed(&mut door, NOW + 300, r#"{"e":"wait","x":9,"id":"t1"}"#);
    assert_eq!(
        the(&wait, "done").get("value").and_then(|v| v.get("status")).and_then(Value::as_str),
        Some("completed")
    );
    assert!(
        events(&mut door, NOW + 400, n, &[acknowledged(&["t1"])]).is_empty(),
        "a closed stream's bytes are ignored"
    );
}

#[test]
fn a_listen_that_honours_nothing_closes_and_an_unreadable_pushed_task_ends_the_stream() {
    let mut door = open();
    let listen = listening(&mut door);
    let n = number_of(&listen);
    door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]);
    let out = events(&mut door, NOW + 100, n, &[acknowledged(&[])]);
    assert_eq!(the(&out, "close").get("n").and_then(Value::as_u64), Some(n));
    assert!(timer(&out) <= NOW + 1_000, "polled as before: {out:?}");

    let mut door = open();
    let listen = listening(&mut door);
    let n = number_of(&listen);
    door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200, "sse": true }), &[]);
    events(&mut door, NOW + 100, n, &[acknowledged(&["t1"])]);
    let unreadable = json!({ "jsonrpc": "2.0", "method": "notifications/tasks", "params": { "taskId": 7 } });
    let out = events(&mut door, NOW + 200, n, &[unreadable]);
    assert_eq!(the(&out, "close").get("n").and_then(Value::as_u64), Some(n), "the stream is ended: {out:?}");
    assert!(timer(&out) <= NOW + 1_200, "its task is polled again: {out:?}");
}

#[test]
fn a_server_without_the_listen_method_is_not_asked_again() {
    let mut door = open();
    let listen = listening(&mut door);
    let id = request(&listen).get("id").unwrap().clone();
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "Method not found" } });
    let n = number_of(&listen);
    let out = door.handle(NOW, &json!({ "e": "answer", "n": n, "status": 200 }), body.to_string().as_bytes());
    let polled_at = timer(&out);
    let out = feed(&mut door, polled_at, r#"{"e":"tick"}"#);
    assert_eq!(request(the(&out, "send")).get("method").and_then(Value::as_str), Some("tasks/get"));
    let methods: Vec<Value> =
        out.iter().filter(|e| e.get("do").and_then(Value::as_str) == Some("send")).map(request).collect();
    assert!(methods.iter().all(|r| r.get("method").and_then(Value::as_str) == Some("tasks/get")), "{methods:?}");
}

#[test]
fn a_task_that_ends_while_the_page_is_hidden_asks_for_a_notice_in_the_page_language() {
    let options = json!({ "url": "https://h/mcp", "namespace": "ns", "notify": true, "hidden": true });
    let mut door = Door::open(&options, 7).unwrap();
    let poll = with_task(&mut door);
    let done = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "completed", "resultType": "complete",
        "result": { "content": [{ "type": "text", "text": "ok" }] }
    });
    answer(&mut door, NOW + 1_000, &poll, done);
    let out = feed(&mut door, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    assert_eq!(the(&out, "notify").get("id").and_then(Value::as_str), Some("t1"));
    let out = feed(&mut door, NOW + 1_000, r#"{"e":"notice","x":8,"id":"t1","language":"th-TH"}"#);
    let notice = the(&out, "done").get("value").unwrap();
    assert_eq!(notice.get("title").and_then(Value::as_str), Some("build"));
    assert_eq!(notice.get("body").and_then(Value::as_str), Some("เสร็จสมบูรณ์"));
    assert_eq!(notice.get("lang").and_then(Value::as_str), Some("th"));
    assert!(notice.get("tag").and_then(Value::as_str).unwrap().ends_with("/task/t1"));

    let mut shown = Door::open(&json!({ "url": "https://h/mcp", "namespace": "ns", "hidden": true }), 7).unwrap();
    let poll = with_task(&mut shown);
    feed(&mut shown, NOW, r#"{"e":"notify","on":true}"#);
    let failed = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "failed", "resultType": "complete", "error": { "code": -1, "message": "no" }
    });
    answer(&mut shown, NOW + 1_000, &poll, failed);
    let out = feed(&mut shown, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    assert!(kinds(&out).contains(&"notify"), "turned on after open: {out:?}");
}

fn open_tab() -> Door {
    let options = json!({ "url": "https://h/mcp", "namespace": "ns", "minPollIntervalMs": 50, "tabs": true });
    Door::open(&options, 11).unwrap()
}

/// The text a `post` effect sends to the other tabs, as bytes for their `message` event.
fn posted<'a>(effects: &'a [Value], kind: &str) -> &'a str {
    let post = effects.iter().find(|e| {
        e.get("do").and_then(Value::as_str) == Some("post")
            && e.get("text").and_then(Value::as_str).is_some_and(|t| t.contains(&format!("\"t\":\"{kind}\"")))
    });
    post.and_then(|p| p.get("text"))
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no {kind} posted in {effects:?}"))
}

fn message(door: &mut Door, now: u64, text: &str) -> Vec<Value> {
    door.handle(now, &json!({ "e": "message" }), text.as_bytes())
}

/// A polling tab with task `t1` stored, and the `[key, text]` of its record.
fn leading_tab() -> (Door, Value) {
    let mut leader = open_tab();
    feed(&mut leader, NOW, r#"{"e":"restore","x":1,"leader":true}"#);
    let out = feed(&mut leader, NOW, r#"{"e":"call","x":2,"name":"build"}"#);
    let out = answer(&mut leader, NOW, the(&out, "send"), task("working"));
    let entry = the(&out, "put").get("entries").and_then(Value::as_array).unwrap()[0].clone();
    feed(&mut leader, NOW, r#"{"e":"written","ok":true}"#);
    (leader, entry)
}

#[test]
fn a_tab_that_does_not_poll_forwards_a_cancel_to_the_one_that_does_and_gives_up_after_five_seconds() {
    let (mut leader, entry) = leading_tab();
    let mut follower = open_tab();
    let out = listed(&mut follower, NOW, json!({ "e": "restore", "x": 1, "entries": [entry] }));
    assert!(!kinds(&out).contains(&"send"), "a tab without the lock does not poll: {out:?}");
    let out = feed(&mut follower, NOW, r#"{"e":"cancel","x":5,"id":"t1"}"#);
    assert!(!kinds(&out).contains(&"done"), "{out:?}");
    assert!(!kinds(&out).contains(&"put"), "the polling tab stores it: {out:?}");
    let forwarded = posted(&out, "cancel").to_owned();

    let out = message(&mut leader, NOW, &forwarded);
    assert!(kinds(&out).contains(&"put"), "{out:?}");
    assert!(!kinds(&out).contains(&"post") || !posted_has(&out, "reply"), "no reply before it is stored");
    let out = feed(&mut leader, NOW, r#"{"e":"written","ok":true}"#);
    let reply = posted(&out, "reply").to_owned();

    let out = message(&mut follower, NOW + 10, &reply);
    let done = the(&out, "done");
    assert_eq!(done.get("x").and_then(Value::as_u64), Some(5));
    assert!(done.get("error").is_none(), "{done:?}");

    let out = feed(&mut follower, NOW + 20, r#"{"e":"cancel","x":6,"id":"t1"}"#);
    assert_eq!(timer(&out), NOW + 20 + 5_000, "the timer wakes for the give-up");
    let out = feed(&mut follower, NOW + 5_020, r#"{"e":"tick"}"#);
    let error = the(&out, "done").get("error").unwrap();
    assert_eq!(error.get("name").and_then(Value::as_str), Some("TimeoutError"));
    assert_eq!(error.get("retryable").and_then(Value::as_bool), Some(true));
}

fn posted_has(effects: &[Value], kind: &str) -> bool {
    effects
        .iter()
        .any(|e| e.get("text").and_then(Value::as_str).is_some_and(|t| t.contains(&format!("\"t\":\"{kind}\""))))
}

#[test]
fn a_handle_made_in_another_tab_is_adopted_and_the_tab_that_takes_the_lock_polls() {
    let (mut leader, _) = leading_tab();
    let mut follower = open_tab();
    feed(&mut follower, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut follower, NOW, r#"{"e":"call","x":2,"name":"deploy"}"#);
    let mut handle = task("working");
    if let Value::Object(fields) = &mut handle {
        fields.put("taskId", Value::from("t2"));
    }
    let out = answer(&mut follower, NOW, the(&out, "send"), handle);
    let entry = the(&out, "put").get("entries").and_then(Value::as_array).unwrap()[0].clone();
    let out = feed(&mut follower, NOW, r#"{"e":"written","ok":true}"#);
    assert!(kinds(&out).contains(&"done"));
    assert!(!kinds(&out).contains(&"send"), "the tab that made it does not poll it: {out:?}");
    let adopt = posted(&out, "adopt").to_owned();
    message(&mut leader, NOW, &adopt);
    assert!(leader.state.record("t2").is_some(), "the polling tab adopted it");

    // The polling tab closes; the other takes the lock with the store as it was left.
    let out = listed(&mut follower, NOW + 2_000, json!({ "e": "lead", "entries": [entry] }));
    let out = if kinds(&out).contains(&"send") { out } else { feed(&mut follower, timer(&out), r#"{"e":"tick"}"#) };
    assert!(out.iter().any(|e| e.get("do").and_then(Value::as_str) == Some("send")), "{out:?}");
}

#[test]
fn a_hint_polls_its_tasks_before_the_store_is_read_and_the_answer_waits_for_the_record() {
    let (_, entry) = leading_tab();
    let mut tab = open_tab();
    let out = feed(&mut tab, NOW, r#"{"e":"early","hint":"[\"t1\", 7]"}"#);
    let poll = sent(&out, "tasks/get");
    assert_eq!(request(&poll).get("params").and_then(|p| p.get("taskId")).and_then(Value::as_str), Some("t1"));
    let done = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "completed", "resultType": "complete",
        "result": { "content": [{ "type": "text", "text": "ok" }] }
    });
    let out = answer(&mut tab, NOW + 5, &poll, done);
    assert!(!kinds(&out).contains(&"put"), "held until the record is read: {out:?}");
    let out = listed(&mut tab, NOW + 10, json!({ "e": "restore", "x": 1, "entries": [entry], "leader": true }));
    assert!(kinds(&out).contains(&"put"), "the held answer is applied and stored: {out:?}");
    let polls = out.iter().filter(|e| e.get("do").and_then(Value::as_str) == Some("send"));
    assert!(
        polls.map(request).all(|r| r.get("method").and_then(Value::as_str) != Some("tasks/get")),
        "and not asked again: {out:?}"
    );
    assert_eq!(tab.state.record("t1").map(|r| r.is_settled()), Some(true));
}

#[cfg(feature = "legacy")] // step mode is in the full door only
fn open_stepping() -> Door {
    let options = json!({ "url": "https://h/mcp", "namespace": "ns", "autoPoll": false, "requestTimeoutMs": 1000 });
    Door::open(&options, 13).unwrap()
}

/// The `put_if` effect, answered `ok`; the effects.
#[cfg(feature = "legacy")] // step mode is in the full door only
fn put_if(door: &mut Door, now: u64, effects: &[Value], ok: bool) -> Vec<Value> {
    let w = the(effects, "put_if").get("w").and_then(Value::as_u64).unwrap();
    door.handle(now, &json!({ "e": "put_if", "w": w, "ok": ok }), &[])
}

#[cfg(not(feature = "legacy"))]
#[test]
fn the_first_door_refuses_step_mode_which_the_full_door_drives() {
    let options = json!({ "url": "https://h/mcp", "namespace": "ns", "autoPoll": false });
    let refused = Door::open(&options, 13).err().expect("the first door has no step mode");
    assert!(refused.message.contains("full door"), "{}", refused.message);
}

#[cfg(feature = "legacy")] // step mode is in the full door only
#[test]
fn a_step_polls_what_is_due_writes_it_compared_and_reports() {
    let (_, entry) = leading_tab();
    let mut door = open_stepping();
    let out = listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": [entry.clone()] }));
    assert!(!kinds(&out).contains(&"send") && !kinds(&out).contains(&"timer"), "no polling, no timer: {out:?}");
    let out = listed(&mut door, NOW + 2_000, json!({ "e": "step", "x": 2, "entries": [entry] }));
    let poll = sent(&out, "tasks/get");
    let done = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "completed", "resultType": "complete",
        "result": { "content": [{ "type": "text", "text": "ok" }] }
    });
    let out = answer(&mut door, NOW + 2_000, &poll, done);
    let write = the(&out, "put_if");
    assert!(write.get("expected").and_then(Value::as_str).is_some(), "compared with the version read: {write:?}");
    assert!(!kinds(&out).contains(&"done"), "the step waits for its write");
    let out = put_if(&mut door, NOW + 2_000, &out, true);
    let report = the(&out, "done").get("value").unwrap();
    assert_eq!(report.get("polled").and_then(Value::as_u64), Some(1));
    assert_eq!(report.get("settled").and_then(Value::as_u64), Some(1));
    assert!(kinds(&out).contains(&"emit"), "the host hears of the change: {out:?}");
    let refused = feed(&mut open(), NOW, r#"{"e":"step","x":3}"#);
    assert_eq!(
        the(&refused, "done").get("error").and_then(|e| e.get("name")).and_then(Value::as_str),
        Some("TypeError")
    );
}

#[cfg(feature = "legacy")] // step mode is in the full door only
#[test]
fn a_queued_cancel_is_sent_by_the_one_step_whose_lease_is_stored_first() {
    let (_, entry) = leading_tab();
    let mut first = open_stepping();
    listed(&mut first, NOW, json!({ "e": "restore", "x": 1, "entries": [entry.clone()] }));
    let out = feed(&mut first, NOW, r#"{"e":"cancel","x":2,"id":"t1"}"#);
    let read = the(&out, "get").get("w").unwrap().clone();
    let stored = entry.as_array().unwrap()[1].clone();
    let out = first.handle(NOW, &json!({ "e": "got", "w": read, "text": stored }), &[]);
    assert!(!kinds(&out).contains(&"send"), "respond and cancel only queue in step mode: {out:?}");
    let cancelled = the(&out, "put_if").get("text").unwrap().clone();
    let out = put_if(&mut first, NOW, &out, true);
    assert!(the(&out, "done").get("error").is_none());
    let key = entry.as_array().unwrap()[0].clone();

    // Two isolates step at once over the store that holds the queued cancel.
    let mut second = open_stepping();
    listed(&mut second, NOW, json!({ "e": "restore", "x": 1, "entries": [[key.clone(), cancelled.clone()]] }));
    let leased =
        listed(&mut first, NOW + 100, json!({ "e": "step", "x": 3, "entries": [[key.clone(), cancelled.clone()]] }));
    let lost = listed(&mut second, NOW + 100, json!({ "e": "step", "x": 4, "entries": [[key, cancelled]] }));
    let lease = the(&leased, "put_if").get("text").unwrap().clone();
    let out = put_if(&mut first, NOW + 100, &leased, true);
    assert!(request(&sent(&out, "tasks/cancel")).get("params").is_some());
    let out = put_if(&mut second, NOW + 100, &lost, false);
    let w = the(&out, "get").get("w").unwrap().clone();
    let out = second.handle(NOW + 100, &json!({ "e": "got", "w": w, "text": lease }), &[]);
    assert!(
        !out.iter().any(|e| e.get("body").and_then(Value::as_str).is_some_and(|b| b.contains("tasks/cancel"))),
        "{out:?}"
    );
    let report = the(&out, "done").get("value").unwrap();
    assert_eq!(report.get("sent").and_then(Value::as_u64), Some(0), "the other step's lease stood: {report}");
}

/// A door whose task `t1` asks a URL-mode question with `message` and `url`, answered and stored.
fn with_url_question(message: &str, url: &str) -> Door {
    let mut door = open();
    let poll = with_task(&mut door);
    let asked = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:06Z",
        "ttlMs": 900000, "status": "input_required", "resultType": "complete",
        "inputRequests": { "u": { "method": "elicitation/create",
            "params": { "mode": "url", "message": message, "url": url, "elicitationId": "e1" } } }
    });
    answer(&mut door, NOW + 1_000, &poll, asked);
    feed(&mut door, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    door
}

#[test]
fn a_card_names_the_urls_it_needs_read_and_then_shows_what_the_parser_read() {
    let mut door = with_url_question("Pay", "https://pay.example/x");
    let server = json!({ "href": "https://h/mcp", "protocol": "https:", "username": "", "password": "", "hostname": "h", "host": "h" });
    let ask = json!({ "e": "card", "x": 7, "id": "t1", "words": {}, "server": server.clone(), "urls": {} });
    let out = door.handle(NOW + 1_000, &ask, &[]);
    let need = the(&out, "done").get("value").and_then(|v| v.get("need")).unwrap().clone();
    assert_eq!(need, json!(["https://pay.example/x"]));

    let read = json!({ "href": "https://pay.example/x", "protocol": "https:", "username": "", "password": "",
        "hostname": "pay.example", "host": "pay.example" });
    let ask = json!({ "e": "card", "x": 8, "id": "t1", "words": {}, "server": server, "urls": { "https://pay.example/x": read } });
    let out = door.handle(NOW + 1_000, &ask, &[]);
    let card = the(&out, "done").get("value").unwrap();
    assert_eq!(card.get("server").and_then(Value::as_str), Some("h"));
    let question = &card.get("questions").and_then(Value::as_array).unwrap()[0];
    assert_eq!(question.get("host").and_then(Value::as_str), Some("pay.example"));
    assert_eq!(question.get("href").and_then(Value::as_str), Some("https://pay.example/x"));
    let shown = card.get("snapshot").and_then(Value::as_str).map(crate::json::from_str).and_then(Result::ok);
    let shown = shown.expect("the snapshot shown comes back, as JSON text");
    assert_eq!(shown.get("taskId").and_then(Value::as_str), Some("t1"));

    let out = feed(&mut door, NOW, r#"{"e":"card","x":9,"id":"gone","words":{}}"#);
    assert_eq!(the(&out, "done").get("value"), Some(&Value::Null), "no snapshot, no card");
    // The element's copy of a task the client no longer has: as the text a card gave it, or a snapshot.
    let mut copy = shown.clone();
    copy["taskId"] = json!("gone");
    for given in [Value::String(copy.to_string()), copy] {
        let ask = json!({ "e": "card", "x": 11, "id": "gone", "words": {}, "snapshot": given, "urls": { "https://pay.example/x": null } });
        let out = door.handle(NOW + 1_000, &ask, &[]);
        let card = the(&out, "done").get("value").unwrap();
        assert_eq!(card.get("title").and_then(Value::as_str), shown.get("toolName").and_then(Value::as_str));
        assert!(card.get("snapshot").and_then(Value::as_str).is_some_and(|s| s.contains("\"gone\"")));
    }
    let out = feed(&mut door, NOW, r#"{"e":"list","x":10,"words":{}}"#);
    assert_eq!(the(&out, "done").get("value").and_then(Value::as_array).map(Vec::len), Some(1));
}

#[test]
fn a_card_leaves_out_the_snapshot_the_element_drew_last_and_sends_it_again_once_it_changes() {
    let mut door = open();
    let poll = with_task(&mut door);
    let working = |message: &str| {
        let mut task = task("working");
        task["statusMessage"] = json!(message);
        task["resultType"] = json!("complete");
        task
    };
    answer(&mut door, NOW + 1_000, &poll, working("one"));
    let written = feed(&mut door, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    let card = |door: &mut Door, drawn: Value| {
        let ask = json!({ "e": "card", "x": 7, "id": "t1", "words": {}, "drawn": drawn, "urls": {} });
        the(&door.handle(NOW + 1_000, &ask, &[]), "done").get("value").cloned().unwrap()
    };
    let first = card(&mut door, Value::Null);
    let digest = first.get("digest").cloned().expect("a card names the digest of its snapshot");
    assert!(first.get("snapshot").and_then(Value::as_str).is_some_and(|s| s.contains("\"one\"")));
    let again = card(&mut door, digest.clone());
    assert_eq!(again.get("snapshot"), None, "the element has this snapshot already");
    assert_eq!(again.get("digest"), Some(&digest));
    assert_eq!(again.get("message"), first.get("message"), "the card itself is drawn in full");
    let out = feed(&mut door, timer(&written), r#"{"e":"tick"}"#);
    answer(&mut door, NOW + 3_000, the(&out, "send"), working("two"));
    let changed = card(&mut door, digest.clone());
    assert_ne!(changed.get("digest"), Some(&digest));
    assert!(changed.get("snapshot").and_then(Value::as_str).is_some_and(|s| s.contains("\"two\"")));
}

#[cfg(feature = "legacy")] // step mode is in the full door only
#[test]
fn two_steps_of_one_client_at_once_send_a_queued_cancel_once() {
    let (_, entry) = leading_tab();
    let mut door = open_stepping();
    listed(&mut door, NOW, json!({ "e": "restore", "x": 1, "entries": [entry.clone()] }));
    let out = feed(&mut door, NOW, r#"{"e":"cancel","x":2,"id":"t1"}"#);
    let read = the(&out, "get").get("w").unwrap().clone();
    let stored = entry.as_array().unwrap()[1].clone();
    let out = door.handle(NOW, &json!({ "e": "got", "w": read, "text": stored }), &[]);
    let queued = the(&out, "put_if").get("text").unwrap().clone();
    put_if(&mut door, NOW, &out, true);
    let key = entry.as_array().unwrap()[0].clone();

    let first =
        listed(&mut door, NOW + 100, json!({ "e": "step", "x": 3, "entries": [[key.clone(), queued.clone()]] }));
    let second = listed(&mut door, NOW + 100, json!({ "e": "step", "x": 4, "entries": [[key, queued]] }));
    let report = the(&second, "done").get("value").unwrap();
    assert_eq!(the(&second, "done").get("x").and_then(Value::as_u64), Some(4));
    assert_eq!(report.get("sent").and_then(Value::as_u64), Some(0), "the first step holds the send: {report}");
    let out = put_if(&mut door, NOW + 100, &first, true);
    let cancel = sent(&out, "tasks/cancel");
    let out = answer(&mut door, NOW + 150, &cancel, task("working"));
    let out = put_if(&mut door, NOW + 150, &out, true);
    let done = the(&out, "done");
    assert_eq!(done.get("x").and_then(Value::as_u64), Some(3));
    assert_eq!(done.get("value").and_then(|r| r.get("sent")).and_then(Value::as_u64), Some(1));
}

#[test]
fn forget_and_clear_hand_the_driver_every_key_to_delete_before_the_host_call_settles() {
    let mut door = open();
    with_task(&mut door);
    let out = feed(&mut door, NOW, r#"{"e":"forget","x":5,"id":"t1"}"#);
    assert!(!kinds(&out).contains(&"done"), "settled by the driver once the keys are deleted: {out:?}");
    let deletes = the(&out, "deletes");
    assert_eq!(deletes.get("x").and_then(Value::as_u64), Some(5));
    let keys = deletes.get("keys").and_then(Value::as_array).unwrap();
    assert!(keys.iter().any(|k| k.as_str().is_some_and(|k| k.ends_with("/task/t1"))), "{keys:?}");

    let mut door = open();
    with_task(&mut door);
    let out = feed(&mut door, NOW, r#"{"e":"clear","x":6,"keys":["p/task/other","p/task/other"]}"#);
    let keys = the(&out, "deletes").get("keys").and_then(Value::as_array).unwrap().clone();
    assert_eq!(keys.iter().filter(|k| k.as_str() == Some("p/task/other")).count(), 1, "each key once: {keys:?}");
    assert!(keys.iter().any(|k| k.as_str().is_some_and(|k| k.ends_with("/task/t1"))));
    assert!(posted_has(&out, "clear"), "the other tabs clear too: {out:?}");
    let tasks = feed(&mut door, NOW, r#"{"e":"tasks","x":7}"#);
    assert_eq!(the(&tasks, "done").get("value"), Some(&json!([])));
}

#[cfg(feature = "legacy")]
mod legacy;

#[cfg(not(feature = "legacy"))]
mod upgrade;

mod retry_after;

mod auth;

#[test]
fn an_event_missing_a_field_settles_its_host_call_with_a_type_error_naming_it() {
    let mut door = open();
    feed(&mut door, NOW, r#"{"e":"restore","x":1}"#);
    let out = feed(&mut door, NOW, r#"{"e":"wait","x":2}"#);
    let done = the(&out, "done");
    assert_eq!(done["x"], json!(2));
    assert_eq!(done["error"]["name"], json!("TypeError"));
    assert_eq!(done["error"]["message"], json!("the door's event wait needs the field id"));
    // Not read as exchange 0: no exchange is touched, nothing else is done.
    let out = feed(&mut door, NOW, r#"{"e":"answer","status":200}"#);
    assert_eq!(the(&out, "done")["error"]["message"], json!("the door's event answer needs the field n"));
}

/// The options the driver applies itself (its fetch timeout, its body limit) are the door's reading of
/// them: defaults, clamps, and a non-finite number (which crosses as `null`: JSON has none) read as
/// not given, so `maxResponseBytes: NaN` never turns the limit off.
#[test]
fn keys_hand_the_driver_the_timeout_and_the_limit_the_door_read() {
    let answer = |options: Value| {
        let mut door = Door::open(&options, 7).unwrap();
        let out = feed(&mut door, NOW, r#"{"e":"keys","x":1}"#);
        let keys = the(&out, "done").get("value").unwrap().clone();
        let number = |key: &str| keys.get(key).and_then(Value::as_u64).unwrap();
        (number("requestTimeoutMs"), number("maxResponseBytes"))
    };
    assert_eq!(answer(json!({ "url": "https://h/mcp" })), (30_000, 8 * 1024 * 1024));
    let nulls = json!({ "url": "https://h/mcp", "requestTimeoutMs": null, "maxResponseBytes": null });
    assert_eq!(answer(nulls), (30_000, 8 * 1024 * 1024), "NaN and Infinity cross as null");
    let small = json!({ "url": "https://h/mcp", "requestTimeoutMs": 0, "maxResponseBytes": 10 });
    assert_eq!(answer(small), (1, 1_024), "clamped");
    let refused = json!({ "url": "https://h/mcp", "maxResponseBytes": "big" });
    assert!(Door::open(&refused, 7).is_err(), "another type is the host's mistake");
}

/// A completed task whose structured result nests `levels` arrays, as a server may send it.
fn completed_nested(levels: usize) -> Value {
    let mut deep = String::from("0");
    for _ in 0..levels {
        deep = format!("[{deep}]");
    }
    let text = format!(
        r#"{{"taskId":"t1","createdAt":"2026-08-01T09:00:00Z","lastUpdatedAt":"2026-08-01T09:00:06Z","ttlMs":900000,"status":"completed","resultType":"complete","result":{{"content":[],"structuredContent":{{"v":{deep}}}}}}}"#
    );
    from_str(&text).unwrap()
}

#[test]
fn a_record_as_deep_as_the_poller_took_reaches_the_other_tabs_and_the_store() {
    let (mut leader, entry) = leading_tab();
    let mut follower = open_tab();
    listed(&mut follower, NOW, json!({ "e": "restore", "x": 1, "entries": [entry] }));
    let out = feed(&mut leader, NOW + 1_000, r#"{"e":"tick"}"#);
    let poll = the(&out, "send").clone();
    // As deep as a response may nest: the poller takes it, though its stored form nests deeper.
    let out = answer(&mut leader, NOW + 1_000, &poll, completed_nested(124));
    assert!(!kinds(&out).contains(&"storage"), "{out:?}");
    let put = the(&out, "put").get("entries").and_then(Value::as_array).unwrap()[0].clone();
    let out = feed(&mut leader, NOW + 1_000, r#"{"e":"written","ok":true}"#);
    let shared = posted(&out, "record").to_owned();

    let out = message(&mut follower, NOW + 1_010, &shared);
    assert!(kinds(&out).contains(&"emit"), "the other tab takes the record: {out:?}");
    assert!(follower.state.record("t1").is_some_and(|r| r.is_settled()), "completed there too");

    // A tab opening later reads it from the store.
    let mut later = open_tab();
    let out = listed(&mut later, NOW + 2_000, json!({ "e": "restore", "x": 1, "entries": [put] }));
    assert!(!kinds(&out).contains(&"storage"), "{out:?}");
    assert!(later.state.record("t1").is_some(), "read from the store");

    // A shared record this tab cannot read is reported, never dropped without a word.
    let too_deep = format!(r#"{{"t":"record","id":"t9","stored":{}0{}}}"#, "[".repeat(400), "]".repeat(400));
    let out = message(&mut follower, NOW + 1_020, &too_deep);
    let reason = the(&out, "storage").get("reason").and_then(Value::as_str).unwrap();
    assert!(reason.contains("nested too deeply"), "{reason}");
    let out = message(&mut follower, NOW + 1_030, r#"{"t":"record","id":"t9","stored":{"v":1}}"#);
    let reason = the(&out, "storage").get("reason").and_then(Value::as_str).unwrap();
    assert!(reason.contains("t9"), "{reason}");
    assert!(follower.state.record("t9").is_none());
}

#[test]
fn a_remote_servers_link_to_a_device_on_the_users_network_is_flagged_and_a_local_servers_is_not() {
    let mut door = with_url_question("Set up", "https://192.168.1.1/admin");
    let read = json!({ "href": "https://192.168.1.1/admin", "protocol": "https:", "username": "", "password": "",
        "hostname": "192.168.1.1", "host": "192.168.1.1" });
    let warnings = |door: &mut Door, hostname: &str| {
        let server = json!({ "href": "https://h/mcp", "protocol": "https:", "username": "", "password": "",
            "hostname": hostname, "host": hostname });
        let ask = json!({ "e": "card", "x": 7, "id": "t1", "words": {}, "server": server,
            "urls": { "https://192.168.1.1/admin": read.clone() } });
        let out = door.handle(NOW + 1_000, &ask, &[]);
        let card = the(&out, "done").get("value").unwrap().clone();
        card.get("questions").and_then(Value::as_array).unwrap()[0].get("warnings").unwrap().to_string()
    };
    let remote = warnings(&mut door, "tasks.example");
    assert!(remote.contains("a device on your network"), "{remote}");
    assert_eq!(warnings(&mut door, "10.0.0.5"), "[]", "a server on the network itself");
}
