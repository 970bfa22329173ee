// The Node cells of the interop matrix: TaskClient (pkg/node.mjs) against each peer in servers.mjs —
// result, approval answered once, failure, cancel, step mode. Every POST the client sends is seen by a
// wrapper around globalThis.fetch (method, taskId, HTTP status, both bodies), so requests are counted
// client-side for servers we do not control; the reference server's own request log is checked too.
//
//   node --test tests/interop/matrix/node.test.mjs   (MATRIX_SERVERS=fastmcp4 to pick peers, MATRIX_TRACE=1 for every exchange)
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { pkgDir } from "./servers.mjs";
import { cells, fillForm, nextTask, sleep, within } from "./support.mjs";

/** `load(dir)` once per package directory of `server` (pkg/, or the build its entry names). */
function oncePerPackage(load) {
  const loaded = new Map();
  return (server) => {
    const dir = pkgDir(server);
    if (!loaded.has(dir)) loaded.set(dir, load(dir));
    return loaded.get(dir);
  };
}

/** The client package of `server`: its default entry's `TaskClient` and its `mapStore`. */
const clientFor = oncePerPackage(async (dir) => {
  const pkg = await import(pathToFileURL(join(dir, "node.mjs")).href);
  await pkg.default();
  const { mapStore } = await import(pathToFileURL(join(dir, "stores.js")).href);
  return { TaskClient: pkg.TaskClient, mapStore };
});

/** `TaskClient` of `server`'s package's `mcp-tasks-web/extension` entry (the default one, under its old name). */
const extensionClientFor = oncePerPackage(async (dir) => {
  // The Node entry initialises the module the entry shares (a second init() does nothing).
  await (await import(pathToFileURL(join(dir, "node.mjs")).href)).default();
  const pkg = await import(pathToFileURL(join(dir, "extension.js")).href);
  return pkg.TaskClient;
});

/** Every POST this process sends: { at, url, method, taskId, status, request, response }. */
const wire = [];
/** Every GET (a 2025-11-25 session stream): { at, url, status, statuses (notifications/tasks/status read on it), endedAt }. */
const gets = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  if (request.method === "GET") return watchGet(request);
  if (request.method !== "POST") return realFetch(request);
  const text = await request.clone().text().catch(() => "");
  let rpc = {};
  try { rpc = JSON.parse(text); } catch { /* not JSON */ }
  const entry = { at: Date.now(), url: request.url, method: rpc.method, taskId: rpc.params?.taskId, status: null, request: text, response: null };
  wire.push(entry);
  try {
    const response = await realFetch(request);
    entry.status = response.status;
    if (!(response.headers.get("content-type") ?? "").includes("event-stream")) {
      response.clone().text().then((t) => { entry.response = t.slice(0, 2000); }, () => {});
      return response;
    }
    entry.response = "(event stream)";
    Object.assign(entry, { statuses: [], endedAt: null });
    return watchStream(entry, response);
  } catch (error) {
    entry.status = `threw ${error?.name}: ${error?.message}`;
    throw error;
  }
};
/** Fetches a GET, recording it in `gets` with what `watchStream` sees of its event stream. */
async function watchGet(request) {
  const entry = { at: Date.now(), url: request.url, status: null, statuses: [], endedAt: null };
  gets.push(entry);
  const response = await realFetch(request);
  entry.status = response.status;
  return watchStream(entry, response);
}

