//! The tables: every event tag read and every effect tag written, and what a missing or wrongly typed
//! field is.
use super::{Answer, Effect, Emitted, Event, Failure, ProtocolError};
use crate::error::ClientError;
use crate::json::{from_str, json, Value};

/// Step mode's events: the full door reads them; the first door (which refuses `autoPoll: false`)
/// does not know them.
const STEP_EVENTS: [&str; 4] = [
    r#"{"e":"step","x":3,"sizes":null}"#,
    r#"{"e":"put_if","w":4,"ok":true}"#,
    r#"{"e":"put_if","w":4,"failed":true}"#,
    r#"{"e":"got","w":4,"text":null}"#,
];

/// Step mode's effects, written by the full door only.
const STEP_EFFECTS: [&str; 2] = ["get", "put_if"];

fn decode(text: &str) -> Result<(u64, String), String> {
    let value = from_str(text).unwrap();
    Event::decode(&value).map(|(x, event)| (x, format!("{event:?}"))).map_err(|e| e.to_string())
}

fn error(text: &str) -> String {
    decode(text).unwrap_err()
}

#[test]
fn every_event_the_driver_sends_decodes_with_its_fields() {
    let events = [
        r#"{"e":"keys"}"#,
        r#"{"e":"migrate","x":2,"sizes":[1,2]}"#,
        r#"{"e":"restore","x":1,"leader":true,"more":true,"sizes":[]}"#,
        r#"{"e":"early","hint":"[\"t\"]"}"#,
        r#"{"e":"lead","sizes":[]}"#,
        r#"{"e":"message"}"#,
        r#"{"e":"tick"}"#,
        r#"{"e":"call","x":5,"name":"t","arguments":{},"ask":false,"inputSchema":null}"#,
        r#"{"e":"list_tools","x":6,"cursor":null}"#,
        r#"{"e":"read_resource","x":6,"uri":"ui://a"}"#,
        r#"{"e":"asked","x":5,"answers":{}}"#,
        r#"{"e":"asked","x":5,"error":"no"}"#,
        r#"{"e":"answer","n":7,"status":200,"retryAfter":null,"session":null,"sse":false}"#,
        r#"{"e":"chunk","n":7,"end":false}"#,
        r#"{"e":"failed","n":7,"kind":"network","message":"reset","status":0,"to":null}"#,
        r#"{"e":"written","refused":[],"broken":false,"message":""}"#,
        r#"{"e":"respond","x":8,"id":"t","answers":{}}"#,
        r#"{"e":"respond","x":8,"id":"t","answersText":"{}"}"#,
        r#"{"e":"cancel","x":8,"id":"t"}"#,
        r#"{"e":"wait","x":8,"id":"t"}"#,
        r#"{"e":"forget","x":8,"id":"t"}"#,
        r#"{"e":"clear","x":8,"keys":["k"]}"#,
        r#"{"e":"tasks","x":9,"from":0,"count":256}"#,
        r#"{"e":"online","online":false}"#,
        r#"{"e":"hidden","hidden":true}"#,
        r#"{"e":"notify","on":true}"#,
        r#"{"e":"notice","x":9,"id":"t","language":"en"}"#,
        r#"{"e":"card","x":9,"id":"t","snapshot":null,"words":{},"server":null,"urls":{}}"#,
        r#"{"e":"list","x":9,"words":{}}"#,
        r#"{"e":"close"}"#,
    ];
    for text in events {
        assert!(decode(text).is_ok(), "{text}: {:?}", decode(text));
    }
    for text in STEP_EVENTS {
        let decoded = decode(text);
        if cfg!(feature = "legacy") {
            assert!(decoded.is_ok(), "{text}: {decoded:?}");
        } else {
            assert!(decoded.is_err_and(|e| e.starts_with("the door has no event")), "{text}");
        }
    }
    let value = json!({ "e": "answer", "n": 7, "status": 429, "retryAfter": "3", "session": "s", "sse": true });
    let answer =
        Answer { n: 7, status: 429, retry_after: Some("3"), session: Some("s"), www_authenticate: None, sse: true };
    assert_eq!(Event::decode(&value), Ok((0, Event::Answered(answer))));
    let value = json!({ "e": "failed", "n": 2, "kind": "redirect", "status": 302, "to": "https://x" });
    let failure = Failure::Redirect { status: 302, to: Some("https://x") };
    assert_eq!(Event::decode(&value), Ok((0, Event::Failed { n: 2, failure })));
}

