//! Exchanges with the server: the pass the state runs (now, or when the timer fires), one request and
//! what its answer does, and the timer set to the state's next wake-up (recomputed from the clock,
//! never by counting ticks: hidden tabs throttle timers).
use crate::client_state::apply_outcome;
#[cfg(not(feature = "legacy"))]
use crate::client_state::ExchangeOutcome;
use crate::host::globals::{self, Timeout};
use crate::machine::record::{Action, Change, TaskRecord};
use crate::protocol::task_protocol::TaskProtocol;
use crate::transport::reply::exchange_outcome;

use super::ClientCore;
use crate::client_state::Written;

/// The longest single timer; the schedule is recomputed from the clock at least this often.
const MAX_TIMER_MS: u64 = 60_000;

impl ClientCore {
    /// Runs what is due now; the pass re-arms the timer for what comes next.
    pub fn pump(&self) {
        let now = globals::now_ms();
        self.run(|state| state.poll_due(now));
    }

    /// Sets the one timer to the state's next wake-up.
    pub(super) fn rearm(&self) {
        let now = globals::now_ms();
        let next = self.state.borrow().next_wakeup(now);
        let timer = next.and_then(|at| {
            let delay = at.saturating_sub(now).min(MAX_TIMER_MS) as u32;
            let weak = self.me.clone();
            Timeout::new(delay, move || {
                if let Some(core) = weak.upgrade() {
                    core.pump();
                }
            })
            .ok()
        });
        *self.timer.borrow_mut() = timer;
    }

    /// Runs one exchange and applies its outcome. A slot, when it holds one, is handed on as soon as
    /// the answer is in — before the record's write, so requests do not wait for IndexedDB (1,000
    /// restored handles: 9.4 s until each was polled once, 6.3 s without the wait).
    pub(super) async fn execute(&self, id: String, action: Action, slot: bool) {
        let protocol = self.state.borrow().record(&id).map(TaskRecord::protocol).unwrap_or_default();
        let outcome = match protocol {
            #[cfg(feature = "legacy")]
            TaskProtocol::Legacy => self.legacy_exchange(&id, &action).await,
            // Not reached: this build holds no 2025-11-25 record (`ClientState::set_drives_legacy`), so
            // one another build wrote stays in the store untouched rather than ending here.
            #[cfg(not(feature = "legacy"))]
            TaskProtocol::Legacy => ExchangeOutcome::UnknownTask(
                "this build of mcp-tasks-web does not drive 2025-11-25 tasks (the `legacy` feature)".into(),
            ),
            TaskProtocol::Extension => {
                let request = action.request(id.clone());
                let fast = matches!(action, Action::Poll);
                exchange_outcome(self.transport.send_with_headers(&request, &[], None, fast).await)
            }
        };
        let now = globals::now_ms();
        let change = self.run(|state| state.on_exchange_done(now, &id, &action, &outcome, slot));
        let policy = self.state.borrow().config().policy;
        let replay = |record: &mut TaskRecord| apply_outcome(record, now, &action, &outcome, &policy);
        if change == Change::State {
            self.changed_with(&id, &replay).await;
        } else if !self.state.borrow().config().auto_poll && self.state.borrow().record(&id).is_some() {
            // Timing only (a poll that changed nothing): step mode still stores the schedule, so the
            // next isolate does not poll early; compared on write like every step-mode write.
            self.persist_with(&id, &replay).await;
        }
    }

    /// After a visible change: store the record, then tell the host and the other tabs.
    pub(super) async fn changed(&self, id: &str) {
        self.changed_with(id, &|_| Change::Nothing).await;
    }

    /// [`Self::changed`], re-applying the event with `replay` if another isolate wrote the record first.
    pub(super) async fn changed_with(&self, id: &str, replay: &dyn Fn(&mut TaskRecord) -> Change) -> Written {
        let written = self.persist_with(id, replay).await;
        self.run(|state| state.announce(id));
        written
    }
}
