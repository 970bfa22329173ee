//! The input ledger: which `inputRequests` keys a task has asked, which the user answered, and which the
//! server acknowledged. Keys are unique for a task's life, so a key is shown and answered at most once.
use crate::collections::SortedMap;
use std::fmt;

use crate::json::{json, Map, Value};
use crate::protocol::input::{InputRequests, InputResponse, InputResponses};

use super::stored::{Fields, StoredForm};

/// Where one key stands.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyState {
    /// Asked by the server, not yet answered.
    Outstanding,
    /// Answered locally, waiting to be sent (the outbox; persisted before sending).
    Queued {
        /// The answer, as it will be sent.
        response: InputResponse,
    },
    /// The server acknowledged a `tasks/update` carrying it.
    Acknowledged,
    /// The server stopped asking before an answer was sent (superseded, or the task moved on).
    Withdrawn,
}

/// How many keys a ledger keeps before it forgets the settled ones the server no longer asks (four
/// times the default `maxInputRequests`; keys still open or listed are kept whatever the count).
const SETTLED_KEYS_KEPT: usize = 4 * crate::protocol::input::DEFAULT_MAX_INPUT_REQUESTS;

/// The ledger of one task.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputLedger {
    keys: SortedMap<String, KeyState>,
    /// Keys in the `tasks/update` now in flight (not persisted: after a reload they are simply re-sent,
    /// which is harmless because servers ignore keys already answered).
    sending: Vec<String>,
}

/// Why answers were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerError {
    /// The server never asked this key, or no longer does.
    NotOutstanding(String),
    /// The key was answered already; keys are answered once.
    AlreadyAnswered(String),
    /// No answers were given.
    Empty,
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotOutstanding(k) => {
                write!(f, "the task is not asking for input \"{k}\" (never asked, or no longer)")
            }
            Self::AlreadyAnswered(k) => write!(f, "input \"{k}\" was already answered; each request is answered once"),
            Self::Empty => f.write_str("no answers were given"),
        }
    }
}

impl std::error::Error for LedgerError {}

impl InputLedger {
    /// Takes in the server's current `inputRequests` (or none when the task is not asking): new keys
    /// become outstanding, unanswered keys the server dropped become withdrawn. Returns whether anything
    /// changed.
    pub(crate) fn observe(&mut self, requests: Option<&InputRequests>) -> bool {
        let mut changed = false;
        if let Some(requests) = requests {
            for key in requests.keys() {
                if !self.keys.contains_key(key) {
                    self.keys.insert(key.clone(), KeyState::Outstanding);
                    changed = true;
                }
            }
        }
        for (key, state) in self.keys.iter_mut() {
            let still_asked = requests.is_some_and(|r| r.contains_key(key));
            if *state == KeyState::Outstanding && !still_asked {
                *state = KeyState::Withdrawn;
                changed = true;
            }
        }
        if self.keys.len() > SETTLED_KEYS_KEPT {
            // Settled keys the server no longer lists are only kept so a lagging server's echo is not
            // asked twice; a task that churns through keys must not grow its record without end.
            let before = self.keys.len();
            self.keys.retain(|key, state| {
                matches!(state, KeyState::Outstanding | KeyState::Queued { .. })
                    || requests.is_some_and(|r| r.contains_key(key))
            });
            changed |= self.keys.len() != before;
        }
        changed
    }

    /// After a reload: queued answers the server no longer asks for were delivered by the page that
    /// queued them (or are moot), so they count as acknowledged and are not sent again. Returns whether
    /// anything changed.
    pub(crate) fn confirm_unasked(&mut self, requests: Option<&InputRequests>) -> bool {
        let mut changed = false;
        for (key, state) in self.keys.iter_mut() {
            let still_asked = requests.is_some_and(|r| r.contains_key(key));
            if matches!(state, KeyState::Queued { .. }) && !still_asked && !self.sending.contains(key) {
                *state = KeyState::Acknowledged;
                changed = true;
            }
        }
        changed
    }

    /// Keys the user still has to answer, in key order. Acknowledged keys a lagging server still lists
    /// are not among them, so nobody is asked twice.
    pub(crate) fn unanswered(&self) -> Vec<&str> {
        let mut open = Vec::new();
        for (k, s) in self.keys.iter() {
            if *s == KeyState::Outstanding {
                open.push(k.as_str());
            }
        }
        open
    }

