//! The adaptive request window of a polling client, against a simulated server on a fake clock: it
//! grows while a full window's answers come back, up to the cap; halves once per round when the
//! network or the server shows strain; and a client with little to poll keeps its starting size.
use mcp_tasks_web::client_state::{ClientConfig, ClientState, Effect, ExchangeOutcome, Keys, INITIAL_WINDOW};
use mcp_tasks_web::machine::backoff::{Failure, PollPolicy};
use mcp_tasks_web::machine::record::Action;
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::timestamp::format_millis;

/// Server clock origin: 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;
/// Every handle added at T0 is due by then.
const NOW: u64 = T0 + 600_000;

fn task(id: &str) -> Task {
    Task {
        task_id: id.into(),
        status: TaskStatus::Working,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(T0 as i64),
        ttl_ms: Some(3_600_000),
        poll_interval_ms: Some(60_000),
    }
}

/// A polling client with the cap `max_in_flight` and `n` due handles.
fn client(max_in_flight: usize, n: usize) -> ClientState {
    let config = ClientConfig { policy: PollPolicy::default(), retention: 500, auto_poll: true, max_in_flight };
    let mut state = ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, true, 7);
    for i in 0..n {
        state.add_task(T0, "build".into(), task(&format!("t{i:05}")));
    }
    state
}

fn sends(state: &mut ClientState) -> Vec<(String, Action)> {
    state
        .drain_effects()
        .into_iter()
        .filter_map(|e| if let Effect::Send { id, action, .. } = e { Some((id, action)) } else { None })
        .collect()
}

fn working(id: &str) -> ExchangeOutcome {
    ExchangeOutcome::Answered(Some(Box::new(DetailedTask { task: task(id), detail: StatusDetail::None })))
}

/// Answers every request in flight with `outcome`, one at a time (each answer may start more);
/// returns the most requests seen in flight at once.
fn answer_all(
    state: &mut ClientState,
    out: &mut Vec<(String, Action)>,
    outcome: impl Fn(&str) -> ExchangeOutcome,
) -> usize {
    let mut peak = state.requests_in_flight();
    while let Some((id, action)) = out.pop() {
        let _ = state.on_exchange_done(NOW, &id, &action, &outcome(&id), true);
        out.extend(sends(state));
        assert!(state.requests_in_flight() <= state.config().max_in_flight, "over the cap");
        peak = peak.max(state.requests_in_flight());
    }
    peak
}

#[test]
fn a_full_window_grows_by_one_per_answer_up_to_the_cap() {
    let mut state = client(64, 1_000);
    state.poll_due(NOW);
    let mut out = sends(&mut state);
    assert_eq!(out.len(), INITIAL_WINDOW, "the window starts at {INITIAL_WINDOW}");
    let peak = answer_all(&mut state, &mut out, working);
    assert_eq!(peak, 64, "1,000 due handles: the window reached the cap");
    assert_eq!(state.request_window(), 64);
    assert_eq!(state.requests_in_flight(), 0, "every handle was polled once");
}

#[test]
fn a_client_with_few_tasks_keeps_its_window() {
    let mut state = client(64, 5);
    for round in 0..10 {
        state.poll_due(NOW + round * 60_000);
        let mut out = sends(&mut state);
        answer_all(&mut state, &mut out, working);
    }
    assert_eq!(state.request_window(), INITIAL_WINDOW, "five in flight never fill the window");
}

#[test]
fn strain_halves_the_window_once_per_round_and_never_below_one() {
    let mut state = client(64, 1_000);
    state.poll_due(NOW);
    let mut round = sends(&mut state);
    assert_eq!(round.len(), 16);
    // All 16 of the round fail: one halving, not four.
    for (id, action) in round.drain(..) {
        let _ = state.on_exchange_done(NOW, &id, &action, &ExchangeOutcome::Failed(Failure::Network), true);
        assert_eq!(state.request_window(), 8, "one decrease per round");
    }
    // The next rounds: 503, 429 and timeouts halve as well, down to one.
    let strains = [
        Failure::Http { status: 503, retry_after_ms: None },
        Failure::Http { status: 429, retry_after_ms: None },
        Failure::Timeout,
        Failure::Network,
        Failure::Network,
    ];
    for (expected, failure) in [4, 2, 1, 1, 1].into_iter().zip(strains) {
        let out = sends(&mut state);
        let sent: Vec<_> = if out.is_empty() {
            state.poll_due(NOW);
            sends(&mut state)
        } else {
            out
        };
        assert!(!sent.is_empty(), "a round was sent");
        for (id, action) in sent {
            let _ = state.on_exchange_done(NOW, &id, &action, &ExchangeOutcome::Failed(failure.clone()), true);
        }
        assert_eq!(state.request_window(), expected, "after {failure:?}");
    }
}

#[test]
fn other_failures_neither_grow_nor_shrink_the_window() {
    let mut state = client(64, 1_000);
    state.poll_due(NOW);
    let mut out = sends(&mut state);
    let failure = ExchangeOutcome::Failed(Failure::Http { status: 500, retry_after_ms: None });
    for _ in 0..40 {
        let Some((id, action)) = out.pop() else { break };
        let _ = state.on_exchange_done(NOW, &id, &action, &failure, true);
        out.extend(sends(&mut state));
    }
    assert_eq!(state.request_window(), INITIAL_WINDOW);
}

#[test]
fn a_cap_below_the_starting_window_is_the_window() {
    let mut state = client(4, 100);
    state.poll_due(NOW);
    let mut out = sends(&mut state);
    assert_eq!(out.len(), 4);
    assert_eq!(answer_all(&mut state, &mut out, working), 4);
    assert_eq!(state.request_window(), 4);
}
