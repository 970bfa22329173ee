//! One question of a card in the DOM: an elicitation form built from the `protocol::form` model, a
//! URL-mode consent form, or a note for a request the element does not answer. Reads what the user
//! entered back into answers and shows the model's validation problems next to their fields.
use crate::json::{json, Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element, HtmlElement, HtmlInputElement, HtmlSelectElement};

use super::nodes::{append, el, set_attr, set_text, text_el};
use crate::element::model::card_model::Question;
use crate::element::model::labels::Labels;
use crate::element::model::problem_text::problem_text;
use crate::element::model::url_check;
use crate::protocol::form::{FieldError, FieldKind, FormField, FormModel, TextFormat, WidgetHint};

/// What the DOM needs to build a question: the document, words, the asking server, fresh ids.
pub struct Builder<'a> {
    /// The document that creates elements.
    pub doc: &'a Document,
    /// The words.
    pub labels: &'a Labels,
    /// The host of the server that asks (shown on every form: the spec requires naming the asker).
    pub server: &'a str,
    /// The server is on this machine, so a URL-mode question may offer a loopback `http:` page.
    pub server_loopback: bool,
    /// Prefix of element ids, unique per card.
    pub id_prefix: &'a str,
    /// The next id number.
    pub next_id: &'a mut u32,
}

impl Builder<'_> {
    fn id(&mut self) -> String {
        *self.next_id += 1;
        format!("{}-{}", self.id_prefix, self.next_id)
    }
}

/// A field's controls and error line.
struct FieldView {
    field: FormField,
    controls: Vec<Element>,
    error: Element,
}

/// One question in the DOM.
pub struct QuestionView {
    /// The input request key it answers.
    pub key: String,
    /// Its root element (a `<form>` or a note).
    pub element: Element,
    /// The form model (form mode with a valid schema).
    model: Option<FormModel>,
    fields: Vec<FieldView>,
    /// The form-wide status line (sending, refused, send errors); `None` for notes.
    status: Option<Element>,
    /// The address to open (URL mode, when openable): the parsed `href`, exactly what the card shows.
    pub url: Option<String>,
}

impl QuestionView {
    /// Builds the DOM for `question`.
    pub fn build(b: &mut Builder<'_>, key: &str, question: &Question) -> Result<QuestionView, JsValue> {
        match question {
            Question::Form { message, form } => build_form(b, key, message, form.as_ref().ok(), form.as_ref().err()),
            Question::Url { message, url } => build_url(b, key, message, url),
            Question::Unsupported { note, method } => {
                let text = b.labels.fill(note, &[("method", method)]);
                let element = text_el(b.doc, "p", &[("part", "note"), ("class", "note"), ("data-key", key)], &text)?;
                Ok(QuestionView {
                    key: key.to_owned(),
                    element,
                    model: None,
                    fields: Vec::new(),
                    status: None,
                    url: None,
                })
            }
        }
    }

    /// Whether this question takes answers from the element (forms do; notes do not).
    pub fn is_form(&self) -> bool {
        self.status.is_some()
    }

    /// The first control to focus when input is needed.
    pub fn first_control(&self) -> Option<HtmlElement> {
        let first = self.fields.first().and_then(|f| f.controls.first()).cloned();
        let first = first.or_else(|| self.element.query_selector("button").ok().flatten());
        first.and_then(|e| e.dyn_into::<HtmlElement>().ok())
    }

    /// Reads the controls and validates them: the `accept` answer, or the problems (already shown,
    /// with focus moved to the first wrong field).
    pub fn accept_answer(&self, labels: &Labels) -> Option<Value> {
        let model = self.model.as_ref()?;
        let answers = self.read();
        for field in &self.fields {
            set_text(&field.error, "");
            for control in &field.controls {
                set_attr(control, "aria-invalid", None);
            }
        }
        match model.validate(&answers) {
            Ok(content) => Some(json!({ "action": "accept", "content": content })),
            Err(errors) => {
                self.show_problems(labels, &errors);
                None
            }
        }
    }

