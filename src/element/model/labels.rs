//! Every word the element shows, by key, in the shipped languages (English, Thai), with host overrides.
//!
//! Pure data and lookup: no DOM. The element picks a language from the nearest `lang` attribute, then
//! `navigator.language`; a host may add languages or override single words (see `docs/element.md`).
use crate::collections::SortedMap;

use crate::json::Value;
use crate::notice::status_words::{CANCELLED, COMPLETED, EXPIRED, FAILED, INPUT_REQUIRED, WORKING};

/// `(key, English, Thai)` for every built-in word. `{name}` marks a placeholder filled by [`fill`].
/// Two families are keyed by a name the rest of the crate owns: `status.<name>` for every
/// [`crate::snapshot::SnapshotStatus`] name (and `status.unknown`), `problem.<code>` for every
/// [`crate::protocol::form::Problem::code`]; tests check both.
pub const LABELS: &[(&str, &str, &str)] = &[
    ("status.working", WORKING.0, WORKING.1),
    ("status.input_required", INPUT_REQUIRED.0, INPUT_REQUIRED.1),
    ("status.completed", COMPLETED.0, COMPLETED.1),
    ("status.failed", FAILED.0, FAILED.1),
    ("status.cancelled", CANCELLED.0, CANCELLED.1),
    ("status.expired", EXPIRED.0, EXPIRED.1),
    ("status.outcome_unknown", "Outcome unknown", "ไม่ทราบผล"),
    ("status.unknown", "Unknown state", "ไม่ทราบสถานะ"),
    ("conn.offline", "Offline — resumes when you are back online", "ออฟไลน์ — จะทำต่อเมื่อกลับมาออนไลน์"),
    ("conn.backoff", "Connection trouble — retrying", "การเชื่อมต่อมีปัญหา — กำลังลองใหม่"),
    ("conn.signin", "Sign-in needed — resumes once you sign in", "ต้องลงชื่อเข้าใช้ — จะทำต่อเมื่อลงชื่อเข้าใช้"),
    ("conn.listening", "Live updates", "อัปเดตสด"),
    ("conn.restored", "Resumed after reload", "ทำต่อหลังโหลดหน้าใหม่"),
    ("elapsed.running", "Running for {time}", "ทำงานมาแล้ว {time}"),
    ("elapsed.took", "Took {time}", "ใช้เวลา {time}"),
    ("progress.label", "Task in progress", "งานกำลังดำเนินอยู่"),
    ("action.accept", "Accept", "ยอมรับ"),
    ("action.decline", "Decline", "ปฏิเสธ"),
    ("action.cancel", "Cancel", "ยกเลิก"),
    ("action.cancelTask", "Cancel task", "ยกเลิกงาน"),
    ("action.open", "Open {domain}", "เปิด {domain}"),
    ("action.forget", "Forget", "ลบออก"),
    (
        "cancel.hint",
        "Cancelling asks the server to stop; the task may still finish.",
        "การยกเลิกเป็นเพียงคำขอไปยังเซิร์ฟเวอร์ งานอาจยังทำเสร็จได้",
    ),
    ("cancel.requested", "Cancel requested — waiting for the server", "ส่งคำขอยกเลิกแล้ว — รอเซิร์ฟเวอร์ตอบ"),
    ("form.askedBy", "Asked by {server}", "คำถามจาก {server}"),
    ("form.required", "required", "จำเป็น"),
    ("form.choose", "Choose…", "เลือก…"),
    ("form.sending", "Sending…", "กำลังส่ง…"),
    ("form.handled", "Handed to the app", "ส่งต่อให้แอปแล้ว"),
    ("form.sendFailed", "Could not send the answer: {error}", "ส่งคำตอบไม่สำเร็จ: {error}"),
    ("form.invalidSchema", "This form cannot be shown: {error}", "ไม่สามารถแสดงแบบฟอร์มนี้ได้: {error}"),
    ("form.fixErrors", "Please correct the marked fields.", "กรุณาแก้ไขช่องที่ทำเครื่องหมายไว้"),
    ("url.intro", "The task asks you to open this page:", "งานนี้ขอให้คุณเปิดหน้านี้:"),
    ("url.site", "Site", "เว็บไซต์"),
    (
        "url.mixedScripts",
        "This site name mixes alphabets, as look-alike sites do.",
        "ชื่อเว็บไซต์นี้ผสมตัวอักษรหลายภาษา แบบที่เว็บไซต์ปลอมใช้",
    ),
    (
        "url.punycode",
        "This address uses an encoded (punycode) domain that can imitate another site. Check it carefully.",
        "ที่อยู่นี้ใช้โดเมนแบบเข้ารหัส (punycode) ซึ่งอาจเลียนแบบเว็บไซต์อื่น โปรดตรวจสอบให้ดี",
    ),
    (
        "url.userinfo",
        "This address hides a user name before the site, a common trick. It cannot be opened from here.",
        "ที่อยู่นี้ซ่อนชื่อผู้ใช้ไว้หน้าชื่อเว็บไซต์ ซึ่งเป็นกลลวงที่พบบ่อย จึงเปิดจากที่นี่ไม่ได้",
    ),
    (
        "url.local",
        "This link leads to a device on your network.",
        "ลิงก์นี้นำไปยังอุปกรณ์ในเครือข่ายของคุณ",
    ),
    (
        "url.refused",
        "This address cannot be opened from here: only https, or http when both it and the server are on this computer.",
        "ไม่สามารถเปิดที่อยู่นี้จากที่นี่ได้ อนุญาตเฉพาะ https หรือ http เมื่อทั้งที่อยู่นี้และเซิร์ฟเวอร์อยู่ในเครื่องนี้",
    ),
    (
        "url.blocked",
        "The browser blocked the new tab; nothing was sent. Allow pop-ups here and press Open again.",
        "เบราว์เซอร์บล็อกแท็บใหม่ จึงยังไม่ได้ส่งคำตอบ โปรดอนุญาตป๊อปอัปแล้วกดเปิดอีกครั้ง",
    ),
    (
        "url.opened",
        "Opened in a new tab. The task continues when you are done there.",
        "เปิดในแท็บใหม่แล้ว งานจะดำเนินต่อเมื่อคุณทำเสร็จที่นั่น",
    ),
    (
        "note.sampling",
        "This task asks for a model completion (sampling). This view does not run it; the app may answer it.",
        "งานนี้ขอให้สร้างข้อความด้วยโมเดล (sampling) มุมมองนี้จะไม่ดำเนินการ แอปอาจตอบแทนได้",
    ),
    (
        "note.roots",
        "This task asks for your file roots. This view does not share them; the app may answer it.",
        "งานนี้ขอรายการโฟลเดอร์หลักของคุณ มุมมองนี้จะไม่เปิดเผย แอปอาจตอบแทนได้",
    ),
    (
        "note.other",
        "This task asks for “{method}”, which this view does not handle.",
        "งานนี้ขอ “{method}” ซึ่งมุมมองนี้ไม่รองรับ",
    ),
    ("result.json", "Full result (JSON)", "ผลลัพธ์ทั้งหมด (JSON)"),
    ("result.isError", "The tool reported an error", "เครื่องมือรายงานข้อผิดพลาด"),
    ("result.image", "Image ({mime})", "รูปภาพ ({mime})"),
    ("result.audio", "Audio ({mime})", "เสียง ({mime})"),
    ("result.download", "Download {name} ({mime})", "ดาวน์โหลด {name} ({mime})"),
    ("result.badType", "Not shown: the type “{mime}” is not allowed", "ไม่แสดง: ไม่อนุญาตประเภท “{mime}”"),
    ("result.tooBig", "Not shown: {mime} larger than 4 MB", "ไม่แสดง: {mime} ใหญ่กว่า 4 MB"),
    ("result.badData", "Not shown: {mime} data that is not base64", "ไม่แสดง: ข้อมูล {mime} ไม่ใช่ base64"),
    ("result.resource", "Resource: {uri}", "ทรัพยากร: {uri}"),
    ("result.other", "Content of type “{type}”", "เนื้อหาประเภท “{type}”"),
    ("result.empty", "No content", "ไม่มีเนื้อหา"),
    ("error.failed", "The task failed: {message}", "งานล้มเหลว: {message}"),
    ("error.code", "Error code {code}", "รหัสข้อผิดพลาด {code}"),
    (
        "error.expiredTtl",
        "This task expired: the server keeps a task only for a limited time.",
        "งานนี้หมดอายุแล้ว เซิร์ฟเวอร์เก็บงานไว้ได้ในเวลาจำกัด",
    ),
    ("error.expiredUnknown", "The server no longer knows this task.", "เซิร์ฟเวอร์ไม่รู้จักงานนี้แล้ว"),
    ("error.cancelled", "The task was cancelled.", "งานถูกยกเลิกแล้ว"),
    ("error.unknownTask", "This client has no task {id}.", "ไคลเอนต์นี้ไม่มีงาน {id}"),
    ("error.action", "Could not do that: {error}", "ทำรายการไม่สำเร็จ: {error}"),
    ("task.noClient", "Waiting for a client…", "กำลังรอไคลเอนต์…"),
    ("list.label", "Tasks", "งาน"),
    ("list.empty", "No tasks yet.", "ยังไม่มีงาน"),
    ("problem.required", "This field is required.", "กรุณากรอกช่องนี้"),
    ("problem.tooShort", "Enter at least {min} characters.", "กรอกอย่างน้อย {min} ตัวอักษร"),
    ("problem.tooLong", "Enter at most {max} characters.", "กรอกได้ไม่เกิน {max} ตัวอักษร"),
    ("problem.email", "Enter an email address like name@example.com.", "กรอกอีเมล เช่น name@example.com"),
    ("problem.uri", "Enter a full address like https://example.com.", "กรอกที่อยู่เต็ม เช่น https://example.com"),
    ("problem.date", "Enter a real date.", "กรอกวันที่ที่มีอยู่จริง"),
    ("problem.dateTime", "Enter a date and time like 2026-02-28T13:45:00Z.", "กรอกวันที่และเวลา เช่น 2026-02-28T13:45:00Z"),
    ("problem.number", "Enter a number.", "กรอกตัวเลข"),
    ("problem.integer", "Enter a whole number.", "กรอกจำนวนเต็ม"),
    ("problem.min", "Enter {min} or more.", "กรอกตั้งแต่ {min} ขึ้นไป"),
    ("problem.max", "Enter {max} or less.", "กรอกไม่เกิน {max}"),
    ("problem.boolean", "Choose yes or no.", "เลือกใช่หรือไม่"),
    ("problem.option", "Pick one of the choices.", "เลือกจากตัวเลือกที่มี"),
    ("problem.tooFew", "Choose at least {min}.", "เลือกอย่างน้อย {min} รายการ"),
    ("problem.tooMany", "Choose at most {max}.", "เลือกได้ไม่เกิน {max} รายการ"),
    ("problem.duplicate", "Choose each option once.", "เลือกแต่ละตัวเลือกเพียงครั้งเดียว"),
    ("problem.unknown", "This answer is not part of the form.", "คำตอบนี้ไม่ได้อยู่ในแบบฟอร์ม"),
    ("problem.type", "This answer has the wrong type.", "คำตอบนี้มีชนิดข้อมูลไม่ถูกต้อง"),
];

