//! mcp-tasks-web: an MCP Tasks client for browsers, workers and edge runtimes.
//!
//! Layers, data flowing down:
//! - [`bindings`]: the only `#[wasm_bindgen]` surface (JS-facing).
//! - [`machine`]: the I/O-free per-task state machine; time is passed in, never read.
//! - [`protocol`]: I/O-free wire types and codecs for MCP 2026-07-28 and the Tasks extension.
//! - [`snapshot`]: what a host sees of a task (`TaskSnapshot`), built from the machine's record; its one
//!   JSON form is what the client's events carry and what the element reads.
//!
//! `protocol`, `machine` and `snapshot` import nothing from wasm-bindgen or web-sys, so they build and test natively.
#![deny(missing_docs)]

pub mod bindings;
pub mod collections;
pub mod element;
pub mod error;
pub mod host;
pub mod json;
pub mod machine;
pub mod protocol;
pub mod runtime;
pub mod snapshot;
pub mod store;
pub mod text;
pub mod transport;
