//! The interop matrix (`tests/interop/matrix/`): `TaskClient` against servers built on real SDKs
//! (`tests/interop/servers/*`) and the reference server, one cell per scenario and server.
//!
//! The server table lives in `tests/interop/matrix/servers.mjs`; xtask reads it with
//! `node servers.mjs --list`, installs each enabled peer from its lockfile (a Python venv under
//! `target/interop/`, or `npm ci` in the peer's directory) when missing or older than the lock,
//! prints one line per peer with its SDK and version, runs the Node and Chromium cells, and counts
//! each (server, cell) as its own check from the JSON lines the harness writes. Cells listed in the
//! table's `KNOWN_FAILURES` are printed as "known failing, not counted as pass".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use serde_json::Value;

use crate::checks::Checks;
use crate::cmd;
use crate::error::{Context, Error, Result};

const TABLE: &str = "tests/interop/matrix/servers.mjs";
const TEST_FILES: [&str; 4] = [
    "tests/interop/matrix/node.test.mjs",
    "tests/interop/matrix/chromium.test.mjs",
    "tests/interop/matrix/retry_after.test.mjs",
    "tests/interop/matrix/auth.test.mjs",
];
/// Written by the harness in the venv once `pip install` finished (its mtime is compared with the lock).
const VENV_MARKER: &str = ".installed-from-lock";

/// How a peer is installed from its lockfile.
enum Prepare {
    /// `python3 -m venv VENV` + `VENV/bin/pip install --require-hashes -r LOCK`.
    PythonVenv { lock: PathBuf, venv: PathBuf },
    /// `npm ci` in `dir`.
    Npm { dir: PathBuf, lock: PathBuf },
}

/// One row of the server table.
pub struct Peer {
    pub name: String,
    sdk: String,
    version: String,
    protocol: String,
    enabled: bool,
    reason: Option<String>,
    prepare: Option<Prepare>,
}

impl Peer {
    fn describe(&self) -> String {
        format!("{} — {} {}, protocol {}", self.name, self.sdk, self.version, self.protocol)
    }
}

/// One cell of the table: its name, and the only servers it runs against (`None`: every server).
pub struct Cell {
    pub name: String,
    servers: Option<Vec<String>>,
}

impl Cell {
    /// Whether the cell runs against `peer`.
    fn runs_on(&self, peer: &str) -> bool {
        self.servers.as_ref().is_none_or(|servers| servers.iter().any(|s| s == peer))
    }
}

/// The matrix's server table and cells, as `node servers.mjs --list` prints them.
pub struct Table {
    pub peers: Vec<Peer>,
    pub cells: Vec<Cell>,
    known: BTreeMap<String, String>,
}

/// Reads the table (asks Node, so the one source of truth stays the .mjs file).
pub fn table(root: &Path) -> Result<Table> {
    let out = cmd::stdout_of(Command::new("node").arg(root.join(TABLE)).arg("--list").current_dir(root))?;
    let json: Value = serde_json::from_str(out.trim()).context(format!("parsing `node {TABLE} --list`"))?;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let path = |v: &Value, key: &str| {
        text(v, key).map(PathBuf::from).ok_or_else(|| Error::msg(format!("{TABLE}: prepare entry without `{key}`")))
    };
    let mut peers = Vec::new();
    for s in json.get("servers").and_then(Value::as_array).into_iter().flatten() {
        let prepare = match s.get("prepare").filter(|p| !p.is_null()) {
            None => None,
            Some(p) => match text(p, "kind").as_deref() {
                Some("python-venv") => Some(Prepare::PythonVenv { lock: path(p, "lock")?, venv: path(p, "venv")? }),
                Some("npm") => Some(Prepare::Npm { dir: path(p, "dir")?, lock: path(p, "lock")? }),
                other => return Err(Error::msg(format!("{TABLE}: unknown prepare kind {other:?}"))),
            },
        };
        peers.push(Peer {
            name: text(s, "name").ok_or_else(|| Error::msg(format!("{TABLE}: a server without a name")))?,
            sdk: text(s, "sdk").unwrap_or_default(),
            version: text(s, "version").unwrap_or_default(),
            protocol: text(s, "protocol").unwrap_or_default(),
            enabled: s.get("enabled").and_then(Value::as_bool).unwrap_or(false),
            reason: text(s, "reason"),
            prepare,
        });
    }
    let cells = json
        .get("cells")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let servers = c
                .get("servers")
                .and_then(Value::as_array)
                .map(|s| s.iter().filter_map(Value::as_str).map(str::to_owned).collect());
            Some(Cell { name: text(c, "name")?, servers })
        })
        .collect();
    let known = json
        .get("knownFailures")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned())).collect())
        .unwrap_or_default();
    Ok(Table { peers, cells, known })
}