#[test]
fn a_missing_field_is_an_error_naming_the_event_and_the_field_never_zero_or_empty() {
    assert_eq!(error(r#"{"e":"answer","status":200}"#), "the door's event answer needs the field n");
    assert_eq!(error(r#"{"e":"answer","n":3}"#), "the door's event answer needs the field status");
    assert_eq!(error(r#"{"e":"chunk","end":true}"#), "the door's event chunk needs the field n");
    assert_eq!(error(r#"{"e":"failed","n":1}"#), "the door's event failed needs the field kind");
    assert_eq!(error(r#"{"e":"failed","n":1,"kind":"redirect"}"#), "the door's event failed needs the field status");
    if cfg!(feature = "legacy") {
        assert_eq!(error(r#"{"e":"put_if","ok":true}"#), "the door's event put_if needs the field w");
        assert_eq!(error(r#"{"e":"got","text":"t"}"#), "the door's event got needs the field w");
    }
    assert_eq!(error(r#"{"e":"call","x":1}"#), "the door's event call needs the field name");
    assert_eq!(error(r#"{"e":"wait","x":1,"id":null}"#), "the door's event wait needs the field id");
    assert_eq!(error(r#"{"e":"notice","x":1,"id":"t"}"#), "the door's event notice needs the field language");
    assert_eq!(error(r#"{"e":"online"}"#), "the door's event online needs the field online");
    assert_eq!(error(r#"{"e":"early"}"#), "the door's event early needs the field hint");
}

#[test]
fn a_field_of_another_type_is_an_error_naming_what_it_should_be() {
    assert_eq!(
        error(r#"{"e":"answer","n":"3","status":200}"#),
        "the door's event answer has a field n that is not a whole number"
    );
    assert_eq!(
        error(r#"{"e":"answer","n":3,"status":70000}"#),
        "the door's event answer has a field status that is not an HTTP status"
    );
    assert_eq!(
        error(r#"{"e":"answer","n":3,"status":200,"sse":"yes"}"#),
        "the door's event answer has a field sse that is not true or false"
    );
    assert_eq!(error(r#"{"e":"cancel","id":7}"#), "the door's event cancel has a field id that is not a text");
    assert_eq!(
        error(r#"{"e":"restore","sizes":[1,"1"]}"#),
        "the door's event restore has a field sizes that is not a list of whole numbers"
    );
    assert_eq!(
        error(r#"{"e":"clear","keys":"k"}"#),
        "the door's event clear has a field keys that is not a list of texts"
    );
    assert_eq!(
        error(r#"{"e":"written","refused":[1]}"#),
        "the door's event written has a field refused that is not a list of texts"
    );
    assert_eq!(error(r#"{"e":"tick","x":-1}"#), "the door's event tick has a field x that is not a whole number");
}

#[test]
fn an_unknown_or_untagged_event_is_an_error() {
    let shout = json!({ "e": "shout" });
    assert_eq!(Event::decode(&shout), Err(ProtocolError::UnknownEvent("shout")));
    assert_eq!(error(r#"{"e":"shout"}"#), "the door has no event \"shout\"");
    assert_eq!(Event::decode(&json!({ "kind": "tick" })), Err(ProtocolError::Untagged));
    assert_eq!(Event::decode(&json!(["tick"])), Err(ProtocolError::Untagged));
}

/// One effect of each kind, and its JSON text.
fn one_of_each_effect() -> Vec<(Effect, &'static str)> {
    vec![
        (
            Effect::Send { n: 1, x: None, body: String::new(), headers: vec![], stream: true, ms: Some(5) },
            r#"{"do":"send","n":1,"x":null,"body":"","headers":[],"stream":true,"ms":5}"#,
        ),
        (Effect::Close { n: 1 }, r#"{"do":"close","n":1}"#),
        (Effect::Put { entries: vec![json!(["k", "t"])] }, r#"{"do":"put","entries":[["k","t"]]}"#),
        (Effect::Save { key: "k".into(), text: "t".into() }, r#"{"do":"save","key":"k","text":"t"}"#),
        (Effect::Delete { key: "k".into() }, r#"{"do":"delete","key":"k"}"#),
        (Effect::Deletes { x: 2, keys: vec![Value::from("k")] }, r#"{"do":"deletes","x":2,"keys":["k"]}"#),
        #[cfg(feature = "legacy")]
        (Effect::Get { w: 3, key: "k".into() }, r#"{"do":"get","w":3,"key":"k"}"#),
        #[cfg(feature = "legacy")]
        (
            Effect::PutIf { w: 3, key: "k".into(), expected: None, text: "t".into() },
            r#"{"do":"put_if","w":3,"key":"k","expected":null,"text":"t"}"#,
        ),
        (Effect::Done { x: 4, outcome: Ok(Value::Null) }, r#"{"do":"done","x":4,"value":null}"#),
        (
            Effect::Done { x: 4, outcome: Err(ClientError::usage("no")) },
            r#"{"do":"done","x":4,"error":{"name":"TypeError","message":"no","code":null,"retryable":false}}"#,
        ),
        (Effect::Ask { x: 4, requests: json!({}) }, r#"{"do":"ask","x":4,"requests":{}}"#),
        (
            Effect::Progress { x: 4, progress: json!({ "progress": 1, "total": null, "message": null }) },
            r#"{"do":"progress","x":4,"progress":{"progress":1,"total":null,"message":null}}"#,
        ),
        (Effect::Emit(Emitted::Task(Value::Null)), r#"{"do":"emit","type":"task","detail":null}"#),
        (Effect::Emit(Emitted::Forget("t".into())), r#"{"do":"emit","type":"forget","detail":{"id":"t"}}"#),
        (Effect::Emit(Emitted::Call(json!({}))), r#"{"do":"emit","type":"call","detail":{}}"#),
        (Effect::Storage { reason: "r".into() }, r#"{"do":"storage","reason":"r"}"#),
        (Effect::Notify { id: "t".into() }, r#"{"do":"notify","id":"t"}"#),
        (Effect::Post { text: "{}".into() }, r#"{"do":"post","text":"{}"}"#),
        (Effect::Hint { key: "k".into(), text: None }, r#"{"do":"hint","key":"k","text":null}"#),
        (Effect::Timer { at: Some(9) }, r#"{"do":"timer","at":9}"#),
        (Effect::Upgrade, r#"{"do":"upgrade"}"#),
    ]
}

#[test]
fn every_effect_is_written_with_its_tag_first_and_its_fields() {
    for (effect, text) in one_of_each_effect() {
        assert_eq!(effect.to_json().to_string(), text);
    }
}

/// The string literals that follow `key: "` in `text`, with those joined to the first by `| "…"`
/// (`e: "cancel" | "wait" | "forget"`).
fn literals(text: &str, key: &str) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    for (at, _) in text.match_indices(key) {
        let mut rest = &text[at + key.len()..];
        while let Some(end) = rest.find('"') {
            found.insert(rest[..end].to_owned());
            rest = &rest[end + 1..];
            match rest.strip_prefix(" | \"") {
                Some(next) => rest = next,
                None => break,
            }
        }
    }
    found
}

#[test]
fn the_driver_types_and_docs_door_md_name_the_tags_the_door_reads_and_writes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let types = std::fs::read_to_string(format!("{root}/types/door-protocol.d.ts")).unwrap();
    let events = literals(&types, "{ e: \"");
    let effects = literals(&types, "do: \"");
    // Every event the driver's types name is one the door reads (not an unknown event), and back.
    let full_door_only =
        |tag: &str| !cfg!(feature = "legacy") && STEP_EVENTS.iter().any(|e| e.contains(&format!("\"{tag}\"")));
    for tag in events.iter().filter(|tag| !full_door_only(tag)) {
        let event = json!({ "e": tag.as_str() });
        assert!(
            !matches!(Event::decode(&event), Err(ProtocolError::UnknownEvent(_))),
            "types/door-protocol.d.ts names event {tag}, which the door does not read"
        );
    }
    let decoded = ["keys", "migrate", "restore", "early", "lead", "message", "step", "put_if", "got", "tick"]
        .into_iter()
        .chain([
            "call",
            "list_tools",
            "read_resource",
            "asked",
            "answer",
            "chunk",
            "failed",
            "written",
            "respond",
            "cancel",
        ])
        .chain(["wait", "forget", "clear", "tasks", "online", "hidden", "notify", "notice", "card", "list", "close"]);
    let decoded: std::collections::BTreeSet<String> = decoded.map(str::to_owned).collect();
    assert_eq!(events, decoded, "the events of types/door-protocol.d.ts and of Event::decode");
    // Every effect the door writes is one the driver's types name, and back.
    let mut written: std::collections::BTreeSet<String> = one_of_each_effect()
        .into_iter()
        .map(|(effect, _)| effect.to_json()["do"].as_str().unwrap().to_owned())
        .collect();
    if !cfg!(feature = "legacy") {
        written.extend(STEP_EFFECTS.map(str::to_owned));
    }
    assert_eq!(effects, written, "the effects of types/door-protocol.d.ts and of Effect::to_json");
    // docs/door.md has a row for each.
    let docs = std::fs::read_to_string(format!("{root}/docs/door.md")).unwrap();
    for tag in events.iter().chain(&effects) {
        assert!(docs.contains(&format!("| `{tag}`")) || docs.contains(&format!(", `{tag}`")), "docs/door.md: {tag}");
    }
}
