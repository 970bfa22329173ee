// Entry for Deno (and Deno Deploy): reads the .wasm beside this module and initialises it before
// anything is exported, so `import { TaskClient } from "mcp-tasks-web/deno"` is ready to use.
import init from "./client.js";

await init({ module_or_path: await Deno.readFile(new URL("./client_bg.wasm", import.meta.url)) });

export * from "./client.js";
