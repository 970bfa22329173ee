// @ts-check
// The record stores the driver writes tasks to: IndexedDB, a store the host application hands in, and
// this module's memory, each with the same operations (`run` with GET, PUT or DELETE, `listPage`,
// `putAll` where it can do better than one put at a time), and `Records` over whichever one a client
// opened. Every failure is thrown as `{ kind, message }`, `kind` one of unavailable, blocked, quota or
// failed; the driver names them in the host's `StorageError` and `storage` events.
//
// IndexedDB: one database every client shares, with one object store, `records`: keys are the record
// keys (which carry the namespace and the server), values the JSON text.

/** What `run` does with a key: read it, write it, or delete it. */
const GET = 0;
const PUT = 1;
const DELETE = 2;

/** The object store every record lives in. */
const RECORDS = "records";
/** The database schema version; bump it (with an upgrade step in `open`) when `RECORDS` changes shape. */
const SCHEMA_VERSION = 1;
/**
 * How long an open or delete may stay `blocked` before it is reported. `blocked` is not final: it fires
 * while another connection has not closed yet, including one that already called `close()` and is only
 * finishing a transaction (Chromium fires it for those), which takes milliseconds; a connection that
 * really stays open still gives `blocked`, after this delay.
 */
const BLOCKED_GRACE_MS = 1000;

/** @typedef {"unavailable" | "blocked" | "quota" | "failed"} StoreFailureKind */
/** @typedef {{ kind: StoreFailureKind, message: string }} StoreFailure */
/** What `run` does: 0 (GET), 1 (PUT) or 2 (DELETE). */
/** @typedef {0 | 1 | 2} Operation */
/**
 * One of the stores under `Records`.
 * @typedef {object} Backend
 * @property {(kind: Operation, key: string, value?: string) => Promise<string | undefined>} run
 * @property {(prefix: string, after: string | undefined, limit: number) => Promise<string[]>} listPage
 * @property {(pairs: string[]) => Promise<void>} [putAll]
 * @property {(key: string, expected: string | undefined, value: string) => Promise<boolean | undefined>} [compareAndPutIf]
 * @property {() => void} [close]
 * @property {string[]} [skipped] why records a list left out were left out, until `Records` takes them
 */
/** A thrown value as `describe` reads it. */
/** @typedef {{ name?: unknown, message?: unknown } | null | undefined} Named */
/** A host store's method, called with the store as `this`. */
/** @typedef {(this: unknown, ...args: unknown[]) => unknown} HostMethod */

/**
 * @param {StoreFailureKind} kind
 * @returns {StoreFailure}
 */
const fail = (kind, message = "") => ({ kind, message });

/**
 * A thrown value's `name` (for Errors and DOMExceptions) and text, read without trusting it.
 * @param {unknown} thrown
 * @returns {{ name: string | undefined, text: string }}
 */
function describe(thrown) {
  if (typeof thrown === "string") return { name: undefined, text: thrown };
  try {
    const name =
      typeof (/** @type {Named} */ (thrown)?.name) === "string"
        ? /** @type {{ name: string }} */ (thrown).name
        : undefined;
    const message =
      typeof (/** @type {Named} */ (thrown)?.message) === "string"
        ? /** @type {{ message: string }} */ (thrown).message
        : undefined;
    if (name !== undefined || message !== undefined) {
      return { name, text: name && message ? `${name}: ${message}` : /** @type {string} */ (name || message) };
    }
    return { name, text: String(thrown) };
  } catch {
    return { name: undefined, text: "(a value that cannot be shown as text)" };
  }
}

/**
 * A failure during `operation`: quota by its name wherever it comes from, anything else named.
 * @param {string} operation
 * @param {unknown} thrown
 */
function failed(operation, thrown) {
  const { name, text } = describe(thrown);
  return name === "QuotaExceededError" ? fail("quota") : fail("failed", `${operation}: ${text}`);
}

/** `operation` naming `key` as a JSON string, e.g. `IndexedDB get("task:1")`. */
const named = (/** @type {string} */ head, /** @type {string} */ key) => `${head}(${JSON.stringify(key)})`;

