//! The element's views as plain JSON for the DOM half (`pkg/element.js`): a card, the list's rows, a
//! form's answer. Every word is already in the user's language and every decision made (which widget,
//! which constraints, which warnings, what a result shows), so the JS only creates elements and sets
//! texts and attributes. Pure, so built and tested natively; the door (`door/element.rs`) hands them
//! to the driver as JSON text.
//!
//! Member names are the JS's: `pkg/element.js` reads them (and `tests::card_members` lists them).
use crate::json::{Map, Number, Value};

use super::card_model::{list_order, CardModel, Piece, Question, ResultView};
use super::labels::Labels;
use super::problem_text::{problem_text, task_problem_text};
use super::url_check::{self, UrlParts};
use crate::protocol::form::{FieldKind, FormField, FormModel, TextFormat, WidgetHint};
use crate::snapshot::Snapshot;

/// Sets `key` in `map` (one non-generic helper: each `impl Into<Value>` would be its own copy).
fn put(map: &mut Map, key: &'static str, value: Value) {
    map.put(key, value);
}

/// Sets `key` to the text `s`.
fn put_str(map: &mut Map, key: &'static str, s: &str) {
    put(map, key, text(s));
}

/// Sets `key` to `b`.
fn put_bool(map: &mut Map, key: &'static str, b: bool) {
    put(map, key, Value::Bool(b));
}

fn text(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// The platform's URL parser (JS `new URL()`, the one `window.open` uses; the `url` crate in native
/// tests): what it reads of an address, or `None` when it does not parse.
pub type ParseUrl<'a> = &'a dyn Fn(&str) -> Option<UrlParts>;

/// The server that asks, as a card names it, and whether it is on this machine.
pub struct Server<'a> {
    /// Its host (with a non-default port), else the endpoint as configured.
    pub name: &'a str,
    /// It is loopback: the one case where a URL-mode question may offer a loopback `http:` page.
    pub loopback: bool,
    /// It is on this machine or its network (`url_check::is_local`): its addresses there are no news.
    pub local: bool,
}

/// What a card shows of `model`, in `labels`' words; `server` asks, `parse` reads URL-mode addresses.
///
/// `status` (the card's `data-status`), `statusText`, `title`, `server` (its name, shown when a list
/// holds several servers' tasks), `conn`, `message`, `working`, `progress` (`[progress, total]` as the
/// server wrote them, `total` possibly `null`; `null` when none), `live`,
/// `settled`, `created` / `updated` (Unix ms or `null`, for the elapsed clock), `cancel` (the Cancel
/// task button's words), `cancelRequested`, `error` (why the task ended badly, or that the tool
/// reported an error; `null` when neither), `result` ([`result`]) and `questions` ([`question`]).
pub fn card(model: &CardModel, labels: &Labels, server: &Server<'_>, parse: ParseUrl<'_>) -> Value {
    let mut v = Map::new();
    put_str(&mut v, "status", model.status_name());
    put_str(&mut v, "statusText", labels.get(&model.status_key()));
    put_str(&mut v, "title", &model.tool);
    put_str(&mut v, "server", server.name);
    put_str(&mut v, "conn", model.connectivity.map(|k| labels.get(k)).unwrap_or(""));
    put_str(&mut v, "message", model.message.as_deref().unwrap_or(""));
    put_bool(&mut v, "working", model.is_working());
    // `[progress, total]` (total may be null) for a determinate bar; null for an indeterminate one.
    let progress = model.progress.as_ref().map_or(Value::Null, |(done, total)| {
        Value::Array(vec![Value::Number(done.clone()), total.clone().map_or(Value::Null, Value::Number)])
    });
    put(&mut v, "progress", progress);
    put_bool(&mut v, "live", model.is_live());
    put_bool(&mut v, "settled", model.is_settled());
    put(&mut v, "created", model.created_at.map_or(Value::Null, Value::from));
    put(&mut v, "updated", model.updated_at.map_or(Value::Null, Value::from));
    let cancel = if model.cancel_requested { "cancel.requested" } else { "action.cancelTask" };
    put_str(&mut v, "cancel", labels.get(cancel));
    put_bool(&mut v, "cancelRequested", model.cancel_requested);
    let is_error = model.result.as_ref().is_some_and(|r| r.is_error);
    let error = match &model.problem {
        Some(problem) => Value::String(task_problem_text(labels, problem)),
        None if is_error => text(labels.get("result.isError")),
        None => Value::Null,
    };
    put(&mut v, "error", error);
    put(&mut v, "result", model.result.as_ref().map_or(Value::Null, |r| result(r, labels, server, parse)));
    let mut questions = Vec::with_capacity(model.questions.len());
    for (key, q) in &model.questions {
        questions.push(question(key, q, labels, server, parse));
    }
    put(&mut v, "questions", Value::Array(questions));
    Value::Object(v)
}

