// `mcp-tasks-web/extension` (pkg/extension.js: the client without the 2025-11-25 generation) in Node
// against the reference server: it drives 2026-07-28 tasks as the default entry does, and a
// 2025-11-25 record that the default entry stored in the same namespace is left exactly as it was —
// never polled, expired or rewritten (tests/legacy_state.rs checks the storage event that says why).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { TaskClient as FullClient, startServer, mapStore, nextTask } from "./support.mjs";

const extension = await import(new URL("../../pkg/extension.js", import.meta.url));
// Node's fetch cannot read file: URLs, so the module's bytes are handed over (the Node entry of the
// default build does the same for client_bg.wasm).
await extension.default({ module_or_path: await readFile(new URL("../../pkg/extension_bg.wasm", import.meta.url)) });
const { TaskClient } = extension;

const server = await startServer(["--poll-interval-ms", "100"]);
after(() => server.stop());

const options = (extra = {}) => ({ url: server.url, store: mapStore(), minPollIntervalMs: 50, namespace: "extension-tests", ...extra });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("the extension entry is its own build of the same API", () => {
  assert.notEqual(TaskClient, FullClient);
  assert.equal(extension.tasksExtensionId(), "io.modelcontextprotocol/tasks");
});

test("a task runs to completion and an approval is answered once", async () => {
  const client = await TaskClient.open(options());
  const build = await client.callTool("build", { seconds: 0.5, target: "extension" });
  assert.equal(build.kind, "task");
  const built = await client.wait(build.task.taskId);
  assert.equal(built.status, "completed");
  assert.equal(built.protocol, "2026-07-28");
  assert.equal(built.result.structuredContent.target, "extension");

  const { task } = await client.callTool("deploy", { service: "api", environment: "staging" });
  await nextTask(client, (s) => s.taskId === task.taskId && s.status === "input_required");
  await client.respond(task.taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "canary", replicas: 2 } } });
  const deployed = await client.wait(task.taskId);
  assert.equal(deployed.status, "completed");
  assert.equal(deployed.result.structuredContent.replicas, 2);
  client.close();
});

test("a 2025-11-25 record another build stored is left as it was", async () => {
  const store = mapStore();
  // The default build stores two running tasks; one of them is then marked as a 2025-11-25 task, as
  // that build writes one (the same record with `protocol`).
  const full = await FullClient.open(options({ store }));
  const kept = (await full.callTool("build", { seconds: 1, target: "kept" })).task.taskId;
  const older = (await full.callTool("build", { seconds: 30, target: "older" })).task.taskId;
  full.close();
  const olderKey = [...store.map.keys()].find((k) => k.endsWith(`/task/${older}`));
  assert.ok(olderKey, `the record is stored: ${[...store.map.keys()]}`);
  const record = JSON.parse(store.map.get(olderKey));
  record.protocol = "2025-11-25";
  const olderText = JSON.stringify(record);
  store.map.set(olderKey, olderText);

  const client = await TaskClient.open(options({ store }));
  assert.deepEqual(client.tasks().map((t) => t.taskId), [kept], "only the 2026-07-28 task is held");
  assert.equal((await client.wait(kept)).status, "completed", "and it is driven as before");
  await sleep(500); // several poll intervals: an older record that were driven would have been polled
  assert.equal(store.map.get(olderKey), olderText, "the 2025-11-25 record is byte for byte as it was");
  assert.ok(!client.tasks().some((t) => t.taskId === older));
  client.close();

  // The default entry still finds it, as a 2025-11-25 task.
  const again = await FullClient.open(options({ store }));
  const found = again.tasks().find((t) => t.taskId === older);
  assert.equal(found?.protocol, "2025-11-25", JSON.stringify(found));
  again.close();
});
