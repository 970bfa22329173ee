// The rig of the engine tests: one engine per run, picked by `ENGINE` (`firefox` or `webkit`), driven over
// plain WebDriver (webdriver.mjs), against the reference server (tests/support/server.mjs) serving the
// same host pages as the Chromium tests (tests/e2e/pages) and pkg/. Not a test file itself.
//
//   firefox  Debian's Firefox ESR (`FIREFOX`, default /usr/bin/firefox-esr), headless, through
//            geckodriver (`GECKODRIVER`, default geckodriver on PATH)
//   webkit   WebKitGTK's MiniBrowser, the browser WebKitWebDriver (`WEBKIT_DRIVER`, default
//            /usr/bin/WebKitWebDriver) starts by default (`MiniBrowser --automation`). It needs an X
//            display: run under `xvfb-run -a`.
//
// `cargo xtask test` runs `node --test tests/engines/` once per engine with these variables set.
// Pages are opened with `?observe=1`, so tests/e2e/pages/observe.js records each /mcp request the page
// sends and every page error (WebDriver classic has neither request events nor, in these drivers, a
// console log); `assertNoPageErrors` asserts the latter empty.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, SERVER_BUILT, requireFiles, sleep, startServer as startReferenceServer } from "../support/server.mjs";
import { newSession, startDriver } from "./webdriver.mjs";

export { sleep };
export const VERBOSE = !!process.env.E2E_VERBOSE;
/** The server's --poll-interval-ms. */
export const POLL_MS = 200;
const PAGES = join(ROOT, "tests/e2e/pages");
const PKG = join(ROOT, "pkg");

/** What each engine needs: its driver, the driver's arguments, and the session's capabilities. */
const ENGINES = {
  firefox: () => {
    const firefox = process.env.FIREFOX || "/usr/bin/firefox-esr";
    requireFiles([["Firefox ESR (Debian firefox-esr)", firefox]]);
    return {
      name: "Firefox ESR",
      driver: process.env.GECKODRIVER || "geckodriver",
      // The privileged (chrome) context, for Firefox's own offline switch (offline.test.mjs).
      driverArgs: ["--allow-system-access"],
      capabilities: {
        browserName: "firefox",
        "moz:firefoxOptions": {
          binary: firefox,
          args: ["-headless"],
          // Nothing that reaches for the network: CI has none beyond package registries (the same
          // prefs as the wasm tests', xtask/src/engines/capabilities.rs).
          prefs: JSON.parse(readFileSync(join(ROOT, "tests/engines/firefox-prefs.json"), "utf8")),
        },
      },
      canGoOffline: true,
    };
  },
  webkit: () => {
    const driver = process.env.WEBKIT_DRIVER || "/usr/bin/WebKitWebDriver";
    requireFiles([["WebKitWebDriver (Debian webkit2gtk-driver)", driver]]);
    assert.ok(process.env.DISPLAY, "WebKitGTK needs an X display: run the engine tests under xvfb-run -a");
    return { name: "WebKitGTK", driver, driverArgs: [], capabilities: {}, canGoOffline: false };
  },
};

const engineName = process.env.ENGINE;
if (!Object.hasOwn(ENGINES, engineName ?? "")) throw new Error(`ENGINE must be one of ${Object.keys(ENGINES).join(", ")} (got ${engineName})`);
/** The engine of this run: `{ name, driver, driverArgs, capabilities, canGoOffline }`. */
export const ENGINE = { id: engineName, ...ENGINES[engineName]() };
requireFiles([SERVER_BUILT, ["package (cargo xtask build)", join(PKG, "mcp_tasks_web.js")]]);
if (ENGINE.driver.includes("/") && !existsSync(ENGINE.driver)) throw new Error(`missing WebDriver: ${ENGINE.driver}`);

/**
 * A reference server (memory store, --faults, POLL_MS) serving the host pages at / and pkg/ at /pkg/;
 * `args` go last (e.g. `--db FILE` instead of the memory store, `--listen ADDR` for a fixed port).
 */
