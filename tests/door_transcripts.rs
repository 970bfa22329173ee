//! The door protocol's transcripts (`tests/transcripts/*.json`, format in its README): each is replayed
//! through a fresh `Door`, event by event, and every batch of effects must equal the recorded one
//! exactly, in wire form. The JS unit tests (`tests/js-unit/`) replay the same files against the
//! driver with a scripted door, so a change on either side of the protocol fails one of them.
//!
//! The transcripts are recorded from the door itself by the scenarios below:
//! `UPDATE_TRANSCRIPTS=1 cargo test --test door_transcripts` writes them again (then read the diff).
//! Nothing in them is random: the door reads no clock and takes its randomness from the `seed`.
use std::path::{Path, PathBuf};

use mcp_tasks_web::door::Door;
use serde_json::{json, Value};

/// 2026-08-01T09:00:10Z, ten seconds after the tasks below were created.
const NOW: u64 = 1_785_574_810_000;
const SEED: u64 = 7;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

/// A door opened with `options` (JSON, as the driver hands them over) and `seed`, as `ClientDoor`
/// opens it.
fn open_door(options: &Value, seed: u64) -> Door {
    let options = mcp_tasks_web::json::from_str(&options.to_string()).expect("options are JSON");
    Door::open(&options, seed).unwrap_or_else(|e| panic!("the door refuses the options: {}", e.message))
}

/// One event through the door as `ClientDoor.handle` takes it (JSON text in, the effects' JSON text
/// out), the effects read back as JSON.
fn handle(door: &mut Door, now: u64, x: u64, event: &Value, body: &str) -> Value {
    let effects = door.handle_text(now, x, &event.to_string(), body.as_bytes());
    let text = mcp_tasks_web::json::Value::Array(effects).to_string();
    serde_json::from_str(&text).expect("the door's effects are JSON")
}

#[test]
fn every_transcript_replays_exactly() {
    if std::env::var_os("UPDATE_TRANSCRIPTS").is_some_and(|v| v == "1") {
        // The other test is writing the files: replay them in the next run.
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/transcripts")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the transcripts are missing: {files:?}");
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let transcript: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap())
            .unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
        if playable(&transcript) {
            failures.extend(replay(&name, &transcript));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} transcripts differ:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Replays transcript `name` through a fresh door; how its first differing step differs, if one does.
fn replay(name: &str, transcript: &Value) -> Option<String> {
    let version = transcript["version"].as_u64();
    if version != Some(u64::from(mcp_tasks_web::door::VERSION)) {
        return Some(format!("{name}: recorded with door protocol {version:?}, not {}", mcp_tasks_web::door::VERSION));
    }
    let seed = transcript["seed"].as_u64().unwrap_or_else(|| panic!("{name}: no seed"));
    let mut door = open_door(&transcript["options"], seed);
    let steps = transcript["steps"].as_array().unwrap_or_else(|| panic!("{name}: no steps"));
    for (i, step) in steps.iter().enumerate() {
        let now = step["now"].as_u64().unwrap_or_else(|| panic!("{name} step {i}: no now"));
        let x = step["x"].as_u64().unwrap_or_else(|| panic!("{name} step {i}: no x"));
        let body = step["body"].as_str().unwrap_or_default();
        let got = handle(&mut door, now, x, &step["event"], body);
        let want = &step["effects"];
        if &got != want {
            return Some(format!(
                "{name}, step {i} (event {}): the door's effects differ from the transcript\n{}",
                step["event"],
                diff(want, &got)
            ));
        }
    }
    None
}

/// The recorded and the actual effects side by side, one per line, the first that differs marked.
fn diff(want: &Value, got: &Value) -> String {
    let lines = |v: &Value| -> Vec<String> {
        v.as_array().map(|a| a.iter().map(Value::to_string).collect()).unwrap_or_else(|| vec![v.to_string()])
    };
    let (want, got) = (lines(want), lines(got));
    let mut out = String::new();
    for i in 0..want.len().max(got.len()) {
        let (w, g) = (want.get(i).map_or("(none)", String::as_str), got.get(i).map_or("(none)", String::as_str));
        let mark = if w == g { " " } else { "≠" };
        out.push_str(&format!("{mark} effect {i}\n    recorded: {w}\n    now:      {g}\n"));
    }
    out
}

