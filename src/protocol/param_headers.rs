//! `x-mcp-header`: tool arguments a server wants mirrored into `Mcp-Param-{Name}` headers on
//! `tools/call`, so gateways can route without reading bodies. The annotations are read from a tool's
//! `inputSchema` (only along `properties` chains); a tool with an invalid annotation must not be used.
use std::fmt;

use crate::json::Value;

use super::headers::encode_header_value;
use super::Object;

/// The JSON type an annotated property declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamKind {
    /// A string, sent as is or in the `=?base64?…?=` form.
    String,
    /// An integer, sent in decimal.
    Integer,
    /// A boolean, sent as `true`/`false`.
    Boolean,
}

/// One annotated property: the header it feeds and where its value sits in the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamBinding {
    /// The name after `Mcp-Param-`, as the schema wrote it.
    pub(crate) header: String,
    /// Property names from the arguments object down to the value.
    pub(crate) path: Vec<String>,
    /// The declared type.
    pub(crate) kind: ParamKind,
}

/// Why a tool's annotations are invalid (the tool is then left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvalidAnnotation {
    /// Not a non-empty HTTP token.
    BadName(String),
    /// The same name twice, ignoring case.
    Duplicate(String),
    /// On a property that is not a string, integer or boolean.
    BadType {
        /// The header name.
        header: String,
        /// The declared type, as written.
        found: String,
    },
}

impl fmt::Display for InvalidAnnotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadName(n) => write!(f, "x-mcp-header \"{n}\" is not a valid HTTP header name"),
            Self::Duplicate(n) => write!(f, "x-mcp-header \"{n}\" is used twice (names are case-insensitive)"),
            Self::BadType { header, found } => {
                write!(
                    f,
                    "x-mcp-header \"{header}\" is on a {found} property; only string, integer and boolean are allowed"
                )
            }
        }
    }
}

impl std::error::Error for InvalidAnnotation {}

fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Every `x-mcp-header` binding of a tool's `inputSchema`.
pub fn bindings(input_schema: &Value) -> Result<Vec<ParamBinding>, InvalidAnnotation> {
    let mut out = Vec::new();
    walk(input_schema, &mut Vec::new(), &mut out)?;
    let mut seen = crate::collections::SortedSet::new();
    for b in &out {
        if !seen.insert(b.header.to_ascii_lowercase()) {
            return Err(InvalidAnnotation::Duplicate(b.header.clone()));
        }
    }
    Ok(out)
}

fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<ParamBinding>) -> Result<(), InvalidAnnotation> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Ok(()) };
    for (name, property) in properties {
        path.push(name.to_owned());
        if let Some(annotation) = property.get("x-mcp-header") {
            let header = annotation.as_str().unwrap_or_default().to_owned();
            if !is_token(&header) {
                return Err(InvalidAnnotation::BadName(crate::json::to_string(annotation)));
            }
            let kind = match property.get("type").and_then(Value::as_str) {
                Some("string") => ParamKind::String,
                Some("integer") => ParamKind::Integer,
                Some("boolean") => ParamKind::Boolean,
                other => {
                    let found = other.map_or_else(|| "untyped".to_owned(), str::to_owned);
                    return Err(InvalidAnnotation::BadType { header, found });
                }
            };
            out.push(ParamBinding { header, path: path.clone(), kind });
        }
        walk(property, path, out)?;
        path.pop();
    }
    Ok(())
}

/// Largest integer a JS number holds exactly.
const MAX_SAFE: i64 = (1 << 53) - 1;

/// The `Mcp-Param-*` headers for `arguments`: absent or null values and values of the wrong type send
/// no header (the server judges the body); an empty string is sent as an empty header.
pub fn headers(bindings: &[ParamBinding], arguments: Option<&Object>) -> Vec<(String, String)> {
    let Some(arguments) = arguments else { return Vec::new() };
    bindings
        .iter()
        .filter_map(|b| {
            let (first, rest) = b.path.split_first()?;
            let value = rest.iter().try_fold(arguments.get(first)?, |v, key| v.get(key))?;
            let text = match (b.kind, value) {
                (ParamKind::String, Value::String(s)) => encode_header_value(s),
                (ParamKind::Integer, Value::Number(n)) => {
                    crate::text::signed(n.as_i64().filter(|i| i.abs() <= MAX_SAFE)?)
                }
                (ParamKind::Boolean, Value::Bool(v)) => (if *v { "true" } else { "false" }).to_owned(),
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", b.header), text))
        })
        .collect()
}
