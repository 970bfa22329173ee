//! The JS globals the runtime needs, looked up on the global object (never `window`), so one `.wasm`
//! runs in pages, workers, Node, Deno and workerd. Each resource is an RAII value whose `Drop` undoes it.
use wasm_bindgen::prelude::*;

/// The global object (`globalThis`).
#[cfg(all(feature = "element", not(feature = "door")))]
pub(crate) fn global() -> JsValue {
    js_sys::global().into()
}

/// A property of the global object, if it is set (the element's `document`).
#[cfg(all(feature = "element", not(feature = "door")))]
pub(crate) fn global_property(name: &str) -> Option<JsValue> {
    js_sys::Reflect::get(&global(), &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// Current time in ms since the Unix epoch (the machine's clock input).
pub(crate) fn now_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    type Timer;
    #[wasm_bindgen(constructor, catch)]
    fn new(ms: u32, callback: &Closure<dyn FnMut()>) -> Result<Timer, JsValue>;
    #[wasm_bindgen(method)]
    fn clear(this: &Timer);
    #[wasm_bindgen(static_method_of = Timer)]
    fn sleep(ms: u32) -> js_sys::Promise;

    /// The page's signals, and its `localStorage` (see `local_storage`).
    pub(crate) type Page;
    #[wasm_bindgen(static_method_of = Page)]
    fn online() -> bool;
    #[wasm_bindgen(static_method_of = Page)]
    fn hidden() -> bool;
    /// `localStorage.getItem(key)`; `None` where there is no storage or it refuses.
    #[wasm_bindgen(static_method_of = Page)]
    pub(crate) fn stored(key: &str) -> Option<String>;
    /// `localStorage.setItem(key, value)`, or `removeItem(key)` for `None`; a refusal is left unsaid.
    #[wasm_bindgen(static_method_of = Page)]
    pub(crate) fn store(key: &str, value: Option<String>);
    #[wasm_bindgen(static_method_of = Page)]
    fn watch(on_connectivity: &Closure<dyn FnMut()>, on_visibility: &Closure<dyn FnMut(bool)>) -> js_sys::Function;
}

/// A pending `setTimeout`; dropping it clears the timer.
#[must_use = "dropping a Timeout clears it"]
pub(crate) struct Timeout {
    timer: Timer,
    _callback: Closure<dyn FnMut()>,
}

impl Timeout {
    /// Calls `callback` once after `ms` milliseconds. Fails where the runtime has no `setTimeout`.
    pub(crate) fn new(ms: u32, callback: impl FnOnce() + 'static) -> Result<Self, JsValue> {
        Self::boxed(ms, Box::new(callback))
    }

    /// Not generic, so the timer code is in the .wasm once, not once per callback type.
    fn boxed(ms: u32, callback: Box<dyn FnOnce()>) -> Result<Self, JsValue> {
        let mut callback = Some(callback);
        let closure = Closure::<dyn FnMut()>::new(move || {
            if let Some(f) = callback.take() {
                f();
            }
        });
        let timer = Timer::new(ms, &closure)?;
        Ok(Self { timer, _callback: closure })
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        self.timer.clear();
    }
}

/// The page's connectivity and visibility events, while this is kept; dropping it stops listening.
#[must_use = "dropping a PageWatch stops it"]
pub(crate) struct PageWatch {
    stop: js_sys::Function,
    _on_connectivity: Closure<dyn FnMut()>,
    _on_visibility: Closure<dyn FnMut(bool)>,
}

impl PageWatch {
    /// Calls `on_connectivity` when the runtime goes online or offline or the page comes back from
    /// the bfcache, and `on_visibility` with whether the page is now hidden when that changes (where
    /// the runtime has these events).
    pub(crate) fn new(on_connectivity: Box<dyn FnMut()>, on_visibility: Box<dyn FnMut(bool)>) -> Self {
        let (on_connectivity, on_visibility) = (Closure::wrap(on_connectivity), Closure::wrap(on_visibility));
        let stop = Page::watch(&on_connectivity, &on_visibility);
        Self { stop, _on_connectivity: on_connectivity, _on_visibility: on_visibility }
    }
}

impl Drop for PageWatch {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::UNDEFINED);
    }
}

/// `navigator.onLine`, or `true` where there is no navigator (Node, workerd).
pub(crate) fn is_online() -> bool {
    Page::online()
}

/// Whether the page is hidden (`document.visibilityState === "hidden"`); `false` outside pages.
pub(crate) fn is_hidden() -> bool {
    Page::hidden()
}

/// Resolves after `ms` milliseconds (a `setTimeout` that owns no Rust closure).
pub async fn sleep(ms: u32) {
    let _ = wasm_bindgen_futures::JsFuture::from(Timer::sleep(ms)).await;
}
