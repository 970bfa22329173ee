//! One error type for the whole xtask: a human-readable message chain.
//!
//! xtask is a command-line tool whose errors are read by people (and CI logs), never matched on
//! by code, so a message string with context prepended is all we need — no error enums, no
//! `anyhow`, and no `unwrap` on anything that comes from outside the process.

use std::fmt;

/// A failure explained in plain words, printed by `main` before exiting non-zero.
#[derive(Debug)]
pub struct Error(String);

/// Shorthand used by every module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds an error from a message that already says what went wrong and what to do.
    pub fn msg(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Adds "what we were doing" in front of a lower-level error (I/O, JSON, ...), so that
/// "No such file or directory" becomes "reading pkg/package.json: No such file or directory".
pub trait Context<T> {
    /// Prefixes the error, if any, with `what`.
    fn context(self, what: impl fmt::Display) -> Result<T>;
}

impl<T, E: fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl fmt::Display) -> Result<T> {
        self.map_err(|e| Error(format!("{what}: {e}")))
    }
}
