#!/usr/bin/env node
// The scale figure's driver (run by `cargo xtask bench scale`; the Rust side bundles official.js and
// copies the pages into WWW first):
//
//   node xtask/bench-fixtures/scale/runner.mjs --www WWW --pkg PKG [--counts 1000,10000]
//        [--poll-ms-per-task 30] [--min-poll-ms 5000] [--window-ms 30000] [--reload-ms 90000]
//        [--subjects ours,official] [--passes 30] [--steps 10] [--card-runs 7] [--quiet-ms 3000]
//
// For each subject and each count N: a fresh reference server in light mode (memory store, --quiet,
// pollIntervalMs N × --poll-ms-per-task, at least --min-poll-ms) serving WWW at / and PKG at /pkg/, and a
// fresh persistent Chromium profile (playwright-core, /usr/bin/chromium, headless, the e2e rig's flags):
//
//   setup page    per namespace: the client starts one idle_job task (its stored handle is the template);
//                 the server's idle_seed creates N − 1 more `like` it (same timestamps); the page stores
//                 one copy of the template per id (ours: IndexedDB records, marked as polled once, so a
//                 poll changes nothing; official: serialized references in localStorage).
//   reload page   both: a fresh page opens the N handles, all due (ours: open() on records whose next
//                 poll is past; official: its references resumed 100 at a time), until every task was
//                 answered or --reload-ms: time, tasks/get sent / failed, IndexedDB writes, main-thread
//                 busy time, memory (JS heap after GC; ours also wasm linear memory) over the page's
//                 baseline (ours: a client opened and closed on an empty namespace; official: a session
//                 opened and closed).
//   step page     ours: a step-mode client on N handles none of which is due: its first step() (parses
//                 every record), then --steps steps with nothing due, timed one by one.
//   measure page  ours: N handles whose next polls are spread over one interval from 5 s + N ms +
//                 --quiet-ms after open(): wasm memory after open; --quiet-ms of idling with nothing due
//                 (the page's own main-thread time); --passes scheduling passes with nothing due; 100
//                 <mcp-task> cards, --card-runs times; a whole window of --window-ms of polls that change nothing
//                 (IndexedDB writes per answered tasks/get, main-thread CPU time: less the quiet rate, the
//                 main thread per answered idle poll); then idle_set completes every task on the server and
//                 a second window counts IndexedDB writes per task seen ending.
//
// Memory: wasm linear memory is `memory.buffer.byteLength` of the instance; the JS heap is DevTools'
// Runtime.getHeapUsage().usedSize after two HeapProfiler.collectGarbage. Busy: Performance.getMetrics
// TaskDuration − DevToolsCommandDuration (main-thread busy time of the page's renderer) before and after;
// on the measure page in the main thread's CPU time (timeDomain threadTicks), elsewhere wall time.
// Progress goes to stderr; one JSON object to stdout: `{ chromium, ..., results: [{ subject, n, ... }] }`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { serverRpc } from "../server-rpc.mjs";
import { ROOT, SERVER_BUILT, requireFiles, startServer } from "../../../tests/support/server.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "../../../tests/support/chromium.mjs";

const { values } = parseArgs({
  options: {
    www: { type: "string" },
    pkg: { type: "string", default: join(ROOT, "pkg") },
    counts: { type: "string", default: "1000,10000" },
    "poll-ms-per-task": { type: "string", default: "30" },
    "min-poll-ms": { type: "string", default: "5000" },
    "window-ms": { type: "string", default: "30000" },
    "reload-ms": { type: "string", default: "90000" },
    subjects: { type: "string", default: "ours,official" },
    passes: { type: "string", default: "30" },
    steps: { type: "string", default: "10" },
    "card-runs": { type: "string", default: "7" },
    "quiet-ms": { type: "string", default: "3000" },
  },
});
const counts = values.counts.split(",").map(Number);
const pollMsPerTask = Number(values["poll-ms-per-task"]);
const minPollMs = Number(values["min-poll-ms"]);
const windowMs = Number(values["window-ms"]);
const reloadMs = Number(values["reload-ms"]);
const subjects = values.subjects.split(",");
const passes = Number(values.passes);
const steps = Number(values.steps);
const cardRuns = Number(values["card-runs"]);
const quietMs = Number(values["quiet-ms"]);
const PAGE = { ours: "ours.html", official: "official.html" };

