//! `ClientState` for 2025-11-25 tasks, on a fake clock.
//!
//! When the session's GET stream (where the official TypeScript SDK v1 sends
//! `notifications/tasks/status`) is opened and closed: only while this polling client has a live
//! 2025-11-25 task, once at a time, re-opened after a growing backoff never under a second, never
//! again after the server refused it (405), never during the server's `Retry-After`, and closed when no
//! such task is left, when the client stops polling, and when it closes.
//!
//! Where `notifications/progress` goes: to the task it is tagged with, else to the task whose call
//! sent its token.
use mcp_tasks_web::client_state::{
    ClientConfig, ClientState, Effect, Keys, SessionStreamEnd, RELISTEN_MAX_MS, RELISTEN_MIN_MS,
};
use mcp_tasks_web::json::from_str;
use mcp_tasks_web::machine::backoff::{Failure, PollPolicy};
use mcp_tasks_web::protocol::legacy::stream::decode_progress;
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::task_protocol::TaskProtocol;
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::snapshot::TaskSnapshot;

/// 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;

fn state() -> ClientState {
    let policy = PollPolicy {
        min_interval_ms: 100,
        default_interval_ms: 1_000,
        backoff_base_ms: 500,
        max_backoff_ms: 8_000,
        expiry_grace_ms: 60_000,
        pushed_backstop_ms: 30_000,
    };
    let config = ClientConfig { policy, retention: 500, auto_poll: true, max_in_flight: 16 };
    ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, true, 7)
}

fn task(id: &str, status: TaskStatus, at: u64) -> Task {
    Task {
        task_id: id.into(),
        status,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(at as i64),
        ttl_ms: Some(3_600_000),
        poll_interval_ms: Some(1_000),
    }
}

fn add(state: &mut ClientState, id: &str, protocol: TaskProtocol) {
    state.add_task_of(T0, "build".into(), task(id, TaskStatus::Working, T0), protocol);
}

fn complete(state: &mut ClientState, id: &str, now: u64) {
    let result = StatusDetail::Result(CallToolResult::text("ok"));
    state.on_task_observed(now, DetailedTask { task: task(id, TaskStatus::Completed, now), detail: result });
}

/// One pass at `now`; how many session streams it opened and closed.
fn pass(state: &mut ClientState, now: u64) -> (usize, usize) {
    state.poll_due(now);
    let effects = state.drain_effects();
    let opened = effects.iter().filter(|e| matches!(e, Effect::OpenSessionStream)).count();
    let closed = effects.iter().filter(|e| matches!(e, Effect::CloseSessionStream)).count();
    (opened, closed)
}

#[test]
fn one_stream_opens_for_live_2025_tasks_and_closes_when_none_is_left() {
    let mut state = state();
    add(&mut state, "a", TaskProtocol::Legacy);
    add(&mut state, "b", TaskProtocol::Legacy);
    assert_eq!(pass(&mut state, T0), (1, 0), "one stream for the session, however many tasks");
    assert_eq!(pass(&mut state, T0 + 5_000), (0, 0), "not opened twice while open");
    complete(&mut state, "a", T0 + 6_000);
    assert_eq!(pass(&mut state, T0 + 6_000), (0, 0), "b still needs it");
    complete(&mut state, "b", T0 + 7_000);
    assert_eq!(pass(&mut state, T0 + 7_000), (0, 1), "no live 2025-11-25 task: closed");
    state.on_session_stream_end(T0 + 7_001, SessionStreamEnd::Closed);
    assert_eq!(pass(&mut state, T0 + 600_000), (0, 0), "nothing to hear about");
}

#[test]
fn a_2026_server_never_gets_a_session_stream() {
    let mut state = state();
    add(&mut state, "x", TaskProtocol::Extension);
    for s in 0..120 {
        assert_eq!(pass(&mut state, T0 + s * 1_000).0, 0, "at {s} s");
    }
}

