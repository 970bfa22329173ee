//! Typed field access on JSON objects, so every decoder reports absent or mistyped fields the same way.
use crate::json::{Map, Value};

use super::DecodeError;

/// A JSON object, as every decoder sees it.
pub type Object = Map;

/// The value as an object, or `NotAnObject` naming the message part.
pub(crate) fn object<'a>(value: &'a Value, what: &'static str) -> Result<&'a Object, DecodeError> {
    value.as_object().ok_or(DecodeError::NotAnObject { what })
}

/// A required string field.
pub(crate) fn required_str<'a>(
    obj: &'a Object,
    what: &'static str,
    field: &'static str,
) -> Result<&'a str, DecodeError> {
    match obj.get(field) {
        None => Err(DecodeError::MissingField { what, field }),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(wrong_type(what, field, "a string")),
    }
}

/// An optional field read with `read`; `null` reads as absent, since some servers write optional
/// fields as null. A value `read` rejects is a `WrongType` naming `expected`.
fn optional<'a, T>(
    obj: &'a Object,
    what: &'static str,
    field: &'static str,
    expected: &'static str,
    read: impl FnOnce(&'a Value) -> Option<T>,
) -> Result<Option<T>, DecodeError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => read(v).map(Some).ok_or_else(|| wrong_type(what, field, expected)),
    }
}

/// An optional string field.
pub(crate) fn optional_str<'a>(
    obj: &'a Object,
    what: &'static str,
    field: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    optional(obj, what, field, "a string", Value::as_str)
}

/// An optional object field.
pub(crate) fn optional_object<'a>(
    obj: &'a Object,
    what: &'static str,
    field: &'static str,
) -> Result<Option<&'a Object>, DecodeError> {
    optional(obj, what, field, "an object", Value::as_object)
}

/// An optional boolean field.
pub(crate) fn optional_bool(
    obj: &Object,
    what: &'static str,
    field: &'static str,
) -> Result<Option<bool>, DecodeError> {
    optional(obj, what, field, "a boolean", Value::as_bool)
}

/// An optional non-negative integer field (milliseconds); `null` reads as absent.
pub(crate) fn optional_millis(
    obj: &Object,
    what: &'static str,
    field: &'static str,
) -> Result<Option<u64>, DecodeError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => millis(v, what, field).map(Some),
    }
}

/// A field whose key must be present but whose value may be `null` (e.g. `ttlMs`, where null means unlimited).
pub(crate) fn required_nullable_millis(
    obj: &Object,
    what: &'static str,
    field: &'static str,
) -> Result<Option<u64>, DecodeError> {
    match obj.get(field) {
        None => Err(DecodeError::MissingField { what, field }),
        Some(Value::Null) => Ok(None),
        Some(v) => millis(v, what, field).map(Some),
    }
}

/// Largest integer a JavaScript number holds exactly; the schema bounds milliseconds by it.
pub(crate) const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A JSON number that is a whole, non-negative count of milliseconds. `2000.0` counts as whole (JSON
/// Schema's `integer` accepts it); `1500.5` and `-1` do not.
pub(crate) fn millis(value: &Value, what: &'static str, field: &'static str) -> Result<u64, DecodeError> {
    let Value::Number(n) = value else {
        return Err(wrong_type(what, field, "an integer"));
    };
    // Exactly whole on the digits (`2000.0`, `2e3`), not as a double (`2000.0000000000001` is not).
    match n.as_whole_u64() {
        Some(u) if u <= MAX_SAFE_INTEGER => Ok(u),
        _ => Err(DecodeError::NotAnInteger { field, found: crate::text::display(n) }),
    }
}

/// A `WrongType` error for a named field.
pub(crate) fn wrong_type(what: &'static str, field: &str, expected: &'static str) -> DecodeError {
    DecodeError::WrongType { what, field: field.to_owned(), expected }
}

/// Parses text as JSON, mapping parser failures to `NotJson`.
pub(crate) fn parse_json(text: &str) -> Result<Value, DecodeError> {
    crate::json::from_str(text).map_err(|e| DecodeError::NotJson { detail: crate::text::display(&e) })
}
