// The scale figure's in-page probe, shared by both host pages (ours.js imports it first; official-entry.mjs
// is bundled with it by esbuild), so it wraps `fetch`, `Response` bodies and IndexedDB before any client
// exists.
//
// fetch: every POST to /mcp is classified by its `Mcp-Method` / `Mcp-Name` headers (both clients send them;
// 2026-07-28 requires them), falling back to the JSON body. A `tasks/get` counts as *answered* when the page
// has read the body of its HTTP 200 answer: `text()` / `json()` resolved (the official requester), or a
// reader of `response.body` returned its end (`read()` resolved `done`: ours reads bodies as a stream, to
// hold them to a size limit). Both clients act on an answer in the continuation of that read, in the same
// microtask checkpoint, so at any task boundary every answer counted has been acted on (and any IndexedDB
// write it caused has been requested). A fetch that rejects
// (the browser refused it, a timeout, an abort) counts as *failed*. With `noListen` (ours.js sets it),
// `server/discover` and `subscriptions/listen` are answered in the page with JSON-RPC -32601, as a server
// without them would: our client then follows its tasks by polling, which is what this figure measures.
// (ext-tasks 0.2.2 has no listen, and its connect() needs server/discover, so the official page leaves
// both alone.)
//
// IndexedDB: `IDBObjectStore.prototype.put/add/delete/clear` and `IDBCursor.prototype.update/delete` are
// wrapped to count calls (writes requested by the page).
//
// Counts are since the last `mark()`; `watch(ids)` names the tasks whose first answer since the mark is
// counted in `covered`.

import { UNSUPPORTED, mcpRequest, methodNotFound } from "../page-wire.js";

const realFetch = globalThis.fetch.bind(globalThis);

export const probe = {
  /** Answer server/discover and subscriptions/listen with -32601 in the page. */
  noListen: false,
  /** When false the IndexedDB wrappers do not count (the pages' own seeding). */
  countWrites: true,
  /** requests by method since page load (including the ones answered here). */
  counts: {},
  /** tasks/get sent since mark(). */
  sent: 0,
  /** tasks/get answered (HTTP 200 body read) since mark(). */
  answered: 0,
  /** /mcp requests whose fetch rejected since mark(). */
  failed: 0,
  /** IndexedDB write calls since mark(), by kind and in all. */
  writes: { put: 0, add: 0, delete: 0, clear: 0, cursorUpdate: 0, cursorDelete: 0 },
  writesTotal: 0,
  /** Task ids answered since mark(). */
  answeredIds: new Set(),
  /** The ids `covered` counts. */
  watched: new Set(),
  /** Watched ids answered since mark(). */
  covered: 0,
  mark() {
    this.sent = 0;
    this.answered = 0;
    this.failed = 0;
    for (const k of Object.keys(this.writes)) this.writes[k] = 0;
    this.writesTotal = 0;
    this.answeredIds = new Set();
    this.covered = 0;
  },
  /** The counts since mark(), as plain data. */
  snapshot() {
    return { sent: this.sent, answered: this.answered, failed: this.failed, writes: this.writesTotal, writesByKind: { ...this.writes }, covered: this.covered };
  },
};

/** Sets the ids `covered` counts (answers already received since mark() included). */
export function watch(ids) {
  probe.watched = new Set(ids);
  probe.covered = ids.filter((id) => probe.answeredIds.has(id)).length;
}

// ---- IndexedDB ---------------------------------------------------------------------------------------
function countCalls(proto, method, kind) {
  const real = proto?.[method];
  if (typeof real !== "function") return;
  proto[method] = function countedWrite(...args) {
    if (probe.countWrites) {
      probe.writes[kind] += 1;
      probe.writesTotal += 1;
    }
    return real.apply(this, args);
  };
}
if (typeof IDBObjectStore !== "undefined") {
  countCalls(IDBObjectStore.prototype, "put", "put");
  countCalls(IDBObjectStore.prototype, "add", "add");
  countCalls(IDBObjectStore.prototype, "delete", "delete");
  countCalls(IDBObjectStore.prototype, "clear", "clear");
}
if (typeof IDBCursor !== "undefined") {
  countCalls(IDBCursor.prototype, "update", "cursorUpdate");
  countCalls(IDBCursor.prototype, "delete", "cursorDelete");
}

