// `#pkg/client_bg.wasm` (`./client_bg.wasm` in pkg/) as workerd imports it (a module compiled ahead of
// time: its default export is the `WebAssembly.Module`); pkg-template/client_bg.wasm.d.ts types the same
// file for hosts that read its exports.
declare const module: WebAssembly.Module;
export default module;
