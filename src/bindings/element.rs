//! The wasm side of `<mcp-task>` and `<mcp-task-list>` (cargo feature `element`): one view object per
//! element, driven by the thin JS classes in `pkg/element.js`, which own the lifecycle callbacks and
//! the shadow root.
use wasm_bindgen::prelude::*;
use web_sys::{HtmlElement, ShadowRoot};

use super::task_client::TaskClient;
use crate::element::dom::card::{set_shared_labels, Card};
use crate::element::dom::list::TaskList;
use crate::host::js_json::{from_js, to_js};

fn labels_value(labels: &JsValue) -> crate::json::Value {
    from_js(labels).unwrap_or(crate::json::Value::Null)
}

/// The view of one `<mcp-task>`; created by the element's constructor.
#[wasm_bindgen]
pub struct McpTaskView {
    card: Card,
}

#[wasm_bindgen]
impl McpTaskView {
    /// Draws into `root` for the element `host`.
    #[wasm_bindgen(constructor)]
    pub fn new(host: HtmlElement, root: ShadowRoot) -> Result<McpTaskView, JsValue> {
        Ok(McpTaskView { card: Card::new(host, root)? })
    }

    /// Labels every element starts from: `{ [lang]: { key: word } }` (from `defineMcpTask`).
    #[wasm_bindgen(js_name = setSharedLabels)]
    pub fn set_shared_labels(labels: JsValue) {
        set_shared_labels(labels_value(&labels));
    }

    /// Shows tasks of `client`.
    #[wasm_bindgen(js_name = setClient)]
    pub fn set_client(&self, client: &TaskClient) {
        self.card.set_client(Some(client.core()));
    }

    /// Shows no client's tasks.
    #[wasm_bindgen(js_name = clearClient)]
    pub fn clear_client(&self) {
        self.card.set_client(None);
    }

    /// The task shown.
    #[wasm_bindgen(getter, js_name = taskId)]
    pub fn task_id(&self) -> Option<String> {
        self.card.task_id()
    }

    /// Shows the task `id` (or none).
    #[wasm_bindgen(setter, js_name = taskId)]
    pub fn set_task_id(&self, id: Option<String>) {
        self.card.set_task_id(id.filter(|s| !s.is_empty()));
    }

    /// Words for this element only: `{ key: word }` or `{ [lang]: { key: word } }`.
    #[wasm_bindgen(js_name = setLabels)]
    pub fn set_labels(&self, labels: JsValue) {
        self.card.set_labels(labels_value(&labels));
    }

    /// The latest snapshot shown, or `null`.
    #[wasm_bindgen(getter, unchecked_return_type = "TaskSnapshot | null")]
    pub fn snapshot(&self) -> JsValue {
        self.card.snapshot().map_or(JsValue::NULL, |s| to_js(&s))
    }

    /// `connectedCallback`.
    pub fn connected(&self) {
        self.card.connected();
    }

    /// `disconnectedCallback`.
    pub fn disconnected(&self) {
        self.card.disconnected();
    }

    /// Redraws (after a `lang` change).
    pub fn refresh(&self) {
        self.card.refresh();
    }
}

/// The view of one `<mcp-task-list>`.
#[wasm_bindgen]
pub struct McpTaskListView {
    list: TaskList,
}

#[wasm_bindgen]
impl McpTaskListView {
    /// Draws into `root`; items are `<task_tag>` elements.
    #[wasm_bindgen(constructor)]
    pub fn new(host: HtmlElement, root: ShadowRoot, task_tag: String) -> Result<McpTaskListView, JsValue> {
        Ok(McpTaskListView { list: TaskList::new(host, root, task_tag)? })
    }

    /// Lists the tasks of `client`; `handle` is the same `TaskClient`, handed on to each item.
    #[wasm_bindgen(js_name = setClient)]
    pub fn set_client(&self, client: &TaskClient, handle: JsValue) {
        self.list.set_client(Some((client.core(), handle)));
    }

    /// Lists nothing.
    #[wasm_bindgen(js_name = clearClient)]
    pub fn clear_client(&self) {
        self.list.set_client(None);
    }

    /// Words for the list and its items.
    #[wasm_bindgen(js_name = setLabels)]
    pub fn set_labels(&self, labels: JsValue) {
        self.list.set_labels(labels_value(&labels));
    }

    /// `connectedCallback`.
    pub fn connected(&self) {
        self.list.connected();
    }

    /// `disconnectedCallback`.
    pub fn disconnected(&self) {
        self.list.disconnected();
    }

    /// Redraws (after a `lang` change).
    pub fn refresh(&self) {
        self.list.refresh();
    }
}
