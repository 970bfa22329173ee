//! Text helpers written for the size of the `.wasm`: the standard library's versions bring generic
//! machinery along (`str::contains` with a text pattern, the two-way substring searcher and a str index
//! panic path; `[String]::join`, a generic copy routine).

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
