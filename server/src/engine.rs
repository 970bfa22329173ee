//! The task engine: creates tasks (stored before the handle leaves), applies updates and cancels, and
//! advances every live task on a tick. Every change is saved, then announced to listen streams.
use std::sync::Mutex;

use mcp_tasks_web::json::Value;
use mcp_tasks_web::protocol::input::InputResponses;
use mcp_tasks_web::protocol::jsonrpc::{codes, RpcError};
use mcp_tasks_web::protocol::tool_result::CallToolResult;
use mcp_tasks_web::protocol::Object;
use tokio::sync::broadcast;

use crate::ids::{now_ms, random_id};
use crate::row::TaskRow;
use crate::store::{StoreError, TaskStore};
use crate::tools::scale::{IDLE_JOB, IDLE_MESSAGE};
use crate::tools::{self, IdleTarget, Tool, ToolEnv};

/// A task changed: listen streams reload it and notify its subscribers.
#[derive(Debug, Clone)]
pub struct TaskChanged {
    /// The task.
    pub id: String,
}

/// Engine settings from the command line.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// `pollIntervalMs` suggested on every task.
    pub poll_interval_ms: u64,
    /// `ttlMs` of new tasks (`None` = unlimited).
    pub ttl_ms: Option<u64>,
    /// Light mode: the scale tools are offered.
    pub light: bool,
    /// Tasks one owner may have stored at once (`--max-tasks-per-owner`).
    pub max_tasks_per_owner: u64,
}

/// Owns the store and drives the tools.
pub struct Engine {
    store: TaskStore,
    settings: EngineSettings,
    env: ToolEnv,
    changes: broadcast::Sender<TaskChanged>,
    /// Serialises read-modify-write of rows between the ticker and request handlers.
    writer: Mutex<()>,
}

/// The store failed: reported as -32603, never as a silent drop.
pub fn internal(e: StoreError) -> RpcError {
    RpcError::new(codes::INTERNAL_ERROR, format!("Internal error: {e}"))
}

/// -32602 for a task that does not exist, expired, or belongs to someone else.
pub fn unknown_task(id: &str) -> RpcError {
    RpcError::new(codes::INVALID_PARAMS, format!("Task not found (unknown, expired or not yours): {id}"))
}

/// -32000 for a creation that would take `owner` past the cap: says the cap and how to get under it.
pub fn too_many_tasks(cap: u64) -> RpcError {
    RpcError::new(
        -32000,
        format!(
            "Too many tasks: this server keeps at most {cap} tasks per caller (--max-tasks-per-owner) until they \
             expire; wait for some to expire, then call again"
        ),
    )
    .with_data(mcp_tasks_web::json!({ "maxTasksPerOwner": cap }))
}

impl Engine {
    /// An engine over `store`.
    pub fn new(store: TaskStore, settings: EngineSettings, base_url: String) -> Self {
        let (changes, _) = broadcast::channel(1024);
        Self { store, settings, env: ToolEnv { base_url }, changes, writer: Mutex::new(()) }
    }

    /// The store (for MRTR state, admin faults and tests).
    pub fn store(&self) -> &TaskStore {
        &self.store
    }

    /// Whether the scale tools are offered (`--light`).
    pub fn light(&self) -> bool {
        self.settings.light
    }

    /// Subscribes to task changes.
    pub fn subscribe(&self) -> broadcast::Receiver<TaskChanged> {
        self.changes.subscribe()
    }

    /// Refuses `more` new tasks for `owner` when its stored ones plus them pass the cap. Called under
    /// the writer lock, so two requests cannot both take the last place.
    fn check_quota(&self, owner: &str, more: u64) -> Result<(), RpcError> {
        let cap = self.settings.max_tasks_per_owner;
        let stored = self.store.count_owned(owner).map_err(internal)?;
        if stored.saturating_add(more) > cap {
            return Err(too_many_tasks(cap));
        }
        Ok(())
    }

    fn locked<T>(&self, f: impl FnOnce() -> Result<T, RpcError>) -> Result<T, RpcError> {
        let _guard = self
            .writer
            .lock()
            .map_err(|_| RpcError::new(codes::INTERNAL_ERROR, "Internal error: engine lock poisoned"))?;
        f()
    }

