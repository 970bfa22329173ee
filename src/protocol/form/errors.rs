//! Error types of the form model: why a schema is unusable ([`SchemaError`], with an English `Display`
//! for the server's developer) and what is wrong with an answer ([`Problem`], [`FieldError`]).
//!
//! A problem is shown to the person filling in the form, in their language, so it carries no words:
//! [`Problem::code`] names it and [`Problem::params`] gives the values a message needs. The words live
//! with the UI (the element's label sets, keys `problem.<code>`, in English and Thai).

use std::fmt;

use super::FormLimit;
use crate::json::Number;

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
    /// A property's definition can't be shown as a field.
    Property {
        /// The property.
        property: String,
        /// What is wrong with its definition.
        problem: PropertyError,
    },
    /// The form holds more than this client shows (the first [`FormLimit`] found over): it is not
    /// drawn, and can only be declined or cancelled.
    TooLarge(FormLimit),
}

/// What is wrong with one property's definition ([`SchemaError::Property`] names the property: the
/// name is attached once, where the property is read, not at every check).
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyError {
    /// The definition is not an object.
    NotAnObject,
    /// No `type`.
    MissingType,
    /// A `type` that is not one of string, number, integer, boolean, array.
    UnknownType {
        /// What `type` held (a string, or a description of a non-string value).
        found: String,
    },
    /// The property is itself an object; forms are flat.
    NestedObject,
    /// An array whose `items` isn't a string enum (`enum` or `anyOf` of consts).
    ArrayWithoutEnumItems,
    /// An enum keyword on a kind that can't have one (e.g. `enum` on a number).
    UnsupportedKeyword {
        /// The keyword, e.g. `"enum"`.
        keyword: &'static str,
    },
    /// Two keywords that each define the options, e.g. both `enum` and `oneOf`.
    ConflictingKeywords {
        /// The first keyword.
        first: &'static str,
        /// The second keyword.
        second: &'static str,
    },
    /// An options keyword that isn't an array of strings (`enum`, `enumNames`) or of
    /// `{const: string, title?: string}` objects (`oneOf`, `anyOf`).
    InvalidOptions {
        /// The malformed keyword.
        keyword: &'static str,
    },
    /// An enum with no options at all.
    EmptyOptions,
    /// The same option value listed twice.
    DuplicateOption {
        /// The repeated value.
        value: String,
    },
    /// Legacy `enumNames` doesn't have one title per `enum` value.
    EnumNamesMismatch {
        /// How many `enum` values there are.
        options: usize,
        /// How many `enumNames` there are.
        names: usize,
    },
    /// A string `format` other than email, uri, date, date-time.
    UnknownFormat {
        /// What `format` held.
        found: String,
    },
    /// `minimum`/`maximum` is not a number.
    BoundNotANumber {
        /// The keyword.
        keyword: &'static str,
    },
    /// `minLength`/`maxLength`/`minItems`/`maxItems` is not a non-negative whole number.
    BoundNotACount {
        /// The keyword.
        keyword: &'static str,
    },
    /// A lower bound above its upper bound, so no answer could pass.
    MinAboveMax {
        /// The lower-bound keyword.
        min_keyword: &'static str,
        /// The upper-bound keyword.
        max_keyword: &'static str,
    },
    /// The declared `default` fails the property's own type, options, bounds or format.
    InvalidDefault {
        /// The first problem the default has.
        problem: Problem,
    },
    /// More options than the form may hold: the whole form is [`SchemaError::TooLarge`].
    TooLarge(FormLimit),
}

