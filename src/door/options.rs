//! The options a JS driver hands the door at open: the host's `TaskClient.open` options less what
//! stays in JS (`headers`, `store`), plus what the page knows (`offline`, `hidden`), read and checked
//! here: a host's mistake is a `TypeError` naming the option.
use crate::json::Value;
use crate::machine::backoff::PollPolicy;
use crate::protocol::meta::Implementation;

/// The options, read and checked.
pub struct DoorOptions {
    /// The MCP endpoint.
    pub url: String,
    /// Handles are scoped per server URL and namespace (e.g. a user id).
    pub namespace: String,
    /// `clientInfo`.
    pub client_info: Implementation,
    /// Poll spacing and backoff.
    pub policy: PollPolicy,
    /// The largest stream event the client reads (`maxResponseBytes`).
    pub max_response_bytes: usize,
    /// The most `inputRequests` one answer may carry (`maxInputRequests`).
    pub max_input_requests: usize,
    /// Settled tasks kept for `tasks()` after they end.
    pub retention: usize,
    /// Whether the page is offline at open.
    pub offline: bool,
    /// Whether the page is hidden at open.
    pub hidden: bool,
    /// System notifications while the page is hidden (`notify`).
    pub notify: bool,
    /// Whether the client polls by itself; `false`: step mode, where the platform calls `step()`.
    pub auto_poll: bool,
    /// How long a request may take (`requestTimeoutMs`).
    pub request_timeout_ms: u64,
    /// Whether the driver shares the namespace with other tabs (it has Web Locks): then it polls only
    /// once it holds their lock.
    pub tabs: bool,
}

fn number(options: &Value, key: &str, default: u64) -> Result<u64, String> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(default),
        // Whole numbers: the driver floors a finite non-negative option before it crosses.
        Some(v) => v.as_u64().ok_or_else(|| format!("options.{key} must be a non-negative number")),
    }
}

fn flag(options: &Value, key: &str) -> bool {
    options.get(key).and_then(Value::as_bool) == Some(true)
}

impl DoorOptions {
    /// Reads `options`.
    pub fn read(options: &Value) -> Result<Self, String> {
        let text = |key: &str| options.get(key).and_then(Value::as_str).filter(|v| !v.is_empty()).map(str::to_owned);
        let url = text("url").ok_or("options.url (the MCP endpoint) is required")?;
        let namespace = match options.get("namespace") {
            None | Some(Value::Null) => "default".to_owned(),
            Some(_) => text("namespace").ok_or("options.namespace must be a non-empty string")?,
        };
        let client_info = match options.get("clientInfo") {
            None | Some(Value::Null) => Implementation::new("mcp-tasks-web", env!("CARGO_PKG_VERSION")),
            Some(info) => {
                let field = |key: &str| info.get(key).and_then(Value::as_str).map(str::to_owned);
                let name = field("name").ok_or("options.clientInfo.name is required")?;
                let version = field("version").ok_or("options.clientInfo.version is required")?;
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
        let max_response_bytes =
            number(options, "maxResponseBytes", crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES as u64)?.max(1_024)
                as usize;
        let (fewest, most) = crate::protocol::input::MAX_INPUT_REQUESTS_RANGE;
        let default_inputs = crate::protocol::input::DEFAULT_MAX_INPUT_REQUESTS;
        let max_input_requests =
            (number(options, "maxInputRequests", default_inputs as u64)? as usize).clamp(fewest, most);
        Ok(Self {
            url,
            namespace,
            client_info,
            policy,
            max_response_bytes,
            max_input_requests,
            retention: number(options, "retention", 500)? as usize,
            offline: flag(options, "offline"),
            hidden: flag(options, "hidden"),
            notify: flag(options, "notify"),
            tabs: flag(options, "tabs"),
            auto_poll: options.get("autoPoll").and_then(Value::as_bool) != Some(false),
            request_timeout_ms: number(options, "requestTimeoutMs", 30_000)?.max(1),
        })
    }
}
