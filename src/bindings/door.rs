//! `ClientDoor`: the door (`crate::door`) as the one export a JS driver calls (`js/driver/`). Text
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
    crate::json::to_string(&Value::Array(effects))
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
            JsValue::from_str(&crate::json::to_string(&crate::door::error_json(&error)))
        };
        let options = crate::json::from_str(options).map_err(|e| fail(format!("options: {e}")))?;
        let door = Door::open(&options, seed as u64).map_err(|e| fail(e.message))?;
        Ok(ClientDoor { door })
    }

    /// The door protocol's version (`crate::door::VERSION`, docs/door.md): the driver refuses a door
    /// whose version is not its own, the first one and the full one alike.
    pub fn version() -> u32 {
        crate::door::VERSION
    }

    /// Feeds one event (JSON text) at `now` (ms), with an answer's `body`; returns the effects' JSON
    /// text. `x`: the host call the event carries (0 for none), settled with a `TypeError` when the
    /// event cannot be read.
    pub fn handle(&mut self, now: f64, x: f64, event: &str, body: &[u8]) -> String {
        effects_text(self.door.handle_text(now as u64, x as u64, event, body))
    }
}

/// JSON text read leniently: what does not parse is `null` (the element's own values, written by
/// `JSON.stringify`).
#[cfg(feature = "element")]
fn json_of(text: &str) -> Value {
    crate::json::from_str(text).unwrap_or(Value::Null)
}

/// Every word for language `lang` (a BCP 47 tag), with `layers` (JSON text of `[shared, own]` label
/// overrides) over the shipped ones: `{ key: word }` as JSON text. For `pkg/element.js` through the
/// driver's element entry.
#[cfg(feature = "element")]
#[wasm_bindgen(js_name = elementWords, skip_typescript)]
pub fn element_words(lang: &str, layers: &str) -> String {
    crate::json::to_string(&crate::element::model::labels::Labels::layered(lang, &json_of(layers)).table())
}

/// Checks what the user `entered` (JSON text) in the form of `schema` (JSON text), in the words of
/// `words` (JSON text): `{ answer }` (the answer as JSON text, numbers as typed), `{ errors }`, or
/// `null`, as JSON text.
#[cfg(feature = "element")]
#[wasm_bindgen(js_name = elementAnswer, skip_typescript)]
pub fn element_answer(schema: &str, entered: &str, words: &str) -> String {
    let labels = crate::element::model::labels::Labels::of_table(&json_of(words));
    crate::json::to_string(&crate::element::model::view::answer_outcome(&json_of(schema), &json_of(entered), &labels))
}

/// A duration in milliseconds as the card's clock shows it (`42s`, `3m 05s`, `2h 03m`).
#[cfg(feature = "element")]
#[wasm_bindgen(js_name = elementElapsed, skip_typescript)]
pub fn element_elapsed(ms: f64) -> String {
    crate::element::model::elapsed::format_elapsed(ms as i64)
}

// The client's build exports the element's three names too, as functions that do nothing: with the
// same exports in the same order, wasm-opt gives both builds the same short names, so one glue (the
// card host's, bundled in `pkg/client.js`) drives either module, and a page whose data layer imports
// "mcp-tasks-web" and whose UI imports "mcp-tasks-web/element" loads one driver. Only the names have
// to match: over the client's module the glue reads no answer from them, and the element's call
// throws a `TypeError` (it has no card model).

/// Without the element: nothing (see above).
#[cfg(not(feature = "element"))]
#[wasm_bindgen(js_name = elementWords, skip_typescript)]
pub fn element_words() {}

/// Without the element: nothing.
#[cfg(not(feature = "element"))]
#[wasm_bindgen(js_name = elementAnswer, skip_typescript)]
pub fn element_answer() {}

/// Without the element: nothing.
#[cfg(not(feature = "element"))]
#[wasm_bindgen(js_name = elementElapsed, skip_typescript)]
pub fn element_elapsed() {}
