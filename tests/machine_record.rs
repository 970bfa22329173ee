//! The task state machine driven with a fake clock: every status path, backoff, Retry-After, interval
//! changes, TTL expiry, the input ledger across a reload, and cancel-then-completed.
use mcp_tasks_web::json::json;
use mcp_tasks_web::machine::backoff::{Failure, PollPolicy};
use mcp_tasks_web::machine::ledger::{KeyState, LedgerError};
use mcp_tasks_web::machine::record::{Action, CancelIntent, Change, LocalEnd, LocalStatus, RecordError, TaskRecord};
use mcp_tasks_web::machine::stored::{from_stored, to_stored, StoredForm, StoredRecordError};
use mcp_tasks_web::protocol::input::{
    ElicitAction, ElicitRequest, InputRequest, InputRequests, InputResponse, InputResponses,
};
use mcp_tasks_web::protocol::jsonrpc::RpcError;
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::task_protocol::TaskProtocol;
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

/// Server clock origin: 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;

fn policy() -> PollPolicy {
    PollPolicy {
        min_interval_ms: 250,
        default_interval_ms: 1_000,
        backoff_base_ms: 1_000,
        max_backoff_ms: 8_000,
        expiry_grace_ms: 60_000,
        pushed_backstop_ms: 60_000,
    }
}

fn task(status: TaskStatus, updated: u64, interval: Option<u64>) -> Task {
    Task {
        task_id: "tsk-1".into(),
        status,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(updated as i64),
        ttl_ms: Some(600_000),
        poll_interval_ms: interval,
    }
}

fn seen(status: TaskStatus, updated: u64, detail: StatusDetail) -> DetailedTask {
    DetailedTask { task: task(status, updated, Some(500)), detail }
}

fn form(keys: &[&str]) -> StatusDetail {
    let requests: InputRequests = keys
        .iter()
        .map(|k| {
            let schema = json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } } });
            (
                k.to_string(),
                InputRequest::Elicitation(ElicitRequest::Form { message: "Approve?".into(), requested_schema: schema }),
            )
        })
        .collect();
    StatusDetail::InputRequests(requests)
}

fn accept(keys: &[&str]) -> InputResponses {
    keys.iter()
        .map(|k| {
            (k.to_string(), InputResponse::accept(json!({ "confirm": true }).as_object().cloned().unwrap_or_default()))
        })
        .collect()
}

fn new_record(now: u64) -> TaskRecord {
    TaskRecord::from_handle(now, "deploy", task(TaskStatus::Working, T0, Some(500)), 7, &policy())
}

#[test]
fn working_then_completed() {
    let p = policy();
    let mut r = new_record(T0);
    assert_eq!(r.status(), LocalStatus::Working);
    assert_eq!(r.next_poll_at(), Some(T0 + 500));
    assert_eq!(r.next_action(T0 + 499), None, "never sooner than the server asked");
    assert_eq!(r.next_action(T0 + 500), Some(Action::Poll));
    assert_eq!(r.next_action(T0 + 500), None, "one poll in flight at a time");
    let mut working = seen(TaskStatus::Working, T0 + 400, StatusDetail::None);
    working.task.status_message = Some("step 1/3".into());
    assert_eq!(r.on_poll_result(T0 + 520, working.clone(), &p), Ok(Change::State));
    assert_eq!(r.next_poll_at(), Some(T0 + 1_020));
    assert_eq!(r.next_action(T0 + 1_020), Some(Action::Poll));
    assert_eq!(r.on_poll_result(T0 + 1_030, working, &p), Ok(Change::Timing), "an unchanged poll needs no write");
    assert_eq!(r.next_action(T0 + 1_530), Some(Action::Poll));
    let done = seen(TaskStatus::Completed, T0 + 1_500, StatusDetail::Result(CallToolResult::text("built")));
    assert_eq!(r.on_poll_result(T0 + 1_540, done, &p), Ok(Change::State));
    assert_eq!(r.status(), LocalStatus::Completed);
    assert!(r.is_settled());
    assert_eq!(r.next_action(T0 + 100_000), None);
    assert_eq!(r.next_wakeup(&p), None);
}

#[test]
fn failed_and_cancelled_are_terminal_with_their_details() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let failed = seen(TaskStatus::Failed, T0 + 10, StatusDetail::Error(RpcError::new(-32603, "worker crashed")));
    assert_eq!(r.on_poll_result(T0 + 500, failed, &p), Ok(Change::State));
    assert_eq!(r.status(), LocalStatus::Failed);
    assert!(matches!(&r.last().detail, StatusDetail::Error(e) if e.code == -32603));

    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    assert_eq!(
        r.on_poll_result(T0 + 500, seen(TaskStatus::Cancelled, T0 + 10, StatusDetail::None), &p),
        Ok(Change::State)
    );
    assert_eq!(r.status(), LocalStatus::Cancelled);
    assert!(r.is_settled());
}

