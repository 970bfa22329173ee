// The Web Locks half of src/runtime/leader.rs, in JS: promises and lock callbacks are a few bytes
// here and a closure, a promise executor and a reflective call each in the .wasm.

/** Whether this runtime has Web Locks. */
function locksAvailable() {
  return typeof globalThis.navigator?.locks?.request === "function";
}

/**
 * Queues for the exclusive lock `name`; `onAcquired` runs once it is held. Returns `{ release }`,
 * whose `release()` gives the lock back, or leaves the queue if it was not granted yet; undefined
 * without Web Locks.
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
 */
export function tryLock(name) {
  const hold = holder();
  let wanted = true;
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