/// What the harness prints for a peer's installed SDK (`node servers.mjs --list`, `installed`).
fn installed_versions(root: &Path) -> Result<BTreeMap<String, Option<String>>> {
    let out = cmd::stdout_of(Command::new("node").arg(root.join(TABLE)).arg("--list").current_dir(root))?;
    let json: Value = serde_json::from_str(out.trim()).context(format!("parsing `node {TABLE} --list`"))?;
    Ok(json
        .get("servers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| {
            let name = s.get("name")?.as_str()?.to_owned();
            Some((name, s.get("installed").and_then(Value::as_str).map(str::to_owned)))
        })
        .collect())
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Whether `installed` (a marker file) is missing or older than `lock`.
fn stale(installed: &Path, lock: &Path) -> bool {
    match (modified(installed), modified(lock)) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    }
}

/// Installs `peer` from its lockfile when missing or older than the lock; says what it did.
pub fn prepare(peer: &Peer) -> Result<()> {
    match &peer.prepare {
        None => Ok(()),
        Some(Prepare::PythonVenv { lock, venv }) => {
            let marker = venv.join(VENV_MARKER);
            if !stale(&marker, lock) {
                eprintln!("xtask: {}: venv {} is up to date with its lock", peer.name, venv.display());
                return Ok(());
            }
            eprintln!("xtask: {}: making the venv {} from {}", peer.name, venv.display(), lock.display());
            if let Some(parent) = venv.parent() {
                std::fs::create_dir_all(parent).context(format!("creating {}", parent.display()))?;
            }
            // --clear: a venv left half-made by an interrupted install starts over.
            cmd::run(cmd::command("python3", ["-m", "venv", "--clear"]).arg(venv)).map_err(|e| {
                Error::msg(format!(
                    "{e}\n  (needs Python 3.10+ with venv; Debian: apt-get install python3 python3-venv)"
                ))
            })?;
            let pip = venv.join("bin").join("pip");
            cmd::run(
                Command::new(&pip).args(["install", "--disable-pip-version-check", "--require-hashes", "-r"]).arg(lock),
            )?;
            std::fs::write(&marker, "pip install --require-hashes -r <lock> finished\n")
                .context(format!("writing {}", marker.display()))
        }
        Some(Prepare::Npm { dir, lock }) => {
            if !lock.is_file() {
                return Err(Error::msg(format!("{}: no lockfile at {}", peer.name, lock.display())));
            }
            if !stale(&dir.join("node_modules").join(".package-lock.json"), lock) {
                eprintln!("xtask: {}: node_modules is up to date with its lock", peer.name);
                return Ok(());
            }
            eprintln!("xtask: {}: installing npm packages in {} with `npm ci`", peer.name, dir.display());
            cmd::run(cmd::command("npm", ["ci", "--no-audit", "--no-fund"]).current_dir(dir))
        }
    }
}

/// `cargo xtask setup`: installs every enabled peer.
pub fn prepare_all(root: &Path) -> Result<()> {
    for peer in table(root)?.peers.iter().filter(|p| p.enabled) {
        prepare(peer)?;
    }
    Ok(())
}

/// The outcome of one (server, cell) as the harness recorded it.
enum Outcome {
    Passed,
    Failed(String),
    Known(String, String),
    Missing,
}

