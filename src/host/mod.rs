//! JSON across the JS boundary for the decode bench (cargo feature `bench`): the fast path the Rust
//! driver took for `tasks/get` answers (`JSON.parse` in JS, the parts held by reference), kept as the
//! bench's routes and the starting point of the driver's own fast path (docs/decode-route-3.md). The
//! shipped package's JS environment is the driver's (`src/driver/`, with `browser.js` here).
pub mod js_json;
