// TaskClient in a dedicated worker in headless Chromium (the client-only build, `pkg/client.js`):
// the package runs in pages, workers and Node. A worker opens a client over IndexedDB, starts a task
// and is ended mid-task; a new worker finds the task in the store and drives it to its end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer, makeProfileDir, removeProfileDir, launchContext, watchPage, assertNoErrorsIn } from "./rig.mjs";

test("a worker ended mid-task: the next worker restores the task from IndexedDB and drives it to its end", async () => {
  const server = await startServer();
  const dir = await makeProfileDir("worker");
  const errors = [];
  const context = await launchContext(dir);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    watchPage(page, { errors, requests: [] });
    await page.goto(`${server.base}/worker.html`);
    await page.waitForFunction(() => window.workersReady === true);
    const ask = (message) => page.evaluate((m) => window.workers.ask(m), message);

    await page.evaluate(() => window.workers.start());
    const opened = await ask({ op: "open", namespace: "worker" });
    assert.ok(opened.ok, opened.error);
    assert.equal(opened.value.durable, true, "IndexedDB in the worker");
    assert.deepEqual(opened.value.tasks, []);
    const called = await ask({ op: "callTool", tool: "build", args: { seconds: 2, target: "worker" } });
    assert.ok(called.ok, called.error);
    assert.equal(called.value.kind, "task");
    const { taskId } = called.value.task;
    await page.evaluate(() => window.workers.stop());

    await page.evaluate(() => window.workers.start());
    const reopened = await ask({ op: "open", namespace: "worker" });
    assert.ok(reopened.ok, reopened.error);
    assert.deepEqual(reopened.value.tasks.map((t) => t.taskId), [taskId], "the task is restored from the store");
    const done = await ask({ op: "wait", taskId });
    assert.ok(done.ok, done.error);
    assert.equal(done.value.status, "completed");
    assert.equal(done.value.result?.structuredContent?.target, "worker");
    assertNoErrorsIn({ errors, pages: [page], where: "the worker page" });
  } finally {
    await context.close().catch(() => {});
    await removeProfileDir(dir);
    await server.stop();
  }
});