// ---- fetch and bodies --------------------------------------------------------------------------------
/** HTTP 200 answers to tasks/get whose body the page has not read yet → the task id. */
const pendingGets = new WeakMap();

function answeredGet(taskId) {
  probe.answered += 1;
  if (!probe.answeredIds.has(taskId)) {
    probe.answeredIds.add(taskId);
    if (probe.watched.has(taskId)) probe.covered += 1;
  }
}

for (const method of ["text", "json", "arrayBuffer"]) {
  const real = Response.prototype[method];
  Response.prototype[method] = function readBody(...args) {
    const result = real.apply(this, args);
    const taskId = pendingGets.get(this);
    if (taskId !== undefined) {
      pendingGets.delete(this);
      // Registered before the caller's own continuation, so it runs first in the same checkpoint.
      result.then(() => answeredGet(taskId), () => {});
    }
    return result;
  };
}

/** Bodies (ReadableStream) of those answers, and the readers taken of them → the answer (counted once, by
 * whichever read ends first). */
const pendingBodies = new WeakMap();
const pendingReaders = new WeakMap();

const realGetReader = ReadableStream.prototype.getReader;
ReadableStream.prototype.getReader = function probedGetReader(...args) {
  const reader = realGetReader.apply(this, args);
  const response = pendingBodies.get(this);
  if (response !== undefined) {
    pendingBodies.delete(this);
    pendingReaders.set(reader, response);
  }
  return reader;
};

const realRead = ReadableStreamDefaultReader.prototype.read;
ReadableStreamDefaultReader.prototype.read = function probedRead(...args) {
  const result = realRead.apply(this, args);
  if (pendingReaders.has(this)) {
    // Registered before the caller's own continuation, so it runs first in the same checkpoint.
    result.then(
      (chunk) => {
        const response = pendingReaders.get(this);
        const taskId = response === undefined ? undefined : pendingGets.get(response);
        if (chunk.done && taskId !== undefined) {
          pendingReaders.delete(this);
          pendingGets.delete(response);
          answeredGet(taskId);
        }
      },
      () => {},
    );
  }
  return result;
};

globalThis.fetch = function probedFetch(input, init) {
  const request = mcpRequest(input, init);
  if (request === null) return realFetch(input, init);
  const { method, name, body } = request;
  if (method !== null) probe.counts[method] = (probe.counts[method] ?? 0) + 1;
  if (method === "tasks/get") probe.sent += 1;

  if (probe.noListen && UNSUPPORTED.has(method)) return methodNotFound(input, body);
  const promise = realFetch(input, init);
  promise.then(
    (response) => {
      if (method === "tasks/get" && name !== null && response.status === 200) {
        pendingGets.set(response, name);
        if (response.body) pendingBodies.set(response.body, response);
      }
    },
    () => {
      probe.failed += 1;
    },
  );
  return promise;
};

// ---- helpers -----------------------------------------------------------------------------------------
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `test()` is true (checked every `every` ms); rejects with `what()` after `ms`. */
export async function until(test, ms, what, every = 20) {
  const deadline = performance.now() + ms;
  while (!test()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what()}`);
    await sleep(every);
  }
}

/**
 * Waits until every watched task was answered since mark(), or `windowMs` after `since` (whichever comes
 * first; `complete` says which; with `full`, the whole window however soon they were); returns the counts
 * since mark() and the ms since `since`.
 */
export async function round({ since, windowMs = Infinity, timeoutMs, full = false }) {
  const n = probe.watched.size;
  const limit = Math.min(windowMs, timeoutMs);
  while ((full || probe.covered < n) && performance.now() - since < limit) await sleep(50);
  if (probe.covered < n && windowMs > timeoutMs) {
    throw new Error(`timed out after ${timeoutMs} ms: ${probe.covered} of ${n} tasks answered (${probe.sent} tasks/get sent, ${probe.failed} failed)`);
  }
  return { ms: performance.now() - since, complete: probe.covered >= n, ...probe.snapshot() };
}

/** The median of some numbers. */
export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}
