// @ts-check
// The real TaskClient (js/driver/) over each transcript of tests/transcripts/: the scripted door checks
// every event the driver sends against the transcript and answers with the recorded effects; these
// tests make the host's calls in the transcript's order and check what the host sees.
import assert from "node:assert/strict";
import { test } from "node:test";
import { replay } from "./support.mjs";

const URL = "https://mcp.example/mcp";
/** The host's options every transcript was recorded with (`store` aside, which the door never sees). */
const OPTIONS = /** @type {const} */ ({ url: URL, namespace: "ns", store: "memory", minPollIntervalMs: 50 });

/**
 * The statuses of the task events heard for `id`, in order.
 * @param {Array<{ type: string, detail: unknown }>} events
 * @param {string} id
 */
const statuses = (events, id) =>
  events
    .filter(({ type, detail }) => type === "task" && /** @type {{ taskId?: string }} */ (detail).taskId === id)
    .map(({ detail }) => /** @type {{ status: string }} */ (detail).status);

/**
 * What a promise rejected with.
 * @param {Promise<unknown>} promise
 * @returns {Promise<Error & { code?: unknown, retryable?: unknown }>}
 */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return /** @type {Error} */ (error);
  }
  throw new Error("it resolved");
}

test("open-empty: open over an empty store, tasks() lists nothing", async (context) => {
  const t = replay("open-empty", context);
  const client = await t.open(OPTIONS);
  assert.equal(client.durable, true);
  assert.deepEqual(client.tasks(), []);
  client.close();
  t.finished();
});

test("restore-stored: a host store's task and unknown call are restored, the task polled to completion", async (context) => {
  const t = replay("restore-stored", context);
  // The records as the transcript hands them to the door: its sizes cut the body's UTF-8 bytes.
  const part = t.script.transcript.steps.find(({ event }) => event.e === "restore" && event.more);
  if (part === undefined) throw new Error("the transcript restores no part");
  const bytes = new TextEncoder().encode(part.body);
  /** @type {string[]} */
  const listed = [];
  let at = 0;
  for (const size of /** @type {number[]} */ (part.event.sizes)) {
    listed.push(new TextDecoder().decode(bytes.subarray(at, at + size)));
    at += size;
  }
  /** @type {Map<string, string>} */
  const records = new Map();
  for (let i = 0; i < listed.length; i += 2) records.set(listed[i], listed[i + 1]);
  const store = {
    /** @param {string} key */
    get: (key) => records.get(key),
    /** @param {string} key @param {string} value */
    put: (key, value) => {
      records.set(key, value);
    },
    /** @param {string} key */
    delete: (key) => {
      records.delete(key);
    },
    /** @param {string} prefix */
    list: (prefix) => [...records].filter(([key]) => key.startsWith(prefix)),
  };
  const client = await t.open({ ...OPTIONS, store });
  await t.settle();
  const call = t.events.find(({ type }) => type === "call")?.detail;
  assert.equal(
    /** @type {{ toolName: string }} */ (call).toolName,
    "deploy",
    "the call of unknown outcome is announced",
  );
  const listedNow = client.tasks();
  assert.equal(listedNow.length, 2);
  const task = /** @type {import("../../pkg-template/client.js").TaskSnapshot} */ (listedNow[0]);
  assert.equal(task.taskId, "t1");
  assert.equal(task.toolName, "résumé");
  assert.equal(task.status, "completed");
  assert.equal(task.restored, true);
  assert.deepEqual(statuses(t.events, "t1"), ["completed"]);
  client.close();
  t.finished();
});

test("call-poll-complete: callTool resolves with the stored task, polled to completion, then wait() settles", async (context) => {
  const t = replay("call-poll-complete", context);
  const client = await t.open(OPTIONS);
  const outcome = await t.run(client.callTool("build", { seconds: 1 }));
  assert.equal(outcome.kind, "task");
  const task = /** @type {import("../../pkg-template/client.js").TaskSnapshot} */ (
    /** @type {{ task: unknown }} */ (outcome).task
  );
  assert.equal(task.taskId, "t1");
  assert.equal(task.status, "working");
  await t.settle();
  const done = await t.run(client.wait("t1"));
  assert.equal(done.status, "completed");
  assert.deepEqual(/** @type {{ content?: unknown }} */ (done.result).content, [{ type: "text", text: "built" }]);
  await t.settle();
  assert.deepEqual(statuses(t.events, "t1"), ["working", "completed"]);
  client.close();
  t.finished();
});

