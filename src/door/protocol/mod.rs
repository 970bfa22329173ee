//! The door protocol's values, typed: the events the driver feeds ([`Event`], decoded from its JSON
//! in [`Event::decode`], the one table of event tags) and the effects the door hands back
//! ([`Effect`], encoded in [`Effect::to_json`], the one table of effect tags). docs/door.md documents
//! each with its fields and calling rules; types/door-protocol.d.ts is the driver's side of it.
//!
//! An event whose tag the door does not know, or that lacks a field it needs or has one of another
//! type, is a [`ProtocolError`]: the door settles the event's host call with it (a `TypeError`), never
//! reads a missing number as 0 or a missing text as "".
mod effect;
mod event;

pub(crate) use effect::error_json;
pub use effect::{Effect, Emitted};
pub use event::{Answer, Event, Failure, List};

/// The protocol's version: the driver checks it against its own when it makes a door (the first and
/// the full one alike), since a hand-over replays its events into a door of another build. Raise it
/// on any change of a tag, a field or a calling rule (docs/door.md, "Versions").
pub const VERSION: u32 = 3;

/// Why an event cannot be read.
// Each variant's doc names its fields; docs/door.md has them one by one.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolError<'a> {
    /// Not a JSON object with a text `e`.
    Untagged,
    /// A tag the door does not know.
    UnknownEvent(&'a str),
    /// A field the event needs is absent (or `null`).
    Missing { event: &'a str, field: &'static str },
    /// A field holds another type of value than the event's.
    WrongType { event: &'a str, field: &'static str, expected: &'static str },
}

impl ProtocolError<'_> {
    /// What went wrong, naming the event and the field: the `TypeError`'s message. Written piece by
    /// piece rather than with `format!`: the smaller code in the .wasm.
    pub fn message(&self) -> String {
        let (event, field, expected) = match self {
            Self::Untagged => return "the door's events are objects with a text \"e\"".to_owned(),
            // The tag as JSON text, quoted and escaped as the driver wrote it.
            Self::UnknownEvent(tag) => {
                let mut message = "the door has no event ".to_owned();
                message.push_str(&crate::json::to_string(&crate::json::Value::from(*tag)));
                return message;
            }
            Self::Missing { event, field } => (event, field, None),
            Self::WrongType { event, field, expected } => (event, field, Some(expected)),
        };
        let mut message = "the door's event ".to_owned();
        message.push_str(event);
        message.push_str(if expected.is_some() { " has a field " } else { " needs the field " });
        message.push_str(field);
        if let Some(expected) = expected {
            message.push_str(" that is not ");
            message.push_str(expected);
        }
        message
    }
}

impl std::fmt::Display for ProtocolError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

#[cfg(test)]
mod tests;
