//! One poller per namespace across tabs: the tab holding a Web Lock polls; the others queue for the lock
//! and take over when it is released (the holder closed or navigated away). Where the runtime has no
//! Web Locks (Node, some workers), every client leads its own. The lock requests themselves are in
//! `browser.js` (web-sys gates Web Locks as unstable, and promises and lock callbacks cost far less
//! there than as closures in the .wasm).
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    /// A lock request of `browser.js`: `release()` gives the lock back (or leaves the queue).
    type LockRequest;
    #[wasm_bindgen(method)]
    fn release(this: &LockRequest);
    /// For an `ifAvailable` request: whether the lock was granted.
    #[wasm_bindgen(method, getter)]
    fn decided(this: &LockRequest) -> js_sys::Promise;

    #[wasm_bindgen(js_name = requestLock)]
    fn request_lock(name: &str, on_acquired: &Closure<dyn FnMut()>) -> Option<LockRequest>;
    #[wasm_bindgen(js_name = tryLock)]
    fn try_lock(name: &str) -> Option<LockRequest>;
}

/// A held or queued lock request; dropping it releases the lock (or leaves the queue).
#[must_use = "dropping Leadership releases the lock"]
pub struct Leadership {
    request: LockRequest,
    /// Called by the lock manager when the lock is granted; lives as long as the request.
    _on_acquired: Option<Closure<dyn FnMut()>>,
}

impl Leadership {
    /// Queues for the exclusive lock `name`; `on_acquired` runs once this client holds it. `None` when
    /// Web Locks is missing: the caller leads.
    pub fn request(name: &str, on_acquired: impl FnOnce() + 'static) -> Option<Self> {
        let mut on_acquired = Some(on_acquired);
        let on_acquired = Closure::<dyn FnMut()>::new(move || {
            if let Some(f) = on_acquired.take() {
                f();
            }
        });
        let request = request_lock(name, &on_acquired)?;
        Some(Self { request, _on_acquired: Some(on_acquired) })
    }

    /// Takes the lock `name` if no client holds it (`ifAvailable`), asked now and answered by
    /// [`Trying::decided`], for a client that is opening: holding it before reading the store means
    /// that read is current (no other client writes), so the client need not read everything again
    /// before its first poll. It asks while IndexedDB opens, since on a fresh page each takes tens of
    /// milliseconds. `None` without Web Locks.
    pub fn try_start(name: &str) -> Option<Trying> {
        try_lock(name).map(|request| Trying { request: Some(request) })
    }
}

/// An `ifAvailable` lock request in flight ([`Leadership::try_start`]).
#[must_use = "dropping it gives the lock up; await `decided()`"]
pub struct Trying {
    request: Option<LockRequest>,
}

impl Trying {
    /// The lock, if it was free.
    pub async fn decided(mut self) -> Option<Leadership> {
        let decided = self.request.as_ref()?.decided();
        let granted = wasm_bindgen_futures::JsFuture::from(decided).await.ok()?.as_bool()?;
        // The request goes with the lock, so dropping `self` does not give it back.
        let request = self.request.take().filter(|_| granted)?;
        Some(Leadership { request, _on_acquired: None })
    }
}

impl Drop for Trying {
    /// Not granted, or dropped before it was decided: nothing is held, and a grant that comes later is
    /// given straight back.
    fn drop(&mut self) {
        if let Some(request) = &self.request {
            request.release();
        }
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        self.request.release();
    }
}