#[test]
fn a_stream_that_keeps_ending_is_reopened_after_a_growing_backoff_never_under_a_second() {
    let mut state = state();
    add(&mut state, "a", TaskProtocol::Legacy);
    let mut opens = Vec::new();
    // Ten minutes of passes every 100 ms against a server that ends each stream at once.
    for step in 0..6_000u64 {
        let now = T0 + step * 100;
        let (opened, _) = pass(&mut state, now);
        if opened == 1 {
            opens.push(now);
            state.on_session_stream_end(now + 10, SessionStreamEnd::Ended);
        }
    }
    let gaps: Vec<u64> = opens.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g >= RELISTEN_MIN_MS), "never sooner than a second: {gaps:?}");
    assert!(gaps.iter().all(|&g| g <= RELISTEN_MAX_MS + 200), "never later than the longest wait: {gaps:?}");
    assert!(gaps.last() > gaps.first(), "the wait grows: {gaps:?}");
    assert!((8..=20).contains(&opens.len()), "{} streams in ten minutes: {gaps:?}", opens.len());
}

#[test]
fn a_server_that_refuses_the_get_is_not_asked_again() {
    let mut state = state();
    add(&mut state, "a", TaskProtocol::Legacy);
    assert_eq!(pass(&mut state, T0).0, 1);
    state.on_session_stream_end(T0 + 5, SessionStreamEnd::Refused);
    for s in 1..600 {
        assert_eq!(pass(&mut state, T0 + s * 1_000).0, 0, "asked again at {s} s");
    }
}

#[test]
fn retry_after_holds_the_stream_back() {
    let mut state = state();
    add(&mut state, "a", TaskProtocol::Legacy);
    assert_eq!(pass(&mut state, T0).0, 1);
    state.on_server_failure(T0 + 10, &Failure::Http { status: 503, retry_after_ms: Some(30_000) });
    state.on_session_stream_end(T0 + 10, SessionStreamEnd::Ended);
    let _ = state.drain_effects();
    for s in 1..30 {
        assert_eq!(pass(&mut state, T0 + s * 1_000).0, 0, "opened during Retry-After, at {s} s");
    }
    assert_eq!(pass(&mut state, T0 + 30_010).0, 1, "opened once the pause ends");
}

#[test]
fn the_stream_closes_when_the_client_stops_polling_or_closes() {
    let mut state = state();
    add(&mut state, "a", TaskProtocol::Legacy);
    assert_eq!(pass(&mut state, T0).0, 1);
    state.set_leader(false);
    assert!(state.drain_effects().iter().any(|e| matches!(e, Effect::CloseSessionStream)), "another tab polls now");
    state.on_session_stream_end(T0 + 1_000, SessionStreamEnd::Closed);
    assert_eq!(pass(&mut state, T0 + 10_000).0, 0, "a tab that does not poll opens none");

    state.set_leader(true);
    assert_eq!(pass(&mut state, T0 + 11_000).0, 1, "polling again: opened again (a close is no failure)");
    state.close();
    assert!(state.drain_effects().iter().any(|e| matches!(e, Effect::CloseSessionStream)), "closed with the client");
}

/// The `progress` member of task `id`'s snapshot, as JSON text.
fn progress_of(state: &ClientState, id: &str) -> String {
    let record = state.record(id).expect("a record");
    TaskSnapshot::of_record(record, false, false, false).to_json()["progress"].to_string()
}

fn progress(params: &str) -> mcp_tasks_web::protocol::legacy::stream::Progress {
    decode_progress(&from_str(params).expect("JSON")).expect("progress params")
}

