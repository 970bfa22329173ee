//! `ClientState` driven natively with a fake clock and a simulated server: request slots and the
//! backlog, the one removal path (forget, clear, retention, other tabs), waiters, group writes, tab
//! messages, and property tests over random sequences of all of them.
mod common;

use mcp_tasks_web::client_state::{
    ClientConfig, ClientState, Effect, ExchangeOutcome, Keys, Removal, TabMessage, Wait,
};
use mcp_tasks_web::error::ErrorKind;
use mcp_tasks_web::machine::backoff::{Failure, PollPolicy};
use mcp_tasks_web::machine::record::{Action, Change};
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use proptest::prelude::*;

/// Server clock origin: 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;

fn policy() -> PollPolicy {
    common::state_policy()
}

fn state(max_in_flight: usize, retention: usize) -> ClientState {
    let config = ClientConfig { policy: policy(), retention, auto_poll: true, max_in_flight };
    ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, true, 7)
}

fn task(id: &str, status: TaskStatus, updated: u64) -> Task {
    Task {
        task_id: id.into(),
        status,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(updated as i64),
        ttl_ms: Some(3_600_000),
        poll_interval_ms: Some(200),
    }
}

fn observed(id: &str, status: TaskStatus, updated: u64) -> ExchangeOutcome {
    let detail = match status {
        TaskStatus::Completed => StatusDetail::Result(CallToolResult::text("done")),
        _ => StatusDetail::None,
    };
    ExchangeOutcome::Answered(Some(Box::new(DetailedTask { task: task(id, status, updated), detail })))
}

fn add(state: &mut ClientState, now: u64, id: &str) {
    state.add_task(now, "build".into(), task(id, TaskStatus::Working, now));
}

/// The sends among `effects`: (task id, action, holds a slot).
fn sends(effects: &[Effect]) -> Vec<(String, Action, bool)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send { id, action, slot } => Some((id.clone(), action.clone(), *slot)),
            _ => None,
        })
        .collect()
}

fn settles(effects: &[Effect]) -> Vec<(String, Result<String, ErrorKind>)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Settle { waiter, outcome } => Some((waiter.clone(), outcome.clone().map_err(|e| e.kind))),
            _ => None,
        })
        .collect()
}

#[test]
fn never_more_than_the_cap_in_flight_and_the_backlog_is_served_by_answers() {
    let mut s = state(4, 500);
    for n in 0..10 {
        add(&mut s, T0, &format!("t{n:02}"));
    }
    let now = T0 + 1_000;
    s.poll_due(now);
    let mut out = sends(&s.drain_effects());
    assert_eq!(out.len(), 4, "{out:?}");
    assert_eq!(s.requests_in_flight(), 4);
    let mut polled = std::collections::BTreeSet::new();
    while let Some((id, action, slot)) = out.pop() {
        assert!(slot, "a polling client's sends hold slots");
        polled.insert(id.clone());
        let _ = s.on_exchange_done(now + 10, &id, &action, &observed(&id, TaskStatus::Working, T0), true);
        out.extend(sends(&s.drain_effects()));
        assert!(s.requests_in_flight() <= 4);
    }
    assert_eq!(polled.len(), 10, "every due task was polled once: {polled:?}");
    assert_eq!(s.requests_in_flight(), 0);
}

#[test]
fn a_removed_task_is_gone_everywhere_and_its_waiters_are_rejected() {
    let mut s = state(16, 500);
    add(&mut s, T0, "a");
    add(&mut s, T0, "b");
    s.set_version("a", "{}".into());
    let Wait::Later(waiter) = s.wait("a").unwrap() else { panic!("a live task waits") };
    s.remove(&["a".into()], Removal::Forget);
    let effects = s.drain_effects();
    assert!(s.record("a").is_none() && !s.has_version("a"));
    assert_eq!(settles(&effects), vec![(waiter, Err(ErrorKind::Forgotten))]);
    assert!(effects.contains(&Effect::Delete(s.keys().task("a"))), "{effects:?}");
    assert!(effects.contains(&Effect::EmitForget("a".into())), "{effects:?}");
    assert!(effects.contains(&Effect::Post(TabMessage::Forget { ids: vec!["a".into()] })), "{effects:?}");
    assert_eq!(s.waiting(), 0);
    assert!(s.record("b").is_some());
    assert_eq!(s.wait("a").unwrap_err().kind, ErrorKind::Usage);
}

