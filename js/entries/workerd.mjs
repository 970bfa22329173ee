// @ts-check
// Entry for workerd (Cloudflare Workers, wrangler, miniflare): both doors are imported as modules,
// so the platform compiles them ahead of time; workerd forbids compiling wasm from bytes at run time
// and there is no URL to fetch one from. The first is instantiated now, the one with the 2025-11-25
// flow when a server or record needs it.
import wasm from "#pkg/client_bg.wasm";
import fullWasm from "#pkg/client_full_bg.wasm";
import { initSync, setFullDoor } from "../driver/task_client.js";
import { ClientDoor as FullDoor, initSync as initFull } from "#pkg/client_full.js";

initSync({ module: wasm });
setFullDoor(async () => {
  initFull({ module: fullWasm });
  return FullDoor;
});

export * from "../driver/task_client.js";