test("a trap: the door throws within a call; the client stops, rejecting what waits, and the store keeps the call", async (context) => {
  const t = replay("call-poll-complete", context);
  /** @type {Map<string, string>} */
  const records = new Map();
  const store = {
    get: async (/** @type {string} */ key) => records.get(key),
    put: async (/** @type {string} */ key, /** @type {string} */ value) => void records.set(key, value),
    delete: async (/** @type {string} */ key) => void records.delete(key),
    list: async (/** @type {string} */ prefix) => [...records].filter(([key]) => key.startsWith(prefix)).sort(),
  };
  const client = await t.open({ ...OPTIONS, store });
  // The call's answer is the step that traps (a panic, or memory that cannot grow, while reading it).
  t.script.trapAt = t.script.transcript.steps.findIndex(({ event }) => event.e === "answer");
  const failure = await rejection(t.run(client.callTool("build", { seconds: 1 })));
  assert.equal(failure.name, "ClientFailedError", failure.message);
  assert.match(failure.message, /WebAssembly module failed \(RuntimeError: unreachable\); stored tasks are kept/);
  assert.equal(failure.retryable, true);
  await t.settle(() => t.events.some(({ type }) => type === "error"));
  const heard = /** @type {{ error: Error }} */ (t.events.find(({ type }) => type === "error")?.detail);
  assert.equal(heard.error, failure, "the error event carries the same error");
  // The pending call was saved before its request went out, and nothing deleted it.
  assert.equal([...records.keys()].filter((key) => key.includes("call-")).length, 1, [...records.keys()].join());
  // Later calls fail at once, saying the same; nothing more reaches the door.
  assert.equal((await rejection(client.callTool("build"))).name, "ClientFailedError");
  assert.equal((await rejection(client.wait("t1"))).name, "ClientFailedError");
  assert.deepEqual(client.tasks(), []);
});

test("call-on-a-stream: a call answered on an event stream, chunk by chunk, resolves with its result", async (context) => {
  const t = replay("call-on-a-stream", context);
  const client = await t.open(OPTIONS);
  const outcome = await t.run(client.callTool("echo", { text: "hi" }));
  assert.equal(outcome.kind, "result");
  assert.deepEqual(/** @type {{ result: { content?: unknown } }} */ (outcome).result.content, [
    { type: "text", text: "hi" },
  ]);
  client.close();
  t.finished();
});

test("input-required-respond: the question is announced, respond() resolves once stored, the task completes", async (context) => {
  const t = replay("input-required-respond", context);
  const client = await t.open(OPTIONS);
  await t.run(client.callTool("build", { seconds: 1 }));
  await t.settle();
  const asking = t.events.findLast(({ type }) => type === "task")?.detail;
  assert.equal(/** @type {{ status: string }} */ (asking).status, "input_required");
  assert.ok(
    /** @type {{ inputRequests: Record<string, unknown> }} */ (asking).inputRequests.name,
    "the question is in the event",
  );
  const answered = await t.run(client.respond("t1", { name: { action: "accept", content: { name: "Ann" } } }));
  assert.equal(answered, undefined);
  await t.settle();
  assert.equal(statuses(t.events, "t1").at(-1), "completed");
  client.close();
  t.finished();
});

test("ask-before-task: onInputRequired answers the call's question and the call resolves with the result", async (context) => {
  const t = replay("ask-before-task", context);
  const client = await t.open(OPTIONS);
  /** @type {unknown[]} */
  const asked = [];
  const outcome = await t.run(
    client.callTool("deploy", undefined, {
      onInputRequired: (requests) => {
        asked.push(requests);
        return { ok: { action: "accept", content: {} } };
      },
    }),
  );
  assert.equal(asked.length, 1);
  assert.ok(/** @type {Record<string, unknown>} */ (asked[0]).ok, "the host saw the question");
  assert.equal(outcome.kind, "result");
  assert.deepEqual(/** @type {{ result: { content?: unknown } }} */ (outcome).result.content, [
    { type: "text", text: "deployed" },
  ]);
  client.close();
  t.finished();
});

