// @ts-check
// The page's environment for the driver (task_client.js), in one module: thrown values as text and
// client errors as JS Errors, the host's callbacks, page signals (online, hidden, a small key-value
// hint in localStorage), the client's events and system notifications, the tabs' BroadcastChannel and
// Web Locks. Each wraps a browser API; where a runtime lacks one, the fallback is said beside it.

// --- thrown values as text, and client errors as JS Errors
/**
 * A thrown or rejected value as text a person can read: an Error's `name: message` (either alone when
 * the other is empty), a string as itself, anything else as `String(value)` shows it.
 * @param {unknown} value
 * @returns {string}
 */
export function errorText(value) {
  try {
    if (!(value instanceof Error)) return String(value);
    const name = String(value.name ?? "");
    const message = String(value.message ?? "");
    return name && message ? `${name}: ${message}` : message || name;
  } catch {
    // A hostile `toString` or getter, or a revoked Proxy.
    return "(a value that cannot be shown as text)";
  }
}

/** The host's callbacks (static methods: the .wasm calls each through the glue). */
export class Host {
  /**
   * Calls the host's `onInputRequired(requests)` and resolves with what it
   * returns or resolves to; rejects with the text of why not, saying whether it threw or rejected.
   * @param {(requests: InputRequests) => unknown} callback
   * @param {InputRequests} requests
   */
  static async ask(callback, requests) {
    let answer;
    try {
      answer = callback(requests);
    } catch (thrown) {
      throw `onInputRequired threw: ${errorText(thrown)}`;
    }
    try {
      return await answer;
    } catch (thrown) {
      throw `onInputRequired rejected: ${errorText(thrown)}`;
    }
  }
}

/** @import { InputRequests, TaskClientErrorName } from "#pkg/client.js" */
/** @typedef {Error & { code: number | null, retryable: boolean }} ClientError */

/**
 * A client error as hosts get it: an Error with `name`, `code` (a number or null) and `retryable`.
 * @param {string} message
 * @param {TaskClientErrorName} name
 * @param {number | null | undefined} code
 * @param {boolean} retryable
 */
export function clientError(message, name, code, retryable) {
  const error = /** @type {ClientError} */ (new Error(message));
  error.name = name;
  error.code = code ?? null;
  error.retryable = retryable;
  return error;
}