/// Prepares the peers, runs the matrix and counts every (server, cell) as a check of `checks`.
/// With `filters`, `MATRIX_SERVERS` / `MATRIX_CELLS` narrow the run (`cargo xtask interop`);
/// without, every enabled peer and every cell runs (`cargo xtask test`).
pub fn run(root: &Path, server_exe: &Path, checks: &mut Checks, filters: bool) {
    let Some(table) =
        checks.run("interop matrix: read the server table (tests/interop/matrix/servers.mjs)", || table(root))
    else {
        return;
    };
    // MATRIX_SERVERS (comma-separated) narrows the run, as the harness does by itself.
    let wanted: Vec<String> = std::env::var("MATRIX_SERVERS")
        .ok()
        .filter(|_| filters)
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let mut ready = Vec::new();
    for peer in &table.peers {
        if !peer.enabled {
            eprintln!(
                "xtask: matrix peer {}: disabled ({})",
                peer.describe(),
                peer.reason.as_deref().unwrap_or("no reason given")
            );
            continue;
        }
        if !wanted.is_empty() && !wanted.contains(&peer.name) {
            eprintln!("xtask: matrix peer {}: not selected by MATRIX_SERVERS", peer.describe());
            continue;
        }
        if peer.prepare.is_none() {
            ready.push(peer); // nothing to install (the reference server is built above)
            continue;
        }
        let name = format!("interop matrix: {} installed from its lock", peer.name);
        if checks.run(&name, || prepare(peer)).is_some() {
            ready.push(peer);
        } else {
            for cell in table.cells.iter().filter(|c| c.runs_on(&peer.name)) {
                checks.skip(&format!("interop matrix: {} · {}", peer.name, cell.name), "the peer did not install");
            }
        }
    }
    let installed = installed_versions(root).unwrap_or_default();
    for peer in &ready {
        let got = installed.get(&peer.name).cloned().flatten();
        println!("xtask: matrix peer {}: installed {}", peer.describe(), got.as_deref().unwrap_or("?"));
    }
    if ready.is_empty() {
        return;
    }
    let results = root.join("target").join("interop").join("matrix-results.jsonl");
    let ran = checks.run("interop matrix: the harness runs (node --test tests/interop/matrix)", || {
        if let Some(parent) = results.parent() {
            std::fs::create_dir_all(parent).context(format!("creating {}", parent.display()))?;
        }
        let _ = std::fs::remove_file(&results);
        let names: Vec<&str> = ready.iter().map(|p| p.name.as_str()).collect();
        let mut node = Command::new("node");
        node.arg("--test")
            .args(TEST_FILES)
            .env("MCP_TASKS_SERVER", server_exe)
            .env("MATRIX_RESULTS", &results)
            .env("MATRIX_SERVERS", names.join(","))
            .current_dir(root);
        if !filters {
            node.env_remove("MATRIX_CELLS");
        }
        // The exit status only says that some cell failed; each cell is counted below.
        if let Err(e) = cmd::run(&mut node) {
            eprintln!("xtask: matrix: {e} (cells counted one by one below)");
        }
        workspace_read(&results)
    });
    let Some(lines) = ran else { return };
    let outcomes = outcomes(&lines, &table.known);
    report(&table, &ready, &outcomes, checks);
}

fn workspace_read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).context(format!("reading {} (the harness wrote no results)", path.display()))
}

/// (server, cell) → outcome, from the harness's JSON lines.
fn outcomes(lines: &str, known: &BTreeMap<String, String>) -> BTreeMap<(String, String), Outcome> {
    let mut out = BTreeMap::new();
    for line in lines.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let key = (field("server"), field("cell"));
        match field("event").as_str() {
            "planned" => {
                out.entry(key).or_insert(Outcome::Missing);
            }
            "result" => {
                let ok = v.get("ok").and_then(Value::as_bool).unwrap_or(false);
                let why = known.get(&format!("{}/{}", key.0, key.1)).cloned();
                let outcome = match (ok, why) {
                    (true, _) => Outcome::Passed,
                    (false, Some(why)) => Outcome::Known(why, first_line(&field("error"))),
                    (false, None) => Outcome::Failed(field("error")),
                };
                out.insert(key, outcome);
            }
            _ => {}
        }
    }
    out
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_owned()
}

