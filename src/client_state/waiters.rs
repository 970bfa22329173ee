//! `wait(taskId)` as ids: the driver keeps each waiter's JS functions under its id; the state decides
//! when each is settled, and with what. Every removal and `close()` settles the waiters it strands.
use crate::collections::SortedMap;
use crate::error::{ClientError, ErrorKind};

use super::{ClientState, Effect};

/// Waiters by task id, and the counter that names them.
#[derive(Debug, Default)]
pub(super) struct Waiters {
    by_task: SortedMap<String, Vec<String>>,
    next: u64,
}

impl Waiters {
    fn add(&mut self, task: &str) -> String {
        self.next += 1;
        let waiter = format!("w{}", crate::text::unsigned(self.next));
        self.by_task.get_or_insert_with(task.to_owned(), Vec::new).push(waiter.clone());
        waiter
    }

    pub(super) fn take(&mut self, task: &str) -> Vec<String> {
        self.by_task.remove(task).unwrap_or_default()
    }

    pub(super) fn take_all(&mut self) -> Vec<String> {
        let mut all = Vec::new();
        for (_, waiters) in std::mem::take(&mut self.by_task) {
            all.extend(waiters);
        }
        all
    }

    pub(super) fn len(&self) -> usize {
        self.by_task.values().map(Vec::len).sum()
    }
}

/// How a `wait` goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// The task has ended: resolve with its snapshot now.
    Settled,
    /// Registered under this id; an [`Effect::Settle`] names it later.
    Later(String),
}

impl ClientState {
    /// `wait(id)`: settled now, or registered until the task ends or is removed.
    pub fn wait(&mut self, id: &str) -> Result<Wait, ClientError> {
        if self.closed {
            return Err(ClientError::new(ErrorKind::Closed, "wait() on a closed client"));
        }
        match self.records.get(id) {
            None => Err(ClientError::unknown_task(id)),
            Some(record) if record.is_settled() => Ok(Wait::Settled),
            Some(_) => Ok(Wait::Later(self.waiters.add(id))),
        }
    }

    /// Resolves the waiters of task `id`, which has ended.
    pub(super) fn settle_waiters(&mut self, id: &str) {
        for waiter in self.waiters.take(id) {
            self.push(Effect::Settle { waiter, outcome: Ok(id.to_owned()) });
        }
    }

    /// Rejects the waiters of task `id`, which is gone.
    pub(super) fn reject_waiters(&mut self, id: &str, error: &ClientError) {
        for waiter in self.waiters.take(id) {
            self.push(Effect::Settle { waiter, outcome: Err(error.clone()) });
        }
    }
}
