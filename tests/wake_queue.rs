//! The wake-up queue behind `ClientState::poll_due`, on a fake clock: an answered poll costs the same
//! queue work with 100 or 10,000 idle live tasks (no pass over every record), a TTL end is still found
//! on time (with the poll in flight, offline, with every slot taken), and the count of live 2025-11-25
//! tasks opens and closes the session stream as the walk over the records did.
mod common;

use std::collections::VecDeque;

use mcp_tasks_web::client_state::{ClientConfig, ClientState, Effect, ExchangeOutcome, Keys, Removal};
use mcp_tasks_web::machine::backoff::PollPolicy;
use mcp_tasks_web::machine::record::{Action, LocalStatus};
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::task_protocol::TaskProtocol;
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

/// 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;
const TTL_MS: u64 = 3_600_000;
const GRACE_MS: u64 = 60_000;

fn state(max_in_flight: usize) -> ClientState {
    let policy = PollPolicy { expiry_grace_ms: GRACE_MS, ..common::state_policy() };
    let config = ClientConfig { policy, retention: 500, auto_poll: true, max_in_flight };
    ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, true, 7)
}

fn task(id: &str, status: TaskStatus) -> Task {
    Task {
        task_id: id.into(),
        status,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(T0 as i64),
        ttl_ms: Some(TTL_MS),
        poll_interval_ms: Some(1_000),
    }
}

/// The server's answer: the task as it was (nothing changed), or completed.
fn answer(id: &str, status: TaskStatus) -> ExchangeOutcome {
    let detail = match status {
        TaskStatus::Completed => StatusDetail::Result(CallToolResult::text("done")),
        _ => StatusDetail::None,
    };
    ExchangeOutcome::Answered(Some(Box::new(DetailedTask { task: task(id, status), detail })))
}

fn sends(effects: &[Effect]) -> Vec<(String, Action)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send { id, action, .. } => Some((id.clone(), action.clone())),
            _ => None,
        })
        .collect()
}

fn stored(effects: &[Effect]) -> Vec<String> {
    common::stored_ids(effects)
}

/// The queue work (entries taken off) of each timer pass and of each answered poll, while `n` idle
/// tasks, their first polls spread over one interval, are polled for `rounds` intervals.
fn work_per_poll(n: usize, rounds: u64) -> (Vec<u64>, Vec<u64>, usize) {
    let mut s = state(16);
    for i in 0..n {
        // Handles that arrived over one interval: their polls fall due spread over it.
        let at = T0 + (i as u64 * 1_000) / n as u64;
        s.add_task(at, "build".into(), task(&format!("t{i:05}"), TaskStatus::Working));
    }
    s.drain_effects();
    let (mut passes, mut answers) = (Vec::new(), Vec::new());
    let mut now = T0;
    let mut outstanding: VecDeque<(String, Action)> = VecDeque::new();
    let end = T0 + rounds * 1_000;
    while now < end {
        let Some((id, action)) = outstanding.pop_front() else {
            // What the driver's timer does: wake at the next due time and pass.
            now = s.next_wakeup(now).expect("live tasks always have a wake-up").max(now);
            let before = s.wake_stats().examined;
            s.poll_due(now);
            passes.push(s.wake_stats().examined - before);
            outstanding.extend(sends(&s.drain_effects()));
            continue;
        };
        // Answered at once: the simulated server keeps up with 10,000 tasks a second.
        let before = s.wake_stats().examined;
        let _ = s.on_exchange_done(now, &id, &action, &answer(&id, TaskStatus::Working), true);
        answers.push(s.wake_stats().examined - before);
        outstanding.extend(sends(&s.drain_effects()));
    }
    (passes, answers, s.wake_stats().queued)
}