#[test]
fn a_terminal_handle_is_polled_at_once_for_its_result() {
    let p = policy();
    let mut r = TaskRecord::from_handle(T0, "echo", task(TaskStatus::Completed, T0, Some(5_000)), 1, &p);
    assert!(!r.is_settled(), "the outcome is not known until tasks/get returns the result");
    assert_eq!(r.next_action(T0), Some(Action::Poll));
    let done = seen(TaskStatus::Completed, T0, StatusDetail::Result(CallToolResult::text("ok")));
    assert_eq!(r.on_poll_result(T0 + 5, done, &p), Ok(Change::State));
    assert!(r.is_settled());
}

#[test]
fn input_required_answers_are_sent_once_and_not_shown_again() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    assert_eq!(
        r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 100, form(&["approval-1"])), &p),
        Ok(Change::State)
    );
    assert_eq!(r.status(), LocalStatus::InputRequired);
    assert_eq!(r.unanswered_requests().keys().collect::<Vec<_>>(), ["approval-1"]);

    assert_eq!(
        r.answer(accept(&["never-asked"])),
        Err(RecordError::Input(LedgerError::NotOutstanding("never-asked".into())))
    );
    assert_eq!(r.answer(accept(&["approval-1"])), Ok(Change::State));
    assert_eq!(
        r.answer(accept(&["approval-1"])),
        Err(RecordError::Input(LedgerError::AlreadyAnswered("approval-1".into())))
    );
    assert!(r.unanswered_requests().is_empty(), "a queued answer is not asked again");
    // Answers go out at once, before the next poll is due.
    assert_eq!(r.next_action(T0 + 600), Some(Action::SendUpdate(accept(&["approval-1"]))));
    assert_eq!(r.next_action(T0 + 600), None, "the update is in flight");
    assert_eq!(r.on_update_ack_of(&accept(&["approval-1"])), Change::State);
    assert_eq!(r.ledger().state("approval-1"), Some(&KeyState::Acknowledged));

    // The ack is eventually consistent: the next poll may still list the key. It is not shown again.
    let _ = r.next_action(T0 + 1_000);
    let lagging = seen(TaskStatus::InputRequired, T0 + 100, form(&["approval-1"]));
    let _ = r.on_poll_result(T0 + 1_000, lagging, &p);
    assert!(r.unanswered_requests().is_empty());

    // A second round with a new key; partial answers are allowed.
    let _ = r.next_action(T0 + 1_500);
    let _ = r.on_poll_result(
        T0 + 1_500,
        seen(TaskStatus::InputRequired, T0 + 1_400, form(&["approval-1", "strategy-2", "notes-3"])),
        &p,
    );
    assert_eq!(r.unanswered_requests().keys().collect::<Vec<_>>(), ["notes-3", "strategy-2"]);
    assert_eq!(r.answer(accept(&["strategy-2"])), Ok(Change::State));
    assert_eq!(r.unanswered_requests().keys().collect::<Vec<_>>(), ["notes-3"]);
}

#[test]
fn a_request_the_server_drops_is_withdrawn() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 10, form(&["a"])), &p);
    let _ = r.next_action(T0 + 1_000);
    let _ = r.on_poll_result(T0 + 1_000, seen(TaskStatus::Working, T0 + 20, StatusDetail::None), &p);
    assert_eq!(r.ledger().state("a"), Some(&KeyState::Withdrawn));
    assert_eq!(r.answer(accept(&["a"])), Err(RecordError::Input(LedgerError::NotOutstanding("a".into()))));
}

#[test]
fn failed_updates_stay_queued_and_are_resent_after_backoff() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 10, form(&["k"])), &p);
    let _ = r.answer(accept(&["k"]));
    assert!(matches!(r.next_action(T0 + 501), Some(Action::SendUpdate(_))));
    let _ = r.on_update_failure(T0 + 502, Failure::Network, &p);
    assert!(matches!(r.ledger().state("k"), Some(KeyState::Queued { .. })));
    assert_eq!(r.next_action(T0 + 1_000), Some(Action::Poll), "the answer backs off; the regular poll goes on");
    let retry = r.next_action(T0 + 502 + 1_000);
    assert!(
        matches!(&retry, Some(Action::SendUpdate(a)) if a.contains_key("k")),
        "resent after the backoff: {retry:?}"
    );
}

