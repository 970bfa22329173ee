//! The key range that holds exactly the string keys starting with a prefix.
//!
//! IndexedDB orders string keys by UTF-16 code units. The usual `[prefix, prefix + "\u{ffff}"]`
//! range misses keys that continue past a U+FFFF after the prefix; instead the upper bound here is
//! the first string after every extension of the prefix — the prefix with its last code unit that
//! is not 0xFFFF incremented and the rest cut off — excluded. That string may be a lone surrogate,
//! which a Rust `&str` cannot hold, so it is built from code units as a JS string.

use js_sys::{ArrayBuffer, JsString};
use wasm_bindgen::JsValue;
use web_sys::IdbKeyRange;

/// The UTF-16 code units of the smallest string greater than every string starting with
/// `prefix`, or `None` when no string is (the prefix is empty or all 0xFFFF units).
pub(super) fn successor_of_every_extension(prefix: &str) -> Option<Vec<u16>> {
    let mut units: Vec<u16> = prefix.encode_utf16().collect();
    while let Some(last) = units.pop() {
        if last != u16::MAX {
            units.push(last + 1);
            return Some(units);
        }
    }
    None
}

/// `prefix` (included; or, for the next page of a listing, just after the key `after`) up to the end
/// of its extensions (excluded). With no string successor the range ends before the empty binary key,
/// which sorts after every string (IndexedDB orders number < date < string < binary < array), so
/// non-string keys are never included either.
pub(super) fn range_after(prefix: &str, after: Option<&str>) -> Result<IdbKeyRange, JsValue> {
    let upper: JsValue = match successor_of_every_extension(prefix) {
        Some(units) => JsString::from_char_code(&units).into(),
        None => ArrayBuffer::new(0).into(),
    };
    let lower = JsValue::from_str(after.unwrap_or(prefix));
    IdbKeyRange::bound_with_lower_open_and_upper_open(&lower, &upper, after.is_some(), true)
}

#[cfg(test)]
mod tests {
    use super::successor_of_every_extension as successor;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn increments_the_last_unit() {
        assert_eq!(successor("task:"), Some(units("task;")));
        assert_eq!(successor("a"), Some(units("b")));
    }

    #[test]
    fn carries_past_trailing_ffff_units() {
        assert_eq!(successor("a\u{ffff}\u{ffff}"), Some(units("b")));
        assert_eq!(successor("\u{ffff}"), None);
        assert_eq!(successor(""), None);
    }

    #[test]
    fn may_produce_a_lone_surrogate() {
        // U+10000 is D800 DC00 in UTF-16; its successor ends in DC01 and is still a valid bound.
        assert_eq!(successor("\u{10000}"), Some(vec![0xD800, 0xDC01]));
        // U+D7FF + 1 = D800, a lone high surrogate: representable only as UTF-16 units.
        assert_eq!(successor("\u{d7ff}"), Some(vec![0xD800]));
    }

    #[test]
    fn every_extension_sorts_below_the_successor_in_utf16_order() {
        let prefix = "k\u{e000}";
        let end = successor(prefix).unwrap();
        for tail in ["", "\u{ffff}", "\u{ffff}z", "\u{10ffff}", "zzz"] {
            let key = units(&format!("{prefix}{tail}"));
            assert!(key < end, "{tail:?}");
        }
        assert!(units("k\u{e001}") >= end);
    }
}