#[test]
fn an_answered_idle_poll_costs_the_same_queue_work_at_100_and_10_000_tasks() {
    for n in [100, 10_000] {
        let (passes, answers, queued) = work_per_poll(n, 4);
        assert!(answers.len() >= 2 * n, "n={n}: every task was polled in each round ({} answers)", answers.len());
        let max_pass = passes.iter().copied().max().unwrap_or(0);
        let max_answer = answers.iter().copied().max().unwrap_or(0);
        // A pass takes off what is due (one entry per poll it starts, at most 16 with 16 slots); an
        // answer the one poll it hands its slot to. A walk over the records (or a rebuild of the queue,
        // which counts every record) would show n here.
        assert!(max_pass <= 16, "n={n}: a pass took {max_pass} entries off the queue");
        assert!(max_answer <= 2, "n={n}: an answer took {max_answer} entries off the queue");
        let total: u64 = passes.iter().chain(&answers).sum();
        assert!(total <= 2 * answers.len() as u64, "n={n}: {total} entries for {} answers", answers.len());
        assert!(queued <= 2 * n, "n={n}: {queued} queue entries held for {n} tasks (stale ones pile up)");
    }
}

#[test]
fn a_ttl_end_is_found_on_time_with_the_poll_in_flight() {
    let mut s = state(16);
    s.add_task(T0, "build".into(), task("a", TaskStatus::Working));
    s.poll_due(T0 + 1_000);
    assert_eq!(sends(&s.drain_effects()).len(), 1, "the poll goes out and is never answered");
    let expiry = T0 + TTL_MS + GRACE_MS;
    assert_eq!(s.next_wakeup(T0 + 1_000), Some(expiry), "the only thing left to wake for is the TTL end");
    s.poll_due(expiry - 1);
    assert!(stored(&s.drain_effects()).is_empty(), "not before its time");
    s.poll_due(expiry);
    assert_eq!(stored(&s.drain_effects()), ["a"], "ended and stored at its TTL end");
    assert_eq!(s.record("a").map(|r| r.status()), Some(LocalStatus::Expired));
    assert_eq!(s.next_wakeup(expiry), None, "nothing left to wake for");
}

#[test]
fn a_ttl_end_is_found_offline_and_with_every_slot_taken() {
    // Offline: nothing is sent, but the task still ends at its TTL end.
    let mut s = state(16);
    s.add_task(T0, "build".into(), task("a", TaskStatus::Working));
    s.connectivity_changed(T0, false);
    let expiry = T0 + TTL_MS + GRACE_MS;
    s.poll_due(expiry);
    let effects = s.drain_effects();
    assert!(sends(&effects).is_empty());
    assert_eq!(stored(&effects), ["a"]);

    // One slot, held by a poll that never comes back: "b" is due all along and never sent, and its TTL
    // end (earlier than "a"'s) is still found.
    let mut s = state(1);
    s.add_task(T0, "build".into(), task("a", TaskStatus::Working));
    let mut short = task("b", TaskStatus::Working);
    short.ttl_ms = Some(10_000);
    s.add_task(T0, "build".into(), short);
    s.poll_due(T0 + 1_000);
    assert_eq!(sends(&s.drain_effects()).len(), 1);
    s.poll_due(T0 + 10_000 + GRACE_MS);
    let effects = s.drain_effects();
    assert!(sends(&effects).is_empty(), "no slot is free");
    let ended = stored(&effects);
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(s.record(&ended[0]).map(|r| r.status()), Some(LocalStatus::Expired));
}

/// Offline, a due poll waits for the `online` event, not for a timer: the timer would fire again at
/// once, pass after pass, for as long as the device stays offline. Only the TTL end is worth a wake-up.
#[test]
fn offline_a_due_poll_sets_no_timer_but_the_ttl_end_does() {
    let mut s = state(16);
    s.add_task(T0, "build".into(), task("a", TaskStatus::Working));
    s.connectivity_changed(T0, false);
    let later = T0 + 5_000;
    s.poll_due(later);
    assert!(sends(&s.drain_effects()).is_empty(), "nothing is sent offline");
    let expiry = T0 + TTL_MS + GRACE_MS;
    assert_eq!(s.next_wakeup(later), Some(expiry), "the poll due since T0 + 1 s sets no timer offline");

    s.connectivity_changed(later, true);
    assert!(s.next_wakeup(later).is_some_and(|at| at <= later), "online again, the due poll is due now");
    s.poll_due(later);
    assert_eq!(sends(&s.drain_effects()).len(), 1, "and goes out");
}

