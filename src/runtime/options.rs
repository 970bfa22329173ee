//! `TaskClient.open(options)`: reading the host's options object, with a clear error for each mistake.
use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::machine::backoff::PollPolicy;
use crate::protocol::meta::Implementation;

/// Which store the host asked for.
pub enum StoreChoice {
    /// IndexedDB where it exists (the default), else memory with `durable = false`.
    IndexedDb,
    /// Memory only.
    Memory,
    /// A host object `{ get, put, delete, list }`.
    Js(JsValue),
}

/// The options, read and checked.
pub struct ClientOptions {
    /// The MCP endpoint.
    pub url: String,
    /// Handles are scoped per server URL and namespace (e.g. a user id).
    pub namespace: String,
    /// `headers`: a function (sync or async) or an object, asked before every request; never stored.
    pub headers: Option<JsValue>,
    /// The store.
    pub store: StoreChoice,
    /// `clientInfo`.
    pub client_info: Implementation,
    /// Poll spacing and backoff.
    pub policy: PollPolicy,
    /// Per-request timeout.
    pub request_timeout_ms: u32,
    /// The largest JSON answer, and the largest SSE event, the client reads (`maxResponseBytes`).
    pub max_response_bytes: usize,
    /// The most `inputRequests` one answer may carry (`maxInputRequests`).
    pub max_input_requests: usize,
    /// Settled tasks kept for `tasks()` after they end (oldest dropped first).
    pub retention: usize,
    /// Show a system notification when a task needs input or ends while the page is hidden.
    pub notify: bool,
    /// Whether the client runs its own timers (edge workers drive it step by step instead).
    pub auto_poll: bool,
}

fn get(options: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(options, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

fn number(options: &JsValue, key: &str, default: u64) -> Result<u64, String> {
    match get(options, key) {
        None => Ok(default),
        Some(v) => v
            .as_f64()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| n as u64)
            .ok_or_else(|| format!("options.{key} must be a non-negative number")),
    }
}

impl ClientOptions {
    /// Reads `options`.
    pub fn read(options: &JsValue) -> Result<Self, String> {
        if !options.is_object() {
            return Err("TaskClient.open needs an options object with at least { url }".into());
        }
        let url = get(options, "url")
            .and_then(|v| v.as_string())
            .filter(|u| !u.is_empty())
            .ok_or("options.url (the MCP endpoint) is required")?;
        let namespace = match get(options, "namespace") {
            None => "default".to_owned(),
            Some(v) => v.as_string().filter(|n| !n.is_empty()).ok_or("options.namespace must be a non-empty string")?,
        };
        let headers = get(options, "headers");
        if let Some(h) = &headers {
            if !(h.is_function() || h.is_object()) {
                return Err("options.headers must be a function returning headers, or an object".into());
            }
        }
        let store = match get(options, "store") {
            None => StoreChoice::IndexedDb,
            Some(v) if v.as_string().as_deref() == Some("indexeddb") => StoreChoice::IndexedDb,
            Some(v) if v.as_string().as_deref() == Some("memory") => StoreChoice::Memory,
            Some(v) if v.is_object() => StoreChoice::Js(v),
            Some(_) => {
                return Err(
                    "options.store must be \"indexeddb\", \"memory\" or an object { get, put, delete, list }".into()
                )
            }
        };
        let client_info = match get(options, "clientInfo") {
            None => Implementation::new("mcp-tasks-web", env!("CARGO_PKG_VERSION")),
            Some(info) => {
                let name =
                    get(&info, "name").and_then(|v| v.as_string()).ok_or("options.clientInfo.name is required")?;
                let version = get(&info, "version")
                    .and_then(|v| v.as_string())
                    .ok_or("options.clientInfo.version is required")?;
                Implementation::new(name, version)
            }
        };
        let defaults = PollPolicy::default();
        let policy = PollPolicy {
            min_interval_ms: number(options, "minPollIntervalMs", defaults.min_interval_ms)?,
            max_backoff_ms: number(options, "maxBackoffMs", defaults.max_backoff_ms)?.max(1),
            pushed_backstop_ms: number(options, "pushedBackstopMs", defaults.pushed_backstop_ms)?.max(1_000),
            ..defaults
        };
        let request_timeout_ms = number(options, "requestTimeoutMs", 30_000)?.clamp(1, u64::from(u32::MAX)) as u32;
        let max_response_bytes =
            number(options, "maxResponseBytes", crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES as u64)?.max(1_024)
                as usize;
        let (fewest, most) = crate::protocol::input::MAX_INPUT_REQUESTS_RANGE;
        let default_inputs = crate::protocol::input::DEFAULT_MAX_INPUT_REQUESTS;
        let max_input_requests =
            (number(options, "maxInputRequests", default_inputs as u64)? as usize).clamp(fewest, most);
        let retention = number(options, "retention", 500)? as usize;
        let notify = get(options, "notify").is_some_and(|v| v.as_bool() == Some(true));
        let auto_poll = get(options, "autoPoll").map(|v| v.as_bool().unwrap_or(true)).unwrap_or(true);
        Ok(Self {
            url,
            namespace,
            headers,
            store,
            client_info,
            policy,
            request_timeout_ms,
            max_response_bytes,
            max_input_requests,
            retention,
            notify,
            auto_poll,
        })
    }
}

/// `options.onInputRequired` of `callTool`, if given.
pub fn input_callback(options: &JsValue) -> Option<Function> {
    get(options, "onInputRequired").and_then(|f| f.dyn_into::<Function>().ok())
}

/// `options.signal` of `callTool`, if given.
pub fn abort_signal(options: &JsValue) -> Option<web_sys::AbortSignal> {
    get(options, "signal").and_then(|s| s.dyn_into::<web_sys::AbortSignal>().ok())
}

/// `options.inputSchema` of `callTool` (for `x-mcp-header` bindings without a `listTools`).
pub fn input_schema(options: &JsValue) -> Option<crate::json::Value> {
    get(options, "inputSchema").and_then(|v| crate::host::js_json::from_js(&v).ok())
}

/// `options.cursor` of `listTools`.
pub fn cursor(options: &JsValue) -> Option<String> {
    get(options, "cursor").and_then(|v| v.as_string())
}
