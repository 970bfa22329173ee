//! How many requests a polling client keeps in flight: a window that adapts, AIMD-style. It starts at
//! [`INITIAL_WINDOW`], grows by one for every answer that came back while the window was full, and
//! halves when the network or the server shows strain (no response, a timeout, 429, 503) — at most once
//! per round of requests — never above the host's cap (`max_in_flight`) nor below one.
//!
//! Why: after a reload with 1,000 due handles, a fixed 16 in flight left most of them waiting for a
//! free slot while the browser would have taken more; a server that struggles still gets fewer.
use crate::machine::backoff::Failure;

use super::polling::ExchangeOutcome;
use super::ClientState;

/// Requests in flight before any answer has come back.
pub const INITIAL_WINDOW: usize = 16;

/// The window, and how many requests of the round that shrank it are still out.
#[derive(Debug)]
pub(super) struct Window {
    size: usize,
    /// Answers still due from requests sent before the last decrease: they neither grow the window
    /// nor shrink it again (one decrease per round, as TCP does).
    draining: usize,
}

impl Window {
    /// A window for a client whose cap is `ceiling`.
    pub(super) fn new(ceiling: usize) -> Self {
        Self { size: INITIAL_WINDOW.min(ceiling).max(1), draining: 0 }
    }

    /// Requests that may be in flight now.
    pub(super) fn size(&self) -> usize {
        self.size
    }

    /// A request that held a slot ended. `in_flight`: requests out, this one included.
    pub(super) fn on_answer(&mut self, outcome: &ExchangeOutcome, in_flight: usize, ceiling: usize) {
        let round_over = self.draining == 0;
        self.draining = self.draining.saturating_sub(1);
        if strained(outcome) {
            if round_over {
                self.size = (self.size / 2).max(1);
                self.draining = in_flight.saturating_sub(1);
            }
        } else if round_over && in_flight >= self.size && !matches!(outcome, ExchangeOutcome::Failed(_)) {
            // Only a full window grows: a client polling five tasks has no use for a larger one.
            self.size = (self.size + 1).min(ceiling.max(1));
        }
    }
}

/// Whether an outcome says the path to the server is overloaded.
fn strained(outcome: &ExchangeOutcome) -> bool {
    match outcome {
        ExchangeOutcome::Failed(Failure::Network | Failure::Timeout) => true,
        ExchangeOutcome::Failed(Failure::Http { status, .. }) => matches!(status, 429 | 503),
        _ => false,
    }
}

impl ClientState {
    /// Requests this client may have in flight now (the adaptive window, at most `max_in_flight`).
    pub fn request_window(&self) -> usize {
        self.window.size()
    }
}
