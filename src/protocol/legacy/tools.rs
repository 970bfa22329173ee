//! The per-tool task flag of 2025-11-25 (`Tool.execution.taskSupport`) and the rule for `params.task`.
use crate::json::Value;

use super::super::fields::{self, Object};
use super::super::result_type::expect_complete;
use super::super::DecodeError;
use super::handshake::LegacyTaskCapabilities;

/// `Tool.execution.taskSupport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// The tool never runs as a task (also the default when the flag is absent).
    Forbidden,
    /// The client may ask for a task.
    Optional,
    /// The tool only runs as a task.
    Required,
}

impl TaskSupport {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }

    /// Reads a wire value. An unknown value reads as `forbidden`, the schema's default: the client then
    /// never sends a `params.task` the server did not promise to accept.
    pub(crate) fn from_wire(s: &str) -> Self {
        match s {
            "optional" => Self::Optional,
            "required" => Self::Required,
            _ => Self::Forbidden,
        }
    }
}

/// Reads `execution.taskSupport` of one tool definition. Absent reads as `forbidden`; a present
/// `execution` or `taskSupport` of the wrong JSON type is an error.
pub fn task_support(tool: &Value) -> Result<TaskSupport, DecodeError> {
    let obj = fields::object(tool, "tool")?;
    let Some(execution) = fields::optional_object(obj, "tool", "execution")? else { return Ok(TaskSupport::Forbidden) };
    Ok(fields::optional_str(execution, "tool.execution", "taskSupport")?
        .map_or(TaskSupport::Forbidden, TaskSupport::from_wire))
}

/// Whether a `tools/call` should carry `params.task`: only when the server declared
/// `tasks.requests.tools.call` and the tool allows it (`optional`: this client always opts in, so a long
/// call survives a reload; `required`). Without the server flag the spec forbids task augmentation
/// whatever the tool says, so a `required` tool is then called plainly and its error shown.
pub fn attach_task(server: Option<&LegacyTaskCapabilities>, support: TaskSupport) -> bool {
    server.is_some_and(|caps| caps.tools_call) && matches!(support, TaskSupport::Optional | TaskSupport::Required)
}

/// One tool of a `tools/list` page, with its task flag read and its definition kept as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyTool {
    /// `name`.
    pub name: String,
    /// `execution.taskSupport`.
    pub task_support: TaskSupport,
    /// The whole definition, untouched (schemas are never rewritten).
    pub definition: Object,
}

/// One page of `tools/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyToolPage {
    /// The tools on this page, in server order.
    pub tools: Vec<LegacyTool>,
    /// The cursor of the next page, if any.
    pub next_cursor: Option<String>,
}

/// Decodes a `tools/list` result.
pub fn decode_tool_page(value: &Value) -> Result<LegacyToolPage, DecodeError> {
    const WHAT: &str = "tools/list result";
    let obj = fields::object(value, WHAT)?;
    expect_complete(obj, "tools/list")?;
    let items = match obj.get("tools") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(fields::wrong_type(WHAT, "tools", "an array")),
        None => return Err(DecodeError::MissingField { what: WHAT, field: "tools" }),
    };
    let mut tools = Vec::with_capacity(items.len());
    for item in items {
        let definition = fields::object(item, "tool")?;
        tools.push(LegacyTool {
            name: fields::required_str(definition, "tool", "name")?.to_owned(),
            task_support: task_support(item)?,
            definition: definition.clone(),
        });
    }
    Ok(LegacyToolPage { tools, next_cursor: fields::optional_str(obj, WHAT, "nextCursor")?.map(str::to_owned) })
}
