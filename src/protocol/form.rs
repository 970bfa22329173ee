//! Elicitation form model for `elicitation/create` in form mode (MCP 2026-07-28).
//!
//! A server asks the user for input by sending a `requestedSchema`: a flat JSON
//! Schema object whose properties are primitives (text, number, boolean) or
//! enums (single or multi select). This module turns that schema into a typed
//! [`FormModel`] a UI can render, offers the declared [`FormModel::defaults`] as
//! initial answers, and [`FormModel::validate`]s the user's answers into the
//! `ElicitResult.content` map to send back, or into typed [`FieldError`]s a UI
//! can localize.
//!
//! I/O-free and panic-free on any input: nothing here reads the clock, the
//! network or the DOM, and malformed schemas or answers become typed errors.
//!
//! # Field order
//! Fields come in the iteration order of the schema's `properties` object.
//! With serde_json's default `Map` (a `BTreeMap`) that is **sorted by property
//! name**, not the order the server wrote; source order would need serde_json's
//! `preserve_order` feature, which this crate deliberately does not enable.
//!
//! # Blank answers
//! An answer that is JSON `null`, an empty string (text, or a single select
//! whose options don't include `""`), or an empty array (multi select) counts
//! as *unanswered*, exactly like an absent key: an optional field is left out
//! of the content, a required one gets [`Problem::Required`].

use serde_json::{Map, Number, Value};
use std::collections::BTreeSet;
use std::fmt;

/// The string `format`s the spec allows; each is checked by [`FormModel::validate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextFormat {
    /// `email`: one `@`, a non-empty local part, a dotted domain, no spaces.
    Email,
    /// `uri`: a scheme (`[A-Za-z][A-Za-z0-9+.-]*:`) followed by something, no spaces.
    Uri,
    /// `date`: an RFC 3339 full-date `YYYY-MM-DD` that exists on the calendar.
    Date,
    /// `date-time`: an RFC 3339 date-time `YYYY-MM-DDTHH:MM:SS(.frac)?(Z|±HH:MM)`.
    DateTime,
}

impl TextFormat {
    /// The keyword as written in the schema, e.g. `"date-time"` (for a UI's input `type` mapping).
    pub fn as_str(self) -> &'static str {
        match self {
            TextFormat::Email => "email",
            TextFormat::Uri => "uri",
            TextFormat::Date => "date",
            TextFormat::DateTime => "date-time",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "email" => Some(TextFormat::Email),
            "uri" => Some(TextFormat::Uri),
            "date" => Some(TextFormat::Date),
            "date-time" => Some(TextFormat::DateTime),
            _ => None,
        }
    }
}

/// One option of a single or multi select: the value sent back and the label shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The value that goes into the answer content.
    pub value: String,
    /// The human label (`oneOf`/`anyOf` title or legacy `enumNames`); `None` for untitled enums.
    pub title: Option<String>,
}

impl Choice {
    /// The text a UI should show: the title if there is one, else the raw value.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.value)
    }
}

/// What kind of input a field takes, with its constraints and declared default.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// Free text (`type: "string"` without `enum`/`oneOf`); lengths count Unicode scalar values.
    Text {
        /// Required shape of the text, if any.
        format: Option<TextFormat>,
        /// `minLength`: fewest characters allowed.
        min_length: Option<u64>,
        /// `maxLength`: most characters allowed.
        max_length: Option<u64>,
        /// Declared default text.
        default: Option<String>,
    },
    /// A number (`type: "number"`) or whole number (`type: "integer"`).
    Number {
        /// True for `type: "integer"`: answers must have no fractional part and are sent as integers.
        integer: bool,
        /// `minimum` (inclusive).
        minimum: Option<f64>,
        /// `maximum` (inclusive).
        maximum: Option<f64>,
        /// Declared default; for integer fields it is a whole number.
        default: Option<f64>,
    },
    /// A yes/no answer (`type: "boolean"`).
    Boolean {
        /// Declared default.
        default: Option<bool>,
    },
    /// Exactly one of a list of strings (`enum`, `oneOf` or legacy `enum` + `enumNames`).
    SingleSelect {
        /// The options, in schema order; never empty, values unique.
        options: Vec<Choice>,
        /// Declared default; always one of `options`.
        default: Option<String>,
    },
    /// Any subset of a list of strings (`type: "array"` with enum `items`).
    MultiSelect {
        /// The options, in schema order; never empty, values unique.
        options: Vec<Choice>,
        /// `minItems`: fewest choices allowed.
        min_items: Option<u64>,
        /// `maxItems`: most choices allowed.
        max_items: Option<u64>,
        /// Declared default; empty when none was declared (or `[]` was).
        default: Vec<String>,
    },
}