// --- recording -----------------------------------------------------------------------------------

/// A door driven as `js/driver/task_client.js` drives it, every event and its effects kept as a
/// transcript's steps. The events are written exactly as the driver writes them (its field names, its
/// `null`s and `false`s), since the JS replay compares them with what the driver sends.
struct Recorder {
    about: &'static str,
    options: Value,
    door: Door,
    now: u64,
    /// The next host call's number (`#next` in the driver: `keys` is 0, `migrate` 1, …).
    next_x: u64,
    /// When the last `timer` effect set the timer for.
    timer: Option<u64>,
    steps: Vec<Value>,
    /// The driver's memory store as the door's effects left it (`save`, `put`, `delete`, and each
    /// `put_if` the recorder answered as stored), listed in key order by `step`.
    store: std::collections::BTreeMap<String, String>,
}

/// The options `doorOptions` hands over for `{ url, namespace, store: "memory", minPollIntervalMs }` in
/// Node (online, not hidden, no Web Locks).
fn node_options() -> Value {
    json!({ "url": "https://mcp.example/mcp", "namespace": "ns", "minPollIntervalMs": 50,
            "offline": false, "hidden": false, "tabs": false })
}

impl Recorder {
    fn new(about: &'static str) -> Recorder {
        Recorder::with_options(about, node_options())
    }

    fn with_options(about: &'static str, options: Value) -> Recorder {
        let door = open_door(&options, SEED);
        let store = std::collections::BTreeMap::new();
        Recorder { about, options, door, now: NOW, next_x: 1, timer: None, steps: Vec::new(), store }
    }

    /// Feeds `event` for host call `x` (0: none) with `body`; its effects.
    fn feed(&mut self, x: u64, event: Value, body: &str) -> Vec<Value> {
        let effects = handle(&mut self.door, self.now, x, &event, body);
        for effect in effects.as_array().unwrap() {
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            match effect["do"].as_str() {
                Some("timer") => self.timer = effect["at"].as_u64(),
                Some("save") => {
                    self.store.insert(text(&effect["key"]), text(&effect["text"]));
                }
                Some("put") => {
                    for entry in effect["entries"].as_array().unwrap() {
                        self.store.insert(text(&entry[0]), text(&entry[1]));
                    }
                }
                Some("delete") => {
                    self.store.remove(effect["key"].as_str().unwrap_or_default());
                }
                _ => {}
            }
        }
        self.steps.push(json!({ "now": self.now, "x": x, "event": event, "body": body, "effects": effects }));
        effects.as_array().unwrap().clone()
    }

    /// A host call (`#ask` / `#query`): the event with the next number as its `x`; the number and
    /// the effects.
    fn call(&mut self, mut event: Value) -> (u64, Vec<Value>) {
        let x = self.next_x;
        self.next_x += 1;
        event["x"] = json!(x);
        (x, self.feed(x, event, ""))
    }

    /// A host call with records listed from the store, as the driver hands them over (`withListed`):
    /// each key's and text's UTF-8 length in `sizes`, their bytes end to end in the body.
    fn call_listed(&mut self, mut event: Value, records: &[(String, String)]) -> Vec<Value> {
        let x = self.next_x;
        self.next_x += 1;
        let sizes: Vec<usize> = records.iter().flat_map(|(key, text)| [key.len(), text.len()]).collect();
        let body: String = records.iter().flat_map(|(key, text)| [key.as_str(), text.as_str()]).collect();
        event["sizes"] = json!(sizes);
        event["x"] = json!(x);
        self.feed(x, event, &body)
    }

