//! Group commit for a polling client's record writes. Writes that arrive while one is running go out
//! together in the next, one transaction for all of them: at 1,000 restored handles a transaction per
//! changed record kept the main thread and IndexedDB busy for seconds while requests waited.
//! Step mode does not come here: its writes are compare-and-put, one record at a time.
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::collections::SortedSet;
use crate::host::spawn::spawn;
use crate::machine::stored::to_stored;

use super::*;

/// The writes waiting for the next group, and whether a group is being written.
#[derive(Default)]
pub(super) struct WriteQueue {
    /// Ids whose records the next group writes (as they are then, so later changes ride along).
    dirty: SortedSet<String>,
    /// What the callers waiting for the next group wait on.
    next: Rc<Group>,
    /// A group is being written; it takes the next one when it is done.
    running: bool,
}

/// One group write, awaited by every caller whose record it carries.
#[derive(Default)]
struct Group {
    /// `Some(true)` once written, `Some(false)` if the store failed.
    outcome: Cell<Option<bool>>,
    wakers: RefCell<Vec<Waker>>,
}

impl Group {
    fn finish(&self, written: bool) {
        self.outcome.set(Some(written));
        for waker in self.wakers.take() {
            waker.wake();
        }
    }
}

/// Resolves when its group has been written (`true`) or the store failed (`false`).
struct GroupDone(Rc<Group>);

impl Future for GroupDone {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        match self.0.outcome.get() {
            Some(written) => Poll::Ready(written),
            None => {
                self.0.wakers.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl ClientCore {
    /// Writes record `id` with the next group; returns once that group is in the store.
    pub(super) async fn write_grouped(&self, id: &str) -> Written {
        let group = {
            let mut queue = self.writes.borrow_mut();
            queue.dirty.insert(id.to_owned());
            queue.next.clone()
        };
        self.start_writing();
        if GroupDone(group).await {
            Written::Ours
        } else {
            Written::Failed
        }
    }

    /// Starts the group writer unless it is running.
    fn start_writing(&self) {
        let Some(core) = self.me.upgrade() else { return };
        {
            let mut queue = self.writes.borrow_mut();
            if queue.running {
                return;
            }
            queue.running = true;
        }
        spawn(async move { core.write_groups().await });
    }

    /// Writes groups until nothing is waiting.
    async fn write_groups(self: Rc<Self>) {
        loop {
            let (ids, group) = {
                let mut queue = self.writes.borrow_mut();
                if queue.dirty.is_empty() {
                    queue.running = false;
                    return;
                }
                (std::mem::take(&mut queue.dirty), std::mem::take(&mut queue.next))
            };
            // A record forgotten since it was queued is not written back.
            let (written, entries): (Vec<String>, Vec<(String, String)>) = {
                let records = self.records.borrow();
                ids.iter()
                    .filter_map(|id| Some((id.clone(), (self.keys.task(id), to_stored(records.get(id)?).to_string()))))
                    .unzip()
            };
            let store = self.store.borrow().clone();
            match store.put_all(&entries).await {
                Ok(()) => {
                    for (id, (key, text)) in written.into_iter().zip(entries) {
                        if self.records.borrow().contains_key(&id) {
                            self.versions.borrow_mut().insert(id, text);
                        } else {
                            // Forgotten while the group was being written: delete it again after it.
                            let _ = store.delete(&key).await;
                        }
                    }
                    group.finish(true);
                }
                Err(e) => {
                    self.storage_failed(&e);
                    group.finish(false);
                }
            }
        }
    }
}
