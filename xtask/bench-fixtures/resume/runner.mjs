#!/usr/bin/env node
// The resume figure's driver (run by `cargo xtask bench resume`; the Rust side bundles official.js and
// copies the pages into WWW first):
//
//   node xtask/bench-fixtures/resume/runner.mjs --www WWW --pkg PKG [--counts 1,100,1000] [--runs 5]
//        [--poll-ms 2000] [--subjects ours,official] [--listen] [--steady-ms 10000 --steady-n 100]
//
// One reference server (memory store, --quiet, --light for the scale tools) serves WWW at / and PKG at
// /pkg/. For each subject and each count N: a fresh persistent Chromium profile (playwright-core,
// /usr/bin/chromium, headless, the e2e rig's flags); one page stores N live handles (setup: N long_job
// calls; above SEED_ABOVE handles, one idle_job call whose stored handle is copied for N − 1 more tasks
// the server's idle_seed creates like it, as the scale figure seeds), then each run opens a fresh page in
// the same profile, which times TaskClient.open() / connect() → the first tasks/get (see probe.js). Both
// subjects are set up before the first run and their runs alternate (ours, official, ours, ...).
// Before each run the runner waits one poll interval, so every stored handle is due again when the
// next page opens; a page waits up to 15 s (6 ms per handle above that) for every handle's first poll.
// Prints one JSON object on stdout: `{ chromium, pollMs, results: [{ subject, n, setupMs, runs: [...] }] }`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { serverRpc } from "../server-rpc.mjs";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer } from "../../../tests/support/server.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "../../../tests/support/chromium.mjs";

const { values } = parseArgs({
  options: {
    www: { type: "string" },
    pkg: { type: "string", default: join(ROOT, "pkg") },
    counts: { type: "string", default: "1,100,1000" },
    runs: { type: "string", default: "5" },
    "poll-ms": { type: "string", default: "2000" },
    subjects: { type: "string", default: "ours,official" },
    // Ours only: let server/discover and subscriptions/listen reach the server (not the figure's setting).
    listen: { type: "boolean", default: false },
    // At --steady-n handles (seeded idle tasks), each measure page then stays for a window of --steady-ms in which the
    // runner reads the renderer's main-thread time (CDP Performance.getMetrics, TaskDuration) and the
    // tasks/get answers the page had: main thread per answered idle poll. 0: no window.
    "steady-ms": { type: "string", default: "0" },
    "steady-n": { type: "string", default: "100" },
  },
});
const counts = values.counts.split(",").map(Number);
const runs = Number(values.runs);
const pollMs = Number(values["poll-ms"]);
const subjects = values.subjects.split(",");
const steadyMs = Number(values["steady-ms"]);
const steadyN = Number(values["steady-n"]);
const PAGE = { ours: "ours.html", official: "official.html" };

requireFiles([SERVER_BUILT, ["package (cargo xtask build)", join(values.pkg, "mcp_tasks_web.js")], ["chromium", CHROMIUM], ["bundled official.js", join(values.www, "official.js")]]);
const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));

const log = (text) => console.error(`resume: ${text}`);
/** Above this many handles, setup seeds copies instead of making N calls (10,000 calls take minutes). */
const SEED_ABOVE = 1000;
/** How long a measure page waits for every handle's first tasks/get. */
const waitMsFor = (n) => Math.max(15_000, n * 6);
/**
 * Runs of the official requester above SEED_ABOVE handles: one. Its resumeAll() starts every follow at
 * once; at 10,000 Chromium refuses about half the fetches, and the next page of the same profile
 * hung past its timeout (the network service still busy with the last page's requests).
 */
const runsFor = (subject, n) => (subject === "official" && n > SEED_ABOVE ? 1 : runs);

/** One JSON-RPC request to the reference server, as a 2026-07-28 client sends it (Node fetch, loopback). */
const rpc = (url, method, params, name) => serverRpc(url, method, params, name, "resume-bench-runner");

