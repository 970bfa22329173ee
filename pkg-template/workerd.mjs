// Entry for workerd (Cloudflare Workers, wrangler, miniflare): the .wasm is imported as a module, so
// the platform compiles it ahead of time, and it is instantiated synchronously here — workerd forbids
// compiling wasm from bytes at run time and there is no URL to fetch it from.
import wasm from "./client_bg.wasm";
import { initSync } from "./client.js";

initSync({ module: wasm });

export * from "./client.js";
