//! The page's `localStorage`, where there is one: the poller's hint of tasks to poll before
//! IndexedDB opens (see `client_state/early.rs`). Workers, Node and edge runtimes have none, and a
//! sandboxed frame or a browser setting may refuse it; then there is no hint, and nothing else
//! changes (the hint only saves the first polls some milliseconds: the records stay in the store).
//! The calls are JS (`Page.stored` and `Page.store` in `browser.js`), each in its own `try`.
use super::globals::Page;

/// The text stored under `key`, if any.
pub(crate) fn get(key: &str) -> Option<String> {
    Page::stored(key)
}

/// Stores `value` under `key`, or removes the key (`None`). A refusal (quota, a blocked storage) is
/// left unsaid: the hint is a shortcut, and the next change writes it again.
pub(crate) fn set(key: &str, value: Option<&str>) {
    Page::store(key, value.map(str::to_owned));
}
