//! Checking one answer value against its field: type, bounds, options and format.

use super::formats::{is_date, is_date_time, is_email, is_uri};
use super::{FieldKind, FormLimit, Problem, TextFormat};
use crate::collections::SortedSet;
use crate::json::{Number, Value};

/// Result of checking one answer value against its field.
pub(super) enum Checked {
    /// Null, `""` or `[]`: treated as not answered.
    Blank,
    /// The normalized value to send.
    Answer(Value),
}

fn len_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A whole number as it is sent for an integer field: plain integer text (`3.0` → `3`, `1e3` →
/// `1000`), which receivers that parse integers strictly accept; as written when that text would be
/// unreasonably long (`1e400`). Exact on the digits: `9007199254740993.0` stays `9007199254740993`.
fn integer_value(n: &Number) -> Value {
    Value::Number(n.to_integer().unwrap_or_else(|| n.clone()))
}

pub(super) fn check_value(kind: &FieldKind, v: &Value) -> Result<Checked, Vec<Problem>> {
    if v.is_null() {
        return Ok(Checked::Blank);
    }
    let mut problems = Vec::new();
    let answer = match kind {
        FieldKind::Text { format, min_length, max_length, .. } => {
            let Some(s) = v.as_str() else {
                return Err(vec![Problem::WrongType { expected: "string" }]);
            };
            if s.is_empty() {
                return Ok(Checked::Blank);
            }
            // Characters counted as the bytes that start one (no char decoding, no `chars().count()`).
            let len = len_u64(s.bytes().filter(|b| b & 0xC0 != 0x80).count());
            if let Some(min) = *min_length {
                if len < min {
                    problems.push(Problem::TooShort { min });
                }
            }
            if let Some(max) = *max_length {
                if len > max {
                    problems.push(Problem::TooLong { max });
                }
            }
            match format {
                Some(TextFormat::Email) if !is_email(s) => problems.push(Problem::InvalidEmail),
                Some(TextFormat::Uri) if !is_uri(s) => problems.push(Problem::InvalidUri),
                Some(TextFormat::Date) if !is_date(s) => problems.push(Problem::InvalidDate),
                Some(TextFormat::DateTime) if !is_date_time(s) => problems.push(Problem::InvalidDateTime),
                _ => {}
            }
            Value::String(s.to_owned())
        }
        FieldKind::Number { integer, minimum, maximum, .. } => {
            let Value::Number(n) = v else {
                return Err(vec![Problem::NotANumber]);
            };
            if *integer && !n.is_whole() {
                problems.push(Problem::NotAnInteger);
            }
            // Exact comparisons on the digits (json::Number's order), never through a double.
            if let Some(min) = minimum.as_ref().filter(|min| n < *min) {
                problems.push(Problem::BelowMinimum { min: min.clone() });
            }
            if let Some(max) = maximum.as_ref().filter(|max| n > *max) {
                problems.push(Problem::AboveMaximum { max: max.clone() });
            }
            if *integer {
                integer_value(n)
            } else {
                Value::Number(n.clone())
            }
        }
        FieldKind::Boolean { .. } => match v {
            Value::Bool(b) => Value::Bool(*b),
            _ => return Err(vec![Problem::NotABoolean]),
        },
        FieldKind::SingleSelect { options, .. } => {
            let Some(s) = v.as_str() else {
                return Err(vec![Problem::WrongType { expected: "string" }]);
            };
            let known = options.iter().any(|c| c.value == s);
            if s.is_empty() && !known {
                return Ok(Checked::Blank);
            }
            if !known {
                problems.push(Problem::NotAnOption { value: s.to_owned() });
            }
            Value::String(s.to_owned())
        }
        FieldKind::MultiSelect { options, min_items, max_items, .. } => {
            let wrong = || vec![Problem::WrongType { expected: "array of strings" }];
            let Some(items) = v.as_array() else {
                return Err(wrong());
            };
            let mut picked = Vec::with_capacity(items.len());
            for item in items {
                match item.as_str() {
                    Some(s) => picked.push(s),
                    None => return Err(wrong()),
                }
            }
            if picked.is_empty() {
                return Ok(Checked::Blank);
            }
            // More picks than a form may hold options repeat some: refused before they are compared, so
            // the checks below cost at most 1,024 × 1,024 comparisons.
            if picked.len() > FormLimit::Options.max() {
                return Err(vec![Problem::TooManyItems { max: len_u64(options.len()) }]);
            }
            let mut seen = SortedSet::new();
            let mut reported_dup = SortedSet::new();
            for s in &picked {
                if seen.insert(*s) {
                    if !options.iter().any(|c| c.value == *s) {
                        problems.push(Problem::NotAnOption { value: (*s).to_owned() });
                    }
                } else if reported_dup.insert(*s) {
                    problems.push(Problem::DuplicateItem { value: (*s).to_owned() });
                }
            }
            let count = len_u64(picked.len());
            if let Some(min) = *min_items {
                if count < min {
                    problems.push(Problem::TooFewItems { min });
                }
            }
            if let Some(max) = *max_items {
                if count > max {
                    problems.push(Problem::TooManyItems { max });
                }
            }
            let mut items = Vec::with_capacity(picked.len());
            for s in picked {
                items.push(Value::String(s.to_owned()));
            }
            Value::Array(items)
        }
    };
    if problems.is_empty() {
        Ok(Checked::Answer(answer))
    } else {
        Err(problems)
    }
}
