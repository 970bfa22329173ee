#!/usr/bin/env node
// The cards figure's driver (run by `cargo xtask bench cards`; the Rust side copies the pages into WWW):
//
//   node xtask/bench-fixtures/cards/runner.mjs --www WWW --pkg PKG [--counts 1,100,1000] [--runs 5] [--poll-ms 2000]
//
// One reference server (memory store, --quiet, --light) serves WWW at / and PKG at /pkg/. For each count
// N: a fresh persistent Chromium profile (playwright-core, /usr/bin/chromium, headless, 1280×720) whose
// IndexedDB gets N live handles the way the resume figure seeds many (one idle_job call through
// ours.html, its stored handle copied for N − 1 tasks the server's idle_seed creates like it); then each
// run waits one poll interval (every handle due again) and opens cards.html with the list and without
// it, alternating. Prints one JSON object on stdout: `{ chromium, results: [{ n, runs: [...] }] }`.
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
  },
});
const counts = values.counts.split(",").map(Number);
const runs = Number(values.runs);
const pollMs = Number(values["poll-ms"]);
const WAIT_MS = 30_000;

requireFiles([SERVER_BUILT, ["package (cargo xtask build)", join(values.pkg, "mcp_tasks_web.js")], ["chromium", CHROMIUM]]);
const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));
const log = (text) => console.error(`cards: ${text}`);

/** Opens `url` in a new page, waits for `window.bench.done`, runs `then(page, bench)` if given, closes it. */
async function visit(context, url, then = null) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.stack ?? e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.bench?.done, null, { timeout: WAIT_MS + 60_000, polling: 50 });
    const bench = await page.evaluate(() => window.bench);
    if (bench.error || errors.length) throw new Error(`${url}: ${bench.error ?? ""}\n${errors.join("\n")}`);
    return { ...bench, ...(then ? await then(page, bench) : {}) };
  } finally {
    await page.close();
  }
}

/** N live handles in the profile's IndexedDB: one idle_job call, copied for idle_seed's N − 1 tasks. */
function seed(context, base, n) {
  return visit(context, `${base}/ours.html?ns=cards-${n}&mode=template`, async (page, { templateId }) => {
    if (n === 1) return { stored: 1 };
    const seeded = await serverRpc(server.url, "tools/call", { name: "idle_seed", arguments: { count: n - 1, like: templateId } }, "idle_seed", "cards-bench-runner");
    const ids = seeded.structuredContent?.taskIds;
    if (!Array.isArray(ids) || ids.length !== n - 1) throw new Error(`idle_seed gave ${ids?.length} ids, not ${n - 1}`);
    return page.evaluate(([ids, templateId]) => window.cloneHandles(ids, templateId), [ids, templateId]);
  });
}

const server = await startServer({ www: values.www, pkg: values.pkg, pollMs, quiet: true, args: ["--light"] });
const results = [];
let version = null;
try {
  for (const n of counts) {
    const dir = await mkdtemp(join(tmpdir(), `mcp-tasks-bench-cards-${n}-`));
    const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 720 } });
    try {
      version ??= context.browser()?.version() ?? null;
      const stored = await seed(context, server.base, n);
      log(`n=${n}: ${stored.stored} handles stored`);
      const page = `${server.base}/cards.html?ns=cards-${n}&n=${n}&wait=${WAIT_MS}`;
      const measured = [];
      for (let run = 0; run < runs; run += 1) {
        await sleep(pollMs + 200); // every handle due again
        const list = await visit(context, `${page}&list=1`);
        if (list.drawnMs === null || list.freshMs === null) throw new Error(`n=${n}: the visible cards were not drawn within ${WAIT_MS} ms`);
        if (list.listed !== n) throw new Error(`n=${n}: the list has ${list.listed} items, not ${n}`);
        await sleep(pollMs + 200);
        const bare = await visit(context, `${page}&list=0`);
        log(`n=${n} run ${run + 1}: ${list.visible} visible, ${list.built} cards made; drawn ${list.drawnMs.toFixed(1)} ms, fresh ${list.freshMs.toFixed(1)} ms; without the list: first paint ${bare.paintMs.toFixed(1)} ms`);
        measured.push({ drawnMs: list.drawnMs, freshMs: list.freshMs, visible: list.visible, built: list.built, paintMs: bare.paintMs });
      }
      results.push({ n, runs: measured });
    } finally {
      await context.close().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    }
  }
} finally {
  await server.stop();
}
console.log(JSON.stringify({ chromium: version, pollMs, results }));
