//! `subscriptions/listen` and `Retry-After` policy of `ClientState`, against a simulated server on a
//! fake clock: a listen that honours nothing (as the official TypeScript SDK 2.4 answers) is not
//! re-opened for the same tasks; a stream that ends is re-opened after a growing, jittered backoff; a
//! silent stream is dropped at the idle limit; a covered task is polled at its TTL and at a backstop;
//! and a server's `Retry-After` holds back every request, whatever triggered it.
use mcp_tasks_web::client_state::{
    ClientConfig, ClientState, Effect, ExchangeOutcome, Keys, ListenEnd, IDLE_LIMIT_MS, RELISTEN_MIN_MS,
};
use mcp_tasks_web::machine::backoff::{Failure, PollPolicy};
use mcp_tasks_web::machine::record::{Action, LocalStatus};
use mcp_tasks_web::protocol::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use mcp_tasks_web::protocol::timestamp::format_millis;
use mcp_tasks_web::protocol::tool_result::CallToolResult;

/// Server clock origin: 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;

/// How the simulated server treats `subscriptions/listen`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum ListenBehaviour {
    /// No listen at all (`server/discover` does not offer the extension's listen).
    Unsupported,
    /// Acknowledges `notifications: {}` and ends the stream at once (TypeScript SDK 2.4).
    HonoursNothing,
    /// Acknowledges every task, then closes gracefully with the listen result at once.
    ClosesAtOnce,
    /// Acknowledges every task and keeps the stream open, sending nothing more (not even keep-alives).
    Silent,
    /// Acknowledges every task and keeps the stream alive with keep-alives, but never notifies.
    KeepsAlive,
}

/// What the server has to say about one task.
#[derive(Clone, Debug)]
struct ServerTask {
    id: String,
    ttl_ms: u64,
    /// Completes at this time (Unix ms), if ever.
    completes_at: Option<u64>,
    /// The server forgets it at `createdAt + ttl` without a word.
    dropped_at_ttl: bool,
}

/// Something the server does at a time.
#[derive(Debug)]
enum Event {
    Answer { id: String, action: Action, outcome: ExchangeOutcome },
    Discovered(bool),
    Ack { generation: u64, ids: Vec<String> },
    End { generation: u64, end: ListenEnd },
}

struct Sim {
    state: ClientState,
    now: u64,
    behaviour: ListenBehaviour,
    tasks: Vec<ServerTask>,
    queue: Vec<(u64, Event)>,
    open: Option<u64>,
    listens: Vec<u64>,
    polls: Vec<(u64, String)>,
    /// Answers with this failure instead, while `now` is before the time.
    failing_until: Option<(u64, Failure)>,
    /// Every request sent, with its time.
    requests: Vec<u64>,
}

fn policy() -> PollPolicy {
    PollPolicy {
        min_interval_ms: 100,
        default_interval_ms: 1_000,
        backoff_base_ms: 500,
        max_backoff_ms: 8_000,
        expiry_grace_ms: 60_000,
        pushed_backstop_ms: 30_000,
    }
}

fn handle(task: &ServerTask, status: TaskStatus, updated: u64) -> Task {
    Task {
        task_id: task.id.clone(),
        status,
        status_message: None,
        created_at: format_millis(T0 as i64),
        last_updated_at: format_millis(updated as i64),
        ttl_ms: Some(task.ttl_ms),
        poll_interval_ms: Some(1_000),
    }
}

impl Sim {
    fn new(behaviour: ListenBehaviour) -> Self {
        let config = ClientConfig { policy: policy(), retention: 500, auto_poll: true, max_in_flight: 16 };
        let state = ClientState::new(config, Keys::new("ns", "http://127.0.0.1:1/mcp"), false, true, 11);
        Self {
            state,
            now: T0,
            behaviour,
            tasks: Vec::new(),
            queue: Vec::new(),
            open: None,
            listens: Vec::new(),
            polls: Vec::new(),
            failing_until: None,
            requests: Vec::new(),
        }
    }

    fn add(&mut self, task: ServerTask) {
        let h = handle(&task, TaskStatus::Working, self.now);
        self.tasks.push(task);
        self.state.add_task(self.now, "build".into(), h);
        self.state.poll_due(self.now);
    }

    fn observe(&self, id: &str) -> ExchangeOutcome {
        let task = self.tasks.iter().find(|t| t.id == id).expect("a known task");
        if task.dropped_at_ttl && self.now >= T0 + task.ttl_ms {
            return ExchangeOutcome::UnknownTask("task not found".into());
        }
        let (status, detail, updated) = match task.completes_at {
            Some(at) if self.now >= at => (TaskStatus::Completed, StatusDetail::Result(CallToolResult::text("ok")), at),
            _ => (TaskStatus::Working, StatusDetail::None, T0),
        };
        ExchangeOutcome::Answered(Some(Box::new(DetailedTask { task: handle(task, status, updated), detail })))
    }

    fn at(&mut self, delay: u64, event: Event) {
        self.queue.push((self.now + delay, event));
    }

