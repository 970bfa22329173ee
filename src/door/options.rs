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

/// `autoPoll`. Step mode (`false`) is in the full door only: the driver opens a stepping client on it
/// (browsers never step), so the first door, what a page downloads, leaves the mode's code out.
fn auto_poll(options: &Value) -> Result<bool, String> {
    let stepping = options.get("autoPoll").and_then(Value::as_bool) == Some(false);
    if stepping && !cfg!(feature = "legacy") {
        return Err("autoPoll: false (step mode) runs on the full door, which TaskClient.open loads for it".into());
    }
    Ok(!stepping)
}

/// The longest a JavaScript timer waits (2^31 - 1 ms, some 24.8 days): a longer one fires at once.
const MAX_TIMER_MS: u64 = 2_147_483_647;
/// One hour: the longest poll spacing, backoff and backstop, as for what a server asks.
const HOUR_MS: u64 = 3_600_000;

/// Option `key`, a whole number of at least 0 clamped to `least ..= most`, or `default` when absent.
/// Anything else (a negative number, NaN or an infinity, which the driver sends as their text, a
/// string, a flag) is a host's mistake named. A number past `u64` is huge, so clamped to `most`.
fn number(options: &Value, key: &str, default: u64, least: u64, most: u64) -> Result<u64, String> {
    let value = match options.get(key) {
        None | Some(Value::Null) => default,
        // The driver floors every finite number: one past `u64` (`1e+300`) is huge, not a fraction.
        Some(Value::Number(n)) if !n.as_str().bytes().any(|b| b == b'-' || b == b'.') => n.as_u64().unwrap_or(most),
        Some(_) => return Err(format!("options.{key} must be a finite number of at least 0")),
    };
    Ok(value.clamp(least, most))
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
            min_interval_ms: number(options, "minPollIntervalMs", defaults.min_interval_ms, 0, HOUR_MS)?,
            max_backoff_ms: number(options, "maxBackoffMs", defaults.max_backoff_ms, 1, HOUR_MS)?,
            pushed_backstop_ms: number(options, "pushedBackstopMs", defaults.pushed_backstop_ms, 1_000, HOUR_MS)?,
            ..defaults
        };
        let default_bytes = crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES as u64;
        let max_response_bytes = number(options, "maxResponseBytes", default_bytes, 1_024, 1 << 30)? as usize;
        let (fewest, most) = crate::protocol::input::MAX_INPUT_REQUESTS_RANGE;
        let default_inputs = crate::protocol::input::DEFAULT_MAX_INPUT_REQUESTS;
        let max_input_requests =
            number(options, "maxInputRequests", default_inputs as u64, fewest as u64, most as u64)? as usize;
        Ok(Self {
            url,
            namespace,
            client_info,
            policy,
            max_response_bytes,
            max_input_requests,
            retention: number(options, "retention", 500, 0, 1_000_000)? as usize,
            offline: flag(options, "offline"),
            hidden: flag(options, "hidden"),
            notify: flag(options, "notify"),
            tabs: flag(options, "tabs"),
            auto_poll: auto_poll(options)?,
            request_timeout_ms: number(options, "requestTimeoutMs", 30_000, 1, MAX_TIMER_MS)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::from_str;

    fn read(option: &str, value: &str) -> Result<DoorOptions, String> {
        DoorOptions::read(&from_str(&format!(r#"{{"url":"https://h/mcp","{option}":{value}}}"#)).unwrap())
    }

    #[test]
    fn every_numeric_option_is_clamped_or_refused_by_name() {
        let huge = read_all("1e300");
        assert_eq!(huge.policy.min_interval_ms, HOUR_MS);
        assert_eq!(huge.policy.max_backoff_ms, HOUR_MS);
        assert_eq!(huge.policy.pushed_backstop_ms, HOUR_MS);
        assert_eq!(huge.max_response_bytes, 1 << 30);
        assert_eq!(huge.max_input_requests, crate::protocol::input::MAX_INPUT_REQUESTS_RANGE.1);
        assert_eq!(huge.retention, 1_000_000);
        assert_eq!(huge.request_timeout_ms, MAX_TIMER_MS, "a longer timer would fire at once");
        assert_eq!(read_all("4294967296").max_response_bytes, 1 << 30, "clamped before it is a usize");
        let zero = read_all("0");
        assert_eq!((zero.policy.max_backoff_ms, zero.policy.pushed_backstop_ms), (1, 1_000));
        assert_eq!((zero.max_response_bytes, zero.request_timeout_ms, zero.retention), (1_024, 1, 0));
        for option in OPTIONS {
            for bad in [r#""NaN""#, r#""Infinity""#, r#""-Infinity""#, "-1", "-0.5", "1.5", r#""5""#, "true", "{}"] {
                let Err(message) = read(option, bad) else { panic!("{option}: {bad} was taken") };
                assert_eq!(message, format!("options.{option} must be a finite number of at least 0"));
            }
        }
    }

    const OPTIONS: [&str; 7] = [
        "minPollIntervalMs",
        "maxBackoffMs",
        "pushedBackstopMs",
        "maxResponseBytes",
        "maxInputRequests",
        "requestTimeoutMs",
        "retention",
    ];

    fn read_all(value: &str) -> DoorOptions {
        let mut text = String::from(r#"{"url":"https://h/mcp""#);
        for option in OPTIONS {
            text.push_str(&format!(r#","{option}":{value}"#));
        }
        DoorOptions::read(&from_str(&(text + "}")).unwrap()).unwrap()
    }
}
