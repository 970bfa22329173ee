// @ts-check
// `pkg/mcp_tasks_web.js`: the API of "mcp-tasks-web/element" (element.js over the main entry,
// client.js), under the name the card host's module has, for pages that load it by that name.
export * from "../element/element.js";
export { default } from "../element/element.js";