#[test]
fn backoff_grows_with_jitter_up_to_the_cap_and_resets_on_success() {
    let p = policy();
    let mut r = new_record(T0);
    let mut now = T0 + 500;
    let mut delays = Vec::new();
    for _ in 0..8 {
        assert_eq!(r.next_action(now), Some(Action::Poll));
        let _ = r.on_poll_failure(now, Failure::Http { status: 503, retry_after_ms: None }, &p);
        let next = r.next_poll_at().expect("scheduled");
        delays.push(next - now);
        now = next;
    }
    // Step n is base * 2^(n-1) capped at 8 s; the jittered delay lies in [step/2, step].
    for (i, d) in delays.iter().enumerate() {
        let step = (1_000u64 << i.min(3)).min(8_000);
        assert!(*d >= (step / 2).max(500) && *d <= step, "delay {i} = {d} outside [{}, {step}]", step / 2);
    }
    assert!(delays[3..].iter().all(|d| *d <= 8_000), "capped: {delays:?}");
    assert!(delays[3] > delays[0], "grows: {delays:?}");
    assert_eq!(r.consecutive_failures(), 8);
    assert!(r.last_failure().is_some());
    assert_eq!(r.next_action(now), Some(Action::Poll));
    let _ = r.on_poll_result(now, seen(TaskStatus::Working, T0 + 1, StatusDetail::None), &p);
    assert_eq!(r.consecutive_failures(), 0);
    assert!(r.last_failure().is_none());
    assert_eq!(r.next_poll_at(), Some(now + 500));
}

#[test]
fn retry_after_is_honoured_even_past_the_cap() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_failure(T0 + 500, Failure::Http { status: 429, retry_after_ms: Some(30_000) }, &p);
    assert_eq!(r.next_poll_at(), Some(T0 + 30_500));
}

#[test]
fn a_repeated_failure_is_stored_again_only_when_it_asked_for_a_delay() {
    let p = policy();
    let mut r = new_record(T0);
    let busy = || Failure::Http { status: 503, retry_after_ms: Some(1_000) };
    let _ = r.next_action(T0 + 500);
    assert_eq!(r.on_poll_failure(T0 + 500, busy(), &p), Change::State);
    let _ = r.next_action(T0 + 1_500);
    assert_eq!(r.on_poll_failure(T0 + 1_500, busy(), &p), Change::State, "the new delay's start is shared");
    let down = || Failure::Http { status: 502, retry_after_ms: None };
    let _ = r.next_action(T0 + 2_500);
    assert_eq!(r.on_poll_failure(T0 + 2_500, down(), &p), Change::State);
    let _ = r.next_action(T0 + 9_000);
    assert_eq!(r.on_poll_failure(T0 + 9_000, down(), &p), Change::Timing, "the same failure again is no news");
}

#[test]
fn the_latest_poll_interval_is_followed_and_the_host_minimum_kept() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let mut slow = seen(TaskStatus::Working, T0 + 1, StatusDetail::None);
    slow.task.poll_interval_ms = Some(5_000);
    let _ = r.on_poll_result(T0 + 500, slow, &p);
    assert_eq!(r.next_poll_at(), Some(T0 + 5_500));
    let _ = r.next_action(T0 + 5_500);
    let mut fast = seen(TaskStatus::Working, T0 + 2, StatusDetail::None);
    fast.task.poll_interval_ms = Some(10);
    let _ = r.on_poll_result(T0 + 5_500, fast, &p);
    assert_eq!(r.next_poll_at(), Some(T0 + 5_750), "host minimum of 250 ms");
    let _ = r.next_action(T0 + 5_750);
    let mut none = seen(TaskStatus::Working, T0 + 3, StatusDetail::None);
    none.task.poll_interval_ms = None;
    let _ = r.on_poll_result(T0 + 5_750, none, &p);
    assert_eq!(r.next_poll_at(), Some(T0 + 6_750), "default interval when the server gives none");
}

#[test]
fn ttl_expiry_ends_a_live_task_after_the_grace() {
    let p = policy();
    let mut r = new_record(T0);
    let deadline = T0 + 600_000 + 60_000;
    assert_eq!(r.expires_at(&p), Some(deadline));
    assert!(r.next_wakeup(&p).is_some_and(|w| w <= deadline));
    assert_eq!(r.tick(deadline - 1, &p), Change::Nothing);
    assert_eq!(r.tick(deadline, &p), Change::State);
    assert_eq!(r.status(), LocalStatus::Expired);
    assert_eq!(r.local_end(), Some(&LocalEnd::TtlElapsed));
    assert_eq!(r.next_action(deadline), None);

    let mut unlimited = task(TaskStatus::Working, T0, Some(500));
    unlimited.ttl_ms = None;
    let mut r = TaskRecord::from_handle(T0, "long_job", unlimited, 3, &p);
    assert_eq!(r.expires_at(&p), None);
    assert_eq!(r.tick(u64::MAX / 2, &p), Change::Nothing, "a null ttlMs never expires on the client");
}

#[test]
fn unknown_task_error_is_a_distinct_end() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    assert_eq!(r.on_task_unknown("Task not found"), Change::State);
    assert_eq!(r.status(), LocalStatus::Expired);
    assert_eq!(r.local_end(), Some(&LocalEnd::UnknownToServer { message: "Task not found".into() }));
    assert_eq!(r.next_wakeup(&p), None);
    assert_eq!(r.answer(accept(&["x"])), Err(RecordError::TaskEnded(LocalStatus::Expired)));
}