#[test]
fn clear_is_told_to_every_tab_and_applied_from_another_without_an_echo() {
    let mut s = state(16, 500);
    add(&mut s, T0, "a");
    let Wait::Later(w) = s.wait("a").unwrap() else { panic!() };
    s.clear();
    let effects = s.drain_effects();
    assert!(effects.contains(&Effect::Post(TabMessage::Clear)), "{effects:?}");
    assert_eq!(settles(&effects), vec![(w, Err(ErrorKind::Forgotten))]);
    assert!(s.records().is_empty());

    let mut poller = state(16, 500);
    add(&mut poller, T0, "a");
    add(&mut poller, T0, "b");
    poller.poll_due(T0 + 1_000);
    let out = sends(&poller.drain_effects());
    assert_eq!(out.len(), 2);
    assert_eq!(poller.on_tab_message(T0 + 1_001, TabMessage::Clear), None);
    let effects = poller.drain_effects();
    assert!(poller.records().is_empty());
    assert!(!effects.iter().any(|e| matches!(e, Effect::Post(_))), "no echo of another tab's clear: {effects:?}");
    assert!(effects.contains(&Effect::Delete(poller.keys().task("a"))), "the poller deletes what it may write");
    // The answers of requests that were out: slots come back, nothing is written or sent again.
    for (id, action, slot) in out {
        let change =
            poller.on_exchange_done(T0 + 1_100, &id, &action, &observed(&id, TaskStatus::Completed, T0 + 1), slot);
        assert_eq!(change, Change::Nothing);
    }
    assert_eq!(poller.requests_in_flight(), 0);
    assert!(sends(&poller.drain_effects()).is_empty());
}

#[test]
fn a_record_removed_while_its_group_is_written_is_deleted_again() {
    let mut s = state(16, 500);
    add(&mut s, T0, "a");
    add(&mut s, T0, "b");
    assert!(s.queue_write("a"), "the first write starts the writer");
    assert!(!s.queue_write("b"), "later writes join the next group");
    let group = s.take_write_group().expect("a group");
    assert_eq!(group.ids, vec!["a".to_owned(), "b".to_owned()]);
    s.remove(&["b".into()], Removal::Forget);
    s.drain_effects();
    s.group_written(group);
    let effects = s.drain_effects();
    assert_eq!(effects, vec![Effect::Delete(s.keys().task("b"))]);
    assert!(s.has_version("a") && !s.has_version("b"));
    assert!(s.take_write_group().is_none(), "nothing left: the writer stops");
    assert!(s.queue_write("a"), "and the next write starts it again");
}

#[test]
fn retention_keeps_the_newest_settled_tasks_and_tells_the_other_tabs() {
    let mut s = state(16, 2);
    for n in 0..5u64 {
        let id = format!("t{n}");
        add(&mut s, T0 + n * 1_000, &id);
    }
    for n in 0..5u64 {
        let id = format!("t{n}");
        let done = observed(&id, TaskStatus::Completed, T0 + 9_000);
        assert_eq!(s.on_exchange_done(T0 + 10_000 + n, &id, &Action::Poll, &done, false), Change::State);
    }
    s.drain_effects();
    s.apply_retention(T0 + 20_000);
    let kept: Vec<&str> = s.records().keys().map(|id| &**id).collect();
    assert_eq!(kept, ["t3", "t4"], "the two newest stay");
    let effects = s.drain_effects();
    assert!(effects.contains(&Effect::Post(TabMessage::Forget { ids: vec!["t0".into(), "t1".into(), "t2".into()] })));
}

#[test]
fn waiters_resolve_when_the_task_ends_and_are_rejected_at_close() {
    let mut s = state(16, 500);
    add(&mut s, T0, "a");
    add(&mut s, T0, "b");
    let Wait::Later(wa) = s.wait("a").unwrap() else { panic!() };
    let Wait::Later(wb) = s.wait("b").unwrap() else { panic!() };
    let change = s.on_exchange_done(T0 + 500, "a", &Action::Poll, &observed("a", TaskStatus::Completed, T0 + 1), false);
    assert_eq!(change, Change::State);
    assert!(settles(&s.drain_effects()).is_empty(), "settled only once the record is stored");
    s.announce("a");
    assert_eq!(settles(&s.drain_effects()), vec![(wa, Ok("a".into()))]);
    assert_eq!(s.wait("a").unwrap(), Wait::Settled);
    s.close();
    assert_eq!(settles(&s.drain_effects()), vec![(wb, Err(ErrorKind::Closed))]);
    assert_eq!(s.wait("b").unwrap_err().kind, ErrorKind::Closed);
    s.poll_due(T0 + 10_000);
    assert!(s.drain_effects().is_empty(), "a closed client does nothing");
}

