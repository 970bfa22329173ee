//! Property tests: no sequence of events moves a settled task, schedules a poll sooner than the server
//! asked, or sends an acknowledged answer again — across reloads too.
use std::collections::BTreeSet;

use mcp_tasks_web::json::json;
use mcp_tasks_web::machine::backoff::{Failure, PollPolicy};
use mcp_tasks_web::machine::record::{Action, TaskRecord};
use mcp_tasks_web::machine::stored::{from_stored, to_stored};
use mcp_tasks_web::protocol::input::{ElicitAction, ElicitRequest, InputRequest, InputResponse, InputResponses};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use proptest::prelude::*;

const T0: u64 = 1_785_574_800_000;
const KEYS: [&str; 4] = ["k0", "k1", "k2", "k3"];

#[derive(Debug, Clone)]
enum Event {
    Advance(u64),
    Act,
    PollResult { status: usize, updated: u64, interval: Option<u64>, keys: Vec<usize> },
    Notification { status: usize, updated: u64, interval: Option<u64>, keys: Vec<usize> },
    PollFailure { retry_after: Option<u64> },
    Unknown,
    Answer(Vec<usize>),
    UpdateAck,
    UpdateFailure,
    Cancel,
    CancelAck,
    CancelFailure,
    NetworkRestored,
    Tick,
    Reload,
    Pushed(bool),
}

fn event() -> impl Strategy<Value = Event> {
    let obs = (0usize..5, 0u64..20_000, proptest::option::of(0u64..10_000), proptest::collection::vec(0usize..4, 0..3));
    prop_oneof![
        4 => (0u64..30_000).prop_map(Event::Advance),
        4 => Just(Event::Act),
        3 => obs.clone().prop_map(|(status, updated, interval, keys)| Event::PollResult { status, updated, interval, keys }),
        1 => obs.prop_map(|(status, updated, interval, keys)| Event::Notification { status, updated, interval, keys }),
        2 => proptest::option::of(0u64..120_000).prop_map(|retry_after| Event::PollFailure { retry_after }),
        1 => Just(Event::Unknown),
        2 => proptest::collection::vec(0usize..4, 1..3).prop_map(Event::Answer),
        1 => Just(Event::UpdateAck),
        1 => Just(Event::UpdateFailure),
        1 => Just(Event::Cancel),
        1 => Just(Event::CancelAck),
        1 => Just(Event::CancelFailure),
        1 => Just(Event::NetworkRestored),
        1 => Just(Event::Tick),
        1 => Just(Event::Reload),
        1 => any::<bool>().prop_map(Event::Pushed),
    ]
}

