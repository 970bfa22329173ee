//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `tests/fixtures/spec`: the spec's example messages and a recorded wire transcript, copied into the
/// repository (sources and licences in `tests/fixtures/README.md`) so a clone with nothing beside it tests itself.
pub fn spec_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spec");
    assert!(dir.is_dir(), "the spec vectors are expected at {}", dir.display());
    dir
}

/// Every `*.json` file under `dir`, sorted.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable spec directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Reads and parses a JSON file.
pub fn read_json(path: &Path) -> mcp_tasks_web::json::Value {
    let text = std::fs::read_to_string(path).expect("readable file");
    mcp_tasks_web::json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The poll policy the client-state tests run on: polls every 0.5 s (0.1 s at the fastest), backoff
/// from 0.5 s up to 4 s, and a minute of grace after a TTL and between listen backstops.
pub fn state_policy() -> mcp_tasks_web::machine::backoff::PollPolicy {
    mcp_tasks_web::machine::backoff::PollPolicy {
        min_interval_ms: 100,
        default_interval_ms: 500,
        backoff_base_ms: 500,
        max_backoff_ms: 4_000,
        expiry_grace_ms: 60_000,
        pushed_backstop_ms: 60_000,
    }
}

/// The ids of the records `effects` asks to store, in order.
pub fn stored_ids(effects: &[mcp_tasks_web::client_state::Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            mcp_tasks_web::client_state::Effect::Store(id) => Some(id.clone()),
            _ => None,
        })
        .collect()
}
