// A host store that refuses a write ("silent loss"): the operation that needed the write
// hears of it — callTool and respond reject with StorageError naming the task — while the client
// stays durable, keeps the task in memory and goes on, and the other records are still written.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer, nextTask } from "./support.mjs";

const server = await startServer(["--poll-interval-ms", "100"]);
after(() => server.stop());

/**
 * A Map-backed host store whose next `refuse` puts of a task record throw, as a store over quota would;
 * with `refuseTool`, only puts of that tool's records count (so a write of another task running
 * meanwhile cannot take the refusal meant for a new handle).
 */
function flakyStore() {
  const map = new Map();
  const store = {
    map,
    refuse: 0,
    refuseTool: null,
    async get(key) { return map.get(key); },
    async put(key, value) {
      const counted = store.refuseTool === null || String(value).includes(`"toolName":"${store.refuseTool}"`);
      if (store.refuse > 0 && key.includes("/task/") && counted) {
        store.refuse -= 1;
        throw new Error("QuotaExceededError: the record does not fit");
      }
      map.set(key, value);
    },
    async delete(key) { map.delete(key); },
    async list(prefix) { return [...map.entries()].filter(([k]) => k.startsWith(prefix)).sort(); },
  };
  return store;
}

const taskKey = (store, id) => [...store.map.keys()].find((k) => k.endsWith(`/task/${id}`));

test("callTool whose handle the store refuses rejects with StorageError naming the task; nothing else is lost", async () => {
  const store = flakyStore();
  const client = await TaskClient.open({ url: server.url, store, namespace: "flaky-call", minPollIntervalMs: 50 });
  const events = [];
  client.addEventListener("storage", (e) => events.push(e.detail));
  try {
    const first = await client.callTool("long_job", { seconds: 60 });
    // Only the build's handle: the long job's own writes go on while the build is called.
    store.refuseTool = "build";
    store.refuse = 1;
    let refusedId = null;
    await assert.rejects(client.callTool("build", { seconds: 1, target: "refused" }), (e) => {
      assert.equal(e.name, "StorageError", `${e.name}: ${e.message}`);
      refusedId = /started as task (\S+),/.exec(e.message)?.[1];
      return true;
    });
    assert.ok(refusedId, "the error names the task");
    assert.equal(client.durable, true, "one refused record does not switch the client to memory");
    await new Promise((resolve) => setTimeout(resolve, 50)); // events are dispatched on the next macrotask
    assert.ok(events.some((d) => d.durable === true && d.reason.includes(refusedId)), JSON.stringify(events));
    assert.ok(taskKey(store, first.task.taskId), "the other task's record is stored");
    // The refused task is tracked in memory and polled to its end; its next write is stored.
    const done = await nextTask(client, (s) => s.taskId === refusedId && s.status === "completed");
    assert.equal(done.result.structuredContent.target, "refused");
    assert.ok(taskKey(store, refusedId), "a later write of the same task is stored");
  } finally {
    client.close();
  }
});

test("respond whose outbox write is refused rejects with StorageError, and the answer is still sent", async () => {
  const store = flakyStore();
  const client = await TaskClient.open({ url: server.url, store, namespace: "flaky-respond", minPollIntervalMs: 50 });
  try {
    const asking = nextTask(client, (s) => s.status === "input_required");
    const { task } = await client.callTool("deploy", { service: "api", environment: "staging" });
    await asking;
    store.refuse = 1;
    await assert.rejects(
      client.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling" } } }),
      (e) => e.name === "StorageError" && e.message.includes(task.taskId) && /queued in memory/.test(e.message),
    );
    assert.equal(client.durable, true);
    const done = await nextTask(client, (s) => s.taskId === task.taskId && s.status === "completed");
    assert.equal(done.result.structuredContent.strategy, "rolling", "the queued answer reached the server");
  } finally {
    client.close();
  }
});

test("in step mode, callTool whose handle the store refuses rejects instead of resolving with nothing stored", async () => {
  const store = flakyStore();
  const client = await TaskClient.open({ url: server.url, store, namespace: "flaky-step", autoPoll: false });
  try {
    store.refuse = 1;
    await assert.rejects(client.callTool("long_job", { seconds: 60 }), (e) => e.name === "StorageError" && /started as task/.test(e.message));
    const next = await client.callTool("long_job", { seconds: 60 });
    assert.ok(taskKey(store, next.task.taskId), "the next handle is stored");
  } finally {
    client.close();
  }
});
