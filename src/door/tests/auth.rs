//! Sign-in: a 401 or 403 with `WWW-Authenticate` pauses every request the client starts by itself, in
//! every tab, tells the host (`auth`), probes on a slow bounded backoff, and ends at the first success.
use super::*;
use crate::client_state::{AUTH_RETRY_BASE_MS, AUTH_RETRY_MAX_MS};

const CHALLENGE: &str = r#"Bearer error="invalid_token", error_description="Token has expired", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp""#;

/// The bearer middleware's refusal of exchange `send` at `now` (its JSON body, its challenge).
fn unauthorized(door: &mut Door, now: u64, send: &Value, status: u16, challenge: &str) -> Vec<Value> {
    let n = send.get("n").and_then(Value::as_u64).unwrap();
    let body = r#"{"error":"invalid_token","error_description":"Token has expired"}"#;
    door.handle(now, &json!({ "e": "answer", "n": n, "status": status, "wwwAuthenticate": challenge }), body.as_bytes())
}

/// The details of the `auth` events among `effects`.
fn auth_events(effects: &[Value]) -> Vec<Value> {
    effects
        .iter()
        .filter(|e| {
            e.get("do").and_then(Value::as_str) == Some("emit") && e.get("type").and_then(Value::as_str) == Some("auth")
        })
        .map(|e| e.get("detail").unwrap().clone())
        .collect()
}

/// Ticks every 100 ms from `from` until a request goes out (before `until`): when, and which.
fn next_send(door: &mut Door, from: u64, until: u64) -> (u64, Value) {
    let mut now = from;
    while now < until {
        if let Some(send) = sends(&feed(door, now, r#"{"e":"tick"}"#)).pop() {
            return (now, send);
        }
        now += 100;
    }
    panic!("nothing sent from {from} to {until}")
}

fn sends(effects: &[Value]) -> Vec<Value> {
    effects.iter().filter(|e| e.get("do").and_then(Value::as_str) == Some("send")).cloned().collect()
}

#[test]
fn an_expired_token_pauses_the_server_tells_every_tab_and_ends_at_the_first_success() {
    let (mut leader, _) = leading_tab();
    let at = NOW + 1_000;
    let poll = sent(&feed(&mut leader, at, r#"{"e":"tick"}"#), "tasks/get");
    let out = unauthorized(&mut leader, at, &poll, 401, CHALLENGE);
    let expected = json!({
        "resolved": false, "status": 401, "error": "invalid_token", "description": "Token has expired",
        "scope": null, "resourceMetadata": "https://h/.well-known/oauth-protected-resource/mcp",
        "retryAt": at + AUTH_RETRY_BASE_MS,
    });
    assert_eq!(auth_events(&out), vec![expected], "{out:?}");
    let shared = posted(&out, "auth").to_owned();
    assert!(timer(&out) >= at + AUTH_RETRY_BASE_MS, "nothing is due before the probe: {out:?}");

    // The poll's task is not lost: it is still live, its last error the refusal.
    let tasks = listed_tasks(&feed(&mut leader, at, r#"{"e":"tasks","x":3}"#));
    assert_eq!(tasks[0].get("status").and_then(Value::as_str), Some("working"), "{tasks:?}");
    assert_eq!(
        tasks[0].get("lastError").and_then(|e| e.get("failure")).and_then(|f| f.get("status")),
        Some(&json!(401))
    );

    // A call of the host's is not held back (it asks `headers` anew); refused too, it rejects with
    // AuthError and tells the host nothing new.
    let out = feed(&mut leader, at + 500, r#"{"e":"call","x":5,"name":"build"}"#);
    let call = the(&out, "send").clone();
    let out = unauthorized(&mut leader, at + 500, &call, 401, CHALLENGE);
    assert_eq!(the(&out, "done").get("error").and_then(|e| e.get("name")).and_then(Value::as_str), Some("AuthError"));
    assert!(auth_events(&out).is_empty(), "the same refusal is not announced twice: {out:?}");

    // The probe comes once the pause ends (and the task's own backoff), and is refused again: the
    // next one waits twice as long.
    let (when, probe) = next_send(&mut leader, at + 100, at + 60_000);
    assert!(when >= at + AUTH_RETRY_BASE_MS, "no poll before the probe time: {when}");
    let out = unauthorized(&mut leader, when, &probe, 401, CHALLENGE);
    let again = auth_events(&out);
    assert_eq!(again.len(), 1, "each refused probe is announced, with the next probe time: {out:?}");
    assert_eq!(again[0].get("retryAt"), Some(&json!(when + 2 * AUTH_RETRY_BASE_MS)));
    let (next, probe) = next_send(&mut leader, when + 100, when + 60_000);
    assert!(next >= when + 2 * AUTH_RETRY_BASE_MS, "the second probe waits twice as long: {}", next - when);
    // The host signed in meanwhile: the probe succeeds, and the pause ends here and in the other tabs.
    let out = answer(&mut leader, next, &probe, task("working"));
    let resolved = auth_events(&out);
    assert_eq!(resolved.len(), 1, "{out:?}");
    assert_eq!(resolved[0], json!({ "resolved": true }));
    let ended = posted(&out, "auth").to_owned();

    // A tab that does not poll hears both, and tells its own host.
    let mut follower = open_tab();
    feed(&mut follower, at, r#"{"e":"restore","x":1}"#);
    let out = message(&mut follower, at, &shared);
    assert_eq!(auth_events(&out).first().and_then(|d| d.get("error")), Some(&json!("invalid_token")), "{out:?}");
    let out = message(&mut follower, next, &ended);
    assert_eq!(auth_events(&out).first().and_then(|d| d.get("resolved")), Some(&json!(true)), "{out:?}");
}

#[test]
fn a_refused_probe_never_turns_into_a_storm_and_a_403_asks_for_its_scope() {
    let (mut leader, _) = leading_tab();
    let challenge = r#"Bearer error="insufficient_scope", scope="tasks:write""#;
    let start = NOW + 1_000;
    let mut out = feed(&mut leader, start, r#"{"e":"tick"}"#);
    let (mut refused, mut announced) = (0, Vec::new());
    // Ten minutes of ticks every 100 ms, every request refused.
    for step in 0..6_000u64 {
        let now = start + step * 100;
        if step > 0 {
            out = feed(&mut leader, now, r#"{"e":"tick"}"#);
        }
        for send in sends(&out) {
            refused += 1;
            announced.extend(auth_events(&unauthorized(&mut leader, now, &send, 403, challenge)));
        }
    }
    assert_eq!(announced[0].get("scope"), Some(&json!("tasks:write")));
    assert_eq!(announced[0].get("status"), Some(&json!(403)));
    // 2 + 4 + 8 + 16 + 32 + 60 s, then one each minute: 15 probes in ten minutes, and no more.
    let bound = 6 + (600_000 - 62_000) / AUTH_RETRY_MAX_MS + 1;
    assert!((5..=bound).contains(&refused), "{refused} requests refused in ten minutes (at most {bound})");
    assert_eq!(announced.len() as u64, refused, "one announcement per refused round: {announced:?}");
}