#[test]
fn cancel_is_a_request_and_completed_may_still_follow() {
    let p = policy();
    let mut r = new_record(T0);
    assert_eq!(r.request_cancel(), Ok(Change::State));
    assert_eq!(r.request_cancel(), Ok(Change::Nothing), "idempotent");
    assert_eq!(r.next_action(T0 + 1), Some(Action::SendCancel), "cancel goes out at once");
    assert_eq!(r.on_cancel_ack(), Change::State);
    assert_eq!(r.cancel_intent(), CancelIntent::Acknowledged);
    assert_eq!(r.status(), LocalStatus::Working, "an ack is not a cancellation");
    assert_eq!(r.next_action(T0 + 500), Some(Action::Poll), "polling goes on after the ack");
    let done = seen(TaskStatus::Completed, T0 + 400, StatusDetail::Result(CallToolResult::text("finished anyway")));
    assert_eq!(r.on_poll_result(T0 + 500, done, &p), Ok(Change::State));
    assert_eq!(r.status(), LocalStatus::Completed);
    assert_eq!(r.request_cancel(), Err(RecordError::TaskEnded(LocalStatus::Completed)));
}

#[test]
fn a_failed_cancel_is_retried() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.request_cancel();
    assert_eq!(r.next_action(T0), Some(Action::SendCancel));
    let _ = r.on_cancel_failure(T0 + 1, Failure::Timeout, &p);
    assert_ne!(r.next_action(T0 + 2), Some(Action::SendCancel), "backs off first");
    let _ = r.on_network_restored(T0 + 3, &p);
    assert_eq!(r.next_action(T0 + 3), Some(Action::SendCancel), "retried at once when the network is back");
}

#[test]
fn terminal_states_are_immutable_and_stale_observations_ignored() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::Working, T0 + 300, StatusDetail::None), &p);
    let _ = r.next_action(T0 + 1_000);
    let older = seen(TaskStatus::InputRequired, T0 + 200, form(&["late"]));
    assert_eq!(r.on_poll_result(T0 + 1_000, older, &p), Ok(Change::Timing), "older lastUpdatedAt is ignored");
    assert_eq!(r.status(), LocalStatus::Working);
    let done = seen(TaskStatus::Completed, T0 + 900, StatusDetail::Result(CallToolResult::text("ok")));
    let _ = r.on_notification(T0 + 1_100, done, &p);
    let resurrect = seen(TaskStatus::Working, T0 + 5_000, StatusDetail::None);
    assert_eq!(r.on_notification(T0 + 1_200, resurrect, &p), Ok(Change::Nothing));
    assert_eq!(r.status(), LocalStatus::Completed);
}

#[test]
fn an_end_is_taken_even_when_its_timestamp_is_older_than_the_handle() {
    // Seen in CI: a server stamped its handle one millisecond after the task's own createdAt, so
    // every `tasks/get` looked older than the handle and the finished task was polled for ever.
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::Working, T0 + 300, StatusDetail::None), &p);
    let _ = r.next_action(T0 + 1_000);
    let done = seen(TaskStatus::Completed, T0 + 299, StatusDetail::Result(CallToolResult::text("ok")));
    assert_eq!(r.on_poll_result(T0 + 1_000, done, &p), Ok(Change::State));
    assert_eq!(r.status(), LocalStatus::Completed);
    assert_eq!(r.next_action(T0 + 60_000), None, "nothing more to poll");
}

#[test]
fn an_observation_for_another_task_is_refused() {
    let p = policy();
    let mut r = new_record(T0);
    let mut other = seen(TaskStatus::Completed, T0, StatusDetail::Result(CallToolResult::text("not yours")));
    other.task.task_id = "tsk-2".into();
    assert!(matches!(r.on_notification(T0, other, &p), Err(RecordError::WrongTask { .. })));
    assert_eq!(r.status(), LocalStatus::Working);
}

#[test]
fn network_restored_skips_backoff_but_not_the_server_interval() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::Working, T0 + 1, StatusDetail::None), &p);
    let _ = r.next_action(T0 + 1_000);
    let _ = r.on_poll_failure(T0 + 1_000, Failure::Network, &p);
    let _ = r.next_action(T0 + 3_000);
    let _ = r.on_poll_failure(T0 + 3_000, Failure::Network, &p);
    assert!(r.next_poll_at().is_some_and(|t| t > T0 + 4_000));
    assert_eq!(r.on_network_restored(T0 + 4_000, &p), Change::Timing);
    assert_eq!(r.next_poll_at(), Some(T0 + 4_000));
}

