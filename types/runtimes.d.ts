// The slices of the runtimes' own APIs the Node and Deno entries use (node.mjs, deno.mjs), declared here
// rather than installing @types/node or Deno's types for two calls.
declare module "node:fs/promises" {
  export function readFile(path: URL): Promise<Uint8Array>;
}

declare namespace Deno {
  function readFile(path: URL): Promise<Uint8Array>;
}

// The official SDK's declarations (which mcp-tasks-web/app's bundled host bridge brings into the type
// check) name Node's `Buffer` in one stdio parameter; only as a type, never as a value here.
interface Buffer extends Uint8Array {}
