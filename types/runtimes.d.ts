// The slices of the runtimes' own APIs the Node and Deno entries use (node.mjs, deno.mjs), declared here
// rather than installing @types/node or Deno's types for two calls.
declare module "node:fs/promises" {
  export function readFile(path: URL): Promise<Uint8Array>;
}

declare namespace Deno {
  function readFile(path: URL): Promise<Uint8Array>;
}