/// The input widget a UI should render for a field, so every UI picks alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WidgetHint {
    /// A one-line text input (use the field's format for the input type).
    TextInput,
    /// A numeric input.
    NumberInput,
    /// A single checkbox for a boolean.
    Checkbox,
    /// Radio buttons: a single select with at most [`RADIO_MAX_OPTIONS`] options.
    Radio,
    /// A drop-down: a single select with more options than fit as radios.
    Select,
    /// A group of checkboxes for a multi select.
    Checkboxes,
}

/// Largest single-select option count still shown as radio buttons rather than a drop-down.
pub const RADIO_MAX_OPTIONS: usize = 5;

impl FieldKind {
    /// Suggests the widget for this kind: radios for up to [`RADIO_MAX_OPTIONS`] options, else a drop-down.
    pub fn widget_hint(&self) -> WidgetHint {
        match self {
            FieldKind::Text { .. } => WidgetHint::TextInput,
            FieldKind::Number { .. } => WidgetHint::NumberInput,
            FieldKind::Boolean { .. } => WidgetHint::Checkbox,
            FieldKind::SingleSelect { options, .. } if options.len() <= RADIO_MAX_OPTIONS => {
                WidgetHint::Radio
            }
            FieldKind::SingleSelect { .. } => WidgetHint::Select,
            FieldKind::MultiSelect { .. } => WidgetHint::Checkboxes,
        }
    }
}

/// One question of the form: a property of `requestedSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// The property name; the key used in answers and in the content sent back.
    pub name: String,
    /// The label (`title`), if the schema gives one as a string.
    pub title: Option<String>,
    /// Help text (`description`), if the schema gives one as a string.
    pub description: Option<String>,
    /// Whether the property is listed in the schema's `required`.
    pub required: bool,
    /// The input kind, constraints and default.
    pub kind: FieldKind,
}

/// A validated elicitation form: the fields of a `requestedSchema`, in `properties` order
/// (sorted by name with serde_json's default map; see the module docs).
///
/// Built only by [`FormModel::from_schema`], so every declared default satisfies its own field.
#[derive(Debug, Clone, PartialEq)]
pub struct FormModel {
    fields: Vec<FormField>,
}

