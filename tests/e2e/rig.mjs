// The rig the end-to-end tests (resume.test.mjs, tabs.test.mjs, and through element-rig.mjs the element tests) share: a reference server with its
// stderr request log captured, persistent Chromium contexts (playwright-core, the system
// /usr/bin/chromium), per-page error and request collection, and helpers that wait on the host page
// (tests/e2e/pages). Not a test file itself: `node --test` and xtask pick `*.test.mjs`.
//
// The server (memory store, --faults, POLL_MS poll interval) serves tests/e2e/pages at / and pkg/ at
// /pkg/. Its stderr request log (`<method> <taskId|tool> <status> <code|ok> <ms>ms`) is captured with
// the time each line arrived, so tests can count what actually reached the server (tests/support/server.mjs).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer as startReferenceServer } from "../support/server.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/chromium.mjs";

const { chromium } = await import(join(ROOT, "node_modules/playwright-core/index.mjs"));

const PAGES = join(ROOT, "tests/e2e/pages");
// MCP_TASKS_PKG_DIR: another build of the package, laid out as pkg/, to serve at /pkg/.
export const PKG = process.env.MCP_TASKS_PKG_DIR || join(ROOT, "pkg");
export const VERBOSE = !!process.env.E2E_VERBOSE;
export const POLL_MS = 200; // the server's --poll-interval-ms

requireFiles([SERVER_BUILT, ["package (cargo xtask build)", join(PKG, "mcp_tasks_web.js")], ["chromium", CHROMIUM]]);

export { sleep };

/**
 * Starts a reference server on a free loopback port serving tests/e2e/pages and pkg/, with --faults;
 * its request log is kept in `log` (`lines(method, name)`, `admin()`, `faults()`, `stop()`).
 */
export function startServer() {
  return startReferenceServer({ www: PAGES, pkg: PKG, pollMs: POLL_MS, faults: true, verbose: VERBOSE });
}

/** A fresh temp dir for a persistent Chromium profile, `mcp-tasks-e2e-<name>-XXXXXX`. */
export const makeProfileDir = (name) => mkdtemp(join(tmpdir(), `mcp-tasks-e2e-${name}-`));
export const removeProfileDir = (dir) => rm(dir, { recursive: true, force: true });

/** Launches headless Chromium with a persistent context (profile) in `dir`. */
export function launchContext(dir) {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1100, height: 560 } });
}

/** The JSON-RPC message a request posts (`{}` if its body is not JSON). */
function rpcOf(request) {
  let rpc = {};
  try { rpc = JSON.parse(request.postData() ?? "{}"); } catch { /* not JSON */ }
  return rpc;
}

/**
 * Collects a page's console errors and uncaught errors in `errors`, and every /mcp POST it sends in
 * `requests` as `{ at, method, taskId, tool, listens, failedAt?, failure?, doneAt? }` (`listens`: the
 * task ids a `subscriptions/listen` covers). With a `label` (one of several tabs), errors are prefixed
 * with it and entries carry `tab: label`.
 */
