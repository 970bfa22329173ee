//! A `tasks/get` answer the driver read with `JSON.parse`: the fast path for small answers whose
//! status carries no detail (every `working` poll). Parsing such a body in wasm and writing the task
//! back out cost more than the host's own `JSON.parse` (`docs/decode-route-3.md`), so the driver
//! parses it and hands over only the Task fields, each already of its JSON type; what is left to
//! decide is decided here, with the errors the bytes path gives. Any other answer comes as bytes.
use super::fields::MAX_SAFE_INTEGER;
use super::task::{DetailedTask, StatusDetail, Task, TaskStatus};
use super::DecodeError;

const WHAT: &str = "tasks/get result";

/// The Task fields of one answer as the driver read them, counts of milliseconds as the numbers
/// `JSON.parse` made.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedTask {
    /// `taskId`.
    pub task_id: String,
    /// `status`, by its index in [`TaskStatus::ALL`].
    pub status: u32,
    /// `statusMessage` (`None`: absent or `null`).
    pub status_message: Option<String>,
    /// `createdAt`.
    pub created_at: String,
    /// `lastUpdatedAt`.
    pub last_updated_at: String,
    /// `ttlMs` (`None`: `null`).
    pub ttl_ms: Option<f64>,
    /// `pollIntervalMs` (`None`: absent or `null`).
    pub poll_interval_ms: Option<f64>,
}

impl ParsedTask {
    /// Whether an answer of `status` may come this way: only the statuses that carry no detail.
    pub fn takes(status: TaskStatus) -> bool {
        matches!(status, TaskStatus::Working | TaskStatus::Cancelled)
    }

    /// The task these fields make, or why they make none.
    pub fn into_task(self) -> Result<DetailedTask, DecodeError> {
        let status = TaskStatus::ALL.get(self.status as usize).copied().filter(|s| Self::takes(*s));
        let Some(status) = status else {
            return Err(DecodeError::Invalid { what: WHAT, detail: "a status this path does not take".into() });
        };
        let task = Task {
            task_id: self.task_id,
            status,
            status_message: self.status_message,
            created_at: self.created_at,
            last_updated_at: self.last_updated_at,
            ttl_ms: self.ttl_ms.map(|ms| whole_millis(ms, "ttlMs")).transpose()?,
            poll_interval_ms: self.poll_interval_ms.map(|ms| whole_millis(ms, "pollIntervalMs")).transpose()?,
        };
        Ok(DetailedTask { task, detail: StatusDetail::None })
    }
}

/// A count of milliseconds as `JSON.parse` gave it: whole, non-negative, at most 2^53 − 1. A double
/// cannot tell `2000.0000000000001` from `2000` (the bytes path refuses the first), so such a count
/// passes here as the whole number it reads as; the driver documents it.
fn whole_millis(ms: f64, field: &'static str) -> Result<u64, DecodeError> {
    // Compared, never formatted: a float's text would bring the float printer into the .wasm.
    if (0.0..=MAX_SAFE_INTEGER as f64).contains(&ms) && (ms as u64) as f64 == ms {
        Ok(ms as u64)
    } else {
        Err(DecodeError::Invalid { what: WHAT, detail: format!("{field} is not a whole count of milliseconds") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::task::decode_get_task_result;

    fn working() -> ParsedTask {
        ParsedTask {
            task_id: "t1".into(),
            status: 0,
            status_message: Some("halfway".into()),
            created_at: "2026-07-28T10:00:00Z".into(),
            last_updated_at: "2026-07-28T10:00:05Z".into(),
            ttl_ms: Some(60_000.0),
            poll_interval_ms: None,
        }
    }

    #[test]
    fn the_fields_make_the_task_the_bytes_make() {
        let body = crate::json::from_str(
            r#"{"resultType":"complete","taskId":"t1","status":"working","statusMessage":"halfway",
                "createdAt":"2026-07-28T10:00:00Z","lastUpdatedAt":"2026-07-28T10:00:05Z","ttlMs":60000}"#,
        )
        .unwrap();
        assert_eq!(working().into_task().unwrap(), decode_get_task_result(&body).unwrap());
        let cancelled = ParsedTask { status: 4, ttl_ms: None, ..working() };
        assert_eq!(cancelled.into_task().unwrap().task.status, TaskStatus::Cancelled);
    }

    #[test]
    fn a_status_with_a_detail_or_no_status_is_refused() {
        for status in [1, 2, 3, 5, u32::MAX] {
            let refused = ParsedTask { status, ..working() }.into_task();
            assert!(matches!(refused, Err(DecodeError::Invalid { .. })), "status {status}: {refused:?}");
        }
    }

    #[test]
    fn counts_must_be_whole_non_negative_and_safe() {
        for ms in [-1.0, 1.5, f64::NAN, f64::INFINITY, 9_007_199_254_740_992.0] {
            let refused = ParsedTask { poll_interval_ms: Some(ms), ..working() }.into_task();
            let detail = match refused {
                Err(DecodeError::Invalid { detail, .. }) => detail,
                other => panic!("{ms}: {other:?}"),
            };
            assert!(detail.contains("pollIntervalMs"), "{detail}");
        }
        let largest = ParsedTask { ttl_ms: Some(9_007_199_254_740_991.0), ..working() }.into_task().unwrap();
        assert_eq!(largest.task.ttl_ms, Some(MAX_SAFE_INTEGER));
    }
}
