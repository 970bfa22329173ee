//! The store tests (tests/wasm_common/store.rs) in a Chromium page.
//! Run by `cargo xtask test`; by hand: see xtask/src/wasm_tests.rs for the command and environment.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod wasm_common;

/// The runtime this binary is built for, checked by `runs_in_the_runtime_it_was_built_for`.
const RUNTIME: wasm_common::Runtime = wasm_common::Runtime::Page;
