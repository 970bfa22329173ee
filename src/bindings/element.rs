//! What `pkg/element.js` asks the Rust model (cargo feature `element`). The DOM half of `<mcp-task>` and
//! `<mcp-task-list>` is JavaScript; the decisions stay here, in `element::model`, tested natively. A few
//! plain functions, plain JS objects in and out (through `host::js_json`), so the glue stays small: no
//! classes, no callbacks, no DOM imports. What must keep its numbers exactly as written (a form's
//! schema, an answer) crosses as JSON text, since a JS object reads every number as a double. Internal
//! to the package: left out of the TypeScript types.
use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use super::task_client::TaskClient;
use crate::element::model::card_model::CardModel;
use crate::element::model::elapsed::format_elapsed;
use crate::element::model::labels::Labels;
use crate::element::model::url_check::{self, UrlParts};
use crate::element::model::view;
use crate::error::ClientError;
use crate::host::js_json::{from_js, to_js};
use crate::json::Value;

/// JSON of a JS value; what JSON cannot hold (a cycle, a BigInt) reads as `null`.
fn value(js: &JsValue) -> Value {
    from_js(js).unwrap_or(Value::Null)
}

/// The labels of a words table from [`element_words`].
fn labels(words: &JsValue) -> Labels {
    Labels::of_table(&value(words))
}

/// Every word for language `lang` (a BCP 47 tag), with `layers` (`[shared, own]` label overrides, each
/// `{ key: word }` or `{ [lang]: { key: word } }`) over the shipped ones: `{ key: word }`.
#[wasm_bindgen(js_name = elementWords, skip_typescript)]
pub fn element_words(lang: &str, layers: JsValue) -> JsValue {
    to_js(&Labels::layered(lang, &value(&layers)).table())
}

#[wasm_bindgen]
extern "C" {
    /// The platform's URL parser (JS `URL`): the one `window.open` and `fetch` use, so the card names
    /// what the browser opens. Bound here rather than through web-sys's `Url`: the fields are read
    /// with `Reflect::get`, which the package imports anyway, instead of one import per getter.
    #[wasm_bindgen(js_name = URL)]
    type JsUrl;
    #[wasm_bindgen(constructor, js_class = "URL", catch)]
    fn new(url: &str, base: Option<&str>) -> Result<JsUrl, JsValue>;
}

/// What the platform's parser reads of `url` (resolved against `base`, when given); `None` when it
/// does not parse.
fn parse_url(url: &str, base: Option<&str>) -> Option<UrlParts> {
    let parsed: JsValue = JsUrl::new(url, base).ok()?.into();
    // A parsed URL has every field as a string; reading one cannot fail short of page code replacing
    // `URL`, and then empty fields make the URL unopenable (no host).
    let field = |name: &str| {
        js_sys::Reflect::get(&parsed, &JsValue::from_str(name)).ok().and_then(|v| v.as_string()).unwrap_or_default()
    };
    Some(UrlParts::from_fields(field))
}

/// What the card of task `task_id` shows (`element::model::view::card`), in the words of `words`: of
/// the client's own snapshot of the task, else (a task the client no longer has) of `snapshot`, the one
/// drawn last or an event's; `null` when there is neither. The snapshot shown comes back as `snapshot`.
/// The client's own comes first because a snapshot that went through JS has every number read as a
/// double (`1.50` would come back `1.5`, `1e400` as `null`), and a form shows numbers as the server
/// wrote them.
#[wasm_bindgen(js_name = elementCard, skip_typescript)]
pub fn element_card(client: &TaskClient, task_id: &str, snapshot: JsValue, words: JsValue) -> JsValue {
    let core = client.core();
    let given = || (!snapshot.is_undefined() && !snapshot.is_null()).then(|| value(&snapshot));
    let Some(mut snapshot) = core.snapshot(task_id).or_else(given) else { return JsValue::NULL };
    // The card reads inside the result, which the client keeps as text (`json::RawJson`).
    snapshot.expand();
    // The server that asks, named on every form: its host, else the endpoint as configured. The
    // endpoint may be relative (`/mcp`): `fetch` resolves it against the page, and so does this.
    let url = core.server_url();
    let base = crate::host::globals::global_property("document")
        .and_then(|d| js_sys::Reflect::get(&d, &JsValue::from_str("baseURI")).ok())
        .and_then(|b| b.as_string());
    let parts = parse_url(url, base.as_deref()).filter(|parts| !parts.host.is_empty());
    let server = match &parts {
        Some(parts) => view::Server { name: &parts.host, loopback: url_check::is_loopback(&parts.hostname) },
        None => view::Server { name: url, loopback: false },
    };
    let parse = |raw: &str| parse_url(raw, None);
    let mut card = view::card(&CardModel::from_json(&snapshot), &labels(&words), &server, &parse);
    if let Value::Object(members) = &mut card {
        members.put("snapshot", snapshot);
    }
    to_js(&card)
}

/// Checks what the user `entered` in the form of `schema` (JSON text, as the card view carries it;
/// `element::model::view::answer`): `{ answer }`, the answer to send as JSON text (numbers as typed),
/// `{ errors }`, each wrong field's problem in the words of `words`, or `null`.
#[wasm_bindgen(js_name = elementAnswer, skip_typescript)]
pub fn element_answer(schema: &str, entered: JsValue, words: JsValue) -> JsValue {
    let schema = crate::json::from_str(schema).unwrap_or(Value::Null);
    to_js(&view::answer_outcome(&schema, &value(&entered), &labels(&words)))
}

/// Sends `responses` (JSON text, `{ key: answer }`) for task `task_id`, as `TaskClient.respond` does
/// but without reading them as a JS value: numbers go to the server as the form holds their text.
#[wasm_bindgen(js_name = elementRespond, skip_typescript)]
pub fn element_respond(client: &TaskClient, task_id: String, responses: &str) -> js_sys::Promise {
    let core = client.core();
    let responses = crate::json::from_str(responses);
    crate::host::spawn::promise(async move {
        let responses = responses.map_err(|e| to_js_error(&ClientError::usage(e.to_string())))?;
        core.respond_value(&task_id, responses).await.map_err(|e| to_js_error(&e))?;
        Ok(JsValue::UNDEFINED)
    })
}

/// A duration in milliseconds as the card's clock shows it (`42s`, `3m 05s`, `2h 03m`).
#[wasm_bindgen(js_name = elementElapsed, skip_typescript)]
pub fn element_elapsed(ms: f64) -> String {
    format_elapsed(ms as i64)
}

/// The rows of a list of `client`'s tasks and calls of unknown outcome (`element::model::view::list`),
/// in order, in the words of `words`.
#[wasm_bindgen(js_name = elementList, skip_typescript)]
pub fn element_list(client: &TaskClient, words: JsValue) -> JsValue {
    // Rows read no result, so its raw parts (`json::RawJson`) stay text.
    to_js(&view::list(&client.core().snapshots(), &labels(&words)))
}
