// Deno entry of the JS driver's build (and Deno Deploy): reads the first door's .wasm beside this
// module before anything is exported, and the door with the 2025-11-25 flow from its file when a
// server or record needs it.
import init, { setFullDoor } from "./client.js";

await init({ module_or_path: await Deno.readFile(new URL("./client_bg.wasm", import.meta.url)) });
setFullDoor(async () => {
  const glue = await import("./client_full.js");
  await glue.default({ module_or_path: await Deno.readFile(new URL("./client_full_bg.wasm", import.meta.url)) });
  return glue.ClientDoor;
});

export * from "./client.js";
