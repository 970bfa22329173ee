//! The durable task store: SQLite, one row per task (the `TaskRow` as JSON beside indexed columns), plus
//! the opaque MRTR states handed to clients. A task is written here before its handle is sent.
use std::fmt;
use std::path::PathBuf;
use std::sync::Mutex;

use mcp_tasks_web::json::Value;
use rusqlite::{params, Connection, OptionalExtension};

use crate::row::TaskRow;

/// Where the store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbLocation {
    /// In memory: gone when the process ends.
    Memory,
    /// A SQLite file, created if missing.
    File(PathBuf),
}

/// A store failure, reported to clients as an internal error and logged.
#[derive(Debug)]
pub struct StoreError(String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        Self(e.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        Self(format!("stored JSON: {e}"))
    }
}

/// How long MRTR request states stay valid, and how many one owner keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLimits {
    /// A state older than this (ms) is gone: reading it finds nothing, and the tick deletes it.
    pub ttl_ms: u64,
    /// The newest this many states of an owner are kept; storing one more drops the oldest.
    pub max_per_owner: u64,
}

/// At most this many MRTR states per owner (the newest are kept).
pub const MAX_STATES_PER_OWNER: u64 = 1_000;

impl Default for StateLimits {
    fn default() -> Self {
        Self { ttl_ms: crate::config::DEFAULT_MRTR_STATE_TTL_MS, max_per_owner: MAX_STATES_PER_OWNER }
    }
}

/// The SQLite-backed store. Calls are short and serialised through one connection.
pub struct TaskStore {
    location: DbLocation,
    conn: Mutex<Connection>,
    states: StateLimits,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    live INTEGER NOT NULL,
    row TEXT NOT NULL,
    expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS tasks_live ON tasks(live);
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks(owner);
CREATE TABLE IF NOT EXISTS mrtr_states (
    token TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    body TEXT NOT NULL
);
";

fn connect(location: &DbLocation) -> Result<Connection, StoreError> {
    let conn = match location {
        DbLocation::Memory => Connection::open_in_memory()?,
        DbLocation::File(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| StoreError(format!("creating {}: {e}", dir.display())))?;
            }
            let conn = Connection::open(path)?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn
        }
    };
    conn.execute_batch(SCHEMA)?;
    add_expiry_column(&conn)?;
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks(expires_at);
         CREATE INDEX IF NOT EXISTS mrtr_states_owner ON mrtr_states(owner, created_at);
         CREATE INDEX IF NOT EXISTS mrtr_states_age ON mrtr_states(created_at);",
    )?;
    Ok(conn)
}

/// Inserts or replaces `row`; `live` is whether the engine tick reads it ([`TaskRow::ticks`]).
fn save_on(conn: &Connection, row: &TaskRow) -> Result<(), StoreError> {
    let json = serde_json::to_string(row)?;
    conn.execute(
        "INSERT INTO tasks (id, owner, live, row, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, live = excluded.live, row = excluded.row,
         expires_at = excluded.expires_at",
        params![row.id, row.owner, row.ticks(), json, row.expires_at()],
    )?;
    Ok(())
}

/// Databases written before `expires_at` existed get the column (filled from each row) on open.
fn add_expiry_column(conn: &Connection) -> Result<(), StoreError> {
    let has_column = conn.prepare("SELECT expires_at FROM tasks LIMIT 0").is_ok();
    if has_column {
        return Ok(());
    }
    conn.execute_batch("ALTER TABLE tasks ADD COLUMN expires_at INTEGER")?;
    let rows: Vec<(String, String)> = {
        let mut stmt = conn.prepare("SELECT id, row FROM tasks")?;
        let mapped = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        mapped.collect::<Result<_, _>>()?
    };
    for (id, json) in rows {
        let row: TaskRow = serde_json::from_str(&json)?;
        conn.execute("UPDATE tasks SET expires_at = ?1 WHERE id = ?2", params![row.expires_at(), id])?;
    }
    Ok(())
}

impl TaskStore {
    /// Opens (or creates) the store, with the default [`StateLimits`].
    pub fn open(location: DbLocation) -> Result<Self, StoreError> {
        let conn = connect(&location)?;
        Ok(Self { location, conn: Mutex::new(conn), states: StateLimits::default() })
    }

    /// The store with `limits` for MRTR states.
    pub fn with_state_limits(mut self, limits: StateLimits) -> Self {
        self.states = limits;
        self
    }

