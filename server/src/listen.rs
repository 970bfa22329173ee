//! `subscriptions/listen`: an SSE stream that acknowledges the task ids it accepted, sends each one's
//! current state, then every change, and ends with the listen result once all of them have ended.
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use futures_util::stream::{self, Stream};
use mcp_tasks_web::json::Value;
use mcp_tasks_web::protocol::jsonrpc::{RequestId, Response};
use mcp_tasks_web::protocol::subscriptions::{
    acknowledged_notification, listen_closed_result, task_notification, ListenFilter,
};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::engine::{Engine, TaskChanged};

/// The body of a listen response.
pub type ListenStream = std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>>;

/// How often an idle stream sends an SSE comment, so proxies and clients see it alive.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

struct Listen {
    engine: Arc<Engine>,
    owner: String,
    id: RequestId,
    /// Accepted tasks that have not ended.
    open: BTreeSet<String>,
    changes: broadcast::Receiver<TaskChanged>,
    /// Events ready to send.
    queue: std::collections::VecDeque<Bytes>,
    done: bool,
}

fn event(message: &Value) -> Bytes {
    Bytes::from(format!("event: message\ndata: {message}\n\n"))
}

impl Listen {
    /// Queues the current state of `id`; forgets it if it ended or vanished.
    fn push_state(&mut self, id: &str) {
        match self.engine.get(&self.owner, id) {
            Ok(row) => {
                self.queue.push_back(event(&task_notification(&self.id, &row.to_detailed())));
                if row.is_terminal() {
                    self.open.remove(id);
                }
            }
            Err(_) => {
                self.open.remove(id);
            }
        }
    }

    fn finish_if_idle(&mut self) {
        if self.open.is_empty() && !self.done {
            let closing = Response::result(self.id.clone(), listen_closed_result(&self.id));
            self.queue.push_back(event(&closing.to_json()));
            self.done = true;
        }
    }
}

/// Opens a listen stream for `owner`. Only the caller's existing tasks are accepted.
pub fn open(engine: Arc<Engine>, owner: String, id: RequestId, filter: ListenFilter) -> ListenStream {
    // Subscribe before reading any state, so no change can fall between the two.
    let changes = engine.subscribe();
    let requested = filter.task_ids.clone().unwrap_or_default();
    let accepted: Vec<String> = requested.into_iter().filter(|t| engine.get(&owner, t).is_ok()).collect();
    let accepted_filter = ListenFilter::tasks(accepted.clone());
    let mut listen = Listen {
        engine,
        owner,
        id: id.clone(),
        open: accepted.iter().cloned().collect(),
        changes,
        queue: Default::default(),
        done: false,
    };
    listen.queue.push_back(event(&acknowledged_notification(&id, &accepted_filter)));
    for task in &accepted {
        listen.push_state(task);
    }
    listen.finish_if_idle();
    Box::pin(stream::unfold(listen, |mut listen| async move {
        loop {
            if let Some(bytes) = listen.queue.pop_front() {
                return Some((Ok(bytes), listen));
            }
            if listen.done {
                return None;
            }
            match tokio::time::timeout(KEEP_ALIVE, listen.changes.recv()).await {
                Err(_) => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), listen)),
                Ok(Ok(TaskChanged { id })) => {
                    if listen.open.contains(&id) {
                        listen.push_state(&id);
                        listen.finish_if_idle();
                    }
                }
                Ok(Err(RecvError::Lagged(_))) => {
                    let ids: Vec<String> = listen.open.iter().cloned().collect();
                    for id in ids {
                        listen.push_state(&id);
                    }
                    listen.finish_if_idle();
                }
                // The engine is gone (shutdown): end without a result, as an abrupt close.
                Ok(Err(RecvError::Closed)) => return None,
            }
        }
    }))
}
