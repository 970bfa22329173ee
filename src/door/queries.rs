//! What the door reads out of the state for the driver and the host: snapshots (`tasks`, `wait`, a
//! written call's task) and a task's notification words (`notice`).
use crate::json::{json, Value};
use crate::snapshot::{TaskSnapshot, UnknownCallSnapshot};

use super::Door;

impl Door {
    /// The snapshot of task `id` (`null` when it is gone).
    pub(super) fn snapshot(&self, id: &str) -> Value {
        let state = &self.state;
        state.record(id).map_or(Value::Null, |record| {
            TaskSnapshot::of_record(record, state.is_offline(), record.is_pushed(), state.is_restored(id)).to_json()
        })
    }

    /// Task `id`'s system notification in `language`: its title (the tool), body, lang and tag (one
    /// per task: a later one replaces it); `null` when the task is gone.
    pub(super) fn notice(&self, id: &str, language: &str) -> Value {
        self.state.record(id).map_or(Value::Null, |record| {
            let words = crate::notice::notice(language, record.status());
            json!({ "title": record.tool_name(), "body": words.body, "lang": words.lang, "tag": self.state.keys().task(id) })
        })
    }

    /// Every task's snapshot, then every call's of unknown outcome, from the `from`th on, each made when it
    /// is reached.
    pub(super) fn snapshots(&self, from: usize) -> impl Iterator<Item = Value> + '_ {
        let records = self.state.records();
        // Skipped before a snapshot is made of them.
        let tasks = records.keys().skip(from).map(|id| self.snapshot(id));
        let calls = self.state.unknown_calls().skip(from.saturating_sub(records.len()));
        tasks.chain(calls.map(|call| UnknownCallSnapshot::of_call(call).to_json()))
    }
}
