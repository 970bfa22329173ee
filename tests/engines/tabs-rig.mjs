// Helpers of the engine tests with two tabs (tabs.test.mjs, fallbacks.test.mjs): two windows of one
// WebDriver session on the host page, and what each sent about a task (observe.js). Not a test file.
import { sleep, openHost, requestsOf } from "./rig.mjs";

/** Whether a recorded request is about task `id` with the server: a `tasks/get`, or a listen covering it. */
export const covers = (r, id) => (r.method === "tasks/get" && r.taskId === id) || (r.method === "subscriptions/listen" && r.listens.includes(id));

/**
 * Opens windows A and B on the host page of namespace `ns` (`options` as for `openHost`); `{ A, B }`
 * (their window handles).
 */
export async function twoTabs(browser, base, ns, options) {
  const A = await browser.handle();
  await openHost(browser, base, ns, options);
  const B = await browser.newWindow();
  await browser.use(B);
  await openHost(browser, base, ns, options);
  return { A, B };
}

/** Runs `script` in window `handle` (switching to it). */
export async function inTab(browser, handle, script, ...args) {
  await browser.use(handle);
  return browser.run(script, ...args);
}

/** What each tab sent about `id` since `since`: `{ A: [...methods], B: [...] }`. */
export async function talkBy(browser, tabs, id, since = 0) {
  const out = {};
  for (const [label, handle] of Object.entries(tabs)) {
    await browser.use(handle);
    out[label] = (await requestsOf(browser)).filter((r) => r.at >= since && covers(r, id)).map((r) => r.method);
  }
  return out;
}

/** Waits until the current window sent a request about `id` at or after `since`; that request. */
export async function waitForTalk(browser, id, since, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = (await requestsOf(browser)).find((r) => r.at >= since && covers(r, id));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no request about ${id} from the remaining tab within ${timeout} ms`);
    await sleep(25);
  }
}
