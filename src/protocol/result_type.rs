//! `resultType`, the discriminator on every 2026-07-28 result.
use crate::json::Value;

use super::fields::Object;
use super::DecodeError;

/// The kinds of result this client accepts: the core two and the Tasks extension's `task`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultType {
    /// The final result of the method.
    Complete,
    /// MRTR: the server needs input before it can answer.
    InputRequired,
    /// Tasks extension: a durable task handle (`tools/call` only).
    Task,
}

impl ResultType {
    /// The wire value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Task => "task",
        }
    }
}

/// Reads `resultType`: absent means `complete` (older servers); an unknown value is an error, as the
/// spec requires.
pub(crate) fn read_result_type(obj: &Object) -> Result<ResultType, DecodeError> {
    match obj.get("resultType") {
        None | Some(Value::Null) => Ok(ResultType::Complete),
        Some(Value::String(s)) => match s.as_str() {
            "complete" => Ok(ResultType::Complete),
            "input_required" => Ok(ResultType::InputRequired),
            "task" => Ok(ResultType::Task),
            other => Err(DecodeError::UnknownResultType { found: other.to_owned() }),
        },
        Some(other) => Err(DecodeError::UnknownResultType { found: crate::json::to_string(other) }),
    }
}

/// Requires `complete` (or absent) for a method that has no other kind of result.
pub(crate) fn expect_complete(obj: &Object, method: &'static str) -> Result<(), DecodeError> {
    match read_result_type(obj)? {
        ResultType::Complete => Ok(()),
        other => Err(DecodeError::UnexpectedResultType { method, found: other.as_str().to_owned() }),
    }
}
