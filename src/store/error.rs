//! Why a store operation failed, as plain Rust data.
//!
//! JavaScript failures (a `DOMException` from IndexedDB, an `Error` a host store threw or rejected
//! with, a value of the wrong shape) are snapshotted into a [`StoreError`] at the point where they
//! happen, so nothing above this module ever sees a `JsValue` or has a reason to unwrap one.

use std::fmt;

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