/// Why a `requestedSchema` can't be shown as a form; names the offending property where there is one.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaError {
    /// The schema itself is not a JSON object.
    NotAnObject,
    /// The top-level `type` is missing or is not `"object"`.
    RootTypeNotObject,
    /// The top-level `properties` is missing.
    MissingProperties,
    /// The top-level `properties` is not an object.
    PropertiesNotAnObject,
    /// The top-level `required` is not an array of strings.
    RequiredNotAList,
    /// `required` names a property that `properties` doesn't define.
    UnknownRequired {
        /// The unknown name.
        property: String,
    },
    /// A property's definition is not an object.
    PropertyNotAnObject {
        /// The property.
        property: String,
    },
    /// A property has no `type`.
    MissingType {
        /// The property.
        property: String,
    },
    /// A property's `type` is not one of string, number, integer, boolean, array.
    UnknownType {
        /// The property.
        property: String,
        /// What `type` held (a string, or a description of a non-string value).
        found: String,
    },
    /// A property is itself an object; forms are flat.
    NestedObject {
        /// The property.
        property: String,
    },
    /// An array property whose `items` isn't a string enum (`enum` or `anyOf` of consts).
    ArrayWithoutEnumItems {
        /// The property.
        property: String,
    },
    /// An enum keyword on a kind that can't have one (e.g. `enum` on a number).
    UnsupportedKeyword {
        /// The property.
        property: String,
        /// The keyword, e.g. `"enum"`.
        keyword: &'static str,
    },
    /// Two keywords that each define the options, e.g. both `enum` and `oneOf`.
    ConflictingKeywords {
        /// The property.
        property: String,
        /// The first keyword.
        first: &'static str,
        /// The second keyword.
        second: &'static str,
    },
    /// An options keyword that isn't an array of strings (`enum`, `enumNames`) or of
    /// `{const: string, title?: string}` objects (`oneOf`, `anyOf`).
    InvalidOptions {
        /// The property.
        property: String,
        /// The malformed keyword.
        keyword: &'static str,
    },
    /// An enum with no options at all.
    EmptyOptions {
        /// The property.
        property: String,
    },
    /// The same option value listed twice.
    DuplicateOption {
        /// The property.
        property: String,
        /// The repeated value.
        value: String,
    },
    /// Legacy `enumNames` doesn't have one title per `enum` value.
    EnumNamesMismatch {
        /// The property.
        property: String,
        /// How many `enum` values there are.
        options: usize,
        /// How many `enumNames` there are.
        names: usize,
    },
    /// A string `format` other than email, uri, date, date-time.
    UnknownFormat {
        /// The property.
        property: String,
        /// What `format` held.
        found: String,
    },
    /// `minimum`/`maximum` is not a number.
    BoundNotANumber {
        /// The property.
        property: String,
        /// The keyword.
        keyword: &'static str,
    },
    /// `minLength`/`maxLength`/`minItems`/`maxItems` is not a non-negative whole number.
    BoundNotACount {
        /// The property.
        property: String,
        /// The keyword.
        keyword: &'static str,
    },
    /// A lower bound above its upper bound, so no answer could pass.
    MinAboveMax {
        /// The property.
        property: String,
        /// The lower-bound keyword.
        min_keyword: &'static str,
        /// The upper-bound keyword.
        max_keyword: &'static str,
    },
    /// The declared `default` fails the property's own type, options, bounds or format.
    InvalidDefault {
        /// The property.
        property: String,
        /// The first problem the default has.
        problem: Problem,
    },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SchemaError::*;
        match self {
            NotAnObject => write!(f, "requestedSchema is not a JSON object"),
            RootTypeNotObject => write!(f, "requestedSchema must have \"type\": \"object\""),
            MissingProperties => write!(f, "requestedSchema has no \"properties\""),
            PropertiesNotAnObject => write!(f, "requestedSchema \"properties\" is not an object"),
            RequiredNotAList => {
                write!(f, "requestedSchema \"required\" is not an array of property names")
            }
            UnknownRequired { property } => {
                write!(f, "\"required\" names `{property}`, which is not in \"properties\"")
            }
            PropertyNotAnObject { property } => {
                write!(f, "property `{property}`: definition is not an object")
            }
            MissingType { property } => write!(f, "property `{property}`: no \"type\""),
            UnknownType { property, found } => write!(
                f,
                "property `{property}`: unsupported type {found:?} (expected string, number, integer, boolean or array)"
            ),
            NestedObject { property } => write!(
                f,
                "property `{property}`: nested objects are not allowed; forms are flat"
            ),
            ArrayWithoutEnumItems { property } => write!(
                f,
                "property `{property}`: arrays are only allowed as multi-selects (items with a string \"enum\" or \"anyOf\")"
            ),
            UnsupportedKeyword { property, keyword } => write!(
                f,
                "property `{property}`: \"{keyword}\" is not supported on this type"
            ),
            ConflictingKeywords {
                property,
                first,
                second,
            } => write!(
                f,
                "property `{property}`: \"{first}\" and \"{second}\" both define the options; use one"
            ),
            InvalidOptions { property, keyword } => write!(
                f,
                "property `{property}`: \"{keyword}\" is malformed (expected strings, or {{\"const\": string, \"title\": string}} objects)"
            ),
            EmptyOptions { property } => write!(f, "property `{property}`: the enum has no options"),
            DuplicateOption { property, value } => {
                write!(f, "property `{property}`: option {value:?} is listed twice")
            }
            EnumNamesMismatch {
                property,
                options,
                names,
            } => write!(
                f,
                "property `{property}`: \"enumNames\" has {names} titles for {options} enum values"
            ),
            UnknownFormat { property, found } => write!(
                f,
                "property `{property}`: unsupported format {found:?} (expected email, uri, date or date-time)"
            ),
            BoundNotANumber { property, keyword } => {
                write!(f, "property `{property}`: \"{keyword}\" is not a number")
            }
            BoundNotACount { property, keyword } => write!(
                f,
                "property `{property}`: \"{keyword}\" is not a non-negative whole number"
            ),
            MinAboveMax {
                property,
                min_keyword,
                max_keyword,
            } => write!(
                f,
                "property `{property}`: \"{min_keyword}\" is greater than \"{max_keyword}\""
            ),
            InvalidDefault { property, problem } => {
                write!(f, "property `{property}`: the default is invalid: {problem}")
            }
        }
    }
}

impl std::error::Error for SchemaError {}

