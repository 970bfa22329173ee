//! A min-queue of `(due, id)` with lazy invalidation: an entry is pushed whenever a record's time may
//! have changed and never searched for or removed; the owner ([`super::records::Records`]) checks an
//! entry against the record when it comes to the top and drops it when its time no longer matches. So
//! finding what is due costs the entries due, not the number of records.
//!
//! A binary heap of our own over a `Vec`, not `std`'s `BinaryHeap<Reverse<…>>`: this one type needs
//! only push, pop and peek, and `std`'s generic sifting cost the .wasm about twice the code. An entry
//! shares its id with the record's key (`Rc<str>`): a copy of the id in each entry of both queues was
//! about 1.6 MB of a page holding 10,000 tasks.
use std::rc::Rc;

/// Entries ordered by due time (Unix ms), then by id: `heap[0]` is the earliest, and each entry is
/// no later than its children (`2i + 1`, `2i + 2`).
#[derive(Debug, Default)]
pub(super) struct WakeQueue {
    heap: Vec<(u64, Rc<str>)>,
}

impl WakeQueue {
    pub(super) fn push(&mut self, due: u64, id: &Rc<str>) {
        self.heap.push((due, id.clone()));
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent] <= self.heap[i] {
                break;
            }
            self.heap.swap(parent, i);
            i = parent;
        }
    }

    /// The earliest entry.
    pub(super) fn peek(&self) -> Option<(u64, &str)> {
        self.heap.first().map(|(due, id)| (*due, &**id))
    }

    /// Takes the earliest entry.
    pub(super) fn pop(&mut self) -> Option<(u64, Rc<str>)> {
        if self.heap.is_empty() {
            return None;
        }
        let top = self.heap.swap_remove(0);
        self.sift_down(0);
        Some(top)
    }

    /// Moves entry `i` down until it is no later than its children.
    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (left, right) = (2 * i + 1, 2 * i + 2);
            let mut least = i;
            if left < self.heap.len() && self.heap[left] < self.heap[least] {
                least = left;
            }
            if right < self.heap.len() && self.heap[right] < self.heap[least] {
                least = right;
            }
            if least == i {
                return;
            }
            self.heap.swap(i, least);
            i = least;
        }
    }

    /// Takes entries due by `now`, earliest first, until `current` accepts one; returns it (if any)
    /// and how many entries were taken, the accepted one included.
    pub(super) fn take_due(&mut self, now: u64, current: impl Fn(u64, &str) -> bool) -> (Option<(u64, Rc<str>)>, u64) {
        let mut taken = 0;
        while self.peek().is_some_and(|(due, _)| due <= now) {
            let Some((due, id)) = self.pop() else { break };
            taken += 1;
            if current(due, &id) {
                return (Some((due, id)), taken);
            }
        }
        (None, taken)
    }

    /// Drops entries from the top until `current` accepts the top one; returns how many went.
    pub(super) fn drop_stale(&mut self, current: impl Fn(u64, &str) -> bool) -> u64 {
        let mut dropped = 0;
        while self.peek().is_some_and(|(due, id)| !current(due, id)) {
            self.pop();
            dropped += 1;
        }
        dropped
    }

    /// Takes the earliest entry if it is `(due, id)`: drops a copy of an entry just taken (a time that
    /// went A → B → A is pushed twice).
    pub(super) fn pop_copy_of(&mut self, due: u64, id: &str) -> bool {
        if self.peek() == Some((due, id)) {
            self.pop();
            return true;
        }
        false
    }

    /// Entries held, current or not.
    pub(super) fn len(&self) -> usize {
        self.heap.len()
    }

    /// Replaces every entry (one O(n) heapify).
    pub(super) fn rebuild(&mut self, entries: Vec<(u64, Rc<str>)>) {
        self.heap = entries;
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_by_id() {
        let mut q = WakeQueue::default();
        for (due, id) in [(5, "b"), (3, "z"), (5, "a"), (9, "c")] {
            q.push(due, &Rc::from(id));
        }
        let order: Vec<(u64, Rc<str>)> = std::iter::from_fn(|| q.pop()).collect();
        let expected = [(3, "z"), (5, "a"), (5, "b"), (9, "c")];
        assert_eq!(order, expected.map(|(d, i)| (d, Rc::from(i))));
    }

    #[test]
    fn pops_in_order_after_pushes_and_a_rebuild() {
        // A fixed pseudo-random sequence with repeated times and ids: every pop is the least left.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let entries: Vec<(u64, Rc<str>)> =
            (0..200).map(|_| (next() % 50, Rc::from(format!("t{}", next() % 30)))).collect();
        let mut pushed = WakeQueue::default();
        for (due, id) in &entries {
            pushed.push(*due, id);
        }
        let mut rebuilt = WakeQueue::default();
        rebuilt.rebuild(entries.clone());
        let mut sorted = entries;
        sorted.sort();
        for q in [&mut pushed, &mut rebuilt] {
            let order: Vec<(u64, Rc<str>)> = std::iter::from_fn(|| q.pop()).collect();
            assert_eq!(order, sorted);
        }
    }

    #[test]
    fn a_copy_is_dropped_only_when_it_is_on_top() {
        let mut q = WakeQueue::default();
        let (a, b) = (Rc::from("a"), Rc::from("b"));
        q.push(1, &a);
        q.push(1, &a);
        q.push(2, &b);
        assert_eq!(q.pop(), Some((1, a)));
        assert!(!q.pop_copy_of(1, "b"));
        assert!(q.pop_copy_of(1, "a"));
        assert!(!q.pop_copy_of(1, "a"));
        assert_eq!(q.len(), 1);
    }
}
