// A task's MCP App in <mcp-task app-sandbox> (mcp-tasks-web/app), in Chromium, with two loopback
// origins: the host page (tests/e2e/pages/app.html) on the reference server's 127.0.0.1 origin, under
// its strict CSP (with `frame-src` for loopback frames), and pkg/sandbox.html served by this file from
// `localhost` on another port with the headers docs/element.md lists. The server runs with `--auth`, so
// only requests that carry the host's `Authorization` header (TaskClient's `headers`) are answered.
//
// (a) the `report` task's app is shown with the task's result, in frames whose origins differ from the
//     host's; (b) after a reload it is shown again with the same result, and the server saw no new
//     tools/call; (c) the app's own call (`echo`) reaches the server with the host's headers.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PKG, POLL_MS, VERBOSE, launchBrowser, watchPage, assertNoErrorsIn } from "./rig.mjs";
import { ROOT, startServer } from "../support/server.mjs";

const TOKEN = "e2e-app-host-token";
const PAGES = join(ROOT, "tests/e2e/pages");

let server;
let sandbox;
let sandboxUrl;
let browser;

/**
 * Serves pkg/sandbox.html and pkg/sandbox.js on `localhost` (another origin than the host page's
 * 127.0.0.1), with the headers docs/element.md asks of a host: a CSP that bounds every app and lets
 * only the host page frame it.
 */
function serveSandbox(hostOrigin) {
  const csp = [
    "default-src 'none'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "media-src 'self' data:",
    "font-src 'self'",
    `frame-ancestors ${hostOrigin}`,
  ].join("; ");
  const types = { "sandbox.html": "text/html; charset=utf-8", "sandbox.js": "text/javascript; charset=utf-8" };
  const http = createServer(async (request, response) => {
    const name = new URL(request.url, "http://localhost").pathname.slice(1);
    if (!(name in types)) return void response.writeHead(404).end();
    response.writeHead(200, {
      "content-type": types[name],
      "content-security-policy": csp,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    });
    response.end(await readFile(join(PKG, name)));
  });
  return new Promise((resolve) => http.listen(0, "localhost", () => resolve(http)));
}

before(async () => {
  server = await startServer({ www: PAGES, pkg: PKG, pollMs: POLL_MS, args: ["--auth", TOKEN], verbose: VERBOSE });
  sandbox = await serveSandbox(server.base);
  sandboxUrl = `http://localhost:${sandbox.address().port}/sandbox.html`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close().catch(() => {});
  await new Promise((resolve) => (sandbox ? sandbox.close(resolve) : resolve()));
  await server?.stop();
});

/** The inner frame (the app's document) of the card's sandbox, once the app drew the task's result. */
async function appFrame(page) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const outer = page.frames().find((f) => f.url().startsWith(sandboxUrl));
    const inner = outer?.childFrames()[0];
    if (inner && (await inner.evaluate(() => document.body?.dataset.result === "shown").catch(() => false))) {
      return { outer, inner };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("no MCP App showed the task's result within 15 s");
}

test("a task's MCP App is shown with its result from another origin, again after a reload with no new tools/call, and its calls carry the host's headers", async () => {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const errors = [];
  const requests = [];
  context.on("page", (p) => watchPage(p, { errors, requests }));
  const page = await context.newPage();
  const csp = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  const query = new URLSearchParams({ ns: `app-${Date.now() % 1_000_000}`, token: TOKEN, sandbox: sandboxUrl });
  const hostUrl = `${server.base}/app.html?${query}`;
  try {
    await page.goto(hostUrl);
    await page.waitForFunction(() => window.__host?.ready || window.__host?.error);
    assert.equal(await page.evaluate(() => window.__host.error), null, "the host page opened its client");
    const taskId = await page.evaluate(() => window.__host.start("report", { seconds: 0.3, title: "Quarterly report" }));

    // (a) The app, in the sandbox's frames, shows the task's result.
    const { outer, inner } = await appFrame(page);
    const hostOrigin = await page.evaluate(() => location.origin);
    assert.equal(await outer.evaluate(() => location.origin), new URL(sandboxUrl).origin, "the sandbox runs on its own origin");
    assert.notEqual(new URL(sandboxUrl).origin, hostOrigin);
    assert.equal(await inner.evaluate(() => origin), "null", "the app's document has an opaque origin (no allow-same-origin)");
    assert.equal(await inner.evaluate(() => document.getElementById("title").textContent), "Quarterly report");
    assert.equal(await inner.evaluate(() => document.getElementById("state").textContent), "Quarterly report: 3 tasks done, 1 open");
    const calls = server.lines("tools/call", "report").length;
    assert.equal(calls, 1, "one tools/call of report");

    // (b) After a reload: the app is shown again with the same result, from the store; no tools/call.
    await page.reload();
    await page.waitForFunction(() => window.__host?.ready || window.__host?.error);
    const again = await appFrame(page);
    assert.equal(await again.inner.evaluate(() => document.getElementById("state").textContent), "Quarterly report: 3 tasks done, 1 open");
    assert.equal(server.lines("tools/call").length, calls, "the reload sent no tools/call");
    assert.equal(requests.filter((r) => r.method === "tools/call").length, calls, "nor did the page try one");
    assert.ok(await page.locator(`mcp-task[data-task="${taskId}"] [part~="result"] details`).count(), "the plain result stays below the app");

    // (c) The app's call back goes through the same client: the server, which answers only the host's
    // token, answers it, and the app shows the answer.
    await again.inner.locator("#echo").click();
    await again.inner.locator("#echoed").filter({ hasText: "from the report app" }).waitFor();
    const echoes = server.lines("tools/call", "echo");
    assert.equal(echoes.length, 1, "the app's tools/call reached the server");
    assert.equal(echoes[0].status, 200, "with the host's Authorization header (the server answers only that token)");
    assert.deepEqual(server.log.filter((l) => l.status === 401), [], "no request went without the host's headers");

    // Closing the card closes its app.
    await page.evaluate((id) => document.querySelector(`mcp-task[data-task="${id}"]`).remove(), taskId);
    for (let i = 0; i < 40 && page.frames().some((f) => f.url().startsWith(sandboxUrl)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(page.frames().filter((f) => f.url().startsWith(sandboxUrl)).length, 0, "the app's frame went with the card");

    assertNoErrorsIn({ errors, pages: context.pages(), labelled: false, where: "the app host page" });
    assert.deepEqual(csp, [], "no CSP violation");
  } catch (error) {
    error.message += `\n--- server log ---\n${server.log.map((l) => l.text).join("\n")}\n${server.other.join("\n")}\n--- page errors ---\n${errors.join("\n")}`;
    throw error;
  } finally {
    await context.close().catch(() => {});
  }
});

test("a card without app-sandbox never loads the app module", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const loaded = [];
  page.on("request", (r) => loaded.push(new URL(r.url()).pathname));
  try {
    const query = new URLSearchParams({ ns: `plain-${Date.now() % 1_000_000}`, token: TOKEN });
    await page.goto(`${server.base}/app.html?${query}`);
    await page.waitForFunction(() => window.__host?.ready || window.__host?.error);
    const taskId = await page.evaluate(() => window.__host.start("report", { seconds: 0.1 }));
    await page.locator(`mcp-task[data-task="${taskId}"] [part~="card"][data-status="completed"]`).waitFor({ state: "attached" });
    assert.ok(loaded.includes("/pkg/element.js"), "the page loaded the element");
    assert.ok(!loaded.includes("/pkg/app.js"), `app.js stays out of the base download: ${loaded.join(" ")}`);
  } finally {
    await context.close().catch(() => {});
  }
});
