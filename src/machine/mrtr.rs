//! MRTR (multi round-trip requests) for `tools/call`: build each retry from the original params plus the
//! latest round's answers and `requestState`, byte for byte, with a new request id.
use std::fmt;

use crate::protocol::input::{InputRequests, InputResponses};
use crate::protocol::jsonrpc::{RequestId, RequestIds};
use crate::protocol::request::{CallToolParams, ClientRequest};
use crate::protocol::tool_call::InputRequiredResult;
use crate::protocol::Object;

/// Rounds allowed before the client gives up on a server that keeps asking.
pub const MAX_ROUNDS: u32 = 16;

/// Why a retry could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MrtrError {
    /// Some requested keys have no answer; the spec asks for all of them before retrying.
    MissingAnswers(Vec<String>),
    /// Answers for keys this round did not ask.
    UnexpectedAnswers(Vec<String>),
    /// The server asked too many rounds.
    TooManyRounds,
    /// The server sent the same `requestState` with nothing to answer twice in a row: no progress.
    NoProgress,
}

impl fmt::Display for MrtrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingAnswers(k) => {
                write!(f, "answer every input request before retrying; missing: {}", crate::text::comma_list(k))
            }
            Self::UnexpectedAnswers(k) => {
                write!(f, "answers for inputs the server did not ask: {}", crate::text::comma_list(k))
            }
            Self::TooManyRounds => write!(f, "the server asked for input more than {MAX_ROUNDS} times; giving up"),
            Self::NoProgress => {
                f.write_str("the server repeated the same request state without asking anything; giving up")
            }
        }
    }
}

impl std::error::Error for MrtrError {}

/// One logical `tools/call` across its MRTR rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct MrtrCall {
    original: CallToolParams,
    rounds: u32,
    last_bare_state: Option<String>,
}

impl MrtrCall {
    /// A call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Option<Object>) -> Self {
        Self { original: CallToolParams::new(name, arguments), rounds: 0, last_bare_state: None }
    }

    /// The first request, with a fresh id.
    pub fn first(&self, ids: &mut RequestIds) -> (RequestId, ClientRequest) {
        (ids.next_id(), ClientRequest::CallTool(self.original.clone()))
    }

    /// The retry after `round`: the original name and arguments, `answers` (keys exactly those asked),
    /// and the round's `requestState` unchanged (none if it had none), under a fresh id: a retry is a new
    /// request.
    pub fn retry(
        &mut self,
        ids: &mut RequestIds,
        round: &InputRequiredResult,
        answers: InputResponses,
    ) -> Result<(RequestId, ClientRequest), MrtrError> {
        self.rounds += 1;
        if self.rounds > MAX_ROUNDS {
            return Err(MrtrError::TooManyRounds);
        }
        let asked: InputRequests = round.input_requests.clone().unwrap_or_default();
        let mut missing = Vec::new();
        for key in asked.keys() {
            if !answers.contains_key(key) {
                missing.push(key.clone());
            }
        }
        if !missing.is_empty() {
            return Err(MrtrError::MissingAnswers(missing));
        }
        let mut unexpected = Vec::new();
        for key in answers.keys() {
            if !asked.contains_key(key) {
                unexpected.push(key.clone());
            }
        }
        if !unexpected.is_empty() {
            return Err(MrtrError::UnexpectedAnswers(unexpected));
        }
        if asked.is_empty() {
            if round.request_state.is_some() && round.request_state == self.last_bare_state {
                return Err(MrtrError::NoProgress);
            }
            self.last_bare_state = round.request_state.clone();
        } else {
            self.last_bare_state = None;
        }
        let id = ids.next_id();
        let params = CallToolParams {
            input_responses: (!answers.is_empty()).then_some(answers),
            request_state: round.request_state.clone(),
            ..self.original.clone()
        };
        Ok((id, ClientRequest::CallTool(params)))
    }

    /// The call's arguments, as the host gave them.
    pub fn arguments(&self) -> Option<&Object> {
        self.original.arguments.as_ref()
    }

    /// Rounds answered so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }
}
