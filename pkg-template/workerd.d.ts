// Types of mcp-tasks-web/workerd: the whole API, already initialised.
export * from "./client.js";
