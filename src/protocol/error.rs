//! Why a message could not be decoded: one typed error for every decoder in `protocol`.
use std::fmt;

/// A message from a peer that this crate refuses to interpret, with enough detail for a person to act.
///
/// Decoders return this instead of panicking or guessing: a client that misreads a task result could
/// settle the wrong outcome, so anything outside what the spec (and real servers) send is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes are not JSON at all.
    NotJson {
        /// What the JSON parser said.
        detail: String,
    },
    /// A value that must be a JSON object is something else.
    NotAnObject {
        /// Which message part was expected to be an object.
        what: &'static str,
    },
    /// A required field is absent.
    MissingField {
        /// The message part that lacks it.
        what: &'static str,
        /// The wire name of the field.
        field: &'static str,
    },
    /// A field is present with the wrong JSON type.
    WrongType {
        /// The message part holding the field.
        what: &'static str,
        /// The wire name of the field.
        field: String,
        /// The JSON type the spec gives it.
        expected: &'static str,
    },
    /// A field that must be a non-negative integer (milliseconds) holds a fraction or a negative number.
    NotAnInteger {
        /// The wire name of the field.
        field: &'static str,
        /// The value as it arrived.
        found: String,
    },
    /// `resultType` names a kind this client does not know; the spec requires treating it as invalid.
    UnknownResultType {
        /// The value as it arrived.
        found: String,
    },
    /// A known `resultType` arrived for a method that cannot produce it (e.g. `task` for `tasks/get`).
    UnexpectedResultType {
        /// The method whose result this was.
        method: &'static str,
        /// The `resultType` that arrived.
        found: String,
    },
    /// `status` is not one of the five task statuses.
    UnknownStatus {
        /// The value as it arrived.
        found: String,
    },
    /// A task status arrived without the field the spec requires for it (`result`, `error`, `inputRequests`).
    MissingStatusDetail {
        /// The task status, as on the wire.
        status: &'static str,
        /// The field that must accompany it.
        field: &'static str,
    },
    /// The JSON-RPC envelope itself is malformed.
    InvalidEnvelope {
        /// What is wrong with it.
        detail: String,
    },
    /// The message uses the 2025-11-25 (legacy) task shape, which this 2026-07-28 client does not drive.
    LegacyShape {
        /// Which legacy marker was found.
        detail: &'static str,
    },
    /// The `initialize` answer names a protocol version this client does not speak (2025-11-25 flow only).
    UnknownProtocolVersion {
        /// The version the server chose.
        found: String,
    },
    /// A message (or one line or event of a stream) is larger than the client accepts.
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// The limit, in bytes.
        limit: usize,
    },
    /// A value breaks a rule of the spec not covered above.
    Invalid {
        /// The message part.
        what: &'static str,
        /// The rule that was broken.
        detail: String,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotJson { detail } => write!(f, "the server's reply is not valid JSON ({detail})"),
            Self::NotAnObject { what } => write!(f, "{what} must be a JSON object"),
            Self::MissingField { what, field } => write!(f, "{what} is missing the required field `{field}`"),
            Self::WrongType { what, field, expected } => {
                write!(f, "{what} field `{field}` must be {expected}")
            }
            Self::NotAnInteger { field, found } => {
                write!(f, "`{field}` must be a non-negative whole number of milliseconds, got {found}")
            }
            Self::UnknownResultType { found } => write!(
                f,
                "unknown resultType \"{found}\": the server sent a result kind this client does not understand"
            ),
            Self::UnexpectedResultType { method, found } => {
                write!(f, "resultType \"{found}\" is not a valid answer to {method}")
            }
            Self::UnknownStatus { found } => write!(f, "unknown task status \"{found}\""),
            Self::MissingStatusDetail { status, field } => {
                write!(f, "a task with status \"{status}\" must carry `{field}`")
            }
            Self::InvalidEnvelope { detail } => write!(f, "malformed JSON-RPC message: {detail}"),
            Self::LegacyShape { detail } => write!(
                f,
                "the server answered with the 2025-11-25 task format ({detail}); this client speaks protocol 2026-07-28"
            ),
            Self::UnknownProtocolVersion { found } => write!(
                f,
                "the server chose protocol version \"{found}\", which this client cannot speak; it offers no tasks here"
            ),
            Self::TooLarge { what, limit } => {
                write!(f, "the server sent a {what} larger than this client accepts ({limit} bytes)")
            }
            Self::Invalid { what, detail } => write!(f, "invalid {what}: {detail}"),
        }
    }
}

impl std::error::Error for DecodeError {}
