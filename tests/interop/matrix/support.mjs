// Shared by the matrix's test files: one `node:test` test per (server, cell), each recorded as a JSON
// line in `$MATRIX_RESULTS` (when set) so xtask counts passes and failures per server exactly, with
// `KNOWN_FAILURES` (servers.mjs) applied. Not a test file itself.
import { after, test } from "node:test";
import { appendFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { KNOWN_FAILURES, ROOT, cellSelected, runsOn, selectedServers } from "./servers.mjs";

export { sleep } from "../../support/server.mjs";

const RESULTS = process.env.MATRIX_RESULTS;
const record = (entry) => {
  if (RESULTS) appendFileSync(RESULTS, `${JSON.stringify(entry)}\n`);
};

/**
 * Registers the test `<server> · <cell>` for every selected server the cell runs on (CELLS' third
 * field, and the server's `only`): `body(server, peer)` gets the servers.mjs entry and the started
 * peer `{ url, stop, lines? }` (started before, stopped after, even on failure), with `args` on its
 * command line when the cell gives some. A cell listed in KNOWN_FAILURES still runs; its failure is
 * reported, not hidden.
 */
export function cells(cell, body, { timeout = 45_000, args } = {}) {
  if (!cellSelected(cell)) return;
  for (const server of selectedServers().filter((s) => runsOn(cell, s.name))) {
    const key = `${server.name}/${cell}`;
    const known = KNOWN_FAILURES[key] ?? null;
    record({ event: "planned", server: server.name, cell });
    test(`${server.name} · ${cell}`, { timeout: timeout + 10_000 }, async () => {
      const started = Date.now();
      let peer = null;
      try {
        peer = await server.start(args);
        let timer;
        await Promise.race([
          body(server, peer),
          new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`cell timed out after ${timeout} ms`)), timeout); }),
        ]).finally(() => clearTimeout(timer));
        record({ event: "result", server: server.name, cell, ok: true, known, ms: Date.now() - started });
        if (known) console.error(`  note: ${key} is in KNOWN_FAILURES but passed; remove it from the list`);
      } catch (error) {
        record({ event: "result", server: server.name, cell, ok: false, known, ms: Date.now() - started, error: String(error?.stack ?? error).slice(0, 4000) });
        if (known) error.message = `[known failure: ${known}] ${error.message}`;
        throw error;
      } finally {
        if (peer) await peer.stop();
      }
    });
  }
}

/**
 * Fills an elicitation form from its `requestedSchema`: booleans true, `reason` and other strings
 * "interop" (or the first of an `enum` / titled `oneOf`, or the `default`), numbers their default or
 * minimum (or 1). Every property, required or not.
 */
export function fillForm(schema) {
  const content = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop.type === "boolean") content[name] = true;
    else if (prop.type === "integer" || prop.type === "number") content[name] = prop.default ?? prop.minimum ?? 1;
    else if (Array.isArray(prop.enum)) content[name] = prop.default ?? prop.enum[0];
    else if (Array.isArray(prop.oneOf)) content[name] = prop.default ?? prop.oneOf[0].const;
    else if (prop.type === "string") content[name] = name === "reason" ? "interop" : (prop.default ?? "interop");
  }
  return content;
}

/** Resolves with the first `task` event of `client` whose snapshot satisfies `match`. */
export function nextTask(client, match, ms = 15_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.removeEventListener("task", listener);
      reject(new Error(`no matching task event within ${ms} ms; tasks: ${JSON.stringify(client.tasks())}`));
    }, ms);
    const listener = (event) => {
      if (match(event.detail)) {
        clearTimeout(timer);
        client.removeEventListener("task", listener);
        resolve(event.detail);
      }
    };
    client.addEventListener("task", listener);
    const now = client.tasks().find((t) => t.taskId && match(t));
    if (now) {
      clearTimeout(timer);
      client.removeEventListener("task", listener);
      resolve(now);
    }
  });
}

/** `promise`, or a rejection naming `what` after `ms`. */
export function within(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })]).finally(() => clearTimeout(timer));
}

const PAGES = join(ROOT, "tests/interop/matrix/pages");
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css" };

/**
 * Serves the matrix's pages/ at / and each of `pkgDirs` at /pkg-<n>/ on a free loopback port; resolves
 * with `{ origin, close() }`.
 */
export async function startStatic(pkgDirs) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const pkg = /^\/pkg-(\d+)\//.exec(path);
    const [base, rest] = pkg && pkgDirs[Number(pkg[1])]
      ? [pkgDirs[Number(pkg[1])], path.slice(pkg[0].length)]
      : [PAGES, path === "/" ? "index.html" : path.slice(1)];
    const file = normalize(join(base, rest));
    if (!file.startsWith(base)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--no-first-run"];

/**
 * Headless Chromium (`$CHROMIUM`, else Debian's) and the static server of `pkgDirs` (startStatic),
 * both closed after the file's tests; `{ browser, statics }`.
 */
export async function startChromium(pkgDirs) {
  const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));
  const statics = await startStatic(pkgDirs);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  after(async () => {
    await browser.close().catch(() => {});
    await statics.close();
  });
  return { browser, statics };
}