    /// Step mode's store replies to the `put_if`s and `get`s in `effects`, in order, as `#putIf` and
    /// `#get` feed them from the memory store, and to those their replies bring; every other effect.
    fn store_replies(&mut self, effects: Vec<Value>) -> Vec<Value> {
        let mut rest = Vec::new();
        for effect in effects {
            let key = effect["key"].as_str().unwrap_or_default().to_owned();
            let out = match effect["do"].as_str() {
                Some("put_if") => {
                    let ok = self.store.get(&key).map(String::as_str) == effect["expected"].as_str();
                    if ok {
                        self.store.insert(key, effect["text"].as_str().unwrap().to_owned());
                    }
                    self.feed(0, json!({ "e": "put_if", "w": effect["w"], "ok": ok }), "")
                }
                Some("get") => {
                    let text = self.store.get(&key).cloned();
                    self.feed(0, json!({ "e": "got", "w": effect["w"], "text": text }), "")
                }
                _ => {
                    rest.push(effect);
                    continue;
                }
            };
            rest.extend(self.store_replies(out));
        }
        rest
    }

    /// `step()`: every record of the store listed with the event.
    fn step(&mut self) -> Vec<Value> {
        let records: Vec<(String, String)> = self.store.clone().into_iter().collect();
        self.call_listed(json!({ "e": "step" }), &records)
    }

    /// `TaskClient.open` over an empty memory store: `keys`, `migrate` of nothing, the last `restore`.
    fn open(&mut self) -> Vec<Value> {
        self.feed(0, json!({ "e": "keys" }), "");
        self.call(json!({ "e": "migrate", "sizes": [] }));
        self.call(json!({ "e": "restore", "leader": false, "sizes": [] })).1
    }

    /// Exchange `send`'s answer: HTTP `status` with the JSON `body`, as `#exchange` feeds it.
    fn answer(&mut self, send: &Value, status: u16, body: &Value) -> Vec<Value> {
        let event = json!({ "e": "answer", "n": send["n"], "status": status, "retryAfter": null,
                            "session": null, "wwwAuthenticate": null, "sse": false });
        self.feed(0, event, &body.to_string())
    }

    /// Exchange `send` answered 200 with the JSON-RPC `result` under its request's id.
    fn result(&mut self, send: &Value, result: Value) -> Vec<Value> {
        let body = json!({ "jsonrpc": "2.0", "id": request(send)["id"], "result": result });
        self.answer(send, 200, &body)
    }

    /// Exchange `send` answered 200 with a JSON-RPC error.
    fn rpc_error(&mut self, send: &Value, code: i64, message: &str) -> Vec<Value> {
        let body =
            json!({ "jsonrpc": "2.0", "id": request(send)["id"], "error": { "code": code, "message": message } });
        self.answer(send, 200, &body)
    }

    /// Exchange `send` failed in `fetch` (`TypeError(message)`): `http.js`'s network failure.
    fn network_failure(&mut self, send: &Value, message: &str) -> Vec<Value> {
        let event =
            json!({ "e": "failed", "n": send["n"], "kind": "network", "message": message, "status": 0, "to": null });
        self.feed(0, event, "")
    }

    /// The `put` group is stored (`#put` with nothing refused).
    fn written(&mut self) -> Vec<Value> {
        self.feed(0, json!({ "e": "written", "refused": [], "broken": false, "message": "" }), "")
    }

    /// The timer fires: the clock moves to when it was set for, or 60 s on, the longest timeout the
    /// driver sets (`MAX_TIMER_MS`) before it asks the door again.
    fn tick(&mut self) -> Vec<Value> {
        self.now = self.timer.expect("a timer is set").min(self.now + 60_000);
        self.feed(0, json!({ "e": "tick" }), "")
    }

    /// `close()`.
    fn close(&mut self) -> Vec<Value> {
        self.feed(0, json!({ "e": "close" }), "")
    }

