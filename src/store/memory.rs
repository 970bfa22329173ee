//! [`MemoryStore`]: records kept in this module instance's memory only.
//!
//! The fallback when no durable store exists (Node.js without a host store, private browsing that
//! refuses IndexedDB) and the store for tests. Everything is lost when the page, worker or process
//! ends, which is why [`Store::is_durable`](super::Store::is_durable) reports `false` for it: the
//! client then tells the host that tasks will not survive a reload.

use crate::collections::SortedMap;
use std::cell::RefCell;

/// Records in a sorted map behind a `RefCell`.
///
/// A `RefCell` rather than a lock because a wasm module instance is single-threaded; no borrow is
/// ever held across an `.await`, so the methods cannot conflict even when futures interleave.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: RefCell<SortedMap<String, String>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    // Plain functions, not `async`: [`Store`](super::Store) calls them without a future per
    // operation (each would be one more state machine in the .wasm), and they cannot fail.

    /// [`super::Store::run`] on memory: what a get finds (`None` for a put or delete).
    pub(super) fn run(&self, op: super::KeyOp<'_>) -> Option<String> {
        match op {
            super::KeyOp::Get(key) => self.get(key),
            super::KeyOp::Put(key, value) => {
                self.put(key, value);
                None
            }
            super::KeyOp::Delete(key) => {
                self.delete(key);
                None
            }
        }
    }

    /// The text stored under `key`, if any.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        self.records.borrow().get(key).cloned()
    }

    /// Stores `value` under `key`, replacing what was there.
    pub(crate) fn put(&self, key: &str, value: &str) {
        self.records.borrow_mut().insert(key.to_owned(), value.to_owned());
    }

    /// Removes `key`; removing a missing key is not an error.
    pub(crate) fn delete(&self, key: &str) {
        self.records.borrow_mut().remove(key);
    }

    /// Every record whose key starts with `prefix`, in key order (the tests' shorthand: `Store::list`
    /// reads one unbounded page).
    #[cfg(test)]
    pub(crate) fn list(&self, prefix: &str) -> Vec<(String, String)> {
        self.list_page(prefix, None, usize::MAX)
    }

    /// Up to `limit` records whose key starts with `prefix` and comes after `after`, in key order.
    pub(crate) fn list_page(&self, prefix: &str, after: Option<&str>, limit: usize) -> Vec<(String, String)> {
        let records = self.records.borrow();
        // SortedMap orders `String`s the way `Store::list` promises (by code point), and every key
        // with the prefix sorts at or after the prefix itself, contiguously.
        records
            .iter_from(after.unwrap_or(prefix))
            .skip_while(|(key, _)| Some(key.as_str()) == after)
            .take_while(|(key, _)| key.starts_with(prefix))
            .take(limit)
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_overwrite_delete() {
        let store = MemoryStore::new();
        assert_eq!(store.get("a"), None);
        store.put("a", "1");
        store.put("a", "2");
        assert_eq!(store.get("a"), Some("2".into()));
        store.delete("a");
        store.delete("a");
        assert_eq!(store.get("a"), None);
    }

    #[test]
    fn list_returns_only_the_prefix_in_key_order() {
        let store = MemoryStore::new();
        for key in ["task:b", "task:a", "tas", "task", "task;", "other:a", "task:\u{10000}", "task:\u{ffff}"] {
            store.put(key, key);
        }
        let keys: Vec<String> = store.list("task:").into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["task:a", "task:b", "task:\u{ffff}", "task:\u{10000}"]);
        assert_eq!(store.list("").len(), 8);
        assert!(store.list("zzz").is_empty());
    }
}