/// The languages that ship, in the column order of [`LABELS`].
pub const SHIPPED: [&str; 2] = ["en", "th"];

/// Keys and English words of [`LABELS`] as one text, `key\0word\0` for each row in order: what the
/// module keeps of the table at run time besides [`THAI_PACKED`] (one text, not a table of string
/// pointers, which compress poorly).
const ENGLISH: &str = match std::str::from_utf8(&ENGLISH_BYTES) {
    Ok(text) => text,
    Err(_) => panic!("the English words are UTF-8"),
};

const ENGLISH_BYTES: [u8; english_len()] = {
    let mut out = [0u8; english_len()];
    let mut at = 0;
    let mut row = 0;
    while row < LABELS.len() {
        let mut column = 0;
        while column < 2 {
            let b = if column == 0 { LABELS[row].0.as_bytes() } else { LABELS[row].1.as_bytes() };
            let mut i = 0;
            while i < b.len() {
                out[at] = b[i];
                at += 1;
                i += 1;
            }
            out[at] = END;
            at += 1;
            column += 1;
        }
        row += 1;
    }
    out
};

/// The length of [`ENGLISH`].
const fn english_len() -> usize {
    let mut len = 0;
    let mut row = 0;
    while row < LABELS.len() {
        len += LABELS[row].0.len() + LABELS[row].1.len() + 2;
        row += 1;
    }
    len
}

