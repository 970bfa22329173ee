//! `<mcp-task-list>`'s view: every task of a client as compact `<mcp-task>` children, tasks needing
//! input first, then newest first; calls of unknown outcome as rows with a Forget button.
//!
//! Items are keyed by id and reordered by moving only the ones out of place, so a form being typed
//! into keeps its focus when other tasks change.
use crate::collections::{SortedMap, SortedSet};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::json::Value;
use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element, Event, HtmlElement, ShadowRoot};

use super::labels_for;
use super::nodes::{append, closest_with, el, set_text, show};
use super::style;
use crate::element::model::card_model::{list_order, CardModel};
use crate::element::model::labels::Labels;
use crate::host::globals::{Listener, Timeout};
use crate::runtime::client::ClientCore;
use crate::snapshot::Snapshot;

#[derive(Default)]
struct State {
    client: Option<(Rc<ClientCore>, JsValue)>,
    items: SortedMap<String, Element>,
    own_labels: Value,
    subscription: Vec<Listener>,
    connected: bool,
    /// A redraw already set for the task events of this turn.
    redraw: Option<Timeout>,
    /// A render is running (page code it runs may ask for another: that one runs after it).
    rendering: bool,
    render_again: bool,
}

struct Inner {
    host: HtmlElement,
    doc: Document,
    task_tag: String,
    list: Element,
    empty: Element,
    state: RefCell<State>,
    _click: Option<Listener>,
}

/// The view behind one `<mcp-task-list>`.
pub struct TaskList(Rc<Inner>);

impl TaskList {
    /// Builds the list into `root`; items are `<task_tag>` elements.
    pub fn new(host: HtmlElement, root: ShadowRoot, task_tag: String) -> Result<TaskList, JsValue> {
        let doc = host.owner_document().ok_or_else(|| JsValue::from_str("the element has no document"))?;
        style::adopt(&root)?;
        let list = el(&doc, "ol", &[("part", "list"), ("class", "list")])?;
        let empty = el(&doc, "p", &[("part", "empty"), ("class", "empty")])?;
        root.append_child(&list)?;
        root.append_child(&empty)?;
        let inner = Rc::new_cyclic(|weak: &Weak<Inner>| {
            let weak = weak.clone();
            let click = Listener::new(root.as_ref(), "click", move |event| {
                if let Some(inner) = weak.upgrade() {
                    on_click(&inner, &event);
                }
            });
            Inner { host, doc, task_tag, list, empty, state: RefCell::new(State::default()), _click: click }
        });
        Ok(TaskList(inner))
    }

    /// Lists the tasks of `client` (`handle` is the JS `TaskClient`, handed to each item).
    pub fn set_client(&self, client: Option<(Rc<ClientCore>, JsValue)>) {
        let gone = {
            let mut state = self.0.state.borrow_mut();
            state.client = client;
            std::mem::take(&mut state.items)
        };
        // After the borrow: a removed `<mcp-task>` runs its callbacks, and a host listener may call back.
        for (_, item) in gone {
            item.remove();
        }
        self.resubscribe();
    }

    /// Overrides words for the list and its items.
    pub fn set_labels(&self, labels: Value) {
        self.0.state.borrow_mut().own_labels = labels;
        render(&self.0);
    }

    /// The element entered a document.
    pub fn connected(&self) {
        self.0.state.borrow_mut().connected = true;
        self.resubscribe();
    }

    /// The element left its document.
    pub fn disconnected(&self) {
        let mut state = self.0.state.borrow_mut();
        state.connected = false;
        state.subscription.clear();
    }

    /// Redraws (a `lang` change).
    pub fn refresh(&self) {
        render(&self.0);
    }

    fn resubscribe(&self) {
        let inner = &self.0;
        {
            let mut state = inner.state.borrow_mut();
            state.subscription.clear();
            if let (true, Some((client, _))) = (state.connected, &state.client) {
                let mut listeners = Vec::new();
                for kind in ["task", "forget", "call"] {
                    let weak = Rc::downgrade(inner);
                    listeners.extend(Listener::new(client.event_target(), kind, move |_| {
                        if let Some(inner) = weak.upgrade() {
                            redraw_soon(&inner);
                        }
                    }));
                }
                state.subscription = listeners;
            }
        }
        render(inner);
    }
}

/// One redraw for the events that arrive together: a reload with 1,000 tasks sends 1,000 task events,
/// and each redraw reads every snapshot.
fn redraw_soon(inner: &Rc<Inner>) {
    if inner.state.borrow().redraw.is_some() {
        return;
    }
    let weak = Rc::downgrade(inner);
    let timer = Timeout::new(REDRAW_DELAY_MS, move || {
        if let Some(inner) = weak.upgrade() {
            inner.state.borrow_mut().redraw = None;
            render(&inner);
        }
    });
    match timer {
        Ok(timer) => inner.state.borrow_mut().redraw = Some(timer),
        Err(_) => render(inner),
    }
}

/// How long task events gather before the list redraws (about one frame).
const REDRAW_DELAY_MS: u32 = 16;

