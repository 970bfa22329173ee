//! The driver in a JS host: `client/` holds one `ClientState` and carries out its effects (requests,
//! store writes, timers, events, tab messages); `channel` and `leader` are the tab coordination it
//! uses; `options` reads `TaskClient.open`'s options. Owns no policy: decisions come from
//! `client_state/` and `machine/`.
pub mod channel;
pub mod client;
pub mod leader;
pub mod options;
