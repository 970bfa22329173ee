//! Turning a `requestedSchema` property into a [`FormField`]: its kind, bounds, choices and default.

use super::answers::{check_value, Checked};
use super::{Choice, FieldKind, FormField, FormLimit, Problem, PropertyError, SchemaError, TextFormat};
use crate::collections::SortedSet;
use crate::json::{Map, Number, Value};

/// Optional keyword lookup: a JSON `null` counts as absent.
pub(super) fn get_opt<'a>(obj: &'a Map, key: &str) -> Option<&'a Value> {
    match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    }
}

/// A label-ish keyword: a string, or `None` when absent or not a string (tolerated, not shown).
fn opt_string(obj: &Map, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Names a non-string JSON value for an error message, without serializing it.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => (if *b { "true" } else { "false" }).to_owned(),
        Value::Number(n) => crate::text::display(n),
        Value::String(s) => s.clone(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        Value::Raw(_) => "an object or an array".to_owned(),
    }
}

/// A JSON number that is a non-negative whole number (`3`, `3.0` or `3e0`), exactly.
fn as_count(v: &Value) -> Option<u64> {
    v.as_number()?.as_whole_u64()
}

fn count_bound(def: &Map, keyword: &'static str) -> Result<Option<u64>, PropertyError> {
    match get_opt(def, keyword) {
        None => Ok(None),
        Some(v) => match as_count(v) {
            Some(count) => Ok(Some(count)),
            None => Err(PropertyError::BoundNotACount { keyword }),
        },
    }
}

/// A `minimum`/`maximum`, kept as written: any JSON number, even one past the range of `f64` (`1e400`),
/// since bounds are compared exactly on their digits.
fn number_bound(def: &Map, keyword: &'static str) -> Result<Option<Number>, PropertyError> {
    match get_opt(def, keyword) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(PropertyError::BoundNotANumber { keyword }),
    }
}

fn check_order<T: PartialOrd>(
    min: Option<T>,
    max: Option<T>,
    min_keyword: &'static str,
    max_keyword: &'static str,
) -> Result<(), PropertyError> {
    match (min, max) {
        (Some(lo), Some(hi)) if lo > hi => Err(PropertyError::MinAboveMax { min_keyword, max_keyword }),
        _ => Ok(()),
    }
}

/// Rejects a schema where more than one of `keywords` is present (non-null).
fn only_one_of(def: &Map, keywords: &[&'static str]) -> Result<(), PropertyError> {
    let mut present = keywords.iter().filter(|k| get_opt(def, k).is_some());
    if let (Some(first), Some(second)) = (present.next(), present.next()) {
        return Err(PropertyError::ConflictingKeywords { first, second });
    }
    Ok(())
}

/// Refuses an option listed twice, and more than a form may hold ([`FormLimit::Options`]).
fn reject_duplicates<'a>(values: impl ExactSizeIterator<Item = &'a str>) -> Result<(), PropertyError> {
    // More options than a whole form may hold are refused before they are compared.
    if values.len() > FormLimit::Options.max() {
        return Err(PropertyError::TooLarge(FormLimit::Options));
    }
    let mut seen = SortedSet::new();
    for v in values {
        if !seen.insert(v) {
            return Err(PropertyError::DuplicateOption { value: v.to_owned() });
        }
    }
    Ok(())
}

/// Parses a plain string array (`enum`, `enumNames`).
fn string_list(v: &Value, keyword: &'static str) -> Result<Vec<String>, PropertyError> {
    let invalid = || PropertyError::InvalidOptions { keyword };
    v.as_array().and_then(|items| crate::json::string_items(items)).ok_or_else(invalid)
}

/// Parses an untitled `enum` into choices: non-empty, unique strings.
fn enum_choices(v: &Value) -> Result<Vec<Choice>, PropertyError> {
    let values = string_list(v, "enum")?;
    if values.is_empty() {
        return Err(PropertyError::EmptyOptions);
    }
    reject_duplicates(values.iter().map(String::as_str))?;
    Ok(values.into_iter().map(|value| Choice { value, title: None }).collect())
}

/// Parses `oneOf`/`anyOf` of `{const, title}` into choices: non-empty, unique consts.
/// A missing `title` is tolerated (the value is shown); a non-string one is not.
fn titled_choices(v: &Value, keyword: &'static str) -> Result<Vec<Choice>, PropertyError> {
    let invalid = || PropertyError::InvalidOptions { keyword };
    let mut choices = Vec::new();
    for item in v.as_array().ok_or_else(invalid)? {
        let obj = item.as_object().ok_or_else(invalid)?;
        let value = obj.get("const").and_then(Value::as_str).ok_or_else(invalid)?.to_owned();
        let title = match get_opt(obj, "title") {
            None => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(_) => return Err(invalid()),
        };
        choices.push(Choice { value, title });
    }
    if choices.is_empty() {
        return Err(PropertyError::EmptyOptions);
    }
    reject_duplicates(choices.iter().map(|c| c.value.as_str()))?;
    Ok(choices)
}

