//! The client's events: a JS `EventTarget` the host listens on, fed with `CustomEvent`s whose `detail`
//! is a snapshot. Dispatch waits for the next macrotask, so listeners added right after
//! `await TaskClient.open()` still hear what `open()` found.
use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::host::globals::{global_property, sleep};

/// Where the client's events go.
pub(crate) struct Events {
    target: JsValue,
    queue: Rc<RefCell<Vec<(String, JsValue)>>>,
}

fn construct(name: &str, args: &js_sys::Array) -> Option<JsValue> {
    let ctor = global_property(name)?.dyn_into::<Function>().ok()?;
    Reflect::construct(&ctor, args).ok()
}

impl Events {
    /// A fresh `EventTarget` (every current runtime has one; without it events are skipped, not fatal).
    pub(crate) fn new() -> Self {
        let target = construct("EventTarget", &js_sys::Array::new()).unwrap_or(JsValue::NULL);
        Self { target, queue: Rc::new(RefCell::new(Vec::new())) }
    }

    /// The target, for `addEventListener`/`removeEventListener`.
    pub(crate) fn target(&self) -> &JsValue {
        &self.target
    }

    /// Queues an event; the queue is dispatched in order on the next macrotask.
    pub(crate) fn emit(&self, kind: &str, detail: JsValue) {
        let first = {
            let mut queue = self.queue.borrow_mut();
            queue.push((kind.to_owned(), detail));
            queue.len() == 1
        };
        if !first {
            return;
        }
        let queue = self.queue.clone();
        let target = self.target.clone();
        crate::host::spawn::spawn(async move {
            sleep(0).await;
            let pending: Vec<(String, JsValue)> = std::mem::take(&mut *queue.borrow_mut());
            for (kind, detail) in pending {
                dispatch(&target, &kind, detail);
            }
        });
    }
}

impl Default for Events {
    fn default() -> Self {
        Self::new()
    }
}

/// A `CustomEvent` of `kind` carrying `detail`.
fn custom_event(kind: &str, detail: &JsValue) -> Option<JsValue> {
    let init = js_sys::Object::new();
    let _ = Reflect::set(&init, &JsValue::from_str("detail"), detail);
    construct("CustomEvent", &js_sys::Array::of2(&JsValue::from_str(kind), &init))
}

fn dispatch_event(target: &JsValue) -> Option<Function> {
    Reflect::get(target, &JsValue::from_str("dispatchEvent")).ok().and_then(|f| f.dyn_into::<Function>().ok())
}

fn dispatch(target: &JsValue, kind: &str, detail: JsValue) {
    let Some(event) = custom_event(kind, &detail) else { return };
    if let Some(f) = dispatch_event(target) {
        let _ = f.call1(target, &event);
    }
}

impl Events {
    /// A JS function that dispatches the event `kind` with `detail` when called, at once (for a
    /// platform callback such as a notification's click: no Rust closure to keep alive).
    pub(crate) fn dispatcher(&self, kind: &str, detail: &JsValue) -> Option<JsValue> {
        let event = custom_event(kind, detail)?;
        Some(dispatch_event(&self.target)?.bind1(&self.target, &event).into())
    }
}
