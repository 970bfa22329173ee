//! What a server's answer means, for the door: errors as data, the JSON-RPC reply of a request, the
//! listen stream's messages. The HTTP half is the driver's (`http.js`).
mod challenge;
mod error;
pub(crate) mod listen_stream;
pub(crate) mod reply;

pub(crate) use challenge::parse_challenge;
pub(crate) use error::{parse_retry_after, TransportError};
