//! `<mcp-task>`'s view: one task drawn into a shadow root, kept live from the client's `task` events.
//!
//! The persistent skeleton (header, message, progress, questions, result, error, actions) is built
//! once; each snapshot updates texts and attributes in place. Forms are keyed by input key and built
//! once, so what the user is typing survives every poll. Events to the host are collected while the
//! state is borrowed and dispatched after, so a host listener may call back into the element.
use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::json::{json, Value};
use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CustomEvent, CustomEventInit, Document, Element, Event, HtmlElement, ShadowRoot};

use super::form_view::{Builder, QuestionView};
use super::nodes::{append, closest_with, el, set_attr, set_text, show, text_el};
use super::{host_lang, style};
use crate::element::model::card_model::{CardModel, Piece, ResultView, UNKNOWN_STATUS};
use crate::element::model::elapsed::format_elapsed;
use crate::element::model::labels::Labels;
use crate::element::model::problem_text::task_problem_text;
use crate::element::model::url_check;
use crate::host::globals::{Interval, Listener};
use crate::host::js_json::{from_js, to_js};
use crate::host::spawn::spawn;
use crate::runtime::client::ClientCore;

thread_local! {
    /// Labels the host passed to `defineMcpTask({ labels })`, under every element's own.
    static SHARED_LABELS: RefCell<Value> = const { RefCell::new(Value::Null) };
    static NEXT_CARD: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Sets the labels every element starts from (`defineMcpTask({ labels })`).
pub fn set_shared_labels(labels: Value) {
    SHARED_LABELS.with(|l| *l.borrow_mut() = labels);
}

/// The label set for `host`: the shipped language of its nearest `lang`, shared then own overrides.
pub fn labels_for(host: &Element, own: &Value) -> Labels {
    SHARED_LABELS.with(|shared| Labels::resolve(&host_lang(host), &[&shared.borrow(), own]))
}

/// The elements every snapshot updates.
struct Parts {
    card: Element,
    title: Element,
    status: Element,
    elapsed: Element,
    connectivity: Element,
    message: Element,
    progress: Element,
    questions: Element,
    result: Element,
    error: Element,
    actions: Element,
    cancel: Element,
    cancel_hint: Element,
}

#[derive(Default)]
struct State {
    client: Option<Rc<ClientCore>>,
    task_id: Option<String>,
    own_labels: Value,
    labels: Option<Labels>,
    snapshot: Option<Value>,
    model: Option<CardModel>,
    questions: Vec<QuestionView>,
    result_json: Option<String>,
    settled_told: bool,
    connected: bool,
    subscription: Vec<Listener>,
    ticker: Option<Interval>,
    next_id: u32,
    action_error: Option<String>,
    /// Counts draws, so a draw that page code re-entered stops and leaves the rest to the newer one.
    draws: u64,
}

struct Inner {
    host: HtmlElement,
    doc: Document,
    id_prefix: String,
    parts: Parts,
    state: RefCell<State>,
    _listeners: RefCell<Vec<Listener>>,
}

/// An event for the host, dispatched once no state is borrowed.
enum Outgoing {
    Change(Value),
    Settled(Value),
}

/// The view behind one `<mcp-task>`.
pub struct Card(Rc<Inner>);

impl Card {
    /// Builds the skeleton into `root` and listens for clicks and submits inside it.
    pub fn new(host: HtmlElement, root: ShadowRoot) -> Result<Card, JsValue> {
        let doc = host.owner_document().ok_or_else(|| JsValue::from_str("the element has no document"))?;
        style::adopt(&root)?;
        let n = NEXT_CARD.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        let id_prefix = format!("mcp-task-{n}");
        let parts = skeleton(&doc, &root, &id_prefix)?;
        let inner = Rc::new(Inner {
            host,
            doc,
            id_prefix,
            parts,
            state: RefCell::new(State::default()),
            _listeners: RefCell::new(Vec::new()),
        });
        let mut listeners = Vec::new();
        for kind in ["click", "submit"] {
            let weak = Rc::downgrade(&inner);
            let listener = Listener::new(root.as_ref(), kind, move |event| {
                if let Some(inner) = weak.upgrade() {
                    on_event(&inner, &event);
                }
            });
            listeners.extend(listener);
        }
        *inner._listeners.borrow_mut() = listeners;
        Ok(Card(inner))
    }

    /// Shows tasks of `client` (or of none).
    pub fn set_client(&self, client: Option<Rc<ClientCore>>) {
        self.0.state.borrow_mut().client = client;
        self.reset();
    }

    /// Shows the task `task_id` (or none).
    pub fn set_task_id(&self, task_id: Option<String>) {
        if self.0.state.borrow().task_id == task_id {
            return;
        }
        self.0.state.borrow_mut().task_id = task_id;
        self.reset();
    }

    /// The task id shown.
    pub fn task_id(&self) -> Option<String> {
        self.0.state.borrow().task_id.clone()
    }

    /// Overrides words for this element only.
    pub fn set_labels(&self, labels: Value) {
        self.0.state.borrow_mut().own_labels = labels;
        self.refresh();
    }

    /// The latest snapshot shown.
    pub fn snapshot(&self) -> Option<Value> {
        self.0.state.borrow().snapshot.clone()
    }

    /// The element entered a document: listen to the client and draw.
    pub fn connected(&self) {
        self.0.state.borrow_mut().connected = true;
        self.reset();
    }

    /// The element left its document: stop listening and ticking (a moved element reconnects).
    pub fn disconnected(&self) {
        let mut state = self.0.state.borrow_mut();
        state.connected = false;
        state.subscription.clear();
        state.ticker = None;
    }

    /// Redraws (a `lang` change, new labels): rebuilt in the new words if the language changed.
    pub fn refresh(&self) {
        let snapshot = self.0.state.borrow().snapshot.clone();
        render(&self.0, snapshot);
    }

    /// Starts over for a new client or task: resubscribe, forget drawn forms, draw the current state.
    fn reset(&self) {
        let inner = &self.0;
        let gone;
        {
            let mut state = inner.state.borrow_mut();
            state.subscription.clear();
            state.ticker = None;
            state.snapshot = None;
            state.model = None;
            state.settled_told = false;
            state.result_json = None;
            state.action_error = None;
            gone = std::mem::take(&mut state.questions);
            if state.connected {
                if let Some(client) = &state.client {
                    state.subscription = subscribe(inner, client);
                }
            }
        }
        // After the borrow: removing a focused control fires focus events a host may listen to.
        for q in gone {
            q.element.remove();
        }
        let current = {
            let state = inner.state.borrow();
            match (&state.client, &state.task_id) {
                (Some(client), Some(id)) => client.snapshot(id),
                _ => None,
            }
        };
        render(inner, current);
    }
}

fn subscribe(inner: &Rc<Inner>, client: &Rc<ClientCore>) -> Vec<Listener> {
    let mut listeners = Vec::new();
    for kind in ["task", "forget"] {
        let weak: Weak<Inner> = Rc::downgrade(inner);
        let core: Weak<ClientCore> = Rc::downgrade(client);
        let listener = Listener::new(client.event_target(), kind, move |event| {
            let Some(inner) = weak.upgrade() else { return };
            let detail = Reflect::get(&event, &JsValue::from_str("detail")).unwrap_or(JsValue::NULL);
            // Every card hears every task's events: read the id alone before converting the detail.
            let member = |name: &str| Reflect::get(&detail, &JsValue::from_str(name)).ok().and_then(|v| v.as_string());
            let id = member("taskId").or_else(|| member("id"));
            let ours = inner.state.borrow().task_id.clone();
            if ours.is_none() || id != ours {
                return;
            }
            if kind != "task" {
                return render(&inner, None);
            }
            // The client's own snapshot rather than the event's: the detail went through JSON.parse,
            // which reads every number as a double (`1.50` would come back `1.5`, `9007199254740993`
            // as `…992`, `1e400` as null), and a form shows and sends numbers as the server wrote them.
            let snapshot = core.upgrade().and_then(|core| id.as_deref().and_then(|id| core.snapshot(id)));
            let Some(snapshot) = snapshot.or_else(|| from_js(&detail).ok()) else { return };
            render(&inner, Some(snapshot));
        });
        listeners.extend(listener);
    }
    listeners
}

fn skeleton(doc: &Document, root: &ShadowRoot, prefix: &str) -> Result<Parts, JsValue> {
    let title_id = format!("{prefix}-title");
    let card =
        el(doc, "article", &[("part", "card"), ("class", "card"), ("aria-labelledby", &title_id), ("tabindex", "-1")])?;
    let header = el(doc, "div", &[("part", "header"), ("class", "header")])?;
    let title = el(doc, "p", &[("part", "title"), ("class", "title"), ("id", &title_id)])?;
    let status = el(doc, "span", &[("part", "status"), ("class", "status")])?;
    let elapsed = el(doc, "span", &[("part", "elapsed"), ("class", "elapsed")])?;
    let connectivity = el(doc, "span", &[("part", "connectivity"), ("class", "connectivity"), ("role", "status")])?;
    append(&header, &[&title, &status, &elapsed, &connectivity])?;
    let message = el(doc, "p", &[("part", "message"), ("class", "message"), ("aria-live", "polite")])?;
    let progress = el(doc, "div", &[("part", "progress"), ("class", "progress"), ("role", "progressbar")])?;
    append(&progress, &[&el(doc, "span", &[])?])?;
    let questions = el(doc, "div", &[("class", "questions")])?;
    let result = el(doc, "div", &[("part", "result"), ("class", "result"), ("hidden", "")])?;
    let error = el(doc, "p", &[("part", "error"), ("class", "error"), ("role", "alert")])?;
    let actions = el(doc, "div", &[("part", "actions"), ("class", "actions card-actions")])?;
    let cancel = el(doc, "button", &[("type", "button"), ("data-action", "cancel-task")])?;
    let cancel_hint = el(doc, "span", &[("class", "hint")])?;
    append(&actions, &[&cancel, &cancel_hint])?;
    append(&card, &[&header, &message, &progress, &questions, &result, &error, &actions])?;
    root.append_child(&card)?;
    Ok(Parts {
        card,
        title,
        status,
        elapsed,
        connectivity,
        message,
        progress,
        questions,
        result,
        error,
        actions,
        cancel,
        cancel_hint,
    })
}

/// Draws `snapshot` (or the "no task" state) and tells the host what changed.
fn render(inner: &Rc<Inner>, snapshot: Option<Value>) {
    let outgoing = draw(inner, snapshot);
    for event in outgoing {
        let (kind, detail) = match event {
            Outgoing::Change(v) => ("mcp-task-change", v),
            Outgoing::Settled(v) => ("mcp-task-settled", v),
        };
        let _ = dispatch(&inner.host, kind, &to_js(&detail), false);
    }
}

fn draw(inner: &Rc<Inner>, snapshot: Option<Value>) -> Vec<Outgoing> {
    let mut outgoing = Vec::new();
    let labels = labels_for(&inner.host, &inner.state.borrow().own_labels);
    let relabel = inner.state.borrow().labels.as_ref() != Some(&labels);
    if relabel {
        let gone = {
            let mut state = inner.state.borrow_mut();
            state.result_json = None;
            state.labels = Some(labels.clone());
            std::mem::take(&mut state.questions)
        };
        // After the borrow: removing a focused control fires focus events a host may listen to.
        for q in gone {
            q.element.remove();
        }
    }
    let p = &inner.parts;
    let model = snapshot.as_ref().map(CardModel::from_json);
    let Some(model) = model else {
        let state = inner.state.borrow();
        let text = match (&state.client, &state.task_id) {
            (Some(_), Some(id)) => labels.fill("error.unknownTask", &[("id", id)]),
            _ => labels.get("task.noClient").to_owned(),
        };
        set_attr(&p.card, "data-status", Some(UNKNOWN_STATUS));
        set_text(&p.title, state.task_id.as_deref().unwrap_or(""));
        set_text(&p.status, labels.get(&format!("status.{UNKNOWN_STATUS}")));
        set_text(&p.message, &text);
        for part in [&p.progress, &p.result, &p.actions] {
            show(part, false);
        }
        set_text(&p.error, "");
        return outgoing;
    };
    // What is drawn is recorded first: page code the drawing runs (a `focusin` listener, say) may
    // call back and redraw, and must see this snapshot, not the one before it.
    let settled = model.is_settled();
    let this_draw = {
        let mut state = inner.state.borrow_mut();
        state.draws += 1;
        if let Some(s) = &snapshot {
            if state.snapshot.as_ref() != Some(s) {
                outgoing.push(Outgoing::Change(s.clone()));
            }
            if settled && !state.settled_told {
                state.settled_told = true;
                outgoing.push(Outgoing::Settled(s.clone()));
            }
        }
        state.snapshot = snapshot;
        if state.connected && !settled && state.ticker.is_none() {
            let weak = Rc::downgrade(inner);
            state.ticker = Interval::new(1000, move || {
                if let Some(inner) = weak.upgrade() {
                    tick(&inner);
                }
            })
            .ok();
        } else if settled {
            state.ticker = None;
        }
        state.draws
    };
    set_attr(&p.card, "data-status", Some(model.status_name()));
    set_text(&p.title, &model.tool);
    set_text(&p.status, labels.get(&model.status_key()));
    set_text(&p.connectivity, model.connectivity.map(|k| labels.get(k)).unwrap_or(""));
    set_text(&p.message, model.message.as_deref().unwrap_or(""));
    set_attr(&p.progress, "aria-label", Some(labels.get("progress.label")));
    show(&p.progress, model.is_working());
    // A compact card (a list item) summarises: its questions are asked by the full card.
    let compact = inner.host.has_attribute("compact");
    draw_questions(inner, &labels, &model, compact);
    if inner.state.borrow().draws != this_draw {
        // A host listener redrew the card from inside (a `focusin` handler that set labels): that
        // draw had the newest words and state, and finished the card.
        return outgoing;
    }
    draw_result(inner, &labels, model.result.as_ref());
    let action_error = inner.state.borrow().action_error.clone();
    let problem = model.problem.as_ref().map(|problem| task_problem_text(&labels, problem));
    let problem = problem.or_else(|| {
        let is_error = model.result.as_ref().is_some_and(|r| r.is_error);
        is_error.then(|| labels.get("result.isError").to_owned())
    });
    set_text(&p.error, &action_error.or(problem).unwrap_or_default());
    show(&p.actions, model.is_live());
    let cancel_text = labels.get(if model.cancel_requested { "cancel.requested" } else { "action.cancelTask" });
    set_text(&p.cancel, cancel_text);
    set_attr(&p.cancel, "disabled", model.cancel_requested.then_some(""));
    set_text(&p.cancel_hint, labels.get("cancel.hint"));
    inner.state.borrow_mut().model = Some(model);
    tick(inner);
    outgoing
}

/// Updates the elapsed time (each second while live; once when settled).
fn tick(inner: &Inner) {
    let state = inner.state.borrow();
    let (Some(model), Some(labels)) = (&state.model, &state.labels) else { return };
    let Some(start) = model.created_at else {
        set_text(&inner.parts.elapsed, "");
        return;
    };
    let (key, end) = if model.is_settled() {
        ("elapsed.took", model.updated_at.unwrap_or(start))
    } else {
        ("elapsed.running", js_sys::Date::now() as i64)
    };
    set_text(&inner.parts.elapsed, &labels.fill(key, &[("time", &format_elapsed(end - start))]));
}

/// Keeps one question view per unanswered key: removes answered ones, adds new ones (and moves focus
/// to the first new form when the page's focus is not busy elsewhere).
/// Shows the model's questions: drops the answered ones, adds the new ones. The state is updated
/// under one borrow; the DOM work that can run page code (removing a focused control fires focus
/// events, `focus()` fires `focusin`, and a host listener may read this card) runs after it ends.
fn draw_questions(inner: &Rc<Inner>, labels: &Labels, model: &CardModel, compact: bool) {
    let (server, server_loopback) = server_host(inner);
    let active = deep_active(&inner.doc);
    let mut added = Vec::new();
    let mut focus = None;
    let removed = {
        let mut state = inner.state.borrow_mut();
        let state = &mut *state;
        let mut gone = Vec::new();
        state.questions.retain(|q| {
            let keep = !compact && model.questions.iter().any(|(key, _)| *key == q.key);
            if !keep {
                gone.push(q.element.clone());
            }
            keep
        });
        for (key, question) in model.questions.iter().filter(|_| !compact) {
            if state.questions.iter().any(|q| q.key == *key) {
                continue;
            }
            let mut builder = Builder {
                doc: &inner.doc,
                labels,
                server: &server,
                server_loopback,
                id_prefix: &inner.id_prefix,
                next_id: &mut state.next_id,
            };
            match QuestionView::build(&mut builder, key, question) {
                Ok(view) => {
                    if focus.is_none() && view.is_form() {
                        focus = view.first_control();
                    }
                    added.push(view.element.clone());
                    state.questions.push(view);
                }
                Err(e) => state.action_error = Some(crate::host::js_error::js_error_text(&e)),
            }
        }
        gone
    };
    let lost_focus = removed.iter().any(|e| active.as_ref().is_some_and(|a| e.contains(Some(a))));
    for element in &removed {
        element.remove();
    }
    if lost_focus {
        // The answered form held focus: keep keyboard and screen-reader users on this card.
        if let Some(card) = inner.parts.card.dyn_ref::<HtmlElement>() {
            let _ = card.focus();
        }
    }
    for element in &added {
        // Unless page code run by the focus above redrew the card and dropped this question.
        if inner.state.borrow().questions.iter().any(|q| q.element == *element) {
            let _ = inner.parts.questions.append_child(element);
        }
    }
    if let Some(control) = focus.filter(|c| c.is_connected()) {
        if may_take_focus(&inner.doc, &inner.host) {
            let _ = control.focus();
        }
    }
}

/// The server that asks, as the card names it (its host, else the endpoint as configured), and
/// whether it is on this machine. The endpoint may be relative (`/mcp`): `fetch` resolves it against
/// the page, and so does this.
fn server_host(inner: &Inner) -> (String, bool) {
    let url = inner.state.borrow().client.as_ref().map(|c| c.server_url().to_owned()).unwrap_or_default();
    let base = Reflect::get(&inner.doc, &JsValue::from_str("baseURI")).ok().and_then(|b| b.as_string());
    match super::parse_url(&url, base.as_deref()) {
        Some(parts) if !parts.host.is_empty() => (parts.host, url_check::is_loopback(&parts.hostname)),
        _ => (url, false),
    }
}

/// The focused element, looking into open shadow roots.
fn deep_active(doc: &Document) -> Option<Element> {
    let mut active = doc.active_element()?;
    while let Some(inner) = active.shadow_root().and_then(|root| root.active_element()) {
        active = inner;
    }
    Some(active)
}

/// Focus moves to a new form unless the user is typing in another control on the page.
fn may_take_focus(doc: &Document, host: &HtmlElement) -> bool {
    let active = deep_active(doc);
    if active
        .as_ref()
        .is_some_and(|a| host.contains(Some(a)) || host.shadow_root().is_some_and(|r| r.contains(Some(a))))
    {
        return true;
    }
    match active {
        None => true,
        Some(e) => {
            !matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA") && !e.has_attribute("contenteditable")
        }
    }
}

fn draw_result(inner: &Inner, labels: &Labels, result: Option<&ResultView>) {
    let json = result.map(|r| r.json.clone());
    if inner.state.borrow().result_json == json {
        return;
    }
    inner.state.borrow_mut().result_json = json;
    let section = &inner.parts.result;
    section.set_text_content(None);
    let Some(result) = result else {
        show(section, false);
        return;
    };
    show(section, true);
    set_attr(section, "data-error", result.is_error.then_some(""));
    let _ = fill_result(&inner.doc, section, labels, result);
}

fn fill_result(doc: &Document, section: &Element, labels: &Labels, result: &ResultView) -> Result<(), JsValue> {
    for piece in &result.pieces {
        let text = match piece {
            Piece::Text(t) => t.clone(),
            Piece::Named { key, slot, value } => labels.fill(key, &[(slot, value)]),
        };
        append(section, &[&text_el(doc, "p", &[], &text)?])?;
    }
    if result.pieces.is_empty() && result.fields.is_empty() {
        append(section, &[&text_el(doc, "p", &[], labels.get("result.empty"))?])?;
    }
    if !result.fields.is_empty() {
        let list = el(doc, "dl", &[])?;
        for (key, value) in &result.fields {
            append(&list, &[&text_el(doc, "dt", &[], key)?, &text_el(doc, "dd", &[], value)?])?;
        }
        append(section, &[&list])?;
    }
    let details = el(doc, "details", &[])?;
    append(
        &details,
        &[&text_el(doc, "summary", &[], labels.get("result.json"))?, &text_el(doc, "pre", &[], &result.json)?],
    )?;
    append(section, &[&details])
}

/// Creates and dispatches a bubbling, composed `CustomEvent` on `target`; returns whether a listener
/// called `preventDefault()`.
fn dispatch(target: &HtmlElement, kind: &str, detail: &JsValue, cancelable: bool) -> Result<bool, JsValue> {
    let init = CustomEventInit::new();
    init.set_bubbles(true);
    init.set_composed(true);
    init.set_cancelable(cancelable);
    init.set_detail(detail);
    let event = CustomEvent::new_with_event_init_dict(kind, &init)?;
    target.dispatch_event(&event)?;
    Ok(event.default_prevented())
}

fn on_event(inner: &Rc<Inner>, event: &JsValue) {
    let Some(event) = event.dyn_ref::<Event>() else { return };
    let target = event.target().map(JsValue::from).unwrap_or(JsValue::NULL);
    let action = if event.type_() == "submit" {
        event.prevent_default();
        "accept".to_owned()
    } else {
        match closest_with(&target, "[data-action]").and_then(|b| b.get_attribute("data-action")) {
            Some(action) if action != "accept" => action,
            _ => return,
        }
    };
    if action == "cancel-task" {
        return cancel_task(inner);
    }
    let Some(key) = closest_with(&target, "form[data-key]").and_then(|f| f.get_attribute("data-key")) else { return };
    let answer = {
        let state = inner.state.borrow();
        let Some(question) = state.questions.iter().find(|q| q.key == key) else { return };
        let Some(labels) = &state.labels else { return };
        match action.as_str() {
            "accept" => match question.accept_answer(labels) {
                Some(answer) => answer,
                None => return,
            },
            "open" => {
                let Some(url) = &question.url else { return };
                if !open_tab(&inner.doc, url) {
                    // Nothing opened (a pop-up blocker): the question stays asked, so the user may allow
                    // pop-ups and press Open again, or decline.
                    question.set_busy(labels.get("url.blocked"), false);
                    return;
                }
                question.set_busy(labels.get("url.opened"), false);
                json!({ "action": "accept" })
            }
            "decline" | "cancel" => json!({ "action": action }),
            _ => return,
        }
    };
    send(inner, key, answer);
}

/// Opens `href` in a new tab that has no way back to this page; whether a tab opened. Accept is sent
/// only after it did, so this cannot be `window.open(href, "_blank", "noopener,noreferrer")`: with those
/// features the browser returns null whether or not it opened anything. Instead a blank tab is opened
/// (its window, or null when blocked) and its `opener` cut; then a `rel="noreferrer"` link of the blank
/// tab's own document is followed, so the tab, not this page, navigates, and `href` learns neither
/// this page's window nor its address.
fn open_tab(doc: &Document, href: &str) -> bool {
    let Some(Ok(Some(tab))) = doc.default_view().map(|w| w.open_with_url_and_target("about:blank", "_blank")) else {
        return false;
    };
    let cut = Reflect::set(tab.as_ref(), &JsValue::from_str("opener"), &JsValue::NULL).unwrap_or(false);
    // Not `dyn_into`: the tab's objects come from another realm, where `instanceof` is false.
    let link = tab.document().filter(|_| cut).and_then(|d| el(&d, "a", &[("href", href), ("rel", "noreferrer")]).ok());
    match link {
        Some(link) => {
            link.unchecked_into::<HtmlElement>().click();
            true
        }
        None => {
            let _ = tab.close();
            false
        }
    }
}

/// Tells the host (`mcp-task-input`, cancelable) and, unless it took over, sends the answer.
fn send(inner: &Rc<Inner>, key: String, answer: Value) {
    let (client, task_id) = {
        let state = inner.state.borrow();
        (state.client.clone(), state.task_id.clone())
    };
    let (Some(client), Some(task_id)) = (client, task_id) else { return };
    let responses = json!({ key.clone(): answer });
    let detail = to_js(&json!({ "taskId": task_id, "responses": responses }));
    let taken = dispatch(&inner.host, "mcp-task-input", &detail, true).unwrap_or(false);
    let busy = |text_key: &str, busy: bool, extra: Option<&str>| {
        let state = inner.state.borrow();
        let (Some(labels), Some(q)) = (&state.labels, state.questions.iter().find(|q| q.key == key)) else { return };
        let text = match extra {
            Some(error) => labels.fill(text_key, &[("error", error)]),
            None => labels.get(text_key).to_owned(),
        };
        q.set_busy(&text, busy);
    };
    if taken {
        return busy("form.handled", false, None);
    }
    busy("form.sending", true, None);
    let weak = Rc::downgrade(inner);
    spawn(async move {
        // As a value, not through JS (as `client.respond` from page code goes): numbers keep their text.
        let outcome = client.respond_value(&task_id, responses).await;
        let Some(inner) = weak.upgrade() else { return };
        if let Err(e) = outcome {
            let state = inner.state.borrow();
            let (Some(labels), Some(q)) = (&state.labels, state.questions.iter().find(|q| q.key == key)) else {
                return;
            };
            q.set_busy(&labels.fill("form.sendFailed", &[("error", &e.message)]), false);
        }
    });
}

fn cancel_task(inner: &Rc<Inner>) {
    let (client, task_id) = {
        let state = inner.state.borrow();
        (state.client.clone(), state.task_id.clone())
    };
    let (Some(client), Some(task_id)) = (client, task_id) else { return };
    set_attr(&inner.parts.cancel, "disabled", Some(""));
    let weak = Rc::downgrade(inner);
    spawn(async move {
        let outcome = client.cancel(&task_id).await;
        let Some(inner) = weak.upgrade() else { return };
        if let Err(e) = outcome {
            let text = inner.state.borrow().labels.as_ref().map(|l| l.fill("error.action", &[("error", &e.message)]));
            inner.state.borrow_mut().action_error = text;
            set_attr(&inner.parts.cancel, "disabled", None);
            let snapshot = inner.state.borrow().snapshot.clone();
            render(&inner, snapshot);
        }
    });
}
