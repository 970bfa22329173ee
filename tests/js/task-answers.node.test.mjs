// tasks/get answers as the client reads them (the driver hands each answer's bytes to the door, which
// decodes it whole), from a small HTTP server of this file's own on loopback that answers each poll
// with a scripted body. Asserted: regular answers change the task; a result's and a form's parts
// reach the host whole, numbers included, and irregular but valid details too; and every broken
// answer is refused (badResponse, or the HTTP status) without changing the task. A snapshot's parts
// are the host's own copy (changing one changes no later snapshot); they are not promised to be the
// very objects JSON.parse made.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { TaskClient, mapStore, nextTask } from "./support.mjs";

// The tasks' creation time: now (whole seconds), so a task with a TTL of a day is live whenever this
// runs (a fixed date made the TTL test fail once that day had passed).
const TIME = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");

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
/** An embedded elicitation request with `params`. */
const elicit = (params) => ({ method: "elicitation/create", params });
/** Form-mode elicitation params. */
const form = (message, requestedSchema) => ({ mode: "form", message, requestedSchema });
/** A schema of one text field whose title is `title`. */
const schemaTitled = (title) => ({ type: "object", properties: { name: { type: "string", title } }, required: ["name"] });

// Each scenario answers the nth poll of its task (n from 1): a body, and an HTTP status when not 200.
// The first poll is always a regular working answer, so the broken one is a working task's next answer.
const BROKEN = {
  "status-number": (id, t) => answer(id, task(t, { status: 3 })),
  "unknown-status": (id, t) => answer(id, task(t, { status: "paused" })),
  "another-task": (id) => answer(id, task("someone-else")),
  "fractional-ttl": (id, t) => answer(id, task(t, { ttlMs: 1.5 })),
  // Digits past a double's precision: JSON.parse would read 86400000, but the count as written is
  // not whole, and the door reads what was written.
  "ttl-past-precision": (id, t) => answer(id, task(t)).replace('"ttlMs":null', '"ttlMs":86400000.000000001'),
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
  // Broken details: each is refused whole.
  "completed-no-result": (id, t) => answer(id, task(t, { status: "completed" })),
  "content-not-array": (id, t) => answer(id, task(t, { status: "completed", result: { content: "done" } })),
  "is-error-text": (id, t) => answer(id, task(t, { status: "completed", result: { content: [], isError: "yes" } })),
  "result-type-input": (id, t) =>
    answer(id, task(t, { status: "completed", result: { resultType: "input_required", content: [] } })),
  "deep-content": (id, t) => {
    const deep = `${"[".repeat(200)}${"]".repeat(200)}`;
    return answer(id, task(t, { status: "completed", result: { content: [] } })).replace('"content":[]', `"content":[${deep}]`);
  },
  "input-no-requests": (id, t) => answer(id, task(t, { status: "input_required" })),
  "form-no-schema": (id, t) => answer(id, task(t, { status: "input_required", inputRequests: { q: elicit({ message: "?" }) } })),
  "url-no-url": (id, t) => answer(id, task(t, { status: "input_required", inputRequests: { q: elicit({ mode: "url", message: "?" }) } })),
  "unknown-mode": (id, t) =>
    answer(id, task(t, { status: "input_required", inputRequests: { q: elicit({ mode: "telepathy", message: "?" }) } })),
  "deep-schema": (id, t) => {
    const deep = `${"{\"a\":".repeat(200)}1${"}".repeat(200)}`;
    const body = answer(id, task(t, { status: "input_required", inputRequests: { q: elicit(form("?", { type: "object" })) } }));
    return body.replace('"requestedSchema":{"type":"object"}', `"requestedSchema":${deep}`);
  },
};

