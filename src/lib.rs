//! mcp-tasks-web: an MCP Tasks client for browsers, workers and edge runtimes.
//!
//! Layers, data flowing down:
//! - [`bindings`]: the only `#[wasm_bindgen]` surface (JS-facing).
//! - [`machine`]: the I/O-free per-task state machine; time is passed in, never read.
//! - [`protocol`]: I/O-free wire types and codecs for MCP 2026-07-28 and the Tasks extension.
//!
//! `protocol` and `machine` import nothing from wasm-bindgen or web-sys, so they build and test natively.
#![deny(missing_docs)]
// Size rules for the shipped .wasm (README, "Design notes"). The standard sorts, `join`, text-pattern
// searches and B-trees are listed with their measured cost in clippy.toml. `&s[a..b]` on a `str`
// brings core's str index panic path with its char escaping and Unicode tables (4 KB gzip): slice with
// `s.get(a..b)`. `{:?}` brings Debug's string escaping (0.5 KB gzip): quote with `json::write_string`,
// show JS values with `host::js_error` (`use_debug` sees `write!` and the print macros, not `format!`).
// Not in unit tests (`cfg(test)`), which may sort, slice and debug-print, as the rest of the workspace.
#![cfg_attr(
    not(test),
    warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::string_slice, clippy::use_debug)
)]

pub mod bindings;
pub mod collections;
pub mod element;
pub mod error;
pub mod host;
pub mod json;
pub mod machine;
pub mod protocol;
pub mod runtime;
pub mod store;
pub mod text;
pub mod transport;
