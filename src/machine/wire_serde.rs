//! Stores protocol values inside records in their wire form, so a stored record reads like the
//! protocol and loads with the same decoders as a server reply.
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::protocol::input::InputResponse;
use crate::protocol::task::DetailedTask;
use crate::protocol::DecodeError;

/// A protocol value with a JSON wire form.
pub(crate) trait WireForm: Sized {
    fn to_wire(&self) -> Value;
    fn from_wire(value: &Value) -> Result<Self, DecodeError>;
}

impl WireForm for InputResponse {
    fn to_wire(&self) -> Value {
        self.to_json()
    }
    fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        Self::from_json(value)
    }
}

impl WireForm for DetailedTask {
    fn to_wire(&self) -> Value {
        self.to_json()
    }
    /// Lenient: a stored record may hold a bare handle, which carries no result, error or requests.
    fn from_wire(value: &Value) -> Result<Self, DecodeError> {
        Self::from_json_lenient(value)
    }
}

/// `#[serde(with = "wire")]` for any [`WireForm`] field.
pub(crate) fn serialize<T: WireForm, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    value.to_wire().serialize(s)
}

/// See [`serialize`].
pub(crate) fn deserialize<'de, T: WireForm, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let value = Value::deserialize(d)?;
    T::from_wire(&value).map_err(serde::de::Error::custom)
}
