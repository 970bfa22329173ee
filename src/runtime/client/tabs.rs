//! Tabs of one namespace: a channel for records and forwarded requests, and the lock that makes one of
//! them the poller.
use super::*;
use crate::host::spawn::spawn;

impl ClientCore {
    /// Joins the other tabs of this namespace: a channel for records and forwarded requests, and a
    /// place in the queue for the lock that makes one of them the poller.
    ///
    /// Opening with no other client polling, it takes the lock before reading the store (`restore`
    /// then comes after): that read is current, and the first poll follows it at once.
    pub(super) async fn join_tabs(self: &Rc<Self>) {
        // Without Web Locks (Node, some workers) each client polls its own handles and talks to no one.
        if !Leadership::available() {
            self.leader.set(true);
            return;
        }
        let name = self.lock_name();
        let weak = Rc::downgrade(self);
        *self.channel.borrow_mut() = Channel::open(&name, move |message| {
            if let Some(core) = weak.upgrade() {
                core.on_message(message);
            }
        });
        if let Some(held) = Leadership::try_now(&name).await {
            *self.leadership.borrow_mut() = Some(held);
            self.leader.set(true);
            return;
        }
        self.queue_for_lock();
    }

    fn lock_name(&self) -> String {
        format!("mcp-tasks-web|{}", self.keys.prefix)
    }

    /// Waits in line for the lock; [`Self::became_leader`] runs once this client holds it.
    fn queue_for_lock(self: &Rc<Self>) {
        let name = self.lock_name();
        let weak = Rc::downgrade(self);
        let leadership = Leadership::request(&name, move || {
            if let Some(core) = weak.upgrade() {
                spawn(async move { core.became_leader().await });
            }
        });
        if leadership.is_none() {
            self.leader.set(true);
        }
        *self.leadership.borrow_mut() = leadership;
    }

    /// This tab now polls: reload every record from the store (the previous poller kept it current).
    pub(super) async fn became_leader(self: Rc<Self>) {
        if self.closed.get() {
            return;
        }
        let changed = self.restore(false).await;
        self.leader.set(true);
        // Only records another tab changed behind this one's back are news: the rest the host has seen
        // (1,000 handles: emitting them all delayed the first poll by tens of ms).
        for id in changed {
            self.emit_task(&id);
        }
        self.pump();
    }

    pub(super) fn post(&self, message: Value) {
        if let Some(channel) = self.channel.borrow().as_ref() {
            channel.post(&message);
        }
    }

    /// A message from another tab.
    pub(super) fn on_message(self: &Rc<Self>, message: Value) {
        let kind = message.get("t").and_then(Value::as_str).unwrap_or("").to_owned();
        let id = message.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
        match kind.as_str() {
            "record" | "adopt" => {
                let Some(record) = message.get("stored").and_then(|s| from_stored::<TaskRecord>(s).ok()) else {
                    return;
                };
                let leader = self.leader.get();
                // The poller adopts new handles only; others take every record the poller shares.
                if leader && (kind == "record" || self.records.borrow().contains_key(&id)) {
                    return;
                }
                self.records.borrow_mut().insert(id.clone(), record);
                self.emit_task(&id);
                self.settle_waiters(&id);
                if leader {
                    self.pump();
                }
            }
            "forget" => {
                let removed = self.records.borrow_mut().remove(&id).is_some();
                if removed {
                    self.emit_forgotten(&id);
                }
            }
            "respond" | "cancel" if self.leader.get() => {
                let core = self.clone();
                spawn(async move {
                    let result = if kind == "respond" {
                        let answers = message.get("answers").cloned().unwrap_or(Value::Null);
                        core.respond_here(&id, &answers).await
                    } else {
                        core.cancel_here(&id).await
                    };
                    let error =
                        result.err().map(|e| crate::json::json!({ "kind": e.kind.code(), "message": e.message }));
                    core.post(crate::json::json!({ "t": "reply", "req": message.get("req"), "error": error }));
                });
            }
            "reply" => {
                let req = message.get("req").and_then(Value::as_str).unwrap_or("");
                if let Some(resolve) = self.replies.borrow_mut().remove(req) {
                    let _ = resolve.call1(&JsValue::UNDEFINED, &to_js(message.get("error").unwrap_or(&Value::Null)));
                }
            }
            _ => {}
        }
    }

    /// Sends a request to the polling tab and waits for its reply (or gives up after a few seconds).
    pub(super) async fn forward(&self, mut message: Value) -> Result<(), ClientError> {
        let req = format!("req-{:016x}", random_u64());
        message["req"] = Value::from(req.clone());
        let replies = &self.replies;
        let reply = js_sys::Promise::new(&mut |resolve, _reject| {
            replies.borrow_mut().insert(req.clone(), resolve);
        });
        self.post(message);
        let timeout = js_sys::Promise::new(&mut |resolve, _reject| {
            let _ = js_sys::Reflect::get(&globals::global(), &JsValue::from_str("setTimeout"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .map(|f| f.call3(&globals::global(), &resolve, &JsValue::from(5_000), &JsValue::from_str("timeout")));
        });
        let answer = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(&reply, &timeout)))
            .await
            .unwrap_or(JsValue::NULL);
        self.replies.borrow_mut().remove(&req);
        if answer.as_string().as_deref() == Some("timeout") {
            return Err(ClientError {
                kind: ErrorKind::Timeout,
                message: "the tab that polls this namespace did not answer".into(),
                code: None,
                retryable: true,
            });
        }
        match from_js(&answer).unwrap_or(Value::Null) {
            Value::Null => Ok(()),
            error => Err(ClientError {
                kind: error["kind"].as_str().and_then(ErrorKind::from_code).unwrap_or(ErrorKind::Usage),
                message: error["message"].as_str().unwrap_or("the polling tab refused the request").to_owned(),
                code: None,
                retryable: false,
            }),
        }
    }
}