    fn transcript(&self) -> Value {
        json!({ "about": self.about, "version": mcp_tasks_web::door::VERSION, "options": self.options, "seed": SEED, "steps": self.steps })
    }
}

/// The request a `send` effect carries, parsed.
fn request(send: &Value) -> Value {
    serde_json::from_str(send["body"].as_str().expect("a send has a body")).expect("the request is JSON")
}

/// The one `send` in `effects` of request `method`.
fn sent(effects: &[Value], method: &str) -> Value {
    let mut sends = effects.iter().filter(|e| e["do"] == "send" && request(e)["method"] == method);
    sends.next().unwrap_or_else(|| panic!("no {method} sent in {effects:?}")).clone()
}

/// The `send` of a `method` request, once the door sends it: a poll in flight first is answered with
/// `polled`, and the timer fires while nothing is sent.
fn until_sent(r: &mut Recorder, mut out: Vec<Value>, method: &str, polled: &Value) -> Value {
    for _ in 0..8 {
        let sends: Vec<Value> = out.iter().filter(|e| e["do"] == "send").cloned().collect();
        if let Some(send) = sends.iter().find(|e| request(e)["method"] == method) {
            return send.clone();
        }
        out = match sends.iter().find(|e| request(e)["method"] == "tasks/get") {
            Some(get) => r.result(get, polled.clone()),
            None => r.tick(),
        };
        if has(&out, "put") {
            out.extend(r.written());
        }
    }
    panic!("no {method} sent; last: {out:?}")
}

fn has(effects: &[Value], kind: &str) -> bool {
    effects.iter().any(|e| e["do"] == kind)
}

/// Task `t1` as the server shows it, in `status`, with `extra` fields.
fn task(status: &str, extra: Value) -> Value {
    let mut task = json!({
        "taskId": "t1", "createdAt": "2026-08-01T09:00:00Z", "lastUpdatedAt": "2026-08-01T09:00:05Z",
        "ttlMs": 900000, "pollIntervalMs": 1000, "status": status, "resultType": "task"
    });
    for (key, value) in extra.as_object().unwrap() {
        task[key] = value.clone();
    }
    task
}

/// What `tasks/update` and `tasks/cancel` answer.
fn ack() -> Value {
    json!({ "resultType": "complete" })
}

/// A working task's `tasks/get` result.
fn working() -> Value {
    task("working", json!({ "resultType": "complete" }))
}

/// A finished task's `tasks/get` result.
fn completed(text: &str) -> Value {
    task(
        "completed",
        json!({ "lastUpdatedAt": "2026-08-01T09:00:12Z", "resultType": "complete",
                "result": { "content": [{ "type": "text", "text": text }] } }),
    )
}

/// After a call's task is stored the door asks `server/discover` whether it may listen: a server
/// without the listen stream, so the task is polled.
fn no_listen(r: &mut Recorder, effects: &[Value]) -> Vec<Value> {
    let discover = sent(effects, "server/discover");
    r.rpc_error(&discover, -32601, "Method not found")
}

/// `callTool("build", { seconds: 1 })` made task `t1`, stored: the effects of its `written`.
fn called_task(r: &mut Recorder) -> Vec<Value> {
    let (_, out) = r.call(
        json!({ "e": "call", "name": "build", "arguments": { "seconds": 1 }, "ask": false, "inputSchema": null, "ui": null }),
    );
    assert!(has(&out, "save"), "the pending call is saved first: {out:?}");
    let out = r.result(&sent(&out, "tools/call"), task("working", json!({})));
    assert!(has(&out, "put"), "{out:?}");
    let out = r.written();
    assert!(has(&out, "done"), "{out:?}");
    out
}

fn open_empty() -> Recorder {
    let mut r = Recorder::new(
        "TaskClient.open over an empty memory store: the keys, nothing to migrate, an empty restore; then tasks() lists nothing",
    );
    r.open();
    r.call(json!({ "e": "tasks", "from": 0, "count": 256 }));
    r
}

