//! Step mode (`autoPoll: false`): for edge workers that have no loop between events and lose their
//! isolate when idle. The platform calls `step()` from an alarm or cron; each step re-reads the store,
//! runs what is due (bounded), writes back with version checks, and says when to wake up next.
use js_sys::{Array, Promise};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::client_state::{plan_step, StepReport, STEP_PARALLELISM};
use crate::collections::SortedSet;
use crate::error::ClientError;
use crate::host::globals;
use crate::machine::record::{Action, Change};

use super::ClientCore;
use crate::client_state::Written;

impl ClientCore {
    /// `step()`: re-read the store, poll what is due and send what is queued, write back, report.
    pub async fn step(&self) -> Result<StepReport, ClientError> {
        if self.state.borrow().config().auto_poll {
            return Err(ClientError::usage(
                "step() drives a client opened with autoPoll: false; this client polls by itself",
            ));
        }
        if self.state.borrow().is_closed() {
            return Err(ClientError::usage("step() on a closed client"));
        }
        self.sync_from_store().await;
        let now = globals::now_ms();
        let policy = self.state.borrow().config().policy;
        let (expired, mut actions) = self.run(|state| state.step_due(now));
        for id in expired {
            self.changed_with(&id, &|fresh| fresh.tick(now, &policy)).await;
        }
        // Claim the sends: only the step whose leased record reaches the store first sends them, and
        // the claim lasts until the last send is done (`plan_step`), however slow the server.
        let lease_until = plan_step(&mut actions, now, u64::from(self.transport.timeout_ms()));
        let mut senders = SortedSet::new();
        for (id, action) in &actions {
            if !matches!(action, Action::Poll) {
                senders.insert(id.clone());
            }
        }
        for id in senders {
            self.state.borrow_mut().take_send_lease(&id, lease_until);
            if self.persist_with(&id, &|_| Change::Nothing).await != Written::Ours {
                // Not sent this step: another isolate's record replaced ours, or the store failed —
                // then put back what was handed out, so the schedule still says "due now".
                actions.retain(|(other, _)| *other != id);
                self.state.borrow_mut().abandon_actions(&id);
            }
        }
        let polled = actions.iter().filter(|(_, a)| matches!(a, Action::Poll)).count();
        let sent = actions.len() - polled;
        for batch in actions.chunks(STEP_PARALLELISM) {
            let promises: Array = batch
                .iter()
                .cloned()
                .filter_map(|(id, action)| {
                    let core = self.me.upgrade()?;
                    Some(crate::host::spawn::promise(async move {
                        core.execute(id, action, false).await;
                        Ok(JsValue::UNDEFINED)
                    }))
                })
                .map(JsValue::from)
                .collect();
            let _ = JsFuture::from(Promise::all(&promises)).await;
        }
        Ok(self.state.borrow().step_report(now, polled, sent))
    }

    /// Step mode: adopts every record another isolate changed, added or removed since this client
    /// last read or wrote it (the store is the truth between steps).
    async fn sync_from_store(&self) {
        let prefix = self.state.borrow().keys().prefix().to_owned();
        match self.store().list(&prefix).await {
            Ok(entries) => self.run(|state| state.sync_from_store(entries)),
            Err(e) => self.storage_failed(&e),
        }
    }
}
