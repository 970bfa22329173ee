//! One poller per namespace across tabs: the tab holding a Web Lock polls; the others queue for the lock
//! and take over when it is released (the holder closed or navigated away). Web Locks is bound by hand
//! (web-sys gates it as unstable). Where the runtime has no Web Locks (Node, some workers), every client
//! leads its own.
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::host::globals::global_property;

/// A held or queued lock request; dropping it releases the lock (or leaves the queue).
#[must_use = "dropping Leadership releases the lock"]
pub struct Leadership {
    release: Rc<RefCell<Option<Function>>>,
    abort: Option<web_sys::AbortController>,
    _callback: Closure<dyn FnMut(JsValue) -> Promise>,
}

/// `navigator.locks.request`, if this runtime has it.
fn lock_request() -> Option<(JsValue, Function)> {
    let locks = global_property("navigator").and_then(|n| Reflect::get(&n, &JsValue::from_str("locks")).ok())?;
    let request = Reflect::get(&locks, &JsValue::from_str("request")).ok()?.dyn_into::<Function>().ok()?;
    Some((locks, request))
}

impl Leadership {
    /// Whether this runtime coordinates clients with Web Locks at all.
    pub fn available() -> bool {
        lock_request().is_some()
    }

    /// Queues for the exclusive lock `name`; `on_acquired` runs once this client holds it. `None` when
    /// Web Locks is missing: the caller leads.
    pub fn request(name: &str, on_acquired: impl FnOnce() + 'static) -> Option<Self> {
        let release: Rc<RefCell<Option<Function>>> = Rc::new(RefCell::new(None));
        let slot = release.clone();
        let mut on_acquired = Some(on_acquired);
        let callback = Closure::<dyn FnMut(JsValue) -> Promise>::new(move |_lock: JsValue| {
            if let Some(f) = on_acquired.take() {
                f();
            }
            held_until_released(&slot)
        });
        let abort = web_sys::AbortController::new().ok();
        let options = exclusive();
        if let Some(a) = &abort {
            let _ = Reflect::set(&options, &JsValue::from_str("signal"), a.signal().as_ref());
        }
        call_request(name, &options, &callback)?;
        Some(Self { release, abort, _callback: callback })
    }

    /// Takes the lock `name` at once if no client holds it (`ifAvailable`), for a client that is opening:
    /// holding it before reading the store means that read is current (no other client writes), so the
    /// client need not read everything again before its first poll. `None` when another client holds the
    /// lock or Web Locks is missing.
    pub async fn try_now(name: &str) -> Option<Self> {
        Self::try_start(name)?.decided().await
    }

    /// [`Self::try_now`], asked now and answered by [`Trying::decided`]: an opening client asks while
    /// IndexedDB opens, since on a fresh page each takes tens of milliseconds. `None` without Web Locks.
    pub fn try_start(name: &str) -> Option<Trying> {
        let release: Rc<RefCell<Option<Function>>> = Rc::new(RefCell::new(None));
        let slot = release.clone();
        let wanted = Rc::new(Cell::new(true));
        let still_wanted = wanted.clone();
        let decide: Rc<RefCell<Option<Function>>> = Rc::new(RefCell::new(None));
        let decided = Promise::new(&mut |resolve, _reject| {
            *decide.borrow_mut() = Some(resolve);
        });
        let callback = Closure::<dyn FnMut(JsValue) -> Promise>::new(move |lock: JsValue| {
            // `null` when another client holds the lock.
            let granted = !lock.is_null();
            if let Some(resolve) = decide.borrow_mut().take() {
                let _ = resolve.call1(&JsValue::UNDEFINED, &JsValue::from_bool(granted));
            }
            if granted && still_wanted.get() {
                held_until_released(&slot)
            } else {
                Promise::resolve(&JsValue::UNDEFINED)
            }
        });
        let options = exclusive();
        let _ = Reflect::set(&options, &JsValue::from_str("ifAvailable"), &JsValue::TRUE);
        call_request(name, &options, &callback)?;
        let decided = Some(wasm_bindgen_futures::JsFuture::from(decided));
        Some(Trying { release, wanted, decided, callback: Some(callback) })
    }
}

/// An `ifAvailable` lock request in flight ([`Leadership::try_start`]).
#[must_use = "dropping it gives the lock up; await `decided()`"]
pub struct Trying {
    release: Rc<RefCell<Option<Function>>>,
    /// Cleared when this is dropped undecided: a grant that comes later is given back at once.
    wanted: Rc<Cell<bool>>,
    decided: Option<wasm_bindgen_futures::JsFuture>,
    callback: Option<Closure<dyn FnMut(JsValue) -> Promise>>,
}

impl Trying {
    /// The lock, if it was free.
    pub async fn decided(mut self) -> Option<Leadership> {
        let granted = self.decided.take()?.await.ok()?.as_bool()?;
        let callback = self.callback.take()?;
        // The release slot goes with the lock, so dropping `self` does not give it back.
        let release = std::mem::replace(&mut self.release, Rc::new(RefCell::new(None)));
        granted.then_some(Leadership { release, abort: None, _callback: callback })
    }
}

impl Drop for Trying {
    /// Not granted, or dropped before it was decided: nothing is held, and the callback, which the lock
    /// manager may still call, is kept alive (it then gives the lock straight back).
    fn drop(&mut self) {
        self.wanted.set(false);
        if let Some(resolve) = self.release.borrow_mut().take() {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
        if let Some(callback) = self.callback.take() {
            callback.forget();
        }
    }
}

/// `{ mode: "exclusive" }`.
fn exclusive() -> js_sys::Object {
    let options = js_sys::Object::new();
    let _ = Reflect::set(&options, &JsValue::from_str("mode"), &JsValue::from_str("exclusive"));
    options
}

/// What a lock callback returns while it holds the lock: a promise that settles only when the
/// resolver it leaves in `slot` is called (on release).
fn held_until_released(slot: &Rc<RefCell<Option<Function>>>) -> Promise {
    let slot = slot.clone();
    Promise::new(&mut |resolve, _reject| {
        *slot.borrow_mut() = Some(resolve);
    })
}

/// `navigator.locks.request(name, options, callback)`; `None` without Web Locks. A request aborted
/// while queued rejects; that is expected on close, not an error, so the rejection is ignored.
fn call_request(name: &str, options: &js_sys::Object, callback: &Closure<dyn FnMut(JsValue) -> Promise>) -> Option<()> {
    let (locks, request) = lock_request()?;
    let queued = request.call3(&locks, &JsValue::from_str(name), options, callback.as_ref()).ok()?;
    if let Some(p) = queued.dyn_ref::<Promise>() {
        let ignore = Closure::<dyn FnMut(JsValue)>::new(|_| {});
        let _ = p.catch(&ignore);
        ignore.forget();
    }
    Some(())
}

impl Drop for Leadership {
    fn drop(&mut self) {
        if let Some(resolve) = self.release.borrow_mut().take() {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        } else if let Some(abort) = &self.abort {
            abort.abort();
        }
    }
}