fn call_poll_complete() -> Recorder {
    let mut r = Recorder::new(
        "callTool answered with a task: saved, sent, stored, settled with its snapshot; polled on the timer until completed; wait() then settles at once",
    );
    r.open();
    let out = called_task(&mut r);
    no_listen(&mut r, &out);
    let out = r.tick();
    let out = r.result(&sent(&out, "tasks/get"), completed("built"));
    assert!(has(&out, "put"), "{out:?}");
    r.written();
    r.call(json!({ "e": "wait", "id": "t1" }));
    r
}

fn input_required_respond() -> Recorder {
    let mut r = Recorder::new(
        "A task polled as input_required; respond() is stored, settled, and its answer sent on the next poll; the task then completes",
    );
    r.open();
    let out = called_task(&mut r);
    no_listen(&mut r, &out);
    let out = r.tick();
    let question = json!({ "name": { "method": "elicitation/create", "params": { "message": "Your name?",
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } } } });
    let asked = task(
        "input_required",
        json!({ "lastUpdatedAt": "2026-08-01T09:00:11Z", "resultType": "complete", "inputRequests": question }),
    );
    let out = r.result(&sent(&out, "tasks/get"), asked.clone());
    assert!(has(&out, "put"), "{out:?}");
    r.written();
    let (_, mut out) = r.call(json!({ "e": "respond", "id": "t1", "answers": { "name": { "action": "accept", "content": { "name": "Ann" } } } }));
    assert!(has(&out, "put"), "the answer is stored: {out:?}");
    out.extend(r.written());
    let send = until_sent(&mut r, out, "tasks/update", &asked);
    let out = r.result(&send, ack());
    if has(&out, "put") {
        r.written();
    }
    let out = r.tick();
    let out = r.result(&sent(&out, "tasks/get"), completed("Hello, Ann"));
    if has(&out, "put") {
        r.written();
    }
    r
}

fn ask_before_task() -> Recorder {
    let mut r = Recorder::new(
        "callTool with onInputRequired: the server asks before it makes a task; the host's answers are sent back and the tool completes",
    );
    r.open();
    let (x, out) = r.call(
        json!({ "e": "call", "name": "deploy", "arguments": null, "ask": true, "inputSchema": null, "ui": null }),
    );
    let asked = json!({ "resultType": "input_required", "inputRequests": { "ok": {
        "method": "elicitation/create", "params": { "message": "Go?", "requestedSchema": { "type": "object", "properties": {} } } } },
        "requestState": "round-1" });
    let out = r.result(&sent(&out, "tools/call"), asked);
    assert!(has(&out, "ask"), "{out:?}");
    let answers = json!({ "ok": { "action": "accept", "content": {} } });
    let out = r.feed(x, json!({ "e": "asked", "x": x, "answers": answers }), "");
    let out = r.result(&sent(&out, "tools/call"), json!({ "content": [{ "type": "text", "text": "deployed" }] }));
    assert!(has(&out, "done"), "{out:?}");
    r
}

fn cancel() -> Recorder {
    let mut r = Recorder::new(
        "cancel() of a working task: the intent is stored, the host call settles, tasks/cancel goes out and the cancelled task is stored",
    );
    r.open();
    let out = called_task(&mut r);
    no_listen(&mut r, &out);
    let (_, mut out) = r.call(json!({ "e": "cancel", "id": "t1" }));
    assert!(has(&out, "put"), "{out:?}");
    out.extend(r.written());
    let send = until_sent(&mut r, out, "tasks/cancel", &working());
    let out = r.result(&send, ack());
    if has(&out, "put") {
        r.written();
    }
    let out = r.tick();
    let cancelled = task("cancelled", json!({ "lastUpdatedAt": "2026-08-01T09:00:11Z", "resultType": "complete" }));
    let out = r.result(&sent(&out, "tasks/get"), cancelled);
    assert!(has(&out, "put"), "{out:?}");
    r.written();
    r
}

