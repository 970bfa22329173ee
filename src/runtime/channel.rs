//! Tabs of one origin talk over a `BroadcastChannel` per namespace: the poller shares every record
//! change; the others forward answers, cancels and new handles to it. Messages are JSON values.
use crate::json::Value;
use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::host::globals::global_property;
use crate::host::js_json::{from_js, to_js};

/// An open channel; dropping it closes it.
#[must_use = "dropping the channel closes it"]
pub struct Channel {
    channel: web_sys::BroadcastChannel,
    _listener: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Channel {
    /// Opens `name` and calls `on_message` with every message from other clients. `None` where the
    /// runtime has no `BroadcastChannel`.
    pub fn open(name: &str, mut on_message: impl FnMut(Value) + 'static) -> Option<Self> {
        global_property("BroadcastChannel")?;
        let channel = web_sys::BroadcastChannel::new(name).ok()?;
        let listener = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            if let Ok(value) = from_js(&event.data()) {
                on_message(value);
            }
        });
        let _ = Reflect::set(&channel, &JsValue::from_str("onmessage"), listener.as_ref().unchecked_ref());
        Some(Self { channel, _listener: listener })
    }

    /// Sends a message to every other client on the channel.
    pub fn post(&self, message: &Value) {
        let _ = self.channel.post_message(&to_js(message));
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        let _ = Reflect::set(&self.channel, &JsValue::from_str("onmessage"), &JsValue::NULL);
        self.channel.close();
    }
}