/**
 * The global `indexedDB`, looked up on the global object so pages, workers and Node all work.
 * @returns {IDBFactory}
 */
function factory() {
  /** @type {unknown} */
  let value;
  try {
    value = globalThis.indexedDB;
  } catch (thrown) {
    // Reading the getter throws SecurityError in opaque-origin documents (sandboxed iframes, data: URLs).
    throw fail("unavailable", `reading \`indexedDB\` was refused: ${describe(thrown).text}`);
  }
  if (value === undefined || value === null) {
    throw fail(
      "unavailable",
      "this JavaScript environment has no `indexedDB` (Node.js and some embedded runtimes have none); pass a host store or use the memory store",
    );
  }
  if (typeof value !== "object") throw fail("unavailable", "`indexedDB` is not an object here");
  return /** @type {IDBFactory} */ (value);
}

/** Why opening `name` failed: the names browsers use when storage is off or broken mean "use another store". */
/**
 * @param {string} name
 * @param {unknown} thrown
 */
function openFailure(name, thrown) {
  const { name: kind, text } = describe(thrown);
  if (kind === "QuotaExceededError") return fail("quota");
  if (kind === "InvalidStateError" || kind === "UnknownError" || kind === "SecurityError") {
    return fail("unavailable", `IndexedDB refused to open database "${name}": ${text}`);
  }
  if (kind === "VersionError") {
    return fail(
      "failed",
      `IndexedDB database "${name}" was created by a newer version of this client (this one uses schema version ${SCHEMA_VERSION}): ${text}`,
    );
  }
  return fail("failed", `opening IndexedDB database "${name}": ${text}`);
}

/**
 * An open or delete request's outcome: its result, or its error thrown; `blocked` is thrown as
 * "blocked" only if the request has not settled within the grace.
 * @template T
 * @param {IDBOpenDBRequest & IDBRequest<T>} request
 * @returns {Promise<T>}
 */
function settled(request) {
  return new Promise((resolve, reject) => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    request.onsuccess = () => {
      clearTimeout(timer);
      resolve(request.result);
    };
    request.onerror = () => {
      clearTimeout(timer);
      reject(request.error);
    };
    request.onblocked = () => {
      request.onblocked = null;
      timer = setTimeout(() => reject("blocked"), BLOCKED_GRACE_MS);
    };
  });
}

/**
 * A data request's result, or its error thrown.
 * @template T
 * @param {IDBRequest<T>} request
 * @returns {Promise<T>}
 */
const done = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/**
 * Resolves when `transaction` commits; rejects with its error when it aborts. Writes wait for this,
 * not for their request: a write can still fail at commit (notably with QuotaExceededError).
 * @param {IDBTransaction} transaction
 * @returns {Promise<void>}
 */
const committed = (transaction) =>
  new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onabort = () =>
      reject(transaction.error ?? { name: "AbortError", message: "the transaction was aborted" });
  });

/**
 * The first string after every string that starts with `prefix` (IndexedDB orders strings by UTF-16
 * code units): the prefix with its last unit that is not 0xFFFF incremented and the rest cut off. With
 * none, the empty binary key, which sorts after every string.
 * @param {string} prefix
 */
function upperBound(prefix) {
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0xffff) end--;
  return end === 0
    ? new ArrayBuffer(0)
    : prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
}

/**
 * Gives up on `transaction` after a request could not be made (nothing of it is kept).
 * @param {IDBTransaction} transaction
 * @param {Promise<void>} finished
 */
function abort(transaction, finished) {
  finished.catch(() => {});
  try {
    transaction.abort();
  } catch {
    // Already finished: there is nothing to undo.
  }
}

/**
 * A stored value that is not text: written by other code sharing the database.
 * @param {string} operation
 * @param {unknown} key
 * @param {unknown} value
 */
function notText(operation, key, value) {
  return fail(
    "failed",
    `${operation}: the record under "${key}" is not text (typeof ${typeof value}); was it written by other code?`,
  );
}

/**
 * Opens (creating if needed) the database `name` with its `records` object store. The connection
 * closes itself when another asks to upgrade or delete the database (a newer build in another tab),
 * so this tab never blocks that; afterwards every operation fails saying so.
 * @param {string} name
 * @returns {Promise<Backend>}
 */
