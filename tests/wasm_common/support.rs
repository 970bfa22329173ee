//! Helpers shared by both wasm suites: the store suite reaches them through `mod.rs` (`mod support;`),
//! the client suite through `client.rs`, which declares this file itself (`#[path = "support.rs"]`)
//! because the client binaries include `client.rs` directly rather than through `mod.rs` (which would
//! bring the store suite along). Everything here is used by both suites, so neither kind of binary
//! compiles dead code.

use js_sys::{Array, Function, Promise};
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
        let name = js(
            "",
            "if (typeof DedicatedWorkerGlobalScope === 'function' && globalThis instanceof DedicatedWorkerGlobalScope) return 'worker';
             if (typeof Window === 'function' && globalThis instanceof Window) return 'page';
             if (typeof process === 'object' && process.versions && typeof process.versions.node === 'string') return 'node';
             return 'unknown';",
            &[],
        )
        .as_string();
        match name.as_deref() {
            Some("page") => Some(Runtime::Page),
            Some("worker") => Some(Runtime::DedicatedWorker),
            Some("node") => Some(Runtime::Node),
            _ => None,
        }
    }
}

/// Runs a JS function body with `params` (comma-separated names) bound to `args`. Test-only: uses
/// the `Function` constructor, which a page with a strict CSP would refuse.
pub fn js(params: &str, body: &str, args: &[JsValue]) -> JsValue {
    let args: Array = args.iter().collect();
    Function::new_with_args(params, body).apply(&JsValue::UNDEFINED, &args).expect("test JS threw")
}

/// Awaits a JS value that may be a Promise.
pub async fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(Promise::resolve(&value)).await
}

/// `{prefix}-{label}-{now}-{random}`: a name no other test (or earlier run) uses.
pub fn unique_name(prefix: &str, label: &str) -> String {
    format!("{prefix}-{label}-{}-{}", js_sys::Date::now(), (js_sys::Math::random() * 1e9) as u64)
}