#[test]
fn progress_goes_to_the_task_its_token_or_tag_names() {
    let mut state = state();
    add(&mut state, "a", TaskProtocol::Legacy);
    add(&mut state, "b", TaskProtocol::Legacy);
    state.set_progress_token("a", "call-a".into());
    state.set_progress_token("b", "call-b".into());
    let _ = state.drain_effects();

    state.on_progress(progress(r#"{"progressToken":"call-b","progress":1,"total":4}"#));
    assert_eq!(progress_of(&state, "b"), r#"{"progress":1,"total":4}"#);
    assert_eq!(progress_of(&state, "a"), "null", "another task's token");
    assert!(state.drain_effects().iter().any(|e| matches!(e, Effect::EmitTask(id) if id == "b")), "a host hears of it");

    let tagged =
        r#"{"progressToken":99,"progress":0.5,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"a"}}}"#;
    state.on_progress(progress(tagged));
    assert_eq!(progress_of(&state, "a"), r#"{"progress":0.5,"total":null}"#, "by its related task");
    let _ = state.drain_effects();

    state.on_progress(progress(r#"{"progressToken":"call-nobody","progress":3}"#));
    state.on_progress(progress(r#"{"progressToken":"call-b","progress":0.5,"total":4}"#));
    assert_eq!(progress_of(&state, "b"), r#"{"progress":1,"total":4}"#, "progress only goes up");
    assert!(!state.drain_effects().iter().any(|e| matches!(e, Effect::EmitTask(_))), "nothing changed, no event");

    complete(&mut state, "b", T0 + 1_000);
    assert_eq!(progress_of(&state, "b"), "null", "an ended task shows none");
}

/// A build without the `legacy` feature (`set_drives_legacy(false)`) meets a namespace where a build
/// with it stored a 2025-11-25 task beside a 2026-07-28 one: it holds, polls and rewrites only the
/// latter, whether the records come from a restore, another tab or a step's re-read, and says why
/// the other is left in the store.
#[test]
fn a_build_without_the_2025_generation_leaves_those_records_in_the_store() {
    use mcp_tasks_web::client_state::TabMessage;
    use mcp_tasks_web::machine::stored::to_stored;

    let keys = Keys::new("ns", "http://127.0.0.1:1/mcp");
    let mut writer = state();
    add(&mut writer, "old", TaskProtocol::Legacy);
    add(&mut writer, "new", TaskProtocol::Extension);
    let stored = |id: &str| to_stored(writer.record(id).expect("added"));
    let entries: Vec<(String, String)> =
        ["old", "new"].iter().map(|id| (keys.task(id), stored(id).to_string())).collect();

    // At open.
    let mut reader = state();
    reader.set_drives_legacy(false);
    let mut restore = reader.begin_restore(true);
    for (key, text) in &entries {
        reader.restore_entry(&mut restore, key, text);
    }
    reader.page_read(&mut restore, T0, false);
    reader.finish_restore(restore, T0);
    assert!(reader.record("new").is_some());
    assert!(reader.record("old").is_none(), "not held, so never polled, expired or written back");
    let effects = reader.drain_effects();
    let reported =
        effects.iter().any(|e| matches!(e, Effect::EmitStorage(m) if m.contains("old") && m.contains("2025-11-25")));
    assert!(reported, "said why it was left: {effects:?}");
    reader.poll_due(T0 + 60_000);
    let sent: Vec<_> = reader
        .drain_effects()
        .into_iter()
        .filter_map(|e| if let Effect::Send { id, .. } = e { Some(id) } else { None })
        .collect();
    assert_eq!(sent, ["new"]);

    // Handed over by the tab that created it (this one polls), and from a step's re-read.
    let mut other_tab = state();
    other_tab.set_drives_legacy(false);
    other_tab.on_tab_message(T0, TabMessage::Adopt { id: "old".into(), stored: stored("old") });
    assert!(other_tab.record("old").is_none());
    other_tab.on_tab_message(T0, TabMessage::Adopt { id: "new".into(), stored: stored("new") });
    assert!(other_tab.record("new").is_some(), "the 2026-07-28 one is adopted as before");
    let listed: Vec<(&str, &str)> = entries.iter().map(|(k, t)| (k.as_str(), t.as_str())).collect();
    other_tab.sync_from_store(&listed);
    assert!(other_tab.record("old").is_none());
    assert!(other_tab.read_stored(Some(&entries[0].1)).is_none());
    assert!(other_tab.read_stored(Some(&entries[1].1)).is_some());

    // A build that drives both holds both, as before.
    let mut both = state();
    both.sync_from_store(&listed);
    assert!(both.record("old").is_some() && both.record("new").is_some());
}
