//! What this client remembers of each record's stored text: enough to know a store entry it already
//! holds (a re-read skips parsing it) and, in step mode, to compare on write. Step mode keeps the text
//! itself, which the store's compare-and-set needs; a polling client keeps a 64-bit digest (at 10,000
//! handles the texts were about 6 MB of the page's memory). A digest that matched another text by
//! chance would only keep this tab's copy of a record until its next poll.
use crate::collections::SortedMap;
use crate::text::digest;

#[derive(Debug)]
enum Version {
    Text(String),
    Digest(u64),
}

/// Task id → the version of its stored record this client last read or wrote.
#[derive(Debug)]
pub(super) struct Versions {
    map: SortedMap<String, Version>,
    keep_text: bool,
}

impl Versions {
    /// `keep_text`: step mode, which compares on write.
    pub(super) fn new(keep_text: bool) -> Self {
        Self { map: SortedMap::new(), keep_text }
    }

    /// Task `id` was read or written as `text`.
    pub(super) fn set(&mut self, id: String, text: String) {
        let version = if self.keep_text { Version::Text(text) } else { Version::Digest(digest(&text)) };
        self.map.insert(id, version);
    }

    /// Whether task `id` was last read or written as `text`.
    pub(super) fn holds(&self, id: &str, text: &str) -> bool {
        match self.map.get(id) {
            Some(Version::Text(held)) => held == text,
            Some(Version::Digest(held)) => *held == digest(text),
            None => false,
        }
    }

    /// The text task `id` was last read or written as (step mode only).
    pub(super) fn text(&self, id: &str) -> Option<&str> {
        match self.map.get(id)? {
            Version::Text(text) => Some(text),
            Version::Digest(_) => None,
        }
    }

    pub(super) fn contains(&self, id: &str) -> bool {
        self.map.contains_key(id)
    }

    pub(super) fn remove(&mut self, id: &str) {
        self.map.remove(id);
    }

    /// The ids with a version.
    pub(super) fn ids(&self) -> impl Iterator<Item = &String> {
        self.map.keys()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_mode_keeps_the_text_and_a_polling_client_only_knows_it_again() {
        let mut step = Versions::new(true);
        let mut polling = Versions::new(false);
        for v in [&mut step, &mut polling] {
            v.set("a".into(), "{\"v\":1}".into());
            assert!(v.holds("a", "{\"v\":1}"));
            assert!(!v.holds("a", "{\"v\":2}"));
            assert!(!v.holds("b", "{\"v\":1}"));
        }
        assert_eq!(step.text("a"), Some("{\"v\":1}"));
        assert_eq!(polling.text("a"), None, "a polling client does not hold the text");
        polling.remove("a");
        assert!(!polling.holds("a", "{\"v\":1}"));
        assert_eq!(polling.ids().count(), 0);
    }

    #[test]
    fn the_digest_tells_texts_of_one_length_apart() {
        assert_ne!(digest("{\"status\":\"working\"}"), digest("{\"status\":\"wOrking\"}"));
        assert_ne!(digest("ab"), digest("ba"));
    }
}
