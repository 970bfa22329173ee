//! Talking to the server: `fetch` POSTs with the protocol's headers, JSON or SSE answers, timeouts,
//! aborts, and errors as data.
mod error;
mod fetch;
pub(crate) mod listen_stream;
pub(crate) mod reply;
pub(crate) mod task_answer;

pub(crate) use error::{parse_retry_after, TransportError};
#[cfg(feature = "legacy")]
pub(crate) use fetch::Exchange;
pub(crate) use fetch::FetchTransport;
pub(crate) use listen_stream::ListenEvent;