#[test]
fn the_input_ledger_and_outbox_survive_a_reload() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 10, form(&["a", "b"])), &p);
    let _ = r.answer(accept(&["a"]));
    assert_eq!(r.next_action(T0 + 501), Some(Action::SendUpdate(accept(&["a"]))));
    let _ = r.on_update_ack_of(&accept(&["a"]));
    let _ = r.answer([("b".to_string(), InputResponse::action(ElicitAction::Decline))].into_iter().collect());
    // The page dies here: the answer to "b" is queued (persisted) but not sent.
    let stored = to_stored(&r);
    assert_eq!(stored["v"], 1);
    let mut restored: TaskRecord = from_stored(&stored).expect("loads");
    assert_eq!(restored.ledger().state("a"), Some(&KeyState::Acknowledged));
    let declined: InputResponses =
        [("b".to_string(), InputResponse::action(ElicitAction::Decline))].into_iter().collect();
    assert_eq!(restored.next_action(T0 + 10_000), Some(Action::SendUpdate(declined.clone())));
    let _ = restored.on_update_ack_of(&declined);
    assert!(restored.unanswered_requests().is_empty());
    assert_eq!(restored.answer(accept(&["a"])), Err(RecordError::Input(LedgerError::AlreadyAnswered("a".into()))));
}

#[test]
fn stored_records_from_format_1_still_load() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/task-record-v1.json");
    let text = std::fs::read_to_string(path).expect("fixture");
    let value: mcp_tasks_web::json::Value = mcp_tasks_web::json::from_str(&text).expect("JSON");
    let mut r: TaskRecord = from_stored(&value).expect("a format-1 record loads");
    assert_eq!(r.task_id(), "tsk_7Qm2vX9cLr4wN8bT1pKz6A");
    assert_eq!(r.tool_name(), "deploy");
    assert_eq!(r.status(), LocalStatus::InputRequired);
    assert_eq!(r.cancel_intent(), CancelIntent::Requested);
    assert!(matches!(r.ledger().state("approval-1"), Some(KeyState::Queued { .. })));
    assert_eq!(r.next_action(u64::MAX / 4), Some(Action::SendCancel));
    assert_eq!(to_stored(&r)["v"], 1);
}

#[test]
fn stored_records_refuse_other_versions_and_garbage() {
    let r = new_record(T0);
    let mut stored = to_stored(&r);
    stored["v"] = json!(2);
    assert_eq!(from_stored::<TaskRecord>(&stored), Err(StoredRecordError::NewerVersion(2)));
    assert_eq!(from_stored::<TaskRecord>(&json!({"taskId": "x"})), Err(StoredRecordError::NotARecord));
    let mut broken = to_stored(&r);
    broken["last"] = json!({ "status": "nope" });
    assert!(matches!(from_stored::<TaskRecord>(&broken), Err(StoredRecordError::Corrupt(_))));
}

#[test]
fn a_pending_call_is_stored_and_reloaded_whole() {
    use mcp_tasks_web::machine::pending::PendingCall;
    let call = PendingCall {
        call_id: "call-1".into(),
        tool_name: "build".into(),
        arguments: json!({ "target": "web", "seconds": 5 }).as_object().cloned(),
        started_at: T0,
    };
    let stored = to_stored(&call);
    assert_eq!(stored["v"], 1);
    assert_eq!(stored["toolName"], "build");
    assert_eq!(from_stored::<PendingCall>(&stored), Ok(call));
    assert!(from_stored::<PendingCall>(&json!({ "v": 1, "callId": 3 })).is_err());
}

#[test]
fn a_task_covered_by_a_listen_stream_is_not_polled_until_coverage_ends() {
    let p = policy();
    let mut r = new_record(T0);
    r.set_pushed(T0, true, &p);
    assert!(r.is_pushed());
    assert_eq!(r.next_action(T0 + 10_000), None, "pushed tasks are not polled");
    let pushed = seen(TaskStatus::Working, T0 + 5_000, StatusDetail::None);
    assert_eq!(r.on_notification(T0 + 5_000, pushed, &p), Ok(Change::State), "the first full observation");
    // The stream drops: the next poll comes at once (catch up), but not before the server's interval.
    r.set_pushed(T0 + 5_100, false, &p);
    assert_eq!(r.next_poll_at(), Some(T0 + 5_500));
    assert_eq!(r.next_action(T0 + 5_500), Some(Action::Poll));
}

#[test]
fn failures_serialise_in_camel_case_and_the_first_spelling_still_loads() {
    let failure = Failure::Http { status: 429, retry_after_ms: Some(1_000) };
    assert_eq!(failure.to_json(), json!({ "kind": "http", "status": 429, "retryAfterMs": 1000 }));
    let old = Failure::from_json(&json!({ "kind": "http", "status": 429, "retry_after_ms": 1000 })).expect("loads");
    assert_eq!(old, failure);
}

