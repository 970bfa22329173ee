// @ts-check
// Entry for Deno (and Deno Deploy): reads the first door's .wasm beside this module and initialises it
// before anything is exported, so `import { TaskClient } from "mcp-tasks-web/deno"` is ready to use;
// the door with the 2025-11-25 flow is read from its file when a server or record needs it.
import init, { setFullDoor } from "../driver/task_client.js";

await init({ module_or_path: await Deno.readFile(new URL("./client_bg.wasm", import.meta.url)) });
setFullDoor(async () => {
  const glue = await import("#pkg/client_full.js");
  await glue.default({ module_or_path: await Deno.readFile(new URL("./client_full_bg.wasm", import.meta.url)) });
  return glue.ClientDoor;
});

export * from "../driver/task_client.js";
