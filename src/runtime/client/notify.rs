//! The system notification of a task that needs the person, or ended, while the page was hidden
//! (opt-in `notify`; [`crate::client_state::ClientState`] decides when, once across tabs). Shown
//! through the Notification API only when the person already granted it: asking needs a gesture
//! the host provides (`requestNotificationPermission()`). A click brings the tab forward and tells
//! the page which task (the `notificationclick` event; the element focuses that card).
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use super::ClientCore;
use crate::host::globals;
use crate::host::js_json::to_js;
use crate::json::json;
use crate::notice::notice;

/// The page's language: the root element's `lang`, else the browser's.
fn page_language() -> String {
    let root = globals::global_property("document")
        .and_then(|d| Reflect::get(&d, &JsValue::from_str("documentElement")).ok())
        .and_then(|e| Reflect::get(&e, &JsValue::from_str("lang")).ok())
        .and_then(|l| l.as_string())
        .filter(|l| !l.is_empty());
    root.or_else(|| {
        globals::global_property("navigator")
            .and_then(|n| Reflect::get(&n, &JsValue::from_str("language")).ok())
            .and_then(|l| l.as_string())
    })
    .unwrap_or_default()
}

fn set(target: &JsValue, name: &str, value: &JsValue) {
    let _ = Reflect::set(target, &JsValue::from_str(name), value);
}

/// Calls `target[name]()` if it is a function (page code may have replaced it).
fn call(target: &JsValue, name: &str) {
    if let Some(f) = Reflect::get(target, &JsValue::from_str(name)).ok().and_then(|f| f.dyn_into::<Function>().ok()) {
        let _ = f.call0(target);
    }
}

/// The `Notification` constructor, where the platform has one.
fn notification_api() -> Option<Function> {
    globals::global_property("Notification").and_then(|n| n.dyn_into::<Function>().ok())
}

/// `Notification.requestPermission()`: the permission, or `"unsupported"` where there is no API.
pub(crate) fn request_permission() -> Promise {
    let Some(api) = notification_api() else { return Promise::resolve(&JsValue::from_str("unsupported")) };
    let ask = Reflect::get(&api, &JsValue::from_str("requestPermission")).ok();
    match ask.and_then(|f| f.dyn_into::<Function>().ok()).map(|f| f.call0(&api)) {
        Some(Ok(answer)) => Promise::resolve(&answer),
        Some(Err(e)) => Promise::reject(&e),
        None => Promise::resolve(&JsValue::from_str("unsupported")),
    }
}

impl ClientCore {
    /// Shows task `id`'s notification, if the person allowed notifications.
    pub(super) fn show_notice(&self, id: &str) {
        let (tool, status, tag) = {
            let state = self.state.borrow();
            let Some(record) = state.record(id) else { return };
            (record.tool_name().to_owned(), record.status(), state.keys().task(id))
        };
        let Some(api) = notification_api() else { return };
        let granted = Reflect::get(&api, &JsValue::from_str("permission")).ok().and_then(|p| p.as_string());
        if granted.as_deref() != Some("granted") {
            return;
        }
        let words = notice(&page_language(), &tool, status);
        let options = Object::new();
        set(&options, "body", &JsValue::from_str(&words.body));
        set(&options, "lang", &JsValue::from_str(words.lang));
        // One per task and status on the system's list: a later state of the task replaces it.
        set(&options, "tag", &JsValue::from_str(&tag));
        let args = Array::of2(&JsValue::from_str(&words.title), &options);
        let Ok(shown) = Reflect::construct(&api, &args) else { return };
        let me = self.me.clone();
        let task_id = id.to_owned();
        let on_click = Closure::once_into_js(move |event: JsValue| {
            call(&globals::global(), "focus");
            if let Ok(notification) = Reflect::get(&event, &JsValue::from_str("target")) {
                call(&notification, "close");
            }
            if let Some(core) = me.upgrade() {
                core.events.emit("notificationclick", to_js(&json!({ "taskId": task_id })));
            }
        });
        set(&shown, "onclick", &on_click);
    }
}
