//! Early polls at open, on a fake clock: the poller polls the hint's tasks before the store is read,
//! and each answer is applied to its record once the record is read (not asked again), or dropped if
//! no record comes; a poll still out when its record is read keeps a second one from starting. The
//! hint names up to eight live 2026-07-28 tasks and changes only with the live set.
mod common;

use mcp_tasks_web::client_state::{
    ClientConfig, ClientState, Effect, ExchangeOutcome, Keys, EARLY_POLLS, MAX_REQUESTS_IN_FLIGHT,
};
use mcp_tasks_web::json::Value;
use mcp_tasks_web::machine::record::{Action, Change, LocalStatus};
use mcp_tasks_web::machine::stored::to_stored;
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::task_protocol::TaskProtocol;
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

/// 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;
const URL: &str = "http://127.0.0.1:1/mcp";

fn keys() -> Keys {
    Keys::new("ns", URL)
}

fn state(leader: bool, auto_poll: bool) -> ClientState {
    let config = ClientConfig {
        policy: common::state_policy(),
        retention: 500,
        auto_poll,
        max_in_flight: MAX_REQUESTS_IN_FLIGHT,
    };
    ClientState::new(config, keys(), false, leader, 7)
}

fn task(id: &str, status: TaskStatus, message: Option<&str>) -> Task {
    Task {
        task_id: id.into(),
        status,
        status_message: message.map(str::to_owned),
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(T0 as i64),
        ttl_ms: Some(3_600_000),
        poll_interval_ms: Some(1_000),
    }
}

fn answer(id: &str, status: TaskStatus, message: &str, updated: u64) -> ExchangeOutcome {
    let mut t = task(id, status, Some(message));
    t.last_updated_at = format_millis(updated as i64);
    let detail = match status {
        TaskStatus::Completed => StatusDetail::Result(CallToolResult::text("done")),
        _ => StatusDetail::None,
    };
    ExchangeOutcome::Answered(Some(Box::new(DetailedTask { task: t, detail })))
}

/// The stored entries of working tasks `ids`, as a previous page left them.
fn stored(ids: &[&str]) -> Vec<(String, String)> {
    let mut previous = state(true, true);
    ids.iter()
        .map(|id| {
            previous.add_task(T0, "build".into(), task(id, TaskStatus::Working, Some("starting")));
            let text = previous.record(id).map(|r| to_stored(r).to_string()).expect("added");
            (keys().task(id), text)
        })
        .collect()
}

