// Types of mcp-tasks-web/deno: the whole API, already initialised.
export * from "./client.js";
