#!/usr/bin/env node
// The decode figure's driver (run by `cargo xtask bench decode`, which first fills WWW with decode.html,
// decode.js, the bundled official.js and inputs.json, and builds our package with the `bench` feature
// into OURS):
//
//   node xtask/bench-fixtures/decode/runner.mjs --www WWW --ours OURS [--batches 21] [--batch-ms 20]
//        [--warmup-ms 300]
//
// Serves WWW at / and OURS at /ours/ from a static server on 127.0.0.1 (an ephemeral port; nothing else is
// contacted), with COOP/COEP headers so the page is cross-origin isolated (finer performance.now()), opens
// decode.html in headless Chromium (playwright-core, /usr/bin/chromium, the e2e rig's flags), waits for
// `window.bench.done`, and prints one JSON object on its last stdout line:
// `{ chromium, batches, batchMs, crossOriginIsolated, results: [{ name, bytes, subjects: { ours, … } }] }`.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CHROMIUM, CHROMIUM_ARGS } from "../../../tests/support/chromium.mjs";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const { values } = parseArgs({
  options: {
    www: { type: "string" },
    ours: { type: "string" },
    batches: { type: "string", default: "21" },
    "batch-ms": { type: "string", default: "20" },
    "warmup-ms": { type: "string", default: "300" },
  },
});
if (!values.www || !values.ours) throw new Error("usage: runner.mjs --www WWW --ours OURS [--batches N] [--batch-ms MS] [--warmup-ms MS]");
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".json": "application/json", ".wasm": "application/wasm" };
const log = (text) => console.error(`decode: ${text}`);

/** The file under `dir` for a URL path, or null if it would leave `dir`. */
function under(dir, path) {
  const file = normalize(join(dir, decodeURIComponent(path)));
  return file.startsWith(normalize(dir) + sep) ? file : null;
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url, "http://127.0.0.1").pathname;
  const file = path.startsWith("/ours/") ? under(values.ours, path.slice("/ours/".length)) : under(values.www, path.slice(1));
  const ok = file !== null && (await stat(file).then((s) => s.isFile(), () => false));
  if (!ok) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
  });
  createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const version = browser.version();
let bench;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.stack ?? e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const query = new URLSearchParams({ batches: values.batches, batchMs: values["batch-ms"], warmupMs: values["warmup-ms"] });
  log(`${base}/decode.html?${query} in Chromium ${version}`);
  await page.goto(`${base}/decode.html?${query}`);
  await page.waitForFunction(() => window.bench?.done, null, { timeout: 600_000, polling: 200 });
  bench = await page.evaluate(() => window.bench);
  if (bench.error) throw new Error(`decode.html: ${bench.error}${errors.length ? `\n${errors.join("\n")}` : ""}`);
  for (const r of bench.results) {
    const cells = Object.entries(r.subjects).map(([s, v]) => `${s} ${v.median.toFixed(2)} µs`);
    log(`${r.name} (${r.bytes} B): ${cells.join(", ")}`);
  }
} finally {
  await browser.close().catch(() => {});
  server.close();
}
console.log(JSON.stringify({ chromium: version, ...bench }));