/** Reads a copy of `response`'s event stream: the statuses of the `notifications/tasks/status` on it go to `entry.statuses`, and `entry.endedAt` is set when it ends (or the client aborts it). */
function watchStream(entry, response) {
  if (!response.body) {
    entry.endedAt = Date.now();
    return response;
  }
  const [mine, copy] = response.body.tee();
  (async () => {
    const reader = copy.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
        for (const m of text.matchAll(/"method":"notifications\/tasks\/status".*?"status":"(\w+)"/g)) entry.statuses.push(m[1]);
        text = text.slice(text.lastIndexOf("\n") + 1);
      }
    } catch { /* aborted by the client: the stream ended */ }
    entry.endedAt = Date.now();
  })();
  return new Response(mine, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const sent = (peer, method, taskId) => wire.filter((r) => r.url === peer.url && r.method === method && (taskId === undefined || r.taskId === taskId));
/** The exchanges with `peer`, for a failure message. */
const transcript = (peer) => wire.filter((r) => r.url === peer.url).map((r) => `+${r.at - wire[0].at} ${r.method} ${r.taskId ?? ""} → ${r.status}\n  > ${r.request}\n  < ${r.response}`).join("\n");

/** Runs `body`, appending the wire transcript with `peer` to any failure. */
async function traced(peer, body) {
  try {
    const value = await body();
    if (process.env.MATRIX_TRACE) console.error(`--- exchanges with ${peer.url} ---\n${transcript(peer)}`);
    return value;
  } catch (error) {
    error.message += `\n--- exchanges with ${peer.url} ---\n${transcript(peer)}`;
    throw error;
  }
}

const open = async (server, peer, extra = {}) => {
  const { TaskClient } = await clientFor(server);
  return TaskClient.open({ url: peer.url, store: "memory", minPollIntervalMs: 100, namespace: "matrix", ...extra });
};

/** Whether `server` speaks the 2025-11-25 generation (answers are JSON-RPC responses, not tasks/update). */
const legacy = (server) => server.protocol === "2025-11-25";

/** The POSTs that answered input request `key`: `tasks/update`s naming it, or (2025-11-25) the JSON-RPC responses to its request id. */
function answersTo(server, peer, id, key) {
  if (!legacy(server)) return sent(peer, "tasks/update", id).filter((u) => key in (JSON.parse(u.request).params?.inputResponses ?? {}));
  const requestId = /^jsonrpc-id:n:(-?\d+)$/.exec(key)?.[1];
  return wire.filter((r) => {
    if (r.url !== peer.url) return false;
    try {
      const body = JSON.parse(r.request);
      return body.method === undefined && "result" in body && String(body.id) === requestId;
    } catch {
      return false;
    }
  });
}

// A host lists tools before it calls one. On every server that is the client's first request (on a
// 2025-11-25 server it goes through the same generation detection and session as a call), and a
// listing after a call goes in the session the call opened.
cells("tools listed first", (server, peer) => traced(peer, async () => {
  const client = await open(server, peer);
  try {
    const expected = server.tools ?? ["build", "deploy", "flaky", "long_job"];
    const names = (page) => page.tools.map((tool) => tool.name).sort();
    const first = await within(client.listTools(), 20_000, "listTools() first");
    for (const name of expected) assert.ok(names(first).includes(name), `${name} is listed: ${names(first)}`);
    const tool = expected[0];
    const out = await within(client.callTool(tool, tool === "build" ? { seconds: 1, target: "matrix" } : {}), 20_000, `callTool(${tool})`);
    if (out.kind === "task") await within(client.wait(out.task.taskId), 20_000, `wait(${tool})`);
    else assert.ok(Array.isArray(out.result?.content), `an inline result: ${JSON.stringify(out)}`);
    const again = await within(client.listTools(), 20_000, "listTools() after a call");
    assert.deepEqual(names(again), names(first), "the same tools after the call");
    if (legacy(server)) {
      assert.equal(sent(peer, "initialize").length, 1, "one session for the listings and the call");
      const inSession = sent(peer, "tools/list").filter((r) => r.status === 200);
      assert.ok(inSession.length >= 2, `both listings answered: ${inSession.length}`);
    }
  } finally {
    client.close();
  }
}));

// A tool that declares an MCP App (`_meta.ui.resourceUri`): the host reads its `ui://` document
// with readResource, on a 2025-11-25 server in the session the listing opened.
cells("app resource read", (server, peer) => traced(peer, async () => {
  const client = await open(server, peer);
  try {
    const page = await within(client.listTools(), 20_000, "listTools()");
    const withApp = page.tools.find((tool) => typeof tool._meta?.ui?.resourceUri === "string");
    assert.ok(withApp, `a tool declares an app: ${JSON.stringify(page.tools.map((t) => [t.name, t._meta]))}`);
    const uri = /** @type {string} */ (withApp._meta.ui.resourceUri);
    const read = await within(client.readResource(uri), 20_000, `readResource(${uri})`);
    assert.equal(read.contents.length, 1, JSON.stringify(read).slice(0, 300));
    assert.equal(read.contents[0].uri, uri);
    assert.equal(read.contents[0].mimeType, "text/html;profile=mcp-app");
    assert.match(read.contents[0].text ?? "", /<html/i, "the app's document is HTML text");
    const reads = sent(peer, "resources/read").filter((r) => r.status === 200);
    assert.equal(reads.length, 1, `one resources/read answered: ${reads.length}`);
    if (legacy(server)) assert.equal(sent(peer, "initialize").length, 1, "the read goes in the listing's session");
    // The official Apps example's tool runs without tasks: the synchronous result a host hands its app.
    if (server.name === "apps-basic") {
      const out = await within(client.callTool(withApp.name, {}, { ui: withApp._meta.ui }), 20_000, `callTool(${withApp.name})`);
      assert.equal(out.kind, "result", `a synchronous result: ${JSON.stringify(out).slice(0, 300)}`);
      assert.ok(Array.isArray(out.result.content) && out.result.content.length >= 1, "the result has content blocks");
    }
  } finally {
    client.close();
  }
}));

cells("result", (server, peer) => traced(peer, async () => {
  const client = await open(server, peer);
  try {
    const out = await client.callTool("build", { seconds: 2, target: "matrix" });
    assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
    assert.equal(typeof out.task.taskId, "string");
    const done = await within(client.wait(out.task.taskId), 20_000, "wait(build)");
    assert.equal(done.status, "completed", `completed: ${JSON.stringify(done)}`);
    assert.equal(done.protocol, server.protocol, "the snapshot names the task's protocol");
    assert.equal(done.result?.structuredContent?.ok, true, `structuredContent.ok: ${JSON.stringify(done.result)}`);
    assert.equal(done.result.structuredContent.target, "matrix");
    assert.ok(Array.isArray(done.result.content) && done.result.content.length >= 1, "the result has content blocks");
    // A 2025-11-25 server refuses the first (2026-07-28) call before running anything; it counts once.
    assert.equal(sent(peer, "tools/call").filter((r) => r.status === 200).length, 1, "build was called once");
    if (peer.lines) assert.equal(peer.lines("tools/call", "build").length, 1, "the server saw one tools/call");
  } finally {
    client.close();
  }
}));

cells("approval answered once", (server, peer) => traced(peer, async () => {
  const client = await open(server, peer);
  try {
    const snapshots = [];
    client.addEventListener("task", (e) => snapshots.push({ at: Date.now(), ...e.detail }));
    const out = await client.callTool("deploy", { service: "api", environment: "staging" });
    assert.equal(out.kind, "task", `deploy returns a task handle: ${JSON.stringify(out)}`);
    const id = out.task.taskId;
    const asking = await nextTask(client, (s) => s.taskId === id && s.status === "input_required");
    const keys = Object.keys(asking.inputRequests);
    assert.equal(keys.length, 1, `one input request: ${JSON.stringify(asking.inputRequests)}`);
    const [key] = keys;
    const request = asking.inputRequests[key];
    assert.equal(request.method, "elicitation/create");
    const content = fillForm(request.params?.requestedSchema);
    assert.equal(content.confirm, true, `the form asks confirm: ${JSON.stringify(request.params)}`);
    assert.equal(content.reason, "interop");
    const answeredAt = Date.now();
    await client.respond(id, { [key]: { action: "accept", content } });
    await assert.rejects(client.respond(id, { [key]: { action: "accept", content } }), (e) => e.name === "TaskStateError", "a second answer to the same key is refused");
    const done = await within(client.wait(id), 20_000, "wait(deploy)");
    assert.equal(done.status, "completed", `completed: ${JSON.stringify(done)}`);
    assert.equal(done.result?.structuredContent?.reason, "interop", `the answer reached the tool: ${JSON.stringify(done.result)}`);
    assert.deepEqual(done.inputRequests, {});
    await sleep(300); // let a stray second update show if there were one
    const updates = answersTo(server, peer, id, key);
    assert.equal(updates.length, 1, `exactly one answer for the key: ${updates.map((u) => u.request).join(" | ")}`);
    if (!legacy(server)) {
      const body = JSON.parse(updates[0].request);
      assert.deepEqual(Object.keys(body.params.inputResponses ?? {}), [key], `the update answers ${key}: ${updates[0].request}`);
    }
    if (peer.lines) assert.equal(peer.lines("tasks/update", id).length, 1, "the server saw one tasks/update");
    const askedAgain = snapshots.filter((s) => s.taskId === id && s.at > answeredAt && key in (s.inputRequests ?? {}));
    assert.deepEqual(askedAgain.map((s) => s.status), [], `${key} is not asked again after the answer`);
  } finally {
    client.close();
  }
}));

cells("failure", (server, peer) => traced(peer, async () => {
  const client = await open(server, peer);
  try {
    const out = await client.callTool("flaky", { seconds: 1 });
    assert.equal(out.kind, "task", `flaky returns a task handle: ${JSON.stringify(out)}`);
    const done = await within(client.wait(out.task.taskId), 20_000, "wait(flaky)");
    if (legacy(server)) {
      // 2025-11-25: the server ends the task `failed` with the tool's isError result (the SDK's
      // storeTaskResult(id, "failed", result)), read with tasks/result: failed as the server says,
      // with that result whole and the server's final status message.
      assert.equal(done.status, "failed", `failed as the server says: ${JSON.stringify(done)}`);
      assert.equal(done.result?.isError, true, `the tool's error result: ${JSON.stringify(done.result)}`);
      assert.ok(done.result.content.some((c) => c.type === "text" && c.text.length > 0), "error text a host can show");
      assert.equal(done.error, null, "no JSON-RPC error: the tool reported the failure");
      assert.ok(typeof done.statusMessage === "string" && done.statusMessage.length > 0, "the final status message");
      const settled = await client.wait(out.task.taskId);
      assert.equal(settled.status, "failed", "wait() after the end says the same");
      return;
    }
    assert.equal(done.status, "failed", `failed: ${JSON.stringify(done)}`);
    assert.ok(Number.isInteger(done.error?.code), `an integer error code: ${JSON.stringify(done.error)}`);
    assert.ok(typeof done.error.message === "string" && done.error.message.length > 0, "an error message a host can show");
    assert.equal(done.result, null, "no result on a failed task");
  } finally {
    client.close();
  }
}));

cells("cancel", (server, peer) => traced(peer, async () => {
  const client = await open(server, peer);
  try {
    const out = await client.callTool("long_job", { seconds: 60 });
    assert.equal(out.kind, "task");
    const id = out.task.taskId;
    await sleep(700); // let the job run a little
    assert.equal(client.tasks().find((t) => t.taskId === id)?.status, "working");
    await client.cancel(id);
    const done = await within(client.wait(id), 15_000, "wait(long_job) after cancel");
    assert.equal(done.status, "cancelled", `cancelled: ${JSON.stringify(done)}`);
    assert.equal(done.cancelRequested, true);
    await sleep(300);
    assert.equal(sent(peer, "tasks/cancel", id).length, 1, "one tasks/cancel");
    if (peer.lines) assert.equal(peer.lines("tasks/cancel", id).length, 1, "the server saw one tasks/cancel");
  } finally {
    client.close();
  }
}));

cells("step mode", (server, peer) => traced(peer, async () => {
  const { mapStore } = await clientFor(server);
  const store = mapStore();
  const stepOpen = () => open(server, peer, { store, autoPoll: false, minPollIntervalMs: 50, namespace: "matrix-steps" });
  const first = await stepOpen();
  const out = await first.callTool("build", { seconds: 2, target: "steps" });
  assert.equal(out.kind, "task");
  const id = out.task.taskId;
  const before = wire.length;
  await sleep(300);
  assert.equal(wire.length, before, "no request between steps: the client runs no timers");
  let snapshot = null;
  const results = [];
  for (let i = 0; i < 100 && !(snapshot && snapshot.status === "completed"); i++) {
    const client = await stepOpen(); // a fresh client (a new isolate) per step, over the same store
    const result = await client.step();
    results.push(result);
    snapshot = client.tasks().find((t) => t.taskId === id) ?? null;
    if (snapshot?.status === "completed") break;
    assert.ok(snapshot && ["working", "input_required"].includes(snapshot.status), `live between steps: ${JSON.stringify(snapshot)}`);
    assert.ok(result.nextWakeAt !== null, `a live task has a next wake-up: ${JSON.stringify(result)}`);
    await sleep(Math.max(0, Math.min(2000, result.nextWakeAt - Date.now())));
  }
  assert.equal(snapshot?.status, "completed", `completed on steps: ${JSON.stringify(snapshot)}`);
  assert.equal(snapshot.result?.structuredContent?.ok, true);
  assert.equal(snapshot.result.structuredContent.target, "steps");
  assert.ok(results.some((r) => r.polled > 0), "steps polled");
  assert.deepEqual([results.at(-1).live, results.at(-1).nextWakeAt], [0, null], "nothing live after completion: no wake-up");
  assert.equal(sent(peer, "subscriptions/listen").length, 0, "step mode never listens");

  // An approval on steps: the question is read by a step (for a 2025-11-25 server, from a
  // tasks/result stream the step closes again), stored, answered by the host between steps, sent by
  // the next step, and the task completes.
  const asking = await (await stepOpen()).callTool("deploy", { service: "api", environment: "staging" });
  const deployId = asking.task.taskId;
  let seen = null;
  let answered = false;
  for (let i = 0; i < 100; i++) {
    const client = await stepOpen();
    const result = await client.step();
    seen = client.tasks().find((t) => t.taskId === deployId) ?? null;
    if (seen?.status === "completed") break;
    const keys = Object.keys(seen?.inputRequests ?? {});
    if (seen?.status === "input_required" && keys.length > 0 && !answered) {
      assert.equal(keys.length, 1, `one question: ${JSON.stringify(seen.inputRequests)}`);
      const content = fillForm(seen.inputRequests[keys[0]].params?.requestedSchema);
      await client.respond(deployId, { [keys[0]]: { action: "accept", content } });
      answered = true;
      continue;
    }
    await sleep(Math.max(0, Math.min(1000, (result.nextWakeAt ?? Date.now()) - Date.now())));
  }
  assert.ok(answered, `the question reached a step: ${JSON.stringify(seen)}`);
  assert.equal(seen?.status, "completed", `the approved deploy completed on steps: ${JSON.stringify(seen)}`);
  assert.equal(seen.result?.structuredContent?.reason, "interop", `the answer reached the tool: ${JSON.stringify(seen.result)}`);
}), { timeout: 60_000 });

// What listening costs: a server whose listen honours nothing (TS SDK 2.4) must not be asked again
// for the same task, and the task is polled as a client without listen would poll it.
const LISTEN_SECONDS = Number(process.env.MATRIX_LISTEN_SECONDS ?? 12);
cells("listen cost", (server, peer) => traced(peer, async () => {
  const seconds = LISTEN_SECONDS;
  const client = await open(server, peer);
  try {
    const out = await client.callTool("build", { seconds, target: "listen" });
    assert.equal(out.kind, "task");
    const id = out.task.taskId;
    const done = await within(client.wait(id), (seconds + 20) * 1000, "wait(build)");
    assert.equal(done.status, "completed");
    const listens = sent(peer, "subscriptions/listen");
    const gets = sent(peer, "tasks/get", id);
    const interval = Math.max(done.pollIntervalMs ?? 1000, 100);
    const pollsWithoutListen = Math.ceil((seconds * 1000) / interval) + 2;
    console.error(`  ${server.name} listen cost: ${seconds} s task, ${listens.length} subscriptions/listen, ${gets.length} tasks/get (a client without listen: about ${pollsWithoutListen})`);
    assert.ok(listens.length <= 3, `at most 3 subscriptions/listen for one task: ${listens.length}`);
    assert.ok(gets.length <= pollsWithoutListen + 2, `no more polls than a client without listen: ${gets.length} > ${pollsWithoutListen + 2}`);
  } finally {
    client.close();
  }
}), { timeout: (LISTEN_SECONDS + 40) * 1000 });

// A 2025-11-25 server sends `notifications/tasks/status` only on the session's GET stream (TS SDK v1):
// with polls ten seconds apart, the end of a 3 s build is known from that stream within a few
// seconds, one stream serves the task, and it is closed once no task is live. A 2026-07-28 server
// is never sent a GET.
cells("status stream", (server, peer) => traced(peer, async () => {
  const slowPolls = legacy(server) ? { minPollIntervalMs: 10_000 } : {};
  const client = await open(server, peer, slowPolls);
  const progress = [];
  client.addEventListener("task", (e) => progress.push(e.detail.progress));
  try {
    const out = await client.callTool("build", { seconds: 3, target: "stream" });
    assert.equal(out.kind, "task");
    const started = Date.now();
    const done = await within(client.wait(out.task.taskId), 20_000, "wait(build)");
    assert.equal(done.status, "completed", `completed: ${JSON.stringify(done)}`);
    assert.equal(done.result?.structuredContent?.target, "stream", "the outcome came with the end");
    const streams = gets.filter((g) => g.url === peer.url);
    if (!legacy(server)) {
      assert.equal(streams.length, 0, "no GET to a 2026-07-28 server");
      return;
    }
    const took = Date.now() - started;
    const polls = sent(peer, "tasks/get", out.task.taskId).length;
    console.error(`  ${server.name} status stream: ${streams.length} GET, ${streams.flatMap((g) => g.statuses).join(",")} pushed; ended known after ${took} ms with ${polls} tasks/get`);
    assert.ok(streams.length >= 1 && streams.length <= 2, `one session stream (two if the first raced the session): ${streams.length}`);
    assert.ok(streams.some((g) => g.statuses.includes("completed")), `the end came on the stream: ${JSON.stringify(streams)}`);
    assert.ok(took < 8_000, `the end was known from the stream, not the next poll 10 s later: ${took} ms`);
    assert.ok(polls <= 1, `polls ten seconds apart: ${polls} tasks/get`);
    // The build reports progress i of 3 for the call's progressToken on that stream.
    const fractions = progress.filter(Boolean).map((p) => `${p.progress}/${p.total}`);
    assert.ok(fractions.includes("2/3") || fractions.includes("3/3"), `progress reached the snapshots: ${JSON.stringify(progress)}`);
    assert.equal(done.progress, null, "an ended task shows no progress");
    if (server.name === "ts-sdk-v1") {
      const call = sent(peer, "tools/call").find((r) => r.status === 200);
      assert.equal(typeof JSON.parse(call.request).params._meta?.progressToken, "string", `the task call carries a progress token: ${call.request}`);
    }
    await sleep(500);
    assert.ok(streams.every((g) => g.endedAt !== null), "the stream is closed once no task is live");

    // A task forgotten while it waits for input: its tasks/result stream and the session stream close.
    const asked = await client.callTool("deploy", { service: "api", environment: "staging" });
    const id = asked.task.taskId;
    await nextTask(client, (s) => s.taskId === id && s.status === "input_required");
    const results = sent(peer, "tasks/result", id);
    assert.equal(results.filter((r) => r.endedAt === null).length, 1, "one open tasks/result stream while input is required");
    await client.forget(id);
    await sleep(500);
    assert.deepEqual(results.map((r) => r.endedAt !== null), results.map(() => true), "forgetting the task closed its tasks/result stream");
    const open = gets.filter((g) => g.url === peer.url && g.endedAt === null);
    assert.equal(open.length, 0, "no live task: no session stream");

    // A failure the stream reports ends `failed`, as the server says, with the tool's error result.
    const flaky = await client.callTool("flaky", { seconds: 1 });
    const failedAt = Date.now();
    const failed = await within(client.wait(flaky.task.taskId), 9_000, "wait(flaky) from the stream");
    assert.ok(Date.now() - failedAt < 8_000, "known from the stream, not the poll 10 s later");
    assert.equal(failed.status, "failed", `failed from the stream: ${JSON.stringify(failed)}`);
    assert.equal(failed.result?.isError, true, `with the tool's error result: ${JSON.stringify(failed.result)}`);
    assert.ok(gets.some((g) => g.url === peer.url && g.statuses.includes("failed")), "the end came on the stream");
  } finally {
    client.close();
  }
}));

// `mcp-tasks-web/extension`, once the build without the 2025-11-25 generation and now the default entry
// under its old name (its first door is that build, and loads the flow only when a server needs it):
// a task runs to its end on either generation, a 2025-11-25 server's through the hand-over.
cells("extension entry", (server, peer) => traced(peer, async () => {
  const TaskClient = await extensionClientFor(server);
  assert.equal(TaskClient, (await clientFor(server)).TaskClient, "the default entry's class");
  const client = await TaskClient.open({ url: peer.url, store: "memory", minPollIntervalMs: 100, namespace: "matrix-extension" });
  try {
    const out = await client.callTool("build", { seconds: 2, target: "matrix" });
    assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
    const done = await within(client.wait(out.task.taskId), 20_000, "wait(build)");
    assert.equal(done.status, "completed", `completed: ${JSON.stringify(done)}`);
    assert.equal(done.protocol, legacy(server) ? "2025-11-25" : "2026-07-28");
    assert.equal(done.result?.structuredContent?.target, "matrix");
  } finally {
    client.close();
  }
}));

cells("long inline call", (server, peer) => traced(peer, async () => {
  // A tool that answers inline runs past `requestTimeoutMs` while it reports progress on the call's
  // stream (every byte restarts the limit); the same tool reporting less often than the limit times out.
  const client = await open(server, peer, { requestTimeoutMs: 1_000 });
  try {
    const reports = [];
    const started = Date.now();
    const call = client.callTool("inline_progress", { seconds: 3, everyMs: 200 }, { onProgress: (p) => reports.push(p) });
    const out = await within(call, 20_000, "callTool(inline_progress)");
    assert.ok(Date.now() - started >= 3_000, `the call ran its 3 s: ${Date.now() - started} ms`);
    assert.equal(out.kind, "result", JSON.stringify(out));
    assert.deepEqual(out.result.structuredContent, { ok: true, steps: 15, reported: true });
    const token = JSON.parse(sent(peer, "tools/call")[0].request).params._meta.progressToken;
    assert.match(token, /^call-/, "the call sent a progress token");
    assert.ok(reports.length >= 5, `progress reached onProgress: ${JSON.stringify(reports)}`);
    assert.deepEqual(reports.at(-1), { progress: 15, total: 15, message: "step 15 of 15" });
    const numbers = reports.map((r) => r.progress);
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b), "in order");
    const silent = client.callTool("inline_progress", { seconds: 3, everyMs: 1_500 });
    await assert.rejects(silent, (e) => e.name === "TimeoutError", "1.5 s of silence is past the 1 s limit");
  } finally {
    client.close();
  }
}));
