//! The system notification of a task that needs the person, or ended, while the page was hidden
//! (opt-in `notify`; [`crate::client_state::ClientState`] decides when, once across tabs). Shown
//! through the Notification API only when the person already granted it: the host asks, from a
//! gesture it provides (`Notification.requestPermission()` in a click handler; a page cannot ask on
//! its own), so this module has no part in asking. A click brings the tab forward, closes the
//! notification and tells the page which task (the `notificationclick` event; the element focuses
//! that card). The click's work is done by bound JS functions, so no Rust closure waits for it.
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::ClientCore;
use crate::host::globals;
use crate::host::js_json::to_js;
use crate::json::json;
use crate::notice::notice;

fn get(target: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(target, &JsValue::from_str(name)).ok()
}

fn set(target: &JsValue, name: &str, value: &str) {
    let _ = Reflect::set(target, &JsValue::from_str(name), &JsValue::from_str(value));
}

/// `target[name]`, if it is a function.
fn method(target: &JsValue, name: &str) -> Option<Function> {
    get(target, name)?.dyn_into::<Function>().ok()
}

/// The page's language: the root element's `lang`, else the browser's.
fn page_language() -> String {
    let root = globals::global_property("document")
        .and_then(|d| get(&d, "documentElement"))
        .and_then(|e| get(&e, "lang"))
        .and_then(|l| l.as_string())
        .filter(|l| !l.is_empty());
    let browser =
        || globals::global_property("navigator").and_then(|n| get(&n, "language")).and_then(|l| l.as_string());
    root.or_else(browser).unwrap_or_default()
}

/// The `Notification` constructor, where the platform has one.
fn notification_api() -> Option<Function> {
    globals::global_property("Notification")?.dyn_into::<Function>().ok()
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
        if get(&api, "permission").and_then(|p| p.as_string()).as_deref() != Some("granted") {
            return;
        }
        let words = notice(&page_language(), status);
        let options = Object::new();
        set(&options, "body", words.body);
        set(&options, "lang", words.lang);
        // One entry per task on the system's list: a later state of the task replaces it.
        set(&options, "tag", &tag);
        let args = Array::of2(&JsValue::from_str(&tool), &options);
        let Ok(shown) = Reflect::construct(&api, &args) else { return };
        let Some(listen) = method(&shown, "addEventListener") else { return };
        let click = JsValue::from_str("click");
        let global = globals::global();
        if let Some(focus) = method(&global, "focus") {
            let _ = listen.call2(&shown, &click, &focus.bind0(&global));
        }
        if let Some(close) = method(&shown, "close") {
            let _ = listen.call2(&shown, &click, &close.bind0(&shown));
        }
        if let Some(tell) = self.events.dispatcher("notificationclick", &to_js(&json!({ "taskId": id }))) {
            let _ = listen.call2(&shown, &click, &tell);
        }
    }
}
