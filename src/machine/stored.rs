//! The stored form of records: JSON with a format version, so records written by an older release still
//! load and records from a newer one are refused instead of misread.
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The format version this release writes.
pub const FORMAT_VERSION: u64 = 1;

/// Why a stored record could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredRecordError {
    /// Not an object with a numeric `v`.
    NotARecord,
    /// Written by a newer release; left untouched so that release can still read it.
    NewerVersion(u64),
    /// The fields do not match the format its version names.
    Corrupt(String),
}

impl fmt::Display for StoredRecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotARecord => f.write_str("the stored value is not a task record"),
            Self::NewerVersion(v) => write!(
                f,
                "the record was stored by a newer version (format {v}); this one reads up to {FORMAT_VERSION}"
            ),
            Self::Corrupt(e) => write!(f, "the stored record is damaged: {e}"),
        }
    }
}

impl std::error::Error for StoredRecordError {}

/// Serialises `record` with the current format version in `v`.
pub fn to_stored<T: Serialize>(record: &T) -> Value {
    let mut value = serde_json::to_value(record).unwrap_or(Value::Null);
    if let Value::Object(obj) = &mut value {
        obj.insert("v".into(), Value::from(FORMAT_VERSION));
    }
    value
}

/// Loads a record of any format version up to the current one.
pub fn from_stored<T: DeserializeOwned>(value: &Value) -> Result<T, StoredRecordError> {
    let version = value.get("v").and_then(Value::as_u64).ok_or(StoredRecordError::NotARecord)?;
    match version {
        // Format 1 is the first; later formats add an upgrade step here that rewrites into the current one.
        1 => serde_json::from_value(value.clone()).map_err(|e| StoredRecordError::Corrupt(e.to_string())),
        v if v > FORMAT_VERSION => Err(StoredRecordError::NewerVersion(v)),
        _ => Err(StoredRecordError::NotARecord),
    }
}
