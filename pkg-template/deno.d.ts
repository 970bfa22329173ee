// Types of mcp-tasks-web/deno: the whole API, already initialised.
export * from "./mcp_tasks_web.js";
