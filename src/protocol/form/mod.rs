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
//! Fields come in the iteration order of the schema's `properties` object. [`crate::json::Map`]
//! keeps the order it was read in, so that is the order the server wrote (a form reads top to bottom
//! as its author meant).
//!
//! # Blank answers
//! An answer that is JSON `null`, an empty string (text, or a single select
//! whose options don't include `""`), or an empty array (multi select) counts
//! as *unanswered*, exactly like an absent key: an optional field is left out
//! of the content, a required one gets [`Problem::Required`].

mod answers;
mod errors;
mod formats;
mod schema;

pub use errors::{FieldError, Problem, PropertyError, SchemaError};

use crate::json::{Map, Number, Value};
use answers::{check_value, Checked};
use schema::{get_opt, parse_field};

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
    /// A number (`type: "number"`) or whole number (`type: "integer"`). Bounds and default are kept as
    /// the server wrote them (a [`Number`] holds its text), so the default goes back byte for byte and
    /// a UI can show them as written; they are compared exactly, never as doubles.
    Number {
        /// True for `type: "integer"`: answers must be whole numbers and are sent as plain integers.
        integer: bool,
        /// `minimum` (inclusive).
        minimum: Option<Number>,
        /// `maximum` (inclusive).
        maximum: Option<Number>,
        /// Declared default; for integer fields a whole number, written as a plain integer (`3.0` → `3`).
        default: Option<Number>,
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

/// What a form may hold at most. Real servers ask a handful of fields; past these a form is
/// [`SchemaError::TooLarge`], which a UI shows as too large, with only decline and cancel offered.
/// Each bounds the work of building, drawing and checking the form, on every draw of the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormLimit {
    /// Properties: 256.
    Fields,
    /// Options of every select together: 1,024 (a list of the world's countries fits four times).
    Options,
    /// Nested objects and arrays in the schema held as text, itself counted: 8 (a multi select's
    /// choices are 6 deep).
    Depth,
    /// The schema's JSON text, when the client holds it as text: 256 KiB. Past it the text is not read.
    Bytes,
}

/// What a form's `requestedSchema` becomes when it is over [`FormLimit::Bytes`] (256 KiB): an object of
/// this one member, whose value is the schema's length in bytes. The form model reads it as too large.
pub const TOO_LARGE_SCHEMA: &str = "x-tooLarge";

impl FormLimit {
    /// The most allowed.
    pub fn max(self) -> usize {
        match self {
            FormLimit::Fields => 256,
            FormLimit::Options => 1_024,
            FormLimit::Depth => 8,
            FormLimit::Bytes => 256 << 10,
        }
    }
}

