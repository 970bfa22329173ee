//! What `<mcp-task>` and `<mcp-task-list>` ask the door (cargo feature `element`): a card and the list
//! rows, in the host's words, from the client's own snapshots. URLs are read by the platform's parser,
//! which only the driver can call: the door names the URLs a card needs (`{ need: [...] }`), and the
//! driver asks again with what its parser read of each (`urls`: URL → its parts, or `null`).
use std::cell::RefCell;

use crate::element::model::card_model::CardModel;
use crate::element::model::labels::Labels;
use crate::element::model::url_check::{is_local, is_loopback, UrlParts};
use crate::element::model::view;
use crate::json::{json, Value};

use super::Door;

/// What the platform's parser read of a URL (`null`: it does not parse).
fn parts(value: &Value) -> Option<UrlParts> {
    value.as_object()?;
    // A part the parser did not give is empty, as the platform's URL has it.
    Some(UrlParts::from_fields(|name| value.get(name).and_then(Value::as_str).unwrap_or_default().to_owned()))
}

impl Door {
    /// The card of task `id` (`element::model::view::card`): of the client's own snapshot, else of the
    /// one the element drew last (`snapshot`, its JSON text, or a snapshot); `null` when there is
    /// neither. The card's `snapshot` is the one drawn, as JSON text, left out when its `digest` is
    /// `drawn` (the element's last). `server`: the endpoint as the parser read it against the page.
    pub(super) fn card(
        &mut self,
        x: u64,
        id: &str,
        (given, drawn): (Option<&Value>, Option<&str>),
        words: Option<&Value>,
        server: Option<&Value>,
        urls: Option<&Value>,
    ) {
        let own = self.snapshot(id);
        let mut snapshot = match (own, given) {
            // The element's copy, sent only when the client has none: the text a card gave it.
            (Value::Null, Some(Value::String(text))) => crate::json::from_str(text).unwrap_or_default(),
            (Value::Null, Some(given)) => given.clone(),
            (own, _) => own,
        };
        if snapshot.is_null() {
            return self.done(x, Ok(Value::Null));
        }
        // The card reads inside the result, which the client keeps as text (`json::RawJson`). A form's
        // schema stays text: the model reads it only when it is small enough to be drawn.
        if let Value::Object(members) = &mut snapshot {
            if let Some(result) = members.get_mut("result") {
                result.expand();
            }
        }
        let endpoint = server.and_then(parts).filter(|p| !p.host.is_empty());
        let server = match &endpoint {
            Some(p) => view::Server { name: &p.host, loopback: is_loopback(&p.hostname), local: is_local(&p.hostname) },
            None => view::Server { name: &self.url, loopback: false, local: false },
        };
        let need = RefCell::new(Vec::new());
        let parse = |raw: &str| match urls.and_then(|u| u.get(raw)) {
            Some(read) => parts(read),
            None => {
                need.borrow_mut().push(Value::from(raw));
                None
            }
        };
        let mut card = view::card(
            &CardModel::from_json(&snapshot),
            &Labels::of_table(words.unwrap_or(&Value::Null)),
            &server,
            &parse,
        );
        let need = need.into_inner();
        if !need.is_empty() {
            return self.done(x, Ok(json!({ "need": Value::Array(need) })));
        }
        // The snapshot drawn goes as its JSON text, and only when it is not the one the element drew
        // last (`drawn`, the digest this answer gives): a redraw of an unchanged task of megabytes would
        // otherwise carry, escape, parse and compare the whole task each time.
        if let Value::Object(members) = &mut card {
            let text = snapshot.to_string();
            // As text: compared as text, where reading a number would bring the float parser along.
            let digest = crate::text::unsigned(crate::text::digest(&text));
            if drawn != Some(digest.as_str()) {
                members.put("snapshot", Value::String(text));
            }
            members.put("digest", Value::String(digest));
        }
        self.done(x, Ok(card));
    }

    /// The rows of the list of this client's tasks and calls of unknown outcome.
    pub(super) fn list(&mut self, x: u64, words: Option<&Value>) {
        // Tasks, then calls of unknown outcome, in two loops: the `snapshots` chain consumed here cost
        // its own copy of the chain's code.
        let mut snapshots = Vec::new();
        for id in self.state.records().keys() {
            snapshots.push(self.snapshot(id));
        }
        for call in self.state.unknown_calls() {
            snapshots.push(crate::snapshot::UnknownCallSnapshot::of_call(call).to_json());
        }
        let rows = view::list(snapshots, &Labels::of_table(words.unwrap_or(&Value::Null)));
        self.done(x, Ok(rows));
    }
}
