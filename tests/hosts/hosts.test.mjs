// The host apps (tests/hosts/*/): each installs target/pack/mcp-tasks-web.tgz (cargo xtask pack) from its
// own lockfile with `npm ci`, builds with its tool's defaults, and is served on loopback by a small static
// server here, beside a reference server on another port: the page reaches /mcp cross-origin, through the
// server's CORS for loopback origins. Chromium then uses each app like a person: start `deploy`, see the
// <mcp-task> card ask for approval, reload with the form shown, answer, reload while it works, see it
// complete. The apps host (tests/hosts/apps-host) instead runs `report` and draws its MCP App itself with
// the official SDK, through the package's sandbox.html on a second loopback origin. Each app's production
// bundle (the JS and .wasm the page loaded) is printed, raw and gzip -9.
//
// Needs the tarball, the server binary ($MCP_TASKS_SERVER or target/debug) and /usr/bin/chromium; the
// installs reach the npm registry, everything else stays on 127.0.0.1.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, sep } from "node:path";
import { after, before, test } from "node:test";
import { createInterface } from "node:readline";
import { gzipSync } from "node:zlib";
import { ROOT, SERVER_BUILT, requireFiles, startServer } from "../support/server.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/chromium.mjs";

const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));

const TARBALL = join(ROOT, "target/pack/mcp-tasks-web.tgz");
const DEPLOY = "Deploy api to staging";

requireFiles([["package tarball (cargo xtask pack)", TARBALL], SERVER_BUILT, ["chromium", CHROMIUM]]);

/**
 * The apps: `build` is the npm script to run (none: the page uses the unpacked files as they are),
 * `serve` maps URL path prefixes to what the app serves (a folder, or one file for an exact path).
 */
const APPS = [
  { name: "vite-react", build: "build", serve: { "/": "dist/" }, react: true },
  { name: "webpack", build: "build", serve: { "/index.html": "index.html", "/dist/": "dist/" } },
  {
    name: "importmap",
    serve: { "/index.html": "index.html", "/main.js": "main.js", "/node_modules/mcp-tasks-web/": "node_modules/mcp-tasks-web/" },
  },
];

/**
 * Watches `page`: its console errors and uncaught errors (`errors`), and the JS and .wasm it loaded from
 * `origin` (`loaded`, each `{ path, status, body }`).
 */