/** The renderer main thread's busy time so far, in ms (CDP `Performance.getMetrics`' TaskDuration). */
async function mainThreadMs(cdp) {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const task = metrics.find((m) => m.name === "TaskDuration");
  if (!task) throw new Error("Chromium reports no TaskDuration metric");
  return task.value * 1000;
}

/**
 * The steady window of a measure page opened with `?steady=`: once the page is ready (every handle
 * polled), the main-thread time and the tasks/get answers over `steadyMs`, then the page is let go.
 */
async function steadyWindow(page, timeout) {
  await page.waitForFunction(() => window.steadyReady === true || window.bench?.done, null, { timeout, polling: 20 });
  if (!(await page.evaluate(() => window.steadyReady === true))) return {};
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  const [ms0, answered0] = [await mainThreadMs(cdp), await page.evaluate(() => window.benchProbe.answered)];
  await sleep(steadyMs);
  const [ms1, answered1] = [await mainThreadMs(cdp), await page.evaluate(() => window.benchProbe.answered)];
  await page.evaluate(() => (window.steadyStop = true));
  await cdp.detach().catch(() => {});
  const answered = answered1 - answered0;
  return { steadyAnswered: answered, steadyMainMs: ms1 - ms0, steadyPerAnswerMs: answered > 0 ? (ms1 - ms0) / answered : null };
}

/**
 * Opens `url` in a new page of `context`, (with `during`) runs `during(page)` while the page works,
 * waits for `window.bench.done`, then (if given) `then(page, bench)`, and closes the page.
 */
async function visit(context, url, timeout, then = null, during = null) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.stack ?? e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(url);
    const meanwhile = during ? await during(page) : {};
    await page.waitForFunction(() => window.bench?.done, null, { timeout, polling: 50 });
    const bench = await page.evaluate(() => window.bench);
    if (bench.error) throw new Error(`${url}: ${bench.error}${errors.length ? `\n${errors.join("\n")}` : ""}`);
    return { ...bench, ...meanwhile, ...(then ? await then(page, bench) : {}), errors };
  } finally {
    await page.close();
  }
}

/**
 * Whether N handles are seeded (one idle_job call copied for idle_seed's tasks) rather than made by N
 * long_job calls: above SEED_ABOVE, and at the steady window's count, whose polls must be idle (a
 * long_job's status message changes every second, so each of its polls would be a change to store).
 */
const seedsHandles = (n) => n > SEED_ABOVE || (steadyMs > 0 && n === steadyN);

/** Stores N live handles in the profile: N calls, or one call copied for idle_seed's tasks (`seedsHandles`). */
function setup(context, base, n) {
  if (!seedsHandles(n)) return visit(context, `${base}&mode=setup&n=${n}`, 180_000);
  return visit(context, `${base}&mode=template`, 60_000, async (page, { templateId }) => {
    const seeded = await rpc(server.url, "tools/call", { name: "idle_seed", arguments: { count: n - 1, like: templateId } }, "idle_seed");
    const ids = seeded.structuredContent?.taskIds;
    if (!Array.isArray(ids) || ids.length !== n - 1) throw new Error(`idle_seed gave ${ids?.length} ids, not ${n - 1}`);
    return page.evaluate(([ids, templateId]) => window.cloneHandles(ids, templateId), [ids, templateId]);
  });
}

const server = await startServer({ www: values.www, pkg: values.pkg, pollMs, quiet: true, args: ["--light"] });
const results = [];
let version = null;

