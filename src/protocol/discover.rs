//! `server/discover`: the server's versions and capabilities, including whether it offers tasks.
use crate::json::Value;

use super::fields::{self, Object};
use super::meta::{Implementation, META_SERVER_INFO};
use super::result_type::expect_complete;
use super::{DecodeError, TASKS_EXTENSION};

/// `DiscoverResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverResult {
    /// Protocol versions the server speaks.
    pub supported_versions: Vec<String>,
    /// `ServerCapabilities`, passed through.
    pub capabilities: Object,
    /// Usage hints for a model.
    pub instructions: Option<String>,
    /// How long the answer may be cached (ms). Absent is read as 0 (do not cache).
    pub ttl_ms: u64,
    /// `"public"` or `"private"`. Absent is read as `"private"`, the safer reading.
    pub cache_scope: String,
    /// The server's self-description (`_meta` serverInfo, or a top-level `serverInfo` some servers send).
    pub server_info: Option<Implementation>,
}

impl DiscoverResult {
    /// Whether the server advertises the Tasks extension. Advertising it promises no call becomes a task.
    pub fn supports_tasks(&self) -> bool {
        self.capabilities.get("extensions").and_then(Value::as_object).is_some_and(|e| e.contains_key(TASKS_EXTENSION))
    }

    /// The result as on the wire.
    pub fn to_json(&self) -> Value {
        let mut obj = Object::new();
        obj.put("resultType", Value::from("complete"));
        obj.put("supportedVersions", Value::from(self.supported_versions.clone()));
        obj.put("capabilities", Value::Object(self.capabilities.clone()));
        if let Some(i) = &self.instructions {
            obj.put("instructions", Value::from(i.as_str()));
        }
        obj.put("ttlMs", Value::from(self.ttl_ms));
        obj.put("cacheScope", Value::from(self.cache_scope.as_str()));
        if let Some(info) = &self.server_info {
            let mut meta = Object::new();
            meta.put(META_SERVER_INFO, info.to_json());
            obj.put("_meta", Value::Object(meta));
        }
        Value::Object(obj)
    }

    /// Reads a discover result.
    pub fn from_json(value: &Value) -> Result<Self, DecodeError> {
        const WHAT: &str = "server/discover result";
        let obj = fields::object(value, WHAT)?;
        expect_complete(obj, "server/discover")?;
        let supported_versions = match obj.get("supportedVersions") {
            Some(Value::Array(items)) => crate::json::string_items(items)
                .ok_or_else(|| fields::wrong_type(WHAT, "supportedVersions", "an array of strings"))?,
            Some(_) => return Err(fields::wrong_type(WHAT, "supportedVersions", "an array of strings")),
            None => return Err(DecodeError::MissingField { what: WHAT, field: "supportedVersions" }),
        };
        let capabilities = match obj.get("capabilities") {
            Some(Value::Object(c)) => c.clone(),
            Some(_) => return Err(fields::wrong_type(WHAT, "capabilities", "an object")),
            None => return Err(DecodeError::MissingField { what: WHAT, field: "capabilities" }),
        };
        let info_value = obj.get("_meta").and_then(|m| m.get(META_SERVER_INFO)).or_else(|| obj.get("serverInfo"));
        let server_info = match info_value {
            None | Some(Value::Null) => None,
            Some(v) => Some(Implementation::from_json(v)?),
        };
        Ok(Self {
            supported_versions,
            capabilities,
            instructions: fields::optional_str(obj, WHAT, "instructions")?.map(str::to_owned),
            ttl_ms: fields::optional_millis(obj, WHAT, "ttlMs")?.unwrap_or(0),
            cache_scope: fields::optional_str(obj, WHAT, "cacheScope")?.unwrap_or("private").to_owned(),
            server_info,
        })
    }
}