/// What is wrong with one answer; typed so a UI can localize it (Display gives English).
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// A required field is absent or blank.
    Required,
    /// Fewer characters than `minLength`.
    TooShort {
        /// The minimum.
        min: u64,
    },
    /// More characters than `maxLength`.
    TooLong {
        /// The maximum.
        max: u64,
    },
    /// Not a plausible email address.
    InvalidEmail,
    /// Not a URI with a scheme.
    InvalidUri,
    /// Not a real `YYYY-MM-DD` date.
    InvalidDate,
    /// Not an RFC 3339 date-time.
    InvalidDateTime,
    /// A number field got something other than a JSON number.
    NotANumber,
    /// An integer field got a number with a fractional part.
    NotAnInteger,
    /// Below `minimum`.
    BelowMinimum {
        /// The minimum.
        min: f64,
    },
    /// Above `maximum`.
    AboveMaximum {
        /// The maximum.
        max: f64,
    },
    /// A boolean field got something other than `true`/`false`.
    NotABoolean,
    /// A value that is not among the field's options.
    NotAnOption {
        /// The offending value.
        value: String,
    },
    /// Fewer choices than `minItems`.
    TooFewItems {
        /// The minimum.
        min: u64,
    },
    /// More choices than `maxItems`.
    TooManyItems {
        /// The maximum.
        max: u64,
    },
    /// The same choice given twice.
    DuplicateItem {
        /// The repeated value.
        value: String,
    },
    /// An answer for a property the schema doesn't define.
    UnknownField,
    /// A text or select field got the wrong JSON type.
    WrongType {
        /// The JSON type wanted: `"string"` or `"array of strings"`.
        expected: &'static str,
    },
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Problem::*;
        match self {
            Required => write!(f, "This field is required; please fill it in."),
            TooShort { min } => write!(
                f,
                "Enter at least {min} {}.",
                plural(*min, "character", "characters")
            ),
            TooLong { max } => write!(
                f,
                "Enter at most {max} {}.",
                plural(*max, "character", "characters")
            ),
            InvalidEmail => write!(f, "Enter an email address like name@example.com."),
            InvalidUri => write!(
                f,
                "Enter a full address including its scheme, like https://example.com."
            ),
            InvalidDate => write!(f, "Enter a real date as YYYY-MM-DD, like 2024-02-29."),
            InvalidDateTime => write!(
                f,
                "Enter a date and time like 2024-02-29T13:45:00Z or 2024-02-29T20:45:00+07:00."
            ),
            NotANumber => write!(f, "Enter a number."),
            NotAnInteger => write!(f, "Enter a whole number, without decimals."),
            BelowMinimum { min } => write!(f, "Enter {min} or more."),
            AboveMaximum { max } => write!(f, "Enter {max} or less."),
            NotABoolean => write!(f, "Choose yes or no."),
            NotAnOption { value } => {
                write!(
                    f,
                    "{value:?} is not one of the choices; pick one from the list."
                )
            }
            TooFewItems { min } => write!(
                f,
                "Choose at least {min} {}.",
                plural(*min, "option", "options")
            ),
            TooManyItems { max } => write!(
                f,
                "Choose at most {max} {}.",
                plural(*max, "option", "options")
            ),
            DuplicateItem { value } => write!(f, "Choose {value:?} only once."),
            UnknownField => write!(f, "This answer is not part of the form; remove it."),
            WrongType { expected } => {
                write!(
                    f,
                    "This answer has the wrong type; it must be a {expected}."
                )
            }
        }
    }
}

/// One problem with one answer, tied to the property it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// The property name (for [`Problem::UnknownField`], the unknown answer key).
    pub field: String,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for FieldError {}

/// Result of checking one answer value against its field.
enum Checked {
    /// Null, `""` or `[]`: treated as not answered.
    Blank,
    /// The normalized value to send.
    Answer(Value),
}

/// Optional keyword lookup: a JSON `null` counts as absent.
fn get_opt<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    }
}

/// A label-ish keyword: a string, or `None` when absent or not a string (tolerated, not shown).
fn opt_string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Names a non-string JSON value for an error message, without serializing it.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn len_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A JSON number that is a non-negative whole number (`3` or `3.0`).
fn as_count(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let x = v.as_f64()?;
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 18_446_744_073_709_551_616.0 {
        Some(x as u64)
    } else {
        None
    }
}

fn count_bound(
    name: &str,
    def: &Map<String, Value>,
    keyword: &'static str,
) -> Result<Option<u64>, SchemaError> {
    match get_opt(def, keyword) {
        None => Ok(None),
        Some(v) => as_count(v)
            .map(Some)
            .ok_or_else(|| SchemaError::BoundNotACount {
                property: name.to_owned(),
                keyword,
            }),
    }
}

fn number_bound(
    name: &str,
    def: &Map<String, Value>,
    keyword: &'static str,
) -> Result<Option<f64>, SchemaError> {
    match get_opt(def, keyword) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| SchemaError::BoundNotANumber {
                property: name.to_owned(),
                keyword,
            }),
    }
}

fn check_order<T: PartialOrd>(
    name: &str,
    min: Option<T>,
    max: Option<T>,
    min_keyword: &'static str,
    max_keyword: &'static str,
) -> Result<(), SchemaError> {
    match (min, max) {
        (Some(lo), Some(hi)) if lo > hi => Err(SchemaError::MinAboveMax {
            property: name.to_owned(),
            min_keyword,
            max_keyword,
        }),
        _ => Ok(()),
    }
}

/// Rejects a schema where more than one of `keywords` is present (non-null).
fn only_one_of(
    name: &str,
    def: &Map<String, Value>,
    keywords: &[&'static str],
) -> Result<(), SchemaError> {
    let mut present = keywords.iter().filter(|k| get_opt(def, k).is_some());
    if let (Some(first), Some(second)) = (present.next(), present.next()) {
        return Err(SchemaError::ConflictingKeywords {
            property: name.to_owned(),
            first,
            second,
        });
    }
    Ok(())
}

fn reject_duplicates<'a>(
    name: &str,
    values: impl Iterator<Item = &'a str>,
) -> Result<(), SchemaError> {
    let mut seen = BTreeSet::new();
    for v in values {
        if !seen.insert(v) {
            return Err(SchemaError::DuplicateOption {
                property: name.to_owned(),
                value: v.to_owned(),
            });
        }
    }
    Ok(())
}

