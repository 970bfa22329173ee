//! Tabs of one origin talk over a `BroadcastChannel` per namespace: the poller shares every record
//! change; the others forward answers, cancels and new handles to it. Messages are JSON text: a
//! structured-cloned object would carry every number as a double (`1.50` → `1.5`, `9007199254740993`
//! → `…992`, `1e400` → null), and records and answers keep the server's and the user's number text.
use crate::json::Value;
use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::host::globals::global_property;
use crate::host::js_json::from_js;

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
            let data = event.data();
            // Text from this version; an object from a tab still running the previous one.
            let value = match data.as_string() {
                Some(text) => crate::json::from_str(&text).map_err(|e| e.to_string()),
                None => from_js(&data),
            };
            if let Ok(value) = value {
                on_message(value);
            }
        });
        let _ = Reflect::set(&channel, &JsValue::from_str("onmessage"), listener.as_ref().unchecked_ref());
        Some(Self { channel, _listener: listener })
    }

    /// Sends a message to every other client on the channel.
    pub fn post(&self, message: &Value) {
        let _ = self.channel.post_message(&JsValue::from_str(&message.to_string()));
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        let _ = Reflect::set(&self.channel, &JsValue::from_str("onmessage"), &JsValue::NULL);
        self.channel.close();
    }
}
