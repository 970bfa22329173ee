// @ts-check
// What the transcript tests share: the driver loaded from js/ over the scripted door (the `fake-door`
// condition of the `#door` import: `node --conditions=fake-door`),
// a scripted `fetch`, the clock and randomness the transcript was recorded with, and `settle`, which
// lets the driver run until it needs the host again.
import { readFileSync } from "node:fs";
import { mock } from "node:test";
import { ClientDoor, Script, play } from "../js/fake_door.mjs";

const { TaskClient } = await import("../../js/driver/task_client.js");
// The fake door the driver got is this module (`#door` under the `fake-door` condition).
const glue = await import("#door");
if (glue.ClientDoor !== ClientDoor)
  throw new Error("run with node --conditions=fake-door: the driver got the wasm door");

export { TaskClient };

/** @typedef {import("../js/fake_door.mjs").Step} Step */
/** @typedef {import("../js/fake_door.mjs").Transcript} Transcript */

const UTF8 = new TextEncoder();

/** Events only the host's calls send (`callTool`, `close()`, the `notify` setter…): the test makes them. */
const HOST_ONLY = new Set(["call", "list_tools", "respond", "cancel", "wait", "forget", "clear", "tasks", "step"]);
HOST_ONLY.add("close").add("notify");

/**
 * Transcript `name` (tests/transcripts/<name>.json).
 * @param {string} name
 * @returns {Transcript}
 */