// --- page signals
/** What the runtime says about the page. */
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
   * `localStorage.getItem(key)` (the poller's early hint); undefined where there
   * is no storage (workers, Node, edge runtimes) or it refuses (a sandboxed frame, a browser setting).
   * @param {string} key
   * @returns {string | undefined}
   */
  static stored(key) {
    try {
      return globalThis.localStorage?.getItem(key) ?? undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Stores `value` under `key` in `localStorage`, or removes the key (undefined); a refusal is left unsaid.
   * @param {string} key
   * @param {string | undefined} value
   */
  static store(key, value) {
    try {
      const storage = globalThis.localStorage;
      if (value === undefined) storage?.removeItem(key);
      else storage?.setItem(key, value);
    } catch {
      // Quota, or a blocked storage: the hint is a shortcut, and the next change writes it again.
    }
  }

  /**
   * Calls `onConnectivity()` on `online`, `offline` and `pageshow` (back from the bfcache), and
   * `onVisibility(hidden)` when the page is shown or hidden, where the runtime has these events.
   * Returns the function that stops listening.
   * @param {() => void} onConnectivity
   * @param {(hidden: boolean) => void} onVisibility
   */
  static watch(onConnectivity, onVisibility) {
    const visibility = () => onVisibility(Page.hidden());
    const listen = (/** @type {"addEventListener" | "removeEventListener"} */ method) => {
      for (const kind of ["online", "offline", "pageshow"]) globalThis[method]?.(kind, onConnectivity);
      globalThis.document?.[method]?.("visibilitychange", visibility);
    };
    listen("addEventListener");
    return () => listen("removeEventListener");
  }
}

// --- events and notifications
/**
 * The client's events: `target`, a fresh EventTarget the host listens on through `listen` (null where
 * the runtime has none: events are skipped, not fatal), and `emit(kind, detail)`, which queues a
 * CustomEvent. The queue goes out in order on the next macrotask, so listeners added right after
 * `await TaskClient.open()` still hear what `open()` found.
 */
export class EventQueue {
  constructor() {
    this.target = typeof EventTarget === "function" ? new EventTarget() : null;
    /** @type {Array<[string, unknown]>} */
    this.queue = [];
  }

  /**
   * @param {string} kind
   * @param {unknown} detail
   */
  emit(kind, detail) {
    this.queue.push([kind, detail]);
    if (this.queue.length > 1) return;
    setTimeout(() => {
      const pending = this.queue;
      this.queue = [];
      for (const [kind, detail] of pending) dispatch(this.target, kind, detail);
    }, 0);
  }

  /**
   * @param {boolean} add
   * @param {string} kind
   * @param {(event: CustomEvent) => void} listener
   * @param {boolean | AddEventListenerOptions | undefined} options
   */
  listen(add, kind, listener, options) {
    this.target?.[add ? "addEventListener" : "removeEventListener"](
      kind,
      /** @type {EventListener} */ (listener),
      options,
    );
  }
}

/**
 * @param {EventTarget | null} target
 * @param {string} kind
 * @param {unknown} detail
 */
function dispatch(target, kind, detail) {
  if (target !== null && typeof CustomEvent === "function") target.dispatchEvent(new CustomEvent(kind, { detail }));
}

/**
 * The page's language (the root element's `lang`, else the browser's), or undefined when the person
 * has not allowed this origin's notifications (or there is no Notification API): no notice is shown.
 */
export function noticeLanguage() {
  if (typeof Notification !== "function" || Notification.permission !== "granted") return undefined;
  return globalThis.document?.documentElement?.lang || globalThis.navigator?.language || "";
}

/**
 * Shows a notification titled `title` (the caller checked `noticeLanguage()`) (one per `tag`: a later one replaces it). A click brings the tab
 * forward, closes it and dispatches `notificationclick` with `{ taskId }` on `events`' target.
 * @param {string} title
 * @param {string} body
 * @param {string} lang
 * @param {string} tag
 * @param {EventQueue} events
 * @param {string} taskId
 */
export function showNotice(title, body, lang, tag, events, taskId) {
  let shown;
  try {
    shown = new Notification(title, { body, lang, tag });
  } catch {
    return;
  }
  shown.addEventListener("click", () => {
    globalThis.focus?.();
    shown.close();
    dispatch(events.target, "notificationclick", { taskId });
  });
}

// --- the tabs' channel
/**
 * Opens the channel `name` and calls `onMessage(text)` with every message from other clients: JSON
 * text, or, for an object from a tab still running the previous version, that object as JSON (one
 * JSON cannot hold is dropped). Returns `{ post(text), close() }`; undefined where the runtime has no
 * BroadcastChannel.
 * @param {string} name
 * @param {(text: string) => void} onMessage
 * @returns {{ post(text: string): void, close(): void } | undefined}
 */
export function openChannel(name, onMessage) {
  let channel;
  try {
    channel = new BroadcastChannel(name);
  } catch {
    return undefined;
  }
  channel.onmessage = (/** @type {MessageEvent<unknown>} */ { data }) => {
    let text = data;
    try {
      if (typeof data !== "string") text = JSON.stringify(data) ?? "null";
    } catch {
      return;
    }
    onMessage(/** @type {string} */ (text));
  };
  return {
    post(text) {
      try {
        channel.postMessage(text);
      } catch {
        // Closed: the client is going away.
      }
    },
    close() {
      channel.onmessage = null;
      channel.close();
    },
  };
}

// --- Web Locks
/** Whether this runtime has Web Locks. */
function locksAvailable() {
  return typeof globalThis.navigator?.locks?.request === "function";
}

/**
 * Queues for the exclusive lock `name`; `onAcquired` runs once it is held. Returns `{ release }`,
 * whose `release()` gives the lock back, or leaves the queue if it was not granted yet; undefined
 * without Web Locks.
 * @param {string} name
 * @param {() => void} onAcquired
 * @returns {{ release(): void } | undefined}
 */
export function requestLock(name, onAcquired) {
  const hold = holder();
  const abort = typeof AbortController === "function" ? new AbortController() : undefined;
  const asked = ask(name, { mode: "exclusive", signal: abort?.signal }, () => {
    onAcquired();
    return hold.held();
  });
  return asked ? { release: () => hold.release() || abort?.abort() } : undefined;
}

/**
 * Takes the lock `name` now if no one holds it (`ifAvailable`). Returns `{ decided, release }`:
 * `decided` resolves to whether it was granted; `release()` gives it back, and a grant that comes
 * after it is handed straight back. Undefined without Web Locks.
 * @param {string} name
 * @returns {{ decided: Promise<boolean>, release(): void } | undefined}
 */
export function tryLock(name) {
  const hold = holder();
  let wanted = true;
  /** @type {(granted: boolean) => void} */
  let decide;
  const decided = new Promise((resolve) => (decide = resolve));
  const asked = ask(name, { mode: "exclusive", ifAvailable: true }, (lock) => {
    // `null` when another client holds the lock.
    decide(lock !== null);
    return lock !== null && wanted ? hold.held() : undefined;
  });
  const release = () => {
    wanted = false;
    hold.release();
  };
  return asked ? { decided, release } : undefined;
}

/** What a lock callback returns while it holds the lock (`held()`), and the way to settle it. */
function holder() {
  /** @type {((value?: unknown) => void) | undefined} */
  let settle;
  return {
    held: () => new Promise((resolve) => (settle = resolve)),
    /** Settles the held promise; false when nothing was held. */
    release() {
      const was = settle;
      settle = undefined;
      was?.();
      return was !== undefined;
    },
  };
}

/**
 * `navigator.locks.request(name, options, callback)`; false when the runtime has no Web Locks or
 * refuses the request. A request aborted while queued rejects: expected on close, so ignored.
 * @param {string} name
 * @param {LockOptions} options
 * @param {(lock: Lock | null) => unknown} callback
 */
function ask(name, options, callback) {
  if (!locksAvailable()) return false;
  try {
    Promise.resolve(globalThis.navigator.locks.request(name, options, callback)).catch(() => {});
    return true;
  } catch {
    return false;
  }
}