export async function idbOpen(name) {
  const indexedDB = factory();
  /** @type {IDBOpenDBRequest} */
  let request;
  try {
    request = indexedDB.open(name, SCHEMA_VERSION);
  } catch (thrown) {
    throw openFailure(name, thrown);
  }
  request.onupgradeneeded = () => {
    const database = request.result;
    if (!database.objectStoreNames.contains(RECORDS)) {
      try {
        database.createObjectStore(RECORDS);
      } catch {
        // Half an upgrade would create a database without its store at our version for good; aborting
        // makes the open fail and leaves nothing behind.
        request.transaction?.abort();
      }
    }
  };
  let database;
  try {
    database = await settled(request);
  } catch (thrown) {
    if (thrown !== "blocked") throw openFailure(name, thrown);
    // Still queued: a connection that opens later would have no owner and block the next upgrade.
    request.onsuccess = () => request.result.close();
    request.onerror = null;
    throw fail("blocked");
  }
  let closed = false;
  database.onversionchange = () => {
    database.close();
    closed = true;
  };
  const closedFailure = (/** @type {string} */ operation) =>
    fail(
      "failed",
      `${operation}: the connection to IndexedDB database "${name}" was closed because another tab or worker upgraded or deleted the database; reopen the store`,
    );
  // A failure of `operation`, saying how to recover when the connection is gone.
  const failure = (/** @type {string} */ operation, /** @type {unknown} */ thrown) => {
    if (closed) return closedFailure(operation);
    const { name: kind, text } = describe(thrown);
    if (kind === "InvalidStateError") {
      return fail(
        "failed",
        `${operation}: the connection to IndexedDB database "${name}" is closed (the browser may have cleared site data); reopen the store: ${text}`,
      );
    }
    return failed(operation, thrown);
  };
  // A transaction on `records`. Every operation, reads included, returns only once its transaction has
  // finished: a dropped store then closes at once instead of "close pending" behind a read, which would
  // make another tab's upgrade or deletion see `blocked`.
  /**
   * @param {IDBTransactionMode} mode
   * @param {string} operation
   * @returns {[IDBTransaction, IDBObjectStore, Promise<void>]}
   */
  const begin = (mode, operation) => {
    if (closed) throw closedFailure(operation);
    /** @type {IDBTransaction} */
    let transaction;
    try {
      transaction = database.transaction(RECORDS, mode);
    } catch (thrown) {
      throw failure(operation, thrown);
    }
    try {
      return [transaction, transaction.objectStore(RECORDS), committed(transaction)];
    } catch (thrown) {
      throw failed(operation, thrown);
    }
  };
  /** Keys whose value is not text, each told once (`skipped`, taken by `Records#listPage`). */
  const quarantined = new Set();
  /** @type {string[]} */
  const skipped = [];
  return {
    /** `kind` 0 get, 1 put, 2 delete of `key`, in its own transaction; a get resolves with the text or undefined. */
    /**
     * @param {Operation} kind
     * @param {string} key
     * @param {string} [value]
     * @returns {Promise<string | undefined>}
     */
    async run(kind, key, value) {
      const operation = named(["IndexedDB get", "IndexedDB put", "IndexedDB delete"][kind], key);
      const [transaction, records, finished] = begin(kind === GET ? "readonly" : "readwrite", operation);
      let request;
      try {
        request = kind === GET ? records.get(key) : kind === PUT ? records.put(value, key) : records.delete(key);
      } catch (thrown) {
        abort(transaction, finished);
        throw failed(operation, thrown);
      }
      /** @type {unknown} */
      let found;
      try {
        if (kind === GET) found = await done(request);
        await finished;
      } catch (thrown) {
        finished.catch(() => {});
        throw failure(operation, thrown);
      }
      if (found !== undefined && typeof found !== "string") throw notText(operation, key, found);
      return found;
    },

    /**
     * Stores every pair of `pairs` (key, value, key, value…) in one transaction, in order.
     * @param {string[]} pairs
     */
    async putAll(pairs) {
      const operation = `IndexedDB put of ${pairs.length / 2} records`;
      const [transaction, records, finished] = begin("readwrite", operation);
      try {
        for (let i = 0; i < pairs.length; i += 2) records.put(pairs[i + 1], pairs[i]);
      } catch (thrown) {
        abort(transaction, finished);
        throw failed(operation, thrown);
      }
      try {
        await finished;
      } catch (thrown) {
        throw failure(operation, thrown);
      }
    },

    /**
     * Up to `limit` records whose key starts with `prefix` and comes after `after` (when given), in
     * IndexedDB's key order, as key, value, key, value…: `getAllKeys` and `getAll` over one range in one
     * read-only transaction, a consistent snapshot in two requests.
     * @param {string} prefix
     * @param {string | undefined} after
     * @param {number} limit
     */
    async listPage(prefix, after, limit) {
      const operation = named("IndexedDB list", prefix);
      /** @type {string[]} */
      const out = [];
      // A record that is not text (written by other code) is left where it is and out of the list, and
      // told once; the rest of the namespace stays durable. The page is filled from after it.
      for (let wanted = limit; wanted > 0; ) {
        let range;
        try {
          range = IDBKeyRange.bound(after ?? prefix, upperBound(prefix), after !== undefined, true);
        } catch (thrown) {
          throw failed(operation, thrown);
        }
        const [, records, finished] = begin("readonly", operation);
        /** @type {unknown} */
        let keys;
        /** @type {unknown} */
        let values;
        try {
          const keysRequest = records.getAllKeys(range, wanted);
          const valuesRequest = records.getAll(range, wanted);
          [keys, values] = await Promise.all([done(keysRequest), done(valuesRequest)]);
          await finished;
        } catch (thrown) {
          finished.catch(() => {});
          throw failure(operation, thrown);
        }
        if (!Array.isArray(keys) || !Array.isArray(values))
          throw fail("failed", `${operation}: getAll/getAllKeys did not return arrays`);
        if (keys.length !== values.length) {
          throw fail("failed", `${operation}: ${keys.length} keys but ${values.length} values in one snapshot`);
        }
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          // The range holds only string keys.
          if (typeof key !== "string") {
            throw fail("failed", `${operation}: a key in the range is not a string: ${describe(key).text}`);
          }
          if (typeof values[i] === "string") out.push(key, values[i]);
          else if (!quarantined.has(key)) {
            quarantined.add(key);
            skipped.push(notText(operation, key, values[i]).message);
          }
          after = key;
        }
        wanted = keys.length < wanted ? 0 : limit - out.length / 2;
      }
      return out;
    },

    skipped,

    /** Closes the connection. */
    close() {
      database.onversionchange = null;
      database.close();
    },
  };
}