/// Parses a plain string array (`enum`, `enumNames`).
fn string_list(name: &str, v: &Value, keyword: &'static str) -> Result<Vec<String>, SchemaError> {
    let invalid = || SchemaError::InvalidOptions {
        property: name.to_owned(),
        keyword,
    };
    v.as_array()
        .ok_or_else(invalid)?
        .iter()
        .map(|item| item.as_str().map(str::to_owned).ok_or_else(invalid))
        .collect()
}

/// Parses an untitled `enum` into choices: non-empty, unique strings.
fn enum_choices(name: &str, v: &Value) -> Result<Vec<Choice>, SchemaError> {
    let values = string_list(name, v, "enum")?;
    if values.is_empty() {
        return Err(SchemaError::EmptyOptions {
            property: name.to_owned(),
        });
    }
    reject_duplicates(name, values.iter().map(String::as_str))?;
    Ok(values
        .into_iter()
        .map(|value| Choice { value, title: None })
        .collect())
}

/// Parses `oneOf`/`anyOf` of `{const, title}` into choices: non-empty, unique consts.
/// A missing `title` is tolerated (the value is shown); a non-string one is not.
fn titled_choices(
    name: &str,
    v: &Value,
    keyword: &'static str,
) -> Result<Vec<Choice>, SchemaError> {
    let invalid = || SchemaError::InvalidOptions {
        property: name.to_owned(),
        keyword,
    };
    let mut choices = Vec::new();
    for item in v.as_array().ok_or_else(invalid)? {
        let obj = item.as_object().ok_or_else(invalid)?;
        let value = obj
            .get("const")
            .and_then(Value::as_str)
            .ok_or_else(invalid)?
            .to_owned();
        let title = match get_opt(obj, "title") {
            None => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(_) => return Err(invalid()),
        };
        choices.push(Choice { value, title });
    }
    if choices.is_empty() {
        return Err(SchemaError::EmptyOptions {
            property: name.to_owned(),
        });
    }
    reject_duplicates(name, choices.iter().map(|c| c.value.as_str()))?;
    Ok(choices)
}

fn parse_string_kind(name: &str, def: &Map<String, Value>) -> Result<FieldKind, SchemaError> {
    only_one_of(name, def, &["enum", "oneOf", "anyOf"])?;
    // `anyOf` of consts is accepted as a lenient alias of the spec's `oneOf`.
    for keyword in ["oneOf", "anyOf"] {
        if let Some(list) = get_opt(def, keyword) {
            return Ok(FieldKind::SingleSelect {
                options: titled_choices(name, list, keyword)?,
                default: None,
            });
        }
    }
    if let Some(values) = get_opt(def, "enum") {
        let mut options = enum_choices(name, values)?;
        if let Some(names) = get_opt(def, "enumNames") {
            let titles = string_list(name, names, "enumNames")?;
            if titles.len() != options.len() {
                return Err(SchemaError::EnumNamesMismatch {
                    property: name.to_owned(),
                    options: options.len(),
                    names: titles.len(),
                });
            }
            for (choice, title) in options.iter_mut().zip(titles) {
                choice.title = Some(title);
            }
        }
        return Ok(FieldKind::SingleSelect {
            options,
            default: None,
        });
    }
    let format = match get_opt(def, "format") {
        None => None,
        Some(v) => Some(v.as_str().and_then(TextFormat::parse).ok_or_else(|| {
            SchemaError::UnknownFormat {
                property: name.to_owned(),
                found: describe(v),
            }
        })?),
    };
    let min_length = count_bound(name, def, "minLength")?;
    let max_length = count_bound(name, def, "maxLength")?;
    check_order(name, min_length, max_length, "minLength", "maxLength")?;
    Ok(FieldKind::Text {
        format,
        min_length,
        max_length,
        default: None,
    })
}

fn parse_number_kind(
    name: &str,
    def: &Map<String, Value>,
    integer: bool,
) -> Result<FieldKind, SchemaError> {
    reject_option_keywords(name, def)?;
    let minimum = number_bound(name, def, "minimum")?;
    let maximum = number_bound(name, def, "maximum")?;
    check_order(name, minimum, maximum, "minimum", "maximum")?;
    Ok(FieldKind::Number {
        integer,
        minimum,
        maximum,
        default: None,
    })
}

