//! The JS environment every layer above it runs in: globals looked up on `globalThis` (fetch, timers,
//! listeners), the executor entry points, JSON across the JS boundary, the client's event target, and
//! the one place a thrown JS value becomes text. Nothing here knows about tasks.
pub(crate) mod events;
pub mod globals;
pub(crate) mod js_error;
pub mod js_json;
pub(crate) mod local_storage;
pub(crate) mod spawn;