fn list_tools() -> Recorder {
    let mut r = Recorder::new(
        "listTools(): one page, a tool whose x-mcp-header is invalid named in rejectedTools; a call of the valid tool sends its Mcp-Param header; a failed fetch rejects the call with NetworkError",
    );
    r.open();
    let (_, out) = r.call(json!({ "e": "list_tools", "cursor": null }));
    let greet = json!({ "name": "greet", "inputSchema": { "type": "object",
        "properties": { "who": { "type": "string", "x-mcp-header": "Who" } } } });
    let bad = json!({ "name": "bad", "inputSchema": { "type": "object",
        "properties": { "n": { "type": "array", "x-mcp-header": "N" } } } });
    r.result(&sent(&out, "tools/list"), json!({ "tools": [greet, bad], "nextCursor": "c2" }));
    let (_, out) = r.call(
        json!({ "e": "call", "name": "greet", "arguments": { "who": "Ann" }, "ask": false, "inputSchema": null, "ui": null }),
    );
    let out = r.network_failure(&sent(&out, "tools/call"), "connection reset");
    assert!(has(&out, "done"), "{out:?}");
    r
}

fn store_refused() -> Recorder {
    let mut r = Recorder::new(
        "The store refuses the new task's record: callTool rejects with StorageError, a storage event says so, the task is still announced and kept in memory",
    );
    r.open();
    let (_, out) = r.call(
        json!({ "e": "call", "name": "build", "arguments": { "seconds": 1 }, "ask": false, "inputSchema": null, "ui": null }),
    );
    let mut out = r.result(&sent(&out, "tools/call"), task("working", json!({})));
    let put = out.iter().find(|e| e["do"] == "put").expect("a put");
    let key = put["entries"][0][0].clone();
    // A host store whose put throws `new Error("disk full")`, as `idb.js` names the failure.
    let message = format!("host store put({key}, …): Error: disk full");
    out = r.feed(0, json!({ "e": "written", "refused": [key], "broken": false, "message": message }), "");
    no_listen(&mut r, &out);
    r
}

fn restore_stored() -> Recorder {
    // What an earlier page left in the store: task `t1` of a call with non-ASCII arguments, and a call
    // whose answer never came.
    let mut before = Recorder::new("");
    before.open();
    let (_, out) = before.call(json!({ "e": "call", "name": "résumé", "arguments": { "title": "café ☕" },
                                       "ask": false, "inputSchema": null, "ui": null }));
    let out = before.result(&sent(&out, "tools/call"), task("working", json!({})));
    let put = &out.iter().find(|e| e["do"] == "put").expect("a put")["entries"][0];
    let stored = (put[0].as_str().unwrap().to_owned(), put[1].as_str().unwrap().to_owned());
    let (_, out) = before.call(
        json!({ "e": "call", "name": "deploy", "arguments": null, "ask": false, "inputSchema": null, "ui": null }),
    );
    let save = out.iter().find(|e| e["do"] == "save").expect("a save");
    let pending = (save["key"].as_str().unwrap().to_owned(), save["text"].as_str().unwrap().to_owned());

    let mut r = Recorder::new(
        "TaskClient.open over a host store holding a task (non-ASCII text: sizes are UTF-8 bytes) and a call of unknown outcome: restored in one part, the task polled to completion, tasks() lists both",
    );
    r.feed(0, json!({ "e": "keys" }), "");
    r.call(json!({ "e": "migrate", "sizes": [] }));
    // A host store lists everything as its first page, in key order here: the call, then the task.
    let mut records = vec![pending, stored];
    records.sort();
    let first = r.call_listed(json!({ "e": "restore", "leader": false, "more": true }), &records);
    r.call(json!({ "e": "restore", "leader": false, "sizes": [] }));
    no_listen(&mut r, &first);
    let out = r.tick();
    let out = r.result(&sent(&out, "tasks/get"), completed("done"));
    assert!(has(&out, "put"), "{out:?}");
    r.written();
    r.call(json!({ "e": "tasks", "from": 0, "count": 256 }));
    r
}

