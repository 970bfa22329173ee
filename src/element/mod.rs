//! The `<mcp-task>` and `<mcp-task-list>` web components.
//!
//! - [`model`]: what the views show, with no DOM — words in each language, what a card shows of a
//!   snapshot, URL checks, time display, validation messages. Builds and is tested natively.
//! - [`dom`] (cargo feature `element`): draws the model through web-sys into the shadow root that the
//!   thin JS class in `pkg/element.js` hands over (wasm-bindgen cannot subclass `HTMLElement`).
pub mod model;

#[cfg(feature = "element")]
pub mod dom;
