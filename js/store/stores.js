// @ts-check
// Ready-made stores for TaskClient.open({ store }) on platforms without IndexedDB. A store maps string
// keys to JSON text: get / put / delete / list(prefix), each may be async, plus compareAndPut, which
// step mode (autoPoll: false) uses so two isolates never overwrite each other's progress unseen.

/** @import { DenoKvLike, DurableObjectStorageLike, MapLike, VersionedTaskStore } from "#pkg/stores.js" */
// (`./stores.js` here is the published declaration, stores.d.ts: this file is checked against it.)

/**
 * Entries of a Map-like object: `entries()`, or the object itself if it is iterable.
 * @param {MapLike} map
 * @returns {Iterable<[string, string]>}
 */
function entriesOf(map) {
  return typeof map.entries === "function" ? map.entries() : /** @type {Iterable<[string, string]>} */ (map);
}

/**
 * A store over any Map-like object (`get`, `set`, `delete`, and `entries()` or iteration): a `Map`
 * in tests, a cache in a long-lived server, an LRU. Not durable unless the map is.
 * @param {MapLike} [map]
 * @returns {VersionedTaskStore}
 */
export function mapStore(map = new Map()) {
  return {
    get: (key) => map.get(key) ?? null,
    put: (key, value) => {
      map.set(key, value);
    },
    delete: (key) => {
      map.delete(key);
    },
    list: (prefix) => [...entriesOf(map)].filter(([key]) => key.startsWith(prefix)),
    compareAndPut: (key, expected, value) => {
      if ((map.get(key) ?? null) !== expected) return false;
      map.set(key, value);
      return true;
    },
  };
}

/**
 * One promise chain per storage object: compareAndPut calls on it run one after another.
 * @type {WeakMap<object, Promise<unknown>>}
 */
const chains = new WeakMap();

/**
 * @template T
 * @param {object} owner
 * @param {() => Promise<T>} operation
 * @returns {Promise<T>}
 */
function serially(owner, operation) {
  const previous = chains.get(owner) ?? Promise.resolve();
  const next = previous.then(operation, operation);
  chains.set(
    owner,
    next.catch(() => {}),
  );
  return next;
}

/**
 * A store over Durable Object storage (`this.state.storage` / `ctx.storage`). The object's input gate
 * keeps other events out while storage calls are pending, and compareAndPut calls on one storage
 * object are chained, so even two clients stepping in the same event never both win a version check.
 * @param {DurableObjectStorageLike} storage
 * @returns {VersionedTaskStore}
 */
export function durableObjectStore(storage) {
  return {
    // What `put` stored: text.
    get: async (key) => /** @type {string | undefined} */ (await storage.get(key)) ?? null,
    put: (key, value) => storage.put(key, value),
    delete: async (key) => {
      await storage.delete(key);
    },
    list: async (prefix) => [.../** @type {Map<string, string>} */ (await storage.list({ prefix })).entries()],
    compareAndPut: (key, expected, value) =>
      serially(storage, async () => {
        if (((await storage.get(key)) ?? null) !== expected) return false;
        await storage.put(key, value);
        return true;
      }),
  };
}

/**
 * A store over Deno KV (`await Deno.openKv()`), under the key prefix `prefix` (an array of KV key
 * parts). compareAndPut is an atomic versionstamp check, so steps in different isolates or regions
 * compare on write. Deno KV refuses values over 64 KiB: a task with a larger result fails to store
 * (reported as a `storage` event) rather than being cut.
 * @param {DenoKvLike} kv
 * @param {unknown[]} [prefix]
 * @returns {VersionedTaskStore}
 */
export function denoKvStore(kv, prefix = ["mcp-tasks"]) {
  const keyOf = (/** @type {string} */ key) => [...prefix, key];
  return {
    // What `put` stored: text.
    get: (key) =>
      retryLocked(async () => /** @type {string | null | undefined} */ ((await kv.get(keyOf(key))).value) ?? null),
    put: (key, value) => retryLocked(() => kv.set(keyOf(key), value).then(() => undefined)),
    delete: (key) => retryLocked(() => kv.delete(keyOf(key))),
    list: async (start) => {
      /** @type {Array<[string, string]>} */
      const out = [];
      // Keys are [...prefix, string]; strings sort by UTF-8 bytes, so this range is exactly `start*`.
      for await (const entry of kv.list({ start: keyOf(start), end: keyOf(`${start}\u{10FFFF}`) })) {
        out.push(/** @type {[string, string]} */ ([entry.key[entry.key.length - 1], entry.value]));
      }
      return out;
    },
    compareAndPut: (key, expected, value) =>
      retryLocked(async () => {
        const current = await kv.get(keyOf(key));
        if ((current.value ?? null) !== expected) return false;
        const result = await kv.atomic().check(current).set(keyOf(key), value).commit();
        return result.ok;
      }),
  };
}

/**
 * A local Deno KV file shared by several processes answers "database is locked" at once while another
 * process writes (Deno Deploy's KV does not); such calls are retried a few times, briefly.
 * @template T
 * @param {() => Promise<T>} operation
 * @returns {Promise<T>}
 */
async function retryLocked(operation, attempts = 6) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      /** @typedef {{ message?: unknown } | null | undefined} Thrown */
      if (attempt >= attempts || !/database is locked/i.test(String(/** @type {Thrown} */ (error)?.message ?? error)))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}
