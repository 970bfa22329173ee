//! Talking to the server: `fetch` POSTs with the protocol's headers, JSON or SSE answers, timeouts,
//! aborts, and errors as data.
mod error;
mod fetch;

pub use error::{parse_retry_after, TransportError};
pub use fetch::{FetchTransport, ListenEnd, ListenEvent};
