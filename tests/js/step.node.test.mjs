// Step mode (autoPoll: false) in Node: nothing runs between steps, each step may be a fresh client
// (a new isolate) over the same store, answers and cancels queue until a step sends them, and two
// clients stepping at once over one store send an answer once (leases compared on write).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer } from "./support.mjs";

const { mapStore } = await import(new URL("../../pkg/stores.js", import.meta.url));
const server = await startServer(["--poll-interval-ms", "100"]);
after(() => server.stop());

/** Every /mcp request this process sends: { method, taskId, at }. */
const sent = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  if (request.method === "POST") {
    const body = await request.clone().json().catch(() => null);
    if (body?.method) sent.push({ method: body.method, taskId: body.params?.taskId, at: Date.now() });
  }
  return realFetch(request);
};
const count = (method, taskId) => sent.filter((r) => r.method === method && r.taskId === taskId).length;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const open = (store, extra = {}) =>
  TaskClient.open({ url: server.url, store, autoPoll: false, minPollIntervalMs: 50, namespace: "steps", ...extra });

/** Steps (each with a fresh client when `fresh`) until `done(snapshot)`; the step results. */
async function stepUntil(store, taskId, done, { fresh = true, limit = 100 } = {}) {
  let client = await open(store);
  const results = [];
  for (let i = 0; i < limit; i++) {
    if (fresh && i > 0) client = await open(store);
    const result = await client.step();
    results.push(result);
    const snapshot = client.tasks().find((t) => t.taskId === taskId);
    if (snapshot && done(snapshot)) return { snapshot, results };
    assert.ok(result.nextWakeAt !== null, "a live task has a next wake-up");
    await sleep(Math.max(0, result.nextWakeAt - Date.now()));
  }
  throw new Error(`task ${taskId} not done after ${limit} steps`);
}

test("step() is refused on a client that polls by itself", async () => {
  const client = await TaskClient.open({ url: server.url, store: mapStore(), namespace: "auto" });
  await assert.rejects(client.step(), (e) => e.name === "TypeError" && /autoPoll: false/.test(e.message));
  client.close();
});

test("a build runs to the end on steps alone, each step a fresh client over the store", async () => {
  const store = mapStore();
  const client = await open(store);
  const out = await client.callTool("build", { seconds: 1, target: "steps" });
  const id = out.task.taskId;
  const before = sent.length;
  await sleep(400);
  assert.equal(sent.length, before, "no request between steps: the client runs no timers");
  const { snapshot, results } = await stepUntil(store, id, (s) => s.status === "completed");
  assert.equal(snapshot.result.structuredContent.target, "steps");
  assert.equal(count("tools/call", undefined) >= 1, true);
  const last = results.at(-1);
  assert.deepEqual([last.live, last.settled, last.nextWakeAt], [0, 1, null], "nothing live: no wake-up");
  assert.ok(results.some((r) => r.polled > 0), "steps polled");
});

test("respond and cancel only queue; the next step sends them", async () => {
  const store = mapStore();
  const client = await open(store);
  const { task } = await client.callTool("deploy", { service: "api", environment: "staging" });
  await stepUntil(store, task.taskId, (s) => s.status === "input_required");
  const answering = await open(store);
  await answering.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "canary", replicas: 3 } } });
  await sleep(200);
  assert.equal(count("tasks/update", task.taskId), 0, "respond() queued the answer without sending");
  const result = await answering.step();
  assert.equal(result.sent, 1);
  assert.equal(count("tasks/update", task.taskId), 1);
  const { snapshot } = await stepUntil(store, task.taskId, (s) => s.status === "completed");
  assert.equal(snapshot.result.structuredContent.strategy, "canary");
  assert.equal(count("tasks/update", task.taskId), 1, "sent once in all");

  const long = await client.callTool("long_job", { seconds: 60 });
  await client.cancel(long.task.taskId);
  assert.equal(count("tasks/cancel", long.task.taskId), 0, "cancel() queued");
  const { snapshot: cancelled } = await stepUntil(store, long.task.taskId, (s) => s.status === "cancelled");
  assert.equal(cancelled.status, "cancelled");
  assert.equal(count("tasks/cancel", long.task.taskId), 1);
});

