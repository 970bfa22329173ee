// Timers and page signals, the JS half of src/host/globals.rs. Everything is looked up on the
// global object (never `window`), so one .wasm runs in pages, workers, Node, Deno and workerd.

/** A pending `setTimeout`; `clear()` clears it. Throws where the runtime has no `setTimeout`. */
export class Timer {
  constructor(ms, callback) {
    this.handle = setTimeout(callback, ms);
  }

  clear() {
    clearTimeout(this.handle);
  }

  /** Resolves after `ms` milliseconds. */
  static sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/** What the runtime says about the page (static methods: the .wasm calls each through the glue). */
export class Page {
  /** `navigator.onLine`, or true where there is no navigator (Node, workerd). */
  static online() {
    return globalThis.navigator?.onLine !== false;
  }

  /** Whether the page is hidden (`document.visibilityState`); false outside pages. */
  static hidden() {
    return globalThis.document?.visibilityState === "hidden";
  }

  /**
   * Calls `onConnectivity()` on `online`, `offline` and `pageshow` (back from the bfcache), and
   * `onVisibility(hidden)` when the page is shown or hidden, where the runtime has these events.
   * Returns the function that stops listening.
   */
  static watch(onConnectivity, onVisibility) {
    const visibility = () => onVisibility(Page.hidden());
    const listen = (method) => {
      for (const kind of ["online", "offline", "pageshow"]) globalThis[method]?.(kind, onConnectivity);
      globalThis.document?.[method]?.("visibilitychange", visibility);
    };
    listen("addEventListener");
    return () => listen("removeEventListener");
  }
}