/// Counts each cell as a check and prints the cells × servers table with pass counts.
fn report(table: &Table, ready: &[&Peer], outcomes: &BTreeMap<(String, String), Outcome>, checks: &mut Checks) {
    let mut rows = vec![format!(
        "| cell | {} |",
        ready.iter().map(|p| format!("{} ({} {})", p.name, p.sdk, p.version)).collect::<Vec<_>>().join(" | ")
    )];
    rows.push(format!("| --- |{}", " --- |".repeat(ready.len())));
    let mut passed: BTreeMap<&str, usize> = BTreeMap::new();
    for cell in &table.cells {
        let mut row = format!("| {} |", cell.name);
        for peer in ready {
            if !cell.runs_on(&peer.name) {
                row.push_str(" — |");
                continue;
            }
            let name = format!("interop matrix: {} · {}", peer.name, cell.name);
            let mark = match outcomes.get(&(peer.name.clone(), cell.name.clone())) {
                Some(Outcome::Passed) => {
                    checks.run(&name, || Ok::<_, Error>(()));
                    *passed.entry(peer.name.as_str()).or_default() += 1;
                    "pass"
                }
                Some(Outcome::Failed(error)) => {
                    checks.run(&name, || Err::<(), _>(Error::msg(error.clone())));
                    "FAIL"
                }
                Some(Outcome::Known(why, error)) => {
                    checks.known(&name, &format!("{why}; this run: {error}"));
                    "known failing"
                }
                Some(Outcome::Missing) => {
                    checks
                        .run(&name, || Err::<(), _>(Error::msg("planned but no result (the harness stopped early?)")));
                    "FAIL"
                }
                None => {
                    eprintln!("xtask: {name}: not run (not selected by MATRIX_CELLS)");
                    "not run"
                }
            };
            row.push_str(&format!(" {mark} |"));
        }
        rows.push(row);
    }
    rows.push(format!(
        "| **passed** | {} |",
        ready
            .iter()
            .map(|p| {
                let cells = table.cells.iter().filter(|c| c.runs_on(&p.name)).count();
                format!("{}/{cells}", passed.get(p.name.as_str()).copied().unwrap_or(0))
            })
            .collect::<Vec<_>>()
            .join(" | ")
    ));
    println!("\nxtask: interop matrix\n{}\n", rows.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_count_known_failures_apart_and_missing_results_as_failures() {
        let lines = r#"{"event":"planned","server":"a","cell":"result"}
{"event":"planned","server":"a","cell":"cancel"}
{"event":"planned","server":"b","cell":"result"}
{"event":"planned","server":"b","cell":"cancel"}
{"event":"result","server":"a","cell":"result","ok":true}
{"event":"result","server":"a","cell":"cancel","ok":false,"error":"boom\nstack"}
{"event":"result","server":"b","cell":"result","ok":false,"error":"client bug\nstack"}
not json"#;
        let known = BTreeMap::from([("b/result".to_owned(), "sends two updates".to_owned())]);
        let out = outcomes(lines, &known);
        let get = |s: &str, c: &str| out.get(&(s.to_owned(), c.to_owned()));
        assert!(matches!(get("a", "result"), Some(Outcome::Passed)));
        assert!(matches!(get("a", "cancel"), Some(Outcome::Failed(e)) if e.starts_with("boom")));
        assert!(
            matches!(get("b", "result"), Some(Outcome::Known(why, e)) if why == "sends two updates" && e == "client bug")
        );
        assert!(matches!(get("b", "cancel"), Some(Outcome::Missing)));
    }

    #[test]
    fn a_cell_that_names_servers_runs_only_on_them() {
        let every = Cell { name: "result".into(), servers: None };
        let some = Cell { name: "retry-after node".into(), servers: Some(vec!["ts-sdk-v2".into()]) };
        assert!(every.runs_on("fastmcp4") && every.runs_on("ts-sdk-v2"));
        assert!(some.runs_on("ts-sdk-v2") && !some.runs_on("fastmcp4"));
    }

    #[test]
    fn a_marker_older_than_the_lock_is_stale() {
        let dir = std::env::temp_dir().join(format!("xtask-matrix-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (marker, lock) = (dir.join("marker"), dir.join("lock"));
        assert!(stale(&marker, &lock), "missing files are stale");
        std::fs::write(&lock, "a").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&marker, "b").unwrap();
        assert!(!stale(&marker, &lock));
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&lock, "c").unwrap();
        assert!(stale(&marker, &lock), "a lock changed after the install");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
