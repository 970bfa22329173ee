//! The Task fields of a message as a reader found them, and every decision about them in one place.
//!
//! Two readers feed it: our JSON tree ([`TaskFields::read`]), and the transport's fast path, where the
//! host's `JSON.parse` read a `tasks/get` answer and handed the fields over in one call
//! (`transport::task_answer`). Whichever read them, [`TaskFields::decide`] refuses the same answers with
//! the same errors, in the same order, and the native tests here cover both.
use super::fields::{wrong_type, Object};
use super::task::{Task, TaskStatus};
use super::DecodeError;
use crate::json::Value;

/// One field as a reader found it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Found<T> {
    /// The key is not there.
    Absent,
    /// The key holds `null`.
    Null,
    /// The key holds a value of a type the field does not take.
    Wrong,
    /// The key holds a value of the field's type.
    Is(T),
}

/// A number where a count of milliseconds goes: the count when it is whole, non-negative and at most
/// 2^53 − 1 (the schema's bound), otherwise the number as it was written, for the error. Borrowed, so
/// the fields are `Copy` and deciding on them moves no strings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Millis<'a> {
    /// A count the schema takes.
    Whole(u64),
    /// Anything else, as written.
    Not(&'a str),
}

impl Millis<'_> {
    /// The count, or `NotAnInteger` naming `field`.
    pub(crate) fn count(self, field: &'static str) -> Result<u64, DecodeError> {
        match self {
            Self::Whole(ms) => Ok(ms),
            Self::Not(written) => Err(DecodeError::NotAnInteger { field, found: written.to_owned() }),
        }
    }
}

/// Largest integer a JavaScript number holds exactly; the schema bounds milliseconds by it.
pub(crate) const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A JSON number as [`Millis`]: whole on the digits it was written with (`2000.0` and `2e3` are,
/// `2000.0000000000001` is not, though it reads as the double 2000).
pub(crate) fn millis_of(n: &crate::json::Number) -> Millis<'_> {
    match n.as_whole_u64() {
        Some(u) if u <= MAX_SAFE_INTEGER => Millis::Whole(u),
        _ => Millis::Not(n.as_str()),
    }
}

/// A double (a number `JSON.parse` made) as [`Millis`]. Its digits are gone, so `2000.0000000000001`,
/// which the parser already rounded to 2000, passes here; the transport's fast path says so. A
/// refused one is described rather than written out: formatting a double would ship the standard
/// library's float tables (30 KB of `.wasm`), and `http.js` only hands over safe integers.
pub(crate) fn millis_of_double(x: f64) -> Millis<'static> {
    if x >= 0.0 && x.fract() == 0.0 && x <= MAX_SAFE_INTEGER as f64 {
        Millis::Whole(x as u64)
    } else {
        Millis::Not("a number that is no whole count up to 2^53 - 1")
    }
}

/// The Task fields of one message, as found. `ttl` and `poll_interval` are the 2025-11-25 names, read
/// only for that generation (they win over the 2026 names when both are there).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TaskFields<'a> {
    pub(crate) task_id: Found<&'a str>,
    pub(crate) status: Found<&'a str>,
    pub(crate) status_message: Found<&'a str>,
    pub(crate) created_at: Found<&'a str>,
    pub(crate) last_updated_at: Found<&'a str>,
    pub(crate) ttl_ms: Found<Millis<'a>>,
    pub(crate) poll_interval_ms: Found<Millis<'a>>,
    pub(crate) ttl: Found<Millis<'a>>,
    pub(crate) poll_interval: Found<Millis<'a>>,
}

impl<'a> TaskFields<'a> {
    /// The fields of `obj`; with `legacy`, the 2025-11-25 names too.
    pub(crate) fn read(obj: &'a Object, legacy: bool) -> Self {
        let text = |key| match obj.get(key) {
            None => Found::Absent,
            Some(Value::Null) => Found::Null,
            Some(Value::String(s)) => Found::Is(s.as_str()),
            Some(_) => Found::Wrong,
        };
        let millis = |key| match obj.get(key) {
            None => Found::Absent,
            Some(Value::Null) => Found::Null,
            Some(Value::Number(n)) => Found::Is(millis_of(n)),
            Some(_) => Found::Wrong,
        };
        let (ttl, poll_interval) =
            if legacy { (millis("ttl"), millis("pollInterval")) } else { (Found::Absent, Found::Absent) };
        Self {
            task_id: text("taskId"),
            status: text("status"),
            status_message: text("statusMessage"),
            created_at: text("createdAt"),
            last_updated_at: text("lastUpdatedAt"),
            ttl_ms: millis("ttlMs"),
            poll_interval_ms: millis("pollIntervalMs"),
            ttl,
            poll_interval,
        }
    }