// A store the host application hands in (`options.store` an object), failing as the IndexedDB store
// does.

const METHODS = "get, put, delete, list";

/**
 * The host's object with its four methods looked up once (and `compareAndPut` if it has one), each
 * called with the object as `this`, so class instances work as well as object literals.
 */
export class HostStore {
  /** @param {unknown} object */
  constructor(object) {
    if (object === null || typeof object !== "object") {
      throw fail(
        "failed",
        `the host store must be an object with get, put, delete and list methods; got ${describe(object).text}`,
      );
    }
    const method = (/** @type {string} */ name) => {
      /** @type {unknown} */
      let value;
      try {
        value = /** @type {Record<string, unknown>} */ (object)[name];
      } catch (thrown) {
        throw failed(`reading the host store's \`${name}\` method`, thrown);
      }
      if (typeof value !== "function")
        throw fail("failed", `the host store has no \`${name}\` method (it needs ${METHODS})`);
      return /** @type {HostMethod} */ (value);
    };
    this.object = object;
    this.methods = [method("get"), method("put"), method("delete")];
    this.list = method("list");
    /** @type {unknown} */
    let compareAndPut;
    try {
      compareAndPut = /** @type {{ compareAndPut?: unknown }} */ (object).compareAndPut;
    } catch {
      // Read as absent, as any other value that is not a function.
    }
    this.compareAndPut = typeof compareAndPut === "function" ? /** @type {HostMethod} */ (compareAndPut) : undefined;
  }

