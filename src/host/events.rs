//! The client's events: a JS `EventTarget` the host listens on, fed with `CustomEvent`s whose `detail`
//! is a snapshot, and the system notifications that dispatch on it when clicked. Kept in `browser.js`
//! (see there for when events go out).
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    /// Where the client's events go.
    #[wasm_bindgen(js_name = EventQueue)]
    pub(crate) type Events;
    /// A fresh `EventTarget` (`null` where the runtime has none: events are then skipped, not fatal).
    #[wasm_bindgen(constructor, js_class = EventQueue)]
    pub(crate) fn new() -> Events;
    /// The `EventTarget` hosts listen on (`null` where the runtime has none).
    #[wasm_bindgen(method, getter)]
    pub(crate) fn target(this: &Events) -> JsValue;
    /// `addEventListener` (`add`) or `removeEventListener` on the target.
    #[wasm_bindgen(method)]
    pub(crate) fn listen(this: &Events, add: bool, kind: &str, listener: &JsValue, options: &JsValue);
    /// Queues an event; the queue is dispatched in order on the next macrotask.
    #[wasm_bindgen(method)]
    pub(crate) fn emit(this: &Events, kind: &str, detail: JsValue);

    /// The page's language (the root element's `lang`, else the browser's); `None` when the person has
    /// not allowed notifications (or there is no Notification API).
    #[wasm_bindgen(js_name = noticeLanguage)]
    pub(crate) fn notice_language() -> Option<String>;
    /// Shows a notification (one per `tag`); a click focuses the tab, closes it and dispatches
    /// `notificationclick` with `{ taskId }` on `events`.
    #[wasm_bindgen(js_name = showNotice)]
    pub(crate) fn show_notice(title: &str, body: &str, lang: &str, tag: &str, events: &Events, task_id: &str);
}
