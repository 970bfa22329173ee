// tasks/get answers read by the transport's fast path (src/transport/task_answer.rs: a task last seen
// `working` has its next answer parsed by JSON.parse in http.js and, when its shape is the regular
// one, its Task fields handed to Rust in one call) and by the bytes path it falls back to, from a
// small HTTP server of this file's own on loopback that answers each poll with a scripted body.
// Asserted: regular answers change the task through the fast path (a ttlMs written
// 86400000.000000001, which only a double-reading path takes, shows which path read it); an answer
// that carries a detail falls back and is read whole; and every broken answer is refused
// (badResponse, or the HTTP status) without changing the task, whichever path saw it first.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { TaskClient, nextTask } from "./support.mjs";

const TIME = "2026-12-05T10:00:00Z";

/** A regular tasks/get result for `taskId`, with `extra` fields over it. */
const task = (taskId, extra = {}) => ({
  resultType: "complete",
  taskId,
  status: "working",
  createdAt: TIME,
  lastUpdatedAt: TIME,
  ttlMs: null,
  pollIntervalMs: 20,
  ...extra,
});
const answer = (id, result) => JSON.stringify({ jsonrpc: "2.0", id, result });

// Each scenario answers the nth poll of its task (n from 1): a body, and an HTTP status when not 200.
// The first poll is always a regular working answer, so every later one is read by the fast path first.
const BROKEN = {
  "status-number": (id, t) => answer(id, task(t, { status: 3 })),
  "unknown-status": (id, t) => answer(id, task(t, { status: "paused" })),
  "another-task": (id) => answer(id, task("someone-else")),
  "fractional-ttl": (id, t) => answer(id, task(t, { ttlMs: 1.5 })),
  "negative-interval": (id, t) => answer(id, task(t, { pollIntervalMs: -1 })),
  "no-ttl": (id, t) => {
    const result = task(t);
    delete result.ttlMs;
    return answer(id, result);
  },
  "created-number": (id, t) => answer(id, task(t, { createdAt: 5 })),
  "message-number": (id, t) => answer(id, task(t, { statusMessage: 5 })),
  "result-type-task": (id, t) => answer(id, task(t, { resultType: "task" })),
  "error-beside": (id, t) => JSON.stringify({ jsonrpc: "2.0", id, result: task(t), error: { code: 1, message: "x" } }),
  "jsonrpc-1": (id, t) => JSON.stringify({ jsonrpc: "1.0", id, result: task(t) }),
  "null-id": (_id, t) => JSON.stringify({ jsonrpc: "2.0", id: null, result: task(t) }),
  "array-result": (id) => JSON.stringify({ jsonrpc: "2.0", id, result: [] }),
  "not-json": (id, t) => answer(id, task(t)).slice(0, -1),
  "byte-order-mark": (id, t) => `\uFEFF${answer(id, task(t, { statusMessage: "after a BOM" }))}`,
};

const SCENARIOS = {
  // Two regular working answers (the second with a new message), then the result, which carries a
  // detail: the fast path parses it, finds a detail and hands the bytes over.
  regular: (n, id, t) =>
    n === 1
      ? answer(id, task(t))
      : n < 4
        ? answer(id, task(t, { statusMessage: `step ${n}` }))
        : answer(id, task(t, { status: "completed", result: { content: [{ type: "text", text: "all done" }] } })),
  // A count written with digits past a double's precision: JSON.parse reads 86400000, which only a
  // path that reads JSON.parse's numbers takes (the bytes path refuses a count that is not whole).
  rounded: (n, id, t) => {
    const body = answer(id, task(t, { statusMessage: `poll ${n}` }));
    return n === 1 ? body : body.replace('"ttlMs":null', '"ttlMs":86400000.000000001');
  },
  // The second answer comes late, after the test closed its client.
  late: (n, id, t) => (n === 1 ? answer(id, task(t)) : { delayMs: 300, body: answer(id, task(t, { statusMessage: "late" })) }),
  "http-503": (n, id, t) => (n === 1 ? answer(id, task(t)) : { status: 503, body: answer(id, task(t, { statusMessage: "from a 503" })) }),
  ...Object.fromEntries(Object.entries(BROKEN).map(([name, body]) => [name, (n, id, t) => (n === 1 ? answer(id, task(t)) : body(id, t))])),
};