#[test]
fn a_task_due_earlier_takes_the_slot_first_then_by_id() {
    let mut s = state(1);
    s.add_task(T0 + 20, "build".into(), task("a", TaskStatus::Working));
    s.add_task(T0, "build".into(), task("c", TaskStatus::Working));
    s.add_task(T0, "build".into(), task("b", TaskStatus::Working));
    let now = T0 + 5_000;
    s.poll_due(now);
    let mut order = Vec::new();
    let mut out = sends(&s.drain_effects());
    while let Some((id, action)) = out.pop() {
        order.push(id.clone());
        let _ = s.on_exchange_done(now, &id, &action, &answer(&id, TaskStatus::Working), true);
        out.extend(sends(&s.drain_effects()));
    }
    assert_eq!(order, ["b", "c", "a"]);
}

/// One pass at `now`: how many session streams it opened and closed.
fn session_pass(s: &mut ClientState, now: u64) -> (usize, usize) {
    s.poll_due(now);
    let effects = s.drain_effects();
    let opened = effects.iter().filter(|e| matches!(e, Effect::OpenSessionStream)).count();
    let closed = effects.iter().filter(|e| matches!(e, Effect::CloseSessionStream)).count();
    (opened, closed)
}

fn add_legacy(s: &mut ClientState, id: &str, ttl_ms: u64) {
    let mut handle = task(id, TaskStatus::Working);
    handle.ttl_ms = Some(ttl_ms);
    s.add_task_of(T0, "build".into(), handle, TaskProtocol::Legacy);
}

#[test]
fn the_live_2025_count_opens_and_closes_the_session_stream() {
    let mut s = state(16);
    s.add_task(T0, "build".into(), task("new", TaskStatus::Working));
    assert_eq!(session_pass(&mut s, T0), (0, 0), "a 2026 task needs no session stream");
    add_legacy(&mut s, "a", TTL_MS);
    add_legacy(&mut s, "b", TTL_MS);
    add_legacy(&mut s, "c", 10_000);
    assert_eq!(session_pass(&mut s, T0 + 1), (1, 0));
    // "a" ends by an answer, "b" is forgotten, "c" runs past its TTL: the count goes to zero.
    let _ = s.on_exchange_done(T0 + 2, "a", &Action::Poll, &answer("a", TaskStatus::Completed), false);
    assert_eq!(s.record("a").map(|r| r.is_settled()), Some(true));
    assert_eq!(session_pass(&mut s, T0 + 3), (0, 0), "b and c are live");
    s.remove(&["b".to_owned()], Removal::Forget);
    assert_eq!(session_pass(&mut s, T0 + 4), (0, 0), "c is live");
    assert_eq!(session_pass(&mut s, T0 + 10_000 + GRACE_MS), (0, 1), "c ended at its TTL: closed");
}

#[test]
fn restored_2025_tasks_count_for_the_session_stream() {
    let mut writer = state(16);
    add_legacy(&mut writer, "a", TTL_MS);
    let text = writer.stored_text("a").expect("a record");
    let mut s = state(16);
    let mut restore = s.begin_restore(true);
    let key = s.keys().task("a");
    s.restore_entry(&mut restore, &key, &text);
    s.finish_restore(restore, T0);
    assert_eq!(session_pass(&mut s, T0), (1, 0), "a restored live 2025-11-25 task opens it");
    s.clear();
    assert_eq!(session_pass(&mut s, T0 + 1), (0, 1), "cleared: closed");
}
