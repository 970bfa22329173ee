//! Reading tool arguments with defaults and a clear -32602 when one is wrong.
use mcp_tasks_web::json::Value;
use mcp_tasks_web::protocol::jsonrpc::{codes, RpcError};
use mcp_tasks_web::protocol::Object;

/// A tool's arguments.
#[derive(Clone, Copy)]
pub struct Args<'a>(pub &'a Object);

impl Args<'_> {
    /// A number of seconds in `0..=max` (fractions allowed), or `default`.
    pub fn seconds(&self, name: &str, default: f64, max: f64) -> Result<f64, RpcError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|s| (0.0..=max).contains(s))
                .ok_or_else(|| invalid(format!("`{name}` must be a number of seconds between 0 and {max}"))),
        }
    }

    /// A string, or `default`.
    pub fn text(&self, name: &str, default: &str) -> Result<String, RpcError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(default.to_owned()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(invalid(format!("`{name}` must be a string"))),
        }
    }

    /// A required, non-empty string.
    pub fn required_text(&self, name: &str) -> Result<String, RpcError> {
        match self.0.get(name) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(invalid(format!("`{name}` is required and must be a non-empty string"))),
        }
    }
}

/// An invalid-arguments error.
pub fn invalid(message: String) -> RpcError {
    RpcError::new(codes::INVALID_PARAMS, message)
}
