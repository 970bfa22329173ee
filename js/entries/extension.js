// @ts-check
// `mcp-tasks-web/extension`: the default entry. It was a build without the 2025-11-25 generation, for
// hosts whose servers all speak the Tasks extension; the default entry is that build now (its door
// without the 2025-11-25 flow), and loads the flow from beside it only when a server needs it.
export * from "#pkg/client.js";
export { default } from "#pkg/client.js";
