//! Drives the core in a JS host: timers, connectivity and visibility, the store, the transport, events.
//! Owns no protocol logic: decisions come from `machine/`.
pub mod channel;
pub mod client;
pub mod leader;
pub mod options;
pub mod snapshot;
