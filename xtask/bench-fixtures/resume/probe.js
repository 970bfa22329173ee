// The resume figure's in-page probe, shared by both host pages (ours.js imports it; official-entry.mjs
// is bundled with it by esbuild). Imported first, so it wraps `fetch` before any client exists.
//
// Every POST to /mcp is timed with `performance.now()` at the moment the page calls `fetch` — before the
// request leaves the page — and classified by its `Mcp-Method` / `Mcp-Name` headers (both clients send
// them; 2026-07-28 requires them), falling back to the JSON body. `probe.mark()` sets t0 just before the
// client is opened; `probe.firstGetMs` is the first `tasks/get` after it, `allPolledMs(ids)` the moment
// the last of the stored handles had its first `tasks/get`.
//
// With `noListen`, `server/discover` and `subscriptions/listen` are answered in the page with JSON-RPC
// -32601, as a server without them would (the e2e rig's `forcePolling`, without Playwright routing on
// the path of the other requests): a client then resumes by polling, which is what this figure times.
//
// `answered` counts the `tasks/get` answers the page has had; with `?steady=MS` a measure page then
// stays open for the runner's steady window (`steadyWindow`), which times the main thread per answer.

import { UNSUPPORTED, mcpRequest, methodNotFound, rpcOfText } from "../page-wire.js";

const realFetch = globalThis.fetch.bind(globalThis);

export const probe = {
  /** Answer server/discover and subscriptions/listen with -32601 in the page. */
  noListen: false,
  /** performance.now() just before the client is opened. */
  t0: null,
  /** ms from t0 to the first tasks/get fetch call. */
  firstGetMs: null,
  /** the task id of that first tasks/get. */
  firstGetTaskId: null,
  /** task id → ms from t0 to its first tasks/get. */
  polled: new Map(),
  /** requests by method since page load, including the ones answered here. */
  counts: {},
  /** requests answered in the page with -32601. */
  faked: 0,
  /** tasks/get requests whose answer's head arrived. */
  answered: 0,
  /** task id → performance.now() when its first tasks/get answer's head arrived. */
  answeredAt: new Map(),
  mark() {
    this.t0 = performance.now();
    this.firstGetMs = null;
    this.firstGetTaskId = null;
    this.polled = new Map();
  },
};

function seen(method, taskId, at) {
  probe.counts[method] = (probe.counts[method] ?? 0) + 1;
  if (method !== "tasks/get" || probe.t0 === null || taskId == null) return;
  if (probe.firstGetMs === null) {
    probe.firstGetMs = at - probe.t0;
    probe.firstGetTaskId = taskId;
  }
  if (!probe.polled.has(taskId)) probe.polled.set(taskId, at - probe.t0);
}

/** ms from t0 until every id in `ids` had its first tasks/get; null if one has not had any. */
export function allPolledMs(ids) {
  let last = 0;
  for (const id of ids) {
    const ms = probe.polled.get(id);
    if (ms === undefined) return null;
    last = Math.max(last, ms);
  }
  return ids.length ? last : null;
}

globalThis.fetch = function probedFetch(input, init) {
  const at = performance.now();
  const request = mcpRequest(input, init);
  if (request === null) return realFetch(input, init);
  const { method, name, body, isRequest } = request;
  if (method !== null) seen(method, name, at);

  if (probe.noListen && UNSUPPORTED.has(method)) {
    probe.faked += 1;
    return methodNotFound(input, body);
  }
  if (method === null && isRequest) {
    // No routing header: classify from the body, off the request's path (the time is already taken).
    input.clone().text().then((t) => {
      const rpc = rpcOfText(t);
      if (rpc.method) seen(rpc.method, rpc.params?.taskId ?? null, at);
    }, () => {});
  }
  const sent = realFetch(input, init);
  if (method === "tasks/get")
    sent.then(() => {
      probe.answered += 1;
      if (name != null && !probe.answeredAt.has(name)) probe.answeredAt.set(name, performance.now());
    }, () => {});
  return sent;
};

// The runner reads `answered` through this during a steady window (`steady`).
globalThis.benchProbe = probe;

/**
 * With `?steady=MS` on a measure page: once every handle was polled, tells the runner it may start its
 * steady window (`window.steadyReady`) and waits until the runner ends it (`window.steadyStop`, or MS
 * plus a minute).
 */
export async function steadyWindow() {
  const ms = Number(new URLSearchParams(location.search).get("steady") || 0);
  if (ms <= 0) return;
  globalThis.steadyReady = true;
  await until(() => globalThis.steadyStop === true, ms + 60_000, 20);
}

/** Resolves once `test()` is true (checked every `every` ms), or after `ms`. */
export function until(test, ms, every = 5) {
  return new Promise((resolve) => {
    const deadline = performance.now() + ms;
    const tick = () => (test() || performance.now() > deadline ? resolve(test()) : setTimeout(tick, every));
    tick();
  });
}

/** What the runner reads from `window.bench` when `done`; `ids`: the handles the page restored. */
export function report(ids, extra) {
  return {
    done: true,
    firstGetMs: probe.firstGetMs,
    firstGetTaskId: probe.firstGetTaskId,
    firstGetRestored: ids.includes(probe.firstGetTaskId),
    allGetMs: allPolledMs(ids),
    restored: ids.length,
    polled: probe.polled.size,
    counts: probe.counts,
    faked: probe.faked,
    ...extra,
  };
}
