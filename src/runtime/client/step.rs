//! Step mode (`autoPoll: false`): for edge workers that have no loop between events and lose their
//! isolate when idle. The platform calls `step()` from an alarm or cron; each step re-reads the store,
//! runs what is due (bounded), writes back with version checks, and says when to wake up next.
use crate::collections::SortedSet;

use js_sys::{Array, Promise};
use wasm_bindgen_futures::JsFuture;

use super::*;

/// Requests one step runs at once.
const STEP_PARALLELISM: usize = 8;

/// How long a step's claim on sending a record's answers and cancel lasts. Longer than any request
/// (the transport times out before), short enough that a dead isolate's claim soon runs out.
const SEND_LEASE_MS: u64 = 30_000;

/// What one step did and when the next is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepReport {
    /// The earliest time (Unix ms) something is due; `None` when no task is live.
    pub next_wake_at: Option<u64>,
    /// Tasks still running or waiting for input.
    pub live: usize,
    /// Tasks that ended (completed, failed, cancelled, expired).
    pub settled: usize,
    /// `tasks/get` requests this step sent.
    pub polled: usize,
    /// `tasks/update` and `tasks/cancel` requests this step sent.
    pub sent: usize,
}

impl StepReport {
    /// As the JS API returns it.
    pub fn to_json(&self) -> Value {
        crate::json::json!({
            "nextWakeAt": self.next_wake_at,
            "live": self.live,
            "settled": self.settled,
            "polled": self.polled,
            "sent": self.sent,
        })
    }
}

impl ClientCore {
    /// `step()`: re-read the store, poll what is due and send what is queued, write back, report.
    pub async fn step(self: &Rc<Self>) -> Result<StepReport, ClientError> {
        if self.auto_poll {
            return Err(ClientError::usage(
                "step() drives a client opened with autoPoll: false; this client polls by itself",
            ));
        }
        if self.closed.get() {
            return Err(ClientError::usage("step() on a closed client"));
        }
        self.sync_from_store().await;
        let now = globals::now_ms();
        let mut expired = Vec::new();
        let mut actions: Vec<(String, Action)> = Vec::new();
        for (id, record) in self.records.borrow_mut().iter_mut() {
            if record.tick(now, &self.policy) == Change::State {
                expired.push(id.clone());
            }
            if !self.offline.get() {
                while let Some(action) = record.next_action(now) {
                    actions.push((id.clone(), action));
                }
            }
        }
        for id in expired {
            self.changed_with(&id, &|fresh| fresh.tick(now, &self.policy)).await;
        }
        // Claim the sends: only the step whose leased record reaches the store first sends them.
        let senders: SortedSet<String> =
            actions.iter().filter(|(_, a)| !matches!(a, Action::Poll)).map(|(id, _)| id.clone()).collect();
        for id in senders {
            if let Some(record) = self.records.borrow_mut().get_mut(&id) {
                record.take_send_lease(now + SEND_LEASE_MS);
            }
            if self.persist_with(&id, &|_| Change::Nothing).await != Written::Ours {
                // Not sent this step: another isolate's record replaced ours, or the store failed —
                // then put back what next_action handed out, so the schedule still says "due now".
                actions.retain(|(other, _)| *other != id);
                if let Some(record) = self.records.borrow_mut().get_mut(&id) {
                    record.abandon_actions();
                }
            }
        }
        let polled = actions.iter().filter(|(_, a)| matches!(a, Action::Poll)).count();
        let sent = actions.len() - polled;
        for batch in actions.chunks(STEP_PARALLELISM) {
            let promises: Array = batch
                .iter()
                .cloned()
                .map(|(id, action)| {
                    let core = self.clone();
                    crate::host::spawn::promise(async move {
                        core.execute(id, action, None).await;
                        Ok(JsValue::UNDEFINED)
                    })
                })
                .map(JsValue::from)
                .collect();
            let _ = JsFuture::from(Promise::all(&promises)).await;
        }
        let records = self.records.borrow();
        let live = records.values().filter(|r| !r.is_settled()).count();
        Ok(StepReport {
            // "Due since long ago" reads as "now" to a platform setting an alarm.
            next_wake_at: records.values().filter_map(|r| r.next_wakeup(&self.policy)).min().map(|t| t.max(now)),
            live,
            settled: records.len() - live,
            polled,
            sent,
        })
    }

    /// Step mode: adopts every record another isolate changed, added or removed since this client
    /// last read or wrote it (the store is the truth between steps).
    async fn sync_from_store(&self) {
        let store = self.store.borrow().clone();
        let entries = match store.list(&self.keys.prefix).await {
            Ok(entries) => entries,
            Err(e) => return self.storage_failed(&e),
        };
        let mut seen = SortedSet::new();
        for (key, text) in entries {
            let Some(id) = key.get(self.keys.prefix.len()..).and_then(|rest| rest.strip_prefix("task/")) else {
                continue;
            };
            seen.insert(id.to_owned());
            if self.versions.borrow().get(id) == Some(&text) {
                continue;
            }
            let parsed = crate::json::from_str(&text).ok().and_then(|v| from_stored::<TaskRecord>(&v).ok());
            if let Some(record) = parsed {
                self.records.borrow_mut().insert(id.to_owned(), record);
                self.versions.borrow_mut().insert(id.to_owned(), text);
            }
        }
        let gone: Vec<String> = self.versions.borrow().keys().filter(|id| !seen.contains(id)).cloned().collect();
        for id in gone {
            self.versions.borrow_mut().remove(&id);
            self.records.borrow_mut().remove(&id);
        }
    }

    /// Step mode: before `respond`/`cancel` change a record, take the store's newer copy if there is one.
    pub(super) async fn refresh_for_step_mode(&self, id: &str) {
        if self.auto_poll {
            return;
        }
        let store = self.store.borrow().clone();
        let stored = store.get(&self.keys.task(id)).await.ok().flatten();
        if stored.is_some() && stored.as_ref() != self.versions.borrow().get(id) {
            if let Some(record) = self.adopt_stored(id).await {
                self.records.borrow_mut().insert(id.to_owned(), record);
            }
        }
    }
}
