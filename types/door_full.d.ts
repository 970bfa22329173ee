// Types of `#door-full`: the glue of the door with the 2025-11-25 flow (cargo feature `legacy`),
// which the driver imports only when it hands over to it (`#handOver`); the same exports as the first.
export * from "./door.js";
export { default } from "./door.js";
