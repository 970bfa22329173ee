//! The `<mcp-task>` and `<mcp-task-list>` web components: the model half.
//!
//! [`model`] decides what the views show, with no DOM: words in each language, what a card shows of a
//! snapshot, URL checks, time display, validation messages, and ([`model::view`]) all of it as plain
//! JSON. It builds and is tested natively. The DOM half is JavaScript, `pkg/element.js` (from
//! `pkg-template/`): the custom-element classes create the elements and set texts and attributes, and
//! ask the model through the few exports of `bindings::element` (cargo feature `element`). The
//! element's code in the .wasm is the model alone, with no web-sys DOM bindings, closures or glue
//! per DOM call: that moved 40 KB of code out of the package's download (docs/element.md).
pub mod model;