/// `(key, English word)` for every row of [`LABELS`], in order, read from [`ENGLISH`].
fn english_rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut parts = ENGLISH.split('\0');
    std::iter::from_fn(move || Some((parts.next()?, parts.next()?)))
}

/// A packed byte that stands for the Thai letter `U+0E00 + (byte - THAI_BASE)`.
const THAI_BASE: u8 = 0x80;
/// A packed byte followed by one non-ASCII, non-Thai character as UTF-8 (`—`, `…`, quotes).
const ESCAPE: u8 = 0x01;
/// Ends each word in [`THAI_PACKED`].
const END: u8 = 0x00;

/// The Thai column of [`LABELS`] in key order, packed at compile time: one byte per Thai letter
/// instead of three in UTF-8, which makes the card host's module smaller (see [`thai_words`]).
const THAI_PACKED: [u8; packed_len()] = pack();

/// The UTF-8 length of a character whose first byte is `lead`.
const fn utf8_len(lead: u8) -> usize {
    if lead < 0x80 {
        1
    } else if lead >= 0xF0 {
        4
    } else if lead >= 0xE0 {
        3
    } else {
        2
    }
}

/// `Some(offset)` when the UTF-8 character at `i` of `b` is a Thai letter `U+0E00 + offset`.
const fn thai_offset(b: &[u8], i: usize) -> Option<u8> {
    if b[i] == 0xE0 && (b[i + 1] == 0xB8 || b[i + 1] == 0xB9) {
        Some((b[i + 1] - 0xB8) * 64 + (b[i + 2] - 0x80))
    } else {
        None
    }
}

