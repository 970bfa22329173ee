// What the driver lists from the store reaches the door as bytes (`listed` in task_client.js: every
// key and text end to end, each one's UTF-8 length beside): records whose key and text hold characters
// beyond ASCII (two, three and four UTF-8 bytes, so the buffer sized in UTF-16 units must grow) are
// restored at open and re-read by a step with every character intact, and the records after them in
// the listing too; and a namespace larger than one part of a restore (256 records: each part is
// copied into wasm memory, which never shrinks) is restored whole. From the reference server on
// loopback and a host store over a Map.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer } from "./support.mjs";

const { mapStore } = await import(new URL("../../pkg/stores.js", import.meta.url));
const server = await startServer();
after(() => server.stop());

const NAMESPACE = "naïve-ns-日本-🎉";
const MESSAGE = "héllo – 日本語 – 🎉🎉 done";

test("records beyond ASCII are restored at open and re-read by a step with every character intact", async () => {
  const map = new Map();
  const open = () => TaskClient.open({ url: server.url, store: mapStore(map), autoPoll: false, namespace: NAMESPACE });
  const first = await open();
  const ids = [];
  for (let i = 0; i < 3; i++) {
    const out = await first.callTool("build", { seconds: 600 });
    assert.equal(out.kind, "task");
    ids.push(out.task.taskId);
  }
  first.close();
  const keys = [...map.keys()].filter((key) => key.includes("/task/"));
  assert.equal(keys.length, 3);
  assert.ok(keys.every((key) => key.includes(NAMESPACE)), "the namespace is in each key as written");
  // The stored statusMessage of the first task in key order is rewritten beyond ASCII; the others stay.
  keys.sort();
  const stored = JSON.parse(map.get(keys[0]));
  stored.last.statusMessage = MESSAGE;
  map.set(keys[0], JSON.stringify(stored));
  const rewritten = stored.taskId;

  const second = await open();
  try {
    const restored = second.tasks();
    assert.deepEqual(restored.map((t) => t.taskId).sort(), [...ids].sort(), "every record after it is read too");
    assert.equal(restored.find((t) => t.taskId === rewritten).statusMessage, MESSAGE, "restored at open");

    // Another writer changes it again between steps: the step re-reads it.
    const again = JSON.parse(map.get(keys[0]));
    again.last.statusMessage = `${MESSAGE} (again)`;
    // Not due for an hour, so the step reads it and sends nothing that would change it.
    again.poll = { ...again.poll, notBefore: Date.now() + 3_600_000 };
    map.set(keys[0], JSON.stringify(again));
    await second.step();
    const stepped = second.tasks();
    assert.equal(stepped.length, 3);
    assert.equal(stepped.find((t) => t.taskId === rewritten).statusMessage, `${MESSAGE} (again)`, "re-read by the step");
  } finally {
    second.close();
  }
});

test("a namespace of many parts is restored whole at open, and a step re-reads it whole", async () => {
  const map = new Map();
  const open = () => TaskClient.open({ url: server.url, store: mapStore(map), autoPoll: false, namespace: "many-parts" });
  const first = await open();
  const out = await first.callTool("build", { seconds: 600 });
  assert.equal(out.kind, "task");
  first.close();
  const [key] = [...map.keys()].filter((k) => k.includes("/task/"));
  const template = JSON.parse(map.get(key));
  // Not due for an hour: open and the step read the records and send nothing.
  template.poll = { ...template.poll, notBefore: Date.now() + 3_600_000 };
  // 700 more copies of the one record under ids of their own: three parts and then some.
  const text = JSON.stringify(template);
  const ids = [template.taskId];
  map.set(key, text);
  for (let i = 0; i < 700; i++) {
    const id = `copy-${String(i).padStart(4, "0")}`;
    ids.push(id);
    map.set(key.replace(template.taskId, id), text.replaceAll(template.taskId, id));
  }

  const second = await open();
  try {
    const restored = second.tasks().map((t) => t.taskId);
    assert.equal(restored.length, 701);
    assert.deepEqual(restored.sort(), [...ids].sort(), "every record of every part");
    const stepped = await second.step();
    assert.equal(stepped.polled, 0, "nothing was due");
    assert.equal(second.tasks().length, 701, "a step reads them all again");
  } finally {
    second.close();
  }
});