fn parse_string_kind(def: &Map) -> Result<FieldKind, PropertyError> {
    only_one_of(def, &["enum", "oneOf", "anyOf"])?;
    // `anyOf` of consts is accepted as a lenient alias of the spec's `oneOf`.
    for keyword in ["oneOf", "anyOf"] {
        if let Some(list) = get_opt(def, keyword) {
            return Ok(FieldKind::SingleSelect { options: titled_choices(list, keyword)?, default: None });
        }
    }
    if let Some(values) = get_opt(def, "enum") {
        let mut options = enum_choices(values)?;
        if let Some(names) = get_opt(def, "enumNames") {
            let titles = string_list(names, "enumNames")?;
            if titles.len() != options.len() {
                return Err(PropertyError::EnumNamesMismatch { options: options.len(), names: titles.len() });
            }
            for (choice, title) in options.iter_mut().zip(titles) {
                choice.title = Some(title);
            }
        }
        return Ok(FieldKind::SingleSelect { options, default: None });
    }
    let format = match get_opt(def, "format") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .and_then(TextFormat::parse)
                .ok_or_else(|| PropertyError::UnknownFormat { found: describe(v) })?,
        ),
    };
    let min_length = count_bound(def, "minLength")?;
    let max_length = count_bound(def, "maxLength")?;
    check_order(min_length, max_length, "minLength", "maxLength")?;
    Ok(FieldKind::Text { format, min_length, max_length, default: None })
}

fn parse_number_kind(def: &Map, integer: bool) -> Result<FieldKind, PropertyError> {
    reject_option_keywords(def)?;
    let minimum = number_bound(def, "minimum")?;
    let maximum = number_bound(def, "maximum")?;
    check_order(minimum.as_ref(), maximum.as_ref(), "minimum", "maximum")?;
    Ok(FieldKind::Number { integer, minimum, maximum, default: None })
}

/// Numbers and booleans can't carry option lists; ignoring one would accept values the server forbids.
fn reject_option_keywords(def: &Map) -> Result<(), PropertyError> {
    for keyword in ["enum", "oneOf", "anyOf"] {
        if get_opt(def, keyword).is_some() {
            return Err(PropertyError::UnsupportedKeyword { keyword });
        }
    }
    Ok(())
}

fn parse_array_kind(def: &Map) -> Result<FieldKind, PropertyError> {
    let no_enum = || PropertyError::ArrayWithoutEnumItems;
    let items = get_opt(def, "items").and_then(Value::as_object).ok_or_else(no_enum)?;
    match get_opt(items, "type") {
        None => {}
        Some(Value::String(t)) if t == "string" => {}
        Some(_) => return Err(no_enum()),
    }
    only_one_of(items, &["enum", "anyOf", "oneOf"])?;
    let options = if let Some(v) = get_opt(items, "anyOf") {
        titled_choices(v, "anyOf")?
    } else if let Some(v) = get_opt(items, "oneOf") {
        titled_choices(v, "oneOf")?
    } else if let Some(v) = get_opt(items, "enum") {
        enum_choices(v)?
    } else {
        return Err(no_enum());
    };
    let min_items = count_bound(def, "minItems")?;
    let max_items = count_bound(def, "maxItems")?;
    check_order(min_items, max_items, "minItems", "maxItems")?;
    Ok(FieldKind::MultiSelect { options, min_items, max_items, default: Vec::new() })
}

/// Checks the declared default with the same rules as an answer and stores it in `kind`.
/// A blank default (`""`, `[]`) is treated as no default.
fn with_default(mut kind: FieldKind, default: Option<&Value>) -> Result<FieldKind, PropertyError> {
    let Some(raw) = default else {
        return Ok(kind);
    };
    let value = match check_value(&kind, raw) {
        Ok(Checked::Blank) => return Ok(kind),
        Ok(Checked::Answer(v)) => v,
        Err(problems) => {
            return Err(PropertyError::InvalidDefault {
                problem: problems.into_iter().next().unwrap_or(Problem::Required),
            })
        }
    };
    match (&mut kind, value) {
        (FieldKind::Text { default, .. }, Value::String(s))
        | (FieldKind::SingleSelect { default, .. }, Value::String(s)) => *default = Some(s),
        (FieldKind::Number { default, .. }, Value::Number(n)) => *default = Some(n),
        (FieldKind::Boolean { default }, Value::Bool(b)) => *default = Some(b),
        (FieldKind::MultiSelect { default, .. }, Value::Array(items)) => {
            default.clear();
            for v in items {
                if let Value::String(s) = v {
                    default.push(s);
                }
            }
        }
        // check_value only answers with the kind's own JSON type.
        _ => {}
    }
    Ok(kind)
}

pub(super) fn parse_field(name: &str, def: &Value, required: bool) -> Result<FormField, SchemaError> {
    let def = def.as_object().ok_or_else(|| PropertyError::NotAnObject.of(name))?;
    let kind = parse_kind(def).map_err(|e| e.of(name))?;
    Ok(FormField {
        name: name.to_owned(),
        title: opt_string(def, "title"),
        description: opt_string(def, "description"),
        required,
        kind,
    })
}

/// The field's kind, with its checked default.
fn parse_kind(def: &Map) -> Result<FieldKind, PropertyError> {
    let ty = match get_opt(def, "type") {
        None => return Err(PropertyError::MissingType),
        Some(Value::String(t)) => t.as_str(),
        Some(other) => return Err(PropertyError::UnknownType { found: describe(other) }),
    };
    let kind = match ty {
        "string" => parse_string_kind(def)?,
        "number" => parse_number_kind(def, false)?,
        "integer" => parse_number_kind(def, true)?,
        "boolean" => {
            reject_option_keywords(def)?;
            FieldKind::Boolean { default: None }
        }
        "array" => parse_array_kind(def)?,
        "object" => return Err(PropertyError::NestedObject),
        other => return Err(PropertyError::UnknownType { found: other.to_owned() }),
    };
    with_default(kind, get_opt(def, "default"))
}