const SCENARIOS = {
  // Two regular working answers (the second with a new message), then the result.
  regular: (n, id, t) =>
    n === 1
      ? answer(id, task(t))
      : n < 4
        ? answer(id, task(t, { statusMessage: `step ${n}` }))
        : answer(id, task(t, { status: "completed", result: { content: [{ type: "text", text: "all done" }] } })),
  // A result, and a form and a page to open, each part of the regular shape.
  "completed-parts": (n, id, t) => {
    const result = { content: [{ type: "text", text: "done" }, [1, 2]], structuredContent: { n: 1 }, isError: false, _meta: { k: "v" } };
    return answer(id, task(t, n === 1 ? {} : { status: "completed", result }));
  },
  "form-parts": (n, id, t) => {
    const pay = elicit({ mode: "url", message: "Pay", url: "https://pay.example/x" });
    return answer(id, task(t, { status: "input_required", inputRequests: { q: elicit(form("Name?", schemaTitled("Name"))), u: pay } }));
  },
  // Numbers a double cannot hold as written, in a result and in a form's schema.
  "numbers": (n, id, t) => {
    if (n === 1) return answer(id, task(t));
    const result = { content: [{ type: "text", text: "n" }], structuredContent: { big: "BIG", huge: "HUGE", zero: "ZERO" } };
    const body = answer(id, task(t, { status: "completed", result }));
    return body.replace('"BIG"', "9007199254740993").replace('"HUGE"', "1E308").replace('"ZERO"', "-0");
  },
  // A result of 10,000 blocks: each is a part whose text is cut from the answer when the record is written.
  "many-blocks": (n, id, t) => {
    const content = Array.from({ length: 10_000 }, (_, i) => ({ type: "text", text: `block ${i}` }));
    return answer(id, task(t, n === 1 ? {} : { status: "completed", result: { content } }));
  },
  // Valid details of an irregular shape: a content item that is no object, a question of another
  // method. Each is read whole.
  "completed-irregular": (n, id, t) =>
    answer(id, task(t, n === 1 ? {} : { status: "completed", result: { content: [7, { type: "text", text: "seven" }] } })),
  "input-other-method": (n, id, t) =>
    answer(id, task(t, { status: "input_required", inputRequests: { r: { method: "roots/list" }, q: elicit(form("Name?", schemaTitled("Name"))) } })),
  // A part nested as deep as the gate takes (the bytes path's limit is 128 levels from the body).
  "completed-deep": (n, id, t) => {
    const deep = `${"[".repeat(100)}${"]".repeat(100)}`;
    const body = answer(id, task(t, n === 1 ? {} : { status: "completed", result: { content: [] } }));
    return body.replace('"content":[]', `"content":[${deep}]`);
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

test("a completed answer's parts reach the host whole, in every snapshot", () =>
  withClient(async (client) => {
    const id = await start(client, "completed-parts");
    const done = await client.wait(id);
    assert.equal(done.status, "completed");
    assert.equal(done.lastError, null);
    assert.deepEqual(done.result.content, [{ type: "text", text: "done" }, [1, 2]]);
    assert.deepEqual(done.result.structuredContent, { n: 1 });
    assert.equal(done.result.isError, false);
    assert.deepEqual(done.result._meta, { k: "v" });
    const again = client.tasks().find((t) => t.taskId === id);
    assert.notEqual(again, done, "a new snapshot");
    assert.deepEqual(again.result, done.result, "the same parts in the next snapshot");
    // A snapshot is the host's own: changing one does not change the task or later snapshots.
    done.result.content[0].text = "changed by the host";
    done.result.structuredContent.n = 2;
    const later = client.tasks().find((t) => t.taskId === id);
    assert.equal(later.result.content[0].text, "done");
    assert.deepEqual(later.result.structuredContent, { n: 1 });
  }));

test("an input_required answer's form and page reach the host whole, in every snapshot", () =>
  withClient(async (client) => {
    const id = await start(client, "form-parts");
    const asked = await nextTask(client, (s) => s.taskId === id && s.status === "input_required", 10_000);
    assert.equal(asked.lastError, null);
    const { q, u } = asked.inputRequests;
    assert.equal(q.method, "elicitation/create");
    assert.equal(q.params.message, "Name?");
    assert.deepEqual(q.params.requestedSchema, schemaTitled("Name"));
    assert.deepEqual(u.params, { mode: "url", message: "Pay", url: "https://pay.example/x" });
    const again = client.tasks().find((t) => t.taskId === id);
    assert.deepEqual(again.inputRequests, asked.inputRequests, "the same requests in the next snapshot");
  }));

test("a result's numbers reach the host as JSON.parse reads them and are stored as the server wrote them", async () => {
  const store = mapStore();
  const client = await TaskClient.open({ url, store, minPollIntervalMs: 20 });
  try {
    const id = await start(client, "numbers");
    const done = await client.wait(id);
    assert.equal(done.lastError, null);
    assert.equal(done.result.structuredContent.big, 9007199254740992, "the host gets what JSON.parse reads");
    const deadline = Date.now() + 5_000;
    let stored = "";
    while (Date.now() < deadline) {
      stored = [...store.map.values()].find((v) => v.includes(id) && v.includes("structuredContent")) ?? "";
      if (stored.includes("completed")) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(stored.includes('{"big":9007199254740993,"huge":1E308,"zero":-0}'), `the stored record keeps the server's digits: ${stored}`);
  } finally {
    client.close();
  }
});

test("a result of 10,000 blocks is stored whole without freezing the page", async () => {
  const store = mapStore();
  const client = await TaskClient.open({ url, store, minPollIntervalMs: 20 });
  try {
    const began = Date.now();
    const id = await start(client, "many-blocks");
    const done = await client.wait(id);
    assert.equal(done.result.content.length, 10_000);
    let stored = "";
    while (Date.now() < began + 10_000 && !stored.includes("block 9999")) {
      stored = [...store.map.values()].find((v) => v.includes(id) && v.includes("completed")) ?? "";
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(stored.includes('{"type":"text","text":"block 0"}') && stored.includes('{"type":"text","text":"block 9999"}'), "stored whole");
    // A freeze guard, not a speed figure: read once per block (10,000 parses of 400 KB), this took
    // 13.6 s of blocked main thread on the development machine; read once, 0.1 s.
    assert.ok(Date.now() - began < 5_000, `stored after ${Date.now() - began} ms: the page was frozen`);
  } finally {
    client.close();
  }
});

test("valid details of an irregular shape are read whole", () =>
  withClient(async (client) => {
    const irregular = await start(client, "completed-irregular");
    const done = await client.wait(irregular);
    assert.equal(done.lastError, null);
    assert.deepEqual(done.result.content, [7, { type: "text", text: "seven" }]);
    const again = client.tasks().find((t) => t.taskId === irregular);
    assert.deepEqual(again.result, done.result, "the same parts in the next snapshot");
    const id = await start(client, "input-other-method");
    const asked = await nextTask(client, (s) => s.taskId === id && s.status === "input_required", 10_000);
    assert.equal(asked.lastError, null);
    assert.deepEqual(Object.keys(asked.inputRequests).sort(), ["q", "r"]);
    assert.equal(asked.inputRequests.r.method, "roots/list");
    assert.equal(asked.inputRequests.q.params.requestedSchema.properties.name.title, "Name");
    const deep = await client.wait(await start(client, "completed-deep"));
    assert.equal(deep.lastError, null);
    assert.equal(JSON.stringify(deep.result.content), `[${"[".repeat(100)}${"]".repeat(100)}]`);
  }));

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