    /// Closes and reopens the database, as a process restart would (a fault for tests). An in-memory
    /// store keeps its connection: reopening would lose everything, which is not what a restart of a
    /// durable store does.
    pub fn reopen(&self) -> Result<(), StoreError> {
        if self.location == DbLocation::Memory {
            return Ok(());
        }
        let fresh = connect(&self.location)?;
        let mut conn = self.lock()?;
        *conn = fresh;
        Ok(())
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Connection>, StoreError> {
        self.conn.lock().map_err(|_| StoreError("the connection lock was poisoned".into()))
    }

    /// Inserts or replaces a task.
    pub fn save(&self, row: &TaskRow) -> Result<(), StoreError> {
        save_on(&*self.lock()?, row)
    }

    /// Inserts or replaces many tasks in one transaction (all or none).
    pub fn save_all(&self, rows: &[TaskRow]) -> Result<(), StoreError> {
        let conn = self.lock()?;
        let transaction = conn.unchecked_transaction()?;
        for row in rows {
            save_on(&transaction, row)?;
        }
        transaction.commit()?;
        Ok(())
    }

    /// The task `id` if it belongs to `owner`. Another owner's task reads as absent.
    pub fn get(&self, owner: &str, id: &str) -> Result<Option<TaskRow>, StoreError> {
        self.get_any(id).map(|row| row.filter(|r| r.owner == owner))
    }

    /// The task `id`, whoever owns it (for the login page and admin faults, which carry no token).
    pub fn get_any(&self, id: &str) -> Result<Option<TaskRow>, StoreError> {
        let json: Option<String> =
            self.lock()?.query_row("SELECT row FROM tasks WHERE id = ?1", params![id], |r| r.get(0)).optional()?;
        json.map(|j| serde_json::from_str(&j).map_err(StoreError::from)).transpose()
    }

    /// Every task the engine tick advances: not ended, and its tool works on a clock
    /// ([`TaskRow::ticks`]; an `idle_job` task is live but not listed here).
    pub fn live(&self) -> Result<Vec<TaskRow>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare("SELECT row FROM tasks WHERE live = 1")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for json in rows {
            out.push(serde_json::from_str(&json?)?);
        }
        Ok(out)
    }

    /// Every task of `owner` run by `tool`, ended or not.
    pub fn of_tool(&self, owner: &str, tool: &str) -> Result<Vec<TaskRow>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare("SELECT row FROM tasks WHERE owner = ?1 AND json_extract(row, '$.tool') = ?2")?;
        let rows = stmt.query_map(params![owner, tool], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for json in rows {
            out.push(serde_json::from_str(&json?)?);
        }
        Ok(out)
    }