/// Two step-mode isolates read the same stored record with a queued answer: the one whose leased copy
/// reaches the store first sends; the other, reading the leased record back, offers no send until the
/// lease runs out (its holder died) — so the answer goes out once, and still goes out.
#[test]
fn a_send_lease_read_from_the_store_holds_off_other_senders_until_it_runs_out() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 100, form(&["approval-1"])), &p);
    assert_eq!(r.answer(accept(&["approval-1"])), Ok(Change::State));
    let stored = to_stored(&r);

    // Isolate A takes the action, leases the sends and writes that record.
    let mut a: TaskRecord = from_stored(&stored).unwrap();
    assert_eq!(a.next_action(T0 + 600), Some(Action::SendUpdate(accept(&["approval-1"]))));
    a.take_send_lease(T0 + 30_600);
    let leased = to_stored(&a);

    // Isolate B reads A's leased record: no send while the lease runs, and it wakes when it ends.
    let mut b: TaskRecord = from_stored(&leased).unwrap();
    assert_eq!(b.send_lease_until(), Some(T0 + 30_600));
    while let Some(action) = b.next_action(T0 + 700) {
        assert_eq!(action, Action::Poll, "only a poll, never the leased answer");
    }
    assert!(b.next_wakeup(&p).is_some_and(|t| t <= T0 + 30_600));
    // A died mid-send: once the lease has run out the answer is offered again (at least once).
    let mut c: TaskRecord = from_stored(&leased).unwrap();
    assert_eq!(c.next_action(T0 + 30_600), Some(Action::SendUpdate(accept(&["approval-1"]))));

    // A's ack clears the lease; the stored record then has no lease and nothing to send.
    assert_eq!(a.on_update_ack_of(&accept(&["approval-1"])), Change::State);
    let done: TaskRecord = from_stored(&to_stored(&a)).unwrap();
    assert_eq!(done.send_lease_until(), None);
    assert!(!to_stored(&a).to_string().contains("sendLeaseUntil"), "no lease field once released");
}

/// A step that could not store its lease sends nothing; what next_action handed out is put back, so
/// the answer and the poll are due at once again (not at the task's expiry).
#[test]
fn abandoned_actions_are_due_again_at_once() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 100, form(&["approval-1"])), &p);
    assert_eq!(r.answer(accept(&["approval-1"])), Ok(Change::State));
    assert_eq!(r.next_action(T0 + 1_000), Some(Action::SendUpdate(accept(&["approval-1"]))));
    assert_eq!(r.next_action(T0 + 1_000), Some(Action::Poll));
    r.take_send_lease(T0 + 31_000);
    r.abandon_actions();
    assert_eq!(r.send_lease_until(), None);
    assert!(r.next_wakeup(&p).is_some_and(|t| t <= T0 + 1_000), "due now, not at expiry");
    assert_eq!(r.next_action(T0 + 1_000), Some(Action::SendUpdate(accept(&["approval-1"]))));
    assert_eq!(r.next_action(T0 + 1_000), Some(Action::Poll));
}

/// A page reloaded between sending an answer and storing the ack: the new page polls first and sends
/// only what the server still asks for, so a delivered answer is not sent twice.
#[test]
fn a_restored_outbox_is_checked_against_a_poll_before_sending() {
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ = r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 100, form(&["a-1", "b-2"])), &p);
    assert_eq!(r.answer(accept(&["a-1", "b-2"])), Ok(Change::State));
    // The old page sent the update; the new page reads the record with the answers still queued.
    let mut restored: TaskRecord = from_stored(&to_stored(&r)).unwrap();
    restored.recheck_outbox_first();
    assert_eq!(restored.next_action(T0 + 600), None, "no send before the poll (which keeps the server's floor)");
    assert_eq!(restored.next_action(T0 + 1_000), Some(Action::Poll), "the poll comes first");
    assert_eq!(restored.next_action(T0 + 1_000), None);
    // The server got a-1 but (say) not b-2 yet: it still asks b-2 only.
    let _ = restored.on_poll_result(T0 + 1_100, seen(TaskStatus::InputRequired, T0 + 650, form(&["b-2"])), &p);
    assert_eq!(restored.ledger().state("a-1"), Some(&KeyState::Acknowledged));
    assert_eq!(
        restored.next_action(T0 + 1_100),
        Some(Action::SendUpdate(accept(&["b-2"]))),
        "only what is still asked"
    );
}

