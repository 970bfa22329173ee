// Types of the card host's build (mcp_tasks_web.js: the JS driver over the door with the element's
// model), written by hand. Its API is the client's; element.js re-exports it with the element, and
// reaches the card model through exports that are not host API (so not typed here).
export * from "./client.js";
export { default } from "./client.js";