test("two clients stepping at once over one store send a queued answer once", async () => {
  const store = mapStore();
  const starter = await open(store);
  const { task } = await starter.callTool("deploy", { service: "web", environment: "staging" });
  await stepUntil(store, task.taskId, (s) => s.status === "input_required");
  const [a, b] = [await open(store), await open(store)];
  await a.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling", replicas: 2 } } });
  const [ra, rb] = await Promise.all([a.step(), b.step()]);
  assert.equal(ra.sent + rb.sent, 1, `one of the two steps sent the answer: ${JSON.stringify([ra, rb])}`);
  await Promise.all([a.step(), b.step()]);
  const { snapshot } = await stepUntil(store, task.taskId, (s) => s.status === "completed");
  assert.equal(snapshot.status, "completed");
  assert.equal(count("tasks/update", task.taskId), 1, "exactly one tasks/update reached the server");
});

test("a step cut off after leasing (its isolate died) loses nothing: a later step sends after the lease", async () => {
  const map = new Map();
  const store = mapStore(map);
  const starter = await open(store);
  const { task } = await starter.callTool("deploy", { service: "db", environment: "staging" });
  await stepUntil(store, task.taskId, (s) => s.status === "input_required");
  await starter.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling" } } });
  // Simulate a step that wrote its lease and died before sending: write the lease into the record.
  const key = [...map.keys()].find((k) => k.endsWith(`/task/${task.taskId}`));
  const record = JSON.parse(map.get(key));
  record.sendLeaseUntil = Date.now() + 800;
  map.set(key, JSON.stringify(record));
  const fresh = await open(store);
  const blocked = await fresh.step();
  assert.equal(blocked.sent, 0, "the other step's lease holds");
  assert.ok(blocked.nextWakeAt <= Date.now() + 900, "the next wake-up is no later than the lease's end");
  await sleep(900);
  const after = await (await open(store)).step();
  assert.equal(after.sent, 1, "sent once the lease ran out");
  const { snapshot } = await stepUntil(store, task.taskId, (s) => s.status === "completed");
  assert.equal(snapshot.status, "completed");
  assert.equal(count("tasks/update", task.taskId), 1);
});

test("a send's lease outlasts the send: sends run first, and the lease covers their requests at the host's timeout", async () => {
  const map = new Map();
  const store = mapStore(map);
  // A slow server may use the whole timeout on every request; 60 s is more than a fixed 30 s lease.
  const timeoutMs = 60_000;
  const starter = await open(store, { requestTimeoutMs: timeoutMs });
  const { task } = await starter.callTool("deploy", { service: "queue", environment: "staging" });
  // Twenty other live tasks, so the step has more than one batch of work.
  for (let i = 0; i < 20; i++) await starter.callTool("long_job", { seconds: 60 });
  await stepUntil(store, task.taskId, (s) => s.status === "input_required");
  await starter.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling" } } });
  const key = [...map.keys()].find((k) => k.endsWith(`/task/${task.taskId}`));
  let leaseAtSend = null;
  let sendStartedAt = null;
  const watch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = await request.clone().json().catch(() => null);
    if (body?.method === "tasks/update") {
      sendStartedAt = Date.now();
      leaseAtSend = JSON.parse(map.get(key)).sendLeaseUntil;
    }
    return watch(request);
  };
  try {
    const result = await (await open(store, { requestTimeoutMs: timeoutMs })).step();
    assert.equal(result.sent, 1);
  } finally {
    globalThis.fetch = watch;
  }
  assert.ok(sendStartedAt !== null, "the answer was sent");
  assert.ok(leaseAtSend >= sendStartedAt + timeoutMs,
    `the lease (${leaseAtSend - sendStartedAt} ms after the send started) covers the send's own timeout`);
});
