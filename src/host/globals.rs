//! The JS globals the runtime needs, looked up on the global object (never `window`), so one `.wasm`
//! runs in pages, workers, Node, Deno and workerd. Each resource is an RAII value whose `Drop` undoes it.
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// The global object (`globalThis`).
pub(crate) fn global() -> JsValue {
    js_sys::global().into()
}

/// A property of the global object, if it is set.
pub(crate) fn global_property(name: &str) -> Option<JsValue> {
    Reflect::get(&global(), &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// A function on the global object.
fn global_function(name: &str) -> Result<Function, JsValue> {
    global_property(name)
        .and_then(|v| v.dyn_into::<Function>().ok())
        .ok_or_else(|| js_sys::Error::new(&format!("this runtime has no global {name}()")).into())
}

/// Current time in ms since the Unix epoch (the machine's clock input).
pub(crate) fn now_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

/// A pending `setTimeout`; dropping it clears the timer.
#[must_use = "dropping a Timeout clears it"]
pub(crate) struct Timeout {
    handle: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timeout {
    /// Calls `callback` once after `ms` milliseconds.
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
        let handle = global_function("setTimeout")?.call2(&global(), closure.as_ref(), &JsValue::from(ms))?;
        Ok(Self { handle, _callback: closure })
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        if let Ok(clear) = global_function("clearTimeout") {
            let _ = clear.call1(&global(), &self.handle);
        }
    }
}

/// An event listener on a JS target; dropping it removes the listener.
#[must_use = "dropping a Listener removes it"]
pub(crate) struct Listener {
    target: JsValue,
    kind: String,
    callback: Closure<dyn FnMut(JsValue)>,
}

impl Listener {
    /// Listens for `kind` on `target` (anything with `addEventListener`). `None` where the target
    /// cannot listen (e.g. `document` in a worker).
    pub(crate) fn new(target: &JsValue, kind: &str, callback: impl FnMut(JsValue) + 'static) -> Option<Self> {
        Self::boxed(target, kind, Box::new(callback))
    }

    /// Not generic, so the listening code is in the .wasm once, not once per callback type.
    fn boxed(target: &JsValue, kind: &str, callback: Box<dyn FnMut(JsValue)>) -> Option<Self> {
        let add = Reflect::get(target, &JsValue::from_str("addEventListener")).ok()?.dyn_into::<Function>().ok()?;
        let callback = Closure::wrap(callback);
        add.call2(target, &JsValue::from_str(kind), callback.as_ref()).ok()?;
        Some(Self { target: target.clone(), kind: kind.to_owned(), callback })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let remove = Reflect::get(&self.target, &JsValue::from_str("removeEventListener"))
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        if let Some(remove) = remove {
            let _ = remove.call2(&self.target, &JsValue::from_str(&self.kind), self.callback.as_ref());
        }
    }
}

/// `navigator.onLine`, or `true` where there is no navigator (Node, workerd).
pub(crate) fn is_online() -> bool {
    global_property("navigator")
        .and_then(|n| Reflect::get(&n, &JsValue::from_str("onLine")).ok())
        .and_then(|v| v.as_bool())
        .unwrap_or(true)
}

/// Whether the page is hidden (`document.visibilityState === "hidden"`); `false` outside pages.
pub(crate) fn is_hidden() -> bool {
    global_property("document")
        .and_then(|d| Reflect::get(&d, &JsValue::from_str("visibilityState")).ok())
        .and_then(|v| v.as_string())
        .is_some_and(|s| s == "hidden")
}

/// Resolves after `ms` milliseconds (a `setTimeout` that owns no Rust closure).
pub async fn sleep(ms: u32) {
    let promise = Promise::new(&mut |resolve, _reject| {
        if let Ok(set_timeout) = global_function("setTimeout") {
            let _ = set_timeout.call2(&global(), &resolve, &JsValue::from(ms));
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
