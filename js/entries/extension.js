// @ts-check
// `mcp-tasks-web/extension`: the default entry under another name (the client build, whose door loads
// the 2025-11-25 flow from beside it only when a server needs it).
export * from "../driver/task_client.js";
export { default } from "../driver/task_client.js";