    /// Carries out the state's effects the way the driver does, with the server's answers queued.
    fn carry_out(&mut self) {
        loop {
            let effects = self.state.drain_effects();
            if effects.is_empty() {
                return;
            }
            for effect in effects {
                match effect {
                    Effect::Send { id, action, .. } => {
                        self.requests.push(self.now);
                        if action == Action::Poll {
                            self.polls.push((self.now, id.clone()));
                        }
                        let outcome = match &self.failing_until {
                            Some((until, failure)) if self.now < *until => ExchangeOutcome::Failed(failure.clone()),
                            _ if action == Action::Poll => self.observe(&id),
                            _ => ExchangeOutcome::Answered(None),
                        };
                        self.at(20, Event::Answer { id, action, outcome });
                    }
                    Effect::Discover => {
                        self.requests.push(self.now);
                        self.at(10, Event::Discovered(self.behaviour != ListenBehaviour::Unsupported));
                    }
                    Effect::Listen { generation, ids } => {
                        self.requests.push(self.now);
                        self.listens.push(self.now);
                        self.open = Some(generation);
                        match self.behaviour {
                            ListenBehaviour::HonoursNothing => {
                                self.at(10, Event::Ack { generation, ids: vec![] });
                                self.at(11, Event::End { generation, end: ListenEnd::Dropped });
                            }
                            ListenBehaviour::ClosesAtOnce => {
                                self.at(10, Event::Ack { generation, ids });
                                self.at(11, Event::End { generation, end: ListenEnd::Closed });
                            }
                            ListenBehaviour::Silent | ListenBehaviour::KeepsAlive => {
                                self.at(10, Event::Ack { generation, ids });
                            }
                            ListenBehaviour::Unsupported => panic!("listened although discover said no"),
                        }
                    }
                    Effect::StopListening => self.open = None,
                    _ => {}
                }
            }
        }
    }

    /// Runs until `end`: server events in time order, and the client's timer.
    fn run_until(&mut self, end: u64) {
        self.carry_out();
        loop {
            let next_event = self.queue.iter().map(|(t, _)| *t).min();
            let wakeup = self.state.next_wakeup(self.now);
            let keepalive = match (self.behaviour, self.open) {
                (ListenBehaviour::KeepsAlive, Some(_)) => Some(self.now + 15_000),
                _ => None,
            };
            let Some(next) = [next_event, wakeup, keepalive].into_iter().flatten().min() else { break };
            if next > end {
                break;
            }
            self.now = next.max(self.now);
            if next_event == Some(next) {
                let i = self.queue.iter().position(|(t, _)| *t == next).expect("queued");
                let (_, event) = self.queue.remove(i);
                self.deliver(event);
            } else if keepalive == Some(next) && wakeup != Some(next) {
                if let Some(generation) = self.open {
                    self.state.on_listen_bytes(self.now, generation);
                }
            } else {
                self.state.poll_due(self.now);
            }
            self.carry_out();
        }
        self.now = end;
    }

    fn deliver(&mut self, event: Event) {
        let now = self.now;
        match event {
            Event::Answer { id, action, outcome } => {
                let _ = self.state.on_exchange_done(now, &id, &action, &outcome, true);
                if self.state.record(&id).is_some() {
                    self.state.announce(&id);
                }
            }
            Event::Discovered(supported) => self.state.on_discovered(now, supported),
            Event::Ack { generation, ids } => self.state.on_listen_ack(now, generation, &ids),
            Event::End { generation, end } => {
                if self.open == Some(generation) {
                    self.open = None;
                }
                self.state.on_listen_end(now, generation, end);
            }
        }
    }

    fn status(&self, id: &str) -> LocalStatus {
        self.state.record(id).expect("recorded").status()
    }
}

fn sixty_second_task(id: &str) -> ServerTask {
    ServerTask { id: id.into(), ttl_ms: 3_600_000, completes_at: Some(T0 + 60_000), dropped_at_ttl: false }
}

#[test]
fn a_listen_that_honours_nothing_costs_one_request_and_the_task_is_polled_as_without_listen() {
    let mut plain = Sim::new(ListenBehaviour::Unsupported);
    plain.add(sixty_second_task("t1"));
    plain.run_until(T0 + 70_000);
    assert_eq!(plain.status("t1"), LocalStatus::Completed);

    let mut sim = Sim::new(ListenBehaviour::HonoursNothing);
    sim.add(sixty_second_task("t1"));
    sim.run_until(T0 + 70_000);
    assert_eq!(sim.status("t1"), LocalStatus::Completed);
    assert!(sim.listens.len() <= 3, "listens at {:?}", sim.listens);
    assert_eq!(sim.listens.len(), 1, "the same set is never asked again: {:?}", sim.listens);
    assert!(
        sim.polls.len() <= plain.polls.len() + 1,
        "{} polls with the refusing listen, {} without listen",
        sim.polls.len(),
        plain.polls.len()
    );
    assert!(sim.polls.len() >= 50, "the refused task was polled at its interval: {} polls", sim.polls.len());
}

