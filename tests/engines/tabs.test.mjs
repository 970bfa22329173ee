// Two tabs in the engine of this run (ENGINE=firefox|webkit, see rig.mjs): two windows of one browser
// session on the same namespace. With Web Locks, one tab (the lock holder) talks to the server about a
// task and the other learns every change over BroadcastChannel; when the talking tab closes, the other
// takes over. Without Web Locks each tab talks to no one: fallbacks.test.mjs. The Chromium version (with
// polling forced through request interception) is tests/e2e/tabs.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENGINE, sleep, withBrowser, waitEvent, waitDone, requestsOf, assertNoPageErrors } from "./rig.mjs";
import { covers, twoTabs, inTab, talkBy, waitForTalk } from "./tabs-rig.mjs";

test(`${ENGINE.name}: two tabs, one task: one tab talks to the server (Web Locks), both see it complete`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    const tabs = await twoTabs(browser, server.base, "shared");
    const visibility = [await inTab(browser, tabs.A, "return document.visibilityState;"), await inTab(browser, tabs.B, "return document.visibilityState;")];
    const locks = await inTab(browser, tabs.A, "return typeof navigator.locks?.request === 'function';");
    const channel = await inTab(browser, tabs.A, "return typeof BroadcastChannel === 'function';");
    assert.ok(locks && channel, `${ENGINE.name} has Web Locks and BroadcastChannel (without them: fallbacks.test.mjs)`);

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
    console.error(`  ${ENGINE.name} (${browser.browser}): visibility ${visibility.join("/")}; per tab ${JSON.stringify(talk)}`);
    assert.equal(talkers.length, 1, `exactly one tab polled or listened for the task: ${JSON.stringify(talk)}`);
    const gets = server.lines("tasks/get", id);
    assert.equal(gets.length, talk[talkers[0]].filter((m) => m === "tasks/get").length, "every tasks/get the server saw came from that tab");
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