/// Numbers and booleans can't carry option lists; ignoring one would accept values the server forbids.
fn reject_option_keywords(name: &str, def: &Map<String, Value>) -> Result<(), SchemaError> {
    for keyword in ["enum", "oneOf", "anyOf"] {
        if get_opt(def, keyword).is_some() {
            return Err(SchemaError::UnsupportedKeyword {
                property: name.to_owned(),
                keyword,
            });
        }
    }
    Ok(())
}

fn parse_array_kind(name: &str, def: &Map<String, Value>) -> Result<FieldKind, SchemaError> {
    let no_enum = || SchemaError::ArrayWithoutEnumItems {
        property: name.to_owned(),
    };
    let items = get_opt(def, "items")
        .and_then(Value::as_object)
        .ok_or_else(no_enum)?;
    match get_opt(items, "type") {
        None => {}
        Some(Value::String(t)) if t == "string" => {}
        Some(_) => return Err(no_enum()),
    }
    only_one_of(name, items, &["enum", "anyOf", "oneOf"])?;
    let options = if let Some(v) = get_opt(items, "anyOf") {
        titled_choices(name, v, "anyOf")?
    } else if let Some(v) = get_opt(items, "oneOf") {
        titled_choices(name, v, "oneOf")?
    } else if let Some(v) = get_opt(items, "enum") {
        enum_choices(name, v)?
    } else {
        return Err(no_enum());
    };
    let min_items = count_bound(name, def, "minItems")?;
    let max_items = count_bound(name, def, "maxItems")?;
    check_order(name, min_items, max_items, "minItems", "maxItems")?;
    Ok(FieldKind::MultiSelect {
        options,
        min_items,
        max_items,
        default: Vec::new(),
    })
}

/// Checks the declared default with the same rules as an answer and stores it in `kind`.
/// A blank default (`""`, `[]`) is treated as no default.
fn with_default(
    name: &str,
    mut kind: FieldKind,
    default: Option<&Value>,
) -> Result<FieldKind, SchemaError> {
    let Some(raw) = default else {
        return Ok(kind);
    };
    let value = match check_value(&kind, raw) {
        Ok(Checked::Blank) => return Ok(kind),
        Ok(Checked::Answer(v)) => v,
        Err(problems) => {
            return Err(SchemaError::InvalidDefault {
                property: name.to_owned(),
                problem: problems.into_iter().next().unwrap_or(Problem::Required),
            })
        }
    };
    match (&mut kind, value) {
        (FieldKind::Text { default, .. }, Value::String(s))
        | (FieldKind::SingleSelect { default, .. }, Value::String(s)) => *default = Some(s),
        (FieldKind::Number { default, .. }, Value::Number(n)) => *default = n.as_f64(),
        (FieldKind::Boolean { default }, Value::Bool(b)) => *default = Some(b),
        (FieldKind::MultiSelect { default, .. }, Value::Array(items)) => {
            *default = items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect();
        }
        // check_value only answers with the kind's own JSON type.
        _ => {}
    }
    Ok(kind)
}

fn parse_field(name: &str, def: &Value, required: bool) -> Result<FormField, SchemaError> {
    let def = def
        .as_object()
        .ok_or_else(|| SchemaError::PropertyNotAnObject {
            property: name.to_owned(),
        })?;
    let ty = match get_opt(def, "type") {
        None => {
            return Err(SchemaError::MissingType {
                property: name.to_owned(),
            })
        }
        Some(Value::String(t)) => t.as_str(),
        Some(other) => {
            return Err(SchemaError::UnknownType {
                property: name.to_owned(),
                found: describe(other),
            })
        }
    };
    let kind = match ty {
        "string" => parse_string_kind(name, def)?,
        "number" => parse_number_kind(name, def, false)?,
        "integer" => parse_number_kind(name, def, true)?,
        "boolean" => {
            reject_option_keywords(name, def)?;
            FieldKind::Boolean { default: None }
        }
        "array" => parse_array_kind(name, def)?,
        "object" => {
            return Err(SchemaError::NestedObject {
                property: name.to_owned(),
            })
        }
        other => {
            return Err(SchemaError::UnknownType {
                property: name.to_owned(),
                found: other.to_owned(),
            })
        }
    };
    let kind = with_default(name, kind, get_opt(def, "default"))?;
    Ok(FormField {
        name: name.to_owned(),
        title: opt_string(def, "title"),
        description: opt_string(def, "description"),
        required,
        kind,
    })
}

/// Emits a whole-number f64 as a JSON integer when it fits i64/u64, else as the original number.
fn integer_value(n: &Number) -> Value {
    if n.is_i64() || n.is_u64() {
        return Value::Number(n.clone());
    }
    let x = n.as_f64().unwrap_or(f64::NAN);
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        Value::from(x as i64)
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&x) {
        Value::from(x as u64)
    } else {
        Value::Number(n.clone())
    }
}

