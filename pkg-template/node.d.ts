// Types of the package's "node" entry (node.mjs): the browser API, and init() that may be called
// without an argument (it then reads the .wasm beside node.mjs).
export * from "./client.js";
export { default } from "./client.js";
