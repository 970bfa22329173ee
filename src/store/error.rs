//! Why a store operation failed, as plain Rust data.
//!
//! JavaScript failures (a `DOMException` from IndexedDB, an `Error` a host store threw or rejected
//! with, a value of the wrong shape) are snapshotted into a [`StoreError`] at the point where they
//! happen, so nothing above this module ever sees a `JsValue` or has a reason to unwrap one.

use std::fmt;

use wasm_bindgen::JsValue;

/// Why the store could not do what was asked.
///
/// The variants are the distinctions a caller acts on differently: fall back to another store
/// ([`Unavailable`](Self::Unavailable)), ask the user to close other tabs ([`Blocked`](Self::Blocked)),
/// ask them to free space ([`QuotaExceeded`](Self::QuotaExceeded)), or report and retry later
/// ([`Failed`](Self::Failed)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// This environment has no usable persistent storage: no `indexedDB` global (Node.js, some
    /// embedded webviews), or it refused to open (private browsing, storage disabled by policy, a
    /// sandboxed iframe, a damaged profile). The text says which. A memory store is the fallback.
    Unavailable(String),
    /// Another connection to the same database (usually another tab running an older version of
    /// the page) is holding it open and did not close within a second of being asked, so an upgrade
    /// or deletion cannot proceed until it does. The request stays queued: it completes by itself
    /// once the other connection closes.
    Blocked,
    /// The browser refused the write because the origin is out of storage quota.
    QuotaExceeded,
    /// Anything else: the text names the operation and carries the underlying message.
    Failed(String),
}

impl StoreError {
    /// A short stable code for logs, metrics and the JS-facing error object:
    /// `"unavailable"`, `"blocked"`, `"quota"` or `"failed"`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Unavailable(_) => "unavailable",
            Self::Blocked => "blocked",
            Self::QuotaExceeded => "quota",
            Self::Failed(_) => "failed",
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "persistent storage is unavailable here: {why}"),
            Self::Blocked => f.write_str(
                "the database is held open by another tab or worker that did not release it; \
                 close other tabs of this site and try again",
            ),
            Self::QuotaExceeded => {
                f.write_str("the browser's storage quota for this site is used up; free some space and try again")
            }
            Self::Failed(why) => write!(f, "storage operation failed: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A snapshot of a thrown or rejected JS value: its `name` (for `Error`s and `DOMException`s) and a
/// human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsFailure {
    /// `error.name` when the value had a string `name` (e.g. `"QuotaExceededError"`).
    pub(crate) name: Option<String>,
    /// `error.message`, the string itself, or `String(value)` of anything else.
    pub(crate) message: String,
}

impl JsFailure {
    /// Reads `name` and `message` without trusting the value: property reads that throw (a
    /// hostile getter, a revoked Proxy) just leave the field out.
    pub(crate) fn from_js(value: &JsValue) -> Self {
        if let Some(text) = value.as_string() {
            return JsFailure { name: None, message: text };
        }
        if value.is_object() {
            let text_property =
                |key: &str| js_sys::Reflect::get(value, &JsValue::from_str(key)).ok().and_then(|v| v.as_string());
            let name = text_property("name");
            let message = text_property("message");
            if name.is_some() || message.is_some() {
                return JsFailure { name, message: message.unwrap_or_default() };
            }
        }
        JsFailure { name: None, message: crate::host::js_error::js_string(value) }
    }
}

impl fmt::Display for JsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, self.message.is_empty()) {
            (Some(name), false) => write!(f, "{name}: {}", self.message),
            (Some(name), true) => f.write_str(name),
            (None, _) => f.write_str(&self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_the_documented_codes() {
        assert_eq!(StoreError::Unavailable("x".into()).reason(), "unavailable");
        assert_eq!(StoreError::Blocked.reason(), "blocked");
        assert_eq!(StoreError::QuotaExceeded.reason(), "quota");
        assert_eq!(StoreError::Failed("x".into()).reason(), "failed");
    }
}