fn check_value(kind: &FieldKind, v: &Value) -> Result<Checked, Vec<Problem>> {
    if v.is_null() {
        return Ok(Checked::Blank);
    }
    let mut problems = Vec::new();
    let answer = match kind {
        FieldKind::Text {
            format,
            min_length,
            max_length,
            ..
        } => {
            let Some(s) = v.as_str() else {
                return Err(vec![Problem::WrongType { expected: "string" }]);
            };
            if s.is_empty() {
                return Ok(Checked::Blank);
            }
            let len = len_u64(s.chars().count());
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
                Some(TextFormat::DateTime) if !is_date_time(s) => {
                    problems.push(Problem::InvalidDateTime)
                }
                _ => {}
            }
            Value::String(s.to_owned())
        }
        FieldKind::Number {
            integer,
            minimum,
            maximum,
            ..
        } => {
            let Value::Number(n) = v else {
                return Err(vec![Problem::NotANumber]);
            };
            let Some(x) = n.as_f64() else {
                return Err(vec![Problem::NotANumber]);
            };
            if *integer && x.fract() != 0.0 {
                problems.push(Problem::NotAnInteger);
            }
            if let Some(min) = *minimum {
                if x < min {
                    problems.push(Problem::BelowMinimum { min });
                }
            }
            if let Some(max) = *maximum {
                if x > max {
                    problems.push(Problem::AboveMaximum { max });
                }
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
                problems.push(Problem::NotAnOption {
                    value: s.to_owned(),
                });
            }
            Value::String(s.to_owned())
        }
        FieldKind::MultiSelect {
            options,
            min_items,
            max_items,
            ..
        } => {
            let wrong = || {
                vec![Problem::WrongType {
                    expected: "array of strings",
                }]
            };
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
            let mut seen = BTreeSet::new();
            let mut reported_dup = BTreeSet::new();
            for s in &picked {
                if seen.insert(*s) {
                    if !options.iter().any(|c| c.value == *s) {
                        problems.push(Problem::NotAnOption {
                            value: (*s).to_owned(),
                        });
                    }
                } else if reported_dup.insert(*s) {
                    problems.push(Problem::DuplicateItem {
                        value: (*s).to_owned(),
                    });
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
            Value::Array(
                picked
                    .into_iter()
                    .map(|s| Value::String(s.to_owned()))
                    .collect(),
            )
        }
    };
    if problems.is_empty() {
        Ok(Checked::Answer(answer))
    } else {
        Err(problems)
    }
}

fn has_space_or_control(s: &str) -> bool {
    s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// One `@`, non-empty local part, a domain with a dot between non-empty labels, no spaces.
fn is_email(s: &str) -> bool {
    if has_space_or_control(s) {
        return false;
    }
    let mut parts = s.split('@');
    let (Some(local), Some(domain), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
}

/// `scheme:rest` with scheme `[A-Za-z][A-Za-z0-9+.-]*`, non-empty rest, no spaces.
fn is_uri(s: &str) -> bool {
    if has_space_or_control(s) {
        return false;
    }
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let starts_alpha = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    starts_alpha
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !rest.is_empty()
}

/// Reads `len` (≤ 4) ASCII digits at `start`.
fn digits(b: &[u8], start: usize, len: usize) -> Option<u32> {
    let slice = b.get(start..start.checked_add(len)?)?;
    let mut n = 0u32;
    for &c in slice {
        // ASCII digits only (`to_digit` would also refuse others); at most 4 of them, so
        // this never saturates; saturating keeps it obviously panic-free.
        let d = char::from(c).to_digit(10)?;
        n = n.saturating_mul(10).saturating_add(d);
    }
    Some(n)
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

/// Checks `YYYY-MM-DD` at the start of `b` (exactly 10 bytes are read).
fn date_prefix_ok(b: &[u8]) -> bool {
    let (Some(y), Some(m), Some(d)) = (digits(b, 0, 4), digits(b, 5, 2), digits(b, 8, 2)) else {
        return false;
    };
    b.get(4) == Some(&b'-') && b.get(7) == Some(&b'-') && d >= 1 && d <= days_in_month(y, m)
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && date_prefix_ok(b)
}

/// RFC 3339 date-time; `T`/`Z` may be lower case (RFC 3339 §5.6 note); seconds may be 60 (leap second).
fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if !date_prefix_ok(b) || !matches!(b.get(10), Some(b'T' | b't')) {
        return false;
    }
    let (Some(hh), Some(mm), Some(ss)) = (digits(b, 11, 2), digits(b, 14, 2), digits(b, 17, 2))
    else {
        return false;
    };
    if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') || hh > 23 || mm > 59 || ss > 60 {
        return false;
    }
    let Some(mut rest) = b.get(19..) else {
        return false;
    };
    if let Some((b'.', frac)) = rest.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        match frac.get(n..) {
            Some(after) if n > 0 => rest = after,
            _ => return false,
        }
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2], 0, 2), digits(&[*m1, *m2], 0, 2)),
                (Some(oh), Some(om)) if oh <= 23 && om <= 59)
        }
        _ => false,
    }
}