    /// Creates a task and stores it before returning, so a `tasks/get` for its id succeeds at once.
    pub fn create(
        &self,
        owner: &str,
        tool: &dyn Tool,
        arguments: Object,
        message: String,
        data: Value,
    ) -> Result<TaskRow, RpcError> {
        let now = now_ms();
        let mut row = TaskRow::new(
            random_id("tsk_"),
            owner.to_owned(),
            tool.name(),
            arguments,
            now,
            self.settings.ttl_ms,
            self.settings.poll_interval_ms,
        );
        row.status_message = Some(message);
        row.data = data;
        self.locked(|| {
            self.check_quota(owner, 1)?;
            tools::step(tool, &mut row, now, &self.env);
            self.store.save(&row).map_err(internal)
        })?;
        Ok(row)
    }

    /// `idle_seed`: creates `count` `idle_job` tasks for `owner` in one store transaction; their ids.
    /// With `like` (a task of `owner`), they take its `createdAt` and `lastUpdatedAt`.
    pub fn seed_idle(&self, owner: &str, count: usize, like: Option<&str>) -> Result<Vec<String>, RpcError> {
        let now = now_ms();
        let (created, updated) = match like {
            Some(id) => {
                let model = self.get(owner, id)?;
                (model.created_at, model.updated_at)
            }
            None => (now, now),
        };
        let rows: Vec<TaskRow> = (0..count)
            .map(|_| {
                let mut row = TaskRow::new(
                    random_id("tsk_"),
                    owner.to_owned(),
                    IDLE_JOB,
                    Object::new(),
                    created,
                    self.settings.ttl_ms,
                    self.settings.poll_interval_ms,
                );
                row.status_message = Some(IDLE_MESSAGE.to_owned());
                row.updated_at = updated;
                row
            })
            .collect();
        self.locked(|| {
            self.check_quota(owner, rows.len() as u64)?;
            self.store.save_all(&rows).map_err(internal)
        })?;
        Ok(rows.into_iter().map(|r| r.id).collect())
    }

    /// `idle_set`: moves every live `idle_job` task of `owner` to `target` in one store transaction and
    /// announces each change; how many tasks changed.
    pub fn set_idle(&self, owner: &str, target: &IdleTarget) -> Result<usize, RpcError> {
        self.locked(|| {
            let now = now_ms();
            let mut changed = Vec::new();
            for mut row in self.store.of_tool(owner, IDLE_JOB).map_err(internal)? {
                if row.is_terminal() {
                    continue;
                }
                let before = row.clone();
                match target {
                    IdleTarget::Completed(message) => row.complete(
                        mcp_tasks_web::protocol::tool_result::CallToolResult::text("Released by idle_set"),
                        message.clone(),
                    ),
                    IdleTarget::Working(message) => row.working(message.clone()),
                }
                if row.visible_change(&before) {
                    row.updated_at = now.max(before.updated_at);
                    changed.push(row);
                }
            }
            self.store.save_all(&changed).map_err(internal)?;
            for row in &changed {
                let _ = self.changes.send(TaskChanged { id: row.id.clone() });
            }
            Ok(changed.len())
        })
    }

    /// The caller's task.
    pub fn get(&self, owner: &str, id: &str) -> Result<TaskRow, RpcError> {
        self.store.get(owner, id).map_err(internal)?.ok_or_else(|| unknown_task(id))
    }

    /// Applies answers: keys that are outstanding and unanswered are taken; unknown and already answered
    /// keys are ignored, as the spec says. A subset is fine: the task stays `input_required` for the rest.
    pub fn update(&self, owner: &str, id: &str, responses: &InputResponses) -> Result<(), RpcError> {
        self.locked(|| {
            let mut row = self.get(owner, id)?;
            if row.is_terminal() {
                return Ok(());
            }
            let mut outstanding = row.requests();
            let mut taken = false;
            for (key, response) in responses {
                if outstanding.remove(key).is_some() && !row.answers.contains_key(key) {
                    row.answers.insert(key.clone(), response.to_json());
                    taken = true;
                }
            }
            if !taken {
                return Ok(());
            }
            let before = row.clone();
            row.input_requests = mcp_tasks_web::protocol::input::encode_input_requests(&outstanding);
            if outstanding.is_empty() {
                row.working("Input received");
            }
            self.advance_and_save(&mut row, &before)
        })
    }