#[test]
fn a_changed_set_is_asked_again_at_most_once_a_minute_after_a_refusal() {
    let mut sim = Sim::new(ListenBehaviour::HonoursNothing);
    sim.add(sixty_second_task("t1"));
    sim.run_until(T0 + 10_000);
    sim.add(sixty_second_task("t2"));
    sim.run_until(T0 + 20_000);
    sim.add(sixty_second_task("t3"));
    sim.run_until(T0 + 70_000);
    assert!(sim.listens.len() <= 3, "listens at {:?}", sim.listens);
    for pair in sim.listens.windows(2) {
        assert!(pair[1] - pair[0] >= 60_000, "listens closer than a minute: {:?}", sim.listens);
    }
}

#[test]
fn a_stream_that_keeps_closing_is_reopened_after_a_growing_jittered_backoff() {
    let mut sim = Sim::new(ListenBehaviour::ClosesAtOnce);
    sim.add(ServerTask { id: "t1".into(), ttl_ms: 3_600_000, completes_at: None, dropped_at_ttl: false });
    sim.run_until(T0 + 120_000);
    let gaps: Vec<u64> = sim.listens.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(!gaps.is_empty(), "it listens again after a graceful end");
    assert!(gaps.iter().all(|&g| g >= RELISTEN_MIN_MS), "a re-listen sooner than 1 s: {gaps:?}");
    assert!(gaps.windows(2).take(4).all(|w| w[1] > w[0]), "the backoff grows on repeats: {gaps:?}");
    assert!(sim.listens.len() <= 10, "{} listens in 120 s", sim.listens.len());
}

#[test]
fn a_silent_stream_is_lost_at_the_idle_limit_and_the_task_polled_again() {
    let mut sim = Sim::new(ListenBehaviour::Silent);
    sim.add(ServerTask { id: "t1".into(), ttl_ms: 3_600_000, completes_at: None, dropped_at_ttl: false });
    sim.run_until(T0 + IDLE_LIMIT_MS + 5_000);
    assert!(sim.listens.len() >= 2, "the silent stream was replaced: {:?}", sim.listens);
    let first = sim.listens[0];
    assert!(sim.listens[1] >= first + IDLE_LIMIT_MS, "replaced before the idle limit: {:?}", sim.listens);
    let catch_up = sim.polls.iter().any(|(t, _)| *t >= first + IDLE_LIMIT_MS && *t < sim.listens[1]);
    assert!(catch_up, "a poll catches up after the lost stream: polls {:?}", sim.polls);

    // The same server with keep-alives: the stream lives on.
    let mut alive = Sim::new(ListenBehaviour::KeepsAlive);
    alive.add(ServerTask { id: "t1".into(), ttl_ms: 3_600_000, completes_at: None, dropped_at_ttl: false });
    alive.run_until(T0 + 3 * IDLE_LIMIT_MS);
    assert_eq!(alive.listens.len(), 1, "a stream with keep-alives is kept: {:?}", alive.listens);
}

#[test]
fn a_pushed_task_is_polled_at_its_ttl_and_at_the_backstop() {
    let mut sim = Sim::new(ListenBehaviour::KeepsAlive);
    let ttl = 45_000;
    sim.add(ServerTask { id: "t1".into(), ttl_ms: ttl, completes_at: None, dropped_at_ttl: true });
    sim.run_until(T0 + 40_000);
    let covered: Vec<u64> = sim.polls.iter().map(|(t, _)| *t).filter(|&t| t > T0 + 1_000).collect();
    // Coverage started at once: polls only at the backstop (30 s after the last observation).
    assert_eq!(covered.len(), 1, "backstop polls while covered: {covered:?}");
    assert!(covered[0] >= T0 + 30_000, "{covered:?}");
    sim.run_until(T0 + ttl + 1_000);
    assert_eq!(
        sim.status("t1"),
        LocalStatus::Expired,
        "the task the server dropped at its TTL is known gone within a poll of it"
    );
    let last = sim.polls.last().expect("polled").0;
    assert!(last >= T0 + ttl && last <= T0 + ttl + 1_000, "the TTL poll came at {}", last - T0);
}

#[test]
fn retry_after_holds_back_every_request_to_the_server() {
    let mut sim = Sim::new(ListenBehaviour::HonoursNothing);
    sim.add(sixty_second_task("t1"));
    sim.run_until(T0 + 2_000);
    sim.failing_until = Some((T0 + 2_500, Failure::Http { status: 503, retry_after_ms: Some(5_000) }));
    sim.run_until(T0 + 2_600);
    let failed_at = *sim.requests.iter().rfind(|&&t| t <= T0 + 2_500).expect("a request failed");
    // A second task arrives during the pause: due at once, and still not polled until the pause ends.
    sim.add(sixty_second_task("t2"));
    sim.run_until(T0 + 20_000);
    let during: Vec<u64> = sim.requests.iter().copied().filter(|&t| t > failed_at && t < failed_at + 5_000).collect();
    assert!(during.is_empty(), "requests at {:?} during the 5 s pause from {}", during, failed_at - T0);
    assert!(sim.polls.iter().any(|(_, id)| id == "t2"), "the new task is polled after the pause");
}
