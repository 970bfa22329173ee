//! Fault injection for tests: latency, a share of 500/503s, 429 with `Retry-After`, dropped connections.
//! Set from flags, and changed at run time through `/admin/faults` when `--faults` is on.
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// The faults in force.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FaultSettings {
    /// Added to every `/mcp` request.
    pub latency_ms: u64,
    /// Share of requests answered with `error_status`.
    pub error_rate: f64,
    /// 500 or 503.
    pub error_status: u16,
    /// Share of requests answered 429.
    pub rate_limit_rate: f64,
    /// `Retry-After` seconds on a 429.
    pub retry_after_s: u64,
    /// Share of requests whose connection is dropped without an answer.
    pub drop_rate: f64,
}

impl Default for FaultSettings {
    fn default() -> Self {
        Self {
            latency_ms: 0,
            error_rate: 0.0,
            error_status: 503,
            rate_limit_rate: 0.0,
            retry_after_s: 2,
            drop_rate: 0.0,
        }
    }
}

/// What to do to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Close the connection without an answer.
    Drop,
    /// Answer with this HTTP status and no JSON-RPC body.
    Status(u16),
    /// Answer 429 with `Retry-After: seconds`.
    RateLimited(u64),
}

/// Rolls a fault per request from a small generator (no shared RNG crate needed).
#[derive(Debug, Default)]
pub struct FaultDice(AtomicU64);

impl FaultDice {
    fn roll(&self) -> f64 {
        let n = self.0.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The fault for one request, if any: drop first, then errors, then rate limiting.
    pub fn decide(&self, settings: &FaultSettings) -> Option<Fault> {
        if settings.drop_rate > 0.0 && self.roll() < settings.drop_rate {
            return Some(Fault::Drop);
        }
        if settings.error_rate > 0.0 && self.roll() < settings.error_rate {
            return Some(Fault::Status(settings.error_status));
        }
        if settings.rate_limit_rate > 0.0 && self.roll() < settings.rate_limit_rate {
            return Some(Fault::RateLimited(settings.retry_after_s));
        }
        None
    }
}