/// A result: `error` (`isError`), `parts` (one per content piece, or "No content"), `fields`
/// (`structuredContent` as `[key, value]` rows) and `json` (the whole result, indented).
///
/// A part is a paragraph's text, or an object: bytes to draw (`tag` `img` or `audio`, with `mime`,
/// `data` in base64 and `label`, the alt text or the audio's name) or to offer as a download (`tag`
/// `file`, `label` the link's words, `name` the file's), or a resource link (`tag` `a`, `label` its
/// name, and the members of a URL-mode address, [`url_question`]).
fn result(r: &ResultView, labels: &Labels, server: &Server<'_>, parse: ParseUrl<'_>) -> Value {
    let mut parts = Vec::with_capacity(r.pieces.len().max(1));
    for piece in &r.pieces {
        parts.push(match piece {
            Piece::Text(t) => text(t),
            Piece::Named { key, slot, value } => Value::String(labels.fill(key, &[(slot, value)])),
            Piece::Bytes { tag, mime, data, name } => {
                let mut v = Map::new();
                put_str(&mut v, "tag", tag);
                put_str(&mut v, "mime", mime);
                put_str(&mut v, "data", data);
                let label = match (*tag, name) {
                    ("file", _) => {
                        let file = name.as_deref().unwrap_or("download");
                        put_str(&mut v, "name", file);
                        labels.fill("result.download", &[("name", file), ("mime", mime)])
                    }
                    (_, Some(name)) => name.clone(),
                    ("img", None) => labels.fill("result.image", &[("mime", mime)]),
                    _ => labels.fill("result.audio", &[("mime", mime)]),
                };
                put(&mut v, "label", Value::String(label));
                Value::Object(v)
            }
            Piece::Link { name, uri } => {
                let mut v = Map::new();
                put_str(&mut v, "tag", "a");
                put(&mut v, "label", Value::String(labels.fill("result.resource", &[("uri", name)])));
                url_question(&mut v, uri, labels, server, parse);
                Value::Object(v)
            }
        });
    }
    if parts.is_empty() && r.fields.is_empty() {
        parts.push(text(labels.get("result.empty")));
    }
    let mut fields = Vec::with_capacity(r.fields.len());
    for (key, value) in &r.fields {
        fields.push(Value::Array(vec![text(key), text(value)]));
    }
    let mut v = Map::new();
    put_bool(&mut v, "error", r.is_error);
    put(&mut v, "parts", Value::Array(parts));
    put(&mut v, "fields", Value::Array(fields));
    put_str(&mut v, "json", &r.json);
    Value::Object(v)
}

/// One question, keyed by its input key (`key`). A note: `note` (its words). A form (`mode: "form"`):
/// `message`, `asked` (who asks), `schema` (as JSON text, handed back to [`answer`]), `invalid` (why the schema cannot
/// be shown, or `null`), `fields` ([`field`]) and `accept` (whether there is anything to accept). A URL
/// (`mode: "url"`, [`url_question`]): `message`, `asked`, `url`, `host`, `unicode`, `warnings`, `open`,
/// `href`.
fn question(key: &str, q: &Question, labels: &Labels, server: &Server<'_>, parse: ParseUrl<'_>) -> Value {
    let mut v = Map::new();
    put_str(&mut v, "key", key);
    let asked = Value::String(labels.fill("form.askedBy", &[("server", server.name)]));
    match q {
        Question::Unsupported { note, method } => {
            put(&mut v, "note", Value::String(labels.fill(note, &[("method", method)])));
        }
        Question::Form { message, form, schema } => {
            put_str(&mut v, "mode", "form");
            put_str(&mut v, "message", message);
            put(&mut v, "asked", asked);
            // As JSON text: through a JS object every number would be read as a double, and the bounds
            // checked would no longer be the ones the server wrote. Only a form that can be accepted.
            let schema = form.as_ref().map(|_| Value::String(schema.to_string()));
            put(&mut v, "schema", schema.unwrap_or_default());
            let invalid = form.as_ref().err().map(|e| labels.fill("form.invalidSchema", &[("error", &e.to_string())]));
            put(&mut v, "invalid", invalid.map_or(Value::Null, Value::String));
            let mut fields = Vec::new();
            for f in form.as_ref().map(FormModel::fields).unwrap_or_default() {
                fields.push(field(f, labels));
            }
            put(&mut v, "fields", Value::Array(fields));
            put_bool(&mut v, "accept", form.is_ok());
        }
        Question::Url { message, url } => {
            put_str(&mut v, "mode", "url");
            put_str(&mut v, "message", message);
            put(&mut v, "asked", asked);
            url_question(&mut v, url, labels, server, parse);
        }
    }
    Value::Object(v)
}

