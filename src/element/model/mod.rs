//! The element's pure half: every decision a view makes, with no DOM, tested natively.
//!
//! - [`labels`]: every word, by key, in English and Thai, with host overrides.
//! - [`card_model`]: what a card shows of a [`crate::snapshot::Snapshot`], and the list's order.
//! - [`problem_text`]: a form problem or a task's bad end in the user's words.
//! - [`url_check`]: what a URL-mode elicitation may open, and what to warn about.
//! - [`elapsed`]: running and total times as short text.
//! - [`view`]: the card, the list's rows and a form's answer as plain JSON for `pkg/element.js`.
pub mod card_model;
pub mod elapsed;
pub mod labels;
pub mod problem_text;
pub mod url_check;
pub mod view;