#[test]
fn the_poller_takes_new_handles_only_and_the_others_take_every_record() {
    let mut source = state(16, 500);
    add(&mut source, T0, "a");
    let stored = mcp_tasks_web::machine::stored::to_stored(source.record("a").unwrap());

    let mut poller = state(16, 500);
    poller.on_tab_message(T0, TabMessage::Record { id: "a".into(), stored: stored.clone() });
    assert!(poller.record("a").is_none(), "the poller's own copy is the truth");
    poller.on_tab_message(T0, TabMessage::Adopt { id: "a".into(), stored: stored.clone() });
    assert!(poller.record("a").is_some());

    let config = ClientConfig { policy: policy(), retention: 500, auto_poll: true, max_in_flight: 16 };
    let mut follower = ClientState::new(config, Keys::new("ns", "u"), false, false, 1);
    follower.on_tab_message(T0, TabMessage::Record { id: "a".into(), stored });
    assert!(follower.record("a").is_some());
    follower.poll_due(T0 + 10_000);
    assert!(sends(&follower.drain_effects()).is_empty(), "a tab that does not poll sends nothing");
}

#[test]
fn a_retry_after_met_by_one_task_holds_every_task_and_travels_with_its_record() {
    let mut s = state(1, 500);
    add(&mut s, T0, "a");
    add(&mut s, T0, "b");
    let now = T0 + 1_000;
    s.poll_due(now);
    let sent = sends(&s.drain_effects());
    assert_eq!(sent.len(), 1, "one slot: {sent:?}");
    let (id, action, _) = &sent[0];
    let refused = ExchangeOutcome::Failed(Failure::Http { status: 503, retry_after_ms: Some(2_000) });
    assert_eq!(s.on_exchange_done(now, id, action, &refused, true), Change::State, "the failure is stored");
    assert!(sends(&s.drain_effects()).is_empty(), "the other task, due too, waits");
    assert_eq!(s.next_wakeup(now), Some(now + 2_000));
    assert!(s.refuse_while_paused(now + 1_999).is_err_and(|e| e.retryable));
    s.poll_due(now + 1_999);
    assert!(sends(&s.drain_effects()).is_empty());
    s.poll_due(now + 2_000);
    assert_eq!(sends(&s.drain_effects()).len(), 1, "polls again once the pause ended");

    // The refused task's record carries the pause to another tab, and to a step's fresh client.
    let stored = mcp_tasks_web::machine::stored::to_stored(s.record(id).unwrap());
    let config = ClientConfig { policy: policy(), retention: 500, auto_poll: true, max_in_flight: 16 };
    let mut follower = ClientState::new(config, Keys::new("ns", "u"), false, false, 1);
    follower.on_tab_message(now + 10, TabMessage::Record { id: id.clone(), stored: stored.clone() });
    assert_eq!(follower.paused_until(), now + 2_000);
    assert!(follower.refuse_while_paused(now + 1_000).is_err());

    let config = ClientConfig { policy: policy(), retention: 500, auto_poll: false, max_in_flight: 16 };
    let mut step = ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, true, 3);
    let key = step.keys().task(id);
    step.sync_from_store(&[(key.as_str(), stored.to_string().as_str())]);
    assert_eq!(step.step_due(now + 1_000).1, vec![], "a step sends nothing during the pause");
    assert_eq!(step.step_report(now + 1_000, 0, 0).next_wake_at, Some(now + 2_000));
    assert_eq!(step.step_due(now + 2_000).1.len(), 1);
}

#[test]
fn a_forwarded_answer_goes_to_the_poller_only() {
    let mut poller = state(16, 500);
    let message = TabMessage::Respond { req: "r".into(), id: "a".into(), answers: mcp_tasks_web::json::json!({}) };
    assert!(poller.on_tab_message(T0, message.clone()).is_some());
    let config = ClientConfig { policy: policy(), retention: 500, auto_poll: true, max_in_flight: 16 };
    let mut follower = ClientState::new(config, Keys::new("ns", "u"), false, false, 1);
    assert!(follower.on_tab_message(T0, message).is_none());
}

