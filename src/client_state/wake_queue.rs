//! A min-queue of `(due, id)` with lazy invalidation: an entry is pushed whenever a record's time may
//! have changed and never searched for or removed; the owner ([`super::records::Records`]) checks an
//! entry against the record when it comes to the top and drops it when its time no longer matches. So
//! finding what is due costs the entries due, not the number of records.
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Entries ordered by due time (Unix ms), then by id.
#[derive(Debug, Default)]
pub(super) struct WakeQueue {
    heap: BinaryHeap<Reverse<(u64, String)>>,
}

impl WakeQueue {
    pub(super) fn push(&mut self, due: u64, id: &str) {
        self.heap.push(Reverse((due, id.to_owned())));
    }

    /// The earliest entry.
    pub(super) fn peek(&self) -> Option<(u64, &str)> {
        self.heap.peek().map(|Reverse((due, id))| (*due, id.as_str()))
    }

    /// Takes the earliest entry.
    pub(super) fn pop(&mut self) -> Option<(u64, String)> {
        self.heap.pop().map(|Reverse(entry)| entry)
    }

    /// Takes the earliest entry if it is `(due, id)`: drops a copy of an entry just taken (a time that
    /// went A → B → A is pushed twice).
    pub(super) fn pop_copy_of(&mut self, due: u64, id: &str) -> bool {
        if self.peek() == Some((due, id)) {
            self.heap.pop();
            return true;
        }
        false
    }

    /// Entries held, current or not.
    pub(super) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Replaces every entry (one O(n) heapify).
    pub(super) fn rebuild(&mut self, entries: Vec<(u64, String)>) {
        self.heap = entries.into_iter().map(Reverse).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_by_id() {
        let mut q = WakeQueue::default();
        for (due, id) in [(5, "b"), (3, "z"), (5, "a"), (9, "c")] {
            q.push(due, id);
        }
        let order: Vec<(u64, String)> = std::iter::from_fn(|| q.pop()).collect();
        let expected = [(3, "z"), (5, "a"), (5, "b"), (9, "c")];
        assert_eq!(order, expected.map(|(d, i)| (d, i.to_owned())));
    }

    #[test]
    fn a_copy_is_dropped_only_when_it_is_on_top() {
        let mut q = WakeQueue::default();
        q.push(1, "a");
        q.push(1, "a");
        q.push(2, "b");
        assert_eq!(q.pop(), Some((1, "a".to_owned())));
        assert!(!q.pop_copy_of(1, "b"));
        assert!(q.pop_copy_of(1, "a"));
        assert!(!q.pop_copy_of(1, "a"));
        assert_eq!(q.len(), 1);
    }
}