fn observation(status: usize, updated: u64, interval: Option<u64>, keys: &[usize]) -> DetailedTask {
    let status = TaskStatus::ALL[status];
    let detail = match status {
        TaskStatus::InputRequired => StatusDetail::InputRequests(
            keys.iter()
                .chain(std::iter::once(&0))
                .map(|k| {
                    let request = ElicitRequest::Url { message: "sign in".into(), url: "https://example.com".into() };
                    (KEYS[*k].to_string(), InputRequest::Elicitation(request))
                })
                .collect(),
        ),
        TaskStatus::Completed => StatusDetail::Result(CallToolResult::text("done")),
        TaskStatus::Failed => StatusDetail::Error(RpcError::new(-32603, "boom")),
        _ => StatusDetail::None,
    };
    let task = Task {
        task_id: "tsk".into(),
        status,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis((T0 + updated) as i64),
        ttl_ms: Some(300_000),
        poll_interval_ms: interval,
    };
    DetailedTask { task, detail }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn invariants_hold_for_any_event_sequence(events in proptest::collection::vec(event(), 1..80), seed in any::<u64>()) {
        let policy = PollPolicy::default();
        let handle = observation(0, 0, Some(1_000), &[]).task;
        let mut now = T0;
        let mut r = TaskRecord::from_handle(now, "tool", handle, seed, &policy);
        // The floor the server set with its latest accepted advice: last observation + interval.
        let mut floor = now + policy.interval(Some(1_000));
        // The latest observation of a live task: a covered task's backstop counts from it.
        let mut last_seen = now;
        let mut settled_status = None;
        let mut acknowledged: BTreeSet<String> = BTreeSet::new();
        // The answers of the last `SendUpdate` not yet acknowledged, as the runtime keeps them.
        let mut in_flight_update: Option<InputResponses> = None;

        for ev in events {
            let ev_kind = usize::from(matches!(ev, Event::Notification { .. }));
            match ev {
                Event::Advance(dt) => now += dt,
                Event::Act => match r.next_action(now) {
                    Some(Action::SendUpdate(batch)) => {
                        for key in batch.keys() {
                            prop_assert!(!acknowledged.contains(key), "acknowledged key {} sent again", key);
                        }
                        in_flight_update = Some(batch);
                    }
                    Some(Action::Poll) => {
                        prop_assert!(now >= floor, "polled at {} before the floor {}", now, floor);
                        if r.is_pushed() && r.consecutive_failures() == 0 {
                            // Covered: only the backstop after the latest observation, or the end of
                            // the TTL (createdAt T0 + 300 s) when that comes first and was not seen past.
                            let backstop = last_seen + policy.pushed_backstop_ms.max(policy.interval(r.last().task.poll_interval_ms));
                            let ttl_end = T0 + 300_000;
                            let due = if ttl_end > last_seen { backstop.min(ttl_end) } else { backstop };
                            prop_assert!(now >= due, "a pushed task was polled at {} before {}", now, due);
                        }
                    }
                    Some(Action::SendCancel) | None => {}
                },
                Event::PollResult { status, updated, interval, keys } | Event::Notification { status, updated, interval, keys } => {
                    let was_settled = r.is_settled();
                    let before = r.last().task.poll_interval_ms;
                    let seen = observation(status, updated, interval, &keys);
                    let _ = if matches!(ev_kind, 0) { r.on_poll_result(now, seen, &policy) } else { r.on_notification(now, seen, &policy) };
                    if !was_settled {
                        last_seen = now;
                        // Accepted observations move the advice; stale ones keep the one held.
                        let advice = if r.last().task.last_updated_at == format_millis((T0 + updated) as i64) { r.last().task.poll_interval_ms } else { before };
                        floor = now + policy.interval(advice);
                    }
                }
                Event::PollFailure { retry_after } => {
                    let failure = match retry_after {
                        Some(ms) => Failure::Http { status: 429, retry_after_ms: Some(ms) },
                        None => Failure::Network,
                    };
                    let _ = r.on_poll_failure(now, failure, &policy);
                }
                Event::Unknown => { let _ = r.on_task_unknown("gone"); }
                Event::Answer(keys) => {
                    let answers = keys.iter().map(|k| (KEYS[*k].to_string(), InputResponse::action(ElicitAction::Accept))).collect();
                    let _ = r.answer(answers);
                }
                Event::UpdateAck => {
                    // The runtime acknowledges the batch it sent, once.
                    if let Some(batch) = in_flight_update.take() {
                        if r.ledger().is_sending() {
                            acknowledged.extend(batch.keys().cloned());
                        }
                        let _ = r.on_update_ack_of(&batch);
                    }
                }
                Event::UpdateFailure => {
                    in_flight_update = None;
                    let _ = r.on_update_failure(now, Failure::Timeout, &policy);
                }
                Event::Cancel => { let _ = r.request_cancel(); }
                Event::CancelAck => { let _ = r.on_cancel_ack(); }
                Event::CancelFailure => { let _ = r.on_cancel_failure(now, Failure::Network, &policy); }
                Event::NetworkRestored => { let _ = r.on_network_restored(now, &policy); }
                Event::Tick => { let _ = r.tick(now, &policy); }
                Event::Pushed(on) => r.set_pushed(now, on, &policy),
                Event::Reload => {
                    r = from_stored(&to_stored(&r)).expect("a stored record reloads");
                    in_flight_update = None;
                }
            }
            if let Some(status) = settled_status {
                prop_assert_eq!(r.status(), status, "a settled task changed status");
                prop_assert!(r.next_wakeup(&policy).is_none());
            } else if r.is_settled() {
                settled_status = Some(r.status());
            }
            if let Some(next) = r.next_poll_at() {
                prop_assert!(next >= floor, "next poll {} before the server's floor {}", next, floor);
            }
            for key in &acknowledged {
                prop_assert!(!r.unanswered_requests().contains_key(key), "acknowledged key {} shown again", key);
            }
        }
    }
}

#[test]
fn json_round_trip_of_a_busy_record_is_lossless() {
    let policy = PollPolicy::default();
    let mut r = TaskRecord::from_handle(T0, "tool", observation(0, 0, Some(1_000), &[]).task, 9, &policy);
    let _ = r.next_action(T0 + 1_000);
    let _ = r.on_poll_result(T0 + 1_000, observation(1, 10, Some(2_000), &[1, 2]), &policy);
    let _ = r.answer(
        [("k1".to_string(), InputResponse::accept(json!({"a": 1}).as_object().cloned().unwrap_or_default()))]
            .into_iter()
            .collect(),
    );
    let _ = r.on_poll_failure(T0 + 3_000, Failure::Http { status: 503, retry_after_ms: None }, &policy);
    let back: TaskRecord = from_stored(&to_stored(&r)).expect("reloads");
    assert_eq!(to_stored(&back), to_stored(&r));
}