  /**
   * `kind` 0: `get(key)`, what it gives (`undefined` and `null` mean no record); 1: `put(key, value)`;
   * 2: `delete(key)`. What a put or delete returns is ignored.
   * @param {Operation} kind
   * @param {string} key
   * @param {string} [value]
   * @returns {Promise<string | undefined>}
   */
  async run(kind, key, value) {
    const name = ["get", "put", "delete"][kind];
    const operation = `host store ${name}(${JSON.stringify(key)}${kind === PUT ? ", …)" : ")"}`;
    const got = await this.call(this.methods[kind], kind === PUT ? [key, value] : [key], operation);
    if (kind !== 0 || got === undefined || got === null) return undefined;
    if (typeof got !== "string")
      throw fail("failed", `${operation} returned ${typeName(got)}; expected a string, undefined or null`);
    return got;
  }

  /**
   * `list(prefix)` as a flat array `[key, value, key, value, …]` of the items whose key starts with
   * `prefix`, in the host's order. Each item is a `[key, value]` pair or a `{ key, value }` object
   * (`Map#entries()` spread into an array, rows from a database), with string key and value.
   * @param {string} prefix
   * @returns {Promise<string[]>}
   */
  async listAll(prefix) {
    const operation = `host store list(${JSON.stringify(prefix)})`;
    const items = await this.call(this.list, [prefix], operation);
    if (!Array.isArray(items)) {
      throw fail(
        "failed",
        `${operation} returned ${typeName(items)}; expected an array of [key, value] pairs or { key, value } objects`,
      );
    }
    const flat = [];
    for (let index = 0; index < items.length; index++) {
      const [key, value] = entry(items[index]);
      if (typeof key !== "string" || typeof value !== "string") {
        throw fail(
          "failed",
          `${operation} item ${index} is ${typeName(items[index])}; expected a [key, value] pair or a { key, value } object with string key and value`,
        );
      }
      if (key.startsWith(prefix)) flat.push(key, value);
    }
    return flat;
  }

  /**
   * `compareAndPut(key, expected, value)`: whether the value was written because the stored text still
   * equalled `expected` (`null`: absent). Undefined when the host store has no such method.
   * @param {string} key
   * @param {string | undefined} expected
   * @param {string} value
   * @returns {Promise<boolean | undefined>}
   */
  async compareAndPutIf(key, expected, value) {
    if (this.compareAndPut === undefined) return undefined;
    const operation = `host store compareAndPut(${JSON.stringify(key)}, …)`;
    const written = await this.call(this.compareAndPut, [key, expected ?? null, value], operation);
    if (typeof written !== "boolean")
      throw fail("failed", `${operation} returned ${typeName(written)}; expected a boolean`);
    return written;
  }

  /**
   * Pages of a host store: it cannot page, so everything comes in the first and nothing after.
   * @param {string} prefix
   * @param {string | undefined} after
   * @returns {Promise<string[]>}
   */
  async listPage(prefix, after) {
    return after === undefined ? this.listAll(prefix) : [];
  }

  /**
   * Calls one host method with the object as `this` and awaits what it returns, a Promise (any
   * thenable) or not; a synchronous throw and a rejection are reported the same way.
   * @param {HostMethod} method
   * @param {unknown[]} args
   * @param {string} operation
   */
  async call(method, args, operation) {
    try {
      return await method.apply(this.object, args);
    } catch (thrown) {
      throw failed(operation, thrown);
    }
  }
}

/**
 * One listed item as `[key, value]`, from either accepted shape (anything else gives no strings).
 * @param {unknown} item
 * @returns {unknown[]}
 */
function entry(item) {
  if (Array.isArray(item)) return item.length === 2 ? item : [];
  if (item !== null && typeof item === "object")
    return [/** @type {{ key?: unknown }} */ (item).key, /** @type {{ value?: unknown }} */ (item).value];
  return [];
}

/**
 * What a wrong value was, for error messages (`typeof`, with `null` and arrays told apart).
 * @param {unknown} value
 */
function typeName(value) {
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : `a value of type ${typeof value}`;
}

