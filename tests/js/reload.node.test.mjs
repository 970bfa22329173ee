// A reload draws what it has: open() resolves once the first page of the store is in, the later pages
// are read after it, and a call about a task of a later page waits for it instead of failing.
// IndexedDB is fake-indexeddb here (Node has none), the only store that reads in pages.
import "fake-indexeddb/auto";
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer } from "./support.mjs";

const server = await startServer();
after(() => server.stop());

/**
 * Holds back every page of IndexedDB after a namespace's first (a read whose range starts after a key)
 * until `release()`: a slow store. `delivered` counts the later pages handed over.
 */
function slowLaterPages() {
  const getAll = IDBObjectStore.prototype.getAll;
  let release = () => {};
  const gate = new Promise((resolve) => (release = resolve));
  const slow = { delivered: 0, release, restore: () => (IDBObjectStore.prototype.getAll = getAll) };
  IDBObjectStore.prototype.getAll = function (range, count) {
    const request = getAll.call(this, range, count);
    if (!range?.lowerOpen) return request;
    const held = { result: undefined, error: null, onsuccess: null, onerror: null };
    request.onsuccess = () =>
      gate.then(() => {
        slow.delivered++;
        held.result = request.result;
        held.onsuccess?.();
      });
    request.onerror = () => {
      held.error = request.error;
      held.onerror?.();
    };
    return held;
  };
  return slow;
}

test("open() resolves before a slow store's later pages are listed; a wait() on a task of a later page settles", async () => {
  const options = { url: server.url, namespace: "reload", minPollIntervalMs: 50 };
  const first = await TaskClient.open(options);
  assert.equal(first.durable, true, "IndexedDB holds the tasks");
  const ids = [];
  for (let i = 0; i < 40; i++) ids.push((await first.callTool("build", { seconds: 1.5, target: "node" })).task.taskId);
  first.close();
  // Keys sort as their ids do (nothing in a UUID is escaped): the last is in a later page.
  const last = ids.toSorted().at(-1);

  const slow = slowLaterPages();
  let client;
  try {
    client = await Promise.race([
      TaskClient.open(options),
      new Promise((_, reject) => setTimeout(() => reject(new Error("open() waited for the later pages")), 5_000)),
    ]);
    assert.equal(slow.delivered, 0, "no later page was read when open() resolved");
    const held = client.tasks().map((t) => t.taskId);
    assert.ok(held.length >= 31 && held.length < 40, `the first page is in, not the rest: ${held.length}`);
    assert.ok(!held.includes(last), "the last task is not read yet");
  } finally {
    slow.release();
    slow.restore();
  }
  const announced = new Set();
  client.addEventListener("task", (event) => announced.add(event.detail.taskId));
  const settled = await client.wait(last);
  assert.equal(settled.taskId, last);
  assert.equal(settled.status, "completed", "the wait settles with the task's end");
  const all = client.tasks().map((t) => t.taskId);
  assert.equal(all.length, 40, "every stored task, once");
  assert.deepEqual(new Set(all), new Set(ids));
  assert.ok(announced.has(last), "a task of a later page is announced as it is read");
  await assert.rejects(client.wait("nope"), (e) => e.name === "TypeError", "an id the store never held");
  client.close();
});