/// Redraws the list. No borrow of the state is held while items are created, moved or removed: an
/// `<mcp-task>` runs page code then (its constructor, property setters, `connectedCallback` and the
/// composed events it dispatches), and a host listener may set `labels` or a client on this list. A
/// render asked for meanwhile runs once this one ends.
fn render(inner: &Rc<Inner>) {
    {
        let mut state = inner.state.borrow_mut();
        if state.rendering {
            state.render_again = true;
            return;
        }
        state.rendering = true;
    }
    loop {
        render_once(inner);
        let mut state = inner.state.borrow_mut();
        if !std::mem::take(&mut state.render_again) {
            state.rendering = false;
            return;
        }
    }
}

fn render_once(inner: &Rc<Inner>) {
    let labels = labels_for(&inner.host, &inner.state.borrow().own_labels);
    let (mut snapshots, handle): (Vec<Snapshot>, JsValue) = match &inner.state.borrow().client {
        Some((client, handle)) => {
            let mut read = Vec::new();
            for value in client.snapshots().iter() {
                read.extend(Snapshot::from_json(value));
            }
            (read, handle.clone())
        }
        None => (Vec::new(), JsValue::NULL),
    };
    list_order(&mut snapshots);
    let own_labels = crate::host::js_json::to_js(&inner.state.borrow().own_labels);
    let mut items = std::mem::take(&mut inner.state.borrow_mut().items);
    let mut wanted = SortedSet::new();
    for s in &snapshots {
        wanted.insert(s.id().to_owned());
    }
    items.retain(|id, item| {
        let keep = wanted.contains(id);
        if !keep {
            item.remove();
        }
        keep
    });
    for (position, snapshot) in snapshots.iter().enumerate() {
        let id = snapshot.id();
        let item = match items.get(id) {
            Some(item) => item.clone(),
            None => match new_item(inner, snapshot, id, &handle, &own_labels) {
                Ok(item) => {
                    items.insert(id.to_owned(), item.clone());
                    item
                }
                Err(_) => continue,
            },
        };
        if let Snapshot::UnknownCall(_) = snapshot {
            update_unknown(&item, snapshot, &labels);
        }
        let here = inner.list.children().item(position as u32);
        if here.as_ref() != Some(&item) {
            let _ = inner.list.insert_before(&item, here.as_ref().map(|e| e.unchecked_ref()));
        }
    }
    // Items a host listener's `set_client` took meanwhile were removed by it; ours go back.
    let mut state = inner.state.borrow_mut();
    for (id, item) in std::mem::take(&mut state.items) {
        items.insert(id, item);
    }
    state.items = items;
    drop(state);
    set_text(&inner.empty, labels.get("list.empty"));
    show(&inner.empty, wanted.is_empty());
    let _ = inner.list.set_attribute("aria-label", labels.get("list.label"));
}

fn new_item(
    inner: &Inner,
    snapshot: &Snapshot,
    id: &str,
    handle: &JsValue,
    labels: &JsValue,
) -> Result<Element, JsValue> {
    let item = el(&inner.doc, "li", &[("part", "item"), ("data-id", id)])?;
    if let Snapshot::UnknownCall(_) = snapshot {
        let _ = item.set_attribute("class", "unknown");
        for class in ["title", "status", "message"] {
            append(&item, &[&el(&inner.doc, "p", &[("class", class)])?])?;
        }
        let forget = el(&inner.doc, "button", &[("type", "button"), ("data-action", "forget"), ("data-id", id)])?;
        append(&item, &[&forget])?;
        return Ok(item);
    }
    let card = el(&inner.doc, &inner.task_tag, &[("compact", ""), ("task-id", id)])?;
    Reflect::set(&card, &JsValue::from_str("client"), handle)?;
    if !labels.is_null() && !labels.is_undefined() {
        Reflect::set(&card, &JsValue::from_str("labels"), labels)?;
    }
    append(&item, &[&card])?;
    Ok(item)
}

fn update_unknown(item: &Element, snapshot: &Snapshot, labels: &Labels) {
    let model = CardModel::from_snapshot(snapshot);
    let status_key = model.status_key();
    let texts = [model.tool.as_str(), labels.get(&status_key), model.message.as_deref().unwrap_or("")];
    let children = item.children();
    for (i, text) in texts.iter().enumerate() {
        if let Some(child) = children.item(i as u32) {
            set_text(&child, text);
        }
    }
    if let Some(button) = children.item(3) {
        set_text(&button, labels.get("action.forget"));
    }
}

fn on_click(inner: &Rc<Inner>, event: &JsValue) {
    let Some(event) = event.dyn_ref::<Event>() else { return };
    let target = event.target().map(JsValue::from).unwrap_or(JsValue::NULL);
    let Some(button) = closest_with(&target, "[data-action=forget]") else { return };
    let Some(id) = button.get_attribute("data-id") else { return };
    let Some((client, _)) = inner.state.borrow().client.clone() else { return };
    let _ = button.set_attribute("disabled", "");
    crate::host::spawn::spawn(async move {
        let _ = client.forget(&id).await;
    });
}
