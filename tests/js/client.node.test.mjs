// TaskClient in Node 20 against the reference server over loopback: every status path, input answers,
// cancel, failure, expiry, MRTR, resume from a store, outcome unknown, auth headers per request, faults.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer, mapStore, nextTask, admin } from "./support.mjs";

const server = await startServer(["--faults", "--poll-interval-ms", "100"]);
after(() => server.stop());

const open = (extra = {}) => TaskClient.open({ url: server.url, store: mapStore(), minPollIntervalMs: 50, namespace: "node-tests", ...extra });

test("echo returns a plain result", async () => {
  const client = await open();
  const out = await client.callTool("echo", { text: "héllo" });
  assert.equal(out.kind, "result");
  assert.equal(out.result.content[0].text, "héllo");
  assert.equal(client.durable, true);
  client.close();
});

test("build runs as a task, reports progress and completes", async () => {
  const client = await open();
  const seen = [];
  client.addEventListener("task", (e) => seen.push(e.detail.statusMessage));
  const out = await client.callTool("build", { seconds: 1.2, target: "node" });
  assert.equal(out.kind, "task");
  assert.equal(out.task.status, "working");
  const done = await client.wait(out.task.taskId);
  assert.equal(done.status, "completed");
  assert.equal(done.result.structuredContent.target, "node");
  // Events go out on the next macrotask (they are queued, in order), so the completed one may follow wait().
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.ok(new Set(seen).size >= 2, `progress messages: ${seen}`);
  assert.equal(client.tasks().length, 1);
  client.close();
});

test("deploy asks, the answer is sent once, and the task completes", async () => {
  const client = await open();
  const { task } = await client.callTool("deploy", { service: "api", environment: "staging" });
  const asking = await nextTask(client, (s) => s.taskId === task.taskId && s.status === "input_required");
  const schema = asking.inputRequests["approval-1"].params.requestedSchema;
  assert.equal(schema.properties.replicas.type, "integer");
  await client.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "canary", replicas: 4 } } });
  await assert.rejects(client.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: false } } }), (e) => e.name === "TaskStateError");
  const done = await client.wait(task.taskId);
  assert.equal(done.status, "completed");
  assert.equal(done.result.structuredContent.replicas, 4);
  assert.deepEqual(done.inputRequests, {});
  client.close();
});

test("failures: a failed task carries its error; a tool error completes", async () => {
  const client = await open();
  const flaky = await client.callTool("flaky", { seconds: 0.2 });
  const failed = await client.wait(flaky.task.taskId);
  assert.equal(failed.status, "failed");
  assert.equal(failed.error.code, -32603);
  const toolError = await client.callTool("tool_error", {});
  const done = await client.wait(toolError.task.taskId);
  assert.equal(done.status, "completed");
  assert.equal(done.result.isError, true);
  client.close();
});

test("cancel stops long_job; stubborn_job completes anyway", async () => {
  const client = await open();
  const long = await client.callTool("long_job", {});
  await client.cancel(long.task.taskId);
  const cancelled = await client.wait(long.task.taskId);
  assert.equal(cancelled.status, "cancelled");
  assert.equal(cancelled.cancelRequested, true);
  const stubborn = await client.callTool("stubborn_job", { seconds: 1 });
  await client.cancel(stubborn.task.taskId);
  assert.equal((await client.wait(stubborn.task.taskId)).status, "completed");
  client.close();
});

test("MRTR before a task: answered through onInputRequired", async () => {
  const client = await open();
  await assert.rejects(client.callTool("ask_first", {}), (e) => e.name === "InputRequiredError");
  let asked;
  const out = await client.callTool("ask_first", {}, {
    onInputRequired: (requests) => {
      asked = requests;
      return { "name-1": { action: "accept", content: { name: "Ferris" } } };
    },
  });
  assert.ok(asked["name-1"], "the round's requests reached the host");
  const done = await client.wait(out.task.taskId);
  assert.match(done.result.content[0].text, /Ferris/);
  client.close();
});

test("MRTR before a task: onInputRequired may resolve later, and its throw or rejection fails the call with its text", async () => {
  const client = await open();
  const out = await client.callTool("ask_first", {}, {
    onInputRequired: async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { "name-1": { action: "accept", content: { name: "Ada" } } };
    },
  });
  assert.match((await client.wait(out.task.taskId)).result.content[0].text, /Ada/);
  const threw = () => {
    throw new RangeError("no answer here");
  };
  await assert.rejects(client.callTool("ask_first", {}, { onInputRequired: threw }), (e) => {
    assert.equal(e.name, "TypeError");
    assert.equal(e.message, "onInputRequired threw: RangeError: no answer here");
    return true;
  });
  await assert.rejects(client.callTool("ask_first", {}, { onInputRequired: () => Promise.reject("declined") }), (e) => {
    assert.equal(e.name, "TypeError");
    assert.equal(e.message, "onInputRequired rejected: declined");
    return true;
  });
  client.close();
});

