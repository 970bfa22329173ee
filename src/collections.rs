//! Small sorted collections on a `Vec`, in place of `BTreeMap`/`BTreeSet`.
//!
//! Every `BTreeMap<K, V>` type a crate uses brings its own copy of the B-tree code (node splitting,
//! merging, iteration) into the `.wasm`: they were a fifth of the client's code. The maps here hold a
//! handful of entries (input keys, extensions, listeners) or are filled in key order (the store lists
//! by key), where a sorted `Vec` with binary search is as fast and a fraction of the code. Iteration is in
//! key order, as with `BTreeMap`, so what is written or sent keeps its order.
use std::borrow::Borrow;
use std::fmt;

/// A map sorted by key.
#[derive(Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { entries: Vec::new() }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(k, v)| (k, v))).finish()
    }
}

/// Keys are text (`String`, `Rc<str>` or `&str`), found by binary search. The standard search, inlined
/// per map type, is smaller than one shared search called through a `&dyn Fn` per lookup.
impl<K: Borrow<str>, V> SortedMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        SortedMap { entries: Vec::new() }
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    /// The value of `key`, mutably.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key`, returning the value it replaced. Appending in key order costs no move.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(key.borrow()) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// The stored key equal to `key` with its value (a shared key, such as an `Rc<str>`, can then be
    /// cloned).
    pub(crate) fn get_key_value(&self, key: &str) -> Option<(&K, &V)> {
        self.find(key).ok().map(|i| (&self.entries[i].0, &self.entries[i].1))
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    /// The value of `key`, inserting `make()` first when it is missing.
    pub(crate) fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(key.borrow()) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, make()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Entries in key order, values mutable.
    pub(crate) fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// Keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Keys in order, taking the map.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        self.entries.into_iter().map(|(k, _)| k)
    }

    /// Values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Keeps the entries `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<K: Borrow<str>, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = SortedMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Borrow<str>, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

/// A set sorted by value.
#[derive(Clone, PartialEq, Eq, Default)]
pub(crate) struct SortedSet<K> {
    map: SortedMap<K, ()>,
}

impl<K: fmt::Debug> fmt::Debug for SortedSet<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.map.entries.iter().map(|(k, ())| k)).finish()
    }
}

impl<K: Borrow<str>> SortedSet<K> {
    /// An empty set.
    pub(crate) const fn new() -> Self {
        SortedSet { map: SortedMap::new() }
    }

    /// Adds `value`; whether it was new.
    pub(crate) fn insert(&mut self, value: K) -> bool {
        self.map.insert(value, ()).is_none()
    }

    /// Whether `value` is in the set.
    pub(crate) fn contains(&self, value: &str) -> bool {
        self.map.contains_key(value)
    }

    /// Removes `value`; whether it was there.
    pub(crate) fn remove(&mut self, value: &str) -> bool {
        self.map.remove(value).is_some()
    }

    /// Keeps only the values `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.map.retain(|k, _| keep(k));
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Values in order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.map.keys()
    }
}

impl<K: Borrow<str>> FromIterator<K> for SortedSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        SortedSet { map: iter.into_iter().map(|k| (k, ())).collect() }
    }
}

impl<K: Borrow<str>> Extend<K> for SortedSet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        self.map.extend(iter.into_iter().map(|k| (k, ())));
    }
}

impl<K> IntoIterator for SortedSet<K> {
    type Item = K;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(K, ())>, fn((K, ())) -> K>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.into_iter().map(|(k, ())| k)
    }
}

impl<'a, K> IntoIterator for &'a SortedSet<K> {
    type Item = &'a K;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, ())>, fn(&'a (K, ())) -> &'a K>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.entries.iter().map(|(k, ())| k)
    }
}