    /// Ids of every task past its TTL (`expires_at <= now`), live or not.
    pub fn expired(&self, now: i64) -> Result<Vec<String>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn.prepare("SELECT id FROM tasks WHERE expires_at IS NOT NULL AND expires_at <= ?1")?;
        let ids = stmt.query_map(params![now], |r| r.get::<_, String>(0))?;
        Ok(ids.collect::<Result<_, _>>()?)
    }

    /// Deletes a task; later requests for it get -32602.
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.lock()?.execute("DELETE FROM tasks WHERE id = ?1", params![id])? > 0)
    }

    /// Number of tasks of `owner` stored, ended or not (until they expire).
    pub fn count_owned(&self, owner: &str) -> Result<u64, StoreError> {
        let count: i64 =
            self.lock()?.query_row("SELECT COUNT(*) FROM tasks WHERE owner = ?1", params![owner], |r| r.get(0))?;
        Ok(count.max(0) as u64)
    }

    /// Number of tasks stored.
    pub fn count(&self) -> Result<u64, StoreError> {
        Ok(self.lock()?.query_row("SELECT COUNT(*) FROM tasks", [], |r| r.get::<_, i64>(0))?.max(0) as u64)
    }

    /// Keeps an MRTR state server-side; the client only ever sees the token. The owner's oldest states
    /// past [`StateLimits::max_per_owner`] are dropped in the same transaction.
    pub fn put_state(&self, token: &str, owner: &str, now: i64, body: &Value) -> Result<(), StoreError> {
        let conn = self.lock()?;
        let transaction = conn.unchecked_transaction()?;
        transaction.execute(
            "INSERT OR REPLACE INTO mrtr_states (token, owner, created_at, body) VALUES (?1, ?2, ?3, ?4)",
            params![token, owner, now, body.to_string()],
        )?;
        let keep = i64::try_from(self.states.max_per_owner).unwrap_or(i64::MAX);
        transaction.execute(
            "DELETE FROM mrtr_states WHERE owner = ?1 AND rowid NOT IN
             (SELECT rowid FROM mrtr_states WHERE owner = ?1 ORDER BY created_at DESC, rowid DESC LIMIT ?2)",
            params![owner, keep],
        )?;
        transaction.commit()?;
        Ok(())
    }

    /// The oldest `created_at` a state may have at `now` and still be valid.
    fn oldest_valid_state(&self, now: i64) -> i64 {
        now.saturating_sub(i64::try_from(self.states.ttl_ms).unwrap_or(i64::MAX))
    }

    /// Reads an MRTR state if it belongs to `owner` and has not expired at `now`.
    pub fn get_state(&self, token: &str, owner: &str, now: i64) -> Result<Option<Value>, StoreError> {
        let body: Option<String> = self
            .lock()?
            .query_row(
                "SELECT body FROM mrtr_states WHERE token = ?1 AND owner = ?2 AND created_at > ?3",
                params![token, owner, self.oldest_valid_state(now)],
                |r| r.get(0),
            )
            .optional()?;
        Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
    }

    /// Deletes every MRTR state expired at `now`; how many.
    pub fn purge_states(&self, now: i64) -> Result<usize, StoreError> {
        Ok(self
            .lock()?
            .execute("DELETE FROM mrtr_states WHERE created_at <= ?1", params![self.oldest_valid_state(now)])?)
    }

    /// Number of MRTR states stored.
    pub fn state_count(&self) -> Result<u64, StoreError> {
        Ok(self.lock()?.query_row("SELECT COUNT(*) FROM mrtr_states", [], |r| r.get::<_, i64>(0))?.max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_tasks_web::json::json;

    fn store(ttl_ms: u64, max_per_owner: u64) -> TaskStore {
        TaskStore::open(DbLocation::Memory).expect("opens").with_state_limits(StateLimits { ttl_ms, max_per_owner })
    }

    #[test]
    fn states_expire_after_their_ttl() {
        let s = store(1_000, 10);
        s.put_state("rs_a", "alice", 5_000, &json!({ "tool": "ask_first" })).expect("put");
        assert_eq!(s.get_state("rs_a", "alice", 5_999).expect("get"), Some(json!({ "tool": "ask_first" })));
        assert_eq!(s.get_state("rs_a", "bob", 5_999).expect("get"), None, "another owner's");
        assert_eq!(s.get_state("rs_a", "alice", 6_000).expect("get"), None, "expired at created + ttl");
        s.put_state("rs_b", "alice", 5_500, &json!({})).expect("put");
        assert_eq!(s.purge_states(6_000).expect("purge"), 1, "only the expired one");
        assert_eq!(s.state_count().expect("count"), 1);
        assert!(s.get_state("rs_b", "alice", 6_000).expect("get").is_some());
        assert_eq!(s.purge_states(6_500).expect("purge"), 1);
        assert_eq!(s.state_count().expect("count"), 0);
    }

    #[test]
    fn an_owner_keeps_its_newest_states_only() {
        let s = store(60_000, 3);
        for i in 0..5 {
            s.put_state(&format!("rs_{i}"), "alice", 1_000 + i, &json!({ "i": i })).expect("put");
        }
        s.put_state("rs_bob", "bob", 1_000, &json!({})).expect("put");
        assert_eq!(s.state_count().expect("count"), 4, "3 of alice's, 1 of bob's");
        for (token, kept) in [("rs_0", false), ("rs_1", false), ("rs_2", true), ("rs_3", true), ("rs_4", true)] {
            assert_eq!(s.get_state(token, "alice", 2_000).expect("get").is_some(), kept, "{token}");
        }
        assert!(s.get_state("rs_bob", "bob", 2_000).expect("get").is_some(), "bob's cap is his own");
    }

    #[test]
    fn tasks_are_counted_per_owner() {
        let s = store(1_000, 10);
        let row =
            |id: &str, owner: &str| TaskRow::new(id.into(), owner.into(), "build", Default::default(), 0, None, 100);
        s.save_all(&[row("t1", "alice"), row("t2", "alice"), row("t3", "bob")]).expect("saved");
        assert_eq!((s.count_owned("alice").expect("n"), s.count_owned("bob").expect("n")), (2, 1));
        assert_eq!(s.count_owned("carol").expect("n"), 0);
        s.delete("t1").expect("deleted");
        assert_eq!(s.count_owned("alice").expect("n"), 1);
    }
}
