//! When to try again: the next poll from the server's latest `pollIntervalMs`, the host's minimum, and
//! jittered exponential backoff after failures (with `Retry-After` honoured).
use crate::json::{json, Value};

use super::stored::{Fields, StoredForm};

/// The longest poll spacing a server's `pollIntervalMs` can set: one hour.
pub const MAX_POLL_INTERVAL_MS: u64 = 3_600_000;

/// The longest wait a server's `Retry-After` can ask for: one hour.
pub const MAX_RETRY_AFTER_MS: u64 = 3_600_000;

/// Host settings for polling. All in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollPolicy {
    /// Never poll a task more often than this, whatever the server suggests.
    pub min_interval_ms: u64,
    /// Spacing when the server suggests none.
    pub default_interval_ms: u64,
    /// First backoff step after a failure; doubles per consecutive failure.
    pub backoff_base_ms: u64,
    /// Cap on the backoff (a server's `Retry-After` may still ask for longer).
    pub max_backoff_ms: u64,
    /// How long past `createdAt + ttlMs` a live task is kept before the client calls it expired; absorbs
    /// clock skew between client and server, which would otherwise end live tasks early.
    pub expiry_grace_ms: u64,
    /// Spacing of the polls of a task a listen stream covers: a server may drop a task (its TTL ran
    /// out) or lose a notification without a word on the stream, and only a poll finds that out.
    pub pushed_backstop_ms: u64,
}

impl Default for PollPolicy {
    fn default() -> Self {
        Self {
            min_interval_ms: 250,
            default_interval_ms: 1_000,
            backoff_base_ms: 1_000,
            max_backoff_ms: 60_000,
            expiry_grace_ms: 60_000,
            pushed_backstop_ms: 60_000,
        }
    }
}

/// Why an exchange failed, as far as scheduling cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No response: offline, DNS, connection reset, CORS refusal.
    Network,
    /// The request's own timeout fired.
    Timeout,
    /// An HTTP status without a JSON-RPC error body (5xx, 429, …). `retry_after_ms` from `Retry-After`.
    Http {
        /// The HTTP status.
        status: u16,
        /// Delay the server asked for, if any. (`retry_after_ms` is how format 1 first wrote it.)
        retry_after_ms: Option<u64>,
    },
    /// A JSON-RPC error that does not end the task (e.g. -32603 on `tasks/get`).
    Rpc {
        /// The code.
        code: i64,
    },
    /// The reply could not be decoded.
    BadResponse,
}

impl Failure {
    /// The delay the server itself asked for, at most [`MAX_RETRY_AFTER_MS`].
    fn retry_after_ms(&self) -> Option<u64> {
        match self {
            Self::Http { retry_after_ms, .. } => retry_after_ms.map(|ms| ms.min(MAX_RETRY_AFTER_MS)),
            _ => None,
        }
    }
}

/// Consecutive failures and the earliest time of the next attempt, for one kind of exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Retry {
    /// Failures since the last success.
    pub(crate) failures: u32,
    /// Earliest next attempt (Unix ms).
    pub(crate) not_before: u64,
}

/// A small deterministic generator (SplitMix64) for jitter: the machine stays pure and tests repeatable,
/// while each record gets its own sequence from a caller-supplied seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Jitter(pub u64);

impl Jitter {
    /// The next value in `0..=bound`.
    pub(crate) fn next_up_to(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        if bound == u64::MAX {
            z
        } else {
            z % (bound + 1)
        }
    }
}

impl PollPolicy {
    /// The regular spacing: the server's latest suggestion (or our default), never below the host
    /// minimum nor above [`MAX_POLL_INTERVAL_MS`] (a server must not be able to park a task for years).
    pub fn interval(&self, server_interval_ms: Option<u64>) -> u64 {
        server_interval_ms.unwrap_or(self.default_interval_ms).min(MAX_POLL_INTERVAL_MS).max(self.min_interval_ms)
    }

    /// The backoff before attempt `failures + 1`: "equal jitter" exponential (half fixed, half random),
    /// capped, never below the regular interval, and never before a server's `Retry-After`.
    pub(crate) fn backoff(
        &self,
        failures: u32,
        failure: &Failure,
        server_interval_ms: Option<u64>,
        jitter: &mut Jitter,
    ) -> u64 {
        let exponent = failures.saturating_sub(1).min(32);
        let step = self.backoff_base_ms.saturating_mul(1u64 << exponent).min(self.max_backoff_ms);
        let jittered = step / 2 + jitter.next_up_to(step - step / 2);
        let floor = self.interval(server_interval_ms);
        jittered.max(floor).max(failure.retry_after_ms().unwrap_or(0))
    }
}

impl Retry {
    /// Records a success: failures reset, next attempt after the regular interval.
    pub(crate) fn succeeded(&mut self, now: u64, interval_ms: u64) {
        self.failures = 0;
        self.not_before = now.saturating_add(interval_ms);
    }

    /// Records a failure and schedules the next attempt with backoff.
    pub(crate) fn failed(
        &mut self,
        now: u64,
        failure: &Failure,
        policy: &PollPolicy,
        server_interval_ms: Option<u64>,
        jitter: &mut Jitter,
    ) {
        self.failures = self.failures.saturating_add(1);
        self.not_before = now.saturating_add(policy.backoff(self.failures, failure, server_interval_ms, jitter));
    }
}

/// Stored as `{"kind": "http", "status": 503, "retryAfterMs": 2000}` and the like; `retry_after_ms`,
/// how format 1 first spelled it, still loads.
impl StoredForm for Failure {
    fn to_json(&self) -> Value {
        match self {
            Self::Network => json!({ "kind": "network" }),
            Self::Timeout => json!({ "kind": "timeout" }),
            Self::Http { status, retry_after_ms } => {
                json!({ "kind": "http", "status": *status, "retryAfterMs": *retry_after_ms })
            }
            Self::Rpc { code } => json!({ "kind": "rpc", "code": *code }),
            Self::BadResponse => json!({ "kind": "badResponse" }),
        }
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "failure")?;
        Ok(match f.str("kind")? {
            "network" => Self::Network,
            "timeout" => Self::Timeout,
            "http" => Self::Http {
                status: u16::try_from(f.u64("status")?).map_err(|_| "failure.status: out of range".to_owned())?,
                retry_after_ms: match f.opt_u64("retryAfterMs")? {
                    Some(ms) => Some(ms),
                    None => f.opt_u64("retry_after_ms")?,
                },
            },
            "rpc" => Self::Rpc { code: f.i64("code")? },
            "badResponse" => Self::BadResponse,
            other => return Err(format!("failure.kind: unknown kind \"{other}\"")),
        })
    }
}

impl StoredForm for Retry {
    fn to_json(&self) -> Value {
        json!({ "failures": self.failures, "notBefore": self.not_before })
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "retry")?;
        let failures = u32::try_from(f.u64("failures")?).map_err(|_| "retry.failures: out of range".to_owned())?;
        Ok(Self { failures, not_before: f.u64("notBefore")? })
    }
}

/// Stored as the bare state number.
impl StoredForm for Jitter {
    fn to_json(&self) -> Value {
        Value::from(self.0)
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value.as_u64().map(Jitter).ok_or_else(|| "jitter: expected an unsigned integer".to_owned())
    }
}
