//! Drives the core in a JS host: timers, connectivity and visibility, the store, the transport, events.
//! Owns no protocol logic: decisions come from `machine/`.
pub mod client;
pub mod events;
pub mod globals;
pub mod js_json;
pub mod options;
pub mod snapshot;