export function transcript(name) {
  const url = new URL(`../transcripts/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"));
}

/**
 * A `fetch` answering each request the way the transcript says: the request is matched to the `send`
 * effect whose body it carries (its headers must be among those sent), and answered only when the
 * transcript's next step is that exchange's `answer` (a Response with its status and body, or for
 * `sse` an event stream giving each `chunk` step's bytes in turn) or `failed` (a rejection with its
 * message), so answers reach the driver in the recorded order.
 * @param {Script} script
 */
function scriptedFetch(script) {
  /**
   * The `send` effects already fetched (an exchange the door sends again, a -32022 naming our
   * version, keeps its `n`).
   * @type {Set<object>}
   */
  const fetched = new Set();
  /**
   * Requests waiting for their answer, by exchange.
   * @type {Map<number, { resolve(response: Response): void, reject(error: unknown): void }>}
   */
  const waiting = new Map();
  /**
   * Event streams waiting for their next chunk, by exchange (undefined: the stream ends).
   * @type {Map<number, (chunk: Uint8Array | undefined) => void>}
   */
  const pulls = new Map();
  /**
   * An event stream whose chunks are the transcript's `chunk` steps of exchange `n`, each given when
   * it is the next step.
   * @param {number} n
   */
  const stream = (n) =>
    new ReadableStream({
      pull: (controller) =>
        new Promise((resolve) => {
          pulls.set(n, (chunk) => {
            if (chunk === undefined) controller.close();
            else controller.enqueue(chunk);
            resolve(undefined);
          });
          release();
        }),
    });
  /** The step whose chunk was last given to a stream. */
  let given = -1;
  const release = () => {
    const step = script.next();
    if (step === undefined) return;
    const { event } = step;
    const n = /** @type {number} */ (event.n);
    const pull = pulls.get(n);
    // Once per step: the stream pulls again before the driver has fed the chunk it was given.
    if (event.e === "chunk" && pull !== undefined && given !== script.at) {
      given = script.at;
      pulls.delete(n);
      pull(event.end ? undefined : UTF8.encode(step.body));
      return;
    }
    const held = waiting.get(n);
    if (held === undefined) return;
    if (event.e === "answer") {
      waiting.delete(n);
      /** @type {Record<string, string>} */
      const headers = { "content-type": event.sse ? "text/event-stream" : "application/json" };
      if (typeof event.retryAfter === "string") headers["retry-after"] = event.retryAfter;
      if (typeof event.session === "string") headers["mcp-session-id"] = event.session;
      const body = event.sse ? stream(n) : step.body;
      held.resolve(new Response(body, { status: /** @type {number} */ (event.status), headers }));
    } else if (event.e === "failed" && event.kind === "network") {
      waiting.delete(n);
      held.reject(new TypeError(/** @type {string} */ (event.message)));
    }
  };
  script.onStep = release;
  /**
   * @param {string | URL | Request} url
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  const fetch = (url, init = {}) => {
    const body = typeof init.body === "string" ? init.body : "";
    const sends = script.transcript.steps
      .slice(0, script.at)
      .flatMap((step) => step.effects)
      .filter((effect) => effect.do === "send" && effect.body === body && !fetched.has(effect));
    const send = sends[0];
    if (send === undefined) {
      script.fail(`fetch of a request the door never sent: ${body}`);
      return new Promise(() => {});
    }
    const n = /** @type {number} */ (send.n);
    fetched.add(send);
    const want = /** @type {{ url?: unknown }} */ (script.transcript.options).url;
    if (String(url) !== want) script.fail(`exchange ${n} went to ${url}, not ${want}`);
    const headers = new Headers(init.headers);
    const pairs = /** @type {string[]} */ (send.headers);
    for (let i = 0; i < pairs.length; i += 2) {
      if (headers.get(pairs[i]) !== pairs[i + 1]) {
        script.fail(`exchange ${n} was sent with ${pairs[i]}: ${headers.get(pairs[i])}; the door said ${pairs[i + 1]}`);
      }
    }
    return new Promise((resolve, reject) => {
      waiting.set(n, { resolve, reject });
      release();
    });
  };
  return fetch;
}

/**
 * Plays transcript `name` in test `context`: the fake door, the scripted fetch, the clock at the first
 * step's `now` and `Math.random` giving the transcript's seed, all put back after the test.
 * `finished()` checks every step was played.
 * @param {string} name
 * @param {import("node:test").TestContext} context
 */
export function replay(name, context) {
  const script = new Script(name, transcript(name));
  play(script);
  const realFetch = globalThis.fetch;
  globalThis.fetch = scriptedFetch(script);
  mock.timers.enable({ apis: ["Date", "setTimeout"], now: script.transcript.steps[0].now });
  // When each pending timeout fires, by its handle, so the clock can stop at each on its way (one
  // jump past two of them would fire the second at the wrong time). `reset()` puts the real ones back.
  /** @type {Map<unknown, number>} */
  const pending = new Map();
  const [setMocked, clearMocked] = [globalThis.setTimeout, globalThis.clearTimeout];
  globalThis.setTimeout = /** @type {typeof setTimeout} */ (
    /** @type {unknown} */ (
      (
        /** @type {(...args: unknown[]) => void} */ callback,
        /** @type {number} */ delay = 0,
        /** @type {unknown[]} */ ...args
      ) => {
        const handle = setMocked(
          (/** @type {unknown[]} */ ...given) => {
            pending.delete(handle);
            callback(...given);
          },
          delay,
          ...args,
        );
        pending.set(handle, Date.now() + Math.max(0, delay));
        return handle;
      }
    )
  );
  globalThis.clearTimeout = /** @type {typeof clearTimeout} */ (
    (/** @type {Parameters<typeof clearTimeout>[0]} */ handle) => {
      pending.delete(handle);
      clearMocked(handle);
    }
  );
  /**
   * Moves the clock towards `to`, stopping at the first pending timeout before it.
   * @param {number} to
   */
  const advance = (to) => mock.timers.tick(Math.max(0, Math.min(to, ...pending.values()) - Date.now()));
  // The driver's seed is `Math.floor(Math.random() * 2 ** 52)`.
  const random = mock.method(Math, "random", () => script.transcript.seed / 2 ** 52);
  context.after(() => {
    mock.timers.reset();
    random.mock.restore();
    globalThis.fetch = realFetch;
  });
  /** @type {Array<{ type: string, detail: unknown }>} */
  const events = [];

  /**
   * Lets the driver run (its promises, the scripted answers, its timer when the next step is later)
   * until `until()` holds, or, without it, until the transcript's next step is the host's to make.
   * @param {() => boolean} [until]
   * @param {boolean} [timers] whether timers run (`open()` runs without: a host's listeners, added once
   *   it resolves, still hear the events it found, which go out from a zero-delay timeout)
   */
  async function settle(until, timers = true) {
    let idle = 0;
    for (let rounds = 0; rounds < 10_000; rounds++) {
      if (script.failure) throw script.failure;
      if (until?.()) return;
      const at = script.at;
      await new Promise((resolve) => setImmediate(resolve));
      // Timers due now (the client's events are dispatched from a zero-delay timeout).
      if (timers) mock.timers.tick(0);
      if (script.at !== at) {
        idle = 0;
        continue;
      }
      if (++idle < 3) continue;
      const next = script.next();
      if (next === undefined || HOST_ONLY.has(next.event.e)) {
        // The host's next call is made when the transcript says (a step-mode host's later `step()`).
        if (until === undefined && next !== undefined && next.now > Date.now() && timers) {
          advance(next.now);
          idle = 0;
          continue;
        }
        if (until === undefined) return;
        const what = next === undefined ? "the end of the transcript" : `the host call ${JSON.stringify(next.event)}`;
        throw new Error(
          `${name}: the driver is idle at step ${script.at} (${what}) and the awaited call has not settled`,
        );
      }
      if (next.now > Date.now() && timers) {
        advance(next.now);
        idle = 0;
        continue;
      }
      if (idle > 20) {
        throw new Error(
          `${name}: the driver is idle, but the transcript's step ${script.at} is ${JSON.stringify(next.event)}`,
        );
      }
    }
    throw new Error(`${name}: no end to the driver's work`);
  }

  return {
    script,
    /** Client events in the order they were dispatched. */
    events,
    /**
     * `TaskClient.open(options)` played, its events collected.
     * @param {import("../../pkg-template/client.js").TaskClientOptions} options
     */
    async open(options) {
      const opening = TaskClient.open(options);
      let opened = false;
      opening.then(
        () => (opened = true),
        () => (opened = true),
      );
      await settle(() => opened, false);
      const client = await opening;
      for (const type of /** @type {const} */ (["task", "forget", "call", "storage", "error"])) {
        client.addEventListener(type, (event) => events.push({ type, detail: event.detail }));
      }
      return client;
    },
    /**
     * The host call's promise, settled by letting the driver run.
     * @template T
     * @param {Promise<T>} promise
     * @returns {Promise<T>}
     */
    async run(promise) {
      let settled = false;
      promise.then(
        () => (settled = true),
        () => (settled = true),
      );
      await settle(() => settled);
      return promise;
    },
    settle,
    /** Throws unless every step was played and the driver never strayed. */
    finished() {
      script.finished();
    },
  };
}
