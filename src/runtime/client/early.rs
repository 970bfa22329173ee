//! Early polls at open (the rules are in `client_state/early.rs`): the hint read from and written to
//! the page's `localStorage`. The polls themselves are ordinary exchanges the state asks for.
use crate::client_state::{Keys, EARLY_POLLS};
use crate::host::local_storage;
use crate::json::Value;

use super::ClientCore;

/// The task ids the hint names for `keys` (none where there is no hint or it is not a list of ids).
pub(super) fn read_hint(keys: &Keys) -> Vec<String> {
    let mut ids = Vec::new();
    if let Some(Ok(Value::Array(items))) = local_storage::get(&keys.early_hint()).map(|t| crate::json::from_str(&t)) {
        for item in items {
            if let (Value::String(id), true) = (item, ids.len() < EARLY_POLLS) {
                ids.push(id);
            }
        }
    }
    ids
}

impl ClientCore {
    /// Writes the hint when the live set changed (the polling tab only).
    pub(super) fn write_early_hint(&self) {
        let Some(ids) = self.state.borrow_mut().early_hint() else { return };
        let key = self.state.borrow().keys().early_hint();
        let text = Value::Array(ids.into_iter().map(Value::from).collect()).to_string();
        local_storage::set(&key, (text != "[]").then_some(text.as_str()));
    }
}