impl FormModel {
    /// Builds the form from an `elicitation/create` `requestedSchema`.
    ///
    /// Requires `"type": "object"` and a `properties` object; ignores `$schema`, top-level
    /// `title`/`description` and unknown keywords; treats keywords set to `null` as absent.
    /// Fails with the first [`SchemaError`] found (root shape, `required`'s shape, each property
    /// in map order, then `required` names). Every declared default must pass
    /// [`FormModel::validate`]'s rules for its field. Lenient aliases: `anyOf` for a single
    /// select's `oneOf`, `oneOf` for a multi select's `items.anyOf`; a missing choice `title`
    /// and a non-string field `title`/`description` are tolerated (treated as absent).
    pub fn from_schema(schema: &Value) -> Result<FormModel, SchemaError> {
        let root = schema.as_object().ok_or(SchemaError::NotAnObject)?;
        match root.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            _ => return Err(SchemaError::RootTypeNotObject),
        }
        let properties = match root.get("properties") {
            None => return Err(SchemaError::MissingProperties),
            Some(Value::Object(p)) => p,
            Some(_) => return Err(SchemaError::PropertiesNotAnObject),
        };
        let required: Vec<&str> = match get_opt(root, "required") {
            None => Vec::new(),
            Some(Value::Array(names)) => names
                .iter()
                .map(|n| n.as_str().ok_or(SchemaError::RequiredNotAList))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(SchemaError::RequiredNotAList),
        };
        let fields = properties
            .iter()
            .map(|(name, def)| parse_field(name, def, required.contains(&name.as_str())))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(unknown) = required.iter().find(|n| !properties.contains_key(**n)) {
            return Err(SchemaError::UnknownRequired {
                property: (*unknown).to_owned(),
            });
        }
        Ok(FormModel { fields })
    }

    /// The fields in `properties` order (sorted by name; see the module docs).
    pub fn fields(&self) -> &[FormField] {
        &self.fields
    }

    /// Looks a field up by property name, e.g. to attach a [`FieldError`] to its widget.
    pub fn field(&self, name: &str) -> Option<&FormField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The initial answers: each declared default, typed as it would be sent
    /// (integers as JSON integers). Fields without a default are absent.
    pub fn defaults(&self) -> Map<String, Value> {
        let mut out = Map::new();
        for field in &self.fields {
            let value = match &field.kind {
                FieldKind::Text { default, .. } | FieldKind::SingleSelect { default, .. } => {
                    default.clone().map(Value::String)
                }
                FieldKind::Number {
                    integer, default, ..
                } => default.and_then(Number::from_f64).map(|n| {
                    if *integer {
                        integer_value(&n)
                    } else {
                        Value::Number(n)
                    }
                }),
                FieldKind::Boolean { default } => default.map(Value::Bool),
                FieldKind::MultiSelect { default, .. } if !default.is_empty() => Some(
                    Value::Array(default.iter().cloned().map(Value::String).collect()),
                ),
                FieldKind::MultiSelect { .. } => None,
            };
            if let Some(v) = value {
                out.insert(field.name.clone(), v);
            }
        }
        out
    }

    /// Checks the user's answers and returns the `ElicitResult.content` to send.
    ///
    /// The content holds only schema properties with values of their declared type
    /// (integer answers such as `3.0` become `3`); blank optional answers are left out
    /// (see the module docs). On failure returns every problem, in field order,
    /// followed by [`Problem::UnknownField`] for answer keys the schema doesn't define.
    pub fn validate(
        &self,
        answers: &Map<String, Value>,
    ) -> Result<Map<String, Value>, Vec<FieldError>> {
        let mut content = Map::new();
        let mut errors = Vec::new();
        for field in &self.fields {
            let checked = match answers.get(&field.name) {
                None => Ok(Checked::Blank),
                Some(v) => check_value(&field.kind, v),
            };
            match checked {
                Ok(Checked::Answer(v)) => {
                    content.insert(field.name.clone(), v);
                }
                Ok(Checked::Blank) if field.required => errors.push(FieldError {
                    field: field.name.clone(),
                    problem: Problem::Required,
                }),
                Ok(Checked::Blank) => {}
                Err(problems) => errors.extend(problems.into_iter().map(|problem| FieldError {
                    field: field.name.clone(),
                    problem,
                })),
            }
        }
        for key in answers.keys() {
            if self.field(key).is_none() {
                errors.push(FieldError {
                    field: key.clone(),
                    problem: Problem::UnknownField,
                });
            }
        }
        if errors.is_empty() {
            Ok(content)
        } else {
            Err(errors)
        }
    }
}