export function watchPage(page, { errors, requests, label }) {
  const prefix = label === undefined ? "" : `${label} `;
  const source = label === undefined ? "page" : `tab ${label}`;
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`${prefix}console.error: ${message.text()} (${message.location()?.url ?? ""})`);
    if (VERBOSE) console.error(`  [${source} ${message.type()}] ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`${prefix}pageerror: ${error?.stack ?? error}`));
  page.on("request", (request) => {
    if (!request.url().endsWith("/mcp") || request.method() !== "POST") return;
    const rpc = rpcOf(request);
    const listens = rpc.method === "subscriptions/listen" ? (rpc.params?.notifications?.taskIds ?? []) : [];
    const entry = { at: Date.now(), method: rpc.method, taskId: rpc.params?.taskId, tool: rpc.params?.name, listens };
    if (label !== undefined) entry.tab = label;
    requests.push(entry);
    request.__e2e = entry;
    if (label !== undefined && VERBOSE) console.error(`  [tab ${label} ${entry.at % 100_000}] ${entry.method} ${entry.taskId ?? entry.tool ?? entry.listens.join(",")}`);
  });
  page.on("requestfailed", (request) => {
    if (request.__e2e) Object.assign(request.__e2e, { failedAt: Date.now(), failure: request.failure()?.errorText });
  });
  page.on("requestfinished", (request) => {
    if (request.__e2e) request.__e2e.doneAt = Date.now();
  });
}

/**
 * Makes `context` answer `server/discover` and `subscriptions/listen` with -32601, as a server without
 * them would, so its clients poll; every other /mcp request goes through.
 */
export function forcePolling(context) {
  return context.route("**/mcp", async (route) => {
    const request = route.request();
    const rpc = rpcOf(request);
    if (request.method() === "POST" && (rpc.method === "server/discover" || rpc.method === "subscriptions/listen")) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: rpc.id ?? null, error: { code: -32601, message: "Method not found" } });
      return route.fulfill({ status: 200, contentType: "application/json", body });
    }
    return route.continue();
  });
}

/** Waits for `window.host.ready` (or fails with the host's own error). */
export async function hostReady(page) {
  await page.waitForFunction(() => window.host && (window.host.ready || window.host.error), null, { timeout: 10_000 });
  const { error, loadAttempts } = await page.evaluate(() => ({ error: window.host.error, loadAttempts: window.host.loadAttempts }));
  assert.equal(error, null, "the host page opened its TaskClient");
  if (loadAttempts > 1) {
    console.error(`  note: the host needed ${loadAttempts} attempts to import /pkg (rebuilt meanwhile?)`);
    pkgRetried.add(page);
  }
}

/** Pages whose host had to retry its /pkg import (another process was rebuilding pkg/). */
const pkgRetried = new WeakSet();
/** A /pkg file failing to load, as `watchPage` records it without a label, and with one. */
const PKG_LOAD_ERROR = /^console\.error: Failed to load resource: .* \(https?:\/\/127\.0\.0\.1:\d+\/pkg\/[^)]*\)$/;
const LABELLED_PKG_LOAD_ERROR = /^\S+ console\.error: Failed to load resource: .* \(https?:\/\/127\.0\.0\.1:\d+\/pkg\/[^)]*\)$/;

/**
 * Asserts that `errors` (collected by `watchPage` from `pages`, `labelled` or not) is empty, `where`
 * naming the pages in the message.
 */
export function assertNoErrorsIn({ errors: all, pages, labelled, where }) {
  // The only tolerated errors: a /pkg file missing while pkg/ was being rebuilt, when the host retried
  // its import and opened the client anyway (hostReady asserted that).
  const retried = pages.some((p) => pkgRetried.has(p));
  const pkgLoadError = labelled ? LABELLED_PKG_LOAD_ERROR : PKG_LOAD_ERROR;
  const errors = all.filter((e) => !(retried && pkgLoadError.test(e)));
  if (errors.length < all.length) console.error(`  note: ignored ${all.length - errors.length} /pkg load error(s) from a concurrent rebuild`);
  assert.deepEqual(errors, [], `no console errors or uncaught errors in ${where}:\n${errors.join("\n")}`);
}

/**
 * Resolves with the first recorded host event `{kind, at, detail}` whose kind is `match.kind` and whose
 * detail has every other field of `match` (a plain field match: the page's CSP forbids `new Function`).
 */
export async function waitEvent(page, match, timeout = 10_000) {
  const handle = await page.waitForFunction(
    (m) => window.host?.events?.find((e) => e.kind === m.kind && Object.entries(m).every(([k, v]) => k === "kind" || e.detail?.[k] === v)) ?? false,
    match,
    { timeout, polling: 50 },
  );
  return handle.jsonValue();
}

/** `host.wait(id)` with a deadline. */
export function waitDone(page, id, timeout = 10_000) {
  return page.evaluate(
    ([taskId, ms]) => Promise.race([window.host.wait(taskId), new Promise((_, reject) => setTimeout(() => reject(new Error(`task ${taskId} did not settle within ${ms} ms: ${JSON.stringify(window.host.tasks())}`)), ms))]),
    [id, timeout],
  );
}

/** Every event the host page recorded. */
export const events = (page) => page.evaluate(() => window.host.events);

// ---------------------------------------------------------------------------------------------------
// The <mcp-task> element tests (element*.test.mjs): one non-persistent Chromium per test file, a fresh
// context (own IndexedDB) per test, and the host page tests/e2e/pages/element.html (see element.js).

/** The policy the reference server serves pages under (server/src/http/statics.rs). */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; media-src blob:; connect-src 'self' http://127.0.0.1:* http://localhost:*; frame-src http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'";

/** Launches headless Chromium (no profile on disk); contexts come from `browser.newContext()`. */
export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Waits until element.html opened its client (`window.__host.ready`), or fails with its error. */
export async function elementHostReady(page) {
  await page.waitForFunction(() => window.__host && (window.__host.ready || window.__host.error), null, { timeout: 25_000 });
  const { error, loadAttempts } = await page.evaluate(() => ({ error: window.__host.error, loadAttempts: window.__host.loadAttempts }));
  assert.equal(error, null, "the element host page opened its TaskClient");
  if (loadAttempts > 1) {
    console.error(`  note: the element host needed ${loadAttempts} page loads to import /pkg (rebuilt meanwhile?)`);
    pkgRetried.add(page);
  }
}

/**
 * The element that has focus, following `shadowRoot.activeElement` down through open shadow roots,
 * described as plain data: `{ tag, type, name, id, action, part, checked, value, field, formKey, hostChain }`
 * (`field` is the data-field of the form field it is in, `formKey` the data-key of its form,
 * `hostChain` the tags of the shadow hosts passed).
 */
export function deepActive(page) {
  return page.evaluate(() => {
    let el = document.activeElement;
    const hostChain = [];
    while (el && el.shadowRoot && el.shadowRoot.activeElement) {
      hostChain.push(el.localName);
      el = el.shadowRoot.activeElement;
    }
    if (!el) return null;
    return {
      tag: el.localName,
      type: el.getAttribute("type"),
      name: el.getAttribute("name"),
      id: el.id || null,
      action: el.dataset?.action ?? null,
      part: el.getAttribute("part"),
      checked: "checked" in el ? el.checked : null,
      value: "value" in el ? String(el.value) : null,
      field: el.closest?.("[data-field]")?.dataset?.field ?? null,
      formKey: el.closest?.("form")?.dataset?.key ?? null,
      hostChain,
    };
  });
}
