//! Shared by the `wasm_store_*` test binaries: one body of wasm tests, compiled once per runtime.
//!
//! Why three binaries instead of one binary run three times: wasm-bindgen-test picks the runtime
//! from a custom section that `wasm_bindgen_test_configure!` writes into the test binary
//! (`run_in_browser`, `run_in_dedicated_worker`, or nothing for Node.js). Choosing it per binary
//! makes each `cargo test --test wasm_store_<runtime>` self-describing, independent of environment
//! variables (`WASM_BINDGEN_USE_BROWSER` & co. would silently fall back to Node when misspelled),
//! and lets each binary state which runtime it expects: [`RUNTIME`](crate::RUNTIME), which the
//! `runs_in_the_runtime_it_was_built_for` test checks against what the global object looks like.
//! The same pattern as indexed_db_futures' `tests/browser.rs` / `tests/dedicated_worker.rs`.
//!
//! Everything here is plain `#[wasm_bindgen_test]`s in [`store`]; this file holds the store suite's
//! helpers, over the ones it shares with the client suite in [`support`].

pub mod store;
mod support;

use wasm_bindgen::JsValue;

use support::{js, unique_name};
pub use support::{settle, Runtime};

impl Runtime {
    /// Whether IndexedDB exists here (the browsers) or not (Node.js).
    pub fn has_indexed_db(self) -> bool {
        self != Runtime::Node
    }
}

/// Runs a JS function body and returns what it returns. Test-only: uses the `Function`
/// constructor, which a page with a strict CSP would refuse.
pub fn run_js(body: &str) -> JsValue {
    js("", body, &[])
}

/// Like [`run_js`] with one argument bound to `arg`.
pub fn run_js_with(arg_name: &str, arg: &JsValue, body: &str) -> JsValue {
    js(arg_name, body, std::slice::from_ref(arg))
}

/// A database name no other test (or earlier run) uses.
pub fn unique_database_name(label: &str) -> String {
    unique_name("mcp-tasks-web-test", label)
}