/// The indices `0..len` in the stable order `less` gives (`less(a, b)`: item `a` sorts before item `b`).
///
/// One non-generic merge sort: each `sort`/`sort_unstable` call on another element type or closure
/// brought its own copy of the standard library's sorts (about 3 KB each) into the `.wasm`.
pub(crate) fn sorted_order(len: usize, less: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut merged = vec![0; len];
    let mut width = 1;
    while width < len {
        let mut start = 0;
        while start < len {
            let mid = len.min(start + width);
            let end = len.min(mid + width);
            let (mut i, mut j) = (start, mid);
            for slot in &mut merged[start..end] {
                // Equal items keep their order: the right run's item goes first only when strictly less.
                if j < end && (i == mid || less(order[j], order[i])) {
                    *slot = order[j];
                    j += 1;
                } else {
                    *slot = order[i];
                    i += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Puts `items` in `order` (a permutation of their indices, as [`sorted_order`] gives: position `k`
/// takes the item at `order[k]`). In place, one cycle of the permutation at a time, each position
/// marked done in `order` itself: n swaps, and no second vector of the items (whose `Option`s and
/// iterator adapters were half a kilobyte of the card host's module).
pub(crate) fn reorder<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut k = start;
        loop {
            let from = order[k];
            order[k] = k;
            if from == start || from == k {
                break;
            }
            items.swap(k, from);
            k = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_keeps_key_order_whatever_the_insertion_order() {
        let mut m = SortedMap::new();
        for (k, v) in [("b", 2), ("d", 4), ("a", 1), ("c", 3)] {
            assert_eq!(m.insert(k.to_owned(), v), None);
        }
        assert_eq!(m.insert("c".to_owned(), 30), Some(3));
        assert_eq!(m.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c", "d"]);
        assert_eq!(m.get("c"), Some(&30));
        assert_eq!(m.remove("a"), Some(1));
        assert!(!m.contains_key("a"));
        *m.get_or_insert_with("e".to_owned(), || 0) += 5;
        *m.get_or_insert_with("b".to_owned(), || 0) += 5;
        assert_eq!(
            m.iter().map(|(k, v)| (k.as_str(), *v)).collect::<Vec<_>>(),
            [("b", 7), ("c", 30), ("d", 4), ("e", 5)]
        );
        m.retain(|_, v| *v > 6);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn a_map_from_an_iterator_keeps_the_last_value_of_a_key() {
        let m: SortedMap<&str, u32> = [("2", 1), ("1", 2), ("2", 3)].into_iter().collect();
        assert_eq!(m.into_iter().collect::<Vec<_>>(), [("1", 2), ("2", 3)]);
    }

    #[test]
    fn a_set_is_sorted_and_unique() {
        let mut s: SortedSet<String> = ["b", "a", "b"].into_iter().map(String::from).collect();
        assert_eq!(s.iter().map(String::as_str).collect::<Vec<_>>(), ["a", "b"]);
        assert!(!s.insert("a".into()));
        assert!(s.contains("b"));
        assert!(s.remove("b"));
        assert_eq!(s.iter().len(), 1);
    }

    #[test]
    fn reorder_applies_any_permutation_in_place() {
        for len in 0..9usize {
            // Rotations, reversals and a scattered stride of every length: cycles of every shape.
            for shift in 0..len.max(1) {
                let orders: [Vec<usize>; 3] = [
                    (0..len).map(|k| (k + shift) % len).collect(),
                    (0..len).rev().collect(),
                    (0..len).map(|k| (k * 5 + shift) % len).collect(),
                ];
                for order in orders {
                    let mut seen = vec![false; len];
                    if !order.iter().all(|&i| !std::mem::replace(&mut seen[i], true)) {
                        continue;
                    }
                    let mut items: Vec<String> = (0..len).map(|i| format!("item{i}")).collect();
                    reorder(&mut items, order.clone());
                    let expected: Vec<String> = order.iter().map(|i| format!("item{i}")).collect();
                    assert_eq!(items, expected, "{order:?}");
                }
            }
        }
    }

    #[test]
    fn sorted_order_is_stable_and_matches_the_standard_sort() {
        for len in 0..70usize {
            let items: Vec<u32> = (0..len as u32).map(|i| i.wrapping_mul(2_654_435_761) % 7).collect();
            let order = sorted_order(len, &mut |a, b| items[a] < items[b]);
            let mut expected: Vec<usize> = (0..len).collect();
            expected.sort_by_key(|&i| items[i]);
            assert_eq!(order, expected);
        }
    }
}
