//! The store tests (tests/wasm_common/store.rs) in Node.js, where IndexedDB must report Unavailable.
//! Run by `cargo xtask test`; by hand: see xtask/src/wasm_tests.rs for the command and environment.
#![cfg(target_arch = "wasm32")]

// No `wasm_bindgen_test_configure!`: with no runtime section, wasm-bindgen-test-runner uses Node.js
// (unless a WASM_BINDGEN_USE_* variable says otherwise; xtask clears those).

mod wasm_common;

/// The runtime this binary is built for, checked by `runs_in_the_runtime_it_was_built_for`.
const RUNTIME: wasm_common::Runtime = wasm_common::Runtime::Node;