const polls = new Map();
const server = createServer((req, res) => {
  let text = "";
  req.on("data", (chunk) => (text += chunk));
  req.on("end", () => {
    const rpc = JSON.parse(text || "{}");
    const send = (reply) => {
      const { status = 200, body, delayMs = 0 } = typeof reply === "string" ? { body: reply } : reply;
      setTimeout(() => res.writeHead(status, { "content-type": "application/json" }).end(body), delayMs);
    };
    if (rpc.method === "tools/call") {
      const taskId = `${rpc.params.name}-${polls.size}`;
      polls.set(taskId, 0);
      return send(answer(rpc.id, { ...task(taskId), resultType: "task" }));
    }
    if (rpc.method === "tasks/get") {
      const taskId = rpc.params.taskId;
      const n = polls.get(taskId) + 1;
      polls.set(taskId, n);
      return send(SCENARIOS[taskId.replace(/-\d+$/, "")](n, rpc.id, taskId));
    }
    if (rpc.method === "tasks/cancel") return send(answer(rpc.id, { resultType: "complete" }));
    send(answer(rpc.id, { resultType: "complete", content: [] }));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/mcp`;
after(() => server.close());

const open = () => TaskClient.open({ url, store: "memory", minPollIntervalMs: 20 });

/** Runs `body` with a fresh client, closed afterwards whatever happens. */
async function withClient(body) {
  const client = await open();
  try {
    return await body(client);
  } finally {
    client.close();
  }
}

/** Starts `scenario`'s task; resolves with its id. */
async function start(client, scenario) {
  const out = await client.callTool(scenario, {});
  assert.equal(out.kind, "task");
  return out.task.taskId;
}

test("regular working answers change the task, and the result after them is read whole", () =>
  withClient(async (client) => {
    const id = await start(client, "regular");
    const stepped = await nextTask(client, (s) => s.taskId === id && s.statusMessage === "step 2", 10_000);
    assert.equal(stepped.status, "working");
    assert.equal(stepped.lastError, null);
    const done = await client.wait(id);
    assert.equal(done.status, "completed");
    assert.equal(done.result.content[0].text, "all done");
    assert.equal(done.lastError, null);
  }));

test("a working answer is read by the fast path: a count JSON.parse rounds to a whole one is taken as that", () =>
  withClient(async (client) => {
    const id = await start(client, "rounded");
    const read = await nextTask(client, (s) => s.taskId === id && s.ttlMs !== null, 10_000);
    assert.equal(read.ttlMs, 86_400_000);
    assert.equal(read.lastError, null);
    assert.equal(read.status, "working");
  }));

test("a regular working answer with HTTP 503 is an HTTP failure and changes nothing", () =>
  withClient(async (client) => {
    const id = await start(client, "http-503");
    const failed = await nextTask(client, (s) => s.taskId === id && s.lastError !== null, 10_000);
    assert.equal(failed.lastError.failure.kind, "http");
    assert.equal(failed.lastError.failure.status, 503);
    assert.equal(failed.statusMessage, null, "the 503's message was not taken");
  }));

test("an answer that arrives after its client closed is dropped quietly", async () => {
  const thrown = [];
  const onThrown = (e) => thrown.push(e);
  process.on("uncaughtException", onThrown);
  process.on("unhandledRejection", onThrown);
  try {
    const client = await open();
    const id = await start(client, "late");
    // Wait until the late poll is on its way, then close while it is.
    const until = Date.now() + 10_000;
    while ((polls.get(id) ?? 0) < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(polls.get(id), 2, "the late poll was sent");
    client.close();
    await new Promise((r) => setTimeout(r, 600));
    assert.deepEqual(thrown.map(String), [], "nothing was thrown when the answer arrived");
    await withClient(async (next) => {
      const other = await start(next, "regular");
      assert.equal((await next.wait(other)).status, "completed", "a new client works after it");
    });
  } finally {
    process.off("uncaughtException", onThrown);
    process.off("unhandledRejection", onThrown);
  }
});

for (const name of Object.keys(BROKEN)) {
  test(`a working task's broken answer (${name}) is refused and changes nothing`, () =>
    withClient(async (client) => {
      const id = await start(client, name);
      const failed = await nextTask(client, (s) => s.taskId === id && s.lastError !== null, 10_000);
      assert.equal(failed.lastError.failure.kind, "badResponse", JSON.stringify(failed.lastError));
      assert.equal(failed.status, "working");
      assert.equal(failed.statusMessage, null);
      assert.equal(failed.ttlMs, null);
      assert.equal(failed.createdAt, TIME);
      assert.ok(polls.get(id) >= 2, "the broken answer was the one refused");
    }));
}
