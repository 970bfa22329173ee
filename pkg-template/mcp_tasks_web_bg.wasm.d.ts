// The module's one export a host may read: its memory (to measure it). Its functions are the door's,
// called only by the glue beside it, under short names that change from build to build.
export const memory: WebAssembly.Memory;