impl PropertyError {
    /// The schema's error for this problem of property `name`.
    pub(super) fn of(self, name: &str) -> SchemaError {
        match self {
            PropertyError::TooLarge(limit) => SchemaError::TooLarge(limit),
            problem => SchemaError::Property { property: name.to_owned(), problem },
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SchemaError::*;
        match self {
            NotAnObject => f.write_str("requestedSchema is not a JSON object"),
            RootTypeNotObject => f.write_str("requestedSchema must have \"type\": \"object\""),
            MissingProperties => f.write_str("requestedSchema has no \"properties\""),
            PropertiesNotAnObject => f.write_str("requestedSchema \"properties\" is not an object"),
            RequiredNotAList => f.write_str("requestedSchema \"required\" is not an array of property names"),
            UnknownRequired { property } => {
                write!(f, "\"required\" names `{property}`, which is not in \"properties\"")
            }
            Property { property, problem } => write!(f, "property `{property}`: {problem}"),
            TooLarge(_) => f.write_str("requestedSchema is too large for this client"),
        }
    }
}

impl fmt::Display for PropertyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PropertyError::*;
        match self {
            NotAnObject => f.write_str("definition is not an object"),
            MissingType => f.write_str("no \"type\""),
            UnknownType { found } => {
                write!(f, "unsupported type \"{found}\" (expected string, number, integer, boolean or array)")
            }
            NestedObject => f.write_str("nested objects are not allowed; forms are flat"),
            ArrayWithoutEnumItems => {
                f.write_str("arrays are only allowed as multi-selects (items with a string \"enum\" or \"anyOf\")")
            }
            UnsupportedKeyword { keyword } => write!(f, "\"{keyword}\" is not supported on this type"),
            ConflictingKeywords { first, second } => {
                write!(f, "\"{first}\" and \"{second}\" both define the options; use one")
            }
            InvalidOptions { keyword } => write!(
                f,
                "\"{keyword}\" is malformed (expected strings, or {{\"const\": string, \"title\": string}} objects)"
            ),
            EmptyOptions => f.write_str("the enum has no options"),
            DuplicateOption { value } => write!(f, "option \"{value}\" is listed twice"),
            EnumNamesMismatch { options, names } => {
                write!(f, "\"enumNames\" has {names} titles for {options} enum values")
            }
            UnknownFormat { found } => {
                write!(f, "unsupported format \"{found}\" (expected email, uri, date or date-time)")
            }
            BoundNotANumber { keyword } => write!(f, "\"{keyword}\" is not a number"),
            BoundNotACount { keyword } => write!(f, "\"{keyword}\" is not a non-negative whole number"),
            MinAboveMax { min_keyword, max_keyword } => {
                write!(f, "\"{min_keyword}\" is greater than \"{max_keyword}\"")
            }
            InvalidDefault { problem } => write!(f, "the default is invalid (problem: {problem})"),
            TooLarge(_) => f.write_str("more options than this client shows"),
        }
    }
}

impl std::error::Error for SchemaError {}

impl std::error::Error for PropertyError {}

/// What is wrong with one answer; typed so a UI can say it in the user's language ([`Problem::code`]).
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
        /// The minimum, as the schema wrote it.
        min: Number,
    },
    /// Above `maximum`.
    AboveMaximum {
        /// The maximum, as the schema wrote it.
        max: Number,
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

impl Problem {
    /// The problem's stable name, in camelCase (`"required"`, `"tooShort"`, `"email"`…): a UI looks its
    /// words up by it (the element's label `problem.<code>`), so a code never changes meaning.
    pub fn code(&self) -> &'static str {
        use Problem::*;
        match self {
            Required => "required",
            TooShort { .. } => "tooShort",
            TooLong { .. } => "tooLong",
            InvalidEmail => "email",
            InvalidUri => "uri",
            InvalidDate => "date",
            InvalidDateTime => "dateTime",
            NotANumber => "number",
            NotAnInteger => "integer",
            BelowMinimum { .. } => "min",
            AboveMaximum { .. } => "max",
            NotABoolean => "boolean",
            NotAnOption { .. } => "option",
            TooFewItems { .. } => "tooFew",
            TooManyItems { .. } => "tooMany",
            DuplicateItem { .. } => "duplicate",
            UnknownField => "unknown",
            WrongType { .. } => "type",
        }
    }

    /// The values a message may name, by placeholder: the bound (`min`, `max`; a number as the schema
    /// wrote it), the offending `value`, or the `expected` JSON type. Empty for the others.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        use Problem::*;
        match self {
            TooShort { min } | TooFewItems { min } => vec![("min", crate::text::unsigned(*min))],
            TooLong { max } | TooManyItems { max } => vec![("max", crate::text::unsigned(*max))],
            BelowMinimum { min } => vec![("min", min.as_str().to_owned())],
            AboveMaximum { max } => vec![("max", max.as_str().to_owned())],
            NotAnOption { value } | DuplicateItem { value } => vec![("value", value.clone())],
            WrongType { expected } => vec![("expected", (*expected).to_owned())],
            Required | InvalidEmail | InvalidUri | InvalidDate | InvalidDateTime | NotANumber | NotAnInteger
            | NotABoolean | UnknownField => Vec::new(),
        }
    }
}

/// The code and its values, for logs and schema errors (`tooShort (min 3)`); not words for the user.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = self.params();
        f.write_str(self.code())?;
        for (i, (name, value)) in params.iter().enumerate() {
            write!(f, "{}{name} {value}", if i == 0 { " (" } else { ", " })?;
        }
        if !params.is_empty() {
            f.write_str(")")?;
        }
        Ok(())
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
