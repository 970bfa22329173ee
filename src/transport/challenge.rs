//! A `WWW-Authenticate` header read for what a host's sign-in needs (RFC 9110 §11.6.1 and RFC 6750
//! §3): the parameters of its `Bearer` challenge. One pass over at most [`MAX_HEADER_BYTES`], tolerant
//! of what it does not know: other schemes, `token68` forms, stray separators, an unclosed quote.
use crate::json::{Map, Value};

/// The most of a header that is read; a longer one is read up to there.
pub(crate) const MAX_HEADER_BYTES: usize = 8_192;

/// The `Bearer` parameters read, each with the `auth` event's field for it.
const PARAMS: [(&str, &str); 4] = [
    ("error", "error"),
    ("error_description", "description"),
    ("scope", "scope"),
    ("resource_metadata", "resourceMetadata"),
];

/// A byte of a token: read loosely (RFC 9110's `tchar`, and what a broken server may put there), up
/// to a separator of the challenge's syntax.
fn is_tchar(b: u8) -> bool {
    b > b' ' && !matches!(b, b',' | b'=' | b'"')
}

/// Reads the `Bearer` challenge of `header` (the first, when there are several): `error`,
/// `description` (`error_description`), `scope` and `resourceMetadata` (`resource_metadata`), each
/// `null` when the challenge has none.
pub fn parse_challenge(header: &str) -> Map {
    let bytes = &header.as_bytes()[..header.len().min(MAX_HEADER_BYTES)];
    let mut out = Map::new();
    for (_, field) in PARAMS {
        out.put(field, Value::Null);
    }
    let mut i = 0;
    // Whether the params being read belong to the first Bearer challenge; `seen` once one began.
    let (mut bearer, mut seen) = (false, false);
    while i < bytes.len() {
        if matches!(bytes[i], b' ' | b'\t' | b',') {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_tchar(bytes[i]) {
            i += 1;
        }
        if i == start {
            // Not a token (a stray `=`, `"` or byte): skipped.
            i += 1;
            continue;
        }
        let name = &bytes[start..i];
        let mut j = i;
        while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
            j += 1;
        }
        if j >= bytes.len() || bytes[j] != b'=' {
            // A scheme: the params after it are its own.
            bearer = !seen && name.eq_ignore_ascii_case(b"bearer");
            seen |= bearer;
            continue;
        }
        // `name = value`: a token or a quoted string with `\` escapes.
        i = j + 1;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let mut value = Vec::new();
        if i < bytes.len() && bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' && i + 1 < bytes.len() {
                    i += 1;
                }
                value.push(bytes[i]);
                i += 1;
            }
            i += 1;
        } else {
            while i < bytes.len() && (is_tchar(bytes[i]) || bytes[i] == b'=') {
                value.push(bytes[i]);
                i += 1;
            }
        }
        if !bearer {
            continue;
        }
        for (param, field) in PARAMS {
            if name.eq_ignore_ascii_case(param.as_bytes()) && out.get(field).is_some_and(Value::is_null) {
                out.put(field, Value::from(crate::text::lossy_utf8(&value).into_owned()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{parse_challenge, MAX_HEADER_BYTES};
    use crate::json::{json, Value};

    fn field(header: &str, name: &str) -> Value {
        parse_challenge(header).get(name).cloned().unwrap()
    }

    #[test]
    fn a_bearer_challenge_gives_its_parameters() {
        let header = r#"Bearer error="invalid_token", error_description="Token has expired", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", scope="read write""#;
        assert_eq!(
            Value::Object(parse_challenge(header)),
            json!({
                "error": "invalid_token",
                "description": "Token has expired",
                "scope": "read write",
                "resourceMetadata": "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
            })
        );
    }

    #[test]
    fn escapes_tokens_case_and_spaces_are_read() {
        let header = r#"bEaReR   ERROR = insufficient_scope ,error_description="say \"hi\" \\ now""#;
        assert_eq!(field(header, "error"), json!("insufficient_scope"));
        assert_eq!(field(header, "description"), json!(r#"say "hi" \ now"#));
    }

    #[test]
    fn only_the_first_bearer_challenge_is_read_among_others() {
        let header =
            r#"Basic realm="x", DPoP error="use_dpop_nonce", Bearer scope="a", Basic dXNlcjpwYXNz==, Bearer scope="b""#;
        assert_eq!(field(header, "scope"), json!("a"));
        assert_eq!(field(header, "error"), Value::Null, "the DPoP challenge's error is not the Bearer one's");
    }

    #[test]
    fn broken_and_foreign_headers_give_nothing_and_never_panic() {
        for header in
            ["", "Basic", "Basic realm=\"x\"", "=\"\",,,", "Bearer error=\"unclosed", "\"", "Bearer ===", "Bearer x=\\"]
        {
            let c = parse_challenge(header);
            assert!(
                c.get("scope").is_some_and(Value::is_null) && c.get("resourceMetadata").is_some_and(Value::is_null),
                "{header}"
            );
        }
        assert_eq!(field("Bearer error=\"unclosed", "error"), json!("unclosed"));
        assert_eq!(field("Bearer realm=\"é\", error=x", "error"), json!("x"));
    }

    #[test]
    fn a_huge_header_is_read_up_to_the_limit_in_one_pass() {
        let mut header = String::from("Bearer ");
        header.push_str(&"a=b, ".repeat(MAX_HEADER_BYTES));
        header.push_str("error=late");
        assert_eq!(field(&header, "error"), Value::Null);
        let header = format!("Bearer error=\"{}\"", "x".repeat(3 * MAX_HEADER_BYTES));
        assert!(field(&header, "error").as_str().is_some_and(|e| e.len() < MAX_HEADER_BYTES));
    }
}
