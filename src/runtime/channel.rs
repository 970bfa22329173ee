//! Tabs of one origin talk over a `BroadcastChannel` per namespace: the poller shares every record
//! change; the others forward answers, cancels and new handles to it. Messages are JSON text: a
//! structured-cloned object would carry every number as a double (`1.50` → `1.5`, `9007199254740993`
//! → `…992`, `1e400` → null), and records and answers keep the server's and the user's number text.
//! The channel itself is in `browser.js`.
use wasm_bindgen::prelude::*;

use crate::json::Value;

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    type OpenChannel;
    #[wasm_bindgen(js_name = openChannel)]
    fn open_channel(name: &str, on_message: &Closure<dyn FnMut(String)>) -> Option<OpenChannel>;
    #[wasm_bindgen(method)]
    fn post(this: &OpenChannel, text: &str);
    #[wasm_bindgen(method)]
    fn close(this: &OpenChannel);
}

/// An open channel; dropping it closes it.
#[must_use = "dropping the channel closes it"]
pub struct Channel {
    channel: OpenChannel,
    _listener: Closure<dyn FnMut(String)>,
}

impl Channel {
    /// Opens `name` and calls `on_message` with every message from other clients. `None` where the
    /// runtime has no `BroadcastChannel`.
    pub fn open(name: &str, mut on_message: impl FnMut(Value) + 'static) -> Option<Self> {
        let listener = Closure::<dyn FnMut(String)>::new(move |text: String| {
            if let Ok(value) = crate::json::from_str(&text) {
                on_message(value);
            }
        });
        let channel = open_channel(name, &listener)?;
        Some(Self { channel, _listener: listener })
    }

    /// Sends a message to every other client on the channel.
    pub fn post(&self, message: &Value) {
        self.channel.post(&message.to_string());
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.channel.close();
    }
}