requireFiles([SERVER_BUILT, ["package (cargo xtask build)", join(values.pkg, "mcp_tasks_web.js")], ["package element (cargo xtask build)", join(values.pkg, "element.js")], ["chromium", CHROMIUM], ["bundled official.js", join(values.www, "official.js")]]);
const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));

const log = (text) => console.error(`scale: ${text}`);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** One JSON-RPC request to the reference server, as a 2026-07-28 client sends it (Node fetch, loopback). */
const rpc = (server, method, params, name) => serverRpc(server.url, method, params, name, "scale-bench-runner");

/** A synchronous scale tool's structuredContent. */
async function tool(server, name, args) {
  const result = await rpc(server, "tools/call", { name, arguments: args }, name);
  if (result.resultType !== "complete" && result.structuredContent === undefined) throw new Error(`${name}: ${JSON.stringify(result).slice(0, 200)}`);
  return result.structuredContent;
}

/** Opens `url` in a new page of `context` and waits for the page's `window.scale`. */
async function open(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.stack ?? e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.scaleReady === true, null, { timeout: 30_000, polling: 50 });
  } catch (e) {
    throw new Error(`${url} did not get ready: ${e.message}${errors.length ? `\n${errors.join("\n")}` : ""}`);
  }
  const call = async (what, arg, timeout = 600_000) => {
    page.setDefaultTimeout(timeout);
    try {
      return await page.evaluate(what, arg);
    } catch (e) {
      throw new Error(`${e.message}${errors.length ? `\npage errors:\n${errors.join("\n")}` : ""}`);
    }
  };
  return { page, errors, call };
}

/**
 * DevTools for one page: performance metrics and the JS heap after GC. With `cpu`, durations are the main
 * thread's CPU time (`threadTicks`) rather than wall time, so other processes on the machine (two shared
 * cores) do not inflate them.
 */
async function devtools(page, { cpu = false } = {}) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable", cpu ? { timeDomain: "threadTicks" } : {});
  return {
    /**
     * Main-thread busy ms so far: DevTools' TaskDuration (every task of the renderer's main thread:
     * script, wasm, native work such as fetch() and IndexedDB calls, GC) minus DevToolsCommandDuration
     * (this driver's own commands). Not ScriptDuration: it leaves out most of the official requester's
     * work (its timer-driven polls are counted as TaskOtherDuration), so it does not compare the two.
     */
    async busyMs() {
      const { metrics } = await cdp.send("Performance.getMetrics");
      const get = (name) => (metrics.find((m) => m.name === name)?.value ?? NaN) * 1000;
      return get("TaskDuration") - get("DevToolsCommandDuration");
    },
    async heapAfterGc() {
      await cdp.send("HeapProfiler.collectGarbage");
      await cdp.send("HeapProfiler.collectGarbage");
      return (await cdp.send("Runtime.getHeapUsage")).usedSize;
    },
  };
}

/**
 * Seeds N live handles in namespace `ns` from the setup page: a template task the client starts, N − 1
 * more from idle_seed with the template's timestamps, and one copy of the template's stored handle per id.
 */
async function seed(server, setup, subject, ns, n) {
  const { templateId } = await setup.call(([s, ns]) => (s === "ours" ? window.scale.template(ns) : window.scale.template()), [subject, ns]);
  const { taskIds } = n > 1 ? await tool(server, "idle_seed", { count: n - 1, like: templateId }) : { taskIds: [] };
  const stored = await setup.call(([s, ns, ids]) => (s === "ours" ? window.scale.clone(ns, ids, true) : window.scale.clone(ids)), [subject, ns, taskIds]);
  if (stored.stored !== n) throw new Error(`${subject} n=${n}: stored ${stored.stored} handles, not ${n}`);
  return { templateId, ...stored };
}

/** The server's pollIntervalMs for N tasks. */
const pollMsFor = (n) => Math.max(minPollMs, n * pollMsPerTask);

/** Memory over the page's baseline: JS heap after GC, and (ours) wasm linear memory. */
async function memory(page, dt, subject) {
  return { heap: await dt.heapAfterGc(), wasm: subject === "ours" ? await page.call(() => window.scale.wasmBytes()) : null };
}

/**
 * A reload: a fresh page opens N stored handles that are all due (ours: overdue records; official: its
 * references resumed), until every task was answered or `reloadMs`; memory and main-thread busy time.
 */