test("a task unknown to the server ends as expired", async () => {
  const client = await open();
  const { task } = await client.callTool("long_job", {});
  await admin(server, `/admin/expire?task=${task.taskId}`);
  const done = await client.wait(task.taskId);
  assert.equal(done.status, "expired");
  assert.equal(done.expired.reason, "unknown_to_server");
  client.close();
});

test("a reopened client restores tasks from the store and finishes them", async () => {
  const store = mapStore();
  const first = await open({ store });
  const { task } = await first.callTool("build", { seconds: 1 });
  first.close();
  const keys = [...store.map.keys()];
  assert.ok(keys.some((k) => k.includes(`task/${task.taskId}`)), `stored under a namespaced key: ${keys}`);
  const second = await open({ store });
  const restored = second.tasks().find((t) => t.taskId === task.taskId);
  assert.equal(restored.restored, true);
  assert.equal((await second.wait(task.taskId)).status, "completed");
  await second.forget(task.taskId);
  assert.equal(second.tasks().length, 0);
  assert.ok(![...store.map.keys()].some((k) => k.includes(task.taskId)), "forget removes it from the store");
  second.close();
});

test("a call cut off before its answer is reported as outcome unknown", async () => {
  const store = mapStore();
  await admin(server, "/admin/faults", { latencyMs: 1500 });
  const first = await open({ store });
  const inFlight = first.callTool("build", { seconds: 1 });
  await new Promise((r) => setTimeout(r, 200));
  // The "page" dies here: a new client opens on the same store while the call is unanswered.
  const second = await open({ store });
  const unknown = await new Promise((resolve) => second.addEventListener("call", (e) => resolve(e.detail)));
  assert.equal(unknown.status, "outcome_unknown");
  assert.equal(unknown.toolName, "build");
  assert.ok(second.tasks().some((t) => t.status === "outcome_unknown"));
  await inFlight;
  await admin(server, "/admin/faults", {});
  first.close();
  second.close();
});

