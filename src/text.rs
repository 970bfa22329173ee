//! Text helpers written for the size of the `.wasm`: the standard library's versions bring generic
//! machinery along (`str::contains` with a text pattern, the two-way substring searcher and a str index
//! panic path; `[String]::join`, a generic copy routine).

/// `bytes` as text, any invalid UTF-8 replaced by U+FFFD. Checked with `str::from_utf8` first: it
/// reads ASCII a word at a time, where `String::from_utf8_lossy` goes byte by byte (a 10 KB answer
/// took 4 µs longer to decode in Chromium).
pub(crate) fn lossy_utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Where `needle` first occurs in `haystack`, as a byte offset; a plain byte search.
pub(crate) fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.as_bytes().windows(needle.len()).position(|window| window == needle.as_bytes())
}

/// `items` separated by `", "`, for messages.
pub(crate) fn comma_list(items: &[String]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(item);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_agrees_with_str_find() {
        for (haystack, needle) in [("", ""), ("abc", ""), ("a..b", ".."), ("ab", "abc"), ("é://x", "://"), ("xyz", "q")]
        {
            assert_eq!(find(haystack, needle), haystack.find(needle), "{haystack:?} / {needle:?}");
        }
    }

    #[test]
    fn comma_list_joins() {
        assert_eq!(comma_list(&[]), "");
        assert_eq!(comma_list(&["a".into(), "b".into()]), "a, b");
    }
}