async function reload(context, pageUrl, subject, ns, n, pollMs) {
  const page = await open(context, pageUrl);
  const dt = await devtools(page.page);
  const base = await page.call(() => window.scale.baseline());
  const before = { heap: await dt.heapAfterGc(), wasm: base.wasmBytes ?? null };
  if (subject === "ours") await page.call(([ns, lead]) => window.scale.schedule(ns, lead, 0), [ns, -pollMs]);
  const b0 = await dt.busyMs();
  const opened = await page.call(([ns, n]) => (window.scale.open.length ? window.scale.open(ns, n) : window.scale.open()), [ns, n]);
  if (opened.restored !== n) throw new Error(`${subject} n=${n}: the page restored ${opened.restored} handles, not ${n}`);
  const round = await page.call(([w, t]) => window.scale.round(w, t), [reloadMs, reloadMs + 60_000]);
  const b1 = await dt.busyMs();
  const after = await memory(page, dt, subject);
  await page.page.close();
  return { openMs: opened.openMs, ...round, busyMs: b1 - b0, before, after, pageErrors: page.errors.length };
}

async function measure(subject, n) {
  const pollMs = pollMsFor(n);
  const server = await startServer({ www: values.www, pkg: values.pkg, pollMs, quiet: true, args: ["--light"] });
  const dir = await mkdtemp(join(tmpdir(), `mcp-tasks-bench-scale-${subject}-${n}-`));
  const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const result = { subject, n, pollMs, windowMs, reloadMs };
  const timeout = 120_000 + n * 30;
  // Ours: the first polls fall due `lead` ms after open (time for the quiet period, the scheduling
  // passes and the cards).
  const lead = 5_000 + n + quietMs;
  try {
    result.chromium = context.browser()?.version() ?? null;
    const pageUrl = `${server.base}/${PAGE[subject]}`;
    const ns = `scale-${n}`;

    // Setup.
    const started = Date.now();
    const setup = await open(context, pageUrl);
    result.setup = await seed(server, setup, subject, `${ns}-reload`, n);
    if (subject === "ours") {
      await seed(server, setup, subject, ns, n);
      await seed(server, setup, subject, `${ns}-step`, n);
      await setup.call((ns) => window.scale.schedule(ns, 3_600_000, 0), `${ns}-step`); // none due for an hour
    }
    await setup.page.close();
    result.setupMs = Date.now() - started;
    log(`${subject} n=${n}: handles stored in ${result.setupMs} ms (a stored handle: ${result.setup.recordBytes ?? result.setup.referenceBytes} chars); server pollIntervalMs ${pollMs}`);

    // A reload with every handle due.
    result.reload = await reload(context, pageUrl, subject, `${ns}-reload`, n, pollMs);
    const r = result.reload;
    log(`${subject} n=${n}: reload: ${r.covered} of ${n} tasks answered in ${(r.ms / 1000).toFixed(1)} s (${r.sent} tasks/get sent, ${r.failed} failed, ${r.writes} IndexedDB writes), ` +
      `main thread busy ${(r.busyMs / 1000).toFixed(1)} s; JS heap +${kb(r.after.heap - r.before.heap)}${r.after.wasm === null ? "" : `, wasm memory +${kb(r.after.wasm - r.before.wasm)}`}`);
    if (subject !== "ours") return result;

    // Step mode: steps with nothing due.
    const stepPage = await open(context, pageUrl);
    const sdt = await devtools(stepPage.page);
    const first = await stepPage.call((ns) => window.scale.stepOpen(ns), `${ns}-step`);
    if (first.first.live !== n) throw new Error(`ours n=${n}: the first step saw ${first.first.live} live tasks, not ${n}`);
    const s0 = await sdt.busyMs();
    const idle = await stepPage.call((k) => window.scale.stepIdle(k), steps);
    const s1 = await sdt.busyMs();
    result.step = { firstMs: first.firstMs, ...idle, busyMsPerStep: (s1 - s0) / steps };
    log(`ours n=${n}: first step (parses ${n} records) ${first.firstMs.toFixed(0)} ms; a step with nothing due ${idle.medianMs.toFixed(1)} ms`);
    await stepPage.page.close();

    // Steady state: N handles whose next polls are spread over one interval from `lead` after open.
    // Main-thread figures here are CPU time (see devtools()).
    const m = await open(context, pageUrl);
    const dt = await devtools(m.page, { cpu: true });
    const base = await m.call(() => window.scale.baseline());
    await m.call(([ns, lead, spread]) => window.scale.schedule(ns, lead, spread), [ns, lead, pollMs]);
    const opened = await m.call(([ns, n]) => window.scale.open(ns, n), [ns, n]);
    if (opened.restored !== n) throw new Error(`ours n=${n}: the page restored ${opened.restored} handles, not ${n}`);
    result.open = { ...opened, wasmBase: base.wasmBytes };
    // The page's own main-thread time with nothing due, idling as the steady window below does: first,
    // while the whole lead is ahead (a loaded machine slows the passes and cards after it), after a
    // forced GC.
    await dt.heapAfterGc();
    const q0 = await dt.busyMs();
    const quiet = await m.call((ms) => window.scale.quiet(ms), quietMs);
    const q1 = await dt.busyMs();
    result.quiet = { ...quiet, busyMs: q1 - q0 };
    if (quiet.sent !== 0) throw new Error(`ours n=${n}: ${quiet.sent} tasks/get started in the quiet period (something was due)`);

    const b0 = await dt.busyMs();
    result.passes = await m.call((k) => window.scale.passes(k), passes);
    const b1 = await dt.busyMs();
    result.passes.busyMsPerPass = (b1 - b0) / passes;
    if (result.passes.sent !== 0) throw new Error(`ours n=${n}: ${result.passes.sent} tasks/get started during the scheduling passes (something was due)`);
    log(`ours n=${n}: open ${opened.openMs.toFixed(0)} ms (wasm memory +${kb(opened.wasmBytes - base.wasmBytes)}); scheduling pass with nothing due ${result.passes.medianMs.toFixed(2)} ms (median of ${passes})`);
    result.cards = await m.call((runs) => window.scale.cards(runs), cardRuns);
    const bad = result.cards.find((c) => c.drawn !== c.cards);
    if (bad) throw new Error(`ours n=${n}: only ${bad.drawn} of ${bad.cards} cards were drawn as working`);
    log(`ours n=${n}: 100 cards drawn in ${result.cards.map((c) => c.drawnMs.toFixed(0)).join(", ")} ms`);

    // Polls that change nothing, for the whole of `windowMs`.
    await m.call(() => window.scale.mark());
    const c0 = await dt.busyMs();
    const steady = await m.call(([w, t]) => window.scale.round(w, t, true), [windowMs, timeout]);
    const c1 = await dt.busyMs();
    result.steady = { ...steady, busyMs: c1 - c0 };
    const idleMs = (result.quiet.busyMs / quiet.ms) * steady.ms;
    log(`ours n=${n}: polls that changed nothing: ${steady.answered} answered in ${(steady.ms / 1000).toFixed(1)} s (${steady.failed} failed), ` +
      `${steady.writes} IndexedDB writes, main thread busy ${result.steady.busyMs.toFixed(0)} ms (idle page: ${idleMs.toFixed(0)} ms; ` +
      `${((result.steady.busyMs - idleMs) / steady.answered).toFixed(2)} ms per answered poll)`);

    // One status change per task: idle_set completes every idle task on the server.
    await m.call(() => window.scale.mark());
    const { changed } = await tool(server, "idle_set", { status: "completed" });
    if (changed < n) throw new Error(`ours n=${n}: idle_set changed ${changed} tasks, fewer than ${n}`);
    const ended = await m.call(([w, t]) => window.scale.ended(w, t), [windowMs, timeout]);
    result.changed = { ...ended, serverChanged: changed };
    log(`ours n=${n}: ${ended.ended} tasks seen ending in ${(ended.ms / 1000).toFixed(1)} s (${ended.answered} answered, ${ended.failed} failed), ${ended.writes} IndexedDB writes`);
    result.pageErrors = m.errors.slice(0, 20);
    await m.page.close();
  } finally {
    await context.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    await server.stop();
  }
  return result;
}

const results = [];
for (const subject of subjects) {
  for (const n of counts) results.push(await measure(subject, n));
}
console.log(JSON.stringify({ chromium: results.find((r) => r.chromium)?.chromium ?? null, pollMsPerTask, minPollMs, windowMs, reloadMs, passes, steps, cardRuns, quietMs, results }));