/// The length of [`THAI_PACKED`].
const fn packed_len() -> usize {
    let mut len = 0;
    let mut row = 0;
    while row < LABELS.len() {
        let b = LABELS[row].2.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let n = utf8_len(b[i]);
            len += match (n, thai_offset(b, i)) {
                (1, _) | (_, Some(_)) => 1,
                _ => 1 + n,
            };
            i += n;
        }
        len += 1;
        row += 1;
    }
    len
}

/// Packs the Thai column: a Thai letter as `THAI_BASE + offset`, ASCII as itself, anything else as
/// [`ESCAPE`] and its UTF-8 bytes; each word ends with [`END`].
const fn pack() -> [u8; packed_len()] {
    let mut out = [0u8; packed_len()];
    let mut at = 0;
    let mut row = 0;
    while row < LABELS.len() {
        let b = LABELS[row].2.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let n = utf8_len(b[i]);
            if let Some(offset) = thai_offset(b, i) {
                out[at] = THAI_BASE + offset;
                at += 1;
            } else if n == 1 {
                out[at] = b[i];
                at += 1;
            } else {
                out[at] = ESCAPE;
                at += 1;
                let mut k = 0;
                while k < n {
                    out[at] = b[i + k];
                    at += 1;
                    k += 1;
                }
            }
            i += n;
        }
        out[at] = END;
        at += 1;
        row += 1;
    }
    out
}

/// The Thai words of [`LABELS`] by key, unpacked from [`THAI_PACKED`].
fn thai_words() -> SortedMap<String, String> {
    let mut words = SortedMap::new();
    let mut packed = THAI_PACKED.as_slice();
    for (key, _) in english_rows() {
        let mut word = String::new();
        while let [b, rest @ ..] = packed {
            packed = rest;
            match *b {
                END => break,
                ESCAPE => {
                    let n = rest.first().map_or(1, |lead| utf8_len(*lead));
                    word.push_str(std::str::from_utf8(rest.get(..n).unwrap_or_default()).unwrap_or_default());
                    packed = rest.get(n..).unwrap_or_default();
                }
                b if b >= THAI_BASE => word.extend(char::from_u32(0xE00 + u32::from(b - THAI_BASE))),
                b => word.push(char::from(b)),
            }
        }
        words.insert(key.to_owned(), word);
    }
    words
}

