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

/// The SQLite-backed store. Calls are short and serialised through one connection.
pub struct TaskStore {
    location: DbLocation,
    conn: Mutex<Connection>,
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
    conn.execute_batch("CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks(expires_at)")?;
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
    /// Opens (or creates) the store.
    pub fn open(location: DbLocation) -> Result<Self, StoreError> {
        let conn = connect(&location)?;
        Ok(Self { location, conn: Mutex::new(conn) })
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

    /// Number of tasks stored.
    pub fn count(&self) -> Result<u64, StoreError> {
        Ok(self.lock()?.query_row("SELECT COUNT(*) FROM tasks", [], |r| r.get::<_, i64>(0))?.max(0) as u64)
    }

    /// Keeps an MRTR state server-side; the client only ever sees the token.
    pub fn put_state(&self, token: &str, owner: &str, now: i64, body: &Value) -> Result<(), StoreError> {
        self.lock()?.execute(
            "INSERT OR REPLACE INTO mrtr_states (token, owner, created_at, body) VALUES (?1, ?2, ?3, ?4)",
            params![token, owner, now, body.to_string()],
        )?;
        Ok(())
    }

    /// Reads an MRTR state if it belongs to `owner`.
    pub fn get_state(&self, token: &str, owner: &str) -> Result<Option<Value>, StoreError> {
        let body: Option<String> = self
            .lock()?
            .query_row("SELECT body FROM mrtr_states WHERE token = ?1 AND owner = ?2", params![token, owner], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
    }
}
