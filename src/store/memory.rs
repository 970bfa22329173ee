//! [`MemoryStore`]: records kept in this module instance's memory only.
//!
//! The fallback when no durable store exists (Node.js without a host store, private browsing that
//! refuses IndexedDB) and the store for tests. Everything is lost when the page, worker or process
//! ends, which is why [`Store::is_durable`](super::Store::is_durable) reports `false` for it: the
//! client then tells the host that tasks will not survive a reload.

use std::cell::RefCell;
use crate::collections::SortedMap;

use super::StoreError;

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

    /// The text stored under `key`, if any.
    pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.records.borrow().get(key).cloned())
    }

    /// Stores `value` under `key`, replacing what was there.
    pub async fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.records.borrow_mut().insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    /// Removes `key`; removing a missing key is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.records.borrow_mut().remove(key);
        Ok(())
    }

    /// Every record whose key starts with `prefix`, in key order.
    pub async fn list(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let records = self.records.borrow();
        // SortedMap orders `String`s the way `Store::list` promises (by code point), and every key
        // with the prefix sorts at or after the prefix itself, contiguously.
        Ok(records
            .iter_from(prefix)
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// MemoryStore's futures never wait, so one poll finishes them; no executor needed.
    fn now<F: Future>(future: F) -> F::Output {
        match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(value) => value,
            Poll::Pending => panic!("MemoryStore future was pending"),
        }
    }

    #[test]
    fn put_get_overwrite_delete() {
        let store = MemoryStore::new();
        assert_eq!(now(store.get("a")), Ok(None));
        now(store.put("a", "1")).unwrap();
        now(store.put("a", "2")).unwrap();
        assert_eq!(now(store.get("a")), Ok(Some("2".into())));
        now(store.delete("a")).unwrap();
        now(store.delete("a")).unwrap();
        assert_eq!(now(store.get("a")), Ok(None));
    }

    #[test]
    fn list_returns_only_the_prefix_in_key_order() {
        let store = MemoryStore::new();
        for key in ["task:b", "task:a", "tas", "task", "task;", "other:a", "task:\u{10000}", "task:\u{ffff}"] {
            now(store.put(key, key)).unwrap();
        }
        let keys: Vec<String> = now(store.list("task:")).unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["task:a", "task:b", "task:\u{ffff}", "task:\u{10000}"]);
        assert_eq!(now(store.list("")).unwrap().len(), 8);
        assert!(now(store.list("zzz")).unwrap().is_empty());
    }
}