/// The words for one element: a shipped language plus host overrides, looked up by key.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    lang: String,
    /// The shipped words of a language other than English, then the host's overrides on top.
    overrides: SortedMap<String, String>,
}

impl Labels {
    /// The labels of a words table the element holds (what [`Labels::table`] gave it, with the host's
    /// overrides): every key as given, the shipped English for any it lacks.
    pub fn of_table(words: &Value) -> Labels {
        Labels::resolve("", &[words])
    }

    /// [`Labels::resolve`] with the overrides as the element passes them: `layers`, an array of
    /// `[shared, own]` (anything else adds none).
    pub fn layered(lang: &str, layers: &Value) -> Labels {
        let mut refs = Vec::new();
        for layer in layers.as_array().map(Vec::as_slice).unwrap_or_default() {
            refs.push(layer);
        }
        Labels::resolve(lang, &refs)
    }

    /// The label set for `lang` (a BCP 47 tag such as `th-TH`; matched on its primary subtag),
    /// with `overrides` layered on in order: each a `{ key: word }` object, later ones win, and
    /// each may instead be a `{ lang: { key: word } }` map from which the matching language is taken.
    pub fn resolve(lang: &str, overrides: &[&Value]) -> Labels {
        let lang = primary_subtag(lang);
        let mut words = if lang == SHIPPED[1] { thai_words() } else { SortedMap::new() };
        for layer in overrides {
            let Some(obj) = layer.as_object() else { continue };
            let by_lang = obj.get(&lang).and_then(Value::as_object);
            for (key, word) in by_lang.unwrap_or(obj) {
                if let Some(word) = word.as_str() {
                    words.insert(key.to_owned(), word.to_owned());
                }
            }
        }
        Labels { lang, overrides: words }
    }

    /// The primary language subtag these labels were resolved for (`"th"`).
    pub fn lang(&self) -> &str {
        &self.lang
    }

    /// The word for `key`; the key itself when nothing defines it (a visible, harmless fallback).
    pub fn get<'a>(&'a self, key: &'a str) -> &'a str {
        if let Some(word) = self.overrides.get(key) {
            return word;
        }
        english_rows().find(|(k, _)| *k == key).map_or(key, |(_, en)| en)
    }

    /// The word for `key` with its `{name}` placeholders filled from `values`.
    pub fn fill(&self, key: &str, values: &[(&str, &str)]) -> String {
        fill(self.get(key), values)
    }

    /// Every built-in word by key, as one `{ key: word }` object: the words the DOM half
    /// (`pkg/element.js`) shows, which it also hands back to the other exports as their labels
    /// ([`Labels::resolve`] with this table as the only layer gives these same words).
    pub fn table(&self) -> Value {
        let mut words = crate::json::Map::new();
        for (key, _) in english_rows() {
            words.insert(key.to_owned(), Value::String(self.get(key).to_owned()));
        }
        Value::Object(words)
    }
}