/// A URL-mode address, checked ([`url_check::check`]) as the parser reads it: `url` (the parsed
/// `href`, exactly what Open opens, or the text as sent when it does not parse), `host` (the parser's,
/// ASCII), `unicode` (the host's international form, or `null`), `warnings` (their words, strongest
/// first), `open` (the Open button's words) and `href` (what it opens), both `null` when it may not be
/// opened. Parsed without a base: a relative address names no site, and resolving it against the page
/// would make the server's text point into the host app.
fn url_question(v: &mut Map, raw: &str, labels: &Labels, server: &Server<'_>, parse: ParseUrl<'_>) {
    let url = url_check::check(raw, parse(raw).as_ref(), server.loopback, server.local);
    put_str(v, "url", &url.full);
    put_str(v, "host", &url.host);
    put(v, "unicode", url.unicode_host.as_deref().map_or(Value::Null, text));
    let mut warnings = Vec::new();
    for key in url.warnings() {
        warnings.push(text(labels.get(key)));
    }
    put(v, "warnings", Value::Array(warnings));
    let open = url.openable.then(|| labels.fill("action.open", &[("domain", &url.host)]));
    put(v, "open", open.map_or(Value::Null, Value::String));
    put(v, "href", if url.openable { Value::String(url.full) } else { Value::Null });
}

/// The widget a field is drawn as: `input` (text or number, its `attrs` set on the `<input>`),
/// `checkbox`, `select` (a drop-down), `radio` or `checkboxes` (a group of choices).
fn widget(field: &FormField) -> &'static str {
    match field.kind.widget_hint() {
        WidgetHint::TextInput | WidgetHint::NumberInput => "input",
        WidgetHint::Checkbox => "checkbox",
        WidgetHint::Select => "select",
        WidgetHint::Radio => "radio",
        WidgetHint::Checkboxes => "checkboxes",
    }
}

