// The fallbacks, run in the engine of this run (ENGINE=firefox|webkit, see rig.mjs). Firefox ESR 153 and
// WebKitGTK 2.50 have every API the element and the client use (element.test.mjs asserts it), but
// engines within the browser floor do not: Safari before 17.4 and Firefox before 126 have no
// CustomStateSet (`ElementInternals.states`), Safari before 15.4 has no Web Locks. So each fallback runs
// here with that API removed before the page's modules load (tests/e2e/pages/without.js, `?without=`):
// the engine's own DOM, IndexedDB and BroadcastChannel, only without the one API, as such an engine is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENGINE, withBrowser, hostReady, waitDone, assertNoPageErrors } from "./rig.mjs";
import { openElementHost, waitStatus } from "./element-rig.mjs";
import { twoTabs, inTab, talkBy } from "./tabs-rig.mjs";

test(`${ENGINE.name} without CustomStateSet: the card works and shows its state by data-status, no :state()`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    await openElementHost(browser, server.base, "no-states", { without: "states" });
    const removed = await browser.run("return window.__removedApis;");
    assert.deepEqual(removed, ["states"], "ElementInternals.states was there to remove, and is gone");
    assert.equal(await browser.run("return 'states' in ElementInternals.prototype;"), false);

    const { taskId: id } = await browser.run("return window.__host.start('build', { seconds: 2, target: 'no-states' });");
    await waitStatus(browser, id, "working");
    const working = await browser.run(
      "const el = document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`); return { state: el.matches(':state(working)'), radius: getComputedStyle(el.shadowRoot.querySelector('[part~=\"card\"]')).borderTopLeftRadius, status: el.shadowRoot.querySelector('[part~=\"status\"]').textContent };",
      id,
    );
    assert.equal(working.state, false, "no custom state without CustomStateSet");
    assert.equal(working.radius, "12px", "still styled");
    assert.ok(working.status.length > 0, `the status is shown in words: ${working.status}`);
    await waitStatus(browser, id, "completed");
    const events = await browser.run("return window.__events.filter((e) => e.taskId === arguments[0]).map((e) => e.type);", id);
    assert.equal(events.at(-1), "mcp-task-settled", `the element still tells the page: ${events.join(", ")}`);
    await assertNoPageErrors(browser);
  });
});

test(`${ENGINE.name} without Web Locks: each tab covers its own tasks and talks to no one; the store is still shared`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    const tabs = await twoTabs(browser, server.base, "no-locks", { without: "locks" });
    for (const handle of Object.values(tabs)) {
      assert.deepEqual(await inTab(browser, handle, "return window.__removedApis;"), ["locks"], "navigator.locks was there to remove");
      assert.equal(await inTab(browser, handle, "return 'locks' in navigator;"), false, "and is gone");
    }
    const out = await inTab(browser, tabs.A, "return window.host.start('build', { seconds: 2, target: 'no-locks' });");
    const id = out.task.taskId;
    const doneA = await waitDone(browser, id, 10_000);
    assert.equal(doneA.status, "completed", "the tab that started the task covers it and sees it complete");
    const talk = await talkBy(browser, tabs, id);
    console.error(`  ${ENGINE.name} without Web Locks: per tab ${JSON.stringify(talk)}`);
    assert.ok(talk.A.length > 0, `tab A covered its task itself: ${JSON.stringify(talk)}`);
    assert.deepEqual(talk.B, [], "tab B, which does not know the task, sent nothing about it");
    const heard = await inTab(browser, tabs.B, "return window.host.events.filter((e) => e.detail.taskId === arguments[0]).length;", id);
    assert.equal(heard, 0, "without Web Locks the clients talk to no one: tab B heard nothing of the task");

    // The store (IndexedDB) is the engine's and shared: tab B, reloaded, restores the finished task.
    await browser.use(tabs.B);
    await browser.refresh();
    await hostReady(browser);
    const restored = await browser.run("return window.host.tasks().find((t) => t.taskId === arguments[0]) ?? null;", id);
    assert.ok(restored, "tab B restores the task from IndexedDB after a reload");
    assert.equal(restored.status, "completed");
    assert.equal(restored.result?.structuredContent?.target, "no-locks");
    assert.equal(server.lines("tools/call", "build").length, 1, "the tool was called once");
    for (const [label, handle] of Object.entries(tabs)) {
      await browser.use(handle);
      await assertNoPageErrors(browser, `tab ${label}`);
    }
  });
});
