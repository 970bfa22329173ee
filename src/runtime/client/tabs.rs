//! Tabs of one namespace: a channel for the state's [`TabMessage`]s, and the Web Lock that makes one
//! of them the poller.
use std::rc::Rc;

use crate::client_state::TabMessage;
use crate::error::ClientError;
use crate::host::globals::{self, Timeout};
use crate::host::spawn::spawn;
use crate::json::Value;
use crate::runtime::channel::Channel;
use crate::runtime::leader::Leadership;

use super::once::Once;
use super::ClientCore;

/// How long a forwarded `respond`/`cancel` waits for the polling tab.
const FORWARD_TIMEOUT_MS: u32 = 5_000;

impl ClientCore {
    /// Joins the other tabs of this namespace: a channel for records and forwarded requests, and a
    /// place in the queue for the lock that makes one of them the poller.
    ///
    /// Opening with no other client polling, it takes the lock before reading the store (`restore`
    /// then comes after): that read is current, and the first poll follows it at once. `held`: that
    /// lock, when the request made while the store opened got it.
    pub(super) async fn join_tabs(self: &Rc<Self>, held: Option<Leadership>) {
        let was_held = held.is_some();
        // Without Web Locks (Node, some workers) each client polls its own handles and talks to no one.
        let Some(leadership) = held.or_else(|| self.queue_for_lock()) else {
            self.state.borrow_mut().set_leader(true);
            return;
        };
        let weak = Rc::downgrade(self);
        *self.channel.borrow_mut() = Channel::open(&self.lock_name(), move |message| {
            if let Some(core) = weak.upgrade() {
                core.on_message(&message);
            }
        });
        *self.leadership.borrow_mut() = Some(leadership);
        if was_held {
            self.state.borrow_mut().set_leader(true);
        }
    }

    fn lock_name(&self) -> String {
        self.state.borrow().keys().tabs()
    }

    /// Waits in line for the lock; [`Self::became_leader`] runs once this client holds it (in a later
    /// task: the channel is open by then). `None` without Web Locks.
    fn queue_for_lock(self: &Rc<Self>) -> Option<Leadership> {
        let weak = Rc::downgrade(self);
        Leadership::request(&self.lock_name(), move || {
            if let Some(core) = weak.upgrade() {
                spawn(async move { core.became_leader().await });
            }
        })
    }

    /// This tab now polls: reload every record from the store (the previous poller kept it current).
    async fn became_leader(self: Rc<Self>) {
        if self.state.borrow().is_closed() {
            return;
        }
        let changed = self.restore(false).await;
        self.state.borrow_mut().set_leader(true);
        // Only records another tab changed behind this one's back are news: the rest the host has seen
        // (1,000 handles: emitting them all delayed the first poll by tens of ms).
        for id in changed {
            self.emit_task(&id);
        }
        self.pump();
    }

    /// A message from another tab.
    fn on_message(&self, message: &Value) {
        let Some(message) = TabMessage::from_json(message) else { return };
        let now = globals::now_ms();
        let Some(work) = self.run(|state| state.on_tab_message(now, message)) else { return };
        match work {
            TabMessage::Reply { req, error } => {
                let once = self.replies.borrow_mut().remove(&req);
                if let Some(once) = once {
                    once.set(error.map_or(Ok(()), Err));
                }
            }
            TabMessage::Respond { req, id, answers } => {
                let Some(core) = self.me.upgrade() else { return };
                spawn(async move {
                    let error = core.respond_here(&id, &answers).await.err();
                    core.post(TabMessage::Reply { req, error });
                });
            }
            TabMessage::Cancel { req, id } => {
                let Some(core) = self.me.upgrade() else { return };
                spawn(async move {
                    let error = core.cancel_here(&id).await.err();
                    core.post(TabMessage::Reply { req, error });
                });
            }
            TabMessage::Record { .. } | TabMessage::Adopt { .. } | TabMessage::Forget { .. } | TabMessage::Clear => {}
        }
    }

    pub(super) fn post(&self, message: TabMessage) {
        if let Some(channel) = self.channel.borrow().as_ref() {
            channel.post(&message.to_json());
        }
    }

    /// Sends a request (`message` for a fresh request id) to the polling tab and waits for its reply,
    /// or gives up after a few seconds.
    pub(super) async fn forward(&self, message: impl FnOnce(String) -> TabMessage) -> Result<(), ClientError> {
        let req = format!("req-{}", crate::text::hex16(super::random_u64()));
        let reply = Once::new();
        self.replies.borrow_mut().insert(req.clone(), reply.clone());
        let timeout = {
            let reply = reply.clone();
            Timeout::new(FORWARD_TIMEOUT_MS, move || reply.set(Err(ClientError::polling_tab_silent())))
        };
        self.post(message(req.clone()));
        let outcome = reply.get().await;
        drop(timeout);
        self.replies.borrow_mut().remove(&req);
        outcome
    }
}
