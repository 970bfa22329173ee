// The scale figure's host page for mcp-tasks-web (served with /pkg/ by the reference server in light mode).
// It loads the package, then exposes `window.scale`, which the driver (runner.mjs) calls step by step
// with page.evaluate, taking DevTools figures (JS heap after GC, main-thread busy time) in between.
//
// Setup (a first page of the browser profile):
//   template(ns)             opens a step-mode client (autoPoll: false: nothing polls) and starts one
//                            `idle_job` task; its stored record (IndexedDB) is the template.
//   clone(ns, ids, steady)   stores one copy of the template record per id (ids from the server's
//                            `idle_seed`, which created those tasks like the template), the id replaced, in
//                            one transaction: the store then holds N live handles, as N `callTool`s and
//                            (`steady`) one poll each would have left them.
//   schedule(ns, lead, spread)  rewrites each record's next poll time (`poll.notBefore`, Unix ms) to spread
//                            evenly over [now + lead, now + lead + spread], as for tasks started over time;
//                            one transaction.
// Measure (a fresh page):
//   baseline()               opens and closes a client on an empty namespace; wasm memory with 0 tasks.
//   open(ns, n)              marks, TaskClient.open() (autoPoll, IndexedDB), then waits for the N handles
//                            (open() resolves once the store's first page is in).
//   passes(k)                k scheduling passes with nothing due, each one `online` event (see below).
//   cards(runs)              inserts 100 <mcp-task> cards of live tasks, times them to the drawn frame.
//   quiet(ms)                idles as round() does, for ms, with nothing due (the page's own cost).
//   mark(); round(...)       counts since a mark, until every task was answered (or a window ends).
//   ended(...)               after the driver's idle_set: until every task ended (or a window ends).
// Step (another fresh page, its own namespace of N handles none of which is due):
//   stepOpen(ns), stepIdle(k)  a step-mode client's first step (parses every record), then k more.
import { probe, round, sleep, until, watch, median } from "./probe.js";

probe.noListen = true;
const pkg = await import("/pkg/mcp_tasks_web.js");
const wasm = await pkg.default();
const { TaskClient } = pkg;

const url = `${location.origin}/mcp`;
const options = (namespace, extra = {}) => ({ url, namespace, store: "indexeddb", ...extra });
const status = (text) => (document.getElementById("status").textContent = text);
const DB = "mcp-tasks-web"; // the client's IndexedDB database and object store (js/store/idb.js)
const RECORDS = "records";
const TERMINAL = ["completed", "failed", "cancelled", "expired"];

