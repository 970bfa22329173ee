//! JSON values, parsing and writing: the one JSON layer of the crate, protocol to bindings.
//!
//! Our own instead of `serde_json`: the shipped `.wasm` pays for every generic instantiation, and a
//! value tree with a hand-written parser and writer is a fraction of serde's size (the size budget:
//! docs/decisions/0002-own-json-layer.md). Objects keep the order the server wrote (forms show fields in that order) in a `Vec`,
//! and numbers keep their literal text, so a number is written back exactly as it was read and no
//! float formatting or parsing code is needed on the wire path: numbers are compared exactly on their
//! digits (`decimal`), and only locally computed ones are formatted from `f64` (`float`, native tools).
//!
//! With the `serde` feature (native tools such as the reference server) [`Value`] also implements
//! `serde::Serialize`/`Deserialize`.

mod decimal;
mod float;
mod index;
mod macros;
mod map;
mod number;
pub(crate) mod parse;
mod raw;
#[cfg(feature = "serde")]
mod serde_impl;
mod value;
mod write;

pub use map::{Map, PutKey};
pub(crate) use number::{digits_value, integer_value};
pub use number::{NotANumber, Number};
pub use parse::{from_own_str, from_str, from_str_keeping, ParseError};
pub use raw::RawJson;
pub(crate) use value::{string_items, string_values};
pub use value::{ToJson, Value};
pub use write::{to_string, to_string_pretty};

#[doc(inline)]
pub use crate::json;
