//! Moving JSON between Rust and JS through `JSON.parse`/`JSON.stringify`: small in the wasm, and exact
//! for the plain data protocol values are. Parts the host parsed itself ([`HostJson`]) cross back as
//! the host's own values, set into the parsed object by path, never written and parsed again.
use std::cell::OnceCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::json::{HostPart, RawJson, Value};
use wasm_bindgen::JsValue;

/// Buffers above this size are not kept for the next [`to_js`].
const KEPT_TEXT_BYTES: usize = 64 * 1024;

thread_local! {
    /// The text [`to_js`] hands to `JSON.parse`, kept from one call to the next: written straight into
    /// a buffer that has already grown, not into a new `String` that grows (and is copied) on the way
    /// and then copied again by `Display`.
    static TEXT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// A JS value for `value`. The parts the host holds are the host's values themselves, shared with
/// every other value they were handed over in: hosts read them and must not change them.
pub fn to_js(value: &Value) -> JsValue {
    let mut parts = Vec::new();
    host_parts(value, &mut Vec::new(), &mut parts);
    // `try_with`: `with` would bring the panic path of a thread-local read after teardown.
    let mut text = TEXT.try_with(std::cell::Cell::take).unwrap_or_default();
    text.clear();
    let js = if parts.is_empty() {
        crate::json::write_compact_leaving_host(&mut text, value);
        js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL)
    } else {
        // `[value, [path, …]]` in one text, so that the paths cross with it, not key by key.
        text.push('[');
        crate::json::write_compact_leaving_host(&mut text, value);
        text.push_str(",[");
        let values = js_sys::Array::new();
        for (i, (path, part)) in parts.iter().enumerate() {
            text.push_str(if i == 0 { "[" } else { ",[" });
            for (j, step) in path.iter().enumerate() {
                if j > 0 {
                    text.push(',');
                }
                match step {
                    Step::Key(key) => crate::json::write_string(&mut text, key),
                    Step::Index(index) => text.push_str(&index.to_string()),
                }
            }
            text.push(']');
            values.push(&part.value);
        }
        text.push_str("]]");
        with_parts(&text, &values)
    };
    if text.capacity() <= KEPT_TEXT_BYTES {
        let _ = TEXT.try_with(|kept| kept.set(text));
    }
    js
}

#[wasm_bindgen::prelude::wasm_bindgen(module = "/src/host/browser.js")]
extern "C" {
    /// Parses `[value, paths]` and sets `parts[i]` at `paths[i]` in `value`.
    #[wasm_bindgen(js_name = withParts)]
    fn with_parts(text: &str, parts: &js_sys::Array) -> JsValue;
}

