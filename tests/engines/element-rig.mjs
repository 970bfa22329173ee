// Helpers of the engine tests for the <mcp-task> host page (tests/e2e/pages/element.html), on top of
// rig.mjs. Not a test file itself.
import assert from "node:assert/strict";
import { waitFor } from "./rig.mjs";

/**
 * Opens element.html on namespace `ns` (with `?observe=1`, and `without`, see without.js, when given)
 * and waits until its client is open.
 */
export async function openElementHost(browser, base, ns, { without } = {}) {
  const query = new URLSearchParams({ ns, observe: "1" });
  if (without) query.set("without", without);
  await browser.goto(`${base}/element.html?${query}`);
  const state = await waitFor(browser, "the element host's client", "return window.__host && (window.__host.ready || window.__host.error) ? { error: window.__host.error } : null;", [], 15_000);
  assert.equal(state.error, null, "the element host page opened its TaskClient");
}

/** A control inside the shadow root of the card of task `id`, as a web element reference (fails if absent). */
export async function shadowControl(browser, id, selector) {
  const ref = await browser.run("return document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`)?.shadowRoot?.querySelector(arguments[1]) ?? null;", id, selector);
  assert.ok(ref, `the card of ${id} has ${selector}`);
  return ref;
}

/** The `data-status` of the card of task `id` (null when there is no card). */
export const cardStatus = (browser, id) =>
  browser.run("return document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`)?.shadowRoot?.querySelector('[part~=\"card\"]')?.dataset.status ?? null;", id);

/** Waits until the card of task `id` shows `status`. */
export function waitStatus(browser, id, status, timeout = 10_000) {
  return waitFor(browser, `the card of ${id} to show ${status}`, "return document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`)?.shadowRoot?.querySelector('[part~=\"card\"]')?.dataset.status === arguments[1];", [id, status], timeout);
}
