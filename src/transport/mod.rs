//! Talking to the server: `fetch` POSTs with the protocol's headers, JSON or SSE answers, timeouts,
//! aborts, and errors as data.
mod error;
mod fetch;
pub(crate) mod listen_stream;
pub(crate) mod reply;
pub(crate) mod task_answer;

pub(crate) use error::{parse_retry_after, TransportError};
pub(crate) use fetch::FetchTransport;
#[cfg(feature = "legacy")]
pub(crate) use fetch::{Answer, Exchange};
pub(crate) use listen_stream::ListenEvent;