    fn show_problems(&self, labels: &Labels, errors: &[FieldError]) {
        let mut first: Option<HtmlElement> = None;
        for field in &self.fields {
            let Some(error) = errors.iter().find(|e| e.field == field.field.name) else { continue };
            set_text(&field.error, &problem_text(labels, &error.problem));
            for control in &field.controls {
                set_attr(control, "aria-invalid", Some("true"));
            }
            if first.is_none() {
                first = field.controls.first().and_then(|c| c.clone().dyn_into::<HtmlElement>().ok());
            }
        }
        if let Some(status) = &self.status {
            set_text(status, labels.get("form.fixErrors"));
        }
        if let Some(control) = first {
            let _ = control.focus();
        }
    }

    /// The answers as typed: blank controls are left out (the model treats them as unanswered).
    fn read(&self) -> Map {
        let mut answers = Map::new();
        for f in &self.fields {
            if let Some(value) = read_field(f) {
                answers.insert(f.field.name.clone(), value);
            }
        }
        answers
    }

    /// Shows `text` in the form's status line and enables or disables its buttons.
    pub fn set_busy(&self, text: &str, busy: bool) {
        if let Some(status) = &self.status {
            set_text(status, text);
        }
        if let Ok(buttons) = self.element.query_selector_all("button") {
            for i in 0..buttons.length() {
                if let Some(button) = buttons.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    set_attr(&button, "disabled", busy.then_some(""));
                }
            }
        }
    }
}

fn input(control: &Element) -> Option<&HtmlInputElement> {
    control.dyn_ref::<HtmlInputElement>()
}

fn read_field(f: &FieldView) -> Option<Value> {
    let first = f.controls.first()?;
    match f.field.kind.widget_hint() {
        WidgetHint::TextInput => Some(input(first)?.value()).filter(|v| !v.is_empty()).map(Value::String),
        WidgetHint::NumberInput => {
            let control = input(first)?;
            let raw = control.value();
            if raw.is_empty() {
                // A number input reports "" for text it cannot parse: send that on as not-a-number.
                return control.validity().bad_input().then(|| Value::String("?".into()));
            }
            Some(Number::parse_literal(&raw).map_or(Value::String(raw), Value::Number))
        }
        WidgetHint::Checkbox => Some(Value::Bool(input(first)?.checked())),
        WidgetHint::Radio => {
            f.controls.iter().filter_map(input).find(|i| i.checked()).map(|i| Value::String(i.value()))
        }
        WidgetHint::Select => {
            Some(first.dyn_ref::<HtmlSelectElement>()?.value()).filter(|v| !v.is_empty()).map(Value::String)
        }
        WidgetHint::Checkboxes => {
            let chosen: Vec<Value> =
                f.controls.iter().filter_map(input).filter(|i| i.checked()).map(|i| Value::String(i.value())).collect();
            (!chosen.is_empty()).then_some(Value::Array(chosen))
        }
    }
}

/// The `<form>` with the server's message and who asks. It carries no accessible name on purpose: a
/// named form is a landmark, and two cards asking the same question would be duplicate landmarks.
fn form_shell(b: &mut Builder<'_>, key: &str, mode: &str, message: &str) -> Result<Element, JsValue> {
    let form = el(b.doc, "form", &[("part", "form"), ("data-key", key), ("data-mode", mode), ("novalidate", "")])?;
    let prompt = text_el(b.doc, "p", &[("part", "prompt"), ("class", "prompt")], message)?;
    let asked = text_el(b.doc, "p", &[("class", "askedby")], &b.labels.fill("form.askedBy", &[("server", b.server)]))?;
    append(&form, &[&prompt, &asked])?;
    Ok(form)
}

