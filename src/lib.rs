//! mcp-tasks-web: an MCP Tasks client for browsers, workers and edge runtimes.
//!
//! Layers, data flowing down (nothing imports upward):
//! - [`bindings`]: the only `#[wasm_bindgen]` surface: the door as `ClientDoor`, which the package's
//!   JS driver (`js/driver/`) calls with events and whose effects it carries out (fetch, store
//!   writes, timers, events, tab messages, Web Locks, BroadcastChannel).
//! - [`door`]: one client's [`client_state::ClientState`] behind one call: events in, effects out, as
//!   JSON; [`element`]: the `<mcp-task>` / `<mcp-task-list>` model it answers the element from.
//! - [`transport`]: what an answer means (errors as data, replies, the listen stream's messages).
//! - [`client_state`]: every rule of one client as a plain value (request window, wake-up queues, retention, removal,
//!   listen coverage, the tab protocol, waiters); `&mut self` + `now` in, effects out.
//! - [`snapshot`]: what a host sees of a task (`TaskSnapshot`), its one JSON form (the client's events
//!   carry it, the element reads it).
//! - [`machine`]: the per-task state machine; time is passed in, never read.
//! - [`protocol`]: wire types and codecs for MCP 2026-07-28 and the Tasks extension, and
//!   ([`protocol::legacy`]) for the 2025-11-25 experimental tasks of older servers.
//! - Beside them, used by every layer: [`error`], [`json`], [`collections`], [`text`].
//!
//! `protocol`, `machine`, `snapshot` and `client_state` import nothing from wasm-bindgen, js-sys or web-sys, so
//! they build and test natively.
#![deny(missing_docs)]
// Size rules for the shipped .wasm (docs/ARCHITECTURE.md, "Size rules"). The standard sorts, `join`,
// text-pattern searches and B-trees are listed with their measured cost in clippy.toml. `&s[a..b]` on a `str`
// brings core's str index panic path with its char escaping and Unicode tables (4 KB gzip): slice with
// `s.get(a..b)`. `{:?}` brings Debug's string escaping (0.5 KB gzip): quote and show values as JSON
// text, `json::Value::from(text)` displays quoted (`use_debug` sees `write!` and the print macros, not
// `format!`).
// Not in unit tests (`cfg(test)`), which may sort, slice and debug-print, as the rest of the workspace.
#![cfg_attr(
    not(test),
    warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::string_slice, clippy::use_debug)
)]

pub mod bindings;
pub mod client_state;
pub mod collections;
pub mod door;
pub mod element;
pub mod error;
pub mod json;
pub mod machine;
pub mod notice;
pub mod protocol;
pub mod snapshot;
pub mod text;
pub mod transport;

/// The heap of the .wasm (see `talc` in Cargo.toml for why not the default). Single-threaded builds
/// only: the module never shares its memory between threads.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
