// The edge-worker mode (docs/edge.md) in Deno: `TaskClient.open({autoPoll: false, store: denoKvStore(kv)})`
// and `client.step()`, each command in a fresh Deno process (a fresh isolate, as a Deno Deploy cron tick
// gets), the tasks carried only by a Deno KV (SQLite) file. Run by the system Node (`node --test`); spawns
// the reference server, a recording loopback proxy in front of it, and `node_modules/.bin/deno` (npm
// `deno`) running tests/edge/deno/worker.ts from a copy of only the four deployed pkg files, with
// narrow permissions: --allow-net=127.0.0.1, --allow-read=<that copy>,<kv dir>, --allow-write=<kv dir>,
// --unstable-kv, no config, no lock file, no remote or npm modules, no prompt, DENO_DIR in a temp dir,
// no update check. Nothing leaves loopback.
//
//   1. build {seconds: 3} stepped to completion, one process per step;
//   2. a longer build with step processes SIGKILLed (right after spawn, and with a tasks/get in flight:
//      answered by the server, held by the proxy), then stepped to completion: same task, one tools/call;
//   3. deploy: step to input_required, respond from another process, then two step processes on the
//      same KV file released at the same moment, then single steps: exactly one tasks/update;
//   4. one compareAndPut throwing inside a long-lived isolate (as local Deno KV does with "database is
//      locked" under concurrent processes): the isolate keeps the task and sends the answer once;
//   5. the size of what a Deno deployment ships (raw and gzip -9).
// EDGE_VERBOSE=1 echoes the server log and every Deno stderr line, and keeps the temp dir.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { copyFile, mkdtemp, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer } from "../support/server.mjs";

// MCP_TASKS_PKG_DIR: another build of the package, laid out as pkg/.
const PKG = process.env.MCP_TASKS_PKG_DIR || join(ROOT, "pkg");
const WORKER = join(ROOT, "tests/edge/deno/worker.ts");
const DENO = process.env.DENO_BIN || join(ROOT, "node_modules/.bin/deno");
const VERBOSE = !!process.env.EDGE_VERBOSE;
const POLL_MS = 200;

/** Exactly what a Deno deployment ships: the worker runs from a copy of these and nothing else. */
// The door with the 2025-11-25 flow ships beside the first: the Deno entry reads it when it is needed.
const DEPLOYED = ["client_bg.wasm", "client.js", "client_full.js", "client_full_bg.wasm", "deno.mjs", "stores.js"];

requireFiles([
  SERVER_BUILT,
  ["deno (npm ci)", DENO],
  ["pkg/deno.mjs (cargo xtask build)", join(PKG, "deno.mjs")],
  ["pkg/stores.js (cargo xtask build)", join(PKG, "stores.js")],
]);

let server;
let tmp;
let denoDir;
let deployPkg; // <tmp>/deploy/pkg: the DEPLOYED files copied from pkg/
let deployWorker; // <tmp>/deploy/tests/edge/deno/worker.ts, so its "../../../pkg/…" imports resolve there
const children = new Set(); // every Deno process we spawned and that has not exited

/**
 * A loopback HTTP proxy in front of the server that every Deno process talks to: it records each
 * JSON-RPC request as `{ at, method, taskId, tool, status, aborted }` in `requests` (the client's view,
 * next to the server's log) and, while `hold(entry)` is true for a request, forwards it but keeps the
 * answer from the client, so a test can kill the client with a request provably in flight.
 */