/// Replaces each `{name}` in `template` with its value; unknown placeholders stay as written.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = crate::text::find(rest, "{") {
        out.push_str(rest.get(..open).unwrap_or_default());
        let after = rest.get(open + 1..).unwrap_or_default();
        match crate::text::find(after, "}").map(|close| (after.get(..close).unwrap_or_default(), close)) {
            Some((name, close)) if values.iter().any(|(n, _)| *n == name) => {
                let value = values.iter().find(|(n, _)| *n == name).map_or("", |(_, v)| *v);
                out.push_str(value);
                rest = after.get(close + 1..).unwrap_or_default();
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `"th-TH"` → `"th"`, lower-cased; empty input → `"en"`.
fn primary_subtag(lang: &str) -> String {
    // By byte and ASCII whitespace (language tags are ASCII): `split(['-', '_'])` and `trim()` bring the
    // standard library's char searchers and Unicode whitespace table.
    let end = lang.bytes().position(|b| b == b'-' || b == b'_').unwrap_or(lang.len());
    let primary = lang.get(..end).unwrap_or_default().trim_ascii().to_ascii_lowercase();
    if primary.is_empty() {
        "en".to_owned()
    } else {
        primary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    #[test]
    fn the_primary_subtag_is_the_lower_cased_text_before_a_dash_or_underscore() {
        for (lang, primary) in
            [("th-TH", "th"), ("EN_gb", "en"), (" de ", "de"), ("fr", "fr"), ("", "en"), ("-x", "en")]
        {
            assert_eq!(primary_subtag(lang), primary, "{lang:?}");
        }
    }

    #[test]
    fn picks_the_language_by_primary_subtag_and_falls_back_to_english() {
        assert_eq!(Labels::resolve("th-TH", &[]).get("action.accept"), "ยอมรับ");
        assert_eq!(Labels::resolve("TH", &[]).get("status.working"), "กำลังทำงาน");
        assert_eq!(Labels::resolve("fr-CA", &[]).get("action.accept"), "Accept");
        assert_eq!(Labels::resolve("", &[]).lang(), "en");
    }

    #[test]
    fn every_key_has_words_in_every_shipped_language_and_keys_are_unique() {
        for (i, (key, en, th)) in LABELS.iter().enumerate() {
            assert!(!en.is_empty() && !th.is_empty(), "{key}");
            assert!(LABELS[i + 1..].iter().all(|(k, ..)| k != key), "duplicate {key}");
            let holes = |s: &str| s.matches('{').count();
            assert_eq!(holes(en), holes(th), "{key}: placeholders differ");
        }
    }

    #[test]
    fn the_packed_columns_unpack_to_every_word_as_written() {
        let th = Labels::resolve("th", &[]);
        for (key, _, word) in LABELS {
            assert_eq!(th.get(key), *word, "{key}");
        }
        let en = Labels::resolve("en", &[]);
        assert!(LABELS.iter().all(|(key, word, _)| en.get(key) == *word));
        assert_eq!(english_rows().count(), LABELS.len());
        assert!(THAI_PACKED.len() < LABELS.iter().map(|(.., th)| th.len()).sum::<usize>() / 2);
    }

    #[test]
    fn overrides_win_in_order_and_may_be_keyed_by_language() {
        let global = json!({ "fr": { "action.accept": "Accepter" }, "th": { "action.accept": "ตกลง" } });
        let local = json!({ "action.decline": "Non merci" });
        let fr = Labels::resolve("fr", &[&global, &local]);
        assert_eq!(fr.get("action.accept"), "Accepter");
        assert_eq!(fr.get("action.decline"), "Non merci");
        assert_eq!(fr.get("action.cancel"), "Cancel");
        assert_eq!(Labels::resolve("th", &[&global]).get("action.accept"), "ตกลง");
        assert_eq!(Labels::resolve("en", &[&json!({ "x": 3 })]).get("x"), "x");
    }

    #[test]
    fn the_table_holds_every_word_and_resolves_to_the_same_labels() {
        let global = json!({ "th": { "action.accept": "ตกลง" } });
        let th = Labels::resolve("th-TH", &[&global]);
        let table = th.table();
        assert_eq!(table.as_object().map(|o| o.len()), Some(LABELS.len()));
        assert_eq!(table["action.accept"], "ตกลง");
        assert_eq!(table["action.decline"], "ปฏิเสธ");
        let again = Labels::resolve("", &[&table]);
        for (key, ..) in LABELS {
            assert_eq!(again.get(key), th.get(key), "{key}");
        }
    }

    #[test]
    fn fill_replaces_known_placeholders_and_keeps_the_rest() {
        assert_eq!(fill("At least {min} of {max}", &[("min", "2"), ("max", "5")]), "At least 2 of 5");
        assert_eq!(fill("{a} {b} {", &[("a", "<x>")]), "<x> {b} {");
        assert_eq!(Labels::resolve("en", &[]).fill("action.open", &[("domain", "example.com")]), "Open example.com");
    }

    #[test]
    fn the_typescript_label_keys_are_exactly_these() {
        let dts = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/element.d.ts"))
            .expect("pkg-template/element.d.ts is readable");
        let start = dts.find("export type LabelKey =").expect("LabelKey is declared");
        let union = &dts[start..start + dts[start..].find(';').unwrap_or(0)];
        let declared: Vec<&str> = union.split('"').skip(1).step_by(2).collect();
        let keys: Vec<&str> = LABELS.iter().map(|(key, ..)| *key).collect();
        assert_eq!(declared, keys);
    }
}
