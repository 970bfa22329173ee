//! `ClientDoor`: the door (`crate::door`) as the one export a JS driver calls (`src/driver/`). Text
//! in, text out: the driver writes events with `JSON.stringify` and reads effects with `JSON.parse`,
//! so the boundary costs one glue function per method and no per-value imports.
use wasm_bindgen::prelude::*;

use crate::door::Door;
use crate::json::Value;

/// One client's state, driven from JS.
#[wasm_bindgen]
pub struct ClientDoor {
    door: Door,
}

/// The effects as a JSON array's text.
fn effects_text(effects: Vec<Value>) -> String {
    Value::Array(effects).to_string()
}

#[wasm_bindgen]
impl ClientDoor {
    /// Opens a door for `options` (JSON text); throws the error's JSON text (`{ name, message, … }`).
    #[wasm_bindgen(constructor)]
    pub fn new(options: &str, seed: f64) -> Result<ClientDoor, JsValue> {
        let fail = |message: String| {
            let error = crate::error::ClientError {
                kind: crate::error::ErrorKind::Usage,
                message,
                code: None,
                retryable: false,
            };
            JsValue::from_str(&crate::door::error_json(&error).to_string())
        };
        let options = crate::json::from_str(options).map_err(|e| fail(format!("options: {e}")))?;
        let door = Door::open(&options, seed as u64).map_err(|e| fail(e.message))?;
        Ok(ClientDoor { door })
    }

    /// Feeds one event (JSON text) at `now` (ms), with an answer's `body`; returns the effects' JSON
    /// text. `x`: the host call the event carries (0 for none), settled with a `TypeError` when the
    /// event cannot be read.
    pub fn handle(&mut self, now: f64, x: f64, event: &str, body: &[u8]) -> String {
        effects_text(self.door.handle_text(now as u64, x as u64, event, body))
    }
}
