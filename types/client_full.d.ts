// Types of `#pkg/client_full.js`, `./client_full.js` in pkg/: the client build's full door's glue as the
// Node, Deno and workerd entries load it (`setFullDoor`).
export * from "./door.js";
export { default } from "./door.js";