/// Records as the serde-derived code of format 1 wrote them (captured from that release with the same
/// steps as below) load, and are written back byte for byte: the hand-written stored form is the same
/// format, so stores written before it keep working and older releases can read what it writes.
#[test]
fn the_stored_form_is_byte_for_byte_the_format_1_that_serde_wrote() {
    let golden = [
        r#"{"taskId":"tsk-1","toolName":"deploy","receivedAt":1785574800000,"last":{"taskId":"tsk-1","status":"input_required","createdAt":"2026-08-01T09:00:00.000Z","lastUpdatedAt":"2026-08-01T09:00:00.100Z","ttlMs":600000,"pollIntervalMs":500,"inputRequests":{"approval-1":{"method":"elicitation/create","params":{"mode":"form","message":"Approve?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}},"approval-2":{"method":"elicitation/create","params":{"mode":"form","message":"Approve?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}}}},"detailsKnown":true,"end":null,"ledger":{"keys":{"approval-1":{"state":"queued","response":{"action":"accept","content":{"confirm":true}}},"approval-2":{"state":"outstanding"}}},"cancel":"requested","poll":{"failures":1,"notBefore":1785574802900},"outboxRetry":{"failures":0,"notBefore":0},"cancelRetry":{"failures":0,"notBefore":0},"observedAt":1785574800500,"lastFailure":{"at":1785574800900,"failure":{"kind":"http","status":503,"retryAfterMs":2000}},"jitter":11400714819323198492,"sendLeaseUntil":1785574830000,"v":1}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","receivedAt":1785574800000,"last":{"taskId":"tsk-1","status":"working","createdAt":"2026-08-01T09:00:00.000Z","lastUpdatedAt":"2026-08-01T09:00:00.000Z","ttlMs":600000,"pollIntervalMs":500},"detailsKnown":false,"end":{"reason":"unknownToServer","message":"gone \"quoted\" é"},"ledger":{"keys":{}},"cancel":"none","poll":{"failures":1,"notBefore":1785574801679},"outboxRetry":{"failures":0,"notBefore":0},"cancelRetry":{"failures":0,"notBefore":0},"observedAt":1785574800000,"lastFailure":{"at":1785574800900,"failure":{"kind":"rpc","code":-32603}},"jitter":11400714819323198492,"v":1}"#,
        r#"{"taskId":"tsk-1","toolName":"deploy","receivedAt":1785574800000,"last":{"taskId":"tsk-1","status":"working","createdAt":"2026-08-01T09:00:00.000Z","lastUpdatedAt":"2026-08-01T09:00:00.000Z","ttlMs":600000,"pollIntervalMs":500},"detailsKnown":false,"end":{"reason":"ttlElapsed"},"ledger":{"keys":{}},"cancel":"none","poll":{"failures":2,"notBefore":1785574803351},"outboxRetry":{"failures":0,"notBefore":0},"cancelRetry":{"failures":0,"notBefore":0},"observedAt":1785574800000,"lastFailure":{"at":1785574801900,"failure":{"kind":"badResponse"}},"jitter":4354685564936845361,"v":1}"#,
    ];
    let p = policy();
    let mut r = new_record(T0);
    let _ = r.next_action(T0 + 500);
    let _ =
        r.on_poll_result(T0 + 500, seen(TaskStatus::InputRequired, T0 + 100, form(&["approval-1", "approval-2"])), &p);
    assert_eq!(r.answer(accept(&["approval-1"])), Ok(Change::State));
    let _ = r.on_poll_failure(T0 + 900, Failure::Http { status: 503, retry_after_ms: Some(2_000) }, &p);
    let _ = r.request_cancel();
    r.take_send_lease(T0 + 30_000);
    let mut e = new_record(T0);
    let _ = e.on_poll_failure(T0 + 900, Failure::Rpc { code: -32603 }, &p);
    let _ = e.on_task_unknown("gone \"quoted\" é");
    let mut f = new_record(T0);
    let _ = f.on_poll_failure(T0 + 900, Failure::Network, &p);
    let _ = f.on_poll_failure(T0 + 1900, Failure::BadResponse, &p);
    let _ = f.tick(T0 + 10_000_000, &p);
    for (record, text) in [r, e, f].iter().zip(golden) {
        assert_eq!(to_stored(record).to_string(), text);
        let value = mcp_tasks_web::json::from_str(text).expect("JSON");
        let loaded: TaskRecord = from_stored(&value).expect("loads");
        assert_eq!(to_stored(&loaded).to_string(), text, "written back unchanged");
    }

    use mcp_tasks_web::machine::pending::PendingCall;
    for text in [
        r#"{"callId":"c","toolName":"build","arguments":null,"startedAt":1785574800000,"v":1}"#,
        r#"{"callId":"c","toolName":"build","arguments":{"a":[1,2.5,"x"]},"startedAt":1785574800000,"v":1}"#,
    ] {
        let call: PendingCall = from_stored(&mcp_tasks_web::json::from_str(text).expect("JSON")).expect("loads");
        assert_eq!(to_stored(&call).to_string(), text);
    }
}

