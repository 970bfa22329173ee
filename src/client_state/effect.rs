//! What [`super::ClientState`] asks its driver to do. Effects carry ids, never JS values: the driver
//! turns them into fetches, store calls, events and channel messages.
use crate::error::ClientError;
use crate::machine::pending::PendingCall;
use crate::machine::record::Action;

use super::tab_message::TabMessage;

/// One thing for the driver to carry out, in the order they were queued.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Start an exchange for task `id`. `slot`: it holds one of the request slots, and its answer must
    /// come back through [`super::ClientState::on_exchange_done`] with `slot: true`.
    Send {
        /// The task.
        id: String,
        /// What to send.
        action: Action,
        /// Whether it holds a request slot.
        slot: bool,
    },
    /// Task `id` changed in a way a host can see: write it, then call
    /// [`super::ClientState::announce`] once it is stored.
    Store(String),
    /// Delete this store key.
    Delete(String),
    /// Write `text` under store key `key` (a record of the server's, not of a task).
    Save {
        /// The store key.
        key: String,
        /// Its text.
        text: String,
    },
    /// Emit the `task` event with the snapshot of `id`.
    EmitTask(String),
    /// Show the system notification for task `id` (it needs input or ended while the page is hidden).
    Notify(String),
    /// Emit the `forget` event: the task or call `id` is gone.
    EmitForget(String),
    /// Emit the `call` event: a call found at open whose outcome is unknown.
    EmitCall(PendingCall),
    /// Emit the `storage` event with this reason.
    EmitStorage(String),
    /// Emit the `auth` event with this detail: the server asks for sign-in, or no longer does.
    EmitAuth(crate::json::Value),
    /// Post a message to the other tabs of the namespace.
    Post(TabMessage),
    /// Settle the `wait` registered as `waiter`: with the snapshot of task `Ok(id)`, or rejected.
    Settle {
        /// The waiter's id.
        waiter: String,
        /// The task whose snapshot resolves it, or the error that rejects it.
        outcome: Result<String, ClientError>,
    },
    /// Ask the server whether it offers `subscriptions/listen` (`server/discover`); the answer goes to
    /// [`super::ClientState::on_discovered`].
    Discover,
    /// Open a listen stream for these tasks; its events carry `generation`.
    Listen {
        /// Tells this stream's events from a closed one's.
        generation: u64,
        /// The tasks asked for.
        ids: Vec<String>,
    },
    /// Close the open listen stream.
    StopListening,
    /// Open the 2025-11-25 session's GET stream; its end goes to
    /// [`super::ClientState::on_session_stream_end`].
    OpenSessionStream,
    /// Close the session's GET stream.
    CloseSessionStream,
    /// A pass ran: set the one timer to [`super::ClientState::next_wakeup`].
    Rearm,
}
