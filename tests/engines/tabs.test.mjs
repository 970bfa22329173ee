// Two tabs in the engine of this run (ENGINE=firefox|webkit, see rig.mjs): two windows of one browser
// session on the same namespace. With Web Locks, one tab (the lock holder) talks to the server about a
// task and the other learns every change over BroadcastChannel; when the talking tab closes, the other
// takes over. Without Web Locks (the documented fallback) each tab covers its own handles. Which of the
// two applies is read from the engine (`navigator.locks`) and asserted, so an engine that loses Web
// Locks is tested on its fallback rather than failing for the wrong reason. The Chromium version (with
// polling forced through request interception) is tests/e2e/tabs.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENGINE, sleep, withBrowser, openHost, waitEvent, waitDone, requestsOf, assertNoPageErrors } from "./rig.mjs";

/** Whether a recorded request is about task `id` with the server: a `tasks/get`, or a listen covering it. */
const covers = (r, id) => (r.method === "tasks/get" && r.taskId === id) || (r.method === "subscriptions/listen" && r.listens.includes(id));

/** Opens windows A and B on the host page of namespace `ns`; `{ A, B }` (their window handles). */
async function twoTabs(browser, base, ns) {
  const A = await browser.handle();
  await openHost(browser, base, ns);
  const B = await browser.newWindow();
  await browser.use(B);
  await openHost(browser, base, ns);
  return { A, B };
}

/** Runs `script` in window `handle` (switching to it). */
async function inTab(browser, handle, script, ...args) {
  await browser.use(handle);
  return browser.run(script, ...args);
}

/** What each tab sent about `id` since `since`: `{ A: [...methods], B: [...] }`. */
async function talkBy(browser, tabs, id, since = 0) {
  const out = {};
  for (const [label, handle] of Object.entries(tabs)) {
    await browser.use(handle);
    out[label] = (await requestsOf(browser)).filter((r) => r.at >= since && covers(r, id)).map((r) => r.method);
  }
  return out;
}

test(`${ENGINE.name}: two tabs, one task: one tab talks to the server (Web Locks), both see it complete`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    const tabs = await twoTabs(browser, server.base, "shared");
    const visibility = [await inTab(browser, tabs.A, "return document.visibilityState;"), await inTab(browser, tabs.B, "return document.visibilityState;")];
    const locks = await inTab(browser, tabs.A, "return typeof navigator.locks?.request === 'function';");
    const channel = await inTab(browser, tabs.A, "return typeof BroadcastChannel === 'function';");
    assert.ok(channel, `${ENGINE.name} has BroadcastChannel (the tabs share record changes over it)`);

    const out = await inTab(browser, tabs.A, "return window.host.start('build', { seconds: 3, target: 'tabs' });");
    assert.equal(out.kind, "task");
    const id = out.task.taskId;
    await browser.use(tabs.B);
    const seen = await waitEvent(browser, { kind: "task", taskId: id }, 5000);
    assert.equal(seen.detail.toolName, "build", "tab B learned of the task started in tab A");

    const doneB = await waitDone(browser, id, 10_000);
    await browser.use(tabs.A);
    const doneA = await waitDone(browser, id, 10_000);
    assert.equal(doneA.status, "completed");
    assert.equal(doneB.status, "completed", "wait() resolves in tab B too");
    assert.equal(doneB.result?.structuredContent?.target, "tabs", "tab B has the result");

    await sleep(100);
    const talk = await talkBy(browser, tabs, id);
    const talkers = Object.keys(talk).filter((label) => talk[label].length > 0);
    console.error(`  ${ENGINE.name} (${browser.browser}): visibility ${visibility.join("/")}; Web Locks ${locks ? "present" : "absent"}; per tab ${JSON.stringify(talk)}`);
    if (locks) {
      assert.equal(talkers.length, 1, `exactly one tab polled or listened for the task: ${JSON.stringify(talk)}`);
      const gets = server.lines("tasks/get", id);
      assert.equal(gets.length, talk[talkers[0]].filter((m) => m === "tasks/get").length, "every tasks/get the server saw came from that tab");
    } else {
      // The fallback: no lock to share, so each tab covers the handles it knows.
      assert.deepEqual(talkers.sort(), ["A", "B"], `without Web Locks each tab covers the task itself: ${JSON.stringify(talk)}`);
    }
    assert.equal(server.lines("tools/call", "build").length, 1, "the tool was called once");
    for (const [label, handle] of Object.entries(tabs)) {
      await browser.use(handle);
      await assertNoPageErrors(browser, `tab ${label}`);
    }
  });
});

test(`${ENGINE.name}: handover, when the tab that talks to the server closes, the other takes over`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    const tabs = await twoTabs(browser, server.base, "shared");
    const out = await inTab(browser, tabs.A, "return window.host.start('build', { seconds: 4, target: 'handover' });");
    const id = out.task.taskId;
    await browser.use(tabs.B);
    await waitEvent(browser, { kind: "task", taskId: id }, 5000);
    await sleep(1000);

    const talk = await talkBy(browser, tabs, id);
    const talkers = Object.keys(talk).filter((label) => talk[label].length > 0);
    assert.equal(talkers.length, 1, `one tab talks to the server before the handover: ${JSON.stringify(talk)}`);
    const leader = talkers[0];
    const other = leader === "A" ? "B" : "A";

    await browser.use(tabs[leader]);
    const closeAt = Date.now();
    await browser.closeWindow();
    await browser.use(tabs[other]);
    const first = await waitForTalk(browser, id, closeAt, 3000);
    const delay = first.at - closeAt;
    console.error(`  ${ENGINE.name}: tab ${leader} led; tab ${other} sent ${first.method} ${delay} ms after the close`);
    assert.ok(delay <= 1500, `the other tab talks to the server within 1.5 s of the close (${delay} ms)`);

    const done = await waitDone(browser, id, 10_000);
    assert.equal(done.status, "completed", "the task completes in the tab that took over");
    assert.equal(done.result?.structuredContent?.target, "handover");
    assert.equal(server.lines("tools/call", "build").length, 1, "the tool was called once");
    const before = (await requestsOf(browser)).filter((r) => r.at < closeAt && covers(r, id));
    assert.deepEqual(before, [], `tab ${other} talked about the task only after the close`);
    await assertNoPageErrors(browser, `tab ${other}`);
  });
});

/** Waits until the current window sent a request about `id` at or after `since`; that request. */
async function waitForTalk(browser, id, since, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = (await requestsOf(browser)).find((r) => r.at >= since && covers(r, id));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no request about ${id} from the remaining tab within ${timeout} ms`);
    await sleep(25);
  }
}
