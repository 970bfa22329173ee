// Types of `#pkg/client_full.js` and `#pkg/mcp_tasks_web_full.js` (`./client_full.js` and
// `./mcp_tasks_web_full.js` in pkg/): each build's full door's glue as the Node, Deno and workerd
// entries (`setFullDoor`) and element.js (`setDoor`) load it.
export * from "./door.js";
export { default } from "./door.js";
