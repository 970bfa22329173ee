// Node entry of the JS driver's build (target/door-pkg/): `init()` without an argument reads the .wasm
// beside this file, since Node's fetch cannot load file: URLs.
import { readFile } from "node:fs/promises";
import initWeb from "./client.js";

export * from "./client.js";

export default async function init(input) {
  if (input === undefined) {
    const bytes = await readFile(new URL("./client_bg.wasm", import.meta.url));
    return initWeb({ module_or_path: bytes });
  }
  return initWeb(input);
}