    /// The Task these fields make, or why they make none. `legacy` (2025-11-25, see
    /// `legacy::task::task_from_object`): a non-empty `taskId`, `lastUpdatedAt` defaulting to
    /// `createdAt`, and `ttl`/`pollInterval` before the 2026 names; otherwise `lastUpdatedAt` and
    /// `ttlMs` are required. Fields are checked in the order each generation's decoder always used, so
    /// a message with several faults reports the same one.
    pub(crate) fn decide(self, what: &'static str, legacy: bool) -> Result<Task, DecodeError> {
        let task_id = required(self.task_id, what, "taskId")?;
        if legacy && task_id.is_empty() {
            return Err(DecodeError::Invalid { what, detail: "taskId must not be empty".into() });
        }
        let status = TaskStatus::parse(required(self.status, what, "status")?)?;
        let mut status_message = None;
        if !legacy {
            status_message = optional(self.status_message, what, "statusMessage")?;
        }
        let created_at = required(self.created_at, what, "createdAt")?;
        let last_updated_at = if legacy {
            optional(self.last_updated_at, what, "lastUpdatedAt")?.unwrap_or(created_at)
        } else {
            required(self.last_updated_at, what, "lastUpdatedAt")?
        };
        if legacy {
            status_message = optional(self.status_message, what, "statusMessage")?;
        }
        let (ttl_ms, poll_interval_ms) = if legacy {
            (
                either_millis(self.ttl, self.ttl_ms, what, ("ttl", "ttlMs"))?,
                either_millis(self.poll_interval, self.poll_interval_ms, what, ("pollInterval", "pollIntervalMs"))?,
            )
        } else {
            let ttl_ms = match self.ttl_ms {
                Found::Absent => return Err(DecodeError::MissingField { what, field: "ttlMs" }),
                found => optional_millis(found, what, "ttlMs")?,
            };
            (ttl_ms, optional_millis(self.poll_interval_ms, what, "pollIntervalMs")?)
        };
        Ok(Task {
            task_id: task_id.to_owned(),
            status,
            status_message: status_message.map(str::to_owned),
            created_at: created_at.to_owned(),
            last_updated_at: last_updated_at.to_owned(),
            ttl_ms,
            poll_interval_ms,
        })
    }
}

/// A required string: absent is missing, anything but a string (`null` included) is the wrong type.
fn required<'a>(found: Found<&'a str>, what: &'static str, field: &'static str) -> Result<&'a str, DecodeError> {
    match found {
        Found::Absent => Err(DecodeError::MissingField { what, field }),
        Found::Is(s) => Ok(s),
        Found::Null | Found::Wrong => Err(wrong_type(what, field, "a string")),
    }
}

/// An optional string; `null` reads as absent, since some servers write optional fields as null.
fn optional<'a>(
    found: Found<&'a str>,
    what: &'static str,
    field: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    match found {
        Found::Absent | Found::Null => Ok(None),
        Found::Is(s) => Ok(Some(s)),
        Found::Wrong => Err(wrong_type(what, field, "a string")),
    }
}

/// An optional count of milliseconds; `null` reads as absent.
fn optional_millis(
    found: Found<Millis<'_>>,
    what: &'static str,
    field: &'static str,
) -> Result<Option<u64>, DecodeError> {
    match found {
        Found::Absent | Found::Null => Ok(None),
        Found::Is(ms) => ms.count(field).map(Some),
        Found::Wrong => Err(wrong_type(what, field, "an integer")),
    }
}

