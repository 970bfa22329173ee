// @ts-check
// Node entry point (Node 20+): the same API as the browser build. `init()` without an argument reads
// the .wasm beside this file, since Node's fetch cannot load file: URLs; for the same reason the door
// with the 2025-11-25 flow, loaded when a server needs it, is read from its file here.
import { readFile } from "node:fs/promises";
import initWeb, { setFullDoor } from "../driver/task_client.js";

export * from "../driver/task_client.js";

setFullDoor(async () => {
  const glue = await import("#pkg/client_full.js");
  await glue.default({ module_or_path: await readFile(new URL("./client_full_bg.wasm", import.meta.url)) });
  return glue.ClientDoor;
});

/**
 * @param {Parameters<typeof initWeb>[0]} [input]
 */
export default async function init(input) {
  if (input === undefined) {
    const bytes = await readFile(new URL("./client_bg.wasm", import.meta.url));
    return initWeb({ module_or_path: bytes });
  }
  return initWeb(input);
}