    /// The state of one key.
    pub fn state(&self, key: &str) -> Option<&KeyState> {
        self.keys.get(key)
    }

    /// Queues answers for outstanding keys. All-or-nothing: one bad key refuses the whole set.
    /// Partial answers (a subset of the outstanding keys) are fine.
    pub(crate) fn queue(&mut self, answers: InputResponses) -> Result<(), LedgerError> {
        if answers.is_empty() {
            return Err(LedgerError::Empty);
        }
        for key in answers.keys() {
            match self.keys.get(key) {
                Some(KeyState::Outstanding) => {}
                Some(KeyState::Queued { .. } | KeyState::Acknowledged) => {
                    return Err(LedgerError::AlreadyAnswered(key.clone()))
                }
                Some(KeyState::Withdrawn) | None => return Err(LedgerError::NotOutstanding(key.clone())),
            }
        }
        for (key, response) in answers {
            self.keys.insert(key, KeyState::Queued { response });
        }
        Ok(())
    }

    /// Whether queued answers wait to be sent and none are in flight.
    pub(crate) fn has_unsent(&self) -> bool {
        self.sending.is_empty() && self.keys.values().any(|s| matches!(s, KeyState::Queued { .. }))
    }

    /// Takes every queued answer for one `tasks/update`, marking those keys in flight.
    pub(crate) fn take_outbox(&mut self) -> InputResponses {
        let mut batch = InputResponses::new();
        let mut sending = Vec::new();
        for (k, s) in self.keys.iter() {
            if let KeyState::Queued { response } = s {
                batch.insert(k.clone(), response.clone());
                sending.push(k.clone());
            }
        }
        self.sending = sending;
        batch
    }

    /// The server acknowledged a `tasks/update` carrying `keys`: each is marked acknowledged, whether
    /// this copy of the ledger sent it or another copy did (a record re-read from the store).
    pub(crate) fn acknowledge<'a>(&mut self, keys: impl IntoIterator<Item = &'a String>) {
        for key in keys {
            self.sending.retain(|k| k != key);
            if matches!(self.keys.get(key), Some(KeyState::Queued { .. })) {
                self.keys.insert(key.clone(), KeyState::Acknowledged);
            }
        }
    }

    /// The in-flight `tasks/update` failed; its answers stay queued for a retry.
    pub(crate) fn send_failed(&mut self) {
        self.sending.clear();
    }

    /// Whether a `tasks/update` is in flight.
    pub fn is_sending(&self) -> bool {
        !self.sending.is_empty()
    }
}

/// Stored as `{"state": "queued", "response": <wire form>}` and the like.
impl StoredForm for KeyState {
    fn to_json(&self) -> Value {
        match self {
            Self::Outstanding => json!({ "state": "outstanding" }),
            Self::Queued { response } => json!({ "state": "queued", "response": response.to_json() }),
            Self::Acknowledged => json!({ "state": "acknowledged" }),
            Self::Withdrawn => json!({ "state": "withdrawn" }),
        }
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "input key")?;
        Ok(match f.str("state")? {
            "outstanding" => Self::Outstanding,
            "queued" => Self::Queued { response: f.wire("response", InputResponse::from_json)? },
            "acknowledged" => Self::Acknowledged,
            "withdrawn" => Self::Withdrawn,
            other => return Err(format!("input key: unknown state \"{other}\"")),
        })
    }
}

/// Stored as `{"keys": {key: state}}`; what is being sent is not stored.
impl StoredForm for InputLedger {
    fn to_json(&self) -> Value {
        let mut keys = Map::new();
        for (k, state) in self.keys.iter() {
            keys.insert(k.clone(), state.to_json());
        }
        json!({ "keys": keys })
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let f = Fields::of(value, "ledger")?;
        let keys = f.get("keys")?.as_object().ok_or_else(|| "ledger.keys: expected an object".to_owned())?;
        let mut map = SortedMap::new();
        for (k, v) in keys.iter() {
            map.insert(k.to_owned(), KeyState::from_json(v)?);
        }
        Ok(Self { keys: map, sending: Vec::new() })
    }
}