impl FieldKind {
    /// Suggests the widget for this kind: radios for up to [`RADIO_MAX_OPTIONS`] options, else a drop-down.
    pub fn widget_hint(&self) -> WidgetHint {
        match self {
            FieldKind::Text { .. } => WidgetHint::TextInput,
            FieldKind::Number { .. } => WidgetHint::NumberInput,
            FieldKind::Boolean { .. } => WidgetHint::Checkbox,
            FieldKind::SingleSelect { options, .. } if options.len() <= RADIO_MAX_OPTIONS => WidgetHint::Radio,
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

/// A validated elicitation form: the fields of a `requestedSchema`, in `properties` order.
///
/// Built only by [`FormModel::from_schema`], so every declared default satisfies its own field.
#[derive(Debug, Clone, PartialEq)]
pub struct FormModel {
    fields: Vec<FormField>,
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
    /// and a non-string field `title`/`description` are tolerated (treated as absent). Past any
    /// [`FormLimit`] it is [`SchemaError::TooLarge`]: a schema held as text ([`Value::Raw`], as the
    /// client holds a question's) is read only within 256 KiB and 8 levels of nesting.
    pub fn from_schema(schema: &Value) -> Result<FormModel, SchemaError> {
        // A schema the client holds as text is read only when it is small enough to be a form.
        let parsed;
        let schema = match schema {
            Value::Raw(raw) if raw.as_str().len() > FormLimit::Bytes.max() => {
                return Err(SchemaError::TooLarge(FormLimit::Bytes))
            }
            // Text checked when it was read: the one way it fails to parse now is nesting too deep.
            Value::Raw(raw) => {
                parsed = crate::json::parse::from_str_nesting(raw.as_str(), FormLimit::Depth.max())
                    .map_err(|_| SchemaError::TooLarge(FormLimit::Depth))?;
                &parsed
            }
            tree => tree,
        };
        let root = schema.as_object().ok_or(SchemaError::NotAnObject)?;
        if root.get(TOO_LARGE_SCHEMA).is_some() {
            return Err(SchemaError::TooLarge(FormLimit::Bytes));
        }
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
            Some(Value::Array(names)) => {
                let mut list = Vec::with_capacity(names.len());
                for n in names {
                    list.push(n.as_str().ok_or(SchemaError::RequiredNotAList)?);
                }
                list
            }
            Some(_) => return Err(SchemaError::RequiredNotAList),
        };
        // More required names than fields allowed would name a field twice or one not in the form.
        // Within the limits the scans below cost at most 256 × 256 comparisons.
        if properties.len().max(required.len()) > FormLimit::Fields.max() {
            return Err(SchemaError::TooLarge(FormLimit::Fields));
        }
        let mut fields = Vec::with_capacity(properties.len());
        let mut options = 0;
        for (name, def) in properties.iter() {
            let field = parse_field(name, def, required.contains(&name))?;
            if let FieldKind::SingleSelect { options: o, .. } | FieldKind::MultiSelect { options: o, .. } = &field.kind
            {
                options += o.len();
                if options > FormLimit::Options.max() {
                    return Err(SchemaError::TooLarge(FormLimit::Options));
                }
            }
            fields.push(field);
        }
        if let Some(unknown) = required.iter().find(|n| !properties.contains_key(n)) {
            return Err(SchemaError::UnknownRequired { property: (*unknown).to_owned() });
        }
        Ok(FormModel { fields })
    }

    /// The fields in `properties` order (as the server wrote them).
    pub fn fields(&self) -> &[FormField] {
        &self.fields
    }

    /// Looks a field up by property name, e.g. to attach a [`FieldError`] to its widget.
    pub fn field(&self, name: &str) -> Option<&FormField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The initial answers: each declared default, typed as it would be sent
    /// (integers as JSON integers; numbers as the server wrote them). Fields without a default are absent.
    pub fn defaults(&self) -> Map {
        let mut out = Map::new();
        for field in &self.fields {
            let value = match &field.kind {
                FieldKind::Text { default, .. } | FieldKind::SingleSelect { default, .. } => {
                    default.clone().map(Value::String)
                }
                FieldKind::Number { default, .. } => default.clone().map(Value::Number),
                FieldKind::Boolean { default } => default.map(Value::Bool),
                FieldKind::MultiSelect { default, .. } if !default.is_empty() => {
                    let mut items = Vec::with_capacity(default.len());
                    for s in default {
                        items.push(Value::String(s.clone()));
                    }
                    Some(Value::Array(items))
                }
                FieldKind::MultiSelect { .. } => None,
            };
            if let Some(v) = value {
                out.push_new(field.name.clone(), v);
            }
        }
        out
    }

    /// Checks the user's answers and returns the `ElicitResult.content` to send.
    ///
    /// The content holds only schema properties with values of their declared type
    /// (integer answers such as `3.0` become `3`; other numbers keep their text); blank optional answers are left out
    /// (see the module docs). On failure returns every problem, in field order,
    /// followed by [`Problem::UnknownField`] for answer keys the schema doesn't define.
    pub fn validate(&self, answers: &Map) -> Result<Map, Vec<FieldError>> {
        let mut content = Map::new();
        let mut errors = Vec::new();
        // Within the limits ([`FormLimit`]) at most 256 fields, each looked up among the answers.
        for field in &self.fields {
            let checked = match answers.get(&field.name) {
                None => Ok(Checked::Blank),
                Some(v) => check_value(&field.kind, v),
            };
            match checked {
                Ok(Checked::Answer(v)) => content.push_new(field.name.clone(), v),
                Ok(Checked::Blank) if field.required => {
                    errors.push(FieldError { field: field.name.clone(), problem: Problem::Required })
                }
                Ok(Checked::Blank) => {}
                Err(problems) => {
                    errors.extend(problems.into_iter().map(|problem| FieldError { field: field.name.clone(), problem }))
                }
            }
        }
        for key in answers.keys() {
            if self.field(key).is_none() {
                errors.push(FieldError { field: key.to_owned(), problem: Problem::UnknownField });
            }
        }
        if errors.is_empty() {
            Ok(content)
        } else {
            Err(errors)
        }
    }
}