async function startProxy(target) {
  const { hostname, port } = new URL(target);
  const requests = [];
  const heldWaiters = [];
  const proxy = {
    requests,
    hold: null,
    /** Resolves with the next request entry that is being held. */
    nextHeld: () => new Promise((resolve) => heldWaiters.push(resolve)),
  };
  const http = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let rpc = {};
      try { rpc = JSON.parse(body.toString("utf8")); } catch { /* not JSON */ }
      const entry = { at: Date.now(), method: rpc.method, taskId: rpc.params?.taskId, tool: rpc.params?.name, status: null, aborted: false };
      requests.push(entry);
      res.on("close", () => { if (!res.writableFinished) entry.aborted = true; });
      const held = !!proxy.hold?.(entry);
      const headers = { ...req.headers, host: `${hostname}:${port}` };
      delete headers.connection;
      const up = httpRequest({ host: hostname, port, path: req.url, method: req.method, headers }, (answer) => {
        entry.status = answer.statusCode;
        if (held) {
          entry.heldAt = Date.now(); // the server answered; the client never gets it
          answer.resume();
          for (const w of heldWaiters.splice(0)) w(entry);
          return;
        }
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      });
      up.on("error", () => res.destroy());
      up.end(body);
    });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${http.address().port}/mcp`;
  proxy.close = () => { http.closeAllConnections(); return new Promise((resolve) => http.close(resolve)); };
  return proxy;
}

let proxy;

before(async () => {
  server = await startServer({ pollMs: POLL_MS, faults: true, verbose: VERBOSE });
  proxy = await startProxy(server.url);
  tmp = await mkdtemp(join(tmpdir(), "mcp-tasks-edge-deno-"));
  denoDir = join(tmp, "deno-dir");
  await mkdir(denoDir);
  // A snapshot of the deployment: a rebuild of pkg/ during the run cannot mix versions, and the
  // worker proves these four files are all a Deno deployment needs.
  deployPkg = join(tmp, "deploy/pkg");
  deployWorker = join(tmp, "deploy/tests/edge/deno/worker.ts");
  await mkdir(deployPkg, { recursive: true });
  await mkdir(join(tmp, "deploy/tests/edge/deno"), { recursive: true });
  for (const file of DEPLOYED) await copyFile(join(PKG, file), join(deployPkg, file));
  await copyFile(WORKER, deployWorker);
});

after(async () => {
  for (const child of children) child.kill("SIGKILL"); // only Deno processes this file spawned, by pid
  await proxy?.close();
  await server?.stop();
  if (VERBOSE) console.error(`  kept ${tmp}`);
  else if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** A fresh KV directory (its own SQLite file) for one scenario. */
async function kvFor(name) {
  const dir = join(tmp, `kv-${name}`);
  await mkdir(dir);
  return { dir, file: join(dir, "tasks.sqlite3") };
}

/**
 * Spawns `deno run <narrow permissions> worker.ts <kv file> <proxy url> <command> ...args`. Returns
 * `{ child, done, marker(name) }`; `done` resolves with `{ code, signal, stdout, stderr, json, storage }`
 * (`json`: the stdout lines parsed; `storage`: the details of the client's `storage` events).
 */
function spawnDeno(kv, command, args = [], { stdin = "ignore" } = {}) {
  const denoArgs = [
    "run",
    "--no-config", "--no-lock", "--no-remote", "--no-npm", "--no-prompt", "--unstable-kv",
    "--allow-net=127.0.0.1",
    `--allow-read=${deployPkg},${kv.dir}`,
    `--allow-write=${kv.dir}`,
    deployWorker, kv.file, proxy.url, command, ...args,
  ];
  const env = { PATH: process.env.PATH, HOME: tmp, DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  const child = spawn(DENO, denoArgs, { cwd: tmp, env, stdio: [stdin, "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  const markers = new Map();
  const waiters = [];
  child.stdout.on("data", (d) => { stdout += d; });
  createInterface({ input: child.stderr }).on("line", (line) => {
    stderr += `${line}\n`;
    if (VERBOSE) console.error(`  [deno ${child.pid} ${command}] ${line}`);
    const m = /^(ready|stepping) (\d+)$/.exec(line);
    if (m) {
      markers.set(m[1], Number(m[2]));
      for (const w of waiters.filter((w) => w.name === m[1])) w.resolve(Number(m[2]));
    }
  });
  const done = new Promise((resolve) => {
    child.once("close", (code, signal) => {
      children.delete(child);
      for (const w of waiters) w.reject(new Error(`deno ${command} exited (${code ?? signal}) before "${w.name}":\n${stderr}`));
      let json = [];
      try { json = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)); } catch { /* left for the caller */ }
      const storage = stderr.split("\n").filter((l) => l.startsWith("storage-event ")).map((l) => l.slice("storage-event ".length));
      resolve({ code, signal, stdout, stderr, json, storage });
    });
  });
  const marker = (name) => markers.has(name) ? Promise.resolve(markers.get(name)) : new Promise((resolve, reject) => waiters.push({ name, resolve, reject }));
  return { child, done, marker };
}

/** Asserts a finished Deno run exited 0, printed JSON and had no `storage` event. */
function checkRun(r, what) {
  assert.equal(r.code, 0, `deno ${what} exited ${r.code ?? r.signal}:\n${r.stderr}\nstdout: ${r.stdout}`);
  assert.ok(r.json.length >= 1, `deno ${what} printed JSON: ${r.stdout}`);
  assert.deepEqual(r.storage, [], `deno ${what}: the client reported storage failures`);
}

/** Runs one command to the end and checks it (checkRun); resolves with its JSON lines. */
async function deno(kv, command, ...args) {
  const r = await spawnDeno(kv, command, args).done;
  checkRun(r, `${command} ${args.join(" ")}`);
  return r.json;
}

const STEP_KEYS = ["live", "nextWakeAt", "polled", "sent", "settled"];

/** Checks the shape and sense of a step() result. */
function checkStep(s) {
  assert.deepEqual(Object.keys(s).sort(), STEP_KEYS, `step() result keys: ${JSON.stringify(s)}`);
  for (const k of ["live", "settled", "polled", "sent"]) assert.ok(Number.isInteger(s[k]) && s[k] >= 0, `${k} is a count: ${JSON.stringify(s)}`);
  if (s.live === 0) assert.equal(s.nextWakeAt, null, `nothing live → nextWakeAt null: ${JSON.stringify(s)}`);
  else {
    assert.equal(typeof s.nextWakeAt, "number", `live tasks → nextWakeAt is a number: ${JSON.stringify(s)}`);
    assert.ok(Math.abs(s.nextWakeAt - Date.now()) < 120_000, `nextWakeAt is Unix ms near now: ${s.nextWakeAt} vs ${Date.now()}`);
  }
}

/** Wall times of single step processes: spawn → "ready" (Deno start, wasm init, KV open, open()) and spawn → exit. */
const stepTimes = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One step in a fresh process: `{ step, tasks }`. */
async function step(kv) {
  const spawnedAt = Date.now();
  const run = spawnDeno(kv, "step");
  const r = await run.done;
  checkRun(r, "step");
  stepTimes.push({ ready: (await run.marker("ready")) - spawnedAt, exit: Date.now() - spawnedAt });
  const [result, tasks] = r.json;
  checkStep(result);
  assert.ok(Array.isArray(tasks), `tasks() after step: ${JSON.stringify(tasks)}`);
  return { step: result, tasks };
}

/** Sleeps until `nextWakeAt` (at least 20 ms, at most `cap`). */
const sleepUntil = (nextWakeAt, cap = 2000) => sleep(Math.min(cap, Math.max(20, (nextWakeAt ?? Date.now()) - Date.now())));

/**
 * Steps, one process each, until `until(tasks)` holds (the first `pair` rounds: two processes
 * released together); returns every step result, the rounds and the last tasks.
 */
async function stepUntil(kv, until, { deadlineMs = 20_000, pair = 0, label = "" } = {}) {
  const steps = [];
  const rounds = [];
  let tasks = [];
  const deadline = Date.now() + deadlineMs;
  let idle = 0;
  while (Date.now() < deadline) {
    const round = pair && rounds.length < pair ? await stepPair(kv) : [await step(kv)];
    rounds.push(round);
    for (const r of round) steps.push(r.step);
    tasks = round.at(-1).tasks;
    if (until(tasks)) return { steps, tasks, rounds };
    const wake = Math.min(...round.map((r) => r.step.nextWakeAt ?? Infinity));
    // A live task that is due and was not polled, over and over, would spin here: count it.
    if (round.every((r) => r.step.polled === 0 && r.step.sent === 0 && r.step.live > 0 && r.step.nextWakeAt <= Date.now())) idle += 1;
    assert.ok(idle < 5, `${label}: 5 steps in a row polled nothing although a task was due: ${JSON.stringify(steps.slice(-5))}`);
    await sleepUntil(Number.isFinite(wake) ? wake : null);
  }
  assert.fail(`${label}: not done within ${deadlineMs} ms; last tasks: ${JSON.stringify(tasks)}`);
}

/**
 * Two step processes on the same KV file, each opened and waiting, released with one write each.
 * Resolves with both `{ step, tasks, stepping, problems }`: a storage event or a step result that
 * fails checkStep is recorded in `problems` (asserted by the caller after the scenario ran to the
 * end, so one run shows everything); a process that fails outright fails at once.
 */
async function stepPair(kv) {
  const runs = [spawnDeno(kv, "step", ["--barrier"], { stdin: "pipe" }), spawnDeno(kv, "step", ["--barrier"], { stdin: "pipe" })];
  await Promise.all(runs.map((r) => r.marker("ready")));
  for (const r of runs) r.child.stdin.write("go\n");
  const stepping = await Promise.all(runs.map((r) => r.marker("stepping")));
  const results = await Promise.all(runs.map((r) => r.done));
  return results.map((r, i) => {
    assert.equal(r.code, 0, `paired step exited ${r.code ?? r.signal}:\n${r.stderr}\nstdout: ${r.stdout}`);
    const [result, tasks] = r.json;
    const problems = r.storage.map((detail) => `storage event: ${detail}`);
    try { checkStep(result); } catch (e) { problems.push(e.message); }
    return { step: result, tasks, stepping: stepping[i], problems };
  });
}

const taskOf = (tasks, id) => tasks.find((t) => t.taskId === id);
const sum = (steps, k) => steps.reduce((n, s) => n + s[k], 0);
const methods = (lines) => lines.reduce((m, l) => ({ ...m, [l.method]: (m[l.method] ?? 0) + 1 }), {});

test("build {seconds: 3}: started and stepped to completion, each step a fresh Deno process on Deno KV", async (t) => {
  const kv = await kvFor("build");
  const since = Date.now();
  const [started] = await deno(kv, "start", "build", JSON.stringify({ seconds: 3, target: "edge" }));
  assert.equal(started.kind, "task", `build runs as a task: ${JSON.stringify(started)}`);
  assert.equal(started.status, "working");
  const id = started.taskId;

  // The record is in KV before anything else ran: a fresh process lists it.
  const [listed] = await deno(kv, "tasks");
  assert.equal(taskOf(listed, id)?.status, "working", `a fresh process restores the task from KV: ${JSON.stringify(listed)}`);

  const t0 = Date.now();
  const { steps, tasks } = await stepUntil(kv, (tasks) => taskOf(tasks, id)?.status === "completed", { label: "build 3 s" });
  const done = taskOf(tasks, id);
  assert.equal(done.result.structuredContent.target, "edge");
  assert.equal(done.result.structuredContent.seconds, 3);
  assert.equal(tasks.length, 1, `one task in the namespace: ${JSON.stringify(tasks.map((x) => x.taskId))}`);
  assert.ok(steps.length >= 2, `several step processes: ${steps.length}`);
  assert.deepEqual({ live: steps.at(-1).live, settled: steps.at(-1).settled, nextWakeAt: steps.at(-1).nextWakeAt }, { live: 0, settled: 1, nextWakeAt: null });

  // A step with nothing live does nothing.
  const idle = await step(kv);
  assert.deepEqual(idle.step, { nextWakeAt: null, live: 0, settled: 1, polled: 0, sent: 0 });

  const lines = server.lines(null, null, { since });
  assert.equal(server.lines("tools/call", "build", { since }).length, 1, "one tools/call");
  assert.equal(server.lines("tasks/get", id, { since }).length, sum(steps, "polled"), "every tasks/get is counted in `polled`");
  assert.equal(sum(steps, "sent"), 0);
  const [entries] = await deno(kv, "kv");
  t.diagnostic(`${steps.length} step processes in ${Date.now() - t0} ms, polled ${sum(steps, "polled")}; server saw ${JSON.stringify(methods(lines))}`);
  t.diagnostic(`a step process: median ${median(stepTimes.map((x) => x.ready))} ms from spawn to an open client, ${median(stepTimes.map((x) => x.exit))} ms from spawn to exit`);
  t.diagnostic(`KV entries: ${entries.map((e) => `${JSON.stringify(e.key)} (${e.bytes} B)`).join(", ")}`);
  assert.ok(entries.some((e) => JSON.stringify(e.key).includes(id)), "the task's record is a KV entry under [\"mcp-tasks\"]");
});

test("restart: step processes SIGKILLed (at spawn, and with a tasks/get in flight), then stepped on to completion", async (t) => {
  const kv = await kvFor("restart");
  const since = Date.now();
  const [started] = await deno(kv, "start", "build", JSON.stringify({ seconds: 4, target: "restart" }));
  const id = started.taskId;
  const first = await step(kv);
  assert.equal(taskOf(first.tasks, id)?.status, "working");

  // (a) killed right after spawning: the isolate dies wherever it got to.
  const a = spawnDeno(kv, "step");
  a.child.kill("SIGKILL");
  assert.equal((await a.done).signal, "SIGKILL");

  // (b) killed with its tasks/get in flight: the proxy passes the request to the server, which
  // answers it, and keeps the answer from the isolate; then the isolate is killed.
  await sleepUntil(first.step.nextWakeAt + 20); // due again
  proxy.hold = (entry) => entry.method === "tasks/get" && entry.taskId === id;
  let held;
  let rb;
  try {
    const b = spawnDeno(kv, "step");
    held = await Promise.race([
      proxy.nextHeld(),
      b.done.then((r) => assert.fail(`the step ended before its tasks/get was held: ${r.stdout}${r.stderr}`)),
      sleep(10_000).then(() => assert.fail("no tasks/get from the step within 10 s")),
    ]);
    b.child.kill("SIGKILL");
    rb = await b.done;
  } finally {
    proxy.hold = null;
  }
  assert.equal(rb.signal, "SIGKILL", "the step was still running when killed");
  assert.equal(rb.stdout, "", "it never finished its step");
  for (let i = 0; i < 50 && !held.aborted; i++) await sleep(20);
  assert.equal(held.aborted, true, "the held request's connection died with the isolate");
  assert.equal(held.status, 200, "the server had answered the in-flight tasks/get");

  const { steps, tasks } = await stepUntil(kv, (tasks) => taskOf(tasks, id)?.status === "completed", { label: "build after kills" });
  assert.equal(tasks.length, 1, `still one task, the same one: ${JSON.stringify(tasks.map((x) => [x.taskId, x.status]))}`);
  assert.equal(taskOf(tasks, id).result.structuredContent.target, "restart");
  assert.equal(server.lines("tools/call", null, { since }).length, 1, "one tools/call in the server log");
  const lines = server.lines(null, null, { since });
  assert.ok(lines.every((l) => l.method === "tools/call" || (l.method === "tasks/get" && l.name === id)), `only the call and its polls reached the server: ${lines.map((l) => l.text).join(" | ")}`);
  t.diagnostic(`killed after the server answered the held tasks/get (${held.heldAt - held.at} ms after it was sent); ${steps.length} steps after the kills; server saw ${JSON.stringify(methods(lines))}`);
});

test("approval: input_required, respond from another process, two steps released together send the answer once", async (t) => {
  const kv = await kvFor("approval");
  const since = Date.now();
  const [started] = await deno(kv, "start", "deploy", JSON.stringify({ service: "api", environment: "staging" }));
  assert.equal(started.kind, "task");
  const id = started.taskId;

  const asking = await stepUntil(kv, (tasks) => taskOf(tasks, id)?.status === "input_required", { label: "deploy → input_required" });
  const snapshot = taskOf(asking.tasks, id);
  assert.deepEqual(Object.keys(snapshot.inputRequests), ["approval-1"], `asks approval-1: ${JSON.stringify(snapshot.inputRequests)}`);
  assert.equal(snapshot.inputRequests["approval-1"].params.requestedSchema.properties.replicas.type, "integer");

  const answer = { "approval-1": { action: "accept", content: { confirm: true, strategy: "canary", replicas: 3, reason: "edge test" } } };
  const [responded] = await deno(kv, "respond", id, JSON.stringify(answer));
  assert.deepEqual(responded, { ok: true });
  assert.equal(server.lines("tasks/update", null, { since }).length, 0, "respond() with autoPoll: false only queues");

  // The first round after respond: two isolates, same KV file, released at the same moment; then
  // single steps to the end.
  const { steps, tasks, rounds } = await stepUntil(
    kv,
    (tasks) => ["completed", "failed", "cancelled", "expired"].includes(taskOf(tasks, id)?.status),
    { pair: 1, label: "deploy after respond" },
  );
  const [pair] = rounds;
  t.diagnostic(`pair released ${Math.abs(pair[0].stepping - pair[1].stepping)} ms apart: ${pair.map((r) => JSON.stringify(r.step)).join(" / ")}`);
  const updates = server.lines("tasks/update", id, { since });
  assert.equal(updates.length, 1, `exactly one tasks/update for ${id}: ${updates.map((l) => l.text).join(" | ")}`);
  assert.equal(updates[0].status, 200);
  assert.equal(proxy.requests.filter((r) => r.method === "tasks/update" && r.taskId === id).length, 1, "one tasks/update left any isolate");
  assert.equal(sum(steps, "sent"), 1, `one step counted the send: ${JSON.stringify(steps)}`);
  assert.deepEqual(pair.map((r) => r.step.sent).sort(), [0, 1], "one of the pair sent, the other did not");
  const done = taskOf(tasks, id);
  assert.equal(done.status, "completed", `deploy completed: ${JSON.stringify(done)}`);
  assert.deepEqual(done.result.structuredContent, { deployed: true, service: "api", environment: "staging", strategy: "canary", replicas: 3, reason: "edge test" });
  assert.deepEqual(done.inputRequests, {});
  const lines = server.lines(null, null, { since });
  t.diagnostic(`${steps.length} step runs after respond; server saw ${JSON.stringify(methods(lines))}`);
  // Checked last, so a failure here comes after the exactly-once checks above passed.
  const problems = pair.flatMap((r, i) => r.problems.map((p) => `pair step ${i} (${JSON.stringify(r.step)}): ${p}`));
  assert.deepEqual(problems, [], `the paired steps reported problems:\n${problems.join("\n")}`);
});

test("a store error in one step (compareAndPut throws) does not lose the task in a long-lived isolate", async (t) => {
  const kv = await kvFor("store-error");
  const since = Date.now();
  const [started] = await deno(kv, "start", "deploy", JSON.stringify({ service: "api", environment: "staging" }));
  const id = started.taskId;
  const asking = await stepUntil(kv, (tasks) => taskOf(tasks, id)?.status === "input_required", { label: "deploy → input_required" });
  await deno(kv, "respond", id, JSON.stringify({ "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling" } } }));
  await sleepUntil(asking.steps.at(-1).nextWakeAt + 20); // the poll is due too

  // One isolate steps up to 12 times; the first compareAndPut (the send lease) throws, as a local
  // Deno KV does ("database is locked") while another process writes the file.
  const r = await spawnDeno(kv, "step", ["--fail-next-cas", "--repeat", "12"]).done;
  assert.equal(r.code, 0, `the isolate ran its steps: ${r.stderr}`);
  const runs = [];
  for (let i = 0; i + 1 < r.json.length; i += 2) runs.push({ step: r.json[i], tasks: r.json[i + 1] });
  const lines = runs.map(({ step, tasks }, i) => `step ${i + 1}: ${JSON.stringify(step)} tasks: ${tasks.map((x) => x.status).join(",") || "none"}`);
  for (const line of [`storage events: ${r.storage.join(" | ")}`, ...lines]) t.diagnostic(line);
  const problems = [];
  runs.forEach(({ step }, i) => { try { checkStep(step); } catch (e) { problems.push(`step ${i + 1}: ${e.message}`); } });
  const lost = runs.findIndex(({ tasks }) => !taskOf(tasks, id));
  if (lost >= 0) problems.push(`step ${lost + 1}: the task vanished from tasks() (the KV still holds it)`);
  const sent = sum(runs.map((x) => x.step), "sent");
  if (sent !== 1) problems.push(`the isolate sent the queued answer ${sent} times, expected once`);
  const updates = server.lines("tasks/update", id, { since }).length;
  if (updates !== 1) problems.push(`the server saw ${updates} tasks/update, expected 1`);
  assert.deepEqual(problems, [], `after one failed compareAndPut:\n${problems.join("\n")}\n${lines.join("\n")}`);
});

test("size of what a Deno deployment ships", (t) => {
  const rows = DEPLOYED.map((f) => {
    const bytes = readFileSync(join(deployPkg, f)); // the files the tests above ran
    return { file: f, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  rows.push({ file: "total", raw: rows.reduce((n, r) => n + r.raw, 0), gzip: rows.reduce((n, r) => n + r.gzip, 0) });
  const fmt = (n) => n.toLocaleString("en-US");
  for (const r of rows) t.diagnostic(`${r.file.padEnd(24)} ${fmt(r.raw).padStart(10)} B raw ${fmt(r.gzip).padStart(10)} B gzip -9`);
  assert.ok(rows.at(-1).raw > 0);
});
