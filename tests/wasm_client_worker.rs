//! The client tests (tests/wasm_common/client.rs) in a Chromium dedicated worker, against the reference servers
//! `cargo xtask test` starts; their URLs are compiled in (see client.rs for the variables).
//! Run by `cargo xtask test`; by hand: see xtask/src/wasm_tests.rs for the command and environment.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

// Included directly, not through `mod wasm_common;` (which would bring the store suite along).
#[path = "wasm_common/client.rs"]
mod client;

/// The runtime this binary is built for, checked by `runs_in_the_runtime_it_was_built_for`.
const RUNTIME: client::Runtime = client::Runtime::DedicatedWorker;