// --- properties --------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    Add,
    Pass,
    /// Answer the n-th outstanding send: 0 working, 1 completed, 2 failure, 3 unknown task.
    Answer(usize, u8),
    Forget(usize),
    TabForget(usize),
    Clear,
    TabClear,
    Wait(usize),
    Retention,
    Advance(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Add),
        3 => Just(Op::Pass),
        6 => (0usize..32, 0u8..4).prop_map(|(n, k)| Op::Answer(n, k)),
        1 => (0usize..32).prop_map(Op::Forget),
        1 => (0usize..32).prop_map(Op::TabForget),
        1 => Just(Op::Clear),
        1 => Just(Op::TabClear),
        2 => (0usize..32).prop_map(Op::Wait),
        1 => Just(Op::Retention),
        2 => (0u64..3_000).prop_map(Op::Advance),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Whatever happens: never more requests than slots, a removed task is in no index and its
    /// waiters are settled, every waiter is settled exactly once by the end, a due task is sent in
    /// the pass that finds it whenever a slot is free, and retention keeps the newest settled.
    #[test]
    fn the_bookkeeping_holds_under_any_sequence(ops in proptest::collection::vec(op(), 1..80), cap in 1usize..6, keep in 0usize..4) {
        let mut s = state(cap, keep);
        let mut now = T0;
        let mut next_id = 0;
        let mut outstanding: Vec<(String, Action, bool)> = Vec::new();
        let mut waiters: std::collections::BTreeMap<String, String> = Default::default();
        let mut settled: std::collections::BTreeMap<String, usize> = Default::default();
        let mut removed: std::collections::BTreeSet<String> = Default::default();
        for op in ops {
            let ids: Vec<String> = s.records().keys().map(|id| id.to_string()).collect();
            let pick = |n: usize| ids.get(n % ids.len().max(1)).cloned();
            match op {
                Op::Add => { add(&mut s, now, &format!("t{next_id:03}")); next_id += 1; }
                Op::Pass => {
                    s.poll_due(now);
                }
                Op::Answer(n, kind) if !outstanding.is_empty() => {
                    let (id, action, slot) = outstanding.remove(n % outstanding.len());
                    let outcome = match kind {
                        0 => observed(&id, TaskStatus::Working, now - 1),
                        1 => observed(&id, TaskStatus::Completed, now),
                        2 => ExchangeOutcome::Failed(Failure::Network),
                        _ => ExchangeOutcome::UnknownTask("gone".into()),
                    };
                    if s.on_exchange_done(now, &id, &action, &outcome, slot) == Change::State {
                        s.announce(&id);
                    }
                }
                Op::Answer(..) => {}
                Op::Forget(n) => if let Some(id) = pick(n) { s.remove(std::slice::from_ref(&id), Removal::Forget); removed.insert(id); },
                Op::TabForget(n) => if let Some(id) = pick(n) { s.on_tab_message(now, TabMessage::Forget { ids: vec![id.clone()] }); removed.insert(id); },
                Op::Clear => { removed.extend(ids.clone()); s.clear(); }
                Op::TabClear => { removed.extend(ids.clone()); s.on_tab_message(now, TabMessage::Clear); }
                Op::Wait(n) => if let Some(id) = pick(n) {
                    if let Ok(Wait::Later(w)) = s.wait(&id) { waiters.insert(w, id); }
                },
                Op::Retention => {
                    let before: Vec<String> = s.records().keys().map(|id| id.to_string()).collect();
                    s.apply_retention(now);
                    let settled_left = s.records().values().filter(|r| r.is_settled()).count();
                    prop_assert!(settled_left <= keep);
                    let dropped: Vec<String> = before.into_iter().filter(|id| s.record(id).is_none()).collect();
                    for id in &dropped { removed.insert(id.clone()); }
                }
                Op::Advance(ms) => now += ms,
            }
            let effects = s.drain_effects();
            let passed = effects.contains(&Effect::Rearm);
            let new_sends = sends(&effects);
            for (waiter, _) in settles(&effects) {
                *settled.entry(waiter).or_default() += 1;
            }
            prop_assert!(new_sends.iter().all(|(_, _, slot)| *slot));
            outstanding.extend(new_sends.clone());
            prop_assert!(s.requests_in_flight() <= cap, "{} in flight, cap {cap}", s.requests_in_flight());
            prop_assert!((1..=cap).contains(&s.request_window()), "window {} outside 1..={cap}", s.request_window());
            prop_assert_eq!(s.requests_in_flight(), outstanding.len());
            for id in &removed {
                if s.record(id).is_none() {
                    prop_assert!(!s.has_version(id));
                    prop_assert!(!s.is_restored(id));
                    prop_assert!(waiters.iter().filter(|(_, t)| *t == id).all(|(w, _)| settled.get(w) == Some(&1)),
                        "a waiter of removed {} was not settled", id);
                }
            }
            // The wake-up queue's answer is the earliest wake-up of any record, as a walk finds it.
            let saturated = s.requests_in_flight() >= s.request_window();
            let earliest = s.records().values().filter_map(|r| r.next_wakeup(&policy())).min();
            prop_assert_eq!(s.next_wakeup(now), earliest.filter(|&at| !(saturated && at <= now)));
            prop_assert!(s.wake_stats().queued <= 4 * s.records().len() + 130, "stale queue entries pile up");
            if passed && s.requests_in_flight() < s.request_window() {
                // A free slot in the window after a pass: nothing due was left behind.
                for (id, record) in s.records().iter() {
                    let due = record.next_wakeup(&policy()).is_some_and(|at| at <= now);
                    prop_assert!(!due || outstanding.iter().any(|(o, _, _)| o.as_str() == &**id),
                        "{} was due at {:?} (now {}) and not sent", id, record.next_wakeup(&policy()), now);
                }
            }
        }
        s.close();
        for (waiter, _) in settles(&s.drain_effects()) {
            *settled.entry(waiter).or_default() += 1;
        }
        for waiter in waiters.keys() {
            prop_assert_eq!(settled.get(waiter), Some(&1), "waiter {} settled once", waiter);
        }
    }
}

