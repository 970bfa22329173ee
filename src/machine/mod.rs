//! The per-task state machine. I/O-free: the caller passes `now` (Unix ms), performs the actions it is
//! given, and feeds back what happened. Tested natively with a fake clock.

pub mod backoff;
pub mod ledger;
pub mod mrtr;
pub mod pending;
pub mod record;
pub mod stored;
