// The hand-over (js/driver/task_client.js, `#handOver`): the first door has no 2025-11-25 flow and
// hands over to the door that has it, loaded only then. Here the store says the server speaks
// 2025-11-25, so the hand-over comes at open; the interop matrix's 2025-11-25 peers cover the one a
// call finds out. `setFullDoor` is how the package's Node and Deno entries load that door.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { startServer, mapStore } from "./support.mjs";

const entry = new URL(process.env.MCP_TASKS_PKG ?? "../../pkg/node.mjs", import.meta.url);
const pkg = await import(entry);
assert.equal(typeof pkg.setFullDoor, "function", `${entry} exports setFullDoor`);
const server = await startServer(["--poll-interval-ms", "100"]);
after(() => server.stop());

/** The full door as the Node entry loads it. */
async function loadFullDoor() {
  const glue = await import(new URL("./client_full.js", entry));
  await glue.default({ module_or_path: await readFile(new URL("./client_full_bg.wasm", entry)) });
  return glue.ClientDoor;
}

test("a store that says the server is 2025-11-25 hands over at open; a door that cannot load fails open() saying why", async () => {
  const store = mapStore();
  const options = { url: server.url, store, minPollIntervalMs: 50, namespace: "handover" };
  const first = await pkg.TaskClient.open(options);
  const { task } = await first.callTool("build", { seconds: 1, target: "handover" });
  first.close();
  const taskKey = [...store.map.keys()].find((key) => key.endsWith(`task/${task.taskId}`));
  assert.ok(taskKey, `the task is stored: ${[...store.map.keys()]}`);
  const serverKey = `${taskKey.slice(0, -`task/${task.taskId}`.length)}server`;
  store.map.set(serverKey, JSON.stringify({ protocol: "2025-11-25", session: null }));

  let loads = 0;
  pkg.setFullDoor(async () => {
    loads++;
    throw new Error("blocked by the test");
  });
  await assert.rejects(pkg.TaskClient.open(options), (e) => e.name === "NetworkError" && /2025-11-25/.test(e.message) && /blocked by the test/.test(e.message));
  assert.equal(loads, 1, "the full door was asked for once");

  pkg.setFullDoor(async () => {
    loads++;
    return loadFullDoor();
  });
  const client = await pkg.TaskClient.open(options);
  try {
    assert.equal(loads, 2);
    assert.deepEqual(client.tasks().map((t) => t.taskId), [task.taskId], "the full door restored the stored task");
    const done = await client.wait(task.taskId);
    assert.equal(done.status, "completed", "and drives it to the end");
    assert.equal(done.result?.structuredContent?.target, "handover");
  } finally {
    client.close();
    pkg.setFullDoor(loadFullDoor);
  }
});

test("the full door must speak the driver's door protocol, and an effect the driver does not know is an error", async () => {
  const store = mapStore();
  const options = { url: server.url, store, minPollIntervalMs: 50, namespace: "handover-version" };
  const first = await pkg.TaskClient.open(options);
  const { task } = await first.callTool("build", { seconds: 1, target: "version" });
  first.close();
  const taskKey = [...store.map.keys()].find((key) => key.endsWith(`task/${task.taskId}`));
  store.map.set(`${taskKey.slice(0, -`task/${task.taskId}`.length)}server`, JSON.stringify({ protocol: "2025-11-25", session: null }));
  const Full = await loadFullDoor();
  assert.equal(typeof Full.version(), "number", "the door says its protocol version");

  // A door of another protocol version: the hand-over refuses it, and open() fails saying so.
  pkg.setFullDoor(async () => class extends Full { static version() { return Full.version() + 1; } });
  await assert.rejects(pkg.TaskClient.open(options), (e) => e.name === "ProtocolError" && /door protocol/.test(e.message));

  // A door that asks for an effect this driver has no case for: thrown to the host call that fed the
  // event, never skipped.
  pkg.setFullDoor(async () => class extends Full {
    handle(now, x, event, body) {
      const effects = JSON.parse(super.handle(now, x, event, body));
      return JSON.stringify(JSON.parse(event).e === "wait" ? [{ do: "shout" }, ...effects] : effects);
    }
  });
  const client = await pkg.TaskClient.open(options);
  try {
    await assert.rejects(client.wait(task.taskId), (e) => e.name === "ProtocolError" && /"do":"shout"/.test(e.message));
  } finally {
    client.close();
    pkg.setFullDoor(loadFullDoor);
  }
});
