//! A value set once and awaited by any number of futures: a `wait` resolved by the state's `Settle`,
//! a group write its callers wait for, a reply from the polling tab raced against a timeout. The first
//! value set wins; later ones are ignored.
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// The shared slot.
pub(crate) struct Once<T> {
    value: RefCell<Option<T>>,
    wakers: RefCell<Vec<Waker>>,
}

impl<T: Clone> Once<T> {
    /// An empty slot.
    pub(crate) fn new() -> Rc<Self> {
        Rc::new(Self { value: RefCell::new(None), wakers: RefCell::new(Vec::new()) })
    }

    /// Sets the value (unless one is set) and wakes every waiting future.
    pub(crate) fn set(&self, value: T) {
        {
            let mut slot = self.value.borrow_mut();
            if slot.is_some() {
                return;
            }
            *slot = Some(value);
        }
        wake_all(&self.wakers);
    }

    /// Resolves with the value once it is set.
    pub(crate) fn get(self: &Rc<Self>) -> OnceFuture<T> {
        OnceFuture(self.clone())
    }
}

/// Resolves with a [`Once`]'s value.
pub(crate) struct OnceFuture<T>(Rc<Once<T>>);

impl<T: Clone> Future for OnceFuture<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        if let Some(value) = self.0.value.borrow().clone() {
            return Poll::Ready(value);
        }
        wait(&self.0.wakers, cx);
        Poll::Pending
    }
}

/// The waker half of [`Once`], not generic: one copy serves every value type.
fn wake_all(wakers: &RefCell<Vec<Waker>>) {
    for waker in wakers.take() {
        waker.wake();
    }
}

/// Registers the polling task to be woken by [`wake_all`].
fn wait(wakers: &RefCell<Vec<Waker>>, cx: &Context<'_>) {
    wakers.borrow_mut().push(cx.waker().clone());
}