fn polls(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send { id, action: Action::Poll, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}

fn stores(effects: &[Effect]) -> Vec<String> {
    common::stored_ids(effects)
}

/// Reads `entries` as one page at `now` (the first page of a poller's open), without finishing.
fn read_page(s: &mut ClientState, entries: Vec<(String, String)>, now: u64) -> mcp_tasks_web::client_state::Restore {
    let mut restore = s.begin_restore(true);
    for (key, text) in entries {
        s.restore_entry(&mut restore, &key, &text);
    }
    s.page_read(&mut restore, now, false);
    restore
}

/// A poller that opened with a hint naming `ids` and has polled each of them, before any record is read.
fn polling_early(ids: &[&str]) -> ClientState {
    let mut s = state(true, true);
    let hint: Vec<Value> = ids.iter().map(|id| Value::from(*id)).collect();
    let ids: Vec<String> = ids.iter().map(|id| (*id).to_owned()).collect();
    s.poll_early(T0, &hint);
    assert_eq!(polls(&s.drain_effects()), ids, "each polled before any record is read");
    s
}

fn network_failure() -> ExchangeOutcome {
    ExchangeOutcome::Failed(mcp_tasks_web::machine::backoff::Failure::Network)
}

/// An early poll's answer, as the driver hands it over (outside the request window).
fn early_answer(s: &mut ClientState, now: u64, id: &str, outcome: ExchangeOutcome) -> Change {
    s.on_exchange_done(now, id, &Action::Poll, &outcome, false)
}

fn message(s: &ClientState, id: &str) -> Option<String> {
    s.record(id).and_then(|r| r.last().task.status_message.clone())
}

#[test]
fn an_answer_that_came_before_its_record_is_applied_when_the_record_is_read() {
    let mut s = polling_early(&["a", "gone"]);
    let at = T0 + 60_000;
    // Both answers come back before the store has given anything.
    assert_eq!(early_answer(&mut s, at, "a", answer("a", TaskStatus::Working, "half way", at)), Change::Nothing);
    assert_eq!(early_answer(&mut s, at, "gone", answer("gone", TaskStatus::Working, "?", at)), Change::Nothing);
    assert!(s.record("a").is_none());

    let restore = read_page(&mut s, stored(&["a", "b"]), at + 40);
    let effects = s.drain_effects();
    assert_eq!(message(&s, "a").as_deref(), Some("half way"), "the early answer is the record's state");
    assert_eq!(stores(&effects), ["a"], "and it is stored");
    assert_eq!(polls(&effects), ["b"], "\"a\" was answered 40 ms ago: only \"b\" is polled now");

    s.finish_restore(restore, at + 50);
    assert!(s.record("gone").is_none(), "an answer for a task that is not stored makes no record");
    assert_eq!(
        early_answer(&mut s, at + 60, "gone", answer("gone", TaskStatus::Completed, "?", at)),
        Change::Nothing,
        "nor does a late one"
    );
}

#[test]
fn a_poll_still_out_when_its_record_is_read_is_not_sent_again_and_its_answer_applies() {
    let mut s = polling_early(&["a"]);
    let at = T0 + 60_000;
    let restore = read_page(&mut s, stored(&["a", "b"]), at);
    assert_eq!(polls(&s.drain_effects()), ["b"], "the early poll of \"a\" is still out: no second one");
    s.finish_restore(restore, at + 5);
    assert_eq!(s.record("a").map(|r| r.status()), Some(LocalStatus::Working));

    let change = early_answer(&mut s, at + 20, "a", answer("a", TaskStatus::Completed, "done", at + 10));
    assert_eq!(change, Change::State, "the answer arrives after the restore and applies");
    assert_eq!(s.record("a").map(|r| r.status()), Some(LocalStatus::Completed));
}

#[test]
fn an_early_poll_that_failed_backs_its_task_off_like_any_poll() {
    let mut s = polling_early(&["a"]);
    let at = T0 + 60_000;
    assert_eq!(early_answer(&mut s, at, "a", network_failure()), Change::Nothing, "kept for its record");
    let restore = read_page(&mut s, stored(&["a"]), at + 30);
    assert!(polls(&s.drain_effects()).is_empty(), "backing off after the failed early poll");
    s.finish_restore(restore, at + 31);
    let next = s.record("a").and_then(|r| r.next_wakeup(&s.config().policy));
    assert!(next.is_some_and(|t| t > at + 30), "the retry waits for the backoff: {next:?}");
}

#[test]
fn an_early_poll_that_fails_after_its_record_was_read_sets_the_timer_for_the_retry() {
    // Seen in WebKitGTK: the answer came after the restore, nothing re-armed the driver's timer, and
    // the task was never polled again.
    let mut s = polling_early(&["a"]);
    let at = T0 + 60_000;
    let restore = read_page(&mut s, stored(&["a"]), at);
    s.finish_restore(restore, at + 1);
    s.drain_effects();
    let before = s.next_wakeup(at + 1);
    assert!(before.is_some_and(|t| t >= at + 3_600_000), "the only poll is out: only the TTL is timed: {before:?}");

    assert_eq!(early_answer(&mut s, at + 20, "a", network_failure()), Change::State, "the task now backs off");
    let effects = s.drain_effects();
    assert!(effects.contains(&Effect::Rearm), "the driver is told to set its timer anew: {effects:?}");
    let retry = s.record("a").and_then(|r| r.next_wakeup(&s.config().policy)).expect("a retry is scheduled");
    assert!(retry > at + 20, "after the backoff: {retry}");
    assert_eq!(s.next_wakeup(at + 20), Some(retry), "and the timer is set for it");
}

#[test]
fn the_hint_names_up_to_eight_live_tasks_of_this_generation_and_changes_with_the_live_set() {
    let mut s = state(true, true);
    for i in 0..10 {
        s.add_task(T0, "build".into(), task(&format!("t{i}"), TaskStatus::Working, None));
    }
    s.add_task_of(T0, "build".into(), task("legacy", TaskStatus::Working, None), TaskProtocol::Legacy);
    let hint = s.early_hint(T0).expect("the live set is new");
    assert_eq!(hint.len(), EARLY_POLLS);
    assert!(
        hint.iter().all(|id| id.as_str().is_some_and(|id| id.starts_with('t'))),
        "2025-11-25 tasks need a session first: {hint:?}"
    );
    assert_eq!(s.early_hint(T0), None, "unchanged live set, nothing to write");

    let id = hint[0].as_str().unwrap().to_owned();
    s.poll_early(T0, &hint[..1]);
    assert_eq!(polls(&s.drain_effects()), std::slice::from_ref(&id));
    assert_eq!(
        early_answer(&mut s, T0 + 1_000, &id, answer(&id, TaskStatus::Completed, "done", T0 + 900)),
        Change::State
    );
    let after = s.early_hint(T0 + 1_000).expect("a task ended");
    assert!(!after.contains(&Value::from(id.as_str())), "an ended task leaves the hint: {after:?}");

    assert_eq!(state(false, true).early_hint(T0), None, "a tab that does not poll writes no hint");
    assert_eq!(state(true, false).early_hint(T0), None, "nor does step mode");
}
