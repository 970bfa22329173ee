//! What a `subscriptions/listen` stream's messages and its end mean, decided once for both drivers
//! (the Rust transport and the JS driver's door): each only reads bytes and hands the messages here.
use super::TransportError;
use crate::client_state::ListenEnd;
use crate::json::Value;
use crate::protocol::jsonrpc::{decode_message_value, Incoming, RpcErrorKind};
use crate::protocol::subscriptions::ServerNotification;
use crate::protocol::task::DetailedTask;
use crate::protocol::DecodeError;

/// What a listen stream delivers.
pub(crate) enum ListenEvent {
    /// The task ids the server accepted; the others must still be polled.
    Acknowledged(Vec<String>),
    /// A task's full state, handled like a `tasks/get` result.
    Task(Box<DetailedTask>),
    /// Bytes arrived (a keep-alive comment is enough): the stream is alive.
    Bytes,
}

/// One message of the stream other than the listen's own response. `None` for a notification the
/// client does not read (progress, say); anything that is no notification still shows the stream is
/// alive. A task's state the client cannot read is an error: the stream is ended rather than let it
/// pass unseen, and its tasks are polled, where the failure shows on each (one asking more questions
/// than the host's limit was refused as it was read, with the same effect).
pub(crate) fn listen_event(message: Value) -> Result<Option<ListenEvent>, DecodeError> {
    let Ok(Incoming::Notification { method, params }) = decode_message_value(message) else {
        return Ok(Some(ListenEvent::Bytes));
    };
    match ServerNotification::decode(&method, &params) {
        Ok(ServerNotification::SubscriptionAcknowledged { accepted, .. }) => {
            Ok(Some(ListenEvent::Acknowledged(accepted.task_ids.unwrap_or_default())))
        }
        Ok(ServerNotification::TaskStatus { task, .. }) => Ok(Some(ListenEvent::Task(Box::new(task)))),
        Err(e) if method == "notifications/tasks" => Err(e),
        _ => Ok(None),
    }
}

/// How a stream that ended with `error` (`None`: the server closed it with the listen result) reads
/// for the state: a server that turns out not to offer the method is not asked again.
pub(crate) fn listen_end(error: Option<&TransportError>) -> ListenEnd {
    match error {
        None => ListenEnd::Closed,
        Some(TransportError::Rpc(e))
            if matches!(e.kind(), RpcErrorKind::MethodNotFound | RpcErrorKind::MissingRequiredClientCapability) =>
        {
            ListenEnd::Unsupported
        }
        Some(_) => ListenEnd::Dropped,
    }
}
