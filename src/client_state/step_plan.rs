//! Step mode's order of work and how long its claim on sending lasts. A step runs its actions in
//! batches of [`STEP_PARALLELISM`], one batch after another; a send lease that ended before its send
//! even started would let a second isolate send the same answers. So sends go in the first batches,
//! and the lease lasts until the last of them has had every request it may make, each up to the
//! request timeout.
use crate::machine::record::Action;

/// Requests one step runs at once.
pub const STEP_PARALLELISM: usize = 8;

/// Requests one send may make in a row: the send, and with a 2025-11-25 server whose session was
/// lost, a new session's `initialize` and the send again.
const REQUESTS_PER_SEND: u64 = 3;

/// Room for the store writes around the sends (the lease itself, then the results).
const LEASE_SLACK_MS: u64 = 5_000;

/// Puts the sends (answers, cancels) before the polls, keeping each group's order, and returns until
/// when their lease must hold for a step starting `now` whose requests time out after `timeout_ms`.
pub fn plan_step(actions: &mut Vec<(String, Action)>, now: u64, timeout_ms: u64) -> u64 {
    // Two passes, not a sort: a sort brings ~2 KB gzip of code into the .wasm.
    let (mut ordered, mut polls) = (Vec::with_capacity(actions.len()), Vec::new());
    for entry in actions.drain(..) {
        if matches!(entry.1, Action::Poll) {
            polls.push(entry);
        } else {
            ordered.push(entry);
        }
    }
    let sends = ordered.len();
    ordered.append(&mut polls);
    *actions = ordered;
    let batches = sends.div_ceil(STEP_PARALLELISM).max(1) as u64;
    now.saturating_add(batches.saturating_mul(REQUESTS_PER_SEND).saturating_mul(timeout_ms))
        .saturating_add(LEASE_SLACK_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll(id: &str) -> (String, Action) {
        (id.to_owned(), Action::Poll)
    }

    #[test]
    fn sends_go_first_and_the_lease_outlasts_the_batch_they_run_in() {
        let mut actions: Vec<_> = (0..20).map(|i| poll(&format!("p{i}"))).collect();
        actions.push(("late".to_owned(), Action::SendCancel));
        let until = plan_step(&mut actions, 1_000, 30_000);
        assert_eq!(actions[0], ("late".to_owned(), Action::SendCancel), "the send runs in the first batch");
        assert_eq!(actions[1], poll("p0"), "polls keep their order");
        // The send starts with the first batch and may take three requests of up to 30 s each.
        assert!(until >= 1_000 + 3 * 30_000, "{until}");
    }

    #[test]
    fn nine_sends_need_two_batches_of_lease() {
        let mut actions: Vec<_> = (0..9).map(|i| (format!("s{i}"), Action::SendCancel)).collect();
        let until = plan_step(&mut actions, 0, 10_000);
        assert!(until >= 2 * 3 * 10_000, "the ninth send starts after the first batch: {until}");
    }
}
