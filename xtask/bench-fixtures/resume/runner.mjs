#!/usr/bin/env node
// The resume figure's driver (run by `cargo xtask bench resume`; the Rust side bundles official.js and
// copies the pages into WWW first):
//
//   node xtask/bench-fixtures/resume/runner.mjs --www WWW --pkg PKG [--counts 1,100,1000] [--runs 5]
//        [--poll-ms 2000] [--subjects ours,official] [--listen]
//
// One reference server (memory store, --quiet) serves WWW at / and PKG at /pkg/. For each subject and
// each count N: a fresh persistent Chromium profile (playwright-core, /usr/bin/chromium, headless, the
// e2e rig's flags); one page stores N live handles (setup), then each run opens a fresh page in the same
// profile, which times TaskClient.open() / connect() → the first tasks/get (see probe.js). Between runs
// the runner waits one poll interval, so every stored handle is due again when the next page opens.
// Prints one JSON object on stdout: `{ chromium, pollMs, results: [{ subject, n, setupMs, runs: [...] }] }`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer } from "../../../tests/support/server.mjs";

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
  },
});
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--no-first-run"];
const counts = values.counts.split(",").map(Number);
const runs = Number(values.runs);
const pollMs = Number(values["poll-ms"]);
const subjects = values.subjects.split(",");
const PAGE = { ours: "ours.html", official: "official.html" };

requireFiles([SERVER_BUILT, ["package (cargo xtask build)", join(values.pkg, "mcp_tasks_web.js")], ["chromium", CHROMIUM], ["bundled official.js", join(values.www, "official.js")]]);
const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));

const log = (text) => console.error(`resume: ${text}`);

/** Opens `url` in a new page of `context`, waits for `window.bench.done`, closes the page. */
async function visit(context, url, timeout) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.stack ?? e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.bench?.done, null, { timeout, polling: 50 });
    const bench = await page.evaluate(() => window.bench);
    if (bench.error) throw new Error(`${url}: ${bench.error}${errors.length ? `\n${errors.join("\n")}` : ""}`);
    return { ...bench, errors };
  } finally {
    await page.close();
  }
}

const server = await startServer({ www: values.www, pkg: values.pkg, pollMs, quiet: true });
const results = [];
let version = null;
try {
  for (const subject of subjects) {
    for (const n of counts) {
      const dir = await mkdtemp(join(tmpdir(), `mcp-tasks-bench-resume-${subject}-${n}-`));
      const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: ARGS });
      version ??= context.browser()?.version() ?? null;
      try {
        const ns = `bench-${n}`;
        const base = `${server.base}/${PAGE[subject]}?ns=${ns}`;
        const started = Date.now();
        const setup = await visit(context, `${base}&mode=setup&n=${n}`, 180_000);
        const setupMs = Date.now() - started;
        log(`${subject} n=${n}: ${setup.stored} handles stored in ${setupMs} ms`);
        const measured = [];
        for (let run = 0; run < runs; run += 1) {
          await sleep(pollMs + 200); // every handle due again
          const r = await visit(context, `${base}&mode=measure${values.listen ? "&listen=1" : ""}`, 60_000);
          if (r.restored !== n) throw new Error(`${subject} n=${n}: the page restored ${r.restored} handles, not ${n}`);
          if (r.firstGetMs === null) throw new Error(`${subject} n=${n}: no tasks/get within the page's wait`);
          if (!r.firstGetRestored) throw new Error(`${subject} n=${n}: the first tasks/get (${r.firstGetTaskId}) is not of a stored handle`);
          log(`${subject} n=${n} run ${run + 1}: open → first tasks/get ${r.firstGetMs.toFixed(1)} ms, all ${n} polled ${r.allGetMs === null ? "—" : `${r.allGetMs.toFixed(1)} ms`}, open/connect resolved ${r.openMs.toFixed(1)} ms`);
          measured.push({ firstGetMs: r.firstGetMs, allGetMs: r.allGetMs, openMs: r.openMs, polled: r.polled, counts: r.counts, faked: r.faked, errors: r.errors.length });
        }
        results.push({ subject, n, setupMs, runs: measured });
      } finally {
        await context.close().catch(() => {});
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await server.stop();
}
console.log(JSON.stringify({ chromium: version, pollMs, listen: values.listen, results }));
