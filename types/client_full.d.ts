// Types of `./client_full.js` in pkg/: the full door's glue as the Node, Deno and workerd entries load
// it (`setFullDoor`), renamed from `door_full.js` by the build.
export * from "./door.js";
export { default } from "./door.js";