/**
 * Records in this module's memory, lost on reload: the fallback where nothing durable works (Node.js
 * without a host store, private browsing that refuses IndexedDB). Listed in UTF-16 order, as IndexedDB
 * lists; `Store::list` sorts by code point for every store.
 */
class MemoryRecords {
  constructor() {
    /** @type {Map<string, string>} */
    this.records = new Map();
  }

  /**
   * @param {Operation} kind
   * @param {string} key
   * @param {string} [value]
   * @returns {Promise<string | undefined>}
   */
  async run(kind, key, value) {
    if (kind === GET) return this.records.get(key);
    if (kind === PUT) this.records.set(key, /** @type {string} */ (value));
    else this.records.delete(key);
  }

  /**
   * @param {string} prefix
   * @param {string | undefined} after
   * @param {number} limit
   */
  async listPage(prefix, after, limit) {
    const keys = [...this.records.keys()].filter(
      (key) => key.startsWith(prefix) && (after === undefined || key > after),
    );
    const out = [];
    for (const key of keys.sort().slice(0, limit)) out.push(key, /** @type {string} */ (this.records.get(key)));
    return out;
  }

  /**
   * Atomic here: nothing else runs between the read and the write.
   * @param {string} key
   * @param {string | undefined} expected
   * @param {string} value
   */
  async compareAndPutIf(key, expected, value) {
    if (this.records.get(key) !== (expected ?? undefined)) return false;
    this.records.set(key, value);
    return true;
  }
}

/** One open record store, whichever keeps the records. */
export class Records {
  /** @param {Backend} backend */
  constructor(backend) {
    this.backend = backend;
    /** Told why a record was left out of a list (the driver makes it a `storage` event). */
    this.skip = (/** @type {string} */ _why) => {};
  }

  /** An empty memory store. */
  static memory() {
    return new Records(new MemoryRecords());
  }

  /**
   * The host's object, its methods checked (throws naming the first one missing).
   * @param {unknown} object
   */
  static host(object) {
    return new Records(new HostStore(object));
  }

  /**
   * The IndexedDB database `name`, opened (see `idbOpen`).
   * @param {string} name
   */
  static async indexedDb(name) {
    return new Records(await idbOpen(name));
  }

  /**
   * The text stored under `key`, or undefined.
   * @param {string} key
   */
  get(key) {
    return this.backend.run(GET, key);
  }

  /**
   * Stores `value` under `key`.
   * @param {string} key
   * @param {string} value
   */
  put(key, value) {
    return this.backend.run(PUT, key, value);
  }

  /**
   * Deletes `key` (one that is not there is no failure).
   * @param {string} key
   */
  delete(key) {
    return this.backend.run(DELETE, key);
  }

  /**
   * Stores every pair of `pairs` (key, value, key, value…), in order: one transaction for IndexedDB.
   * @param {string[]} pairs
   */
  async putAll(pairs) {
    if (this.backend.putAll) return this.backend.putAll(pairs);
    for (let i = 0; i < pairs.length; i += 2) await this.put(pairs[i], pairs[i + 1]);
  }

  /**
   * Up to `limit` records after `after` whose key starts with `prefix`, as key, value, key, value…
   * @param {string} prefix
   * @param {string | undefined} after
   * @param {number} limit
   */
  async listPage(prefix, after, limit) {
    const page = await this.backend.listPage(prefix, after, limit);
    for (const why of this.backend.skipped?.splice(0) ?? []) this.skip(why);
    return page;
  }

  /**
   * Stores `value` under `key` if the stored text is still `expected` (undefined: no record): whether it
   * was. Atomic for memory and a host store with `compareAndPut`; elsewhere a read, then a write.
   * @param {string} key
   * @param {string | undefined} expected
   * @param {string} value
   */
  async putIf(key, expected, value) {
    // IndexedDB has no compare-and-put: a read, then a write (one writer per database assumed).
    const written = await this.backend.compareAndPutIf?.(key, expected, value);
    if (written !== undefined) return written;
    if ((await this.get(key)) !== expected) return false;
    await this.put(key, value);
    return true;
  }

  /** Closes an IndexedDB connection (nothing to do for the others). */
  close() {
    this.backend.close?.();
  }
}
