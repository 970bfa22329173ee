// `mcp-tasks-web/extension` is the default entry (extension.js says why).
export * from "./client.js";
export { default } from "./client.js";
