//! JSON objects: key order kept, lookups by linear scan.
use std::borrow::Cow;

use super::Value;

/// An object's key: a name written in the code, borrowed for the program's life, or text read or made
/// at run time. Most objects the client builds (snapshots, records, requests) have only names written
/// in the code, so building one allocates no key: a decoded task's way out to JS took 0.75 µs less of
/// 12–16 in Chromium than with a `String` per key.
pub(super) type Key = Cow<'static, str>;

/// A JSON object. Entries stay in the order they were read or inserted; replacing a key keeps its place
/// and removing one keeps the others' order. Protocol objects have a handful of keys, where a scan
/// beats hashing and costs no code.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Key, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Map {
        Map { entries: Vec::new() }
    }

    /// Builds from parsed entries, keeping the last value of a repeated key (in the first key's place),
    /// as JavaScript's `JSON.parse` does. Large objects are checked through a sorted index, so a hostile
    /// object with many keys costs n log n, not n².
    pub(super) fn from_parsed(mut entries: Vec<(Key, Value)>) -> Map {
        if entries.len() <= 16 {
            let mut i = 1;
            while i < entries.len() {
                if let Some(first) = entries[..i].iter().position(|(k, _)| *k == entries[i].0) {
                    let (_, value) = entries.remove(i);
                    entries[first].1 = value;
                } else {
                    i += 1;
                }
            }
            return Map { entries };
        }
        // Stable: a repeated key's entries stay in reading order.
        let order = crate::collections::sorted_order(entries.len(), &mut |a, b| entries[a].0 < entries[b].0);
        let mut drop = vec![false; entries.len()];
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() && entries[order[end]].0 == entries[order[start]].0 {
                drop[order[end]] = true;
                end += 1;
            }
            if end - start > 1 {
                let value = std::mem::take(&mut entries[order[end - 1]].1);
                entries[order[start]].1 = value;
            }
            start = end;
        }
        let mut index = 0;
        entries.retain(|_| {
            index += 1;
            !drop[index - 1]
        });
        Map { entries }
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| &**k == key)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// The values, mutably, in order.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The value of `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries.iter_mut().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`, returning the value it replaced (which keeps its place).
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        self.insert_key(Cow::Owned(key), value)
    }

    fn insert_key(&mut self, key: Key, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Appends `key`, which the caller knows is not present (the keys of a sorted map, the fields of a
    /// form): no scan for it, so building an object of n such keys costs n, not n².
    pub(crate) fn push_new(&mut self, key: String, value: Value) {
        self.entries.push((Cow::Owned(key), value));
    }

    /// Sets `key` (borrowed or owned text), dropping the value it replaced: [`Map::insert`] for a caller
    /// that does not want that value (`json!` and the hand-built objects). The key goes to one of two
    /// non-generic setters, so a call site holds neither the key's copy nor a drop of an `Option<Value>`.
    #[inline]
    pub fn put(&mut self, key: impl PutKey, value: Value) {
        key.put_into(self, value);
    }

    #[inline(never)]
    fn put_static(&mut self, key: &'static str, value: Value) {
        self.insert_key(Cow::Borrowed(key), value);
    }

    #[inline(never)]
    fn put_string(&mut self, key: String, value: Value) {
        self.insert(key, value);
    }

    /// Removes `key`, keeping the order of the rest.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.position(key).map(|i| self.entries.remove(i).1)
    }

    /// The value of `key`, inserting `make()` first when it is missing.
    pub(crate) fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> Value) -> &mut Value {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.entries.push((Cow::Owned(key.to_owned()), make()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    /// The entries in key order: sorted once (n log n), so a sorted map of them is built by appending.
    pub(crate) fn sorted(&self) -> Vec<(&str, &Value)> {
        let order = crate::collections::sorted_order(self.len(), &mut |a, b| self.entries[a].0 < self.entries[b].0);
        let mut out = Vec::with_capacity(order.len());
        for i in order {
            out.push((&*self.entries[i].0, &self.entries[i].1));
        }
        out
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (&**k, v))
    }

    /// Keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| &**k)
    }
}

/// A key `json!` sets: a name written in the code (kept borrowed, no copy) or run-time text (owned).
#[doc(hidden)]
pub trait PutKey {
    /// Sets `value` under this key in `map`.
    fn put_into(self, map: &mut Map, value: Value);
}

impl PutKey for &'static str {
    #[inline]
    fn put_into(self, map: &mut Map, value: Value) {
        map.put_static(self, value);
    }
}

impl PutKey for &String {
    #[inline]
    fn put_into(self, map: &mut Map, value: Value) {
        map.put_string(self.clone(), value);
    }
}

impl PutKey for String {
    #[inline]
    fn put_into(self, map: &mut Map, value: Value) {
        map.put_string(self, value);
    }
}

/// Objects are equal when they hold the same keys with equal values, in any order (as JSON means).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

/// `map["key"]`: `null` when absent.
impl std::ops::Index<&str> for Map {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        let mut map = Map::new();
        map.extend(iter);
        map
    }
}

impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::iter::Map<std::vec::IntoIter<(Key, Value)>, fn((Key, Value)) -> (String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter().map(|(k, v)| (k.into_owned(), v))
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a str, &'a Value);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (Key, Value)>, fn(&'a (Key, Value)) -> (&'a str, &'a Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (&**k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_keeps_order_and_replaces_in_place() {
        let mut m = Map::new();
        m.insert("b".into(), Value::from(1));
        m.insert("a".into(), Value::from(2));
        assert_eq!(m.insert("b".into(), Value::from(3)), Some(Value::from(1)));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(m.get("b"), Some(&Value::from(3)));
        assert_eq!(m.remove("b"), Some(Value::from(3)));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn repeated_keys_keep_the_last_value_in_the_first_place() {
        let m = Map::from_parsed(vec![
            ("x".into(), Value::from(1)),
            ("y".into(), Value::from(2)),
            ("x".into(), Value::from(3)),
        ]);
        assert_eq!(m.iter().map(|(k, v)| (k, v.as_i64().unwrap())).collect::<Vec<_>>(), [("x", 3), ("y", 2)]);
        let mut many: Vec<(String, Value)> = (0..40).map(|i| (format!("k{i}"), Value::from(i))).collect();
        many.push(("k3".into(), Value::from(-1)));
        many.push(("k3".into(), Value::from(-2)));
        let m = Map::from_parsed(many.into_iter().map(|(k, v)| (k.into(), v)).collect());
        assert_eq!(m.len(), 40);
        assert_eq!(m.keys().nth(3), Some("k3"));
        assert_eq!(m.get("k3"), Some(&Value::from(-2)));
        assert_eq!(m.keys().last(), Some("k39"));
    }

    #[test]
    fn equality_ignores_order() {
        let a: Map = [("a".to_owned(), Value::from(1)), ("b".to_owned(), Value::from(2))].into_iter().collect();
        let b: Map = [("b".to_owned(), Value::from(2)), ("a".to_owned(), Value::from(1))].into_iter().collect();
        assert_eq!(a, b);
    }
}