    /// Records a cancel request and lets the tool react. Idempotent; an ack for a finished task too.
    pub fn cancel(&self, owner: &str, id: &str) -> Result<(), RpcError> {
        self.locked(|| {
            let mut row = self.get(owner, id)?;
            if row.is_terminal() || row.cancel_requested {
                return Ok(());
            }
            let before = row.clone();
            row.cancel_requested = true;
            self.advance_and_save(&mut row, &before)
        })
    }

    /// Marks a login task's page as visited (the user "signed in").
    pub fn visit_login(&self, id: &str) -> Result<bool, RpcError> {
        self.locked(|| {
            let Some(mut row) = self.store.get_any(id).map_err(internal)? else { return Ok(false) };
            if row.tool != "login" || row.is_terminal() {
                return Ok(false);
            }
            let before = row.clone();
            row.data = mcp_tasks_web::json!({ "visited": true });
            self.advance_and_save(&mut row, &before)?;
            Ok(true)
        })
    }

    /// Expires a task now (a fault for tests): later requests for it get -32602.
    pub fn expire(&self, id: &str) -> Result<bool, RpcError> {
        self.locked(|| {
            let deleted = self.store.delete(id).map_err(internal)?;
            if deleted {
                let _ = self.changes.send(TaskChanged { id: id.to_owned() });
            }
            Ok(deleted)
        })
    }

    fn advance_and_save(&self, row: &mut TaskRow, before: &TaskRow) -> Result<(), RpcError> {
        let now = now_ms();
        if let Some(tool) = tools::find(&row.tool) {
            tools::step(tool, row, now, &self.env);
        }
        if row.visible_change(before) {
            row.updated_at = now.max(before.updated_at);
        }
        if row != before {
            self.store.save(row).map_err(internal)?;
            if row.visible_change(before) {
                let _ = self.changes.send(TaskChanged { id: row.id.clone() });
            }
        }
        Ok(())
    }

    /// One pass: advances every live task, deletes those past their TTL and expired MRTR states.
    pub fn tick(&self) -> Result<(), RpcError> {
        self.locked(|| {
            let now = now_ms();
            self.store.purge_states(now).map_err(internal)?;
            for id in self.store.expired(now).map_err(internal)? {
                self.store.delete(&id).map_err(internal)?;
                let _ = self.changes.send(TaskChanged { id });
            }
            for mut row in self.store.live().map_err(internal)? {
                let before = row.clone();
                self.advance_and_save(&mut row, &before)?;
            }
            Ok(())
        })
    }

    /// Runs a task-capable tool to its end without a task, for a client that did not declare the
    /// extension: the same state machine, driven in memory.
    pub async fn run_inline(
        &self,
        tool: &dyn Tool,
        arguments: Object,
        data: Value,
    ) -> Result<CallToolResult, RpcError> {
        let start = now_ms();
        let mut row = TaskRow::new(String::new(), String::new(), tool.name(), arguments, start, None, 0);
        row.data = data;
        loop {
            tools::step(tool, &mut row, now_ms(), &self.env);
            if row.is_terminal() {
                break;
            }
            if row.status() == mcp_tasks_web::protocol::task::TaskStatus::InputRequired {
                return Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    "the tool needs input, which only a task can ask for",
                ));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        match (row.result, row.error) {
            (Some(result), _) => {
                CallToolResult::from_json(&result).map_err(|e| RpcError::new(codes::INTERNAL_ERROR, e.to_string()))
            }
            (None, Some(error)) => {
                Err(RpcError::from_json(&error)
                    .unwrap_or_else(|_| RpcError::new(codes::INTERNAL_ERROR, "the tool failed")))
            }
            (None, None) => Err(RpcError::new(codes::INTERNAL_ERROR, "the tool was cancelled")),
        }
    }
}
