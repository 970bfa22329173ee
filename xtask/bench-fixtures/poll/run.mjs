// `cargo xtask bench poll`: requests per task against the reference server (`--poll-interval-ms 500`),
// ours (mcp-tasks-web) beside the official requester (@modelcontextprotocol/ext-tasks 0.2.2 +
// @modelcontextprotocol/client 2.4.0), over a window W during which N `long_job` tasks stay live.
//
//   node xtask/bench-fixtures/poll/run.mjs        (from the repo root; xtask/src/bench/poll.rs runs it)
//   env: BENCH_POLL_WINDOW_MS (W, default 60000), BENCH_POLL_TASKS (N, default 5),
//        MCP_TASKS_SERVER (server binary), BENCH_POLL_VERBOSE=1 (echo the server's request log)
//
// Cases (each subject counts the `tasks/get` the server logged for its own tasks, started within
// [t0, t0 + W), t0 being when the subject follows all of its N tasks):
//   1. one client: ours = a TaskClient in Node (pkg/node.mjs, default options) with server/discover and
//      subscriptions/listen answered -32601 by a fetch wrapper, so it polls; official = one requester
//      instance (../official-requester.mjs) whose `settle()` polls each task.
//   2. four tabs on one namespace: ours = 4 Chromium pages (one context, same origin, the host page
//      tests/e2e/pages served by the reference server, the same fetch wrapper injected with Playwright's
//      addInitScript) — one tab holds the Web Lock and polls; official = 4 requester
//      instances in one Node process sharing a stand-in localStorage (instance 1 starts the tasks,
//      2…4 `resumeAll()` them as a reloaded tab would), each polling every task.
//   3. ours with subscriptions/listen: a TaskClient in Node as is (it listens when server/discover
//      offers it). The official requester has no listen support: its figure is its case-1 polling.
// Phase A runs cases 1 and 3 side by side, phase B case 2; one server for both.
//
// Prints a readable summary on stderr and, as the last stdout line, one JSON object:
//   { windowMs, tasks, pollIntervalMs, ideal, cases: { one, tabs, listen }, summary }
// where each case is { ours: Counts, official: Counts } and Counts is
//   { perTask (mean tasks/get per task), min, max, total, tasks, other: { method: count }, perTab? }.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer } from "../../../tests/support/server.mjs";

const WINDOW_MS = Number(process.env.BENCH_POLL_WINDOW_MS || 60_000);
const N = Number(process.env.BENCH_POLL_TASKS || 5);
const POLL_MS = 500;
const VERBOSE = process.env.BENCH_POLL_VERBOSE === "1";
// Live for the whole window, whatever the set-up costs: long_job runs `seconds` from its creation.
const SECONDS = Math.min(3600, Math.ceil(WINDOW_MS / 1000) + 120);
const IDEAL = WINDOW_MS / POLL_MS;
const HERE = join(ROOT, "xtask/bench-fixtures/poll");
const PAGES = join(ROOT, "tests/e2e/pages");
const PKG = join(ROOT, "pkg");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

requireFiles([
  SERVER_BUILT,
  ["package (cargo xtask build)", join(PKG, "node.mjs")],
  ["package (cargo xtask build)", join(PKG, "client_bg.wasm")],
  ["official requester (npm ci)", join(ROOT, "node_modules/@modelcontextprotocol/ext-tasks/package.json")],
  ["playwright-core (npm ci)", join(ROOT, "node_modules/playwright-core/index.mjs")],
  ["chromium", CHROMIUM],
]);

const say = (text) => process.stderr.write(`poll: ${text}\n`);

/**
 * Runs `node script ...args`; resolves with its `started` JSON line (`{ taskIds, t0 }`) as soon as it
 * prints it, and `done` resolves when it exits (rejects on a non-zero exit).
 */
