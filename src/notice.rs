//! The words of a system notification (opt-in `notify`): the tool's name, and its status as a person
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

/// What a notification says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The tool's name.
    pub title: String,
    /// The status, in the page's language.
    pub body: String,
    /// The language the words are in (`en` or `th`), for the notification's `lang`.
    pub lang: &'static str,
}

/// The notice for `tool`'s task now at `status`, in `lang` (a BCP 47 tag: Thai for `th…`, else
/// English, as the element picks).
pub fn notice(lang: &str, tool: &str, status: LocalStatus) -> Notice {
    let thai = lang.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("th"))
        && lang.as_bytes().get(2).is_none_or(|b| matches!(b, b'-' | b'_'));
    let words = match status {
        LocalStatus::Working => status_words::WORKING,
        LocalStatus::InputRequired => status_words::INPUT_REQUIRED,
        LocalStatus::Completed => status_words::COMPLETED,
        LocalStatus::Failed => status_words::FAILED,
        LocalStatus::Cancelled => status_words::CANCELLED,
        LocalStatus::Expired => status_words::EXPIRED,
    };
    Notice {
        title: tool.to_owned(),
        body: (if thai { words.1 } else { words.0 }).to_owned(),
        lang: if thai { "th" } else { "en" },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_in_the_pages_language() {
        assert_eq!(
            notice("en-GB", "deploy", LocalStatus::InputRequired),
            Notice { title: "deploy".into(), body: "Needs your input".into(), lang: "en" }
        );
        assert_eq!(notice("th-TH", "deploy", LocalStatus::Completed).body, "เสร็จสมบูรณ์");
        assert_eq!(notice("TH", "deploy", LocalStatus::Failed).lang, "th");
        assert_eq!(notice("thx", "deploy", LocalStatus::Failed).lang, "en", "only the subtag th is Thai");
        assert_eq!(notice("", "deploy", LocalStatus::Expired).body, "Expired");
    }
}
