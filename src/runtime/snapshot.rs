//! The snapshot JSON the client engine hands to hosts. The type and its one JSON form live in
//! [`crate::snapshot`]; these keep the engine's calls as they were.
use crate::json::Value;

use crate::machine::pending::PendingCall;
use crate::machine::record::TaskRecord;
pub use crate::snapshot::Connectivity;
use crate::snapshot::{TaskSnapshot, UnknownCallSnapshot};

/// The snapshot of a task, as JSON ([`TaskSnapshot::of_record`]).
pub fn of_record(record: &TaskRecord, offline: bool, listening: bool, restored: bool) -> Value {
    TaskSnapshot::of_record(record, offline, listening, restored).to_json()
}

/// The snapshot of a call whose outcome is unknown (the page died before its answer), as JSON.
pub fn of_unknown_call(call: &PendingCall) -> Value {
    UnknownCallSnapshot::of_call(call).to_json()
}