/// The action row; `first` is the primary action (Accept or Open), if any.
fn actions(b: &Builder<'_>, first: Option<(&str, String)>) -> Result<(Element, Element), JsValue> {
    let row = el(b.doc, "div", &[("part", "actions"), ("class", "actions")])?;
    if let Some((action, text)) = first {
        let kind = if action == "accept" { "submit" } else { "button" };
        let button = text_el(b.doc, "button", &[("type", kind), ("class", "primary"), ("data-action", action)], &text)?;
        append(&row, &[&button])?;
    }
    for action in ["decline", "cancel"] {
        let text = b.labels.get(if action == "decline" { "action.decline" } else { "action.cancel" });
        let button = text_el(b.doc, "button", &[("type", "button"), ("data-action", action)], text)?;
        append(&row, &[&button])?;
    }
    let status = el(b.doc, "p", &[("class", "field-error"), ("role", "status")])?;
    Ok((row, status))
}

fn build_form(
    b: &mut Builder<'_>,
    key: &str,
    message: &str,
    model: Option<&FormModel>,
    problem: Option<&crate::protocol::form::SchemaError>,
) -> Result<QuestionView, JsValue> {
    let form = form_shell(b, key, "form", message)?;
    let mut fields = Vec::new();
    if let Some(problem) = problem {
        let text = b.labels.fill("form.invalidSchema", &[("error", &problem.to_string())]);
        append(&form, &[&text_el(b.doc, "p", &[("part", "error"), ("class", "error")], &text)?])?;
    }
    for field in model.map(FormModel::fields).unwrap_or_default() {
        let (wrapper, view) = build_field(b, field)?;
        append(&form, &[&wrapper])?;
        fields.push(view);
    }
    let accept = model.map(|_| ("accept", b.labels.get("action.accept").to_owned()));
    let (row, status) = actions(b, accept)?;
    append(&form, &[&row, &status])?;
    Ok(QuestionView {
        key: key.to_owned(),
        element: form,
        model: model.cloned(),
        fields,
        status: Some(status),
        url: None,
    })
}

fn build_url(b: &mut Builder<'_>, key: &str, message: &str, raw: &str) -> Result<QuestionView, JsValue> {
    // Parsed without a base: a relative address names no site, and resolving it against this page
    // would make the server's text point into the host app.
    let url = url_check::check(raw, super::parse_url(raw, None).as_ref(), b.server_loopback);
    let form = form_shell(b, key, "url", message)?;
    let intro = text_el(b.doc, "p", &[("class", "hint")], b.labels.get("url.intro"))?;
    let full = text_el(b.doc, "code", &[("part", "url"), ("class", "url")], &url.full)?;
    let site = el(b.doc, "p", &[])?;
    site.set_text_content(Some(&format!("{}: ", b.labels.get("url.site"))));
    append(&site, &[&text_el(b.doc, "strong", &[("part", "domain"), ("class", "domain")], &url.host)?])?;
    if let Some(unicode) = &url.unicode_host {
        // <bdi>: a right-to-left name must not reorder the text around it.
        site.append_with_str_1(" (")?;
        append(&site, &[&text_el(b.doc, "bdi", &[("part", "domain-unicode")], unicode)?])?;
        site.append_with_str_1(")")?;
    }
    append(&form, &[&intro, &full, &site])?;
    for key in url.warnings() {
        append(&form, &[&text_el(b.doc, "p", &[("class", "warn"), ("role", "note")], b.labels.get(key))?])?;
    }
    let open = url.openable.then(|| ("open", b.labels.fill("action.open", &[("domain", &url.host)])));
    let (row, status) = actions(b, open)?;
    append(&form, &[&row, &status])?;
    Ok(QuestionView {
        key: key.to_owned(),
        element: form,
        model: None,
        fields: Vec::new(),
        status: Some(status),
        url: url.openable.then_some(url.full),
    })
}

fn input_type(format: Option<TextFormat>) -> &'static str {
    match format {
        Some(TextFormat::Email) => "email",
        Some(TextFormat::Uri) => "url",
        Some(TextFormat::Date) => "date",
        // datetime-local drops the zone the model requires, so date-time stays text with a sample.
        Some(TextFormat::DateTime) | None => "text",
    }
}

/// The label (or legend) text: the title, else the property name; a required mark is added apart.
fn label_text(field: &FormField) -> &str {
    field.title.as_deref().unwrap_or(&field.name)
}

