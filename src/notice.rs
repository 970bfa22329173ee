//! The words of a system notification (opt-in `notify`): under the tool's name, its status as a person
//! reads it in the page's language. The status words are the element's own (`status.*` in
//! `element::model::labels` reads them from here), so a card and a notification never disagree.
use crate::machine::record::LocalStatus;

/// `(English, Thai)` for each status a notification or a card names.
pub mod status_words {
    /// Running.
    pub const WORKING: (&str, &str) = ("Working", "กำลังทำงาน");
    /// Waiting for the person.
    pub const INPUT_REQUIRED: (&str, &str) = ("Needs your input", "รอข้อมูลจากคุณ");
    /// Ended with a result.
    pub const COMPLETED: (&str, &str) = ("Completed", "เสร็จสมบูรณ์");
    /// Ended with an error.
    pub const FAILED: (&str, &str) = ("Failed", "ล้มเหลว");
    /// Cancelled.
    pub const CANCELLED: (&str, &str) = ("Cancelled", "ยกเลิกแล้ว");
    /// Past its TTL, or unknown to the server.
    pub const EXPIRED: (&str, &str) = ("Expired", "หมดอายุ");
}

/// What a notification says under the tool's name (its title): the status in the page's language,
/// and that language (`en` or `th`) for the notification's `lang`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notice {
    /// The status, in the page's language.
    pub body: &'static str,
    /// The language the words are in.
    pub lang: &'static str,
}

/// The notice of a task now at `status`, in `lang` (a BCP 47 tag: Thai for `th…`, else English,
/// as the element picks).
pub fn notice(lang: &str, status: LocalStatus) -> Notice {
    let bytes = lang.as_bytes();
    let thai = bytes.len() >= 2
        && bytes[..2].eq_ignore_ascii_case(b"th")
        && bytes.get(2).is_none_or(|b| matches!(b, b'-' | b'_'));
    let words = match status {
        LocalStatus::Working => status_words::WORKING,
        LocalStatus::InputRequired => status_words::INPUT_REQUIRED,
        LocalStatus::Completed => status_words::COMPLETED,
        LocalStatus::Failed => status_words::FAILED,
        LocalStatus::Cancelled => status_words::CANCELLED,
        LocalStatus::Expired => status_words::EXPIRED,
    };
    if thai {
        Notice { body: words.1, lang: "th" }
    } else {
        Notice { body: words.0, lang: "en" }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_in_the_pages_language() {
        assert_eq!(notice("en-GB", LocalStatus::InputRequired), Notice { body: "Needs your input", lang: "en" });
        assert_eq!(notice("th-TH", LocalStatus::Completed), Notice { body: "เสร็จสมบูรณ์", lang: "th" });
        assert_eq!(notice("TH", LocalStatus::Failed).lang, "th");
        assert_eq!(notice("thx", LocalStatus::Failed).lang, "en", "only the subtag th is Thai");
        assert_eq!(notice("", LocalStatus::Expired).body, "Expired");
    }
}