/// One step into a JSON value: a member's key or an item's index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Each part of `value` the host holds, with the path to it.
fn host_parts<'a>(value: &'a Value, path: &mut Vec<Step<'a>>, out: &mut Vec<(Vec<Step<'a>>, &'a HostJson)>) {
    match value {
        Value::Raw(raw) => {
            if let Some(part) = raw.host_part().and_then(|part| part.as_any().downcast_ref::<HostJson>()) {
                out.push((path.clone(), part));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                host_parts(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter() {
                path.push(Step::Key(key));
                host_parts(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// An object or array from the host's `JSON.parse`, held as a [`RawJson`] part: handed back to the host
/// as itself, and written as JSON (a record stored, two values compared) on first use, once: as the
/// server wrote it, cut from the answer's bytes (a double would lose a server's `9007199254740993`,
/// `1e308` or `-0`), or, for a part with no answer behind it, through `JSON.stringify`.
pub(crate) struct HostJson {
    value: JsValue,
    object: bool,
    text: OnceCell<Box<str>>,
    /// The answer it came in and where in it the part is: taken when the text is made, so that the
    /// answer goes with the last of its parts.
    source: std::cell::Cell<Option<(Rc<AnswerSource>, PartAt)>>,
}

// SAFETY: a `JsValue` (and the `Rc` and `Cell` beside it) lives on the one thread of the wasm instance
// that made it; this crate's wasm builds have no threads (no `atomics` target feature), so a `HostJson`
// is never seen by another thread. `Value` must be `Send + Sync` for the native server, where no
// `HostJson` is ever made.
unsafe impl Send for HostJson {}
unsafe impl Sync for HostJson {}

/// The bytes of an answer the host parsed, read by Rust's parser only when a part's text is first
/// asked for, and then once for all its parts (10,000 blocks cost one parse, not 10,000).
pub(crate) struct AnswerSource {
    bytes: js_sys::Uint8Array,
    read: std::cell::RefCell<Option<Value>>,
}

impl AnswerSource {
    pub(crate) fn new(bytes: js_sys::Uint8Array) -> Rc<AnswerSource> {
        Rc::new(AnswerSource { bytes, read: std::cell::RefCell::new(None) })
    }

    /// The text of the part `at`, as the server wrote it: the transport's own parse of an answer keeps
    /// these parts as text. `None` if it is not there (Rust's parser refused what `JSON.parse` took).
    fn text_at(&self, at: &PartAt) -> Option<Box<str>> {
        let mut read = self.read.borrow_mut();
        if read.is_none() {
            let bytes = self.bytes.to_vec();
            let answer = crate::protocol::jsonrpc::parse_answer(&crate::text::lossy_utf8(&bytes));
            *read = Some(answer.unwrap_or(Value::Null));
        }
        let result = read.as_ref()?.get("result")?;
        let part = match at {
            PartAt::Block(i) => result.get("result")?.get("content")?.get(i)?,
            PartAt::Structured => result.get("result")?.get("structuredContent")?,
            PartAt::Meta => result.get("result")?.get("_meta")?,
            PartAt::Schema(key) => result.get("inputRequests")?.get(key)?.get("params")?.get("requestedSchema")?,
        };
        match part {
            Value::Raw(raw) => Some(raw.as_str().into()),
            _ => None,
        }
    }
}

/// Where a part is in a `tasks/get` answer.
pub(crate) enum PartAt {
    /// `result.result.content[i]`.
    Block(usize),
    /// `result.result.structuredContent`.
    Structured,
    /// `result.result._meta`.
    Meta,
    /// `result.inputRequests[key].params.requestedSchema`.
    Schema(String),
}

impl HostJson {
    /// A part for `value`, an object or an array the host's `JSON.parse` made of the answer in
    /// `source`, `at` that place in it (without a source, its text is `JSON.stringify`'s). A form's
    /// schema is an object (`http.js` takes no other), so only the other parts ask JS which they are.
    pub(crate) fn part(value: JsValue, source: Option<&Rc<AnswerSource>>, at: PartAt) -> Value {
        let object = matches!(at, PartAt::Schema(_)) || !js_sys::Array::is_array(&value);
        let source = std::cell::Cell::new(source.map(|source| (Rc::clone(source), at)));
        Value::Raw(RawJson::host(Arc::new(HostJson { value, object, text: OnceCell::new(), source })))
    }
}

impl HostPart for HostJson {
    fn text(&self) -> &str {
        self.text.get_or_init(|| {
            if let Some(text) = self.source.take().and_then(|(source, at)| source.text_at(&at)) {
                return text;
            }
            let text = js_sys::JSON::stringify(&self.value).ok().and_then(|text| text.as_string());
            text.unwrap_or_else(|| "null".into()).into()
        })
    }

    fn is_object(&self) -> bool {
        self.object
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The JSON of a JS value (`undefined` reads as `null`). Errors for values JSON cannot hold (cycles, BigInt).
pub fn from_js(value: &JsValue) -> Result<Value, String> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    let text = js_sys::JSON::stringify(value).map_err(|_| "the value cannot be written as JSON".to_owned())?;
    let text = text.as_string().unwrap_or_else(|| "null".into());
    crate::json::from_str(&text).map_err(|e| e.to_string())
}
