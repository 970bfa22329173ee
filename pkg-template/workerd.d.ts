// Types of mcp-tasks-web/workerd: the whole API, already initialised.
export * from "./mcp_tasks_web.js";