fn build_field(b: &mut Builder<'_>, field: &FormField) -> Result<(Element, FieldView), JsValue> {
    let id = b.id();
    let hint_id = format!("{id}-hint");
    let error_id = format!("{id}-error");
    let describedby = if field.description.is_some() { format!("{hint_id} {error_id}") } else { error_id.clone() };
    let hint = match &field.description {
        Some(d) => Some(text_el(b.doc, "p", &[("class", "hint"), ("id", &hint_id)], d)?),
        None => None,
    };
    let error = el(b.doc, "p", &[("part", "field-error"), ("class", "field-error"), ("id", &error_id)])?;
    let required = field.required.then_some("true");
    let hint_and_error = |wrapper: &Element| -> Result<(), JsValue> {
        if let Some(hint) = &hint {
            append(wrapper, &[hint])?;
        }
        Ok(())
    };
    let widget = field.kind.widget_hint();
    let grouped = matches!(widget, WidgetHint::Radio | WidgetHint::Checkboxes);
    let wrapper = if grouped {
        let role = if widget == WidgetHint::Radio { "radiogroup" } else { "group" };
        let fieldset = el(
            b.doc,
            "fieldset",
            &[("part", "field"), ("class", "field"), ("data-field", &field.name), ("role", role)],
        )?;
        fieldset.set_attribute("aria-describedby", &describedby)?;
        if widget == WidgetHint::Radio {
            set_attr(&fieldset, "aria-required", required);
        }
        let legend = text_el(b.doc, "legend", &[], label_text(field))?;
        if field.required && widget == WidgetHint::Checkboxes {
            // ARIA allows no aria-required on a group, so say it in words for screen readers.
            let words = format!(" ({})", b.labels.get("form.required"));
            append(&legend, &[&text_el(b.doc, "span", &[("class", "sr-only")], &words)?])?;
        }
        required_mark(b, &legend, field.required)?;
        append(&fieldset, &[&legend])?;
        fieldset
    } else {
        el(b.doc, "div", &[("part", "field"), ("class", "field"), ("data-field", &field.name)])?
    };
    let mut controls = Vec::new();
    match &field.kind {
        FieldKind::Text { format, min_length, max_length, default } => {
            append(&wrapper, &[&label_for(b, &id, field)?])?;
            hint_and_error(&wrapper)?;
            let control = control(b, "input", &id, field, &describedby)?;
            control.set_attribute("type", input_type(*format))?;
            if matches!(format, Some(TextFormat::Email | TextFormat::Uri)) {
                control.set_attribute("spellcheck", "false")?;
                control.set_attribute("autocapitalize", "off")?;
            }
            if *format == Some(TextFormat::DateTime) {
                control.set_attribute("placeholder", "2026-02-28T13:45:00Z")?;
            }
            if let Some(n) = min_length {
                control.set_attribute("minlength", &n.to_string())?;
            }
            if let Some(n) = max_length {
                control.set_attribute("maxlength", &n.to_string())?;
            }
            if let (Some(d), Some(i)) = (default, input(&control)) {
                i.set_value(d);
            }
            append(&wrapper, &[&control])?;
            controls.push(control);
        }
        FieldKind::Number { integer, minimum, maximum, default } => {
            append(&wrapper, &[&label_for(b, &id, field)?])?;
            hint_and_error(&wrapper)?;
            let control = control(b, "input", &id, field, &describedby)?;
            control.set_attribute("type", "number")?;
            control.set_attribute("inputmode", if *integer { "numeric" } else { "decimal" })?;
            control.set_attribute("step", if *integer { "1" } else { "any" })?;
            // The schema's own text: a JSON number is always a valid HTML floating-point number, and
            // writing it through a double could change it (the default would then go back changed).
            if let Some(n) = minimum {
                control.set_attribute("min", n.as_str())?;
            }
            if let Some(n) = maximum {
                control.set_attribute("max", n.as_str())?;
            }
            if let (Some(d), Some(i)) = (default, input(&control)) {
                i.set_value(d.as_str());
                // A number input empties a value that reads as ±infinity (`1e400`); a text input keeps
                // the default as the server wrote it (the model checks whatever is sent).
                if i.value() != d.as_str() {
                    i.set_type("text");
                    i.set_value(d.as_str());
                }
            }
            append(&wrapper, &[&control])?;
            controls.push(control);
        }
        FieldKind::Boolean { default } => {
            let label = el(b.doc, "label", &[("class", "choice"), ("for", &id)])?;
            let control = control(b, "input", &id, field, &describedby)?;
            control.set_attribute("type", "checkbox")?;
            if let Some(i) = input(&control) {
                i.set_checked(default.unwrap_or(false));
            }
            append(&label, &[&control])?;
            label.append_with_str_1(label_text(field))?;
            required_mark(b, &label, field.required)?;
            append(&wrapper, &[&label])?;
            hint_and_error(&wrapper)?;
            controls.push(control);
        }
        FieldKind::SingleSelect { options, default } if widget == WidgetHint::Select => {
            append(&wrapper, &[&label_for(b, &id, field)?])?;
            hint_and_error(&wrapper)?;
            let control = control(b, "select", &id, field, &describedby)?;
            if default.is_none() {
                append(&control, &[&text_el(b.doc, "option", &[("value", "")], b.labels.get("form.choose"))?])?;
            }
            for choice in options {
                let option = text_el(b.doc, "option", &[("value", &choice.value)], choice.label())?;
                if default.as_deref() == Some(choice.value.as_str()) {
                    option.set_attribute("selected", "")?;
                }
                append(&control, &[&option])?;
            }
            append(&wrapper, &[&control])?;
            controls.push(control);
        }
        FieldKind::SingleSelect { options, default } => {
            hint_and_error(&wrapper)?;
            for choice in options {
                let checked = default.as_deref() == Some(choice.value.as_str());
                controls.push(choice_control(
                    b,
                    &wrapper,
                    "radio",
                    &field.name,
                    &choice.value,
                    choice.label(),
                    checked,
                )?);
            }
        }
        FieldKind::MultiSelect { options, default, .. } => {
            hint_and_error(&wrapper)?;
            for choice in options {
                let checked = default.contains(&choice.value);
                controls.push(choice_control(
                    b,
                    &wrapper,
                    "checkbox",
                    &field.name,
                    &choice.value,
                    choice.label(),
                    checked,
                )?);
            }
        }
    }
    append(&wrapper, &[&error])?;
    Ok((wrapper, FieldView { field: field.clone(), controls, error }))
}