function watchPage(page, origin) {
  const errors = [];
  const loaded = [];
  // The browser asks for /favicon.ico on its own; these apps have none, and that is not their error.
  page.on("console", (m) => {
    const where = m.location()?.url ?? "";
    if (m.type() === "error" && new URL(where || "about:blank").pathname !== "/favicon.ico") errors.push(`console.error: ${m.text()} (${where})`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e?.stack ?? e}`));
  page.on("response", async (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin || !/\.(m?js|wasm)$/.test(url.pathname)) return;
    loaded.push({ path: url.pathname, status: r.status(), body: await r.body().catch(() => Buffer.alloc(0)) });
  });
  return { errors, loaded };
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves `serve` (see APPS) from `dir` on a free loopback port, with `headers` on every file; resolves with `{ origin, close }`. */
async function serveApp(dir, serve, headers = {}) {
  const server = createServer(async (request, response) => {
    try {
      const path = decodeURIComponent(new URL(request.url, "http://x").pathname);
      const wanted = path === "/" ? "/index.html" : path;
      const prefix = Object.keys(serve).filter((p) => (p.endsWith("/") ? wanted.startsWith(p) : wanted === p)).sort((a, b) => b.length - a.length)[0];
      if (prefix === undefined) throw new Error("not served");
      const base = join(dir, serve[prefix]); // a folder ends with "/", and keeps it
      const target = prefix.endsWith("/") ? join(base, wanted.slice(prefix.length)) : base;
      if (!target.startsWith(base)) throw new Error("outside what the app serves");
      const body = await readFile(target);
      response.writeHead(200, { "content-type": TYPES[extname(target)] ?? "application/octet-stream", "cache-control": "no-store", ...headers });
      response.end(body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `npm <args>` in `dir`, its output shown; throws on a non-zero exit. */
function npm(dir, args) {
  console.log(`$ npm ${args.join(" ")} (in tests/hosts/${dir.split(sep).pop()})`);
  execFileSync("npm", args, { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
}

let reference;
let browser;
const sizes = [];

before(async () => {
  reference = await startServer({ pollMs: 200 });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await reference?.stop();
  if (sizes.length) {
    console.log("\nhost app production bundles (JS + .wasm the page loaded):");
    console.log("app          JS raw B  JS gzip B  wasm raw B  wasm gzip B  total raw B  total gzip B");
    for (const s of sizes) {
      const row = [s.js.raw, s.js.gzip, s.wasm.raw, s.wasm.gzip, s.js.raw + s.wasm.raw, s.js.gzip + s.wasm.gzip];
      console.log(s.name.padEnd(12) + row.map((n, i) => String(n).padStart([9, 11, 12, 13, 13, 14][i])).join(""));
    }
  }
});

/** The status of the card showing `taskId` (`undefined` while there is none). */
const cardStatus = (page, taskId) =>
  page.evaluate((id) => [...document.querySelectorAll("mcp-task")].find((el) => el.taskId === id)?.snapshot?.status, taskId);

/** Waits until the card of `taskId` shows `status`. */
async function untilStatus(page, taskId, status, timeout = 15_000) {
  try {
    await page.waitForFunction(
      ([id, want]) => [...document.querySelectorAll("mcp-task")].find((el) => el.taskId === id)?.snapshot?.status === want,
      [taskId, status],
      { timeout, polling: 50 },
    );
  } catch (e) {
    throw new Error(`the card of ${taskId} did not reach ${status} (it shows ${await cardStatus(page, taskId)}): ${e.message}`);
  }
}

/** `npm ci` in `dir`, then checks that what it installed is the tarball, unpacked (not a link to pkg/). */
async function installTarball(dir) {
  npm(dir, ["ci", "--prefer-offline", "--no-audit", "--no-fund"]); // the npm cache first: fewer registry round trips
  const lock = JSON.parse(await readFile(join(dir, "package-lock.json"), "utf8"));
  assert.equal(lock.packages["node_modules/mcp-tasks-web"]?.resolved, "file:../../../target/pack/mcp-tasks-web.tgz", "the lockfile names the tarball");
  const installed = join(dir, "node_modules/mcp-tasks-web");
  assert.ok(!(await lstat(installed)).isSymbolicLink(), "the package is unpacked, not linked");
  const packedWasm = execFileSync("tar", ["-xOzf", TARBALL, "package/mcp_tasks_web_bg.wasm"], { maxBuffer: 64 << 20 });
  assert.ok(packedWasm.equals(await readFile(join(installed, "mcp_tasks_web_bg.wasm"))), "the installed .wasm is the tarball's");
}

/**
 * Uses the app at `origin` in a fresh browser context like a person would (see the top of the file);
 * with `measure`, records the JS and .wasm its first load fetched in `sizes`; with `react`, checks the
 * page title that its `onmcp-task-settled` prop sets.
 */
async function drive(name, origin, { measure = false, react = false } = {}) {
  const context = await browser.newContext();
  try {
    // Every status a card told, per page load: what a reloaded page showed first is its restored task.
    await context.addInitScript(() => {
      window.__statuses = [];
      document.addEventListener("mcp-task-change", (e) => window.__statuses.push(e.detail?.status), true);
    });
    const statuses = () => page.evaluate(() => window.__statuses);
    const page = await context.newPage();
    const { errors, loaded } = watchPage(page, origin);
    await page.goto(`${origin}/index.html?mcp=${encodeURIComponent(reference.url)}`);
    await page.getByRole("button", { name: DEPLOY }).click({ timeout: 20_000 }); // enabled once the client opened
    await page.locator("mcp-task").first().waitFor({ timeout: 10_000 });
    const taskId = await page.evaluate(() => document.querySelector("mcp-task").taskId);
    assert.match(taskId ?? "", /\S/, "the card names the task the tool call started");
    await untilStatus(page, taskId, "input_required");
    await page.locator("mcp-task form[data-key='approval-1']").waitFor({ timeout: 5_000 });

    // The .wasm came from the app's own origin, where its bundler (or npm) put it: no host configuration.
    const wasm = loaded.filter((l) => l.path.endsWith(".wasm"));
    assert.equal(wasm.length, 1, `one .wasm loaded from the app: ${loaded.map((l) => l.path).join(", ")}`);
    assert.equal(wasm[0].status, 200);
    assert.deepEqual([...wasm[0].body.subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d], "the .wasm is a WebAssembly module");
    if (measure) {
      const js = loaded.filter((l) => !l.path.endsWith(".wasm"));
      const total = (list) => ({ raw: list.reduce((n, l) => n + l.body.length, 0), gzip: list.reduce((n, l) => n + gzipSync(l.body, { level: 9 }).length, 0) });
      sizes.push({ name, js: total(js), wasm: total(wasm) });
    }

    // Reload while the server waits for the answer: the card comes back from the store, form and all.
    await page.reload();
    await untilStatus(page, taskId, "input_required");
    assert.equal((await statuses())[0], "input_required", "the reloaded page's card came back asking");
    await page.locator("mcp-task input[name='confirm']").check({ timeout: 10_000 });
    await page.locator("mcp-task button[data-action='accept']").click();
    await untilStatus(page, taskId, "working");

    // Reload while it deploys (1.5 s on the server), then see it complete.
    assert.equal(await cardStatus(page, taskId), "working", "reloading mid-task");
    await page.reload();
    await untilStatus(page, taskId, "completed");
    const after = await statuses();
    assert.equal(after[0], "working", `the reloaded page's card came back working, then completed: ${after.join(" → ")}`);
    const result = page.locator("mcp-task [part~='result']");
    await result.filter({ hasText: "Deployed api to staging with 2 replicas using rolling." }).waitFor({ timeout: 5_000 });
    assert.equal(await page.locator("mcp-task").count(), 1, "one card: the restored task, not a copy");
    if (react) {
      // React 19 passed onmcp-task-settled to the element as a listener for "mcp-task-settled".
      await page.waitForFunction(() => document.title === "deploy: completed", null, { timeout: 5_000 });
    }
    assert.equal(reference.lines("tasks/update", taskId).length, 1, "the answer reached the server once");
    assert.deepEqual(errors, [], `no console or page errors in ${name}`);
  } finally {
    await context.close();
  }
}

for (const app of APPS) {
  test(`${app.name}: installs the tarball, builds, and drives a task to completion across reloads`, { timeout: 300_000 }, async () => {
    const dir = join(ROOT, "tests/hosts", app.name);
    await installTarball(dir);
    if (app.build) npm(dir, ["run", app.build]);
    const site = await serveApp(dir, app.serve);
    try {
      await drive(app.name, site.origin, { measure: true, react: app.react });
    } finally {
      await site.close();
    }
  });
}

/** The app frame (the inner frame of the sandbox at `sandbox`) once the report app drew a result. */
async function appFrame(page, sandbox) {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const outer = page.frames().find((f) => f.url() === sandbox);
    const inner = outer?.childFrames()[0];
    if (inner && (await inner.evaluate(() => document.body?.dataset.result === "shown").catch(() => false))) return { outer, inner };
  }
  throw new Error(`no MCP App from ${sandbox} showed a result within 15 s`);
}

