//! Writing values as JSON text: compact for the wire, indented for people.
use super::Value;

/// Compact JSON (no spaces), as sent on the wire and stored.
pub fn to_string(value: &Value) -> String {
    let mut out = String::with_capacity(compact_len(value));
    write_compact(&mut out, value);
    out
}

/// About how long `value`'s compact text is (escapes aside): its raw parts', strings' and numbers'
/// lengths and the punctuation. Writing into a buffer of that size spares a growing one's doublings,
/// each a copy with the old buffer still held, in wasm memory that never shrinks: a page of
/// `tasks()`, or a large result, is written once at its size.
fn compact_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(n) => n.as_str().len(),
        Value::String(s) => s.len() + 2,
        Value::Raw(raw) => raw.as_str().len(),
        Value::Array(items) => items.iter().map(|item| compact_len(item) + 1).sum::<usize>() + 2,
        Value::Object(map) => map.iter().map(|(key, item)| key.len() + 4 + compact_len(item)).sum::<usize>() + 2,
    }
}

/// Compact JSON appended to `out`: [`to_string`] into a buffer the caller keeps.
pub(super) fn write_compact(out: &mut String, value: &Value) {
    write(out, value, Style { indent: None }, 0);
}

/// JSON indented by two spaces, for showing a result to a person.
pub fn to_string_pretty(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value, Style { indent: Some(2) }, 0);
    out
}

#[derive(Clone, Copy)]
struct Style {
    indent: Option<usize>,
}

fn newline(out: &mut String, indent: Option<usize>, level: usize) {
    if let Some(step) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', step * level));
    }
}

fn write(out: &mut String, value: &Value, style: Style, level: usize) {
    let indent = style.indent;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(n.as_str()),
        Value::String(s) => write_string(out, s),
        Value::Raw(raw) if indent.is_none() => out.push_str(raw.as_str()),
        Value::Raw(raw) => write(out, &raw.parse(), style, level),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, level + 1);
                write(out, item, style, level + 1);
            }
            newline(out, indent, level);
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, level + 1);
                write_string(out, key);
                out.push_str(if indent.is_some() { ": " } else { ":" });
                write(out, item, style, level + 1);
            }
            newline(out, indent, level);
            out.push('}');
        }
    }
}

/// A JSON string literal: quotes, backslashes and control characters escaped, the rest as is.
/// Also how store error messages quote keys (no `{:?}`: that pulls in core's Unicode tables).
pub(crate) fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut run = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escaped = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        // `get`, not `&s[..]` (here and wherever a str is sliced): a str index's panic message
        // pulls core's char escaping and Unicode tables (~4 KB gzip) into the .wasm.
        out.push_str(s.get(run..i).unwrap_or_default());
        if escaped.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escaped);
        }
        run = i + 1;
    }
    out.push_str(s.get(run..).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::from_str;
    use super::*;

    #[test]
    fn compact_output_round_trips_byte_for_byte() {
        let text = r#"{"b":[1,-2.50e3,true,null],"a":"q\"\\\n\u0001é😀","c":{},"d":[]}"#;
        assert_eq!(to_string(&from_str(text).unwrap()), text);
    }

    #[test]
    fn pretty_output_indents_by_two() {
        let v = from_str(r#"{"a":[1,{"b":null}],"c":{}}"#).unwrap();
        assert_eq!(
            to_string_pretty(&v),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {}\n}"
        );
    }
}
