//! A restore fed page by page, as the driver reads the store: at open the poller starts the first
//! page's polls before the rest is read, pages grow, nothing is lost, and a tab that does not poll (or
//! re-reads) swaps records in only at the end.
use std::collections::BTreeMap;

use mcp_tasks_web::client_state::{ClientConfig, ClientState, Effect, Keys, FIRST_PAGE, INITIAL_WINDOW};
use mcp_tasks_web::machine::backoff::PollPolicy;
use mcp_tasks_web::machine::stored::to_stored;
use mcp_tasks_web::protocol::task::{Task, TaskStatus};
use mcp_tasks_web::protocol::timestamp::format_millis;

/// Server clock origin: 2026-08-01T09:00:00Z.
const T0: u64 = 1_785_574_800_000;
/// Well after every stored handle's next poll: all are due.
const LATER: u64 = T0 + 600_000;

fn keys() -> Keys {
    Keys::new("ns", "http://127.0.0.1:1/mcp")
}

fn state(leader: bool) -> ClientState {
    let config = ClientConfig { policy: PollPolicy::default(), retention: 500, auto_poll: true, max_in_flight: 64 };
    ClientState::new(config, keys(), false, leader, 7)
}

/// What a page that started `n` tasks left in the store: key → stored text.
fn stored(n: usize) -> BTreeMap<String, String> {
    let mut source = state(true);
    let mut out = BTreeMap::new();
    for i in 0..n {
        let id = format!("task-{i:05}");
        let handle = Task {
            task_id: id.clone(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: format_millis(T0 as i64),
            last_updated_at: format_millis(T0 as i64),
            ttl_ms: Some(3_600_000),
            poll_interval_ms: Some(1_000),
        };
        source.add_task(T0, "build".into(), handle);
        let text = to_stored(source.record(&id).expect("just added")).to_string();
        out.insert(keys().task(&id), text);
    }
    out
}

fn polled(effects: &[Effect]) -> Vec<String> {
    effects.iter().filter_map(|e| if let Effect::Send { id, .. } = e { Some(id.clone()) } else { None }).collect()
}

/// The driver's later pages (`PAGE` in js/driver/task_client.js): the first is the door's
/// [`FIRST_PAGE`], handed over by `keys`.
const PAGE: usize = 2048;

/// Feeds `store` to `state` in the driver's pages; after each page, `seen(page sizes so far, state,
/// effects)`.
fn read_in_pages(
    state: &mut ClientState,
    store: &BTreeMap<String, String>,
    at_open: bool,
    mut seen: impl FnMut(&[usize], &mut ClientState, Vec<Effect>),
) -> Vec<String> {
    let mut restore = state.begin_restore(at_open);
    let entries: Vec<(&String, &String)> = store.iter().collect();
    let mut sizes = Vec::new();
    let mut read = 0;
    loop {
        let limit = if sizes.is_empty() { FIRST_PAGE } else { PAGE };
        sizes.push(limit);
        let page = &entries[read..(read + limit).min(entries.len())];
        read += page.len();
        for (key, text) in page {
            state.restore_entry(&mut restore, key, text);
        }
        state.page_read(&mut restore, LATER, false);
        let effects = state.drain_effects();
        seen(&sizes, state, effects);
        if page.len() < limit {
            break;
        }
    }
    state.finish_restore(restore, LATER)
}

#[test]
fn the_poller_polls_the_first_page_before_the_rest_is_read_and_loses_nothing() {
    let store = stored(1_000);
    let mut reloaded = state(true);
    let mut sent = Vec::new();
    let mut pages = Vec::new();
    let read_anew = read_in_pages(&mut reloaded, &store, true, |sizes, s, effects| {
        if sizes.len() == 1 {
            // Only the first page is held, and its polls go out now.
            assert_eq!(s.records().len(), FIRST_PAGE);
            let first = polled(&effects);
            assert_eq!(first.len(), INITIAL_WINDOW, "{first:?}");
            assert!(first.iter().all(|id| s.record(id).is_some()), "polls of records read: {first:?}");
        }
        sent.extend(polled(&effects));
        pages = sizes.to_vec();
    });
    assert_eq!(pages, [FIRST_PAGE, PAGE], "a small first page, then the rest");
    assert_eq!(reloaded.records().len(), 1_000, "every stored record is held");
    assert_eq!(read_anew.len(), 1_000);
    assert!(reloaded.records().keys().all(|id| reloaded.is_restored(id)));
    assert_eq!(sent.len(), INITIAL_WINDOW, "no more than the window before any answer: {sent:?}");
}

#[test]
fn a_tab_that_does_not_poll_takes_each_page_as_it_comes_and_sends_nothing() {
    let store = stored(300);
    let mut follower = state(false);
    read_in_pages(&mut follower, &store, true, |sizes, s, effects| {
        // open() resolves after the first page: its host sees what is in.
        let read = sizes.iter().sum::<usize>().min(300);
        assert_eq!(s.records().len(), read, "each page is held once read");
        assert_eq!(polled(&effects), Vec::<String>::new());
    });
    assert_eq!(follower.records().len(), 300);
}

#[test]
fn a_reread_keeps_every_record_in_view_and_takes_what_changed() {
    let store = stored(300);
    let mut poller = state(true);
    read_in_pages(&mut poller, &store, true, |_, _, _| {});
    // Another tab changed one record, and added one.
    let mut changed = store.clone();
    let other = stored(301);
    let (new_key, new_text) = other.iter().last().expect("301 records");
    changed.insert(new_key.clone(), new_text.clone());
    let first_key = keys().task("task-00000");
    let mut record: mcp_tasks_web::json::Value =
        mcp_tasks_web::json::from_str(&changed[&first_key]).expect("stored JSON");
    if let mcp_tasks_web::json::Value::Object(fields) = &mut record {
        fields.insert("jitter".into(), mcp_tasks_web::json::Value::from(1_u64));
    }
    changed.insert(first_key, record.to_string());

    let read_anew = read_in_pages(&mut poller, &changed, false, |_, s, _| {
        assert!(s.records().len() >= 300, "a re-read never hides a record: {} held", s.records().len());
    });
    assert_eq!(poller.records().len(), 301);
    assert_eq!(read_anew, ["task-00000".to_string(), "task-00300".to_string()], "only what changed is read anew");
}
