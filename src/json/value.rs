//! The JSON value tree and its accessors.
use std::fmt;

use super::{Map, Number, RawJson};

/// A JSON value.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, kept as its literal text.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, in the order it was written.
    Object(Map),
    /// An object or array still as the text it arrived in: only what [`from_str_keeping`] was asked
    /// to keep (parts the client hands on unread). It reads as neither object nor array, equals the
    /// tree it stands for, is written as it came, and [`Value::expand`] makes it a tree.
    ///
    /// [`from_str_keeping`]: super::from_str_keeping
    Raw(RawJson),
}

/// Equal when they mean the same JSON: a raw part is compared by its text with another raw part, and
/// as a tree with anything else.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            (Value::Raw(a), Value::Raw(b)) if a.as_str() == b.as_str() => true,
            (Value::Raw(a), b) => a.parse() == *b,
            (a, Value::Raw(b)) => *a == b.parse(),
            _ => false,
        }
    }
}

impl Value {
    /// The member (for an object and a key) or element (for an array and an index).
    pub fn get<I: super::index::Index + ?Sized>(&self, index: &I) -> Option<&Value> {
        index.index_into(self)
    }

    /// The value at a JSON Pointer (RFC 6901), such as `/expired/reason`.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        crate::text::pieces(rest, b'/').try_fold(self, |value, token| {
            let token = unescape_token(token);
            match value {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => {
                    super::digits_value(&token).and_then(|i| usize::try_from(i).ok()).and_then(|i| items.get(i))
                }
                _ => None,
            }
        })
    }

    /// The string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, when it is one.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, when it is one.
    pub(crate) fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    /// The number as `i64`, when written as an integer in range.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// The number as `u64`, when written as a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    /// Whether it is a number written as an integer in `i64` range.
    pub fn is_i64(&self) -> bool {
        self.as_i64().is_some()
    }

    /// Whether it is a number written as a non-negative integer in `u64` range.
    pub fn is_u64(&self) -> bool {
        self.as_u64().is_some()
    }

    /// Whether it is a number written with a fraction or exponent.
    pub fn is_f64(&self) -> bool {
        self.as_number().is_some_and(Number::is_f64)
    }

    /// The elements, when it is an array.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The elements, mutably.
    pub(crate) fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, when it is an object.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// Whether it is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether it is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Whether it is an array.
    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// Whether it is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// Whether it is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// Whether it is a boolean.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// Takes the value out, leaving `null`.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

/// The items as owned strings, or `None` if one is not a string. A plain loop shared by every
/// string-array decoder, in place of a `collect::<Result<Vec<_>, _>>()` (and its iterator-adapter
/// copies) at each.
pub(crate) fn string_items(items: &[Value]) -> Option<Vec<String>> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(item.as_str()?.to_owned());
    }
    Some(out)
}

/// The items that are strings, owned; the others are skipped. Shared for the same reason as
/// [`string_items`].
pub(crate) fn string_values(items: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for item in items {
        if let Some(s) = item.as_str() {
            out.push(s.to_owned());
        }
    }
    out
}

/// Compact JSON, as sent on the wire.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::to_string(self))
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::String(s.clone())
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::Number(n)
    }
}

impl From<Map> for Value {
    fn from(map: Map) -> Value {
        Value::Object(map)
    }
}

impl From<&Value> for Value {
    fn from(v: &Value) -> Value {
        v.clone()
    }
}

/// `NaN` and infinities become `null`, as `JSON.stringify` writes them.
impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        Value::Array(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value> + Clone> From<&[T]> for Value {
    fn from(items: &[T]) -> Value {
        Value::Array(items.iter().cloned().map(Into::into).collect())
    }
}

impl FromIterator<Value> for Value {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Value {
        Value::Array(iter.into_iter().collect())
    }
}

macro_rules! eq_integer {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                self.as_number().is_some_and(|n| *n == Number::from(*other))
            }
        }
    )*};
}
eq_integer!(i32, i64, u32, u64, usize);

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::Number(Number::from(n))
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// What [`json!`](crate::json!) accepts as a value: anything it can read by reference and write as
/// JSON, so a `json!` literal borrows its inputs instead of moving them.
pub trait ToJson {
    /// The JSON of `self`.
    fn to_json_value(&self) -> Value;
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json_value(&self) -> Value {
        (**self).to_json_value()
    }
}

impl ToJson for Value {
    fn to_json_value(&self) -> Value {
        self.clone()
    }
}

impl ToJson for Map {
    fn to_json_value(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl ToJson for Number {
    fn to_json_value(&self) -> Value {
        Value::Number(self.clone())
    }
}

impl ToJson for str {
    fn to_json_value(&self) -> Value {
        Value::from(self)
    }
}

impl ToJson for String {
    fn to_json_value(&self) -> Value {
        Value::from(self.as_str())
    }
}

impl ToJson for bool {
    fn to_json_value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl ToJson for f64 {
    fn to_json_value(&self) -> Value {
        Value::from(*self)
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json_value)
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json_value(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json_value).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json_value(&self) -> Value {
        self.as_slice().to_json_value()
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn to_json_value(&self) -> Value {
        self.as_slice().to_json_value()
    }
}

macro_rules! to_json_integer {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json_value(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// A JSON Pointer token with `~1` read as `/` and `~0` as `~` (RFC 6901): what
/// `replace("~1", "/").replace("~0", "~")` gives, without the substring searcher that brings.
fn unescape_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut rest = token;
    while let Some((before, after)) = crate::text::split_once(rest, b'~') {
        out.push_str(before);
        rest = after;
        match rest.as_bytes().first() {
            Some(b'1') => out.push('/'),
            Some(b'0') => out.push('~'),
            _ => {
                out.push('~');
                continue;
            }
        }
        rest = rest.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn unescape_token_matches_the_two_replaces() {
        for token in ["", "a", "~", "~0", "~1", "~01", "~10", "~~11", "a~2b", "~0~1~", "é~1ü~0", "~~"] {
            assert_eq!(super::unescape_token(token), token.replace("~1", "/").replace("~0", "~"), "{token}");
        }
    }
}