// A host that draws the app itself (tests/hosts/apps-host): the report task's card has no app-sandbox;
// the page feeds the app to the official AppBridge, through the package's sandbox.html served from a
// second loopback origin with the headers docs/element.md asks for.
test("apps-host: draws the report task's MCP App itself with the official SDK, again after a reload with no new tools/call", { timeout: 300_000 }, async () => {
  const dir = join(ROOT, "tests/hosts/apps-host");
  await installTarball(dir);
  npm(dir, ["run", "build"]);
  const site = await serveApp(dir, { "/": "dist/" });
  const csp = `default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; font-src 'self'; frame-ancestors ${site.origin}`;
  const sandboxSite = await serveApp(
    dir,
    { "/sandbox.html": "node_modules/mcp-tasks-web/sandbox.html", "/sandbox.js": "node_modules/mcp-tasks-web/sandbox.js" },
    { "content-security-policy": csp, "x-content-type-options": "nosniff" },
  );
  const sandbox = `${sandboxSite.origin}/sandbox.html`;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const { errors, loaded } = watchPage(page, site.origin);
    const calls = () => reference.lines("tools/call", "report").length;
    const before = calls();
    await page.goto(`${site.origin}/index.html?${new URLSearchParams({ mcp: reference.url, sandbox })}`);
    await page.getByRole("button", { name: "Write the release report" }).click({ timeout: 20_000 });
    await page.locator("mcp-task").first().waitFor({ timeout: 10_000 });
    const taskId = await page.evaluate(() => document.querySelector("mcp-task").taskId);
    await untilStatus(page, taskId, "completed");

    // The app, drawn by the page in the sandbox's frames, shows the task's result.
    const { outer, inner } = await appFrame(page, sandbox);
    assert.equal(await inner.evaluate(() => document.getElementById("title").textContent), "Release report");
    assert.equal(await inner.evaluate(() => document.getElementById("state").textContent), "Release report: 3 tasks done, 1 open");
    assert.equal(await outer.evaluate(() => location.origin), sandboxSite.origin, "the sandbox runs on its own origin");
    assert.notEqual(sandboxSite.origin, site.origin);
    assert.equal(await inner.evaluate(() => origin), "null", "the app's document has an opaque origin");
    assert.equal(await page.locator("mcp-task iframe").count(), 0, "the card drew no app: the page did");
    assert.equal(calls(), before + 1, "one tools/call of report");
    const js = loaded.filter((l) => !l.path.endsWith(".wasm"));
    const wasm = loaded.filter((l) => l.path.endsWith(".wasm"));
    const total = (list) => ({ raw: list.reduce((n, l) => n + l.body.length, 0), gzip: list.reduce((n, l) => n + gzipSync(l.body, { level: 9 }).length, 0) });
    sizes.push({ name: "apps-host", js: total(js), wasm: total(wasm) });

    // After a reload the task comes back from the store, and the app is drawn again from its snapshot.
    await page.reload();
    const again = await appFrame(page, sandbox);
    assert.equal(await again.inner.evaluate(() => document.getElementById("state").textContent), "Release report: 3 tasks done, 1 open");
    assert.equal(await page.evaluate(() => document.querySelector("mcp-task").snapshot.restored), true, "drawn from the restored task");
    assert.equal(calls(), before + 1, "the reload sent no tools/call");
    assert.equal(await page.locator("iframe").count(), 1, "one app: the restored task's, not a copy");
    assert.deepEqual(errors, [], "no console or page errors in apps-host");
  } finally {
    await context.close();
    await site.close();
    await sandboxSite.close();
  }
});

