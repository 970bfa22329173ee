//! The JS-facing surface: everything `#[wasm_bindgen]` lives here and nowhere else. The package's JS
//! driver (`js/driver/`) calls the door through `ClientDoor` (`door.rs`); hosts never see these
//! exports but the protocol's names below. The package's typings are written by hand
//! (`pkg-template/client.d.ts`), since the API hosts use is the driver's JS class.
use wasm_bindgen::prelude::*;

use crate::protocol;

#[cfg(feature = "bench")]
mod bench;
mod door;

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
