// Reload resume in the engine of this run (ENGINE=firefox|webkit, see rig.mjs): a task started on the
// host page survives a reload (its handle is read back from this engine's IndexedDB) and the reloaded
// client finishes that same task without calling the tool again. The Chromium version, with a browser
// restart on a persistent profile as well, is tests/e2e/resume.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENGINE, sleep, withBrowser, openHost, hostReady, waitDone, snapshotOf, requestsOf, assertNoPageErrors } from "./rig.mjs";

test(`${ENGINE.name}: reload mid-task, the restored client finishes the same task`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    await openHost(browser, server.base, "reload");
    const durable = await browser.run("return window.host.client.durable;");
    assert.equal(durable, true, "the client stores its tasks in IndexedDB in this engine");
    const out = await browser.run("return window.host.start('build', { seconds: 3, target: 'reload' });");
    assert.equal(out.kind, "task");
    const id = out.task.taskId;
    await sleep(800);
    const before = await snapshotOf(browser, id);
    assert.equal(before.status, "working", "still working when the page reloads");

    const reloadAt = Date.now();
    await browser.refresh();
    await hostReady(browser);
    const restored = await snapshotOf(browser, id);
    assert.ok(restored, `the task ${id} is in the reloaded client: ${JSON.stringify(await browser.run("return window.host.tasks();"))}`);
    assert.equal(restored.restored, true, "marked restored");
    assert.equal(restored.status, "working", "restored mid-task, not yet finished");

    const done = await waitDone(browser, id, 10_000);
    assert.equal(done.taskId, id, "the same taskId");
    assert.equal(done.status, "completed");
    assert.equal(done.restored, true);
    assert.equal(done.result.structuredContent.target, "reload");
    assert.equal(server.lines("tools/call", "build").length, 1, "the tool was called once (the reload did not call it again)");
    // The reloaded page reached the task again, by polling it or by covering it with a listen stream.
    const after = await requestsOf(browser);
    const resumed = after.filter((r) => r.at >= reloadAt && (r.taskId === id || r.listens.includes(id)));
    assert.ok(resumed.length >= 1, `the reloaded page polled or listened to the same task: ${JSON.stringify(after)}`);
    assert.ok(server.log.some((l) => l.start >= reloadAt - 20 && (l.name === id || l.method === "subscriptions/listen")), "and the server saw it");
    console.error(`  ${ENGINE.name} (${browser.browser}): resumed with ${resumed.map((r) => r.method).join(", ")}`);
    await assertNoPageErrors(browser);
  });
});