fn notices(effects: &[Effect]) -> Vec<String> {
    effects.iter().filter_map(|e| if let Effect::Notify(id) = e { Some(id.clone()) } else { None }).collect()
}

/// Polls `id` once and answers `status`, then announces it as the driver does once it is stored.
fn answer(s: &mut ClientState, now: u64, id: &str, status: TaskStatus) -> Vec<String> {
    let _ = s.on_exchange_done(now, id, &Action::Poll, &observed(id, status, now), false);
    s.announce(id);
    notices(&s.drain_effects())
}

#[test]
fn notify_once_per_new_status_that_asks_for_the_person_and_only_while_hidden() {
    let mut s = state(16, 500);
    s.set_notify(true);
    add(&mut s, T0, "a");
    assert_eq!(answer(&mut s, T0 + 500, "a", TaskStatus::InputRequired), Vec::<String>::new(), "visible: nothing");
    s.set_hidden(true);
    assert_eq!(answer(&mut s, T0 + 600, "a", TaskStatus::InputRequired), Vec::<String>::new(), "seen already");
    assert_eq!(answer(&mut s, T0 + 700, "a", TaskStatus::Working), Vec::<String>::new());
    assert_eq!(answer(&mut s, T0 + 800, "a", TaskStatus::InputRequired), vec!["a".to_string()]);
    assert_eq!(answer(&mut s, T0 + 900, "a", TaskStatus::Completed), vec!["a".to_string()]);
    s.set_notify(false);
    add(&mut s, T0, "b");
    assert_eq!(answer(&mut s, T0 + 1_000, "b", TaskStatus::Completed), Vec::<String>::new(), "turned off");
}

#[test]
fn a_restored_or_shared_status_is_not_news_and_only_the_poller_notifies() {
    let mut source = state(16, 500);
    add(&mut source, T0, "a");
    let _ =
        source.on_exchange_done(T0 + 500, "a", &Action::Poll, &observed("a", TaskStatus::InputRequired, T0 + 1), false);
    let asking = mcp_tasks_web::machine::stored::to_stored(source.record("a").unwrap());

    // A tab that restores the task at input_required (a reload) says nothing of it ...
    let mut reloaded = state(16, 500);
    reloaded.set_notify(true);
    reloaded.set_hidden(true);
    let mut restore = reloaded.begin_restore(true);
    reloaded.restore_entry(&mut restore, &Keys::new("ns", "http://127.0.0.1:1/mcp").task("a"), &asking.to_string());
    reloaded.finish_restore(restore, T0 + 600);
    let _ = reloaded.drain_effects();
    assert_eq!(answer(&mut reloaded, T0 + 700, "a", TaskStatus::InputRequired), Vec::<String>::new());
    // ... and tells its end.
    assert_eq!(answer(&mut reloaded, T0 + 800, "a", TaskStatus::Failed), vec!["a".to_string()]);

    // A tab that does not poll takes the poller's copies and never notifies.
    let config = ClientConfig { policy: policy(), retention: 500, auto_poll: true, max_in_flight: 16 };
    let mut follower = ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, false, 1);
    follower.set_notify(true);
    follower.set_hidden(true);
    follower.on_tab_message(T0, TabMessage::Record { id: "a".into(), stored: asking });
    follower.announce("a");
    assert_eq!(notices(&follower.drain_effects()), Vec::<String>::new());
}