test("faults: 5xx, 429 and dropped connections are survived", async () => {
  // Polling mode: answer server/discover as a server without subscriptions would, so the faults hit
  // the polls (a listen stream opened before the faults would carry the task past them).
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    if (new Request(input, init).headers.get("mcp-method") === "server/discover") {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 0, error: { code: -32601, message: "Method not found" } });
      return Promise.resolve(new Response(body, { status: 404, headers: { "content-type": "application/json" } }));
    }
    return realFetch(input, init);
  };
  try {
    const client = await open({ maxBackoffMs: 400 });
    const { task } = await client.callTool("build", { seconds: 1 });
    await admin(server, "/admin/faults", { errorRate: 0.3, errorStatus: 503, rateLimitRate: 0.2, retryAfterS: 0, dropRate: 0.2 });
    const backoff = nextTask(client, (s) => s.taskId === task.taskId && s.connectivity === "backoff", 15_000).catch(() => null);
    const done = await client.wait(task.taskId);
    await admin(server, "/admin/faults", {});
    assert.equal(done.status, "completed");
    assert.ok(await backoff, "a failure was seen and backed off from");
    client.close();
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("auth headers are asked per request and never stored", async () => {
  const authed = await startServer(["--auth", "secret-token-1"]);
  try {
    const store = mapStore();
    let asked = 0;
    const client = await TaskClient.open({
      url: authed.url, store, namespace: "auth", minPollIntervalMs: 50,
      headers: async () => { asked += 1; return { Authorization: "Bearer secret-token-1" }; },
    });
    const { task } = await client.callTool("build", { seconds: 0.5 });
    await client.wait(task.taskId);
    assert.ok(asked >= 2, `headers asked per request (${asked})`);
    for (const value of store.map.values()) assert.ok(!value.includes("secret-token-1"), "no token in the store");
    client.close();
    const anonymous = await TaskClient.open({ url: authed.url, store: "memory" });
    await assert.rejects(anonymous.callTool("echo", { text: "x" }), (e) => e.name === "HttpError" || e.name === "RpcError");
    anonymous.close();
  } finally {
    authed.stop();
  }
});

test("a header value the platform refuses is named, never quoted, in rejections, events and snapshots", async () => {
  const authed = await startServer(["--auth", "secret-token-1"]);
  try {
    let bad = false;
    const client = await TaskClient.open({
      url: authed.url, store: "memory", namespace: "bad-header", minPollIntervalMs: 50,
      headers: () => ({ Authorization: bad ? "Bearer secret-token-1\nX-Injected: 1" : "Bearer secret-token-1" }),
    });
    const seen = [];
    for (const type of ["task", "storage", "error", "call"]) client.addEventListener(type, (e) => seen.push(e.detail));
    const { task } = await client.callTool("build", { seconds: 30 });
    bad = true;
    await assert.rejects(client.callTool("echo", { text: "x" }), (e) => {
      assert.ok(!`${e.message} ${e.stack} ${JSON.stringify(e)}`.includes("secret-token-1"), e.message);
      assert.match(e.message, /Authorization/, "the header is named");
      return true;
    });
    const failed = await nextTask(client, (s) => s.taskId === task.taskId && s.lastError !== null);
    const everything = JSON.stringify([seen, client.tasks(), failed]);
    assert.ok(!everything.includes("secret-token-1"), everything);
    client.close();
  } finally {
    authed.stop();
  }
});

test("usage errors are typed", async () => {
  const client = await open();
  await assert.rejects(client.respond("nope", {}), (e) => e.name === "TypeError");
  await assert.rejects(client.wait("nope"), (e) => e.name === "TypeError");
  await assert.rejects(TaskClient.open({}), (e) => e.name === "TypeError" && /url/.test(e.message));
  await assert.rejects(client.callTool("no_such_tool", {}), (e) => e.name === "RpcError" && e.code === -32602);
  client.close();
});

test("subscriptions/listen: acknowledged tasks are pushed, not polled", async () => {
  const realFetch = globalThis.fetch;
  const methods = [];
  globalThis.fetch = (input, init) => {
    methods.push(new Request(input, init).headers.get("mcp-method") ?? "?");
    return realFetch(input, init);
  };
  try {
    const client = await open({ namespace: "listen" });
    const listening = nextTask(client, (s) => s.connectivity === "listening");
    const { task } = await client.callTool("build", { seconds: 2 });
    const seen = await listening;
    assert.equal(seen.taskId, task.taskId);
    const done = await client.wait(task.taskId);
    assert.equal(done.status, "completed");
    const gets = methods.filter((m) => m === "tasks/get").length;
    assert.ok(methods.includes("subscriptions/listen"), `methods: ${methods}`);
    // At 100 ms polling a 2 s build would take ~20 polls; pushed, at most a catch-up or two.
    assert.ok(gets <= 3, `tasks/get sent ${gets} times: ${methods}`);
    client.close();
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("a client reopening on many due handles starts 16 requests, grows the window as answers come back, and polls them all", async () => {
  const store = mapStore();
  const namespace = "in-flight-cap";
  const setup = await TaskClient.open({ url: server.url, store, autoPoll: false, namespace });
  const ids = [];
  for (let i = 0; i < 40; i++) ids.push((await setup.callTool("long_job", { seconds: 3600 })).task.taskId);
  setup.close();
  await new Promise((resolve) => setTimeout(resolve, 150)); // every handle due again

  // Every tasks/get is held 40 ms on its way, so requests overlap and the window is what limits them.
  let inFlight = 0;
  let most = 0;
  let answered = 0;
  let beforeAnyAnswer = 0;
  const polled = new Set();
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === "POST" ? await request.clone().json().catch(() => null) : null;
    // As a server without them: a listen stream would push these tasks instead of their being polled.
    if (body?.method === "subscriptions/listen" || body?.method === "server/discover") {
      const error = { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } };
      return new Response(JSON.stringify(error), { headers: { "content-type": "application/json" } });
    }
    if (body?.method !== "tasks/get") return realFetch(request);
    inFlight += 1;
    most = Math.max(most, inFlight);
    if (answered === 0) beforeAnyAnswer = Math.max(beforeAnyAnswer, inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 40));
      const response = await realFetch(request);
      polled.add(body.params.taskId);
      return response;
    } finally {
      inFlight -= 1;
      answered += 1;
    }
  };
  try {
    const client = await TaskClient.open({ url: server.url, store, minPollIntervalMs: 50, namespace });
    const deadline = Date.now() + 10_000;
    while (!ids.every((id) => polled.has(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    client.close();
    assert.deepEqual(ids.filter((id) => !polled.has(id)), [], "every restored handle was polled");
    assert.ok(beforeAnyAnswer <= 16 && beforeAnyAnswer >= 8, `16 at most before any answer, and they overlap (saw ${beforeAnyAnswer})`);
    assert.ok(most > 16, `the window grew as answers came back (saw ${most} at once)`);
    assert.ok(most <= 64, `never more than the cap of 64 (saw ${most})`);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("clear forgets every task here and in the store (records it never loaded too); forget's failed delete rejects with StorageError", async () => {
  const store = mapStore();
  let readOnly = false;
  const remove = store.delete;
  store.delete = async (key) => {
    if (readOnly) throw new Error("the store is read-only now");
    return remove(key);
  };
  const client = await open({ store, namespace: "clear" });
  const forgotten = [];
  client.addEventListener("forget", (event) => forgotten.push(event.detail.id));
  const { task } = await client.callTool("long_job", { seconds: 3600 });
  const prefix = [...store.map.keys()].find((key) => key.endsWith(`/task/${task.taskId}`)).slice(0, -`task/${task.taskId}`.length);
  store.map.set(`${prefix}task/written-by-another-build`, "{}");
  await client.clear();
  assert.deepEqual(client.tasks(), []);
  assert.deepEqual([...store.map.keys()].filter((key) => key.startsWith(prefix)), [], "nothing left under the prefix");
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(forgotten.includes(task.taskId), `a forget event for the task: ${forgotten}`);

  const second = await client.callTool("long_job", { seconds: 3600 });
  readOnly = true;
  await assert.rejects(client.forget(second.task.taskId), (e) => e.name === "StorageError" && /read-only/.test(e.message));
  assert.deepEqual(client.tasks(), [], "forgotten here all the same");
  client.close();
});
