//! The stored form of records: JSON with a format version, so records written by an older release still
//! load and records from a newer one are refused instead of misread.
//!
//! Each stored type writes and reads itself ([`StoredForm`]) with `Fields`; no serde derive, whose
//! generic code was the largest single part of the `.wasm`. The JSON is the same as format 1 has always
//! been (camelCase fields, tagged enums, protocol values in their wire form).
use std::fmt;

use crate::json::{Map, Value};

/// The format version this release writes.
pub(crate) const FORMAT_VERSION: u64 = 1;

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
                "the record was stored by a newer version (format {}); this one reads up to {}",
                crate::text::unsigned(*v),
                crate::text::unsigned(FORMAT_VERSION)
            ),
            Self::Corrupt(e) => write!(f, "the stored record is damaged: {e}"),
        }
    }
}

impl std::error::Error for StoredRecordError {}

/// A value with a stored JSON form.
pub trait StoredForm: Sized {
    /// The JSON written to the store.
    fn to_json(&self) -> Value;
    /// Reads the JSON back; the error says which field is wrong.
    fn from_json(value: &Value) -> Result<Self, String>;
}

/// Serialises `record` with the current format version in `v`.
pub fn to_stored<T: StoredForm>(record: &T) -> Value {
    let mut value = record.to_json();
    if let Value::Object(obj) = &mut value {
        obj.put("v", Value::from(FORMAT_VERSION));
    }
    value
}

/// Loads a record of any format version up to the current one.
pub fn from_stored<T: StoredForm>(value: &Value) -> Result<T, StoredRecordError> {
    let version = value.get("v").and_then(Value::as_u64).ok_or(StoredRecordError::NotARecord)?;
    match version {
        // Format 1 is the first; later formats add an upgrade step here that rewrites into the current one.
        1 => T::from_json(value).map_err(StoredRecordError::Corrupt),
        v if v > FORMAT_VERSION => Err(StoredRecordError::NewerVersion(v)),
        _ => Err(StoredRecordError::NotARecord),
    }
}

/// Field access on a stored object, with errors naming the field. `null` and absent read alike for
/// optional fields.
pub(crate) struct Fields<'a> {
    obj: &'a Map,
    what: &'static str,
}

impl<'a> Fields<'a> {
    /// The object `value` must be; `what` names it in errors.
    pub(crate) fn of(value: &'a Value, what: &'static str) -> Result<Fields<'a>, String> {
        value.as_object().map(|obj| Fields { obj, what }).ok_or_else(|| format!("{what} is not an object"))
    }

    fn wrong(&self, name: &str, expected: &str) -> String {
        format!("{}.{name}: expected {expected}", self.what)
    }

    /// An optional member (`null` reads as absent).
    pub(crate) fn opt(&self, name: &str) -> Option<&'a Value> {
        self.obj.get(name).filter(|v| !v.is_null())
    }

    /// A required member.
    pub(crate) fn get(&self, name: &str) -> Result<&'a Value, String> {
        self.opt(name).ok_or_else(|| self.wrong(name, "a value"))
    }

    /// A required string.
    pub(crate) fn str(&self, name: &str) -> Result<&'a str, String> {
        self.get(name)?.as_str().ok_or_else(|| self.wrong(name, "a string"))
    }

    /// A required boolean.
    pub(crate) fn bool(&self, name: &str) -> Result<bool, String> {
        self.get(name)?.as_bool().ok_or_else(|| self.wrong(name, "true or false"))
    }

    /// A required unsigned integer.
    pub(crate) fn u64(&self, name: &str) -> Result<u64, String> {
        self.get(name)?.as_u64().ok_or_else(|| self.wrong(name, "an unsigned integer"))
    }

    /// An optional unsigned integer.
    pub(crate) fn opt_u64(&self, name: &str) -> Result<Option<u64>, String> {
        self.opt(name).map(|v| v.as_u64().ok_or_else(|| self.wrong(name, "an unsigned integer"))).transpose()
    }

    /// A required integer.
    pub(crate) fn i64(&self, name: &str) -> Result<i64, String> {
        self.get(name)?.as_i64().ok_or_else(|| self.wrong(name, "an integer"))
    }

    /// A required member read by `T`'s stored form.
    pub(crate) fn read<T: StoredForm>(&self, name: &str) -> Result<T, String> {
        T::from_json(self.get(name)?)
    }

    /// An optional member read by `T`'s stored form.
    pub(crate) fn read_opt<T: StoredForm>(&self, name: &str) -> Result<Option<T>, String> {
        self.opt(name).map(T::from_json).transpose()
    }

    /// A required member read by a protocol decoder (its wire form).
    pub(crate) fn wire<T, E: fmt::Display>(
        &self,
        name: &str,
        decode: impl FnOnce(&Value) -> Result<T, E>,
    ) -> Result<T, String> {
        decode(self.get(name)?).map_err(|e| format!("{}.{name}: {e}", self.what))
    }
}

/// `Some(x)` as `x.to_json()`, `None` as `null`.
pub(crate) fn opt_json<T: StoredForm>(value: Option<&T>) -> Value {
    value.map_or(Value::Null, StoredForm::to_json)
}
