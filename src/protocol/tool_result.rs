//! `CallToolResult`: what a tool returns, directly or inlined in a completed task.
use crate::json::Value;

use super::fields::{self, Object};
use super::result_type::{read_result_type, ResultType};
use super::DecodeError;

/// A tool's result. `is_error: Some(true)` is a tool-level failure: shown as such, never as a protocol error.
#[derive(Debug, Clone, PartialEq)]
pub struct CallToolResult {
    /// Content blocks (text, image, resource…), passed through as sent.
    pub content: Vec<Value>,
    /// Machine-readable output, if the tool gives one.
    pub structured_content: Option<Value>,
    /// `isError` as sent (absent means false).
    pub is_error: Option<bool>,
    /// `_meta`, passed through.
    pub(crate) meta: Option<Value>,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        let block = crate::json::json!({ "type": "text", "text": text.into() });
        Self { content: vec![block], structured_content: None, is_error: None, meta: None }
    }

    /// Whether the tool reported failure.
    pub fn is_tool_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The result as on the wire, with `resultType: "complete"`.
    pub fn to_json(&self) -> Value {
        let mut obj = Object::new();
        obj.put("resultType", Value::from(ResultType::Complete.as_str()));
        obj.put("content", Value::Array(self.content.clone()));
        if let Some(s) = &self.structured_content {
            obj.put("structuredContent", s.clone());
        }
        if let Some(e) = self.is_error {
            obj.put("isError", Value::from(e));
        }
        if let Some(m) = &self.meta {
            obj.put("_meta", m.clone());
        }
        Value::Object(obj)
    }

    /// Reads a result whose `resultType` may be absent (read as complete) or `complete`; `content` must be
    /// an array, as the spec requires.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "CallToolResult";
        let obj = fields::object(value, WHAT)?;
        match read_result_type(obj)? {
            ResultType::Complete => Self::from_object(obj),
            other => Err(DecodeError::Invalid {
                what: WHAT,
                detail: format!("an inlined tool result must be complete, not \"{}\"", other.as_str()),
            }),
        }
    }

    /// Reads the fields of a complete result (the caller has checked `resultType`).
    pub(crate) fn from_object(obj: &Object) -> Result<Self, DecodeError> {
        const WHAT: &str = "CallToolResult";
        let content = match obj.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(_) => return Err(fields::wrong_type(WHAT, "content", "an array")),
            None if obj.contains_key("taskId") && obj.contains_key("status") => {
                return Err(DecodeError::Invalid {
                    what: WHAT,
                    detail: "a task handle must say resultType \"task\", not \"complete\"".into(),
                })
            }
            None => return Err(DecodeError::MissingField { what: WHAT, field: "content" }),
        };
        Ok(Self {
            content,
            structured_content: obj.get("structuredContent").filter(|v| !v.is_null()).cloned(),
            is_error: fields::optional_bool(obj, WHAT, "isError")?,
            meta: obj.get("_meta").filter(|v| !v.is_null()).cloned(),
        })
    }
}
