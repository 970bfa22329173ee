//! The JS-facing surface: everything `#[wasm_bindgen]` lives here and nowhere else.
//!
//! For now it exposes the protocol constants a host needs to talk about versions; the `TaskClient`
//! API arrives with the runtime.
use wasm_bindgen::prelude::*;

use crate::protocol;

/// The MCP protocol version this client speaks (`"2026-07-28"`).
#[wasm_bindgen(js_name = protocolVersion)]
pub fn protocol_version() -> String {
    protocol::PROTOCOL_VERSION.to_owned()
}

/// The identifier of the Tasks extension (`"io.modelcontextprotocol/tasks"`).
#[wasm_bindgen(js_name = tasksExtensionId)]
pub fn tasks_extension_id() -> String {
    protocol::TASKS_EXTENSION.to_owned()
}