/** One measured page of `subject` (its profile `p`) at N handles: checks it and logs it. */
async function measureOnce(subject, p, n, run) {
  const steady = steadyMs > 0 && n === steadyN;
  const query = `&mode=measure&n=${n}&wait=${waitMsFor(n)}${values.listen ? "&listen=1" : ""}${steady ? `&steady=${steadyMs}` : ""}`;
  const timeout = waitMsFor(n) + 60_000 + (steady ? steadyMs : 0);
  const r = await visit(p.context, `${p.base}${query}`, timeout, null, steady ? (page) => steadyWindow(page, waitMsFor(n) + 30_000) : null);
  if (r.restored !== n) throw new Error(`${subject} n=${n}: the page restored ${r.restored} handles, not ${n}`);
  if (r.firstGetMs === null) throw new Error(`${subject} n=${n}: no tasks/get within the page's wait`);
  if (!r.firstGetRestored) throw new Error(`${subject} n=${n}: the first tasks/get (${r.firstGetTaskId}) is not of a stored handle`);
  log(`${subject} n=${n} run ${run + 1}: open → first tasks/get ${r.firstGetMs.toFixed(1)} ms, all ${n} polled ${r.allGetMs === null ? "—" : `${r.allGetMs.toFixed(1)} ms`}, open/connect resolved ${r.openMs.toFixed(1)} ms`);
  if (steady) {
    if (!r.steadyAnswered) throw new Error(`${subject} n=${n}: no tasks/get answered in the ${steadyMs} ms steady window`);
    log(`${subject} n=${n} run ${run + 1}: steady ${steadyMs} ms, ${r.steadyAnswered} polls answered, main thread ${r.steadyMainMs.toFixed(1)} ms, ${r.steadyPerAnswerMs.toFixed(3)} ms per answer`);
  }
  return { firstGetMs: r.firstGetMs, allGetMs: r.allGetMs, openMs: r.openMs, polled: r.polled, counts: r.counts, faked: r.faked, errors: r.errors.length, steadyAnswered: r.steadyAnswered, steadyMainMs: r.steadyMainMs, steadyPerAnswerMs: r.steadyPerAnswerMs };
}

/**
 * [`measureOnce`], except that a page whose renderer crashed (or the official page that hung at
 * 10,000 handles) is a result, not the end of the figure: the official requester's page at 10,000
 * handles (10,000 fetches at once) crashes Chromium's renderer on this machine or never finishes, and
 * the other counts and subjects are still worth having.
 */
async function measureOrCrash(subject, p, n, run) {
  try {
    return await measureOnce(subject, p, n, run);
  } catch (e) {
    const message = String(e?.message ?? e);
    // The official page at 10,000 handles either crashes or, in some runs, hangs past its timeout
    // with the same 10,000 fetches at once; ours hanging fails the figure.
    const hung = subject === "official" && n > SEED_ABOVE && /Timeout \d+ms exceeded/.test(message);
    if (!/Target crashed|Page crashed/.test(message) && !hung) throw e;
    log(`${subject} n=${n} run ${run + 1}: the page ${hung ? "hung" : "crashed"} (${message.split("\n")[0]})`);
    return { crashed: true };
  }
}

try {
  for (const n of counts) {
    // Each subject in its own profile, both set up first; then the runs alternate between them, so a
    // machine whose load drifts (other builds on shared cores) weighs on both alike.
    const profiles = {};
    try {
      for (const subject of subjects) {
        const dir = await mkdtemp(join(tmpdir(), `mcp-tasks-bench-resume-${subject}-${n}-`));
        const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
        profiles[subject] = { dir, context, base: `${server.base}/${PAGE[subject]}?ns=bench-${n}`, runs: [] };
        version ??= context.browser()?.version() ?? null;
        const started = Date.now();
        const stored = await setup(context, profiles[subject].base, n);
        profiles[subject].setupMs = Date.now() - started;
        log(`${subject} n=${n}: ${stored.stored} handles stored in ${profiles[subject].setupMs} ms`);
      }
      for (let run = 0; run < runs; run += 1) {
        await sleep(pollMs + 200); // every handle due again
        for (const subject of subjects) {
          if (run < runsFor(subject, n)) profiles[subject].runs.push(await measureOrCrash(subject, profiles[subject], n, run));
        }
      }
      for (const subject of subjects) results.push({ subject, n, setupMs: profiles[subject].setupMs, runs: profiles[subject].runs });
    } finally {
      for (const { context, dir } of Object.values(profiles)) {
        await context.close().catch(() => {});
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await server.stop();
}
console.log(JSON.stringify({ chromium: version, pollMs, listen: values.listen, results }));
