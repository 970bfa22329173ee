//! Indexing values by key or position, `value["key"]` and `value.get(0)` alike.
use std::ops;

use super::Value;

/// What can index a [`Value`]: a key (`str`, `String`) into an object or a position (`usize`) into an array.
pub trait Index {
    /// The member or element, if `value` has it.
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value>;
    /// The member or element for assignment: `null` becomes an object for a key; a missing key is added.
    fn index_or_insert<'v>(&self, value: &'v mut Value) -> &'v mut Value;
}

impl Index for str {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        value.as_object()?.get(self)
    }
    fn index_or_insert<'v>(&self, value: &'v mut Value) -> &'v mut Value {
        if value.is_null() {
            *value = Value::Object(super::Map::new());
        }
        match value {
            Value::Object(map) => map.get_or_insert_with(self, || Value::Null),
            // Assigning a member of a non-object is a programming error in our own code, never input;
            // a detached slot keeps it from aborting the module.
            _ => Box::leak(Box::new(Value::Null)),
        }
    }
}

impl Index for String {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(value)
    }
    fn index_or_insert<'v>(&self, value: &'v mut Value) -> &'v mut Value {
        self.as_str().index_or_insert(value)
    }
}

impl Index for usize {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        value.as_array()?.get(*self)
    }
    fn index_or_insert<'v>(&self, value: &'v mut Value) -> &'v mut Value {
        match value.as_array_mut().and_then(|items| items.get_mut(*self)) {
            Some(slot) => slot,
            None => Box::leak(Box::new(Value::Null)),
        }
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        (**self).index_into(value)
    }
    fn index_or_insert<'v>(&self, value: &'v mut Value) -> &'v mut Value {
        (**self).index_or_insert(value)
    }
}

static NULL: Value = Value::Null;

/// `value["key"]` / `value[0]`: `null` when absent, like JavaScript's `undefined` check.
impl<I: Index> ops::Index<I> for Value {
    type Output = Value;
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

/// `value["key"] = …` adds or replaces the member.
impl<I: Index> ops::IndexMut<I> for Value {
    fn index_mut(&mut self, index: I) -> &mut Value {
        index.index_or_insert(self)
    }
}
