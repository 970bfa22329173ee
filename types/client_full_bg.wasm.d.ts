// `#pkg/client_full_bg.wasm` (`./client_full_bg.wasm` in pkg/) as workerd imports it: the full door's
// module, compiled ahead of time.
declare const module: WebAssembly.Module;
export default module;