fn call_on_a_stream() -> Recorder {
    let mut r = Recorder::new(
        "callTool answered on an event stream: a progress notification, then the response cut across two chunks; the door closes the stream once it has the answer",
    );
    r.open();
    let (_, out) = r
        .call(json!({ "e": "call", "name": "echo", "arguments": { "text": "hi" }, "ask": false, "inputSchema": null, "ui": null }));
    let send = sent(&out, "tools/call");
    let n = send["n"].clone();
    let head = json!({ "e": "answer", "n": n, "status": 200, "retryAfter": null, "session": null,
                       "wwwAuthenticate": null, "sse": true });
    r.feed(0, head, "");
    let progress = json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                           "params": { "progressToken": 1, "progress": 1, "total": 2 } });
    r.feed(0, json!({ "e": "chunk", "n": n, "end": false }), &format!("event: message\ndata: {progress}\n\n"));
    let response = json!({ "jsonrpc": "2.0", "id": request(&send)["id"],
                           "result": { "content": [{ "type": "text", "text": "hi" }] } })
    .to_string();
    let (first, second) = response.split_at(20);
    r.feed(0, json!({ "e": "chunk", "n": n, "end": false }), &format!("data: {first}"));
    let out = r.feed(0, json!({ "e": "chunk", "n": n, "end": false }), &format!("{second}\n\n"));
    assert!(has(&out, "close") && has(&out, "done"), "{out:?}");
    r
}

fn version_retry() -> Recorder {
    let mut r = Recorder::new(
        "A call refused with -32022 naming our protocol version in an HTTP 400 is sent once more, as the same exchange under a new id, and settles with the second answer",
    );
    r.open();
    let (_, out) = r
        .call(json!({ "e": "call", "name": "echo", "arguments": null, "ask": false, "inputSchema": null, "ui": null }));
    let send = sent(&out, "tools/call");
    let refusal = json!({ "jsonrpc": "2.0", "id": request(&send)["id"], "error": { "code": -32022,
        "message": "unsupported protocol version", "data": { "supported": [mcp_tasks_web::protocol::PROTOCOL_VERSION] } } });
    let out = r.answer(&send, 400, &refusal);
    let again = sent(&out, "tools/call");
    assert_eq!(again["n"], send["n"], "the same exchange");
    let out = r.result(&again, json!({ "content": [{ "type": "text", "text": "again" }] }));
    assert!(has(&out, "done"), "{out:?}");
    r
}

fn step_mode() -> Recorder {
    let mut options = node_options();
    options["autoPoll"] = json!(false);
    let mut r = Recorder::with_options(
        "Step mode (autoPoll: false): a call's task written compared (put_if); a later step() reads the store, stores its lease, polls the task to completion and reports what it did",
        options,
    );
    r.open();
    let (_, out) = r.call(
        json!({ "e": "call", "name": "build", "arguments": { "seconds": 1 }, "ask": false, "inputSchema": null, "ui": null }),
    );
    let out = r.result(&sent(&out, "tools/call"), task("working", json!({})));
    let out = r.store_replies(out);
    assert!(has(&out, "done"), "{out:?}");
    r.now = NOW + 1_000;
    let out = r.step();
    let out = r.store_replies(out);
    let out = r.result(&sent(&out, "tasks/get"), completed("built"));
    let out = r.store_replies(out);
    assert!(has(&out, "done"), "the step reports: {out:?}");
    r
}

fn long_poll_interval() -> Recorder {
    let mut r = Recorder::new(
        "A task the server asks to poll every 150 s: the driver's timer fires at most 60 s ahead, so the door is asked at +60 s and +120 s and polls at +150 s",
    );
    r.open();
    let (_, out) = r.call(
        json!({ "e": "call", "name": "build", "arguments": { "seconds": 1 }, "ask": false, "inputSchema": null, "ui": null }),
    );
    let out = r.result(&sent(&out, "tools/call"), task("working", json!({ "pollIntervalMs": 150_000 })));
    assert!(has(&out, "put"), "{out:?}");
    let out = r.written();
    no_listen(&mut r, &out);
    let mut out = r.tick();
    while !has(&out, "send") {
        out = r.tick();
    }
    assert_eq!(r.now, NOW + 150_000, "polled at the server's interval");
    let out = r.result(&sent(&out, "tasks/get"), completed("built"));
    assert!(has(&out, "put"), "{out:?}");
    r.written();
    r
}