export function startServer(args = []) {
  return startReferenceServer({ www: PAGES, pkg: PKG, pollMs: POLL_MS, faults: true, verbose: VERBOSE, args });
}

/**
 * Runs `body({ server, browser, engine })` with a fresh server (or the one `options.server` gives), driver
 * and browser session, and always stops all three. On failure, the server log and the driver's last output are added to the message.
 */
export async function withBrowser(body, { server: given } = {}) {
  const server = given ?? (await startServer());
  let driver = null;
  let browser = null;
  try {
    driver = await startDriver(ENGINE.driver, ENGINE.driverArgs);
    browser = await newSession(driver.url, ENGINE.capabilities);
    await browser.scriptTimeout(30_000);
    await body({ server, browser, engine: ENGINE });
  } catch (error) {
    if (!VERBOSE) {
      error.message += `\n--- server log (${server.log.length} lines) ---\n${server.log.map((l) => `${l.at % 100_000} ${l.text}`).join("\n")}`;
      if (driver) error.message += `\n--- driver output (last lines) ---\n${driver.output.join("").split("\n").slice(-30).join("\n")}`;
    }
    throw error;
  } finally {
    if (browser) await browser.end().catch(() => {});
    if (driver) await driver.stop();
    await server.stop();
  }
}

/** Polls `script` (run in the current window) every 50 ms until it returns something truthy; that value. */
export async function waitFor(browser, what, script, args = [], timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await browser.run(script, ...args);
    if (last) return last;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/**
 * Opens the host page (tests/e2e/pages/index.html) on namespace `ns` (with `without`, see
 * tests/e2e/pages/without.js, when given) and waits until its client is open.
 */
export async function openHost(browser, base, ns, { without } = {}) {
  const query = new URLSearchParams({ ns, observe: "1" });
  if (without) query.set("without", without);
  await browser.goto(`${base}/?${query}`);
  await hostReady(browser);
}

/** Waits for `window.host.ready`, asserting the host opened its client. */
export async function hostReady(browser) {
  const state = await waitFor(browser, "the host page's client", "return window.host && (window.host.ready || window.host.error) ? { error: window.host.error } : null;", [], 15_000);
  assert.equal(state.error, null, "the host page opened its TaskClient");
}

/** Resolves with the first host event `{kind, at, detail}` matching every field of `match` (kind, then detail fields). */
export function waitEvent(browser, match, timeout = 10_000) {
  return waitFor(
    browser,
    `a host event ${JSON.stringify(match)}`,
    "const m = arguments[0]; return window.host.events.find((e) => e.kind === m.kind && Object.entries(m).every(([k, v]) => k === 'kind' || e.detail?.[k] === v)) ?? null;",
    [match],
    timeout,
  );
}

/** `host.wait(id)` in the page, with a deadline. */
export function waitDone(browser, id, timeout = 10_000) {
  return browser.run(
    "const [taskId, ms] = arguments; return Promise.race([window.host.wait(taskId), new Promise((_, reject) => setTimeout(() => reject(new Error(`task ${taskId} did not settle within ${ms} ms: ${JSON.stringify(window.host.tasks())}`)), ms))]);",
    id,
    timeout,
  );
}

/** The host client's snapshot of task `id` (null when unknown). */
export const snapshotOf = (browser, id) => browser.run("return window.host.tasks().find((t) => t.taskId === arguments[0]) ?? null;", id);

/** The /mcp requests the current window recorded (observe.js). */
export const requestsOf = (browser) => browser.run("return window.__mcpRequests ?? [];");

/** Asserts that the current window recorded no uncaught error, unhandled rejection or console.error. */
export async function assertNoPageErrors(browser, where = "the page") {
  const errors = await browser.run("return window.__pageErrors ?? ['observe.js did not run'];");
  assert.deepEqual(errors, [], `no errors in ${where}:\n${errors.join("\n")}`);
}