function child(script, args, label) {
  const proc = spawn(process.execPath, [join(HERE, script), ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let resolveStarted;
  let rejectStarted;
  const started = new Promise((resolve, reject) => { resolveStarted = resolve; rejectStarted = reject; });
  proc.stdout.on("data", (chunk) => {
    out += chunk;
    for (const line of out.split("\n")) {
      try {
        const message = JSON.parse(line);
        if (message.event === "started") resolveStarted(message);
      } catch { /* not a JSON line (yet) */ }
    }
  });
  proc.stderr.on("data", (chunk) => {
    err += chunk;
    if (VERBOSE) process.stderr.write(`  [${label}] ${chunk}`);
  });
  const done = new Promise((resolve, reject) => proc.once("exit", (code, signal) => {
    if (code === 0) resolve(out);
    else {
      const error = new Error(`${label} (${script}) exited with ${code ?? signal}: ${err.trim().split("\n").slice(-5).join(" | ")}`);
      rejectStarted(error);
      reject(error);
    }
  }));
  return { started, done, kill: () => proc.exitCode === null && proc.kill("SIGTERM") };
}

/** The tasks/get the server logged for `taskIds`, started within [t0, t0 + W); other methods too. */
function count(server, { taskIds, t0 }) {
  const end = t0 + WINDOW_MS;
  const inWindow = server.log.filter((l) => l.start >= t0 && l.start < end);
  const perTask = taskIds.map((id) => inWindow.filter((l) => l.method === "tasks/get" && l.name === id).length);
  const total = perTask.reduce((a, b) => a + b, 0);
  return { perTask: total / taskIds.length, min: Math.min(...perTask), max: Math.max(...perTask), total, tasks: taskIds.length, counts: perTask, t0 };
}

/** Methods other than tasks/get the server logged during [from, to), set-up included, whoever sent them. */
function others(server, from, to) {
  const out = {};
  for (const l of server.log) {
    if (l.start < from || l.start >= to || l.method === "tasks/get") continue;
    const key = `${l.method} ${l.status}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * Runs in every page before its scripts (Playwright's addInitScript, which the page's CSP does not
 * apply to): answers server/discover and subscriptions/listen with -32601, as a server without them
 * would, so the TaskClient polls — the same wrapper ours-node.mjs puts on Node's fetch.
 */
function pollOnlyFetch() {
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method !== "POST") return realFetch.call(globalThis, request);
    const text = await request.text();
    let rpc = {};
    try { rpc = JSON.parse(text); } catch { /* not JSON */ }
    if (rpc.method === "server/discover" || rpc.method === "subscriptions/listen") {
      const body = JSON.stringify({ jsonrpc: "2.0", id: rpc.id ?? null, error: { code: -32601, message: "Method not found" } });
      return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
    }
    // Sent with the text as its body (not a stream), so Playwright sees each request's JSON-RPC body.
    return realFetch.call(globalThis, request.url, { method: "POST", headers: request.headers, body: text, signal: request.signal });
  };
}

/** Four tabs of one Chromium context on one namespace, polling forced; tab 1 starts the tasks. */
async function oursTabs(server) {
  const { launchContext, makeProfileDir, removeProfileDir, hostReady } = await import(join(ROOT, "tests/e2e/rig.mjs"));
  const dir = await makeProfileDir("bench-poll");
  const context = await launchContext(dir);
  const sent = []; // { tab, at, method, taskId }
  try {
    await context.addInitScript(pollOnlyFetch);
    const pages = [];
    for (let tab = 1; tab <= 4; tab += 1) {
      const page = context.pages().find((p) => !pages.includes(p) && p.url() === "about:blank") ?? (await context.newPage());
      page.on("request", (request) => {
        if (!request.url().endsWith("/mcp") || request.method() !== "POST") return;
        let rpc = {};
        try { rpc = JSON.parse(request.postData() ?? "{}"); } catch { /* not JSON */ }
        sent.push({ tab, at: Date.now(), method: rpc.method, taskId: rpc.params?.taskId });
      });
      page.on("pageerror", (error) => say(`tab ${tab} page error: ${error?.message ?? error}`));
      await page.goto(`${server.base}/?ns=bench-poll-tabs`);
      await hostReady(page);
      pages.push(page);
    }
    const taskIds = [];
    for (let i = 0; i < N; i += 1) {
      const outcome = await pages[0].evaluate(([s]) => window.host.start("long_job", { seconds: s }), [SECONDS]);
      if (outcome?.kind !== "task") throw new Error(`long_job did not start a task: ${JSON.stringify(outcome)}`);
      taskIds.push(outcome.task.taskId);
    }
    // Every tab follows every task (records shared through IndexedDB + BroadcastChannel).
    const deadline = Date.now() + 15_000;
    for (const page of pages) {
      for (;;) {
        const known = await page.evaluate(() => window.host.tasks().map((t) => t.taskId));
        if (taskIds.every((id) => known.includes(id))) break;
        if (Date.now() > deadline) throw new Error(`a tab knows only ${known.length} of the ${N} tasks`);
        await sleep(100);
      }
    }
    const t0 = Date.now();
    say(`case 2, ours: 4 tabs follow ${N} tasks; waiting ${WINDOW_MS / 1000} s`);
    await sleep(WINDOW_MS);
    const perTab = {};
    for (const r of sent) {
      if (r.method === "tasks/get" && r.at >= t0 && r.at < t0 + WINDOW_MS && taskIds.includes(r.taskId)) perTab[`tab ${r.tab}`] = (perTab[`tab ${r.tab}`] ?? 0) + 1;
    }
    return { taskIds, t0, perTab };
  } finally {
    await context.close().catch(() => {});
    await removeProfileDir(dir);
  }
}

const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
const line = (label, c) => `${label.padEnd(34)} ${fmt(c.perTask).padStart(6)} per task  (min ${c.min}, max ${c.max}, ${c.total} in all, ${c.tasks} tasks)`;

const server = await startServer({ www: PAGES, pkg: PKG, pollMs: POLL_MS, verbose: VERBOSE });
const children = [];
try {
  say(`server ${server.url}, --poll-interval-ms ${POLL_MS}; window ${WINDOW_MS / 1000} s, ${N} long_job tasks each (seconds=${SECONDS}); ideal ${fmt(IDEAL)} tasks/get per task`);
  const argsFor = (extra) => [server.url, String(N), String(SECONDS), String(WINDOW_MS), ...extra];

  // Phase A: case 1 (ours polling, official) and case 3 (ours listening), side by side.
  const phaseAStart = Date.now();
  const oursPoll = child("ours-node.mjs", argsFor(["poll"]), "ours poll");
  const official1 = child("official-node.mjs", argsFor(["1"]), "official x1");
  const oursListen = child("ours-node.mjs", argsFor(["listen"]), "ours listen");
  children.push(oursPoll, official1, oursListen);
  const [a1, a2, a3] = await Promise.all([oursPoll.started, official1.started, oursListen.started]);
  say(`phase A: cases 1 and 3 started; waiting ${WINDOW_MS / 1000} s`);
  await Promise.all([oursPoll.done, official1.done, oursListen.done]);
  await sleep(300); // the last log lines (a listen stream is logged when it ends)
  const phaseA = { from: phaseAStart, to: Date.now() };
  const one = { ours: count(server, a1), official: count(server, a2) };
  const listen = { ours: count(server, a3), official: one.official };
  const listenLines = server.log.filter((l) => l.method === "subscriptions/listen");
  listen.ours.listenStreams = listenLines.length;

  // Phase B: case 2.
  const phaseBStart = Date.now();
  const officialTabs = child("official-node.mjs", argsFor(["4"]), "official x4");
  children.push(officialTabs);
  const [ourTabs, b2] = await Promise.all([oursTabs(server), officialTabs.started]);
  await officialTabs.done;
  await sleep(300);
  const tabs = { ours: { ...count(server, ourTabs), perTab: ourTabs.perTab }, official: count(server, b2) };
  const phaseB = { from: phaseBStart, to: Date.now() };

  const summary = [
    `window ${WINDOW_MS / 1000} s, ${N} live long_job tasks per subject, server pollIntervalMs ${POLL_MS}: ideal ${fmt(IDEAL)} tasks/get per task (W / 500 ms)`,
    `case 1 — one client, polling (tasks/get per task; ideal ${fmt(IDEAL)})`,
    `  ${line("ours (Node, listen turned off)", one.ours)}`,
    `  ${line("official (settle())", one.official)}`,
    `case 2 — four tabs on one namespace (total tasks/get per task; ideal ${fmt(IDEAL)})`,
    `  ${line("ours (4 Chromium tabs, 1 poller)", tabs.ours)}`,
    `    per tab: ${Object.entries(tabs.ours.perTab).map(([k, v]) => `${k} ${v}`).join(", ") || "(none)"}`,
    `  ${line("official (4 instances in Node)", tabs.official)}`,
    `case 3 — ours with subscriptions/listen (tasks/get per task; ideal 0)`,
    `  ${line("ours (Node, default options)", listen.ours)}`,
    `    subscriptions/listen streams logged: ${listen.ours.listenStreams}`,
    `  official: no subscriptions/listen in ext-tasks 0.2.2 — it polls as in case 1 (${fmt(one.official.perTask)})`,
    `all other requests, set-up included, phase A (ours poll + official x1 + ours listen): ${JSON.stringify(others(server, phaseA.from, phaseA.to))}`,
    `all other requests, set-up included, phase B (ours 4 tabs + official x4): ${JSON.stringify(others(server, phaseB.from, phaseB.to))}`,
  ].join("\n");
  say(`\n${summary}`);
  const strip = ({ counts, t0, ...rest }) => ({ ...rest, counts });
  const out = {
    windowMs: WINDOW_MS,
    tasks: N,
    pollIntervalMs: POLL_MS,
    ideal: IDEAL,
    cases: {
      one: { ours: strip(one.ours), official: strip(one.official) },
      tabs: { ours: strip(tabs.ours), official: strip(tabs.official) },
      listen: { ours: strip(listen.ours), official: strip(listen.official) },
    },
    otherRequests: { phaseA: others(server, phaseA.from, phaseA.to), phaseB: others(server, phaseB.from, phaseB.to) },
    summary,
  };
  console.log(JSON.stringify(out));
} finally {
  for (const c of children) c.kill();
  await server.stop();
}