/// Every scenario, by its transcript's file name.
/// The scenarios this build's door can play: step mode is in the full door only (`--features legacy`,
/// which `cargo xtask test` replays them with too).
fn scenarios() -> Vec<(&'static str, Recorder)> {
    let mut scenarios = vec![
        ("open-empty", open_empty()),
        ("restore-stored", restore_stored()),
        ("call-poll-complete", call_poll_complete()),
        ("call-on-a-stream", call_on_a_stream()),
        ("input-required-respond", input_required_respond()),
        ("ask-before-task", ask_before_task()),
        ("cancel", cancel()),
        ("list-tools", list_tools()),
        ("store-refused", store_refused()),
        ("version-retry", version_retry()),
        ("long-poll-interval", long_poll_interval()),
    ];
    if cfg!(feature = "legacy") {
        scenarios.push(("step-mode", step_mode()));
    }
    scenarios
}

/// Whether this build's door plays transcript `transcript` (see [`scenarios`]).
fn playable(transcript: &Value) -> bool {
    cfg!(feature = "legacy") || transcript["options"]["autoPoll"] != json!(false)
}

/// A transcript as its file holds it: the fields in reading order, each step's event on one line and
/// each effect on its own line, so a change to the protocol shows as a diff of whole effects.
fn layout(transcript: &Value) -> String {
    let line = |v: &Value| serde_json::to_string(v).unwrap();
    let mut out = String::from("{\n");
    for key in ["about", "version", "options", "seed"] {
        out.push_str(&format!("  {}: {},\n", line(&json!(key)), line(&transcript[key])));
    }
    out.push_str("  \"steps\": [\n");
    let steps = transcript["steps"].as_array().unwrap();
    for (i, step) in steps.iter().enumerate() {
        out.push_str(&format!(
            "    {{\n      \"now\": {}, \"x\": {},\n      \"event\": {},\n      \"body\": {},\n      \"effects\": [",
            step["now"],
            step["x"],
            line(&step["event"]),
            line(&step["body"])
        ));
        let effects = step["effects"].as_array().unwrap();
        for (j, effect) in effects.iter().enumerate() {
            let comma = if j + 1 < effects.len() { "," } else { "" };
            out.push_str(&format!("\n        {}{comma}", line(effect)));
        }
        out.push_str(if effects.is_empty() { "]\n" } else { "\n      ]\n" });
        out.push_str(if i + 1 < steps.len() { "    },\n" } else { "    }\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

/// With `UPDATE_TRANSCRIPTS=1`, records every scenario into `tests/transcripts/<name>.json`; else
/// checks that each scenario still records what its file holds (a scenario changed without
/// recording it again).
#[test]
fn the_transcripts_are_recorded_from_the_scenarios() {
    let update = std::env::var_os("UPDATE_TRANSCRIPTS").is_some_and(|v| v == "1");
    for (name, recorder) in scenarios() {
        let path = dir().join(format!("{name}.json"));
        let mut recorder = recorder;
        recorder.close();
        let text = layout(&recorder.transcript());
        if update {
            // Whole or not at all: the replay test may be reading the files meanwhile.
            let part = path.with_extension("json.part");
            std::fs::write(&part, text).unwrap();
            std::fs::rename(&part, &path).unwrap();
        } else {
            let stored = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                stored == text,
                "{} is not what its scenario records; run UPDATE_TRANSCRIPTS=1 cargo test --test door_transcripts",
                path.display()
            );
        }
    }
}