/// One form field: `name` (the property), `label` (its title, else its name), `hint` (its
/// description or `null`), `required`, `widget` ([`widget`]), and per widget: `attrs` and `value` for
/// an input, `checked` for a checkbox, `options` (`[value, label, chosen]`) for the others, and for a
/// drop-down `choose` (words of the empty first option, when no option is the default).
fn field(f: &FormField, labels: &Labels) -> Value {
    let mut v = Map::new();
    put_str(&mut v, "name", &f.name);
    put_str(&mut v, "label", f.title.as_deref().unwrap_or(&f.name));
    put(&mut v, "hint", f.description.as_deref().map_or(Value::Null, text));
    put_bool(&mut v, "required", f.required);
    put_str(&mut v, "widget", widget(f));
    let mut attrs = Map::new();
    let mut value = None;
    let mut options = Vec::new();
    let mut chosen = |choices: &[crate::protocol::form::Choice], is: &dyn Fn(&str) -> bool| {
        for c in choices {
            options.push(Value::Array(vec![text(&c.value), text(c.label()), Value::Bool(is(&c.value))]));
        }
    };
    match &f.kind {
        FieldKind::Text { format, min_length, max_length, default } => {
            put_str(&mut attrs, "type", input_type(*format));
            if matches!(format, Some(TextFormat::Email | TextFormat::Uri)) {
                put_str(&mut attrs, "spellcheck", "false");
                put_str(&mut attrs, "autocapitalize", "off");
            }
            if *format == Some(TextFormat::DateTime) {
                put_str(&mut attrs, "placeholder", "2026-02-28T13:45:00Z");
            }
            if let Some(n) = min_length {
                put(&mut attrs, "minlength", Value::String(crate::text::unsigned(*n)));
            }
            if let Some(n) = max_length {
                put(&mut attrs, "maxlength", Value::String(crate::text::unsigned(*n)));
            }
            value = default.clone();
        }
        FieldKind::Number { integer, minimum, maximum, default } => {
            put_str(&mut attrs, "type", "number");
            put_str(&mut attrs, "inputmode", if *integer { "numeric" } else { "decimal" });
            put_str(&mut attrs, "step", if *integer { "1" } else { "any" });
            // The schema's own text: a JSON number is always a valid HTML floating-point number, and
            // writing it through a double could change it (the default would then go back changed).
            if let Some(n) = minimum {
                put_str(&mut attrs, "min", n.as_str());
            }
            if let Some(n) = maximum {
                put_str(&mut attrs, "max", n.as_str());
            }
            value = default.as_ref().map(|d| d.as_str().to_owned());
        }
        FieldKind::Boolean { default } => put(&mut v, "checked", Value::Bool(default.unwrap_or(false))),
        FieldKind::SingleSelect { options: choices, default } => {
            chosen(choices, &|value| default.as_deref() == Some(value));
            if default.is_none() && f.kind.widget_hint() == WidgetHint::Select {
                put_str(&mut v, "choose", labels.get("form.choose"));
            }
        }
        FieldKind::MultiSelect { options: choices, default, .. } => {
            // At most 1,024 options in a form (`FormLimit::Options`), so at most as many defaults.
            chosen(choices, &|value| default.iter().any(|d| d == value));
        }
    }
    if !attrs.is_empty() {
        put(&mut v, "attrs", Value::Object(attrs));
        put(&mut v, "value", value.map_or(Value::Null, Value::String));
    }
    if !options.is_empty() {
        put(&mut v, "options", Value::Array(options));
    }
    Value::Object(v)
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

/// [`answer`] as the element's script reads it: `{ answer }` (the answer as JSON text, numbers as
/// typed), `{ errors }`, or `null` for a schema that is no form.
pub fn answer_outcome(schema: &Value, entered: &Value, labels: &Labels) -> Value {
    let (member, v) = match answer(schema, entered, labels) {
        None => return Value::Null,
        Some(Ok(answer)) => ("answer", Value::String(answer.to_string())),
        Some(Err(errors)) => ("errors", errors),
    };
    let mut out = Map::new();
    out.put(member, v);
    Value::Object(out)
}

/// Checks what the user entered in the form of `schema`: the answer to send,
/// `{ action: "accept", content }`, or the problems, `{ property: words }` (each field's first problem).
/// `None` for a schema that is no form (such a question has nothing to accept).
///
/// `entered` is the controls as read: text as typed (blank controls left out), a checkbox's `true` /
/// `false`, a choice group's values. A number field's text becomes a JSON number with that text when
/// it reads as one (so `4.50` is sent as `4.50`) and stays text otherwise, which the model refuses as
/// not a number.
pub fn answer(schema: &Value, entered: &Value, labels: &Labels) -> Option<Result<Value, Value>> {
    let model = FormModel::from_schema(schema).ok()?;
    let mut answers = entered.as_object().cloned().unwrap_or_default();
    // Within the form's limits (`FormLimit`): at most 256 fields, each looked up among the controls.
    for f in model.fields() {
        if let (FieldKind::Number { .. }, Some(Value::String(raw))) = (&f.kind, answers.get(&f.name)) {
            if let Some(n) = Number::parse_literal(raw) {
                answers.insert(f.name.clone(), Value::Number(n));
            }
        }
    }
    Some(match model.validate(&answers) {
        Ok(content) => {
            let mut v = Map::new();
            put_str(&mut v, "action", "accept");
            put(&mut v, "content", Value::Object(content));
            Ok(Value::Object(v))
        }
        Err(errors) => {
            // A field's problems come together (fields in order, then unknown keys): its first is shown.
            let mut by_field = Map::new();
            let mut last = None;
            for e in &errors {
                if last != Some(&e.field) {
                    by_field.push_new(e.field.clone(), Value::String(problem_text(labels, &e.problem)));
                }
                last = Some(&e.field);
            }
            Err(Value::Object(by_field))
        }
    })
}

/// The list's rows for `snapshots` (as the client lists them; unreadable ones left out), tasks
/// needing input first, then newest first: `{ id, rank }` for a task (drawn by its own card; `rank`
/// orders rows of several clients, larger first), and for a call of unknown outcome also `title`,
/// `status` and `message`.
pub fn list(snapshots: Vec<Value>, labels: &Labels) -> Value {
    let mut read = Vec::with_capacity(snapshots.len());
    for s in snapshots {
        read.extend(Snapshot::from_json(&s));
    }
    let ranks = list_order(&mut read);
    let mut rows = Vec::with_capacity(read.len());
    for (s, rank) in read.iter().zip(ranks) {
        let mut row = Map::new();
        put_str(&mut row, "id", s.id());
        put(&mut row, "rank", Value::from(rank));
        if let Snapshot::UnknownCall(_) = s {
            let model = CardModel::from_snapshot(s);
            put_str(&mut row, "title", &model.tool);
            put_str(&mut row, "status", labels.get(&model.status_key()));
            put_str(&mut row, "message", model.message.as_deref().unwrap_or(""));
        }
        rows.push(Value::Object(row));
    }
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn en() -> Labels {
        Labels::resolve("en", &[])
    }

    fn snapshot(status: &str) -> Value {
        json!({
            "taskId": "t1", "toolName": "deploy", "status": status, "statusMessage": "Deploying <b>api</b>",
            "createdAt": "2026-12-02T10:00:00Z", "lastUpdatedAt": "2026-12-02T10:01:05Z",
            "inputRequests": {}, "result": null, "error": null, "connectivity": "offline",
            "cancelRequested": true, "expired": null, "restored": false
        })
    }

    use crate::element::model::url_check::tests::parse;

    fn view(s: &Value) -> Value {
        card(&CardModel::from_json(s), &en(), &Server { name: "tasks.example", loopback: false, local: false }, &parse)
    }

    #[test]
    fn a_working_task_with_reported_progress_has_a_fraction_and_others_none() {
        assert_eq!(view(&snapshot("working"))["progress"], Value::Null, "none reported: indeterminate");
        let mut s = snapshot("working");
        s["progress"] = crate::json::from_str(r#"{"progress":2.50,"total":3}"#).unwrap_or_default();
        assert_eq!(view(&s)["progress"].to_string(), "[2.50,3]", "the server's numbers, as written");
        s["progress"]["total"] = Value::Null;
        assert_eq!(view(&s)["progress"].to_string(), "[2.50,null]", "no total: the bar cannot say how far");
        s["status"] = json!("input_required");
        assert_eq!(view(&s)["progress"], Value::Null, "only a working task shows it");
    }

    #[test]
    fn card_members() {
        let v = view(&snapshot("working"));
        let keys: Vec<&str> = v.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "status",
                "statusText",
                "title",
                "server",
                "conn",
                "message",
                "working",
                "progress",
                "live",
                "settled",
                "created",
                "updated",
                "cancel",
                "cancelRequested",
                "error",
                "result",
                "questions"
            ]
        );
        assert_eq!(v["status"], "working");
        assert_eq!(v["statusText"], "Working");
        assert_eq!(v["title"], "deploy");
        assert_eq!(v["server"], "tasks.example", "the server it came from");
        assert_eq!(v["conn"], "Offline — resumes when you are back online");
        assert_eq!(v["message"], "Deploying <b>api</b>");
        assert_eq!(
            (v["working"].clone(), v["live"].clone(), v["settled"].clone()),
            (json!(true), json!(true), json!(false))
        );
        assert_eq!(v["updated"].as_f64().unwrap() - v["created"].as_f64().unwrap(), 65_000.0);
        assert_eq!(v["cancel"], "Cancel requested — waiting for the server");
        assert_eq!((v["error"].clone(), v["result"].clone()), (Value::Null, Value::Null));
    }

    #[test]
    fn an_unreadable_snapshot_is_an_unknown_state() {
        let v = view(&json!({ "status": "weird" }));
        assert_eq!((v["status"].as_str(), v["statusText"].as_str()), (Some("unknown"), Some("Unknown state")));
        assert_eq!(v["live"], false);
        assert_eq!(v["created"], Value::Null);
    }

    #[test]
    fn errors_come_from_the_problem_or_an_is_error_result() {
        let mut s = snapshot("failed");
        s["error"] = json!({ "code": -32000, "message": "Deployment rejected" });
        assert_eq!(view(&s)["error"], "The task failed: Deployment rejected (Error code -32000)");
        let mut s = snapshot("completed");
        s["result"] = json!({ "content": [], "isError": true });
        let v = view(&s);
        assert_eq!(v["error"], "The tool reported an error");
        assert_eq!(v["result"]["error"], true);
        assert_eq!(v["result"]["parts"], json!(["No content"]));
        assert_eq!(v["cancel"], "Cancel task", "a settled task has no cancel pending");
        // A task a 2025-11-25 server failed with the tool's error result: failed, and that result shown.
        let mut s = snapshot("failed");
        s["result"] = json!({ "content": [{ "type": "text", "text": "build cache unavailable" }], "isError": true });
        let v = view(&s);
        assert_eq!(v["status"], "failed");
        assert_eq!(v["error"], "The tool reported an error");
        assert_eq!(v["result"]["parts"], json!(["build cache unavailable"]));
    }

    #[test]
    fn results_as_paragraphs_rows_and_json() {
        let mut s = snapshot("completed");
        s["result"] = json!({
            "content": [ { "type": "text", "text": "<img src=x>" }, { "type": "image", "data": "AA==", "mimeType": "image/png" } ],
            "structuredContent": { "replicas": 3, "service": "api" }
        });
        let r = view(&s)["result"].clone();
        assert_eq!(r["error"], false);
        assert_eq!(r["parts"][0], json!("<img src=x>"));
        assert_eq!(
            (r["parts"][1]["tag"].clone(), r["parts"][1]["label"].clone()),
            (json!("img"), json!("Image (image/png)"))
        );
        assert_eq!(r["fields"], json!([["replicas", "3"], ["service", "api"]]));
        assert!(r["json"].as_str().unwrap().contains("\"structuredContent\""));
    }

    #[test]
    fn result_parts_draw_bytes_offer_files_and_check_links_as_url_mode_addresses() {
        let mut s = snapshot("completed");
        s["result"] = json!({ "content": [
            { "type": "audio", "data": "SUQz", "mimeType": "audio/ogg" },
            { "type": "resource", "resource": { "uri": "file:///r/report.pdf", "mimeType": "application/pdf", "blob": "JVBERi0=" } },
            { "type": "resource_link", "uri": "https://xn--e1afmkfd.example/doc", "name": "Spec" },
            { "type": "resource_link", "uri": "javascript:alert(1)", "name": "Click" },
            { "type": "resource_link", "uri": "https://user:pw@example.com/", "name": "Creds" },
            { "type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml" },
        ] });
        let parts = view(&s)["result"]["parts"].clone();
        assert_eq!(
            parts[0],
            json!({ "tag": "audio", "mime": "audio/ogg", "data": "SUQz", "label": "Audio (audio/ogg)" })
        );
        assert_eq!(parts[1]["tag"], "file");
        assert_eq!(
            (parts[1]["name"].clone(), parts[1]["label"].clone()),
            (json!("report.pdf"), json!("Download report.pdf (application/pdf)"))
        );
        let link = &parts[2];
        assert_eq!((link["tag"].clone(), link["label"].clone()), (json!("a"), json!("Resource: Spec")));
        assert_eq!(
            (link["host"].clone(), link["unicode"].clone()),
            (json!("xn--e1afmkfd.example"), json!("пример.example"))
        );
        assert_eq!(link["href"], "https://xn--e1afmkfd.example/doc");
        assert!(link["warnings"].as_array().is_some_and(|w| !w.is_empty()), "punycode is warned of");
        for refused in [&parts[3], &parts[4]] {
            assert_eq!((refused["href"].clone(), refused["open"].clone()), (Value::Null, Value::Null), "{refused}");
            assert!(refused["warnings"].as_array().is_some_and(|w| !w.is_empty()));
        }
        assert_eq!(parts[5], json!("Not shown: the type “image/svg+xml” is not allowed"));
    }

    #[test]
    fn questions_of_each_kind() {
        let mut s = snapshot("input_required");
        s["inputRequests"] = json!({
            "a": { "method": "elicitation/create", "params": { "message": "Approve?", "requestedSchema":
                { "type": "object", "properties": { "ok": { "type": "boolean", "title": "OK?" } }, "required": ["ok"] } } },
            "b": { "method": "elicitation/create", "params": { "mode": "url", "message": "Pay", "url": "https://xn--pple-43d.com/x" } },
            "c": { "method": "elicitation/create", "params": { "mode": "url", "message": "Pay", "url": "http://pay.example/x" } },
            "d": { "method": "sampling/createMessage", "params": { "messages": [], "maxTokens": 5 } },
            "e": { "method": "elicitation/create", "params": { "message": "bad", "requestedSchema": { "type": "array" } } }
        });
        let q = view(&s)["questions"].clone();
        assert_eq!(q[0]["key"], "a");
        assert_eq!(q[0]["mode"], "form");
        assert_eq!(q[0]["asked"], "Asked by tasks.example");
        assert_eq!(q[0]["accept"], true);
        assert_eq!(q[0]["invalid"], Value::Null);
        let schema = crate::json::from_str(q[0]["schema"].as_str().unwrap()).unwrap();
        assert_eq!(schema["properties"]["ok"]["type"], "boolean");
        assert_eq!(
            q[0]["fields"],
            json!([{ "name": "ok", "label": "OK?", "hint": null, "required": true, "widget": "checkbox", "checked": false }])
        );
        assert_eq!(q[1]["mode"], "url");
        assert_eq!(
            (q[1]["host"].as_str(), q[1]["href"].as_str()),
            (Some("xn--pple-43d.com"), Some("https://xn--pple-43d.com/x"))
        );
        assert_eq!(q[1]["unicode"], "\u{0430}pple.com");
        assert_eq!(q[1]["open"], "Open xn--pple-43d.com");
        assert_eq!(q[1]["warnings"].as_array().map(Vec::len), Some(2), "mixed scripts, punycode");
        assert_eq!(
            (q[2]["open"].clone(), q[2]["href"].clone()),
            (Value::Null, Value::Null),
            "remote http is not opened"
        );
        assert_eq!(q[2]["unicode"], Value::Null);
        assert!(q[2]["warnings"][0].as_str().unwrap().starts_with("This address cannot be opened"));
        assert!(q[3]["note"].as_str().unwrap().contains("(sampling)"));
        assert_eq!(q[3]["mode"], Value::Null);
        assert_eq!(q[4]["accept"], false);
        assert!(q[4]["invalid"].as_str().unwrap().starts_with("This form cannot be shown: "));
        assert_eq!(q[4]["fields"], json!([]));
    }

    #[test]
    fn a_url_is_shown_and_opened_as_the_parser_reads_it_and_http_only_from_a_loopback_server() {
        let mut s = snapshot("input_required");
        s["inputRequests"] = json!({
            "a": { "method": "elicitation/create", "params": { "mode": "url", "message": "Sign in", "url": "https://evil.example\\@bank.example/login" } },
            "b": { "method": "elicitation/create", "params": { "mode": "url", "message": "Sign in", "url": "http://127.0.0.1:8787/login" } }
        });
        let model = CardModel::from_json(&s);
        let local = card(&model, &en(), &Server { name: "127.0.0.1:9", loopback: true, local: true }, &parse)
            ["questions"]
            .clone();
        assert_eq!(local[0]["host"], "evil.example", "the backslash ends the authority");
        assert_eq!(local[0]["href"], "https://evil.example/@bank.example/login");
        assert_eq!(local[0]["asked"], "Asked by 127.0.0.1:9");
        assert_eq!(local[1]["href"], "http://127.0.0.1:8787/login");
        let remote = view(&s)["questions"].clone();
        assert_eq!(remote[1]["href"], Value::Null, "a remote server may not send the user to a local page");
    }

    fn survey() -> Value {
        json!({ "type": "object", "required": ["email", "size"], "properties": {
            "email": { "type": "string", "format": "email", "title": "Email", "description": "Where to write" },
            "when": { "type": "string", "format": "date-time", "minLength": 1, "maxLength": 40 },
            "rating": { "type": "number", "minimum": 0, "maximum": 5.5 },
            "count": { "type": "integer", "default": 3 },
            "size": { "type": "string", "enum": ["s", "m"], "default": "m" },
            "country": { "type": "string", "enum": ["a", "b", "c", "d", "e", "f"] },
            "topics": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] }, "default": ["y"] }
        }})
    }

    #[test]
    fn fields_carry_their_widget_attributes_defaults_and_options() {
        let mut s = snapshot("input_required");
        s["inputRequests"] = json!({ "q": { "method": "elicitation/create", "params": { "message": "?", "requestedSchema": survey() } } });
        let f = view(&s)["questions"][0]["fields"].clone();
        assert_eq!(
            f[0],
            json!({ "name": "email", "label": "Email", "hint": "Where to write", "required": true, "widget": "input",
                    "attrs": { "type": "email", "spellcheck": "false", "autocapitalize": "off" }, "value": null })
        );
        assert_eq!(
            f[1]["attrs"],
            json!({ "type": "text", "placeholder": "2026-02-28T13:45:00Z", "minlength": "1", "maxlength": "40" })
        );
        assert_eq!(
            f[2]["attrs"],
            json!({ "type": "number", "inputmode": "decimal", "step": "any", "min": "0", "max": "5.5" })
        );
        assert_eq!((f[3]["attrs"]["step"].as_str(), f[3]["value"].as_str()), (Some("1"), Some("3")));
        assert_eq!(f[4]["widget"], "radio");
        assert_eq!(f[4]["options"], json!([["s", "s", false], ["m", "m", true]]));
        assert_eq!(f[4]["choose"], Value::Null, "radios need no empty choice");
        assert_eq!(f[5]["widget"], "select");
        assert_eq!(f[5]["choose"], "Choose…");
        assert_eq!(f[6]["widget"], "checkboxes");
        assert_eq!(f[6]["options"], json!([["x", "x", false], ["y", "y", true]]));
    }

    #[test]
    fn number_bounds_and_defaults_keep_the_schema_text() {
        let schema = crate::json::from_str(
            r#"{ "type": "object", "properties": { "n": { "type": "number", "minimum": -0.50, "maximum": 1e400, "default": 1.50 } } }"#,
        )
        .unwrap();
        let mut s = snapshot("input_required");
        s["inputRequests"] =
            json!({ "q": { "method": "elicitation/create", "params": { "message": "?", "requestedSchema": schema } } });
        let q = view(&s)["questions"][0].clone();
        assert_eq!(q["fields"][0]["attrs"]["min"], "-0.50");
        assert_eq!(q["fields"][0]["attrs"]["max"], "1e400");
        assert_eq!(q["fields"][0]["value"], "1.50");
        assert!(q["schema"].as_str().unwrap().contains(r#""maximum":1e400"#), "the schema's text as written");
    }

    #[test]
    fn answers_are_checked_with_numbers_kept_as_typed() {
        let ok = answer(
            &survey(),
            &json!({ "email": "a@example.com", "rating": "4.50", "count": "7.0", "size": "s", "topics": ["x"] }),
            &en(),
        );
        let ok = ok.unwrap().unwrap();
        assert_eq!(
            ok.to_string(),
            r#"{"action":"accept","content":{"email":"a@example.com","rating":4.50,"count":7,"size":"s","topics":["x"]}}"#
        );
        let bad = answer(&survey(), &json!({ "email": "nope", "rating": "9", "count": "?" }), &en());
        assert_eq!(
            bad,
            Some(Err(json!({
                "email": "Enter an email address like name@example.com.",
                "rating": "Enter 5.5 or less.",
                "count": "Enter a number.",
                "size": "This field is required."
            })))
        );
        let th = Labels::resolve("th", &[]);
        assert_eq!(answer(&survey(), &json!({}), &th).unwrap().unwrap_err()["email"], "กรุณากรอกช่องนี้");
        assert_eq!(answer(&json!({ "type": "array" }), &json!({}), &en()), None);
    }

    #[test]
    fn list_rows_in_order_with_unknown_calls_worded() {
        let at = |id: &str, status: &str, t: &str| {
            let mut s = snapshot(status);
            s["taskId"] = json!(id);
            s["createdAt"] = json!(t);
            s
        };
        let rows = list(
            [
                at("old", "completed", "2026-12-02T09:00:00Z"),
                json!({ "nonsense": true }),
                at("ask", "input_required", "2026-12-02T08:00:00Z"),
                json!({ "taskId": null, "callId": "call", "toolName": "build", "status": "outcome_unknown",
                        "startedAt": 1_796_203_800_000u64, "statusMessage": "The page closed" }),
            ]
            .into(),
            &en(),
        );
        let ms = |t: &str| crate::protocol::timestamp::parse_millis(t).unwrap();
        assert_eq!(
            rows,
            json!([{ "id": "ask", "rank": 10_000_000_000_000i64 + ms("2026-12-02T08:00:00Z") },
                   { "id": "call", "rank": 1_796_203_800_000i64, "title": "build", "status": "Outcome unknown", "message": "The page closed" },
                   { "id": "old", "rank": ms("2026-12-02T09:00:00Z") }])
        );
    }
}