fn required_mark(b: &Builder<'_>, parent: &Element, required: bool) -> Result<(), JsValue> {
    if required {
        let mark = text_el(b.doc, "span", &[("class", "req"), ("aria-hidden", "true")], " *")?;
        append(parent, &[&mark])?;
    }
    Ok(())
}

fn label_for(b: &Builder<'_>, id: &str, field: &FormField) -> Result<Element, JsValue> {
    let label = text_el(b.doc, "label", &[("for", id)], label_text(field))?;
    required_mark(b, &label, field.required)?;
    Ok(label)
}

fn control(b: &Builder<'_>, tag: &str, id: &str, field: &FormField, describedby: &str) -> Result<Element, JsValue> {
    let control = el(b.doc, tag, &[("id", id), ("name", &field.name), ("aria-describedby", describedby)])?;
    if field.required && !matches!(field.kind, FieldKind::Boolean { .. }) {
        control.set_attribute("aria-required", "true")?;
    }
    Ok(control)
}

fn choice_control(
    b: &mut Builder<'_>,
    group_el: &Element,
    kind: &str,
    group: &str,
    value: &str,
    text: &str,
    checked: bool,
) -> Result<Element, JsValue> {
    let id = b.id();
    let label = el(b.doc, "label", &[("class", "choice"), ("for", &id)])?;
    let control = el(b.doc, "input", &[("type", kind), ("id", &id), ("name", group), ("value", value)])?;
    if let Some(i) = input(&control) {
        i.set_checked(checked);
    }
    append(&label, &[&control])?;
    label.append_with_str_1(text)?;
    append(group_el, &[&label])?;
    Ok(control)
}