/// A 2025-11-25 task's record says so in the store and reads back as one; a record without the field
/// (every record written before both generations were driven) is a 2026-07-28 one, and is still
/// written without it.
#[test]
fn a_record_names_its_task_protocol_and_old_records_load_as_the_extension() {
    let legacy = new_record(T0).with_protocol(TaskProtocol::Legacy);
    let stored = to_stored(&legacy);
    assert_eq!(stored["protocol"], "2025-11-25");
    let back: TaskRecord = from_stored(&stored).expect("reloads");
    assert_eq!(back.protocol(), TaskProtocol::Legacy);

    let current = new_record(T0);
    let stored = to_stored(&current);
    assert!(stored.get("protocol").is_none(), "a 2026-07-28 record is written as before: {stored}");
    let back: TaskRecord = from_stored(&stored).expect("reloads");
    assert_eq!(back.protocol(), TaskProtocol::Extension);

    let mut unknown = to_stored(&legacy);
    unknown["protocol"] = json!("2030-01-01");
    assert!(from_stored::<TaskRecord>(&unknown).is_err(), "an unknown protocol is an error, not a guess");
}

/// A 2025-11-25 task's progress token outlives a reload (its progress notifications name it for the
/// task's whole life); the progress itself is not stored, and an ended task shows none.
#[test]
fn the_progress_token_is_stored_and_the_progress_is_not() {
    let mut r = new_record(T0).with_protocol(TaskProtocol::Legacy);
    r.set_progress_token("call-00ff".into());
    let number = |text: &str| text.parse::<mcp_tasks_web::json::Number>().unwrap();
    assert!(r.on_progress(number("1"), Some(number("4"))));
    let stored = to_stored(&r);
    assert_eq!(stored["progressToken"], "call-00ff");
    assert!(stored.get("progress").is_none(), "progress is not written: {stored}");
    let back: TaskRecord = from_stored(&stored).expect("reloads");
    assert_eq!((back.progress_token(), back.progress()), (Some("call-00ff"), None));
    assert!(to_stored(&new_record(T0)).get("progressToken").is_none(), "no token, no field");

    let mut bad = stored.clone();
    bad["progressToken"] = json!(7);
    assert!(from_stored::<TaskRecord>(&bad).is_err(), "a token that is not text is an error");

    let done = seen(TaskStatus::Completed, T0 + 10, StatusDetail::Result(CallToolResult::text("ok")));
    let _ = r.on_poll_result(T0 + 10, done, &policy());
    assert_eq!(r.progress(), None, "an ended task shows no progress");
    assert!(!r.on_progress(number("4"), Some(number("4"))), "nor takes any");
}

/// Found by the property test: a covered task whose poll failed, when the network comes back, is
/// polled at its backstop (if that passed, at once), not at the plain interval.
#[test]
fn network_restored_keeps_a_covered_task_on_its_backstop() {
    let p = policy();
    let mut r = new_record(T0);
    r.set_pushed(T0 + 1_000, true, &p);
    let _ = r.on_poll_failure(T0 + 1_000, Failure::Network, &p);
    let _ = r.on_network_restored(T0 + 1_000, &p);
    assert_eq!(r.next_action(T0 + 2_000), None, "not polled at the interval while covered");
    assert_eq!(r.next_poll_at(), Some(T0 + p.pushed_backstop_ms), "at the backstop after the last observation");
}

/// A server cannot park a task: `pollIntervalMs` and `Retry-After` beyond an hour count as an hour.
#[test]
fn scheduling_values_from_the_server_are_clamped_to_an_hour() {
    use mcp_tasks_web::machine::backoff::{MAX_POLL_INTERVAL_MS, MAX_RETRY_AFTER_MS};
    let p = policy();
    assert_eq!(p.interval(Some(u64::MAX)), MAX_POLL_INTERVAL_MS);
    assert_eq!(p.interval(Some(1)), p.min_interval_ms, "and never below the host's minimum");
    let mut r = new_record(T0);
    let _ = r.on_poll_failure(T0, Failure::Http { status: 503, retry_after_ms: Some(u64::MAX / 2) }, &p);
    assert_eq!(r.next_poll_at(), Some(T0 + MAX_RETRY_AFTER_MS), "Retry-After of centuries waits an hour");
}

#[test]
fn a_task_that_churns_through_keys_keeps_a_bounded_ledger() {
    let p = policy();
    let mut r = new_record(T0);
    let mut now = T0;
    // 2,000 rounds, each asking one new key and dropping the last: every old key ends withdrawn.
    for round in 0..2_000u64 {
        now += 1_000;
        let _ = r.next_action(now);
        let key = format!("ask-{round:05}");
        let _ = r.on_poll_result(now, seen(TaskStatus::InputRequired, T0 + round + 1, form(&[key.as_str()])), &p);
    }
    assert_eq!(r.ledger().state("ask-00000"), None, "the oldest settled key is forgotten");
    assert_eq!(r.ledger().state("ask-01998"), Some(&KeyState::Withdrawn), "recent settled keys are kept");
    assert_eq!(r.ledger().state("ask-01999"), Some(&KeyState::Outstanding), "the key asked now is kept");
    assert_eq!(r.unanswered_requests().keys().collect::<Vec<_>>(), ["ask-01999"]);
}