/// A count of milliseconds under its 2025-11-25 name, else its 2026 name; absent or `null` under both
/// is `None`.
fn either_millis(
    legacy: Found<Millis<'_>>,
    modern: Found<Millis<'_>>,
    what: &'static str,
    (legacy_name, modern_name): (&'static str, &'static str),
) -> Result<Option<u64>, DecodeError> {
    match optional_millis(legacy, what, legacy_name)? {
        Some(ms) => Ok(Some(ms)),
        None => optional_millis(modern, what, modern_name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::from_str;

    const WHAT: &str = "tasks/get result";

    fn fields(text: &str, legacy: bool) -> Result<Task, DecodeError> {
        let value = from_str(text).unwrap();
        TaskFields::read(value.as_object().unwrap(), legacy).decide(WHAT, legacy)
    }

    const WORKING: &str = r#"{"taskId":"t1","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}"#;

    #[test]
    fn a_regular_task_reads_whole() {
        let task = fields(WORKING, false).unwrap();
        assert_eq!((task.task_id.as_str(), task.status, task.ttl_ms), ("t1", TaskStatus::Working, None));
        let task = fields(r#"{"taskId":"t","status":"cancelled","statusMessage":"m","createdAt":"a","lastUpdatedAt":"b","ttlMs":2e3,"pollIntervalMs":500.0}"#, false).unwrap();
        assert_eq!(
            (task.status_message.as_deref(), task.ttl_ms, task.poll_interval_ms),
            (Some("m"), Some(2000), Some(500))
        );
    }

    #[test]
    fn each_fault_is_reported_by_name() {
        let cases: &[(&str, DecodeError)] = &[
            (r#"{"status":"working"}"#, DecodeError::MissingField { what: WHAT, field: "taskId" }),
            (r#"{"taskId":null}"#, wrong_type(WHAT, "taskId", "a string")),
            (r#"{"taskId":"t","status":"paused"}"#, DecodeError::UnknownStatus { found: "paused".into() }),
            (r#"{"taskId":"t","status":"working","statusMessage":3}"#, wrong_type(WHAT, "statusMessage", "a string")),
            (
                r#"{"taskId":"t","status":"working","createdAt":"a"}"#,
                DecodeError::MissingField { what: WHAT, field: "lastUpdatedAt" },
            ),
            (
                r#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b"}"#,
                DecodeError::MissingField { what: WHAT, field: "ttlMs" },
            ),
            (
                r#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":"1"}"#,
                wrong_type(WHAT, "ttlMs", "an integer"),
            ),
            (
                r#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":2000.0000000000001}"#,
                DecodeError::NotAnInteger { field: "ttlMs", found: "2000.0000000000001".into() },
            ),
            (
                r#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":1,"pollIntervalMs":-1}"#,
                DecodeError::NotAnInteger { field: "pollIntervalMs", found: "-1".into() },
            ),
            (
                r#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":9007199254740992}"#,
                DecodeError::NotAnInteger { field: "ttlMs", found: "9007199254740992".into() },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(fields(text, false).as_ref(), Err(expected), "{text}");
        }
    }

    #[test]
    fn the_legacy_generation_reads_its_own_names_first() {
        let task =
            fields(r#"{"taskId":"t","status":"working","createdAt":"a","ttl":5,"ttlMs":7,"pollIntervalMs":9}"#, true)
                .unwrap();
        assert_eq!((task.last_updated_at.as_str(), task.ttl_ms, task.poll_interval_ms), ("a", Some(5), Some(9)));
        assert_eq!(
            fields(r#"{"taskId":"","status":"working"}"#, true),
            Err(DecodeError::Invalid { what: WHAT, detail: "taskId must not be empty".into() })
        );
        assert_eq!(
            fields(r#"{"taskId":"t","status":"working","createdAt":"a","pollInterval":1.5}"#, true),
            Err(DecodeError::NotAnInteger { field: "pollInterval", found: "1.5".into() })
        );
        // 2025-11-25 reads statusMessage after the times, so a bad time is the fault reported.
        assert_eq!(
            fields(r#"{"taskId":"t","status":"working","statusMessage":1,"createdAt":2}"#, true),
            Err(wrong_type(WHAT, "createdAt", "a string"))
        );
        assert_eq!(
            fields(r#"{"taskId":"t","status":"working","statusMessage":1,"createdAt":2}"#, false),
            Err(wrong_type(WHAT, "statusMessage", "a string"))
        );
    }

    #[test]
    fn a_double_is_whole_milliseconds_when_it_is_a_safe_non_negative_integer() {
        assert_eq!(millis_of_double(0.0), Millis::Whole(0));
        assert_eq!(millis_of_double(-0.0), Millis::Whole(0));
        assert_eq!(millis_of_double(2000.0), Millis::Whole(2000));
        assert_eq!(millis_of_double(MAX_SAFE_INTEGER as f64), Millis::Whole(MAX_SAFE_INTEGER));
        for x in [-1.0, 1.5, 9007199254740992.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(millis_of_double(x), Millis::Not(_)), "{x}");
        }
        // What a double cannot tell apart: JSON.parse already made 2000 of this.
        assert_eq!(millis_of_double(2000.0000000000001), Millis::Whole(2000));
    }
}
