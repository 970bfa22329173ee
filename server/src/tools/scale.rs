//! The scale tools, offered in light mode only (`--light`): `idle_job` (a task that stays `working` at no
//! cost), `idle_seed {count}` (creates that many of them in one call) and `idle_set {status, message}`
//! (changes every live `idle_job` task of the caller at once). Benchmarks use them to carry 10,000 live
//! tasks without 10,000 `tools/call`s, a timer per task, or a tick that reads every row.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::RpcError;

use super::args::invalid;
use super::{object_schema, Begin, Bulk, CallContext, IdleTarget, TaskSupport, Tool, ToolEnv};
use crate::row::TaskRow;

/// The most tasks one `idle_seed` creates.
pub const MAX_SEED: u64 = 100_000;

/// The tool name of idle tasks (`idle_seed` creates tasks of this tool).
pub const IDLE_JOB: &str = "idle_job";

/// The status message of an idle task until `idle_set` changes it.
pub const IDLE_MESSAGE: &str = "Idle until released";

/// `idle_job {}`: stays `working` with the same message until `idle_set` moves it (or it is cancelled or
/// expires). The engine tick skips it, so a live idle task costs a stored row and nothing else.
pub struct IdleJob;

impl Tool for IdleJob {
    fn name(&self) -> &'static str {
        IDLE_JOB
    }
    fn description(&self) -> &'static str {
        "A task that stays working, unchanged, until idle_set changes it (light mode; costs nothing while idle)."
    }
    fn input_schema(&self) -> Value {
        object_schema(json!({}), &[])
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Required
    }
    fn begin(&self, _ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        Ok(Begin::Task { message: IDLE_MESSAGE.into(), data: Value::Null })
    }
    /// Nothing happens on a clock: only `idle_set`, a cancel or the TTL move an idle task.
    fn advance(&self, _row: &mut TaskRow, _now: i64, _env: &ToolEnv) {}
    fn ticks(&self) -> bool {
        false
    }
}

/// `idle_seed {count, like?}`: creates `count` idle tasks for the caller in one store transaction and
/// returns their ids in `structuredContent.taskIds`. With `like` (the id of one of the caller's tasks) the
/// new tasks carry that task's `createdAt` and `lastUpdatedAt`, so a client can hold copies of that task's
/// stored handle (the id replaced) that match the server's view of each new task exactly. Synchronous.
pub struct IdleSeed;

impl Tool for IdleSeed {
    fn name(&self) -> &'static str {
        "idle_seed"
    }
    fn description(&self) -> &'static str {
        "Creates `count` idle_job tasks at once and returns their ids (light mode; synchronous)."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "count": { "type": "integer", "minimum": 1, "maximum": MAX_SEED, "description": "How many idle tasks to create" },
                "like": { "type": "string", "description": "A task of yours whose createdAt and lastUpdatedAt the new tasks take" }
            }),
            &["count"],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let count = ctx
            .args
            .0
            .get("count")
            .and_then(Value::as_u64)
            .filter(|n| (1..=MAX_SEED).contains(n))
            .ok_or_else(|| invalid(format!("`count` must be a whole number between 1 and {MAX_SEED}")))?;
        let like = match ctx.args.0.get("like") {
            None | Some(Value::Null) => None,
            Some(_) => Some(ctx.args.required_text("like")?),
        };
        Ok(Begin::Bulk(Bulk::SeedIdle { count: count as usize, like }))
    }
    fn advance(&self, _row: &mut TaskRow, _now: i64, _env: &ToolEnv) {}
}

/// `idle_set {status = "completed", message?}`: moves every live idle task of the caller at once —
/// `completed` ends it (one status change per task), `working` keeps it live with `message` as its new
/// status message. Returns how many changed in `structuredContent.changed`. Synchronous.
pub struct IdleSet;

impl Tool for IdleSet {
    fn name(&self) -> &'static str {
        "idle_set"
    }
    fn description(&self) -> &'static str {
        "Completes every live idle_job task at once, or gives them a new working message (light mode; synchronous)."
    }
    fn input_schema(&self) -> Value {
        object_schema(
            json!({
                "status": { "type": "string", "enum": ["completed", "working"], "default": "completed", "description": "completed ends each idle task; working only changes its message" },
                "message": { "type": "string", "description": "The new status message" }
            }),
            &[],
        )
    }
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }
    fn begin(&self, ctx: &CallContext<'_>) -> Result<Begin, RpcError> {
        let status = ctx.args.text("status", "completed")?;
        let target = match status.as_str() {
            "completed" => IdleTarget::Completed(ctx.args.text("message", "Released")?),
            "working" => IdleTarget::Working(ctx.args.required_text("message")?),
            other => return Err(invalid(format!("`status` must be \"completed\" or \"working\", not {other:?}"))),
        };
        Ok(Begin::Bulk(Bulk::SetIdle(target)))
    }
    fn advance(&self, _row: &mut TaskRow, _now: i64, _env: &ToolEnv) {}
}
