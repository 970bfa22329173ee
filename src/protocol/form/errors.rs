//! Error types of the form model: why a schema is unusable ([`SchemaError`]) and what is
//! wrong with an answer ([`Problem`], [`FieldError`]), each with an English `Display`.

use std::fmt;

use crate::json::display_f64;

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
                "property `{property}`: unsupported type \"{found}\" (expected string, number, integer, boolean or array)"
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
                write!(f, "property `{property}`: option \"{value}\" is listed twice")
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
                "property `{property}`: unsupported format \"{found}\" (expected email, uri, date or date-time)"
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
            TooShort { min } => write!(f, "Enter at least {min} {}.", plural(*min, "character", "characters")),
            TooLong { max } => write!(f, "Enter at most {max} {}.", plural(*max, "character", "characters")),
            InvalidEmail => write!(f, "Enter an email address like name@example.com."),
            InvalidUri => write!(f, "Enter a full address including its scheme, like https://example.com."),
            InvalidDate => write!(f, "Enter a real date as YYYY-MM-DD, like 2024-02-29."),
            InvalidDateTime => {
                write!(f, "Enter a date and time like 2024-02-29T13:45:00Z or 2024-02-29T20:45:00+07:00.")
            }
            NotANumber => write!(f, "Enter a number."),
            NotAnInteger => write!(f, "Enter a whole number, without decimals."),
            BelowMinimum { min } => write!(f, "Enter {} or more.", display_f64(*min)),
            AboveMaximum { max } => write!(f, "Enter {} or less.", display_f64(*max)),
            NotABoolean => write!(f, "Choose yes or no."),
            NotAnOption { value } => {
                write!(f, "\"{value}\" is not one of the choices; pick one from the list.")
            }
            TooFewItems { min } => write!(f, "Choose at least {min} {}.", plural(*min, "option", "options")),
            TooManyItems { max } => write!(f, "Choose at most {max} {}.", plural(*max, "option", "options")),
            DuplicateItem { value } => write!(f, "Choose \"{value}\" only once."),
            UnknownField => write!(f, "This answer is not part of the form; remove it."),
            WrongType { expected } => {
                write!(f, "This answer has the wrong type; it must be a {expected}.")
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
