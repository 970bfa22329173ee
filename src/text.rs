//! Text helpers written for the size of the `.wasm`: the standard library's versions bring generic
//! machinery along (`str::contains` with a text pattern, the two-way substring searcher and a str index
//! panic path; `[String]::join`, a generic copy routine).

/// `bytes` as text, each invalid sequence replaced by one U+FFFD, as `String::from_utf8_lossy` and
/// the browser's `TextDecoder` do. Built on `str::from_utf8` alone: it reads ASCII a word at a time,
/// where `from_utf8_lossy` goes byte by byte (a 10 KB answer took 4 µs longer to decode in Chromium),
/// and `Utf8Error` says where each invalid sequence starts and how long it is, the same rule
/// `from_utf8_lossy` follows, without its chunk iterator (1 KB of .wasm).
pub(crate) fn lossy_utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let mut rest = match std::str::from_utf8(bytes) {
        Ok(text) => return std::borrow::Cow::Borrowed(text),
        Err(_) => bytes,
    };
    let mut out = String::with_capacity(bytes.len() + 2);
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return std::borrow::Cow::Owned(out);
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{FFFD}');
                // `None`: the bytes end inside a sequence, which is one invalid sequence to the end.
                rest = after.get(e.error_len().unwrap_or(after.len())..).unwrap_or_default();
            }
        }
    }
}

/// Where `needle` first occurs in `haystack`, as a byte offset; a plain byte search.
pub(crate) fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.as_bytes().windows(needle.len()).position(|window| window == needle.as_bytes())
}

/// `text` split at the first `separator` (an ASCII character): the text before it and after it. A
/// byte search: the standard library's `split_once(char)` brings its char searcher and `memchr`.
pub(crate) fn split_once(text: &str, separator: u8) -> Option<(&str, &str)> {
    let at = text.bytes().position(|b| b == separator)?;
    Some((text.get(..at)?, text.get(at + 1..)?))
}

/// The pieces of `text` between each `separator` (an ASCII character), as `str::split` gives them.
pub(crate) fn pieces(text: &str, separator: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        let (piece, after) = split_once(text, separator).map_or((text, None), |(piece, after)| (piece, Some(after)));
        rest = after;
        Some(piece)
    })
}

/// `value`'s `Display` text, as `to_string()` gives it. One copy for every type: `to_string()` brings a
/// copy of itself for each type it is called on (eight of them were 1.1 KB of .wasm). JSON values are
/// written with `json::to_string`, shared keys (`Rc<str>`) copied with `String::from`.
pub(crate) fn display(value: &dyn std::fmt::Display) -> String {
    let mut out = String::new();
    // Writing into a `String` cannot fail.
    let _ = std::fmt::write(&mut out, format_args!("{value}"));
    out
}

/// `n` in decimal. Numbers, keys and messages write `u64`, `i64` and `u16` with these rather than with
/// `{}` or `to_string()`, whose `Display` impls were 1.4 KB of .wasm; `usize` (`u32` on wasm32) keeps
/// `{}`, since core's own panic messages keep its `Display` in the .wasm anyway.
pub(crate) fn unsigned(n: u64) -> String {
    let mut out = String::new();
    push_unsigned(&mut out, n, 1);
    out
}

/// `n` in decimal, a `-` before a negative one.
pub(crate) fn signed(n: i64) -> String {
    let mut out = String::new();
    if n < 0 {
        out.push('-');
    }
    push_unsigned(&mut out, n.unsigned_abs(), 1);
    out
}

/// Appends `n` in decimal, with leading zeros up to `width` digits.
pub(crate) fn push_unsigned(out: &mut String, n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut start = digits.len();
    let mut rest = n;
    loop {
        start -= 1;
        digits[start] = b'0' + u8::try_from(rest % 10).unwrap_or(0);
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for _ in digits.len() - start..width {
        out.push('0');
    }
    out.push_str(std::str::from_utf8(digits.get(start..).unwrap_or_default()).unwrap_or_default());
}

/// `n` as 16 lowercase hexadecimal digits (random ids).
pub(crate) fn hex16(n: u64) -> String {
    (0..16).rev().map(|i| char::from(b"0123456789abcdef"[usize::try_from(n >> (i * 4) & 0xf).unwrap_or(0)])).collect()
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

/// A 64-bit digest of `text` (FNV-1a over its bytes): small code, and no adversary gains by a
/// collision where it is used (a record's stored version, a card already drawn: a chance match only
/// keeps one draw's or one poll's stale copy).
pub(crate) fn digest(text: &str) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for byte in text.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_as_the_standard_library_writes_them() {
        for n in [0, 7, 10, 99, 100, 65_535, 1_000_000_007, i64::MAX as u64, u64::MAX] {
            assert_eq!(unsigned(n), n.to_string());
            let mut padded = String::new();
            push_unsigned(&mut padded, n, 3);
            assert_eq!(padded, format!("{n:03}"));
            assert_eq!(hex16(n), format!("{n:016x}"));
        }
        for n in [0, -1, 42, -42, i64::MIN, i64::MAX] {
            assert_eq!(signed(n), n.to_string());
        }
    }

    #[test]
    fn byte_splits_agree_with_str_splits() {
        for text in ["", "/", "a", "a/b", "/a//b/", "é/ü/😀", "no separator"] {
            assert_eq!(split_once(text, b'/'), text.split_once('/'), "{text:?}");
            assert_eq!(pieces(text, b'/').collect::<Vec<_>>(), text.split('/').collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn lossy_utf8_replaces_each_invalid_sequence_as_the_standard_library_does() {
        let cases: [&[u8]; 9] = [
            b"plain",
            b"",
            b"\xff",
            b"a\xffb\xfe",
            b"\xe2\x82",
            b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98",
            b"\xed\xa0\x80x",
            b"\xf4\x90\x80\x80\xc0\xafend",
            b"\xe2\x28\xa1\xf0\x28\x8c\xbc",
        ];
        for bytes in cases {
            assert_eq!(lossy_utf8(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
        assert!(matches!(lossy_utf8(b"ok"), std::borrow::Cow::Borrowed("ok")));
        // Every short mix of ASCII, lead, continuation and never-valid bytes, from a fixed seed.
        let alphabet = [b'a', 0x80, 0xbf, 0xc2, 0xc0, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f];
        let mut seed = 0x2545_f491_u32;
        for _ in 0..5000 {
            let mut bytes = Vec::new();
            for _ in 0..seed % 9 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                bytes.push(alphabet[seed as usize % alphabet.len()]);
            }
            seed = seed.wrapping_add(1);
            assert_eq!(lossy_utf8(&bytes), String::from_utf8_lossy(&bytes), "{bytes:?}");
        }
    }

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