// The README's Quick start runs the Vite + React app with `npm run dev`: Vite's dev server pre-bundles
// dependencies into node_modules/.vite/deps/, so the glue's relative .wasm URL must survive that too.
test("vite-react: the same under the Vite dev server (the README's Quick start)", { timeout: 120_000 }, async () => {
  const dir = join(ROOT, "tests/hosts/vite-react");
  if (!existsSync(join(dir, "node_modules/.bin/vite"))) await installTarball(dir);
  const port = await freePort();
  const vite = spawn(join(dir, "node_modules/.bin/vite"), ["--host", "127.0.0.1", "--port", String(port), "--strictPort"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => vite.once("exit", resolve));
  try {
    createInterface({ input: vite.stdout }).on("line", (line) => console.log(`[vite] ${line}`));
    await Promise.race([untilAnswers(`http://127.0.0.1:${port}/`), exited.then((code) => { throw new Error(`vite exited with ${code}`); })]);
    await drive("vite-react (dev)", `http://127.0.0.1:${port}`, { react: true });
  } finally {
    vite.kill("SIGTERM"); // the dev server this test started, by its PID
    await exited;
  }
});

/** Resolves once `url` answers at all (20 s at most). */
async function untilAnswers(url) {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    if (await fetch(url).then(() => true, () => false)) return;
  }
  throw new Error(`${url} did not answer within 20 s`);
}

/** A loopback port nothing listens on right now. */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

// TypeScript resolves "." by the same conditions a runtime or bundler does: each must land on the
// types of its own entry file (node.mjs, deno.mjs, workerd.mjs, or the client build's glue); the element's
// subpath to the types of the build with the element.
test("typescript: every exports condition resolves to its own types", { timeout: 120_000 }, async () => {
  const dir = join(ROOT, "tests/hosts/typescript");
  await installTarball(dir);
  const bundler = ["--module", "esnext", "--moduleResolution", "bundler"];
  const cases = [
    { name: "browser (bundler)", args: bundler, entry: "client.d.ts" },
    { name: "Node (nodenext)", args: ["--module", "nodenext", "--moduleResolution", "nodenext"], entry: "node.d.ts" },
    { name: "node", args: [...bundler, "--customConditions", "node"], entry: "node.d.ts" },
    { name: "deno", args: [...bundler, "--customConditions", "deno"], entry: "deno.d.ts" },
    { name: "workerd", args: [...bundler, "--customConditions", "workerd"], entry: "workerd.d.ts" },
  ];
  const entries = ["node.d.ts", "deno.d.ts", "workerd.d.ts"];
  for (const c of cases) {
    let out;
    try {
      out = execFileSync(join(dir, "node_modules/.bin/tsc"), [...c.args, "--noEmit", "--strict", "--target", "es2022", "--lib", "esnext,dom", "--listFiles", "probe.ts"], { cwd: dir, encoding: "utf8" });
    } catch (e) {
      throw new Error(`${c.name}: probe.ts does not type-check:\n${e.stdout}${e.stderr}`);
    }
    const files = out.split("\n").filter((line) => line.includes("/node_modules/mcp-tasks-web/")).map((line) => line.split("/").pop());
    for (const types of ["client.d.ts", "mcp_tasks_web.d.ts", "element.d.ts", "stores.d.ts", "mcp_tasks_web_bg.wasm.d.ts", "client_bg.wasm.d.ts"]) {
      assert.ok(files.includes(types), `${c.name}: ${types} is among ${files.join(", ")}`);
    }
    assert.deepEqual(files.filter((f) => entries.includes(f)), entries.includes(c.entry) ? [c.entry] : [], `${c.name}: "." resolves to ${c.entry}`);
  }
});

test("the README's Quick start is the Vite + React host's src/main.tsx, verbatim", async () => {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const main = await readFile(join(ROOT, "tests/hosts/vite-react/src/main.tsx"), "utf8");
  assert.ok(readme.includes("```tsx\n" + main + "```\n"), "README.md has tests/hosts/vite-react/src/main.tsx as a ```tsx block; copy it again");
});
