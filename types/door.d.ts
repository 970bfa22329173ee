// Types of `#door` (the root package.json's subpath imports), the glue wasm-bindgen generates for the
// door (src/bindings/), as the driver imports it and esbuild bundles it (xtask/src/wasm_build.rs).
// Written by hand, since the glue exists only in a build (target/js/); the element's exports answer
// `null` (words, answers) or "" (elapsed) in the client's build, which has no card model.

/** What `init` accepts: the .wasm's URL or bytes, a response, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;
export type SyncInitInput = BufferSource | WebAssembly.Module;

/** The instantiated module's exports the driver may read. */
export interface InitOutput {
  readonly memory: WebAssembly.Memory;
}

/** One client's state behind one call (`ClientDoor` in src/bindings/door.rs). */
export class ClientDoor {
  /** `options`: JSON text (`doorOptions`); throws the JSON text of an error (`{ name, message, code, retryable }`). */
  constructor(options: string, seed: number);
  /** Feeds one event (JSON text) at `now` with `body`; returns the effects as a JSON array's text. */
  handle(now: number, x: number, event: string, body: Uint8Array): string;
  /** The door protocol's version (docs/door.md, "Versions"): the driver refuses a door not of its own. */
  static version(): number;
  /** Releases the door's memory in the module. */
  free(): void;
}

export function protocolVersion(): string;
export function tasksExtensionId(): string;

/** Every word for `lang` with `layers` (JSON text) over the shipped ones, as JSON text (card host build). */
export function elementWords(lang: string, layers: string): string;
/** `{ answer }`, `{ errors }` or `null` as JSON text, for what was `entered` in a form of `schema` (card host build). */
export function elementAnswer(schema: string, entered: string, words: string): string;
/** A duration in ms as the card's clock shows it (card host build). */
export function elementElapsed(ms: number): string;

export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;
export default function init(
  module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>,
): Promise<InitOutput>;
