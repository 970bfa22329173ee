// Types of mcp_tasks_web.js (element.js under the card host's name), written by hand: the client's
// API, which element.js re-exports with the element (one driver, client.js); the card model's
// functions are not host API, so not typed here.
export * from "./client.js";
export { default } from "./client.js";
