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
//! Everything here is plain `#[wasm_bindgen_test]`s in [`store`]; this file holds the helpers.

pub mod store;

use js_sys::Function;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// The JavaScript environment a test binary runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// A browser page (a `Window` global).
    Page,
    /// A dedicated web worker (a `DedicatedWorkerGlobalScope` global).
    DedicatedWorker,
    /// Node.js (a `process.versions.node`), which has no IndexedDB.
    Node,
}

impl Runtime {
    /// Which runtime this code is running in, judged from the global object.
    pub fn detect() -> Option<Runtime> {
        let name = run_js(
            "if (typeof DedicatedWorkerGlobalScope === 'function' && globalThis instanceof DedicatedWorkerGlobalScope) return 'worker';
             if (typeof Window === 'function' && globalThis instanceof Window) return 'page';
             if (typeof process === 'object' && process.versions && typeof process.versions.node === 'string') return 'node';
             return 'unknown';",
        )
        .as_string();
        match name.as_deref() {
            Some("page") => Some(Runtime::Page),
            Some("worker") => Some(Runtime::DedicatedWorker),
            Some("node") => Some(Runtime::Node),
            _ => None,
        }
    }

    /// Whether IndexedDB exists here (the browsers) or not (Node.js).
    pub fn has_indexed_db(self) -> bool {
        self != Runtime::Node
    }
}

/// Runs a JS function body and returns what it returns. Test-only: uses the `Function`
/// constructor, which a page with a strict CSP would refuse.
pub fn run_js(body: &str) -> JsValue {
    Function::new_no_args(body).call0(&JsValue::UNDEFINED).expect("test JS threw")
}

/// Like [`run_js`] with one argument bound to `arg`.
pub fn run_js_with(arg_name: &str, arg: &JsValue, body: &str) -> JsValue {
    Function::new_with_args(arg_name, body).call1(&JsValue::UNDEFINED, arg).expect("test JS threw")
}

/// Awaits a JS value that may be a Promise.
pub async fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(js_sys::Promise::resolve(&value)).await
}

/// A database name no other test (or earlier run) uses.
pub fn unique_database_name(label: &str) -> String {
    format!("mcp-tasks-web-test-{label}-{}-{}", js_sys::Date::now(), (js_sys::Math::random() * 1e9) as u64)
}