let client = null;
let stepper = null;
let templateId = null;
let markedAt = 0;
const endedIds = new Set();

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function committed(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

/** Runs `body(db)` on the client's database with the write counter off (this is the bench's own seeding). */
async function withDatabase(body) {
  probe.countWrites = false;
  const db = await request(indexedDB.open(DB));
  try {
    return await body(db);
  } finally {
    db.close();
    probe.countWrites = true;
  }
}

/** The keys of namespace `ns`'s task records. */
async function taskKeys(db, ns) {
  const keys = await request(db.transaction(RECORDS, "readonly").objectStore(RECORDS).getAllKeys());
  return keys.filter((k) => typeof k === "string" && k.includes(`/${ns}/`) && k.includes("/task/"));
}

/** The wasm linear memory in bytes (grows in 64 KiB pages, never shrinks). */
const wasmBytes = () => wasm.memory.buffer.byteLength;

const liveIds = (c) => c.tasks().filter((t) => t.taskId && !TERMINAL.includes(t.status)).map((t) => t.taskId);

window.scale = {
  wasmBytes,


  async template(ns) {
    const setup = await TaskClient.open(options(ns, { autoPoll: false }));
    if (!setup.durable) throw new Error("the client fell back to memory: no IndexedDB");
    const outcome = await setup.callTool("idle_job", {});
    if (outcome.kind !== "task") throw new Error(`idle_job answered ${outcome.kind}, not a task`);
    setup.close();
    templateId = outcome.task.taskId;
    return { templateId };
  },

  // `steady`: the copies say the task's details are known (`detailsKnown`), as a handle that has been
  // polled once does; with ids seeded `like` the template (same timestamps), a poll then changes nothing.
  clone(ns, ids, steady) {
    return withDatabase(async (db) => {
      const key = (await taskKeys(db, ns)).find((k) => k.endsWith(`/task/${templateId}`));
      if (!key) throw new Error(`no stored record of the template ${templateId}`);
      let text = await request(db.transaction(RECORDS, "readonly").objectStore(RECORDS).get(key));
      if (steady) {
        const record = JSON.parse(text);
        if (record.detailsKnown !== false) throw new Error(`the template record has no detailsKnown: false (the record format changed?): ${text.slice(0, 300)}`);
        record.detailsKnown = true;
        text = JSON.stringify(record);
      }
      const tx = db.transaction(RECORDS, "readwrite");
      const store = tx.objectStore(RECORDS);
      for (const id of [templateId, ...ids]) store.put(text.replaceAll(templateId, id), key.replace(templateId, id));
      await committed(tx);
      return { stored: (await taskKeys(db, ns)).length, recordBytes: text.length };
    });
  },

  schedule(ns, leadMs, spread) {
    const start = Date.now() + leadMs;
    return withDatabase(async (db) => {
      const keys = await taskKeys(db, ns); // sorted, and one namespace's keys share a prefix: one range
      const tx = db.transaction(RECORDS, "readwrite");
      const cursors = tx.objectStore(RECORDS).openCursor(IDBKeyRange.bound(keys[0], keys[keys.length - 1]));
      let i = 0;
      let bad = null;
      cursors.onsuccess = () => {
        const cursor = cursors.result;
        if (!cursor || bad) return;
        const record = JSON.parse(cursor.value);
        if (typeof record.poll?.notBefore !== "number") {
          bad = cursor.value;
          return;
        }
        record.poll.notBefore = Math.round(start + (spread * i) / keys.length);
        i += 1;
        cursor.update(JSON.stringify(record));
        cursor.continue();
      };
      await committed(tx);
      if (bad) throw new Error(`a stored record has no poll.notBefore (the record format changed?): ${bad.slice(0, 300)}`);
      return { scheduled: i };
    });
  },

  async baseline() {
    const empty = await TaskClient.open(options(`empty-${Date.now()}`));
    empty.close();
    await sleep(100);
    return { wasmBytes: wasmBytes() };
  },

  async open(ns, n) {
    probe.mark();
    markedAt = performance.now();
    client = await TaskClient.open(options(ns));
    const openMs = performance.now() - markedAt;
    client.addEventListener("task", (event) => {
      if (TERMINAL.includes(event.detail?.status)) endedIds.add(event.detail.taskId);
    });
    // open() resolves once the store's first page is in; each later record comes as a task event.
    const restored = new Set(client.tasks().flatMap((t) => (t.restored ? [t.taskId] : [])));
    client.addEventListener("task", (event) => event.detail?.restored && restored.add(event.detail.taskId));
    await until(() => restored.size >= n, 60_000, () => `the store's ${n} handles to be read (${restored.size} are)`, 5);
    const ids = liveIds(client);
    watch(ids);
    return { openMs, restored: client.tasks().filter((t) => t.restored).length, live: ids.length, durable: client.durable, wasmBytes: wasmBytes() };
  },

  mark() {
    probe.mark();
    markedAt = performance.now();
  },

  round(windowMs, timeoutMs, full = false) {
    return round({ since: markedAt, windowMs: windowMs ?? Infinity, timeoutMs, full });
  },

  // The page idling as `round` does (a 50 ms sleep loop) for `ms` with nothing due: the main-thread time
  // the page costs without any poll, which the driver subtracts from a window of polls. The driver
  // checks that no request started.
  async quiet(ms) {
    const before = probe.sent;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) await sleep(50);
    return { ms: performance.now() - t0, sent: probe.sent - before };
  },

  // One scheduling pass with nothing due: the client re-runs its pump (every record: expiry tick, next
  // action; the live set for listen; the earliest wake-up; one timer) on `online`, `offline`, `pageshow`
  // and `visibilitychange`. Dispatching `online` while online is such a pass and nothing else (no state
  // changes, so no events): it runs synchronously inside dispatchEvent, so its wall time is main-thread
  // time. The driver checks that no request started.
  async passes(k) {
    const before = probe.counts["tasks/get"] ?? 0;
    const times = [];
    for (let i = 0; i < k; i += 1) {
      const t0 = performance.now();
      window.dispatchEvent(new Event("online"));
      times.push(performance.now() - t0);
      await sleep(5);
    }
    const sent = (probe.counts["tasks/get"] ?? 0) - before;
    return { medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times), sent, online: navigator.onLine };
  },

  async cards(runs) {
    const { defineMcpTask } = await import("/pkg/element.js");
    defineMcpTask();
    const ids = liveIds(client).slice(0, 100);
    const results = [];
    for (let run = 0; run < runs; run += 1) {
      const host = document.createElement("div");
      document.body.append(host);
      let reported = 0;
      host.addEventListener("mcp-task-change", () => (reported += 1));
      const t0 = performance.now();
      const fragment = document.createDocumentFragment();
      for (const id of ids) {
        const card = document.createElement("mcp-task");
        card.client = client;
        card.taskId = id;
        fragment.append(card);
      }
      host.append(fragment);
      const insertMs = performance.now() - t0;
      await until(() => reported >= ids.length, 10_000, () => `100 cards to report their task (${reported} did)`, 1);
      const reportedMs = performance.now() - t0;
      // rAF callbacks run before the frame's style, layout and paint; a task queued from one runs after.
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const drawnMs = performance.now() - t0;
      const drawn = [...host.querySelectorAll("mcp-task")].filter((c) => c.shadowRoot?.querySelector('[part~="card"][data-status="working"]') && c.getBoundingClientRect().height > 0).length;
      results.push({ drawnMs, insertMs, reportedMs, drawn, cards: ids.length });
      host.remove();
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
    }
    return results;
  },

  async ended(windowMs, timeoutMs) {
    windowMs ??= Infinity;
    const n = probe.watched.size;
    const limit = Math.min(windowMs, timeoutMs);
    while (endedIds.size < n && performance.now() - markedAt < limit) await sleep(50);
    if (endedIds.size < n && windowMs > timeoutMs) throw new Error(`timed out: ${endedIds.size} of ${n} tasks ended`);
    const ms = performance.now() - markedAt;
    // Drain: no new polls (close() stops the timer; requests in flight still complete and are acted on),
    // then give the last answers' writes time to commit and their task events time to arrive, so the
    // writes counted belong to the tasks counted as ended.
    client.close();
    const inFlight = () => probe.sent - probe.answered - probe.failed;
    await until(() => inFlight() <= 0, 30_000, () => `${inFlight()} tasks/get to come back`).catch(() => {});
    await sleep(1000);
    return { ms, ended: endedIds.size, complete: endedIds.size >= n, ...probe.snapshot() };
  },

  async stepOpen(ns) {
    stepper = await TaskClient.open(options(ns, { autoPoll: false }));
    const t0 = performance.now();
    const first = await stepper.step();
    const firstMs = performance.now() - t0;
    if (first.polled !== 0 || first.sent !== 0) throw new Error(`the first step sent requests (a stored handle was due): ${JSON.stringify(first)}`);
    return { first, firstMs };
  },

  async stepIdle(k) {
    const times = [];
    let last = null;
    for (let i = 0; i < k; i += 1) {
      const t = performance.now();
      last = await stepper.step();
      times.push(performance.now() - t);
      if (last.polled !== 0 || last.sent !== 0) throw new Error(`a step with nothing due sent requests: ${JSON.stringify(last)}`);
    }
    stepper.close();
    return { last, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times) };
  },
};

window.scaleReady = true;
status("ready");