test("cancel: cancel() resolves once the intent is stored; the task ends cancelled", async (context) => {
  const t = replay("cancel", context);
  const client = await t.open(OPTIONS);
  await t.run(client.callTool("build", { seconds: 1 }));
  await t.settle();
  assert.equal(await t.run(client.cancel("t1")), undefined);
  await t.settle();
  const last = t.events.findLast(({ type }) => type === "task")?.detail;
  assert.equal(/** @type {{ status: string }} */ (last).status, "cancelled");
  client.close();
  t.finished();
});

test("list-tools: a page with a rejected tool; a call whose fetch fails rejects with a retryable NetworkError", async (context) => {
  const t = replay("list-tools", context);
  const client = await t.open(OPTIONS);
  const page = await t.run(client.listTools());
  assert.deepEqual(
    page.tools.map((tool) => tool.name),
    ["greet"],
  );
  assert.equal(page.nextCursor, "c2");
  assert.deepEqual(
    page.rejectedTools?.map((tool) => tool.name),
    ["bad"],
  );
  const error = await rejection(t.run(client.callTool("greet", { who: "Ann" })));
  assert.equal(error.name, "NetworkError");
  assert.equal(error.retryable, true);
  assert.match(error.message, /connection reset/);
  client.close();
  t.finished();
});

test("store-refused: a host store that refuses the task's record rejects the call with StorageError", async (context) => {
  const t = replay("store-refused", context);
  /** @type {Map<string, string>} */
  const records = new Map();
  const store = {
    /** @param {string} key */
    get: (key) => records.get(key),
    /** @param {string} key @param {string} value */
    put: (key, value) => {
      if (key.includes("/task/")) throw new Error("disk full");
      records.set(key, value);
    },
    /** @param {string} key */
    delete: (key) => {
      records.delete(key);
    },
    /** @param {string} prefix */
    list: (prefix) => [...records].filter(([key]) => key.startsWith(prefix)),
  };
  const client = await t.open({ ...OPTIONS, store });
  const error = await rejection(t.run(client.callTool("build", { seconds: 1 })));
  assert.equal(error.name, "StorageError");
  assert.match(error.message, /t1/);
  await t.settle();
  const storage = t.events.find(({ type }) => type === "storage")?.detail;
  assert.equal(/** @type {{ durable: boolean }} */ (storage).durable, true, "one record refused: still durable");
  assert.match(/** @type {{ reason: string }} */ (storage).reason, /disk full/);
  assert.deepEqual(statuses(t.events, "t1"), ["working"], "the task is still announced");
  assert.equal(records.size, 0, "the pending call's record came and went");
  client.close();
  t.finished();
});

test("version-retry: a call refused with -32022 naming our version is sent again and resolves with the second answer", async (context) => {
  const t = replay("version-retry", context);
  const client = await t.open(OPTIONS);
  const outcome = await t.run(client.callTool("echo"));
  assert.equal(outcome.kind, "result");
  assert.deepEqual(/** @type {{ result: { content?: unknown } }} */ (outcome).result.content, [
    { type: "text", text: "again" },
  ]);
  client.close();
  t.finished();
});

test("step-mode: with autoPoll false the call's task is written compared, and a later step() polls it to completion", async (context) => {
  const t = replay("step-mode", context);
  const client = await t.open({ ...OPTIONS, autoPoll: false });
  const outcome = await t.run(client.callTool("build", { seconds: 1 }));
  assert.equal(outcome.kind, "task");
  await t.settle();
  const report = await t.run(client.step());
  assert.deepEqual(
    report,
    { nextWakeAt: null, live: 0, settled: 1, polled: 1, sent: 0 },
    "one poll, and the task ended",
  );
  await t.settle();
  assert.deepEqual(statuses(t.events, "t1"), ["working", "completed"]);
  client.close();
  t.finished();
});

test("long-poll-interval: a 150 s poll interval is waited out in timeouts of at most 60 s", async (context) => {
  const t = replay("long-poll-interval", context);
  const client = await t.open(OPTIONS);
  await t.run(client.callTool("build", { seconds: 1 }));
  await t.settle();
  assert.deepEqual(statuses(t.events, "t1"), ["working", "completed"]);
  assert.equal(Date.now(), t.script.transcript.steps[0].now + 150_000);
  client.close();
  t.finished();
});
