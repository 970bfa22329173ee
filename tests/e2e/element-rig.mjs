// What the <mcp-task> element tests (element.test.mjs, element-a11y.test.mjs) share, on top of rig.mjs:
// one reference server and one headless Chromium per test file, and per test a fresh browser context
// (its own IndexedDB) on the host page tests/e2e/pages/element.html, with its console errors, uncaught
// errors and CSP violations collected and asserted empty at the end. Not a test file itself.
//
// Locators: Playwright's CSS and role locators pierce open shadow roots, so
// `page.locator('mcp-task [part~="status"]')` finds the status inside the element's shadow root.
import assert from "node:assert/strict";
import AxeBuilder from "@axe-core/playwright";
import {
  VERBOSE, startServer, launchBrowser, watchPage, elementHostReady, assertNoErrorsIn, sleep,
} from "./rig.mjs";

/** The reference server and the browser of one test file. */
export async function elementSuite() {
  const server = await startServer();
  const browser = await launchBrowser();
  return {
    server,
    browser,
    async close() {
      await browser.close().catch(() => {});
      await server.stop();
    },
  };
}

let sessions = 0;

/**
 * Runs `body(s)` in a fresh context of `suite.browser` (`contextOptions` passed to `newContext`), and
 * always closes it. Afterwards asserts that no page logged a console error or threw, and that no CSP
 * violation was reported. On failure the server log lines of this test are appended to the message.
 */
export async function withSession(suite, name, contextOptions, body) {
  const { server, browser } = suite;
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, ...contextOptions });
  context.setDefaultTimeout(10_000);
  const errors = [];
  const requests = [];
  const csp = [];
  // element.js reports every securitypolicyviolation here too (window.__csp is lost on reload).
  await context.exposeBinding("__reportCsp", (_source, violation) => {
    csp.push(violation);
  });
  context.on("page", (p) => watchPage(p, { errors, requests }));
  const page = await context.newPage();
  const ns = `${name}-${++sessions}-${Date.now() % 1_000_000}`;
  const logFrom = server.log.length;
  const s = {
    server,
    context,
    page,
    errors,
    requests,
    csp,
    ns,
    /** Opens element.html on this session's namespace with more query `params`; the page response. */
    async open(params = {}) {
      const query = new URLSearchParams({ ns, ...params });
      const response = await page.goto(`${server.base}/element.html?${query}`);
      await elementHostReady(page);
      return response;
    },
    async reload() {
      await page.reload();
      await elementHostReady(page);
    },
    /** `callTool(tool, args)` through the page; a task is mounted as <mcp-task>; its id. */
    async start(tool, args = {}) {
      const out = await page.evaluate(([t, a]) => window.__host.start(t, a), [tool, args]);
      assert.equal(out.kind, "task", `${tool} started a task`);
      return out.taskId;
    },
    /** The host page's <mcp-task> for `id`. */
    task: (id) => page.locator(`#tasks mcp-task[data-task="${id}"]`),
    /** Its form for the input request `key`. */
    form: (id, key) => page.locator(`#tasks mcp-task[data-task="${id}"] form[data-key="${key}"]`),
    /** Its form field for `property`. */
    field: (id, property) => page.locator(`#tasks mcp-task[data-task="${id}"] [part~="field"][data-field="${property}"]`),
    /** A button of its shadow root by `data-action`. */
    button: (id, action) => page.locator(`#tasks mcp-task[data-task="${id}"] button[data-action="${action}"]`),
    /** Waits until its card shows `status` (`data-status` on `part="card"`). */
    async status(id, status, timeout = 10_000) {
      await page.locator(`#tasks mcp-task[data-task="${id}"] [part~="card"][data-status="${status}"]`).waitFor({ state: "attached", timeout });
    },
    /** The client's snapshot of `id` (null when unknown). */
    snapshot: (id) => page.evaluate((taskId) => window.__client.tasks().find((t) => t.taskId === taskId) ?? null, id),
    /** The recorded element events of `type` for `id` (this page load only). */
    events: (id, type) => page.evaluate(([taskId, t]) => window.__events.filter((e) => e.taskId === taskId && (!t || e.type === t)), [id, type]),
    /** Waits for the `mcp-task-settled` event of `id`; its detail (the terminal snapshot). */
    async settled(id, timeout = 10_000) {
      const handle = await page.waitForFunction(
        (taskId) => window.__events.find((e) => e.type === "mcp-task-settled" && e.taskId === taskId)?.detail ?? false,
        id,
        { timeout, polling: 50 },
      );
      return handle.jsonValue();
    },
    /** The server's log lines of the `tasks/update`s for `id`. */
    updates: (id) => server.lines("tasks/update", id),
    /** The /mcp requests this session's pages sent with `method` (for `taskId`). */
    sent: (method, taskId) => requests.filter((r) => r.method === method && (taskId === undefined || r.taskId === taskId)),
  };
  try {
    await body(s);
    assertNoErrorsIn({ errors, pages: context.pages(), labelled: false, where: `the ${name} pages` });
    assert.deepEqual(csp, [], `no securitypolicyviolation events:\n${JSON.stringify(csp, null, 1)}`);
  } catch (error) {
    if (!VERBOSE) {
      const lines = server.log.slice(logFrom);
      error.message += `\n--- server log of this test (${lines.length} lines) ---\n${lines.map((l) => `${l.at % 100_000} ${l.text}`).join("\n")}`;
      if (errors.length) error.message += `\n--- page errors ---\n${errors.join("\n")}`;
    }
    throw error;
  } finally {
    await context.close().catch(() => {});
  }
}

/** One axe violation as a readable block: rule, impact, help, and each node's target and summary. */
function describeViolation(v) {
  const nodes = v.nodes.map((n) => `    ${JSON.stringify(n.target)}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}\n      ${n.html}`);
  return `  ${v.id} (${v.impact}): ${v.help}\n${nodes.join("\n")}`;
}

/**
 * Runs axe-core (all default rules, shadow DOM included) on `page`, limited to `include` (a CSS
 * selector in the light DOM) when given; asserts no violations, listing them in the message.
 */
export async function assertAxeClean(page, include, what) {
  let builder = new AxeBuilder({ page });
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  const violations = results.violations;
  assert.equal(violations.length, 0, `axe: ${violations.length} violation(s) in ${what}:\n${violations.map(describeViolation).join("\n")}`);
  return results;
}

/** `await until(fn)` — polls `fn` (async ok) until it returns truthy, or fails after `timeout` ms. */
export async function until(fn, what, timeout = 5000, every = 50) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await sleep(every);
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

export { sleep };
